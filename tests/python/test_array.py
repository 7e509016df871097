# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.Array (issue 28): in-process one-unit tests (this pytest process is the only
unit) and the multi-unit scenarios of scenarios/arrays.py, each an mpiexec job with a
timeout (launcher.py)."""

from __future__ import annotations

import gc
import re
import sys

import numpy as np
import pytest
from launcher import SCENARIOS, placements, scenario

import dartpy as dart

sys.path.append(str(SCENARIOS))
import arrays  # noqa: E402  (the scenarios' expected values, shared with them)
from _helpers import DTYPES, same  # noqa: E402

# ---------------------------------------------------------------------------------------
# one unit, in this process
# ---------------------------------------------------------------------------------------


def test_properties_and_defaults(d):
    a = d.Array((5, 7))
    try:
        assert (a.shape, a.ndim, a.dtype, a.procs, a.coords) == (
            (5, 7),
            2,
            np.float64,
            (1, 1),
            (0, 0),
        )
        assert (a.lo, a.hi, a.halo) == ((0, 0), (5, 7), ((0, 0), (0, 0)))
        assert a.boundary == ("none", "none") and a.stencil == "star"
        assert a.exchange == "get"  # what "auto" stands for (docs/python.md)
        assert a.team == d.TEAM_ALL and isinstance(a.team, d.Team)
        assert not a.freed and repr(a).startswith("<dartpy.Array float64 (5, 7) on 1 of team 0")
        assert (a[...] == 0).all()  # created zeroed
        assert a.block(0) == ((0, 0), (5, 7)) and a.owner((4, 6)) == 0
        assert a.gptr.dtype == np.float64 and a.gptr.unit == 0
    finally:
        a.free()
    assert a.freed and "freed" in repr(a)
    with d.Array(np.array([3, 4]), halo=np.array([1, 0])) as c:  # NumPy arrays as lists
        assert c.shape == (3, 4) and c.halo == ((1, 1), (0, 0))
    with d.Array(
        np.int64(6),
        np.int16,
        halo=[(1, 2)],
        boundary=["periodic"],
        stencil="box",
        procs=[0],
        exchange="notify",
    ) as b:
        assert (b.shape, b.dtype, b.halo, b.boundary, b.stencil, b.exchange) == (
            (6,),
            np.int16,
            ((1, 2),),
            ("periodic",),
            "box",
            "notify",
        )
        assert b.local.shape == (9,) and b.interior.shape == (6,)
    assert d.ARRAY_MAX_DIMS == 4


def test_views_are_zero_copy_with_ghosts(d):
    with d.Array((4, 6), np.int32, halo=[(1, 2), 1]) as a:
        loc, inner = a.local, a.interior
        assert loc.shape == (4 + 3, 6 + 2) and inner.shape == (4, 6)
        assert np.shares_memory(loc, inner) and inner.base is not None
        # a.local[k] is the global point lo - halo_lo + k: the interior starts at (1, 1)
        inner[...] = np.arange(24).reshape(4, 6)
        assert loc[1, 1] == 0 and loc[1 + 3, 1 + 5] == 23
        assert a[3, 5] == 23  # the same memory, read by global index
        a[0, 0] = -5  # a put into it, visible in the views at once
        assert loc[1, 1] == -5 and inner[0, 0] == -5
        assert d._core._views_of(a.gptr) == 2
        del loc, inner


def test_one_unit_is_its_own_neighbour(d):
    """Periodic dimensions wrap onto the unit itself; non-periodic ghosts and the corners
    of a star stencil keep their sentinel (the scenario's independent expectation)."""
    for stencil in ("star", "box"):
        for boundary in (["periodic", "none", "periodic"], "periodic", "none"):
            for ex in ("get", "notify"):
                with d.Array(
                    (4, 3, 5),
                    np.float32,
                    halo=[(1, 2), 1, (0, 3)],
                    boundary=boundary,
                    stencil=stencil,
                    exchange=ex,
                ) as a:
                    for rnd in range(2):
                        arrays.fill(a, rnd)
                        if rnd:
                            with a.updating_halo():
                                pass
                        else:
                            a.update_halo()
                        arrays.check(a, rnd, f"{stencil} {boundary} {ex}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_every_dtype(d, dtype):
    dt = np.dtype(dtype)
    x = arrays.values(np.arange(4 * 5).reshape(4, 5), 1, dt)
    with d.Array((4, 5), dtype, halo=1, boundary="periodic", stencil="box") as a:
        assert a.dtype == dt
        a.scatter(x)
        a.update_halo()
        assert same(a.gather(), x)
        assert same(a.interior.copy(), x)
        assert same(a.local[0, 1:-1], x[-1]) and same(a.local[1:-1, 0], x[:, -1])
        assert same(np.asarray(a[-1, -1]), np.asarray(x[-1, -1]))
        assert type(a[0, 0]) is type(x[0, 0])
        a[1:3, 2] = x[:2, 0]
        assert same(a[1:3, 2], x[:2, 0])


def test_indexing_follows_numpy(d):
    ref = np.arange(4 * 6 * 5, dtype=np.float64).reshape(4, 6, 5)
    with d.Array(ref.shape, halo=1) as a:
        a.scatter(ref)
        keys = [
            (0, 0, 0),
            (-1, -2, -3),
            2,
            -1,
            (slice(None), 3),
            (Ellipsis, 1),
            (1, Ellipsis),
            (slice(1, -1), slice(-100, 100), slice(2, 2)),
            (slice(3, 1), 0),
            (np.int32(1), slice(None, 2)),
            (),
            Ellipsis,
            (1, Ellipsis, 2),
        ]
        for key in keys:
            got, want = a[key], ref[key]
            assert type(got) is type(want) and np.array_equal(got, want), key
            if isinstance(want, np.ndarray):
                assert got.shape == want.shape and got.flags.c_contiguous
        for key in [(4, 0, 0), (0, -7, 0), (0, 0, 5), (0, 0, 0, 0), (Ellipsis, Ellipsis)]:
            with pytest.raises(IndexError):
                a[key]
        with pytest.raises(IndexError, match="out of bounds for axis 1 with size 6"):
            a[0, 6]
        with pytest.raises(ValueError, match="step"):
            a[::2]
        with pytest.raises(ValueError, match="step"):
            a[0, 5:0:-1]
        with pytest.raises(ValueError):
            a[0:3:0]
        for key in ([0, 1], 1.0, None, True, np.array([0, 1]), "0"):
            with pytest.raises(TypeError, match="indices must be"):
                a[key]
        # writes: NumPy's broadcasting and casting; strided arrays go as they are
        a[0] = 1  # scalar broadcast to a plane
        ref[0] = 1
        a[1, :, -1] = np.arange(6)  # int array cast to float64
        ref[1, :, -1] = np.arange(6)
        src = np.arange(2 * 6 * 10, dtype=np.float64).reshape(2, 6, 10)[:, ::-1, ::2]
        a[2:, :, :] = src  # a negative stride: copied first
        ref[2:] = src
        pos = np.arange(2 * 2 * 10, dtype=np.float64).reshape(2, 2, 10)[:, :, ::2]
        a[2:, 1:3] = pos  # positive strides: sent as it is
        ref[2:, 1:3] = pos
        a[-1, -1, -1] = np.float32(0.5)  # another dtype: cast
        ref[-1, -1, -1] = 0.5
        big = np.arange(6 * 5, dtype=">f8").reshape(6, 5)  # non-native byte order: cast
        a[3] = big
        ref[3] = big
        a[0:0] = np.zeros((0, 6, 5))  # an empty region
        assert np.array_equal(a[...], ref)
        with pytest.raises(ValueError, match="'value'.*broadcast"):
            a[0] = np.zeros(4)
        with pytest.raises(IndexError):
            a[4] = 0


def test_gather_scatter_copy(d):
    ref = np.arange(3 * 4, dtype=np.complex128).reshape(3, 4) * (1 + 1j)
    with d.Array((3, 4), np.complex128, halo=(1, 0), boundary="periodic") as a:
        assert a.gather(root=0) is not None
        a.scatter(ref.tolist())  # anything NumPy can assign
        assert same(a.gather(), ref)
        a.update_halo()
        a.local[0, 0] = 99  # ghosts are copied too
        with a.copy() as b:
            assert (b.shape, b.dtype, b.halo, b.boundary, b.procs) == (
                a.shape,
                a.dtype,
                a.halo,
                a.boundary,
                a.procs,
            )
            assert same(b.local, a.local) and not np.shares_memory(b.local, a.local)
            b[0, 0] = 5
            assert a[0, 0] == ref[0, 0]
        with pytest.raises(ValueError, match="'root' = 1"):
            a.gather(root=1)
        with pytest.raises(TypeError, match="'root'"):
            a.scatter(ref, root=None)
        with pytest.raises(ValueError, match="'x'"):
            a.scatter(np.zeros((4, 3)))
        with pytest.raises(TypeError, match="'x'"):
            a.scatter({"not": "numbers"})


def test_free_with_live_views_raises(d):
    a = d.Array((4, 4), halo=1)
    v = a.interior[1:, :2]  # a slice of a view keeps it
    with pytest.raises(BufferError, match="still alive"):
        a.free()
    assert not a.freed
    a.update_halo()  # still usable
    del v
    gc.collect()
    a.free()
    with pytest.raises(d.DartError, match="already freed") as e:
        a.free()
    assert e.value.code == d.ERR_INVAL
    for call in (
        a.update_halo,
        a.update_halo_begin,
        a.gather,
        a.copy,
        lambda: a.local,
        lambda: a[0, 0],
        lambda: a.scatter(np.zeros((4, 4))),
    ):
        with pytest.raises(d.DartError, match="freed"):
            call()
    # a with block frees at its end; with views alive there, BufferError at the end
    with pytest.raises(BufferError):
        with d.Array(3) as b:
            keep = b.local
    del keep
    gc.collect()
    b.free()


def test_exception_in_with_block_leaves_array_to_exit(d):
    with pytest.raises(RuntimeError):
        with d.Array(3) as a:
            raise RuntimeError("inside")
    assert not a.freed  # the collective free is not made while an exception unwinds
    a.free()


def test_unfreed_array_only_warns(d):
    a = d.Array(3)
    with pytest.warns(ResourceWarning, match="without free"):
        del a
        gc.collect()


def test_exit_with_live_views_raises_then_array_is_dead(d):
    a = d.Array((2, 2))
    keep = a.local
    with pytest.raises(BufferError, match="dart.exit"):
        d.exit()
    assert d.initialized() and not a.freed
    del keep
    d.exit()
    assert a.freed
    with pytest.raises(d.DartError) as e:
        a.update_halo()
    assert e.value.code == d.ERR_NOTINIT
    d.init()  # a new cycle: the old array stays dead
    with pytest.raises(d.DartError, match="freed"):
        a[0, 0]


def test_split_phase_misuse(d):
    with d.Array(8, halo=1, boundary="periodic", exchange="notify") as a:
        with pytest.raises(d.DartError, match="no update"):
            a.update_halo_end()
        a.update_halo_begin()
        with pytest.raises(d.DartError, match="in flight"):
            a.update_halo_begin()
        with pytest.raises(d.DartError, match="in flight"):
            with a.updating_halo():
                pass
        a.update_halo_end()
        a.update_halo_begin()  # free() ends an update in flight first


@pytest.mark.parametrize(
    "exc,match,kw",
    [
        (ValueError, "'boundary' is 'wrap'", dict(boundary="wrap")),
        (ValueError, "'boundary[1]'", dict(boundary=("none", "Periodic"))),
        (TypeError, "'boundary'", dict(boundary=True)),
        (ValueError, "'stencil'", dict(stencil="diamond")),
        (ValueError, "'exchange'", dict(exchange="put")),
        (ValueError, "'halo' has 1 entry", dict(halo=[1])),
        (ValueError, "(lo, hi) pair", dict(halo=[(1, 1, 1), 0])),
        (TypeError, "'halo'", dict(halo="1")),
        (TypeError, "'halo[1]'", dict(halo=[1, 1.5])),
        (ValueError, "must be >= 0", dict(halo=[(0, -1), 0])),
        (ValueError, "'halo[0]' = 4294967296 is out of range", dict(halo=[2**32, 0])),
        (ValueError, "wider than the block", dict(halo=[(7, 0), 0], boundary="periodic")),
        (TypeError, "'dtype'", dict(dtype=object)),
        (TypeError, "non-native", dict(dtype=">f8")),
        (ValueError, "'shape' has 5 dimensions", dict(shape=(1, 1, 1, 1, 1))),
        (ValueError, "'shape' has 0 dimensions", dict(shape=[])),
        (ValueError, "shape[0] = -6", dict(shape=(-6, 5))),
        (TypeError, "'shape'", dict(shape="6")),
        (ValueError, "does not fit", dict(procs=(2, 1))),
        (ValueError, "'procs' has 3 entries", dict(procs=(1, 1, 1))),
        (TypeError, "'procs'", dict(procs=1)),
        (
            ValueError,
            "'blocks[1]' has 2 extents but procs[1] is 1",
            dict(blocks=[[6], [2, 3]], procs=(1, 1)),
        ),
        (ValueError, "sum to", dict(blocks=[[5], [5]])),
        (ValueError, "extent 0", dict(blocks=[[0], [5]])),
        (TypeError, "'blocks[0]'", dict(blocks=[6, [5]])),
    ],
)
def test_bad_arguments_name_themselves(d, exc, match, kw):
    args = {"shape": (6, 5), **kw}
    held = d._core._type_cache_size()[1]
    with pytest.raises(exc, match=re.escape(match)):
        d.Array(**args)
    assert d._core._live_views() == 0 and d._core._type_cache_size()[1] == held
    with d.Array((6, 5)) as a:  # nothing is left half-made
        assert a.shape == (6, 5)


def test_array_dims_create_is_the_arrays_grid():
    """The core's grid rule, exported for programs that print or plan the grid: the
    scenarios' independent MPI_Dims_create, given entries kept; local, no dart.init()."""
    assert not dart.initialized()
    for n in range(1, 65):
        for nd in range(1, dart.ARRAY_MAX_DIMS + 1):
            assert dart.array_dims_create(n, nd) == arrays.grid_of(n, nd), (n, nd)
    assert dart.array_dims_create(12, (0, 3, 0)) == (2, 3, 2)
    assert dart.array_dims_create(6, [1, 0]) == (1, 6)
    for bad in ((5, (2, 0)), (4, 0), (4, 5), (0, 2), (4, (-1, 0))):
        with pytest.raises(dart.DartError) as e:
            dart.array_dims_create(*bad)
        assert e.value.code == dart.ERR_INVAL
    with pytest.raises(TypeError, match="'procs'"):
        dart.array_dims_create(4, "2")


def test_procs_follow_from_blocks(d):
    with d.Array((6, 5), blocks=[[6], [5]], halo=[(6, 6), (5, 0)], boundary="periodic") as a:
        assert a.procs == (1, 1) and a.halo == ((6, 6), (5, 0))  # block = width: allowed


# ---------------------------------------------------------------------------------------
# several units (scenarios/arrays.py under mpiexec)
# ---------------------------------------------------------------------------------------


def check_cases(script_case: str, passes: list, n, upn, prog, timeout=120.0):
    job = scenario("arrays.py", script_case, n, upn, timeout=timeout, progress=prog)
    assert job.returncode == 0, job.describe()
    for case in passes:
        assert job.passes(case, n) == n, job.describe()
    return job


MATRIX = [(1, None), (2, None), (2, 1), (3, 2), (4, None), (4, 1)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(MATRIX))
def test_ghost_matrix(n, upn, prog):
    """The ghost-filling matrix: ndim 1-4, every periodic combination, star and box,
    widths 0-3 asymmetric, uneven default blocks, the default grid, every dtype, both
    exchanges, blocking and split; given grids 1 x N, N x 1, 1 x N x 1; given blocks down
    to block = width; two arrays in flight."""
    check_cases("matrix", ["array_matrix"], n, upn, prog)


ACCESS = [(1, None), (2, 1), (3, None), (4, 2)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(ACCESS))
def test_global_access_gather_scatter_copy(n, upn, prog):
    """Region reads and writes across owners (negative indices, strided and broadcast
    values), gather/scatter of every dtype, copy, owner/block, arrays over two teams at
    once, and the GIL released in a blocking update."""
    check_cases("access", ["array_access"], n, upn, prog)


ERRORS = [(1, None), (2, None), (3, 1)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(ERRORS))
def test_bad_input_on_one_unit_and_on_all(n, upn, prog):
    """Each bad argument on the last unit (ValueError/TypeError there, DartError ERR_INVAL
    naming it elsewhere) and on all; mismatched shape/dtype/halo/exchange/boundary; bad
    roots; free with live views (BufferError everywhere); freed arrays; no hang (the
    job's timeout) and the units in step after each."""
    check_cases("errors", ["array_errors"], n, upn, prog)


# Issue 34's chain: 4 units in 1-D, every placement of 4 units.
CHAIN = [(4, None), (4, 1), (4, 2)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(CHAIN))
def test_late_unit_delays_its_neighbours_only(n, upn, prog):
    """Unit 0 late by 0.2 s: unit 1 waits for it, units 2 and 3 (whose neighbours are on
    time) do not; both exchanges, blocking and split, 10 late rounds each, every ghost
    checked."""
    job = scenario("arrays.py", "chain", n, upn, timeout=120.0, progress=prog, args=["0.2", "10"])
    assert job.returncode == 0, job.describe()
    assert job.passes("array_chain", n) == n, job.describe()


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(CHAIN))
def test_disjoint_teams_create_arrays_at_once(n, upn, prog):
    """Two teams of one MPI_Comm_split (team_from_comm: one team id) create, update and
    free arrays at the same time, 100 rounds."""
    job = scenario(
        "arrays.py", "disjoint_teams", n, upn, timeout=180.0, progress=prog, args=["100"]
    )
    assert job.returncode == 0, job.describe()
    assert job.passes("array_disjoint_teams", n) == n, job.describe()
