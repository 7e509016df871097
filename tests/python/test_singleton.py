# SPDX-License-Identifier: BSD-3-Clause
"""In-process tests: this pytest process is a single unit (an MPI singleton, no mpiexec),
as in a Jupyter kernel. Every test initializes and exits DART itself, so the tests also
exercise init/exit cycles."""

from __future__ import annotations

import copy
import gc
import pickle
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import dartpy as dart

ALL_DTYPES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.longlong,
    np.ulonglong,
    np.float16,
    np.float32,
    np.float64,
    np.longdouble,
    np.complex64,
    np.complex128,
    np.clongdouble,
]


def test_calls_before_init_raise_notinit():
    assert not dart.initialized()
    for call in (
        dart.myid,
        dart.size,
        dart.barrier,
        lambda: dart.Group(),
        lambda: dart.team_memalloc_aligned(dart.TEAM_ALL, 1, np.int8),
        lambda: dart.get_blocking(np.zeros(1), dart.Gptr(0, 1, 0, dtype=float)),
        dart.exit,
    ):
        with pytest.raises(dart.DartError) as e:
            call()
        assert e.value.code == dart.ERR_NOTINIT
        assert isinstance(e.value, RuntimeError)


def test_init_exit_cycles_in_process():
    for i in range(10):
        dart.init()
        assert dart.initialized() and dart.size() == 1 and dart.myid() == 0
        with pytest.raises(dart.DartError) as e:
            dart.init()
        assert e.value.code == dart.ERR_INVAL
        g = dart.team_memalloc_aligned(dart.TEAM_ALL, 4, np.int32)
        dart.put_blocking(g, np.full(4, i, np.int32))
        dart.exit()  # frees g
        with pytest.raises(dart.DartError) as e:
            dart.get_blocking(np.zeros(4, np.int32), g)
        assert e.value.code == dart.ERR_NOTINIT
    info = dart.mpi_info()
    assert info["initialized"] and not info["finalized"] and info["started_by_dartpy"]


def test_mpi_flavor_matches_runtime(d):
    lib = d.mpi_info()["library_version"]
    flavor = d.build_info()["mpi_flavor"]
    assert ("MPICH" in lib) if flavor == "mpich" else ("Open MPI" in lib), lib
    assert d.mpi_info()["thread_level"] == "serialized"
    assert d.node_count() == 1 and d.unit_node(0) == 0
    assert d.units_per_node_emulation() == 0
    assert "DART-MPI" in d.config_string() and d.mpi_version() == d.__version__


def test_gptr_value_type(d):
    g = d.Gptr(unit=3, segid=5, teamid=2, offset=16, flags=1, dtype=np.float32)
    assert (g.unit, g.segid, g.teamid, g.offset, g.flags) == (3, 5, 2, 16, 1)
    assert g.dtype == np.float32 and g.itemsize == 4
    h = g + 3
    assert h.offset == 28 and h.unit == 3 and (h - 3) == g and (3 + g) == h
    assert g != h and g == d.Gptr(3, 5, 2, 16, 1, np.float32)
    assert hash(g) == hash(d.Gptr(3, 5, 2, 16, 1, np.float32))
    assert {g, h, g + 0} == {g, h}
    assert pickle.loads(pickle.dumps(g)) == g
    assert copy.deepcopy(h) == h and copy.copy(h) == h
    assert g.setunit(7).unit == 7 and g.setunit(7).offset == 16
    assert g.astype(np.int64).dtype == np.int64 and (g.astype(np.int64) + 1).offset == 24
    u = g.astype(None)
    assert u.dtype is None and u.itemsize == 1
    with pytest.raises(TypeError, match="typed gptr"):
        u + 1
    assert d.gptr_incaddr(u, 5).offset == 21
    real = d.team_memalloc_aligned(d.TEAM_ALL, 2, np.int8)
    assert d.gptr_setflags(real, 9).flags == 9 and d.gptr_getflags(d.gptr_setflags(real, 9)) == 9
    assert d.gptr_segment_size(real) == 2
    assert d.gptr_getaddr(real) == d.gptr_getaddr_node(real) != 0
    assert d.gptr_setaddr(real, d.gptr_getaddr(real) + 1) == real.astype(None).astype(np.int8) + 1
    d.team_memfree(real)
    with pytest.raises(d.DartError) as e:
        d.gptr_getflags(g)  # team 2 does not exist
    assert e.value.code == d.ERR_NOTFOUND
    assert d.gptr_setunit(g, 2).unit == 2
    assert d.GPTR_NULL.is_null and not g.is_null
    assert "unit=3" in repr(g) and "float32" in repr(g)
    with pytest.raises(ValueError):
        g.setunit(1 << 24)
    with pytest.raises(ValueError):
        d.Gptr(unit=1 << 24, segid=0, teamid=0)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda t: np.dtype(t).name)
