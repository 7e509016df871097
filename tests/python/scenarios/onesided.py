# SPDX-License-Identifier: BSD-3-Clause
"""One-sided scenarios: put/get in every form, zero-copy views, strided NumPy slices."""

from __future__ import annotations

import sys

import numpy as np
from _helpers import DTYPES, done, main, pattern, raises, same, same_node

import dartpy as dart


def all_dtypes(me, n, right, left):
    """Contiguous blocking put/get for every supported dtype, checked bit for bit."""
    for dt in DTYPES:
        g = dart.team_memalloc_aligned(dart.TEAM_ALL, 8, dt)
        assert g.dtype == np.dtype(dt) and g.unit == 0
        dart.put_blocking(g.setunit(right), pattern(me, 8, dt))
        dart.barrier()
        mine = np.zeros(8, dt)
        dart.get_blocking(mine, g.setunit(me))
        assert same(mine, pattern(left, 8, dt)), (dt, mine)
        other = np.zeros(8, dt)
        dart.get_blocking(other, g.setunit(right))
        assert same(other, pattern(me, 8, dt)), (dt, other)
        dart.barrier()
        dart.team_memfree(g)


def zero_copy(me, n, right, left):
    """A remote put is visible through the target's view without any get; same-node
    units' parts are viewable, other nodes' parts raise."""
    z = dart.zeros(dart.TEAM_ALL, (4, 4), np.int64)
    v = z.local
    assert v.shape == (4, 4) and v.dtype == np.int64 and not v.any()
    dart.barrier()  # everybody checked the zeros before anybody writes
    dart.put_blocking(z.gptr_of(right), np.full((4, 4), 1000 + me, np.int64))
    dart.barrier()
    assert (v == 1000 + left).all(), v
    part = v[1:3, ::2]  # a NumPy slice keeps the view's owner alive
    del v
    for u in range(n):
        if same_node(u):
            w = z.view(u)
            assert (w == 1000 + (u - 1) % n).all()
            # store through the view of a same-node unit, read back with a get
            dart.barrier()
            if u == right:
                w[0, 0] = -me
            dart.barrier()
            del w
        else:
            e = raises(dart.DartError, z.view, u, match="another node")
            assert "node" in str(e) and e.code == dart.ERR_INVAL
            dart.barrier()
            dart.barrier()
    got = np.zeros(1, np.int64)
    dart.get_blocking(got, z.gptr_of(me))
    if same_node(left):
        assert got[0] == -left, got
    assert part.base is not None and dart._core._views_of(z.gptr_of(me)) >= 1
    del part
    dart.barrier()
    z.free()


def halo_2d(me, n, right, left):
    """Halo columns of a C-order 2-D array: strided on the local side, on the remote side
    (remote_stride), and on both."""
    R, C = 6, 7
    base = np.arange(R * C, dtype=np.float64).reshape(R, C)
    a = dart.empty(dart.TEAM_ALL, (R, C), np.float64)
    loc = a.local
    loc[...] = me * 1000 + base
    dart.barrier()
    col = np.zeros(R)
    dart.get_blocking(col, a.gptr_of(right) + 1, remote_stride=C)  # remote strided
    assert np.array_equal(col, right * 1000 + base[:, 1])
    buf = np.zeros((R, C))
    assert dart._core._layout_type(buf[:, C - 1])[::2] == ("derived", R)  # one strided type
    dart.get_blocking(buf[:, C - 1], a.gptr_of(right) + 1, remote_stride=C)  # both strided
    assert np.array_equal(buf[:, C - 1], right * 1000 + base[:, 1])
    assert not buf[:, : C - 1].any()  # nothing else touched
    dart.barrier()
    # halo exchange: my column 1 -> left's last column; my column C-2 -> right's column 0
    dart.put_blocking(a.gptr_of(left) + (C - 1), loc[:, 1], remote_stride=C)
    dart.put_blocking(a.gptr_of(right), loc[:, C - 2], remote_stride=C)
    dart.barrier()
    assert np.array_equal(loc[:, C - 1], right * 1000 + base[:, 1]), loc
    assert np.array_equal(loc[:, 0], left * 1000 + base[:, C - 2]), loc
    assert np.array_equal(loc[:, 1 : C - 1], me * 1000 + base[:, 1 : C - 1])
    # interior rows as a 2-D sub-block (strided, blocklen C-2)
    dart.barrier()
    sub = np.zeros((R, C))
    assert dart._core._layout_type(sub[1:-1, 1:-1])[::2] == ("derived", (R - 2) * (C - 2))
    dart.get_blocking(
        sub[1:-1, 1:-1], a.gptr_of(right) + (C + 1), remote_stride=C, remote_blocklen=C - 2
    )
    assert np.array_equal(sub[1:-1, 1:-1], right * 1000 + base[1:-1, 1:-1])
    assert not sub[0].any() and not sub[:, 0].any()
    del loc
    dart.barrier()
    a.free()


