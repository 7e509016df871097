#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""heat2d: Jacobi iteration of the 2D heat equation (5-point stencil) with DART.

The Python twin of examples/cpp/heat2d.cc and examples/fortran/heat2d.f90: the same
command line, the same arithmetic and the same bytes out (docs/porting.md puts this file
next to the Fortran one, line by line).

    mpiexec -n 4 python heat2d.py --nx 64 --ny 64 --iters 100 --mode nonblocking --out u.npy
    mpiexec -n 2 python heat2d.py --nx 64 --ny 64 --iters 50 --restart u.npy --out v.npy

The field u[i, j] (j contiguous) has fixed boundary values (1 on row 0, 0.5 on column 0,
0 on the last row and column) and every other point starts at 0 and becomes
    0.25 * ((u[i-1, j] + u[i+1, j]) + (u[i, j-1] + u[i, j+1]))
on two distributed arrays with one ghost point on every side (dart.Array), the current
and the next iterate: the array decomposes the grid and fills the ghosts from the
neighbours. `blocking`: update_halo, then the update; `nonblocking`: update_halo_begin,
the points that need no ghost, update_halo_end, the block's outer ring; `notify`: the
arrays' notified exchange (the owners push their faces after the receiver's credit).
--out writes the last iterate as one .npy file, every unit its block (a.save); --restart
starts from such a file (dart.Array.load, written on any number of units) instead of the
initial state: K1 iterations, then K2 from that file, give the bytes of K1 + K2.
"""
import time

import numpy as np

import dartpy as dart
from heat_common import fail, fields, parse_args, report

# Parts of a block: all; the points that need no ghost; the outer ring (rows, columns).
ALL, INNER = (slice(None), slice(None)), (slice(1, -1), slice(1, -1))
RING = [(0, slice(None)), (-1, slice(None)), (slice(1, -1), 0), (slice(1, -1), -1)]


def solve(nx, ny, iters, nonblocking=False, snapshot_every=0, on_snapshot=None, notify=False,
          restart="", out=""):
    """Collective. Returns (the global field on unit 0, None elsewhere; this unit's seconds
    of compute; of halo exchange). on_snapshot(it, field) runs on unit 0 at it = 0 and
    every snapshot_every iterations. notify: the notified exchange; restart, out: the
    .npy files of the first iterate (instead of the initial state) and of the last."""
    u = fields((nx, ny), notify, restart)  # the current and the next iterate (heat_common)
    i, j = np.ogrid[u[0].lo[0]:u[0].hi[0], u[0].lo[1]:u[0].hi[1]]  # my block's global indices
    fixed = (i == 0) | (j == 0) | (i == nx - 1) | (j == ny - 1)  # they keep their values
    if not restart:  # ghosts stay 0 (beyond the global boundary they are never read)
        u[0].interior[...] = np.where(i == 0, 1.0, np.where(j == 0, 0.5, 0.0))
    # Zero-copy views with ghosts: the block and its N, S, W, E neighbour points, lined up.
    v = [(x[1:-1, 1:-1], x[:-2, 1:-1], x[2:, 1:-1], x[1:-1, :-2], x[1:-1, 2:])
         for x in (a.local for a in u)]

    def update(cur, part):  # the next iterate of the block's points `part`
        c, n, s, w, e = (x[part] for x in v[cur])
        nxt = v[1 - cur][0][part]
        nxt[...] = 0.25 * ((n + s) + (w + e))
        nxt[fixed[part]] = c[fixed[part]]

    def snapshot(it, cur):  # collective: the field to unit 0
        glob = u[cur].gather()
        if glob is not None and on_snapshot and snapshot_every > 0:
            on_snapshot(it, glob)
        return glob

    t, cur = np.zeros(2), 0  # t: seconds of compute, of halo exchange
    if on_snapshot and snapshot_every > 0:
        snapshot(0, cur)
    for it in range(1, iters + 1):
        t0 = time.perf_counter()
        if not nonblocking:
            u[cur].update_halo()
            t1 = t2 = t3 = time.perf_counter()
            update(cur, ALL)
        else:
            with u[cur].updating_halo():  # begin ... end
                t1 = time.perf_counter()
                update(cur, INNER)
                t2 = time.perf_counter()
            t3 = time.perf_counter()
            for part in RING:
                update(cur, part)
        t += (t2 - t1) + (time.perf_counter() - t3), (t1 - t0) + (t3 - t2)
        cur = 1 - cur
        if on_snapshot and snapshot_every > 0 and it % snapshot_every == 0 and it < iters:
            snapshot(it, cur)
    glob = snapshot(iters, cur)  # (for the checksum; the file: every unit its block)
    del v  # no view may outlive the free
    if out:
        u[cur].save(out)
    for a in u:
        a.free()
    return glob, float(t[0]), float(t[1])


def main():
    args = parse_args(__doc__.splitlines()[0], 2)
    dart.init()
    try:
        glob, t_compute, t_halo = solve(args.nx, args.ny, args.iters, args.mode == "nonblocking",
                                        notify=args.mode == "notify", restart=args.restart,
                                        out=args.out)
    except (ValueError, dart.DartError) as e:  # the same on every unit: a grid too small,
        fail("heat2d", e)                      # a file that cannot be loaded or saved
    report("heat2d", dart.array_dims_create(dart.size(), 2), (args.nx, args.ny), args,
           t_halo, t_compute, glob)
    dart.exit()


if __name__ == "__main__":
    main()