def test_dtype_roundtrip(d, dtype):
    dt = np.dtype(dtype)
    g = d.team_memalloc_aligned(d.TEAM_ALL, 10, dt)
    assert g.dtype == dt
    if dt.kind == "b":
        src = np.arange(10) % 3 == 0
    elif dt.kind == "c":
        src = (np.arange(10) + 1j * np.arange(10, 20)).astype(dt)
    else:
        src = np.arange(10).astype(dt)
    d.put_blocking(g, src)
    out = np.zeros(10, dt)
    d.get_blocking(out, g)
    assert np.array_equal(out, src)
    v = d.view(g)
    assert v.dtype == dt and v.shape == (10,) and np.array_equal(v, src)
    del v
    d.team_memfree(g)


def test_int64_aliases_share_the_allocation_dtype(d):
    g = d.team_memalloc_aligned(d.TEAM_ALL, 2, np.int64)
    d.put_blocking(g, np.array([1, 2], np.longlong))  # same width and kind: accepted
    with pytest.raises(TypeError, match="int64"):
        d.put_blocking(g, np.array([1, 2], np.uint64))
    d.team_memfree(g)


@pytest.mark.parametrize("bad", [object, "U4", [("a", "i4"), ("b", "f8")], "M8[s]"])
def test_unsupported_dtypes(d, bad):
    with pytest.raises(TypeError, match="'dtype'"):
        d.team_memalloc_aligned(d.TEAM_ALL, 2, bad)


def test_non_native_byte_order_is_rejected(d):
    g = d.team_memalloc_aligned(d.TEAM_ALL, 2, np.float64)
    with pytest.raises(TypeError, match="byte order"):
        d.put_blocking(g, np.zeros(2, ">f8"))
    with pytest.raises(TypeError, match="byte order"):
        d.team_memalloc_aligned(d.TEAM_ALL, 2, ">i4")
    d.team_memfree(g)


BLOCK = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
SLICES = {
    "column": (lambda a: a[:, 2, 3], "strided"),
    "halo-col-2d": (lambda a: a[1], "basic"),
    "face-i": (lambda a: a[2, :, :], "basic"),
    "face-j": (lambda a: a[:, 1, :], "strided"),
    "face-k": (lambda a: a[:, :, 4], "strided"),
    "interior": (lambda a: a[1:3, 1:4, 1:5], "indexed"),
    "rows-2d": (lambda a: a[0][1:4, 2:5], "strided"),
    "every-other": (lambda a: a[::2, ::2, ::3], "indexed"),
}


@pytest.mark.parametrize("name", list(SLICES))
def test_strided_slices_one_type_no_copy(d, name):
    view_of, kind = SLICES[name]  # kind: what the core's layout engine builds
    src = view_of(BLOCK)
    assert d._core._layout_type(src)[0] == ("basic" if kind == "basic" else "derived")
    g = d.team_memalloc_aligned(d.TEAM_ALL, 200, np.float64)
    d.put_blocking(g, src)  # strided source -> contiguous global memory
    got = np.zeros(src.size)
    d.get_blocking(got, g)
    assert np.array_equal(got, np.ascontiguousarray(src).ravel())
    dst = np.zeros_like(BLOCK)
    d.get_blocking(view_of(dst), g)  # contiguous global memory -> strided destination
    mask = np.zeros(BLOCK.shape, bool)
    view_of(mask)[...] = True
    assert np.array_equal(dst[mask], BLOCK[mask]) and not dst[~mask].any()
    before = d._core._type_cache_size()
    d.get_blocking(view_of(dst), g)
    # the derived type is the core's cached one, handed back after the transfer
    assert d._core._type_cache_size() == before and before[1] == 0
    d.team_memfree(g)


