# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.Array as NumPy sees it, on several units (issue 37; the tests are in
test_array_numpy.py): the reductions of every dtype against the gathered array, the
element-wise ufuncs, NEP-18 dispatch, the refusals on every unit, from_numpy and the
file-error classes.

The expected value of a floating-point sum is computed here by the documented order,
independently of the library: each unit's block in index order (in double, long double
for long double), then the blocks in unit order, rounded once. So the sums compare bit
for bit; integers compare bit for bit with NumPy's own sum of the gathered array.
"""

from __future__ import annotations

import os
import sys

import numpy as np
from _helpers import DTYPES, done, main, raises, same

import dartpy as dart


def values(shape, dtype, seed=0):
    """Every point a function of its global index (exact in every dtype)."""
    idx = np.indices(shape).reshape(len(shape), -1)
    v = (idx * np.array([31, 17, 7, 3][: len(shape)])[:, None]).sum(axis=0) + seed
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return (v % 3 == 0).reshape(shape)
    if dt.kind == "c":
        return ((v % 1000) / 7.0 + 1j * ((v % 37) - 18.0)).astype(dt).reshape(shape)
    if dt.kind == "f":
        return (((v % 1000) - 500) / 7.0).astype(dt).reshape(shape)
    if dt.kind == "u":
        return (v % 200).astype(dt).reshape(shape)
    return ((v % 200) - 100).astype(dt).reshape(shape)


def acc_dtype(dt):
    return (
        np.dtype(np.longdouble)
        if dt in (np.longdouble, np.clongdouble)
        else np.dtype(np.complex128 if dt.kind == "c" else np.float64)
    )


def fixed_order_sum(a, g):
    """The documented order: each unit's block in index order, then the blocks in unit
    order (sequential sums: numpy.cumsum adds in index order)."""
    acc = acc_dtype(g.dtype)
    partials = []
    for u in range(dart.team_size(a.team)):
        lo, hi = a.block(u)
        block = g[tuple(slice(l, h) for l, h in zip(lo, hi))].reshape(-1).astype(acc)
        partials.append(np.cumsum(block)[-1])
    return np.cumsum(np.array(partials, dtype=acc))[-1]


def everywhere_same(x) -> bool:
    """x (a NumPy scalar) has the same bytes on every unit."""
    b = np.array([x])
    if (
        b.dtype in (np.dtype(np.longdouble), np.dtype(np.clongdouble))
        and np.finfo(np.longdouble).nmant == 63
    ):  # x87's 80 bits in 16 bytes: the padding bytes are undefined
        b = b.view(np.uint8).reshape(-1, 16)[:, :10]
    mine = np.frombuffer(b.tobytes(), dtype=np.uint8).copy()
    allb = np.zeros(mine.size * dart.size(), dtype=np.uint8)
    dart.allgather(mine, allb)
    return all(
        allb[i * mine.size : (i + 1) * mine.size].tobytes() == mine.tobytes()
        for i in range(dart.size())
    )


def reductions():
    dart.init()
    shapes = [(13,), (9, 7), (5, 4, 3)]
    for dtype in DTYPES:
        dt = np.dtype(dtype)
        for shape in shapes:
            g = values(shape, dt)
            with dart.Array.from_numpy(g if dart.myid() == 0 else None, halo=1) as a:
                a.local[...] = values(a.local.shape, dt, seed=999)  # ghosts: never counted
                a.interior[...] = g[tuple(slice(l, h) for l, h in zip(a.lo, a.hi))]
                s = np.sum(a)
                assert s == a.sum() and everywhere_same(s), (dt, shape)
                if dt.kind in "biu":
                    want = g.sum()  # NumPy's own: int64 / uint64, wrapping alike
                    assert s.dtype == want.dtype and s == want, (dt, shape, s, want)
                else:
                    want = dt.type(fixed_order_sum(a, g))
                    assert s.dtype == dt, (dt, s.dtype)
                    assert same(np.array([s]), np.array([want])), (dt, shape, s, want)
                    tol = 2e-3 if dt.itemsize == 2 else 1e-5
                    assert np.isclose(s, g.sum(dtype=acc_dtype(dt)), rtol=tol), (dt, s)
                if dt.kind != "c":
                    for name, fn in (("min", np.min), ("max", np.max)):
                        r = fn(a)
                        want = getattr(g, name)()
                        assert r.dtype == want.dtype and r == want, (dt, name, r, want)
                        assert r == getattr(a, name)() and everywhere_same(r)
                else:
                    raises(TypeError, np.min, a, match="complex numbers have no order")
                m = np.mean(a)
                assert np.isclose(m, g.mean(), rtol=1e-3 if dt.itemsize <= 2 else 1e-6), (dt, m)
                assert everywhere_same(m)
                if dt != np.bool_:
                    ref = g.astype(np.complex128 if dt.kind == "c" else np.float64)
                    for ordr, want in (
                        (1, np.abs(ref).sum()),
                        (2, np.sqrt((np.abs(ref) ** 2).sum())),
                        (np.inf, np.abs(ref).max()),
                    ):
                        r = dart.norm(a, ordr)
                        tol = 1e-2 if dt == np.float16 else 1e-5 if dt.itemsize <= 8 else 1e-12
                        assert np.isclose(r, want, rtol=tol), (dt, ordr, r, want)
                        assert everywhere_same(r)
                    assert np.linalg.norm(a) == dart.norm(a, 2)
                    with dart.Array.from_numpy(g if dart.myid() == 0 else None, halo=1) as b:
                        v = np.vdot(a, b)
                        # (the sum's dtype: int64 / uint64 where NumPy's vdot would wrap
                        # in the element type)
                        want = np.vdot(g.astype(v.dtype), g.astype(v.dtype))
                        if dt.kind in "iu":
                            assert v == want, (dt, v, want)
                        else:
                            assert np.isclose(v, want, rtol=1e-2 if dt.itemsize <= 2 else 1e-5)
                        assert v == dart.dot(a, b) and everywhere_same(v)
    # NaN propagates through min, max, sum and the norms
    with dart.Array((8, 6), np.float64) as a:
        if dart.myid() == dart.size() - 1:
            a.interior[0, 0] = np.nan
        for fn in (np.min, np.max, np.sum, dart.norm):
            assert np.isnan(fn(a)), fn
    done("numpy_reductions")
    dart.exit()


def ufuncs():
    dart.init()
    me = dart.myid()
    g = values((10, 6), np.float64)
    with dart.Array.from_numpy(g if me == 0 else None, halo=1, boundary="periodic") as a:
        part = tuple(slice(l, h) for l, h in zip(a.lo, a.hi))
        b = 2 * a + 1
        assert isinstance(b, dart.Array) and b.halo == a.halo and b.boundary == a.boundary
        assert same(b.interior, 2 * g[part] + 1)
        c = np.sqrt(abs(b))
        assert same(c.interior, np.sqrt(np.abs(2 * g[part] + 1)))
        mask = a > 0
        assert mask.dtype == np.bool_ and same(mask.interior, g[part] > 0)
        q, r = np.divmod(a, 3.0)
        assert same(q.interior, np.divmod(g[part], 3.0)[0])
        a += 1
        assert same(a.interior, g[part] + 1)
        np.multiply(a, b, out=a)
        assert same(a.interior, (g[part] + 1) * (2 * g[part] + 1))
        gathered = a.gather_all()
        assert same(gathered, (g + 1) * (2 * g + 1))
        # refusals, the same on every unit, and the units still in step after each
        with dart.Array((10, 6), np.float64, procs=(1, dart.size())) as other:
            if dart.size() > 1:
                raises(ValueError, np.add, a, other, match="not distributed alike")
        raises(TypeError, np.add, a, np.ones(3), match="one unit's data")
        raises(TypeError, np.add.reduce, a, match="numpy.add.reduce")
        raises(TypeError, np.matmul, a, a, match="generalized ufunc")
        raises(TypeError, np.add, a, 1, where=True, match="'where'")
        raises(TypeError, np.cumsum, a, match="supported are")
        raises(TypeError, np.sum, a, axis=0, match="axis=0")
        raises(TypeError, np.sum, a, keepdims=True, match="'keepdims'")
        raises(TypeError, np.linalg.norm, a, 1, match="matrix norm")
        raises(TypeError, np.asarray, a, match="a.gather()")
        for x in (b, c, mask, q, r):
            x.free()
    # a ufunc that fails on one unit only: every unit raises, nothing is left behind
    with dart.Array((4 * dart.size(),), np.int64) as n:
        n.interior[...] = -1 if me == 0 else 2
        e = raises((ValueError, dart.DartError), np.power, n, n)
        assert isinstance(e, ValueError if me == 0 else dart.DartError), e
        del e  # (its traceback's frames)
        dart.barrier()
    done("numpy_ufuncs")
    dart.exit()


def moves():
    dart.init()
    me = dart.myid()
    g = values((7, 5), np.int32)
    a = dart.Array.from_numpy(g if me == 0 else None, root=0, halo=(1, 2), stencil="box")
    assert a.shape == (7, 5) and a.dtype == np.int32 and a.halo == ((1, 1), (2, 2))
    assert same(a.gather_all(), g)
    # a.at: global indices with ghosts
    a.update_halo()
    lo, hi = a.lo, a.hi
    assert a.at[lo[0], lo[1]] == g[lo[0], lo[1]]
    assert same(a.at[lo[0] : hi[0], lo[1] : hi[1]], g[lo[0] : hi[0], lo[1] : hi[1]])
    if lo[0] > 0:  # a ghost row that mirrors the neighbour above
        assert same(a.at[lo[0] - 1, lo[1] : hi[1]], g[lo[0] - 1, lo[1] : hi[1]])
    raises(IndexError, lambda: a.at[hi[0] + 1, lo[1]], match="outside dimension 0")
    a.at[lo[0], lo[1]] = -5
    assert a.interior[0, 0] == -5
    dart.barrier()
    raises(
        ValueError if me == 0 else dart.DartError,
        dart.Array.from_numpy,
        np.zeros((2,) * 5) if me == 0 else None,
    )
    if me == 0:
        x = a.to_xarray(dims=("y", "x"))
        assert x.dims == ("y", "x") and list(x.coords["x"].values) == list(range(5))
    else:
        assert a.to_xarray(dims=("y", "x")) is None
    import dask.array as da

    assert [len(b) for b in a.blocks] == list(a.procs)
    assert [sum(b) for b in a.blocks] == list(a.shape)
    dart.barrier()
    g2 = a.gather_all()
    arr = da.from_array(a, chunks=a.blocks)
    assert int(arr.sum().compute()) == int(g2.sum())
    assert same(arr[2:5, 1:4].compute(), g2[2:5, 1:4])
    dart.barrier()
    a.free()
    # an allocation refused on one unit fails on every unit (nobody waits in it)
    last = me == dart.size() - 1
    e = raises((ValueError, dart.DartError), dart.zeros, dart.TEAM_ALL, (-1,) if last else (4,))
    assert isinstance(e, ValueError if last else dart.DartError), e
    del e
    e = raises((TypeError, dart.DartError), dart.notify_alloc, dart.TEAM_ALL, "2" if last else 2)
    assert isinstance(e, TypeError if last else dart.DartError), e
    del e
    dart.barrier()
    done("numpy_moves")
    dart.exit()


def file_errors():
    dart.init()
    folder = sys.argv[2]
    missing = os.path.join(folder, "missing.npy")
    e = raises(FileNotFoundError, dart.Array.load, missing, match="missing.npy")
    assert isinstance(e, dart.DartError) and e.filename == missing
    raises(IsADirectoryError, dart.Array.load, folder)
    bad = os.path.join(folder, "bad.npy")
    if dart.myid() == 0:
        with open(bad, "wb") as f:
            f.write(b"no npy here")
    dart.barrier()
    e = raises(ValueError, dart.Array.load, bad, match="not a .npy file")
    assert isinstance(e, dart.DartError)
    with dart.Array((6, 4)) as a:
        raises(FileNotFoundError, a.save, os.path.join(folder, "nope", "x.npy"))
        raises(IsADirectoryError, a.save, folder)
    done("numpy_file_errors")
    dart.exit()


if __name__ == "__main__":
    main({"reductions": reductions, "ufuncs": ufuncs, "moves": moves, "file_errors": file_errors})
