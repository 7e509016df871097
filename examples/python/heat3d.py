#!/usr/bin/env python3
"""heat3d: the 3D heat conduction of the IJNC 2017 paper with DART.

The Python twin of examples/cpp/heat3d.cc and examples/fortran/heat3d.f90 (same command
line, same bytes out). Explicit finite differences (7-point stencil) on an
nx x ny x nz grid of float64, fixed boundary temperatures (1 on the face i = 0, 0.5 on
j = 0, 0.25 on k = 0, 0 on the other faces), checkerboard 3D decomposition, six
neighbours, halos of width 1 filled with DART gets, `blocking` or `nonblocking` (or
pushed with put_notify without barriers, `notify`):

    lap  = ((u[i-1] + u[i+1]) + (u[j-1] + u[j+1])) + (u[k-1] + u[k+1])
    unew = u + 0.125 * (lap - 6 u)

    mpiexec -n 4 python heat3d.py --nx 32 --ny 32 --nz 32 --iters 50 --mode blocking --out u.bin

Halo faces: an i-face is ly rows of lz contiguous points and a j-face lx rows of lz points:
both are one strided DART type on each side (NumPy views of the local halo, the
neighbour's layout by remote_stride/remote_blocklen). A k-face has two strides; it moves
as one strided get per i-plane. The gets are prepared once (dart.get_init) and started
every iteration (run_all / start_all): the layouts are not described again per call.
"""
import sys
import time

import numpy as np

import dartpy as dart
from heat_common import block, dims_create, parse_args, report


def stencil(u, un, lo, hi, scratch):
    """un = the update of u on the local box lo[d] <= index < hi[d]. The sums go through
    two preallocated scratch arrays (NumPy's out=) in the order of the formula above, so
    the bytes equal the C++ and Fortran results and no temporary is allocated per call."""
    if any(lo[d] >= hi[d] for d in range(3)):
        return
    (a0, b0, c0), (a1, b1, c1) = lo, hi
    size = (a1 - a0) * (b1 - b0) * (c1 - c0)
    lap, tmp = (s[:size].reshape(a1 - a0, b1 - b0, c1 - c0) for s in scratch)
    c = u[a0:a1, b0:b1, c0:c1]
    np.add(u[a0 - 1:a1 - 1, b0:b1, c0:c1], u[a0 + 1:a1 + 1, b0:b1, c0:c1], out=lap)
    np.add(u[a0:a1, b0 - 1:b1 - 1, c0:c1], u[a0:a1, b0 + 1:b1 + 1, c0:c1], out=tmp)
    lap += tmp
    np.add(u[a0:a1, b0:b1, c0 - 1:c1 - 1], u[a0:a1, b0:b1, c0 + 1:c1 + 1], out=tmp)
    lap += tmp
    np.multiply(c, 6.0, out=tmp)
    lap -= tmp
    lap *= 0.125
    np.add(c, lap, out=un[a0:a1, b0:b1, c0:c1])