def test_remote_strided_layout(d):
    a = d.zeros(d.TEAM_ALL, (5, 4), np.int32)
    d.put_blocking(a.gptr + 1, np.arange(5, dtype=np.int32), remote_stride=4)
    loc = a.local
    assert np.array_equal(loc[:, 1], np.arange(5)) and not loc[:, [0, 2, 3]].any()
    col = np.zeros((5, 3), np.int32)
    d.get_blocking(col[:, 2], a.gptr + 1, remote_stride=4)
    assert np.array_equal(col[:, 2], np.arange(5))
    del loc
    a.free()


@pytest.mark.parametrize(
    "arr",
    [
        np.zeros((4, 4)).T,  # transposed
        np.asfortranarray(np.zeros((3, 4))),  # Fortran order
        np.zeros(8)[::-1],  # reversed
        np.broadcast_to(np.zeros(1), (4,)),  # zero stride
    ],
    ids=["transposed", "fortran", "reversed", "broadcast"],
)
def test_layouts_without_index_order_are_rejected(d, arr):
    g = d.team_memalloc_aligned(d.TEAM_ALL, 16, np.float64)
    with pytest.raises(ValueError, match="'array'.*ascontiguousarray"):
        d.put_blocking(g, arr)
    d.team_memfree(g)


def test_views_are_zero_copy_and_guard_free(d):
    g = d.team_memalloc_aligned(d.TEAM_ALL, 12, np.int16)
    v = d.view(g, (3, 4))
    v[...] = np.arange(12, dtype=np.int16).reshape(3, 4)
    out = np.zeros(12, np.int16)
    d.get_blocking(out, g)
    assert np.array_equal(out, np.arange(12))
    d.put_blocking(g + 5, np.array([-1], np.int16))
    assert v[1, 1] == -1  # a put is visible through the view without a get
    assert d.view(g + 4, 2).tolist() == [4, -1]
    assert d.view(g, dtype=np.uint8).shape == (24,)
    with pytest.raises(ValueError, match="'shape'"):
        d.view(g, 13)
    with pytest.raises(TypeError, match="'shape'"):
        d.view(g, "x")
    assert d.view(g.astype(None), 1).dtype == np.int16  # the allocation's dtype
    with pytest.raises(TypeError, match="dtype"):
        d.view(d.Gptr(0, 0, 0))  # pool memory nobody allocated here: no dtype known
    sl = v[::2, 1:]
    del v
    gc.collect()
    with pytest.raises(BufferError, match="still alive"):
        d.team_memfree(g)
    assert d._core._views_of(g) == 1  # the slice holds the owner of v
    del sl
    gc.collect()
    d.team_memfree(g)
    with pytest.raises(d.DartError) as e:
        d.view(g)
    assert e.value.code == d.ERR_NOTFOUND


def test_memalloc_views_end_with_their_block(d):
    a = d.memalloc(4, np.float64)
    b = d.memalloc(4, np.float64)
    va = d.view(a)
    assert va.shape == (4,)  # the block, not the whole dart_memalloc pool
    with pytest.raises(ValueError, match="dart_memalloc block"):
        d.view(a, 5)
    d.memfree(b)  # a view of the neighbouring block does not hold b
    with pytest.raises(BufferError, match="still alive"):
        d.memfree(a)
    del va
    gc.collect()
    d.memfree(a)


def test_team_destroy_with_live_views_raises(d):
    team = d.team_create(d.TEAM_ALL, d.TEAM_ALL.group)
    g = d.team_memalloc_aligned(team, 4, np.int32)
    v = d.view(g)
    with pytest.raises(BufferError, match="still alive"):
        d.team_destroy(team)  # it would free the memory under v
    del v
    gc.collect()
    d.team_destroy(team)
    assert d._core._views_of(g) == 0


def test_exit_with_live_views_raises(d):
    a = d.zeros(d.TEAM_ALL, 3)
    keep = a.local
    with pytest.raises(BufferError, match="dart.exit"):
        d.exit()
    assert d.initialized()
    del keep
    a.free()


