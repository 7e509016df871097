#!/usr/bin/env python3
"""heat2d: Jacobi iteration of the 2D heat equation (5-point stencil) with DART.

The Python twin of examples/cpp/heat2d.cc and examples/fortran/heat2d.f90: the same
command line, the same arithmetic and the same bytes out (docs/porting.md puts this file
next to the Fortran one, line by line).

    mpiexec -n 4 python heat2d.py --nx 64 --ny 64 --iters 100 --mode nonblocking --out u.bin

The field u[i, j] (j contiguous) has fixed boundary values (1 on row 0, 0.5 on column 0,
0 on the last row and column) and every other point starts at 0 and becomes
    0.25 * ((u[i-1, j] + u[i+1, j]) + (u[i, j-1] + u[i, j+1]))
Each unit owns a block with a ring of halo points, inside two collective allocations (the
current and the next iterate). Per iteration: a barrier, the four halos by DART gets
(rows contiguous; columns strided on both sides, one strided DART type each), the update.
`nonblocking` starts the gets with get_handle, updates the points that need no halo,
waits, then updates the block's outer ring. `notify` has no barrier: each unit pushes its
faces into the neighbours' halos with put_notify and waits for its own counters.
"""
import time

import numpy as np

import dartpy as dart
from heat_common import block, dims_create, parse_args, report


def stencil(u, un, a0, a1, b0, b1):
    """un = the Jacobi update of u on local rows a0..a1-1 and columns b0..b1-1."""
    if a0 < a1 and b0 < b1:
        un[a0:a1, b0:b1] = 0.25 * ((u[a0 - 1:a1 - 1, b0:b1] + u[a0 + 1:a1 + 1, b0:b1])
                                   + (u[a0:a1, b0 - 1:b1 - 1] + u[a0:a1, b0 + 1:b1 + 1]))


