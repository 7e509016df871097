# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.Array on several units: the ghost-filling matrix, global-index access, gather,
scatter, copy, and bad input on one unit and on all (the tests are in test_array.py).

The expected ghosts are computed here independently of the library: every interior point
holds a function of its global index, every ghost a sentinel before the update; after it
a ghost holds the value of the point it mirrors (wrapped where periodic) or, where the
library must not write (beyond a non-periodic boundary, the edges and corners of a star
stencil), still the sentinel.
"""

from __future__ import annotations

import itertools
import os
import sys

import numpy as np
from _helpers import DTYPES, PROGRESS, done, increments_during, main, raises, same

import dartpy as dart


def oversubscribed() -> bool:
    """More processes (units and progress processes) than cores: every collective window
    allocation, i.e. every creation, then costs 10-40 times more (MPICH's waits
    busy-poll), so the matrix runs a slice of its cases (another one per placement)."""
    procs = dart.size() + PROGRESS * (dart.node_count() if PROGRESS else 0)
    return procs > len(os.sched_getaffinity(0))


def slice_of_cases() -> tuple:
    """(stride, offset): the cases k with k % stride == offset run here; another slice
    per placement, so that the oversubscribed placements together run most of them."""
    if not oversubscribed():
        return 1, 0
    upn = int(os.environ.get("DART_UNITS_PER_NODE") or 0)
    return 6, (dart.size() + 2 * upn + 4 * PROGRESS) % 6


def grid_of(n: int, nd: int) -> tuple:
    """MPI_Dims_create's rule, independently of the core (the default grid it must choose)."""
    primes, m, p = [], n, 2
    while m > 1:
        if m % p == 0:
            primes.append(p)
            m //= p
        else:
            p += 1
    dims = [1] * nd
    for p in reversed(primes):
        dims[dims.index(min(dims))] *= p
    return tuple(sorted(dims, reverse=True))


def sentinel(dt: np.dtype):
    if dt == np.bool_:
        return True
    return np.iinfo(dt).max if dt.kind == "u" else -7


def values(lin: np.ndarray, rnd: int, dt: np.dtype) -> np.ndarray:
    """The value of the points with linear global index `lin` in round `rnd` (exact in dt)."""
    comps = 2 if dt.kind == "c" else 1
    small = dt == np.float16 or dt.itemsize // comps == 1
    mod = 101 if small else 30011
    v = [1 + ((lin * comps + c) * 7 + rnd * 13) % mod for c in range(comps)]
    if dt.kind == "c":
        return (v[0] + 1j * v[1]).astype(dt)
    if dt == np.bool_:
        return (v[0] % 2).astype(dt)
    return v[0].astype(dt)


def expected(a: dart.Array, rnd: int, filled_only: bool) -> np.ndarray:
    """This unit's local block with ghosts: before the update (filled_only: the interior,
    sentinels elsewhere) or after it (also every ghost the library fills)."""
    nd, dt = a.ndim, a.dtype
    ls = a.local.shape
    g = np.ix_(*[np.arange(ls[d]) + a.lo[d] - a.halo[d][0] for d in range(nd)])
    moved = sum(((g[d] < a.lo[d]) | (g[d] >= a.hi[d])).astype(int) for d in range(nd))
    beyond = np.zeros(ls, bool)
    lin = np.zeros(ls, np.int64)
    for d in range(nd):
        outside = (g[d] < 0) | (g[d] >= a.shape[d])
        if a.boundary[d] != "periodic":
            beyond = beyond | outside
        lin = lin * a.shape[d] + g[d] % a.shape[d]
    if filled_only:
        filled = moved == 0
    else:
        filled = ~beyond & ((moved <= 1) | (a.stencil == "box"))
    return np.where(filled, values(lin, rnd, dt), np.array(sentinel(dt), dt))


def fill(a: dart.Array, rnd: int) -> None:
    a.local[...] = expected(a, rnd, True)


def check(a: dart.Array, rnd: int, what: str) -> None:
    want, got = expected(a, rnd, False), a.local
    if not same(got, want):
        bad = np.argwhere(got != want)
        raise AssertionError(
            f"unit {dart.myid()}: {what} round {rnd}: {len(bad)} wrong points, first at local "
            f"{tuple(bad[0])}: {got[tuple(bad[0])]!r} != {want[tuple(bad[0])]!r} "
            f"(lo {a.lo}, hi {a.hi}, halo {a.halo}, procs {a.procs}, {a.exchange})"
        )