def test_allocation_objects(d):
    with d.ones(d.TEAM_ALL, (2, 3), np.float32) as a:
        assert a.local.sum() == 6 and a.local.dtype == np.float32 and a.size == 6
        assert a.gptr == a.gptr_of(0) and "live" in repr(a)
    assert a.freed
    with pytest.raises(d.DartError):
        a.free()
    f = d.full(d.TEAM_ALL, 4, 7, np.int8)
    assert f.local.tolist() == [7] * 4
    f.free()
    e = d.empty(d.TEAM_ALL, 0)
    e.free()
    with pytest.raises(ValueError, match=r"'shape\[0\]' = -1 is negative"):
        d.zeros(d.TEAM_ALL, (-1,))


def test_unfreed_allocation_only_warns(d):
    a = d.zeros(d.TEAM_ALL, 4, np.int32)
    g = a.gptr
    with pytest.warns(ResourceWarning, match="without free"):
        del a
        gc.collect()
    out = np.zeros(4, np.int32)
    d.get_blocking(out, g)  # the memory is still allocated
    d.team_memfree(g)


def test_unfreed_lock_only_warns(d):
    lk = d.team_lock_init(d.TEAM_ALL)
    with lk:
        assert lk.initialized
    assert lk.try_acquire()
    lk.release()
    with pytest.warns(ResourceWarning, match="team_lock_destroy"):
        del lk
        gc.collect()


def test_singleton_transfers_handles_atomics(d):
    g = d.team_memalloc_aligned(d.TEAM_ALL, 8, np.int64)
    h = d.put_handle(g, np.arange(8, dtype=np.int64))
    assert h.done  # same node: copied at once
    h.wait()
    outs = [np.zeros(4, np.int64), np.zeros(4, np.int64)]
    hs = [d.get_handle(outs[0], g), d.get_handle(outs[1], g + 4)]
    d.waitall(hs)
    assert outs[0].tolist() == [0, 1, 2, 3] and outs[1].tolist() == [4, 5, 6, 7]
    assert d.testall([]) and d.testall_local(hs)
    d.waitall_local([])
    with pytest.raises(TypeError, match="'handles'"):
        d.waitall([1, 2])
    with pytest.raises(TypeError, match="'handles'.*NoneType"):
        d.waitall([None])  # None is no handle (pybind11 casts it to a null pointer)
    d.put(g, np.zeros(1, np.int64))
    d.flush(g)
    assert d.fetch_and_op(g, 5, d.OP_SUM) == 0
    assert d.fetch_and_op(g, 0, d.OP_NO_OP) == 5
    assert d.compare_and_swap(g, 9, 5) == 5 and d.compare_and_swap(g, 1, 5) == 9
    # an untyped gptr of a known allocation takes the allocation's dtype
    assert d.fetch_and_op(g.astype(None), np.int64(1), d.OP_SUM) == 9
    d.accumulate(g + 1, np.array([10, 10], np.int64), d.OP_SUM)
    d.flush(g)
    out = np.zeros(3, np.int64)
    d.get_blocking(out, g)
    assert out.tolist() == [10, 11, 12]
    with pytest.raises(TypeError, match="uint8"):
        u = d.team_memalloc_aligned(d.TEAM_ALL, 1, np.uint8)
        d.fetch_and_op(u, 1, d.OP_MAX)
    with pytest.raises(TypeError, match="op"):
        d.fetch_and_op(g, 1, "sum")
    with pytest.raises(TypeError, match="int64"):
        d.fetch_and_op(g, np.int32(1), d.OP_SUM)
    d.team_memfree(g)