def faces_3d(me, n, right, left):
    """Faces of a 3-D block as put sources and get destinations (local strided)."""
    shp = (4, 5, 6)
    src = (np.arange(np.prod(shp), dtype=np.int32) + 1000 * me).reshape(shp)
    faces = {
        "i": (lambda x: x[1, :, :], "basic"),
        "j": (lambda x: x[:, 2, :], "strided"),
        "k": (lambda x: x[:, :, 3], "strided"),
        "interior": (lambda x: x[1:3, 1:4, 1:5], "indexed"),
    }
    land = dart.zeros(dart.TEAM_ALL, 64, np.int32)  # contiguous landing zone
    for name, (face, kind) in faces.items():
        f = face(src)
        got = dart._core._layout_type(f)[0]  # kind: what the core's layout engine builds
        assert got == ("basic" if kind == "basic" else "derived"), (name, got)
        k = f.size
        dart.put_blocking(land.gptr_of(right), f)  # local strided -> remote contiguous
        dart.barrier()
        mine = land.local[:k].copy()
        expect = np.ascontiguousarray(
            face((np.arange(np.prod(shp), dtype=np.int32) + 1000 * left).reshape(shp))
        ).ravel()
        assert np.array_equal(mine, expect), (name, mine, expect)
        # get into a face of a zero block (local strided destination)
        dst = np.zeros(shp, np.int32)
        dart.get_blocking(face(dst), land.gptr_of(right))
        want = np.zeros(shp, np.int32)
        face(want)[...] = face(src)
        assert np.array_equal(dst, want), name
        dart.barrier()
    # a k-face written straight into the remote 3-D block (remote strided, stride 6)
    blk = dart.zeros(dart.TEAM_ALL, shp, np.int32)
    kf = np.ascontiguousarray(src[:, :, 3])
    dart.put_blocking(blk.gptr_of(right) + 3, kf, remote_stride=6)
    dart.barrier()
    got = blk.local
    assert np.array_equal(
        got[:, :, 3], (np.arange(120, dtype=np.int32) + 1000 * left).reshape(shp)[:, :, 3]
    )
    assert not got[:, :, :3].any() and not got[:, :, 4:].any()
    del got
    # complex strided column
    cz = dart.zeros(dart.TEAM_ALL, (3, 4), np.complex128)
    cl = cz.local
    cl[...] = (np.arange(12) + 1j * me).reshape(3, 4)
    dart.barrier()
    out = np.zeros((3, 4), np.complex128)
    dart.get_blocking(out[:, 2], cz.gptr_of(right) + 2, remote_stride=4)
    assert np.array_equal(out[:, 2], (np.arange(12) + 1j * right).reshape(3, 4)[:, 2])
    del cl
    dart.barrier()
    cz.free()
    blk.free()
    land.free()


def handles_and_flush(me, n, right, left):
    N = 1000
    g = dart.team_memalloc_aligned(dart.TEAM_ALL, 4 * N, np.float64)
    tgt = g.setunit(right)
    srcs = [np.full(N, 10.0 * me + i) for i in range(4)]
    hs = [dart.put_handle(tgt + i * N, s) for i, s in enumerate(srcs)]
    remote = not same_node(right)
    for h, s in zip(hs, srcs):
        # the handle holds the buffer until completion (or completed at once on one node)
        if not remote:
            assert h.done  # same node: copied at once, nothing pending
        if not h.done:
            assert sys.getrefcount(s) >= 3
    dart.waitall(hs + hs[:2])  # a handle listed twice is waited for once
    assert all(h.done for h in hs)
    dart.barrier()
    mine = dart.view(g.setunit(me), (4, N))
    for i in range(4):
        assert (mine[i] == 10.0 * left + i).all()
    del mine
    dart.barrier()
    outs = [np.zeros(N) for _ in range(4)]
    hs = [dart.get_handle(o, tgt + i * N) for i, o in enumerate(outs)]
    hs[0].wait()
    hs[1].wait_local()
    assert hs[2].test() is True
    assert dart.testall(hs[3:]) is True
    for i, o in enumerate(outs):
        assert (o == 10.0 * me + i).all()
    # flush-based put/get; the binding keeps the buffers until the flush
    dart.barrier()
    a = np.full(N, 5.0 + me)
    dart.put(tgt, a)
    if remote:
        assert dart._core._pending_count() >= 1
    dart.flush(tgt)
    assert dart._core._pending_count() == 0
    dart.barrier()
    b = np.zeros(N)
    dart.get(b, tgt)
    dart.flush_local(tgt)
    assert (b == 5.0 + me).all()
    c = np.zeros(N)
    dart.get(c, g.setunit(left))
    dart.flush_all(g)
    assert (c == 5.0 + (left - 1) % n).all()
    dart.flush_local_all(g)
    dart.barrier()
    dart.team_memfree(g)