def run(what: str, split: bool, shape, dtype, **kw) -> None:
    """Create, two rounds of fill / update (blocking, or begin/end) / check, free."""
    with dart.Array(shape, dtype, **kw) as a:
        for rnd in range(2):
            fill(a, rnd)
            if split:
                with a.updating_halo() as same_a:
                    assert same_a is a
                    # between begin and end the interior may be read
                    assert same(
                        a.interior,
                        expected(a, rnd, True)[
                            tuple(
                                slice(h[0], h[0] + hi - lo) for h, lo, hi in zip(a.halo, a.lo, a.hi)
                            )
                        ],
                    )
            else:
                a.update_halo()
            check(a, rnd, f"{what}: {np.dtype(dtype)} {shape} {kw}")


def in_flight(n: int) -> None:
    """Two arrays with updates in flight at once, of both exchanges: begin a, begin b,
    end b, end a."""
    ga, gb = grid_of(n, 2), grid_of(n, 3)
    with (
        dart.Array([4 * g + 1 for g in ga], halo=1, boundary="periodic", exchange="get") as a,
        dart.Array(
            [3 * g for g in gb], np.int64, halo=[(2, 1)] * 3, stencil="box", exchange="notify"
        ) as b,
    ):
        for rnd in range(3):
            fill(a, rnd)
            fill(b, rnd)
            with a.updating_halo():
                b.update_halo_begin()
                b.update_halo_end()
            check(a, rnd, "in flight a")
            check(b, rnd, "in flight b")