def test_prepared_transfers(d):
    """put_init/get_init: described once, each run moves the data of that moment; bad
    arguments fail at preparation, a Transfer of freed memory or of an earlier init/exit
    cycle fails at its run, and a Transfer holding a view blocks the free of that memory."""
    a = d.zeros(d.TEAM_ALL, (5, 4), np.float64)
    loc = a.local
    col = np.zeros((5, 3))
    get = d.get_init(col[:, 2], a.gptr + 1, remote_stride=4)  # strided on both sides
    assert not get.is_put and get.nbytes == 40 and get.gptr == a.gptr + 1
    assert "get of 40 bytes" in repr(get)
    src = np.zeros(5)
    put = d.put_init(a.gptr + 1, src, remote_stride=4)
    for r in range(3):  # the data of each run, not of the preparation
        src[:] = np.arange(5) + 10 * r
        put.run()
        assert np.array_equal(loc[:, 1], np.arange(5) + 10 * r)
        assert not loc[:, [0, 2, 3]].any()
        col[:] = -1
        get.run()
        assert np.array_equal(col[:, 2], np.arange(5) + 10 * r)
        assert (col[:, :2] == -1).all()
    h = get.start()
    assert isinstance(h, d.Handle)
    h.wait()
    src[:] = 7
    put.post()
    d.flush(a.gptr)
    assert (loc[:, 1] == 7).all()
    col[:] = 0
    d.waitall(d.start_all([get, get]))
    d.run_all([put, get])
    assert (col[:, 2] == 7).all()
    # bad arguments: the errors of the plain calls, named as the preparing function
    with pytest.raises(ValueError, match="get_init.*'out' is read-only"):
        ro = np.zeros(5)
        ro.flags.writeable = False
        d.get_init(ro, a.gptr)
    with pytest.raises(TypeError, match="put_init.*float64"):
        d.put_init(a.gptr, np.zeros(4, np.int32))
    with pytest.raises(ValueError, match="remote_blocklen"):
        d.get_init(np.zeros(4), a.gptr, remote_stride=4, remote_blocklen=0)
    with pytest.raises(ValueError, match="ascontiguousarray"):
        d.put_init(a.gptr, np.zeros((4, 4)).T)
    with pytest.raises(TypeError, match="'transfers'.*int"):
        d.run_all([get, 1])
    with pytest.raises(TypeError, match="'transfers'.*NoneType"):
        d.start_all([None])
    # a Transfer holding a view of the memory keeps it from being freed, like the view
    view_put = d.put_init(a.gptr, loc[0])
    del loc
    gc.collect()
    with pytest.raises(BufferError, match="still alive"):
        a.free()
    del view_put
    gc.collect()
    a.free()
    with pytest.raises(d.DartError, match="freed") as e:
        get.run()
    assert e.value.code == d.ERR_INVAL
    with pytest.raises(d.DartError, match="freed"):
        put.start()
    with pytest.raises(d.DartError, match="freed"):
        d.run_all([put])
    # a Transfer outlives its init/exit cycle only as an error
    b = d.team_memalloc_aligned(d.TEAM_ALL, 4, np.float64)
    keep = d.get_init(np.zeros(4), b)
    d.team_memfree(b)
    old = d.get_init(np.zeros(2), d.Gptr(0, 0, 0))  # pool memory: no record to check
    d.exit()
    with pytest.raises(d.DartError, match="before dart.exit"):
        old.run()
    with pytest.raises(d.DartError) as e:
        d.get_init(np.zeros(2), d.Gptr(0, 0, 0))
    assert e.value.code == d.ERR_NOTINIT
    d.init()
    with pytest.raises(d.DartError, match="before dart.exit"):
        old.start()
    del keep, old  # their types went with the earlier cycle: nothing to hand back


def test_singleton_collectives(d):
    x = np.arange(4.0)
    d.bcast(x, 0)
    r = np.zeros(4)
    d.allreduce(x, r, d.OP_SUM)
    assert np.array_equal(r, x)
    gathered = np.zeros(4)
    d.gather(x, gathered, 0)
    d.scatter(x, r, 0)
    assert np.array_equal(gathered, x) and np.array_equal(r, x)
    m = np.zeros(2)
    d.reduce(np.array([3.0, 4.0]), m, d.OP_MINMAX, 0)
    assert m.tolist() == [3.0, 4.0]
    with pytest.raises(d.DartError) as e:
        d.bcast(x, 1)  # root == size
    assert e.value.code == d.ERR_INVAL and "root" in str(e.value)


