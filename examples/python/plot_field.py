#!/usr/bin/env python3
"""Plot a field written by the heat examples (raw little-endian float64, C order).

    python plot_field.py FILE NX NY [NZ] --png OUT.png [--title TEXT]

A 3D field is shown as its middle k-plane.
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("shape", type=int, nargs="+", help="NX NY [NZ]")
    ap.add_argument("--png", required=True)
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    field = np.fromfile(args.file, dtype="<f8")
    if field.size != int(np.prod(args.shape)):
        ap.error(f"{args.file} holds {field.size} values, not {' x '.join(map(str, args.shape))}")
    field = field.reshape(args.shape)
    if field.ndim == 3:
        field = field[:, :, field.shape[2] // 2]
    fig, ax = plt.subplots(figsize=(6, 6 * field.shape[0] / field.shape[1] + 0.6))
    im = ax.imshow(field, cmap="inferno", vmin=0.0, vmax=1.0)
    ax.set_xlabel("j")
    ax.set_ylabel("i")
    ax.set_title(args.title or args.file)
    fig.colorbar(im, ax=ax, label="temperature", shrink=0.8)
    fig.tight_layout()
    fig.savefig(args.png, dpi=100)


if __name__ == "__main__":
    main()