def matrix_cases(n: int) -> list:
    """The cases of the ghost-filling matrix, each a function of no arguments."""
    cases = []
    # ndim 1-4 x every periodic combination x star and box on the default grid and
    # uneven default blocks of 3 or 4 points, asymmetric widths 0-3; dtype, exchange and
    # blocking/split rotate
    k = 0
    for nd in range(1, dart.ARRAY_MAX_DIMS + 1):
        grid = grid_of(n, nd)
        for mask in range(1 << nd):
            for box in (False, True):
                kw = dict(
                    halo=[((d + mask + box) % 4, (2 * d + mask + 1 + k) % 4) for d in range(nd)],
                    boundary=["periodic" if mask >> d & 1 else "none" for d in range(nd)],
                    stencil="box" if box else "star",
                    exchange=("get", "notify", "auto")[(mask + box + k // 3) % 3],
                )
                shape = [3 * grid[d] + (d + k) % 3 for d in range(nd)]
                cases.append(
                    lambda k=k, shape=shape, kw=kw, split=((mask >> 1) + box + k) % 2: run(
                        f"matrix case {k}", split, shape, DTYPES[k % len(DTYPES)], **kw
                    )
                )
                k += 1
    # given grids, one process along every other dimension (its own neighbour there):
    # N x 1, 1 x N, N x 1 x 1, 1 x N x 1, 1 x 1 x N
    for nd in (2, 3):
        for along in range(nd):
            kw = dict(
                halo=[(1 + (d + along) % 2, 2 - (d + along) % 2) for d in range(nd)],
                boundary="periodic",
                stencil="box",
                procs=tuple(n if d == along else 1 for d in range(nd)),
                exchange=("get", "notify")[(nd + along) % 2],
            )
            shape = tuple(2 * n + 1 if d == along else 4 for d in range(nd))
            cases.append(
                lambda shape=shape, kw=kw, split=along % 2: run(
                    "given grid", split, shape, np.float64, **kw
                )
            )
    # given uneven blocks: the narrow ones exactly as wide as the ghosts they fill; procs
    # follow from the blocks (or a 0 entry of procs)
    rows = [2 if u % 2 == 0 else 5 for u in range(n)]
    cases.append(
        lambda: run(
            "given blocks",
            False,
            (sum(rows), 6),
            np.int32,
            halo=[(2, 2), (1, 0)],
            boundary="periodic",
            stencil="box",
            blocks=[rows, [6]],
            exchange="get",
        )
    )
    cases.append(
        lambda: run(
            "given blocks 2",
            True,
            (6, sum(rows)),
            np.complex64,
            halo=[1, 2],
            boundary=["none", "periodic"],
            blocks=[[6], rows],
            procs=(1, 0),
            exchange="notify",
        )
    )
    cases.append(lambda: in_flight(n))
    return cases


def matrix() -> None:
    """The ghost-filling matrix: ndim 1-4, every periodic combination, star and box,
    asymmetric widths 0-3 on uneven default blocks, the default grid (as MPI_Dims_create),
    every dtype, both exchanges, blocking and split; given grids 1 x N, N x 1, 1 x N x 1;
    given blocks down to block = width; two arrays in flight. Oversubscribed, every
    sixth case (slice_of_cases)."""
    dart.init()
    n = dart.size()
    stride, offset = slice_of_cases()
    cases = matrix_cases(n)
    for k in range(offset, len(cases), stride):
        cases[k]()
    # the default grid is MPI_Dims_create's
    for nd in range(1, dart.ARRAY_MAX_DIMS + 1):
        with dart.Array([2 * n] * nd) as a:
            assert a.procs == grid_of(n, nd), (a.procs, grid_of(n, nd))
    done("array_matrix")
    dart.exit()


def access() -> None:
    """Global-index reads and writes across owners (negative indices, ints and slices,
    strided and broadcast values), gather/scatter round trips of every dtype, copy, the
    owner and block queries, an array over a sub-team."""
    dart.init()
    me, n = dart.myid(), dart.size()
    g3 = grid_of(n, 3)
    shape = tuple(2 * g + 3 for g in g3)
    ref = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) + 0.5
    with dart.Array(shape, halo=[1, (1, 0), (0, 2)]) as a:
        # owner and block agree with each other for every point, and with lo/hi
        for idx in itertools.product(*map(range, shape)):
            lo, hi = a.block(a.owner(idx))
            assert all(lo[d] <= idx[d] < hi[d] for d in range(3)), (idx, lo, hi)
        assert a.block(me) == (a.lo, a.hi)
        # scatter from the last unit, gather to unit 0
        a.scatter(ref if me == n - 1 else None, root=n - 1)
        assert same(a.interior, ref[tuple(slice(l, h) for l, h in zip(a.lo, a.hi))])
        got = a.gather(root=0)
        assert (got is None) == (me != 0)
        if me == 0:
            assert same(got, ref)
        # reads by global index: every unit reads regions spanning every owner
        for key in [
            (0, 0, 0),
            (-1, -1, -1),
            (slice(1, None), slice(None, -1), slice(-3, None)),
            (slice(None), 1),
            (Ellipsis, -2),
            (-2, Ellipsis, slice(0, 2)),
            (slice(5, 2), 0, 0),
            (slice(-100, 100),),
            np.int64(1),
        ]:
            v = a[key]
            want = ref[key]
            assert same(np.asarray(v), np.asarray(want)), (key, v, want)
            assert type(v) is type(want), (key, type(v), type(want))
        for key in [(shape[0], 0, 0), (0, -shape[1] - 1, 0), (0, 0, 0, 0)]:
            raises(IndexError, a.__getitem__, key)
        raises(ValueError, a.__getitem__, (slice(0, 4, 2),), match="step")
        raises(ValueError, a.__getitem__, (slice(None, None, -1),), match="step")
        raises(TypeError, a.__getitem__, ([0, 1],), match="indices")
        raises(TypeError, a.__getitem__, (0.5,), match="indices")
        dart.barrier()  # everyone has read before the last unit writes
        # writes: the last unit puts a strided array, a broadcast row and a scalar
        region = (slice(1, None), slice(None, -1), slice(-3, None))
        if me == n - 1:
            vals = np.arange(2 * ref[region].size, dtype=np.float64).reshape(
                ref[region].shape[:-1] + (2 * ref[region].shape[-1],)
            )[..., ::2]
            a[region] = vals  # strided: sent as it is
            a[0, 1:3] = -np.arange(shape[2], dtype=np.float64)[None, :]  # broadcast: copied
            a[-1, -1, -1] = 99
            a[0, 0, :2] = [5, 6]
        ref[region] = np.arange(2 * ref[region].size, dtype=np.float64).reshape(
            ref[region].shape[:-1] + (2 * ref[region].shape[-1],)
        )[..., ::2]
        ref[0, 1:3] = -np.arange(shape[2], dtype=np.float64)[None, :]
        ref[-1, -1, -1] = 99
        ref[0, 0, :2] = [5, 6]
        dart.barrier()
        assert same(a[...], ref)
        raises(ValueError, a.__setitem__, (0, 0), np.zeros(shape[2] + 1), match="'value'")
        # copy: same distribution and halos, every block's contents (ghosts too)
        loc = a.local
        loc.flat[0] = -42.0
        with a.copy() as b:
            assert (b.shape, b.procs, b.lo, b.hi, b.halo, b.dtype) == (
                a.shape,
                a.procs,
                a.lo,
                a.hi,
                a.halo,
                a.dtype,
            )
            bl = b.local
            assert same(bl, loc) and bl.ctypes.data != loc.ctypes.data
            bl[...] = 0
            assert loc.flat[0] == -42.0
            del bl
        del loc
    # every dtype (oversubscribed: a few; test_array's one-unit test has all): scatter,
    # gather, and reads of other units' points
    for dt in DTYPES if not oversubscribed() else [np.bool_, np.int16, np.longdouble, np.complex64]:
        x = values(np.arange(5 * 3 * n).reshape(5 * n, 3), 1, np.dtype(dt))
        with dart.Array(x.shape, dt, halo=(1, 0), boundary="periodic") as a:
            a.scatter(x if me == 0 else None)
            a.update_halo()
            got = a.gather(root=n - 1)
            if me == n - 1:
                assert same(got, x), dt
            assert same(np.asarray(a[-1, 2]), np.asarray(x[-1, 2])), dt
            assert same(a[:, 1], x[:, 1]), dt
    # a blocking update releases the GIL: a thread runs while unit 0 waits for unit 1
    if n > 1:
        import time

        with dart.Array(4 * n, halo=1, boundary="periodic") as a:
            if me == 0:
                during = increments_during(a.update_halo)  # unit 1 comes 0.3 s later
                assert during > 10_000, f"{during} increments during update_halo"
            else:
                if me == 1:
                    time.sleep(0.35)
                a.update_halo()
    # arrays over two teams at once (units 0..n-2 and unit n-1): units are team-relative
    if n > 1:
        grp = dart.Group()
        for u in range(n - 1) if me < n - 1 else [n - 1]:
            grp.addmember(u)
        team = dart.team_create(dart.TEAM_ALL, grp)
        m = team.size
        with dart.Array((2 * m, 3), np.int16, team=team, halo=1, boundary="periodic") as t:
            assert t.team == team and t.procs == (m, 1) and t.coords == (team.myid, 0)
            t.interior[...] = team.myid
            t.update_halo()
            assert t.local[0, 1] == (team.myid - 1) % m and t.local[-1, 1] == (team.myid + 1) % m
            team.barrier()
            assert t[-1, 0] == m - 1
            team.barrier()
        team.destroy()
    done("array_access")
    dart.exit()


def errors() -> None:
    """Bad input on one unit (ValueError/TypeError there, DartError ERR_INVAL naming that
    unit elsewhere) and on all, mismatches, bad roots, views alive at the free, freed
    arrays: every call returns on every unit, and the units stay in step."""
    dart.init()
    me, n = dart.myid(), dart.size()
    last = n - 1
    theirs = dict(code=dart.ERR_INVAL, match=f"another unit failed: unit {last} of team 0")

    def in_step(tag: int) -> None:
        got = np.zeros(1, np.int64)
        dart.allreduce(np.array([tag], np.int64), got, dart.OP_SUM)
        assert got[0] == tag * n, (tag, got)

    good = dict(shape=(4 * n, 5), halo=1, boundary=["none", "periodic"], procs=(n, 1))
    # (exception on the bad unit, what its message says, the argument that makes it bad)
    bad_args = [
        (ValueError, "'boundary'", dict(boundary="foo")),
        (ValueError, "boundary[1]", dict(boundary=["none", "wrap"])),
        (TypeError, "'stencil'", dict(stencil=1)),
        (ValueError, "'exchange'", dict(exchange="put")),
        (ValueError, "'halo' has 3 entries", dict(halo=[1, 1, 1])),
        (ValueError, "'halo[1]' must be an int or a (lo, hi) pair", dict(halo=[1, (1, 2, 3)])),
        (TypeError, "'halo[0][1]'", dict(halo=[(1, "2"), 1])),
        (ValueError, "must be >= 0", dict(halo=[(-1, 0), 0])),
        (ValueError, "wider than the block", dict(halo=[(5, 1), 1], boundary="periodic")),
        (ValueError, "itself", dict(halo=[1, (6, 0)])),
        (TypeError, "'dtype'", dict(dtype="U5")),
        (ValueError, "'shape' has 5 dimensions", dict(shape=(2,) * 5)),
        (ValueError, "'shape' has 0 dimensions", dict(shape=())),
        (ValueError, "shape[1] = 0", dict(shape=(4 * n, 0))),
        (TypeError, "'shape[0]'", dict(shape=(4.0 * n, 5))),
        (ValueError, "does not fit", dict(procs=(n + 1, 1))),
        (ValueError, "'procs' has 1 entry", dict(procs=(n,))),
        (ValueError, "must be positive", dict(procs=(-1, 1))),
        (ValueError, "'blocks[0]' has", dict(blocks=[[4] * (n + 1), [5]])),
        (ValueError, "sum to", dict(blocks=[[4] * n, [4]])),
        (ValueError, "extent 0", dict(blocks=[[0] + [4] * (n - 1), [5]])),
        (TypeError, "'blocks'", dict(blocks=7)),
    ]
    if n > 1:
        bad_args.append((ValueError, "points but", dict(shape=(n - 1, 5))))
    held = dart._core._type_cache_size()[1]  # layout types in use (none left by a failure)
    for i, (exc, msg, bad) in enumerate(bad_args):
        # on the last unit only
        if me == last:
            raises(exc, dart.Array, **{**good, **bad}, match=msg)
        else:
            e = raises(dart.DartError, dart.Array, **good, **theirs)
            assert e.code == dart.ERR_INVAL
        in_step(2 * i)
        # on every unit: each raises its own error
        raises(exc, dart.Array, **{**good, **bad}, match=msg)
        in_step(2 * i + 1)
    assert dart._core._type_cache_size()[1] == held, "failed creations left layout types held"
    # an unknown team fails alike everywhere (nothing to agree over)
    raises(dart.DartError, dart.Array, (4, 4), team=999, code=dart.ERR_NOTFOUND)
    raises(TypeError, dart.Array, (4, 4), team="world", match="'team'")
    # mismatches: every unit raises DartError naming unit 0 and the first unit that differs
    if n > 1:
        for key, mine in (
            ("shape", (4 * n + 1, 5)),
            ("dtype", np.float32),
            ("halo", 2),
            ("exchange", "notify"),
            ("boundary", "periodic"),
        ):
            args = {**good, key: mine} if me == 1 else good
            raises(
                dart.DartError,
                dart.Array,
                **args,
                code=dart.ERR_INVAL,
                match="passed different arguments: unit 0: ",
            )
            in_step(100)
    # calls on an array
    with dart.Array(**good) as a:
        for root in (n, -1, "0"):  # bad roots on one unit
            exc = TypeError if isinstance(root, str) else ValueError
            if me == last:
                raises(exc, a.gather, root=root, match="'root'")
                raises(exc, a.scatter, np.zeros(a.shape), root=root, match="'root'")
            else:
                raises(dart.DartError, a.gather, root=0, **theirs)
                raises(dart.DartError, a.scatter, None, root=0, **theirs)
            in_step(200)
        # the root's x is wrong: ValueError there, DartError elsewhere
        if me == last:
            raises(ValueError, a.scatter, np.zeros((3, 3)), root=last, match="'x'")
        else:
            raises(dart.DartError, a.scatter, None, root=last, **theirs)
        if n > 1:  # different roots
            raises(
                dart.DartError,
                a.gather,
                root=min(me, 1),
                code=dart.ERR_INVAL,
                match="different arguments",
            )
        in_step(300)
        # split-phase misuse (local)
        raises(dart.DartError, a.update_halo_end, code=dart.ERR_INVAL, match="no update")
        a.update_halo_begin()
        raises(dart.DartError, a.update_halo_begin, code=dart.ERR_INVAL, match="in flight")
        raises(dart.DartError, a.update_halo, code=dart.ERR_INVAL, match="in flight")
        a.update_halo_end()
        # index errors are local
        raises(IndexError, a.__getitem__, (4 * n, 0), match="out of bounds for axis 0")
        raises(IndexError, a.__setitem__, (0, -6), 1.0, match="out of bounds for axis 1")
        raises(dart.DartError, a.owner, (-1, 0), code=dart.ERR_INVAL)
        raises(dart.DartError, a.block, n, code=dart.ERR_INVAL)
        # free with live views: BufferError on every unit, nothing freed
        view = a.interior[1:] if me == last else None
        e = raises(BufferError, a.free, match="still alive")
        assert ("another unit" in str(e)) == (me != last), str(e)
        a.update_halo()  # still alive everywhere
        del view
        # the with block frees it
    assert a.freed
    raises(dart.DartError, a.free, code=dart.ERR_INVAL, match="already freed")
    raises(dart.DartError, a.update_halo, code=dart.ERR_INVAL, match="freed")
    raises(dart.DartError, a.__getitem__, 0, code=dart.ERR_INVAL, match="freed")
    raises(dart.DartError, lambda: a.local, code=dart.ERR_INVAL, match="freed")
    # dart.exit() with a live view of an array raises everywhere; after exit the array is dead
    b = dart.Array((n, 2), np.int8)
    keep = b.local if me == 0 else None
    raises(BufferError, dart.exit)
    del keep
    in_step(400)
    done("array_errors")
    dart.exit()
    assert b.freed
    raises(dart.DartError, b.update_halo, code=dart.ERR_NOTINIT)


def chain() -> None:
    """Neighbour-only synchronization along a chain (issue 34): 4 units in 1-D, no
    periodic wrap, unit 0 late by LATE seconds. Unit 1 (its neighbour) waits for it; units
    2 and 3 must not: their neighbours are on time. Both exchanges, blocking and split,
    REPS times each (the old defect showed in one update in ten under MPICH). Every
    ghost is checked every time."""
    import time

    dart.init()
    me, n = dart.myid(), dart.size()
    assert n == 4, "the chain needs 4 units"
    late, reps = float(sys.argv[2]), int(sys.argv[3])
    slow = []
    for exchange in ("get", "notify"):
        for split in (False, True):
            with dart.Array((8,), np.float64, halo=1, boundary="none", exchange=exchange) as a:
                for rnd in range(reps + 1):  # round 0: a warm-up on time
                    fill(a, rnd)
                    dart.barrier()
                    t0 = time.perf_counter()
                    if me == 0 and rnd:
                        time.sleep(late)
                    if split:
                        with a.updating_halo():
                            pass
                    else:
                        a.update_halo()
                    took = time.perf_counter() - t0
                    check(a, rnd, f"chain {exchange} split={split}")
                    if rnd and me == 1:
                        assert took > 0.8 * late, f"unit 1 did not wait for unit 0: {took:.3f} s"
                    if rnd and me >= 2 and took > late / 2:
                        slow.append(f"{exchange} split={split} round {rnd}: {took:.3f} s")
    assert not slow, (
        f"unit {me} (neighbour of unit {me - 1} only, which is on time) waited "
        f"for unit 0, {late} s late: " + "; ".join(slow)
    )
    done("array_chain")
    dart.exit()


def disjoint_teams() -> None:
    """Two disjoint teams from one MPI_Comm_split (one team id) create, update and free
    arrays at the same time, ROUNDS times (issue 34: Open MPI's MPI_Win_create failed
    under DART_UNITS_PER_NODE=1). Every ghost is checked."""
    from mpi4py import MPI  # noqa: F401  (team_from_comm takes an mpi4py communicator)

    dart.init()
    me, rounds = dart.myid(), int(sys.argv[2])
    world = dart.TEAM_ALL.comm
    colour = me % 2
    sub = world.Split(colour, me)
    t = dart.team_from_comm(sub)
    for rnd in range(rounds):
        with dart.Array(
            (7 + colour, 5),
            np.int32,
            team=t,
            halo=1,
            boundary="periodic",
            stencil="box",
            exchange=("get", "notify")[rnd % 2],
        ) as a:
            fill(a, rnd)
            a.update_halo()
            check(a, rnd, f"disjoint team {colour}")
    t.destroy()
    sub.Free()
    done("array_disjoint_teams")
    dart.exit()


if __name__ == "__main__":
    main(
        {
            "matrix": matrix,
            "access": access,
            "errors": errors,
            "chain": chain,
            "disjoint_teams": disjoint_teams,
        }
    )