def prepared(me, n, right, left):
    """put_init/get_init against both neighbours, on the node and across nodes: the halo
    faces of a 3-D block prepared once and moved in every round with new data, by run,
    start (handles), post (completed by a flush), run_all and start_all."""
    shp = (4, 5, 6)
    blk = dart.zeros(dart.TEAM_ALL, shp, np.float64)
    mine = blk.local
    iface = np.zeros(shp[1:])  # right's i = 1 plane
    kface = np.zeros((shp[0], shp[1]))  # left's k = 3 column, strided at the target
    jface = np.zeros((shp[0], shp[2]))  # right's j = 2 rows, k = 1..4, into a strided view
    get_i = dart.get_init(iface, blk.gptr_of(right) + shp[1] * shp[2])
    get_k = dart.get_init(kface, blk.gptr_of(left) + 3, remote_stride=shp[2])
    get_j = dart.get_init(
        jface[:, 1:5],
        blk.gptr_of(right) + 2 * shp[2] + 1,
        remote_stride=shp[1] * shp[2],
        remote_blocklen=4,
    )
    out = np.zeros(shp[2])
    put_r = dart.put_init(blk.gptr_of(right) + 3 * shp[1] * shp[2], out)  # its (3, 0, :) row
    ref = lambda unit, r: (
        np.arange(np.prod(shp), dtype=np.float64) + 1000 * unit + 100000 * r
    ).reshape(shp)
    for r in range(4):
        mine[...] = ref(me, r)
        dart.barrier()
        for f in (iface, kface, jface):
            f[...] = -1
        if r == 0:
            get_i.run(), get_k.run(), get_j.run()
        elif r == 1:
            dart.waitall([get_i.start(), get_k.start(), get_j.start()])
        elif r == 2:
            dart.run_all([get_i, get_k, get_j])
        else:
            hs = dart.start_all([get_i, get_k, get_j])
            assert len(hs) == 3 and all(isinstance(h, dart.Handle) for h in hs)
            dart.waitall(hs)
        assert np.array_equal(iface, ref(right, r)[1]), r
        assert np.array_equal(kface, ref(left, r)[:, :, 3]), r
        assert np.array_equal(jface[:, 1:5], ref(right, r)[:, 2, 1:5]), r
        assert (jface[:, [0, 5]] == -1).all(), r  # outside the view: untouched
        dart.barrier()
        out[:] = -(r + 1) - me
        if r % 2:
            put_r.post()
            if not same_node(right):
                assert dart._core._pending_count() >= 1  # out is kept until the flush
            dart.flush(blk.gptr_of(right))
        else:
            put_r.run()
        dart.barrier()
        assert (mine[3, 0] == -(r + 1) - left).all(), r
        assert mine[3, 1, 0] == ref(me, r)[3, 1, 0]  # the next row is not written
        dart.barrier()
    raises(TypeError, dart.run_all, [get_i, out])
    del mine
    dart.barrier()
    blk.free()
    raises(dart.DartError, get_i.run, match="freed", code=dart.ERR_INVAL)
    raises(dart.DartError, put_r.start, match="freed", code=dart.ERR_INVAL)


def pool_and_untyped(me, n, right, left):
    """dart_memalloc blocks exchanged as plain integers, rebuilt as (untyped) Gptrs."""
    p = dart.memalloc(16, np.int16)
    assert p.segid == 0 and p.unit == me and p.teamid == 0
    v = dart.view(p, 16)
    v[:] = np.arange(16, dtype=np.int16) + 100 * me
    del v
    fields = np.array([p.unit, p.segid, p.teamid, p.offset], np.int64)
    allf = np.zeros(4 * n, np.int64)
    dart.allgather(fields, allf)
    r = allf.reshape(n, 4)[right]
    rg = dart.Gptr(unit=int(r[0]), segid=int(r[1]), teamid=int(r[2]), offset=int(r[3]))
    assert rg.dtype is None
    got = np.zeros(16, np.int16)
    dart.get_blocking(got, rg)  # untyped: the array's dtype decides
    assert np.array_equal(got, np.arange(16, dtype=np.int16) + 100 * right)
    # typed copy: element arithmetic and dtype check
    tg = rg.astype(np.int16)
    one = np.zeros(1, np.int16)
    dart.get_blocking(one, tg + 5)
    assert one[0] == 5 + 100 * right
    raises(TypeError, dart.get_blocking, np.zeros(1, np.int32), tg, match="int16")
    dart.barrier()
    dart.memfree(p)
    # untyped gptr of a collective allocation: the allocation's dtype is known
    g = dart.team_memalloc_aligned(dart.TEAM_ALL, 4, np.float32)
    ug = dart.Gptr(unit=right, segid=g.segid, teamid=g.teamid)
    raises(TypeError, dart.put_blocking, ug, np.zeros(4, np.float64), match="float32")
    dart.put_blocking(ug, np.ones(4, np.float32))
    dart.barrier()
    dart.team_memfree(g)