def solve(nx, ny, iters, nonblocking=False, snapshot_every=0, on_snapshot=None, notify=False):
    """Runs the iteration on all units (collective). Returns (field, t_compute, t_halo):
    the final global field on unit 0 (None elsewhere) and this unit's seconds of compute
    and halo exchange. on_snapshot(iteration, field) runs on unit 0 every snapshot_every
    iterations (and for the initial field) with the gathered global field. notify: the
    halos are pushed with put_notify instead (no barrier in the loop)."""
    me, n = dart.myid(), dart.size()
    px, py = dims_create(n, 2)
    if nx < px or ny < py:
        raise ValueError(f"grid {nx} x {ny} is too small for {px} x {py} units")

    def block_of(unit):  # ((row start, rows), (column start, columns)) of a unit
        return block(nx, px, unit // py), block(ny, py, unit % py)

    def unit_at(cx, cy):
        return cx * py + cy if 0 <= cx < px and 0 <= cy < py else -1

    cx, cy = me // py, me % py
    (i0, lnx), (j0, lny) = block_of(me)
    ld = lny + 2  # elements per local row, halos included

    # Two collective allocations, each large enough for the largest block with halos.
    cap = max((r[1] + 2) * (c[1] + 2) for r, c in map(block_of, range(n)))
    fields = [dart.empty(dart.TEAM_ALL, cap, np.float64) for _ in range(2)]
    u = [f.local[:(lnx + 2) * ld].reshape(lnx + 2, ld) for f in fields]  # zero-copy views

    # Initial state (halos 0; global-boundary halos are never read).
    i = np.arange(i0, i0 + lnx)[:, None]
    j = np.arange(j0, j0 + lny)[None, :]
    for k in range(2):
        u[k][:, :] = 0.0
        u[k][1:-1, 1:-1] = np.where(i == 0, 1.0, np.where(j == 0, 0.5, 0.0))

    # The halos: (neighbour, element offset there, remote stride (0: a row), my row, my
    # column). Rows are contiguous; columns are strided here and there.
    halos = []
    if (nb := unit_at(cx - 1, cy)) >= 0:  # north: its last row -> my row 0
        (_, nr), (_, nc) = block_of(nb)
        halos.append((nb, nr * (nc + 2) + 1, 0, 0, 1))
    if (nb := unit_at(cx + 1, cy)) >= 0:  # south: its row 1 -> my row lnx+1
        (_, nr), (_, nc) = block_of(nb)
        halos.append((nb, (nc + 2) + 1, 0, lnx + 1, 1))
    if (nb := unit_at(cx, cy - 1)) >= 0:  # west: its last column -> my column 0
        (_, nr), (_, nc) = block_of(nb)
        halos.append((nb, (nc + 2) + nc, nc + 2, 1, 0))
    if (nb := unit_at(cx, cy + 1)) >= 0:  # east: its column 1 -> my column lny+1
        (_, nr), (_, nc) = block_of(nb)
        halos.append((nb, (nc + 2) + 1, nc + 2, 1, lny + 1))

    # --mode notify: the same halos, pushed by their owners: (neighbour, element offset
    # of its halo, remote stride, my row, my column). Each face of iterate k adds 1 to
    # the neighbour's counter k (parity). No barrier is needed: a neighbour writes faces
    # of iterate k+2 (the same buffers and counter) only after this unit pushed k+1,
    # which it does after reading its halos of k; two counters keep a fast neighbour's
    # k+1 notification from counting as a slow neighbour's k (see heat2d.cc).
    faces = []
    if (nb := unit_at(cx - 1, cy)) >= 0:  # my row 1 -> north's halo row below it
        (_, nr), (_, nc) = block_of(nb)
        faces.append((nb, (nr + 1) * (nc + 2) + 1, 0, 1, 1))
    if (nb := unit_at(cx + 1, cy)) >= 0:  # my last row -> south's halo row 0
        faces.append((nb, 1, 0, lnx, 1))
    if (nb := unit_at(cx, cy - 1)) >= 0:  # my column 1 -> west's last halo column
        (_, nr), (_, nc) = block_of(nb)
        faces.append((nb, (nc + 2) + nc + 1, nc + 2, 1, 1))
    if (nb := unit_at(cx, cy + 1)) >= 0:  # my last column -> east's halo column 0
        (_, nr), (_, nc) = block_of(nb)
        faces.append((nb, nc + 2, nc + 2, 1, lny))
    nv = dart.notify_alloc(dart.TEAM_ALL, 2) if notify else None

    def push(k):
        """Faces of iterate k -> the neighbours' halos of iterate k, with notification."""
        for nb, off, stride, a, b in faces:
            src = u[k][a, 1:lny + 1] if stride == 0 else u[k][1:lnx + 1, b]
            dart.put_notify(fields[k].gptr_of(nb) + off, src, nv.gptr_of(nb, k),
                            remote_stride=stride)

    def exchange(cur):
        """Starts (nonblocking) or does (blocking) the halo gets of iterate cur."""
        handles = []
        for nb, off, stride, a, b in halos:
            src = fields[cur].gptr_of(nb) + off
            dst = u[cur][a, 1:lny + 1] if stride == 0 else u[cur][1:lnx + 1, b]
            if nonblocking:
                handles.append(dart.get_handle(dst, src, remote_stride=stride))
            else:
                dart.get_blocking(dst, src, remote_stride=stride)
        return handles

    def gather(cur):
        """Unit 0 gets every block (one strided get each); None on the other units."""
        if me != 0:
            return None
        glob = np.zeros((nx, ny), dtype="<f8")
        for unit in range(n):
            (ri, rn), (rj, rc) = block_of(unit)
            dart.get_blocking(glob[ri:ri + rn, rj:rj + rc],
                              fields[cur].gptr_of(unit) + (rc + 2) + 1,
                              remote_stride=rc + 2, remote_blocklen=rc)
        return glob

    # Local rows/columns whose global point is updated (not on the global boundary).
    a0, a1 = max(1, 1 - i0 + 1), min(lnx, nx - 2 - i0 + 1) + 1
    b0, b1 = max(1, 1 - j0 + 1), min(lny, ny - 2 - j0 + 1) + 1
    # The part of that which needs no halo (nonblocking mode).
    c0, c1, d0, d1 = max(a0, 2), min(a1, lnx), max(b0, 2), min(b1, lny)

    t_halo = t_compute = 0.0
    cur, unew = 0, None
    if on_snapshot and snapshot_every > 0:
        dart.barrier()
        if me == 0:
            on_snapshot(0, gather(cur))
    if notify:
        push(0)  # the halos of the initial state
    for it in range(1, iters + 1):
        unew = u[1 - cur]
        t0 = time.perf_counter()
        if notify:
            dart.notify_wait(nv.gptr_of(me, cur), len(faces))  # my halos of `cur`
            t1 = time.perf_counter()
            stencil(u[cur], unew, a0, a1, b0, b1)
            t2 = time.perf_counter()
            push(1 - cur)
            t_halo += (t1 - t0) + (time.perf_counter() - t2)
            t_compute += t2 - t1
            cur = 1 - cur
            if on_snapshot and snapshot_every > 0 and it % snapshot_every == 0 and it < iters:
                dart.barrier()
                if me == 0:
                    on_snapshot(it, gather(cur))
            continue
        dart.barrier()  # neighbours are done writing iterate `cur`
        handles = exchange(cur)
        t1 = time.perf_counter()
        if not nonblocking:
            stencil(u[cur], unew, a0, a1, b0, b1)
            t_halo += t1 - t0
            t_compute += time.perf_counter() - t1
        else:
            stencil(u[cur], unew, c0, c1, d0, d1)  # needs no halo
            t2 = time.perf_counter()
            dart.waitall(handles)
            t3 = time.perf_counter()
            stencil(u[cur], unew, a0, c0, b0, b1)  # the outer ring: top rows,
            stencil(u[cur], unew, max(c1, c0), a1, b0, b1)  # bottom rows,
            stencil(u[cur], unew, c0, c1, b0, d0)  # left and
            stencil(u[cur], unew, c0, c1, max(d1, d0), b1)  # right columns
            t_halo += (t1 - t0) + (t3 - t2)
            t_compute += (t2 - t1) + (time.perf_counter() - t3)
        cur = 1 - cur
        if on_snapshot and snapshot_every > 0 and it % snapshot_every == 0 and it < iters:
            dart.barrier()
            if me == 0:
                on_snapshot(it, gather(cur))
    dart.barrier()
    glob = gather(cur)
    if on_snapshot and snapshot_every > 0 and me == 0:
        on_snapshot(iters, glob)
    dart.barrier()  # nobody frees before unit 0 has gathered
    del u, unew
    if nv is not None:
        nv.free()
    for f in fields:
        f.free()
    return glob, t_compute, t_halo


def main():
    args = parse_args(__doc__.splitlines()[0], 2)
    dart.init()
    me, n = dart.myid(), dart.size()
    glob, t_compute, t_halo = solve(args.nx, args.ny, args.iters, args.mode == "nonblocking",
                                    notify=args.mode == "notify")
    if me == 0 and args.out:
        glob.tofile(args.out)
    report("heat2d", dims_create(n, 2), (args.nx, args.ny), args, t_halo, t_compute, glob)
    dart.exit()


if __name__ == "__main__":
    main()