def test_error_codes_and_messages(d):
    g = d.team_memalloc_aligned(d.TEAM_ALL, 4, np.float64)
    with pytest.raises(d.DartError) as e:
        d.get_blocking(np.zeros(1), g.setunit(1))  # unit == size
    assert e.value.code == d.ERR_INVAL and "out of range" in str(e.value)
    assert e.value.detail and e.value.detail in str(e.value)
    with pytest.raises(d.DartError, match="past the end"):
        d.get_blocking(np.zeros(2), g + 3)
    with pytest.raises(TypeError, match="'out' has dtype float32"):
        d.get_blocking(np.zeros(1, np.float32), g)
    with pytest.raises(TypeError, match="'array' must be a NumPy array"):
        d.put_blocking(g, "text")
    b = d.team_memalloc_aligned(d.TEAM_ALL, 8, np.uint8)
    d.put_blocking(b, bytearray(b"abcdefgh"))  # any buffer works (zero-copy through NumPy)
    out = bytearray(8)
    d.get_blocking(out, b)
    assert out == b"abcdefgh"
    d.team_memfree(b)
    d.team_memfree(g)
    with pytest.raises(d.DartError) as e:
        d.team_memfree(g)
    assert e.value.code == d.ERR_NOTFOUND
    assert d.strerror(d.ERR_NOTFOUND) and d.error_detail()
    with pytest.raises(d.DartError):
        d.team_destroy(d.TEAM_ALL)


def test_dart_error_is_a_picklable_python_class(d):
    assert issubclass(d.DartError, RuntimeError) and d.DartError.__doc__
    assert d.DartError.__module__ == "dartpy._errors"
    with pytest.raises(d.DartError) as e:
        d.team_size(999)
    err = e.value
    assert err.code == d.ERR_NOTFOUND and err.detail and err.detail in str(err)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is d.DartError and str(back) == str(err)
    assert (back.code, back.detail, back.args) == (err.code, err.detail, err.args)
    made = d.DartError("message", d.ERR_INVAL, "detail")
    assert (made.code, made.detail, str(made)) == (d.ERR_INVAL, "detail", "message")


def test_excepthook_install_and_opt_out(monkeypatch, capsys):
    original = sys.excepthook
    dart.init()
    try:
        assert sys.excepthook is not original
        # one unit: the hook prints the traceback and does not abort
        try:
            raise KeyError("singleton")
        except KeyError:
            sys.excepthook(*sys.exc_info())
        assert "KeyError: 'singleton'" in capsys.readouterr().err
    finally:
        dart.exit()
    assert sys.excepthook is original
    dart.init(abort_on_exception=False)
    assert sys.excepthook is original
    dart.exit()
    monkeypatch.setenv("DARTPY_NO_ABORT_ON_EXCEPTION", "1")
    dart.init()
    assert sys.excepthook is original
    dart.exit()


def test_team_comm_in_singleton(d):
    mpi4py = pytest.importorskip("mpi4py")
    from mpi4py import MPI

    c = d.TEAM_ALL.comm
    assert isinstance(c, MPI.Comm) and c.Get_size() == 1
    assert c.allreduce(5) == 5
    t = d.team_from_comm(MPI.COMM_SELF)
    assert t.size == 1 and t.unit_l2g(0) == 0
    t.destroy()
    assert mpi4py.__version__


def test_info_dict(d):
    info = d.info()
    assert info["units"] == 1 and info["nodes"] == 1 and info["unit_nodes"] == [0]
    assert info["mpi"]["thread_level"] == "serialized"
    assert info["dart_interface"] == d.VERSION == "3.2.0"


def test_stub_covers_the_public_api():
    stub = (Path(dart.__file__).parent / "_core.pyi").read_text()
    names = set(re.findall(r"^(?:def|class) (\w+)|^(\w+)\s*:", stub, re.M))
    declared = {a or b for a, b in names}
    public = {n for n in dir(dart._core) if not n.startswith("_")}
    missing = public - declared
    assert not missing, f"_core.pyi lacks {sorted(missing)}"
    assert (Path(dart.__file__).parent / "py.typed").exists()


def test_registered_memory_in_singleton(d):
    """team_memregister exposes a NumPy array, also in a singleton process (where Open MPI
    cannot create an MPI_Win_create window: the core needs none for a one-unit team)."""
    a = np.arange(4, dtype=np.float64)
    g = d.team_memregister(d.TEAM_ALL, a)
    refs = sys.getrefcount(a)
    out = np.zeros(4)
    d.get_blocking(out, g)
    assert np.array_equal(out, a)
    d.put_blocking(g + 1, np.array([-1.0]))
    assert a[1] == -1.0
    d.team_memderegister(g)
    assert sys.getrefcount(a) == refs - 1  # the registration released the array
