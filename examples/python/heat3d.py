#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""heat3d: the 3D heat conduction of the IJNC 2017 paper with DART.

The Python twin of examples/cpp/heat3d.cc and examples/fortran/heat3d.f90 (same command
line, same bytes out). Explicit finite differences (7-point stencil) on an
nx x ny x nz grid of float64, fixed boundary temperatures (1 on the face i = 0, 0.5 on
j = 0, 0.25 on k = 0, 0 on the other faces), on two distributed arrays with one ghost
point on every side (dart.Array: the checkerboard 3D decomposition, six neighbours), the
current and the next iterate:

    lap  = ((u[i-1] + u[i+1]) + (u[j-1] + u[j+1])) + (u[k-1] + u[k+1])
    unew = u + 0.125 * (lap - 6 u)

    mpiexec -n 4 python heat3d.py --nx 32 --ny 32 --nz 32 --iters 50 --mode blocking --out u.npy
    mpiexec -n 3 python heat3d.py --nx 32 --ny 32 --nz 32 --iters 50 --restart u.npy --out v.npy

`blocking`: update_halo, then the update; `nonblocking`: update_halo_begin, the points
that need no ghost, update_halo_end, the block's outer shell; `notify`: the arrays'
notified exchange (the owners push their faces after the receiver's credit). --out writes
the last iterate as one .npy file, every unit its block (a.save); --restart starts from
such a file (dart.Array.load, written on any number of units) instead of the initial state.
"""
import time

import numpy as np

import dartpy as dart
from heat_common import fail, fields, parse_args, report

# Parts of a block: all of it; the points that need no ghost; the outer shell as six
# slabs (the first and last plane of each dimension, inside those of the ones before).
ALL = (slice(None),) * 3
INNER = (slice(1, -1),) * 3
SHELL = [(0, slice(None), slice(None)), (-1, slice(None), slice(None)),
         (slice(1, -1), 0, slice(None)), (slice(1, -1), -1, slice(None)),
         (slice(1, -1), slice(1, -1), 0), (slice(1, -1), slice(1, -1), -1)]


def stencil(cur, nxt, part, fixed, scratch):
    """nxt = the update of cur on the block's points `part` (cur, nxt: the block and its
    six neighbour points as views lined up with it); the fixed points keep their values.
    The sums go through two preallocated scratch arrays (NumPy's out=) in the order of the
    formula above, so the bytes equal the C++ and Fortran results and no temporary is
    allocated per call."""
    c, xm, xp, ym, yp, zm, zp = (x[part] for x in cur)
    if c.size == 0:
        return
    lap, tmp = (s[:c.size].reshape(c.shape) for s in scratch)
    np.add(xm, xp, out=lap)
    np.add(ym, yp, out=tmp)
    lap += tmp
    np.add(zm, zp, out=tmp)
    lap += tmp
    np.multiply(c, 6.0, out=tmp)
    lap -= tmp
    lap *= 0.125
    out = nxt[0][part]
    np.add(c, lap, out=out)
    out[fixed[part]] = c[fixed[part]]


def main():
    args = parse_args(__doc__.splitlines()[0], 3)
    N = (args.nx, args.ny, args.nz)
    nonblocking = args.mode == "nonblocking"

    dart.init()
    try:  # the current and the next iterate; with --restart the first from the file
        u = fields(N, args.mode == "notify", args.restart)
    except (ValueError, dart.DartError) as e:  # the same on every unit (the arrays agree)
        fail("heat3d", e)

    # My block's global indices; the points on the global boundary keep their values.
    i, j, k = np.ogrid[tuple(slice(lo, hi) for lo, hi in zip(u[0].lo, u[0].hi))]
    fixed = ((i == 0) | (i == N[0] - 1) | (j == 0) | (j == N[1] - 1)
             | (k == 0) | (k == N[2] - 1))
    if not args.restart:  # ghosts stay 0 (those beyond the global boundary are never read)
        u[0].interior[...] = np.where(i == 0, 1.0, np.where(j == 0, 0.5,
                                                            np.where(k == 0, 0.25, 0.0)))
    # Zero-copy views of the local arrays (ghosts included): the block and its six
    # neighbour points along i, j and k, all lined up with the block.
    c = (slice(1, -1),) * 3
    lower, upper = slice(None, -2), slice(2, None)
    v = [tuple(x[s] for s in (c, (lower, c[1], c[2]), (upper, c[1], c[2]),
                               (c[0], lower, c[2]), (c[0], upper, c[2]),
                               (c[0], c[1], lower), (c[0], c[1], upper)))
         for x in (a.local for a in u)]

    scratch = [np.empty(v[0][0].size) for _ in range(2)]
    t_compute = 0.0
    t_halo = np.zeros(args.iters)  # per iteration: the report prints mean and median
    cur, cv, nv = 0, None, None
    for it in range(args.iters):
        cv, nv = v[cur], v[1 - cur]
        t0 = time.perf_counter()
        if not nonblocking:
            u[cur].update_halo()
            t1 = t2 = t3 = time.perf_counter()
            stencil(cv, nv, ALL, fixed, scratch)
        else:
            with u[cur].updating_halo():  # begin ... end
                t1 = time.perf_counter()
                stencil(cv, nv, INNER, fixed, scratch)
                t2 = time.perf_counter()
            t3 = time.perf_counter()
            for part in SHELL:
                stencil(cv, nv, part, fixed, scratch)
        t_halo[it] = (t1 - t0) + (t3 - t2)
        t_compute += (t2 - t1) + (time.perf_counter() - t3)
        cur = 1 - cur

    glob = u[cur].gather()  # on unit 0, None elsewhere: for the checksum
    if args.out:  # the file: every unit writes its block
        try:
            u[cur].save(args.out)
        except dart.DartError as e:  # the same on every unit (the save agrees)
            del v, cv, nv
            fail("heat3d", e)
    report("heat3d", u[0].procs, N, args, t_halo.sum(), t_compute, glob,
           halo_per_iter=t_halo)
    del v, cv, nv
    for a in u:
        a.free()
    dart.exit()


if __name__ == "__main__":
    main()