def main():
    args = parse_args(__doc__.splitlines()[0], 3)
    N = (args.nx, args.ny, args.nz)
    nonblocking = args.mode == "nonblocking"

    dart.init()
    me, n = dart.myid(), dart.size()
    dims = dims_create(n, 3)
    if any(N[d] < dims[d] for d in range(3)):
        sys.exit(f"heat3d: the grid is too small for {dims[0]} x {dims[1]} x {dims[2]} units")

    def coords(unit):
        return unit // (dims[1] * dims[2]), (unit // dims[2]) % dims[1], unit % dims[2]

    def unit_at(c):
        if any(not 0 <= c[d] < dims[d] for d in range(3)):
            return -1
        return (c[0] * dims[1] + c[1]) * dims[2] + c[2]

    def block_of(unit):  # ((start, length) per dimension)
        c = coords(unit)
        return [block(N[d], dims[d], c[d]) for d in range(3)]

    def shape_of(unit):  # local array shape, halos included
        return tuple(length + 2 for _, length in block_of(unit))

    mc = coords(me)
    blk = block_of(me)
    (i0, lx), (j0, ly), (k0, lz) = blk
    shape = shape_of(me)

    cap = max(int(np.prod(shape_of(u))) for u in range(n))
    fields = [dart.empty(dart.TEAM_ALL, cap, np.float64) for _ in range(2)]
    u = [f.local[:int(np.prod(shape))].reshape(shape) for f in fields]  # zero-copy views

    i = np.arange(i0, i0 + lx)[:, None, None]
    j = np.arange(j0, j0 + ly)[None, :, None]
    k = np.arange(k0, k0 + lz)[None, None, :]
    init = np.where(i == 0, 1.0, np.where(j == 0, 0.5, np.where(k == 0, 0.25, 0.0)))
    for t in range(2):
        u[t][...] = 0.0
        u[t][1:-1, 1:-1, 1:-1] = init

    # Halos: (neighbour, its first source element, remote stride, remote block length,
    # destination view maker). Lower neighbour: its last layer -> my layer 0; upper
    # neighbour: its layer 1 -> my last layer.
    halos, faces = [], []
    for d in range(3):
        for side in (-1, 1):
            c = list(mc)
            c[d] += side
            nb = unit_at(c)
            if nb < 0:
                continue
            ns = shape_of(nb)
            src = [1, 1, 1]
            src[d] = ns[d] - 2 if side < 0 else 1
            dst = 0 if side < 0 else shape[d] - 1
            off = (src[0] * ns[1] + src[1]) * ns[2] + src[2]
            halos.append((nb, d, off, ns, dst))
            # --mode notify pushes the mirror image: my layer next to nb -> nb's halo layer
            theirs = [1, 1, 1]
            theirs[d] = ns[d] - 1 if side < 0 else 0
            mine = 1 if side < 0 else shape[d] - 2
            off = (theirs[0] * ns[1] + theirs[1]) * ns[2] + theirs[2]
            faces.append((nb, d, off, ns, mine))

    # --mode notify: each unit pushes its faces into the neighbours' halos and adds 1 to
    # the neighbour's counter of that iterate (parity k) per face; it waits for its own
    # counter to reach its number of neighbours. No barrier: a neighbour writes faces of
    # iterate k+2 (the same buffers and counter) only after this unit pushed k+1, which
    # it does after reading its halos of k; two counters keep a fast neighbour's k+1
    # notification from counting as a slow one's k. A k-face needs two strides at the
    # target: its i-planes are plain puts and one dart.notify posts them all.
    nv = dart.notify_alloc(dart.TEAM_ALL, 2) if args.mode == "notify" else None

    def push(k):
        for nb, d, off, ns, mine in faces:
            g, ctr = fields[k].gptr_of(nb), nv.gptr_of(nb, k)
            if d == 0:
                dart.put_notify(g + off, u[k][mine, 1:-1, 1:-1], ctr, remote_stride=ns[2],
                                remote_blocklen=lz)
            elif d == 1:
                dart.put_notify(g + off, u[k][1:-1, mine, 1:-1], ctr,
                                remote_stride=ns[1] * ns[2], remote_blocklen=lz)
            else:
                for a in range(1, lx + 1):
                    dart.put(g + off + (a - 1) * ns[1] * ns[2], u[k][a, 1:-1, mine],
                             remote_stride=ns[2])
                dart.notify(ctr)

    def plan(cur):
        """The halo gets of iterate cur, prepared once per field (get_init describes both
        layouts now), so that an exchange only starts them."""
        gets = []
        for nb, d, off, ns, dst in halos:
            g = fields[cur].gptr_of(nb)
            if d == 0:    # ly rows of lz points, rows ns[2] apart
                gets.append(dart.get_init(u[cur][dst, 1:-1, 1:-1], g + off,
                                          remote_stride=ns[2], remote_blocklen=lz))
            elif d == 1:  # lx rows of lz points, rows one plane apart
                gets.append(dart.get_init(u[cur][1:-1, dst, 1:-1], g + off,
                                          remote_stride=ns[1] * ns[2], remote_blocklen=lz))
            else:         # per i-plane: ly points, ns[2] apart
                gets += [dart.get_init(u[cur][a, 1:-1, dst], g + off + (a - 1) * ns[1] * ns[2],
                                       remote_stride=ns[2]) for a in range(1, lx + 1)]
        return gets

    plans = [plan(0), plan(1)]

    def exchange(cur):
        if nonblocking:
            return dart.start_all(plans[cur])
        dart.run_all(plans[cur])
        return []

    # Local index boxes: the updated points (not on the global boundary), and the part of
    # it that needs no halo.
    lo = [max(1, 2 - blk[d][0]) for d in range(3)]
    hi = [min(blk[d][1], N[d] - 1 - blk[d][0]) + 1 for d in range(3)]
    ilo = [max(lo[d], 2) for d in range(3)]
    ihi = [max(min(hi[d], blk[d][1]), ilo[d]) for d in range(3)]

    scratch = [np.empty(lx * ly * lz) for _ in range(2)]
    t_compute = 0.0
    t_halo = np.zeros(args.iters)  # per iteration: the report prints mean and median
    cur, unew = 0, None
    if nv is not None:
        push(0)  # the halos of the initial state
    for it in range(args.iters):
        unew = u[1 - cur]
        t0 = time.perf_counter()
        if nv is not None:
            dart.notify_wait(nv.gptr_of(me, cur), len(faces))  # my halos of `cur`
            t1 = time.perf_counter()
            stencil(u[cur], unew, lo, hi, scratch)
            t2 = time.perf_counter()
            push(1 - cur)
            t_halo[it] = (t1 - t0) + (time.perf_counter() - t2)
            t_compute += t2 - t1
            cur = 1 - cur
            continue
        dart.barrier()
        handles = exchange(cur)
        t1 = time.perf_counter()
        if not nonblocking:
            stencil(u[cur], unew, lo, hi, scratch)
            t_halo[it] = t1 - t0
            t_compute += time.perf_counter() - t1
        else:
            stencil(u[cur], unew, ilo, ihi, scratch)
            t2 = time.perf_counter()
            dart.waitall(handles)
            t3 = time.perf_counter()
            # The outer shell = the box minus the inner box, as six slabs.
            for d in range(3):
                for a, b in ((lo[d], ilo[d]), (ihi[d], hi[d])):
                    slab_lo = [lo[e] if e > d else ilo[e] for e in range(3)]
                    slab_hi = [hi[e] if e > d else ihi[e] for e in range(3)]
                    slab_lo[d], slab_hi[d] = a, b
                    stencil(u[cur], unew, slab_lo, slab_hi, scratch)
            t_halo[it] = (t1 - t0) + (t3 - t2)
            t_compute += (t2 - t1) + (time.perf_counter() - t3)
        cur = 1 - cur
    dart.barrier()

    glob = np.zeros(N, dtype="<f8")
    if me == 0:
        for unit in range(n):
            (ri, rx), (rj, ry), (rk, rz) = block_of(unit)
            s = shape_of(unit)
            for a in range(1, rx + 1):  # one strided get per i-plane
                off = (a * s[1] + 1) * s[2] + 1
                dart.get_blocking(glob[ri + a - 1, rj:rj + ry, rk:rk + rz],
                                  fields[cur].gptr_of(unit) + off,
                                  remote_stride=s[2], remote_blocklen=rz)
        if args.out:
            glob.tofile(args.out)
    report("heat3d", dims, N, args, t_halo.sum(), t_compute, glob, halo_per_iter=t_halo)
    dart.barrier()
    del u, unew, plans
    if nv is not None:
        nv.free()
    for f in fields:
        f.free()
    dart.exit()


if __name__ == "__main__":
    main()