def registered(me, n, right, left):
    """team_memregister: NumPy arrays exposed as global memory (kept alive by dartpy)."""
    arr = np.zeros(6, np.int32)
    g = dart.team_memregister(dart.TEAM_ALL, arr)
    assert g.segid < 0 and g.dtype == np.int32
    import sys

    assert sys.getrefcount(arr) >= 3  # the registration holds the array
    dart.barrier()
    dart.put_blocking(g.setunit(right), np.full(6, 50 + me, np.int32))
    dart.barrier()
    assert (arr == 50 + left).all(), arr
    out = np.zeros(3, np.int32)
    dart.get_blocking(out, g.setunit(right) + 3)
    assert (out == 50 + me).all()
    dart.barrier()
    dart.team_memderegister(g)
    raises(dart.DartError, dart.get_blocking, out, g, code=dart.ERR_NOTFOUND)


def per_unit_sizes(me, n, right, left):
    """Issue 30: each unit its own shape (every third unit none); sizes known everywhere,
    views of same-node parts in their own size, puts and gets at both edges, one element
    past a target's end refused even where the caller's own part is larger; the message
    of a view of another node's part names both nodes."""
    rows = lambda u: 0 if u % 3 == 1 else u + 1  # noqa: E731
    with dart.zeros(dart.TEAM_ALL, (rows(me), 3), np.int32) as a:
        assert a.local.shape == (rows(me), 3)
        for u in range(n):
            assert a.nelem_of(u) == 3 * rows(u), (u, a.nelem_of(u))
        dart.barrier()
        for u in range(n):
            k = 3 * rows(u)
            g = a.gptr_of(u)
            if k == 0:
                dart.put_blocking(g, np.zeros(0, np.int32))
                raises(
                    dart.DartError,
                    dart.put_blocking,
                    g,
                    np.ones(1, np.int32),
                    code=dart.ERR_INVAL,
                    match="past the end",
                )
                continue
            if me < k // 2:  # element me from the front and from the back
                dart.put_blocking(g + me, np.array([100 * me + u], np.int32))
                dart.put_blocking(g + (k - 1 - me), np.array([100 * me + u], np.int32))
            raises(
                dart.DartError,
                dart.put_blocking,
                g + k,
                np.ones(1, np.int32),
                code=dart.ERR_INVAL,
                match="past the end",
            )
            raises(
                dart.DartError,
                dart.get_blocking,
                np.zeros(k + 1, np.int32),
                g,
                code=dart.ERR_INVAL,
                match="past the end",
            )
        dart.barrier()
        for u in range(n):
            k = 3 * rows(u)
            want = np.zeros(k, np.int32)
            for w in range(min(n, k // 2)):
                want[w] = want[k - 1 - w] = 100 * w + u
            got = np.full(k, -1, np.int32)
            dart.get_blocking(got, a.gptr_of(u))
            assert (got == want).all(), (u, got, want)
            if same_node(u):
                v = a.view(u)
                assert v.shape == ((rows(u), 3) if rows(u) == rows(me) else (k,)), v.shape
                assert (v.reshape(-1) == want).all()
                assert a.view(u, shape=(k,)).shape == (k,)
                del v
            else:
                e = raises(dart.DartError, a.view, u, code=dart.ERR_INVAL)
                msg = str(e)
                loc, mine = dart.unit_locality(u), dart.unit_locality(me)
                assert (
                    f"global unit {u}) is on node {loc['node']} ({loc['host']})" in msg
                    and f"this unit (global unit {me}) on node {mine['node']} ({mine['host']})"
                    in msg
                ), msg
        dart.barrier()


def onesided():
    dart.init()
    me, n = dart.myid(), dart.size()
    right, left = (me + 1) % n, (me - 1) % n
    all_dtypes(me, n, right, left)
    zero_copy(me, n, right, left)
    halo_2d(me, n, right, left)
    faces_3d(me, n, right, left)
    handles_and_flush(me, n, right, left)
    prepared(me, n, right, left)
    pool_and_untyped(me, n, right, left)
    registered(me, n, right, left)
    per_unit_sizes(me, n, right, left)
    done("onesided")
    dart.exit()


if __name__ == "__main__":
    main({"onesided": onesided})
