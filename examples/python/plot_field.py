#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot a field written by the heat examples (a .npy file, any language, any number of units).

    python plot_field.py FILE.npy --png OUT.png [--title TEXT]

The shape is the file's (np.load); a 3D field is shown as its middle k-plane.
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="a .npy file of a 2D or 3D field (--out of heat2d, heat3d)")
    ap.add_argument("--png", required=True)
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    field = np.load(args.file)
    if field.ndim not in (2, 3):
        ap.error(f"{args.file} holds a {field.ndim}-dimensional array, not a 2D or 3D field")
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
