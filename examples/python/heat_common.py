# SPDX-License-Identifier: BSD-3-Clause
"""What the Python heat examples share (the twin of examples/cpp/heat_common.h and
examples/fortran/heat_common.f90): the command line, the two iterates (with --restart the
first from a .npy file), the checksum and the report. The process grid and the blocks are
the distributed arrays' (dart.Array); --out is one .npy file that every unit writes its
block of (a.save: the bytes of np.save of the whole field, as in C++ and Fortran)."""
import argparse
import sys

import numpy as np

import dartpy as dart


def parse_args(description, ndims):
    """--nx --ny [--nz] --iters --mode blocking|nonblocking|notify --out FILE.npy
    --restart FILE.npy (before dart.init)."""
    ap = argparse.ArgumentParser(description=description)
    for name in ("--nx", "--ny", "--nz")[:ndims] + ("--iters",):
        ap.add_argument(name, type=int, required=True)
    ap.add_argument("--mode", choices=("blocking", "nonblocking", "notify"), default="blocking")
    ap.add_argument("--out", default="", metavar="FILE.npy")
    ap.add_argument("--restart", default="", metavar="FILE.npy")
    args = ap.parse_args()
    sizes = (args.nx, args.ny) + ((args.nz,) if ndims == 3 else ())
    if min(sizes) < 3 or args.iters < 0:
        ap.error("every grid size must be at least 3 and --iters >= 0")
    return args


def fields(shape, notify=False, restart=""):
    """Collective: the two iterates (current and next) of an example, float64 arrays of
    `shape` with one ghost point on every side, not periodic, the notified exchange or
    gets. With `restart` the first is the field of that .npy file (dart.Array.load with the
    same options, written on any number of units; its ghosts are zero). A file of another
    shape raises ValueError "--restart FILE is not a NX x NY field", one that cannot be
    loaded DartError: the same on every unit, nothing left allocated."""
    opt = dict(halo=1, exchange="notify" if notify else "get")
    first = (dart.Array.load(restart, dtype=np.float64, **opt) if restart
             else dart.Array(shape, np.float64, **opt))
    try:
        if first.shape != tuple(shape):
            raise ValueError(f"--restart {restart} is not a {' x '.join(map(str, shape))} field")
        return [first, dart.Array(shape, np.float64, **opt)]
    except (ValueError, dart.DartError):
        first.free()
        raise


def fail(name, error):
    """Ends DART and the program after an error that every unit raised alike (a grid too
    small for the units, a file that cannot be loaded or saved: the arrays agree): unit 0
    prints "<name>: <error>", every unit exits with status 2 (as in C++ and Fortran)."""
    if dart.myid() == 0:
        print(f"{name}: {error}", file=sys.stderr, flush=True)
    dart.exit()
    sys.exit(2)


def checksum(glob):
    """The plain left-to-right sum in file order (as in C++ and Fortran), not np.sum,
    which sums pairwise and would print another last digit."""
    return float(np.add.accumulate(glob.ravel())[-1])


def report(name, procs, points, args, t_halo, t_compute, glob, halo_per_iter=None):
    """Collective; unit 0 prints what ran, the time per iteration (compute and halo
    exchange, max over units), the checksum and the output file. procs, points: the
    process grid and the grid of points, as tuples. halo_per_iter (seconds per
    iteration, optional): also print the median halo exchange (max over units), which a
    few descheduled iterations do not move as they move the mean."""
    median = 0.0
    if halo_per_iter is not None and len(halo_per_iter) > 0:
        median = float(np.median(halo_per_iter))
    times = np.zeros(3)
    dart.allreduce(np.array([t_halo, t_compute, median]), times, dart.OP_MAX)
    halo, compute, median = times
    if dart.myid() != 0:
        return
    per = 1e6 / args.iters if args.iters > 0 else 0.0
    print(f"{name} (Python): {dart.size()} units ({' x '.join(map(str, procs))}) on "
          f"{dart.node_count()} node(s), grid {' x '.join(map(str, points))}, "
          f"{args.iters} iterations, {args.mode}")
    print(f"time per iteration: compute {compute * per:.2f} us, halo exchange "
          f"{halo * per:.2f} us (max over units)")
    if halo_per_iter is not None:
        print(f"halo exchange median {median * 1e6:.2f} us per iteration (max over units)")
    print(f"checksum: {checksum(glob):.17g}")
    if args.out:
        print(f"wrote {args.out}")
