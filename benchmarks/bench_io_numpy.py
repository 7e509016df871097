# SPDX-License-Identifier: BSD-3-Clause
"""The NumPy baseline of benchmarks/run io: one process saves and loads the whole array.

  python bench_io_numpy.py [--mib 8,64,256,1024] [--reps 3] [--dir DIR] [--out FILE]

The array is bench_io's (rows of 4096 float64, as many as make the size). `save` is
np.save to a new file followed by os.fsync (so that it is as durable as dart_array_save,
whose data is synced before it returns), `load` np.load of it (from the page cache, as
bench_io's loads). Rows as bench_io's: bench=io, impl numpy, op save|load, units 1,
placement node, median and min over the repetitions, case npy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", default="8,64,256,1024")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    out = open(args.out, "a") if args.out else sys.stdout
    path = os.path.join(args.dir, f"bench-io-numpy-{os.getpid()}.npy")
    for mib in (int(m) for m in args.mib.split(",")):
        x = np.arange((mib << 20) // 8, dtype=np.float64).reshape(-1, 4096)
        save, load = [], []
        for _ in range(args.reps):
            if os.path.exists(path):
                os.unlink(path)
            t0 = time.perf_counter()
            with open(path, "wb") as f:
                np.save(f, x)
                f.flush()
                os.fsync(f.fileno())
            save.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            y = np.load(path)
            load.append(time.perf_counter() - t0)
            del y
        os.unlink(path)
        for op, t in (("save", save), ("load", load)):
            out.write(
                f"io,numpy,{op},{x.nbytes},1,node,{statistics.median(t) * 1e6:.1f},"
                f"{min(t) * 1e6:.1f},{args.reps},npy\n"
            )
    if out is not sys.stdout:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
