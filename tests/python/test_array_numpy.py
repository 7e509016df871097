# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.Array as NumPy, Jupyter and the scientist's tools see it (issue 37): in-process
one-unit tests (this pytest process is the only unit), the multi-unit scenarios of
scenarios/array_numpy.py (each an mpiexec job with a timeout), and the notebook case in a
real kernel (nbclient)."""

from __future__ import annotations

import gc
import os
import subprocess

import launcher
import numpy as np
import pytest
from launcher import placements, scenario

# ---------------------------------------------------------------------------------------
# one unit, in this process
# ---------------------------------------------------------------------------------------


def test_not_one_process_array(d):
    with d.Array((6, 8), np.float32, halo=1) as a:
        for call in (np.asarray, np.array, list, iter):
            with pytest.raises(TypeError) as e:
                call(a)
            for name in ("a.gather()", "a.interior", "a.local"):
                assert name in str(e.value)
        with pytest.raises(ValueError, match="ambiguous"):
            bool(a)
        assert (len(a), a.size, a.itemsize, a.nbytes) == (6, 48, 4, 192)
        assert a.blocks == ((6,), (8,))


def test_repr_and_html_describe_the_distribution(d):
    with d.Array((96, 128), np.float64, halo=1, boundary="periodic", stencil="box") as a:
        r = repr(a)
        for part in (
            "float64 (96, 128)",
            "on 1 of team 0, grid 1x1",
            "ghosts (1, 1)",
            "boundary periodic",
            "stencil box",
            "exchange get",
            "my block [0:96, 0:128] (unit 0, coords (0, 0))",
            "99.5 KiB with ghosts on this unit",
        ):
            assert part in r, (part, r)
        assert len(r.splitlines()) == 2
        h = a._repr_html_()
        assert h.startswith("<table>") and "<th style='text-align:left'>stencil</th>" in h
    assert repr(a) == "<dartpy.Array (freed)>" and "freed" in a._repr_html_()


def test_elementwise_ufuncs_give_arrays(d):
    g = np.arange(24.0).reshape(4, 6)
    with d.Array.from_numpy(g, halo=1) as a:
        b = 2 * a + 1
        c = np.sqrt(a)
        m = a >= 10
        i = a // 4
        try:
            assert b.halo == a.halo and np.array_equal(b.interior, 2 * g + 1)
            assert np.array_equal(c.interior, np.sqrt(g)) and c.dtype == np.float64
            assert m.dtype == np.bool_ and np.array_equal(m.interior, g >= 10)
            assert np.array_equal(i.interior, g // 4)
            assert (b.local[0] == 0).all()  # the new array's ghosts: zero until updated
            a -= 1
            np.add(a, 1, out=a)
            assert np.array_equal(a.interior, g)
            with pytest.raises(TypeError, match="out= must hold dartpy.Arrays"):
                np.add(a, 1, out=np.empty((4, 6)))
            with pytest.raises(TypeError, match="neither a dartpy.Array nor a scalar"):
                np.add(a, "x")
        finally:
            for x in (b, c, m, i):
                x.free()


def test_reductions_dispatch_and_refusals(d):
    g = np.arange(1, 13, dtype=np.int16).reshape(3, 4)
    with d.Array.from_numpy(g) as a, d.Array.from_numpy(g) as b:
        assert np.sum(a) == a.sum() == 78 and np.sum(a).dtype == np.int64
        assert np.min(a) == np.amin(a) == 1 and np.max(a) == np.amax(a) == 12
        assert np.min(a).dtype == np.int16
        assert np.mean(a) == 6.5 and np.mean(a).dtype == np.float64
        assert np.linalg.norm(a) == d.norm(a) == np.float64(np.linalg.norm(g))
        assert d.norm(a, 1) == 78 and d.norm(a, np.inf) == 12
        assert np.vdot(a, b) == d.dot(a, b) == np.vdot(g, g)
        assert (np.shape(a), np.ndim(a), np.size(a)) == ((3, 4), 2, 12)
        with pytest.raises(TypeError, match="axis=1 is not supported"):
            a.sum(axis=1)
        with pytest.raises(TypeError, match="'dtype'"):
            np.sum(a, dtype=np.float64)
        with pytest.raises(TypeError, match="numpy.sum, numpy.vdot"):
            np.median(a)
        with pytest.raises(ValueError, match="ord=3"):
            d.norm(a, 3)
        with pytest.raises(TypeError, match="NumPy array"):
            np.vdot(a, g)
    with d.Array((3, 4), np.complex128) as z:
        z.interior[...] = 1 + 2j
        assert np.sum(z) == 12 + 24j and np.vdot(z, z) == 60
        with pytest.raises(TypeError, match="no order"):
            z.max()


def test_global_index_access(d):
    with d.Array((5, 4), np.int32, halo=(1, 2)) as a:
        a.local[...] = np.arange(a.local.size).reshape(a.local.shape)
        assert a.at[-1, -2] == a.local[0, 0]  # a ghost below the boundary: no wrap-around
        assert a.at[0, 0] == a.interior[0, 0]
        assert np.array_equal(a.at[:, :], a.local) and np.array_equal(a.at[...], a.local)
        assert np.array_equal(a.at[1:3, 0], a.local[2:4, 2])
        a.at[4, 3] = -7
        assert a.interior[4, 3] == -7
        for bad in ((6, 0), (0, 6), (-2, 0), (slice(0, 7), 0)):
            with pytest.raises(IndexError, match="outside dimension"):
                a.at[bad]
        with pytest.raises(IndexError, match="ints, slices"):
            a.at[1.5, 0]


def test_from_numpy_gather_all_to_xarray(d):
    g = np.arange(12, dtype=np.float32).reshape(3, 4)
    with d.Array.from_numpy(g, halo=1, stencil="box") as a:
        assert a.dtype == np.float32 and a.halo == ((1, 1), (1, 1)) and a.stencil == "box"
        assert np.array_equal(a.gather_all(), g)
        x = a.to_xarray(dims=("y", "x"), name="T")
        assert x.name == "T" and x.dims == ("y", "x") and np.array_equal(x.values, g)
        assert list(x.coords["y"].values) == [0, 1, 2]
    with pytest.raises(ValueError, match="1 to 4"):
        d.Array.from_numpy(np.zeros((1,) * 5))
    with pytest.raises(ValueError, match="root 3"):
        d.Array.from_numpy(g, root=3)


def test_dask_reads_block_by_block(d):
    da = pytest.importorskip("dask.array")
    g = np.arange(30.0).reshape(5, 6)
    with d.Array.from_numpy(g, halo=1) as a:
        x = da.from_array(a, chunks=a.blocks)
        assert float(x.sum().compute()) == g.sum()
        assert np.array_equal(x[1:4, 2:5].compute(), g[1:4, 2:5])
        # from_array copied the array (a collective copy): freed once dask drops it
        assert len([y for y in d._array_temporaries._made[0] if not y.freed]) == 1
        del x
        gc.collect()
        d.collect_arrays()
        assert not d._array_temporaries._made.get(0)


def test_file_errors_are_builtin_exceptions(d, tmp_path):
    missing = tmp_path / "missing.npy"
    with pytest.raises(FileNotFoundError) as e:
        d.Array.load(missing)
    assert isinstance(e.value, d.DartError) and e.value.errno == 2
    assert e.value.filename == str(missing) and str(missing) in str(e.value)
    with pytest.raises(IsADirectoryError):
        d.Array.load(tmp_path)
    (tmp_path / "bad.npy").write_bytes(b"nothing")
    with pytest.raises(ValueError, match="not a .npy file") as e:
        d.Array.load(tmp_path / "bad.npy")
    assert isinstance(e.value, d.DartError) and e.value.code == d.ERR_INVAL
    with d.Array((3, 3)) as a:
        with pytest.raises(FileNotFoundError, match="does not exist"):
            a.save(tmp_path / "no" / "x.npy")
        with pytest.raises(IsADirectoryError):
            a.save(tmp_path)
    import pickle

    e2 = pickle.loads(pickle.dumps(e.value))
    assert type(e2) is type(e.value) and str(e2) == str(e.value)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a read-only tmpfs (root)")
def test_read_only_folder_is_permission_error(d, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with d.Array((3, 3)) as a:
            with pytest.raises(PermissionError) as e:
                a.save(ro / "x.npy")
            assert isinstance(e.value, d.DartError) and "not writable" in str(e.value)
    finally:
        subprocess.run(["umount", str(ro)], check=True)


# ---------------------------------------------------------------------------------------
# several units (mpiexec)
# ---------------------------------------------------------------------------------------

REDUCE = [(1, None), (2, 1), (3, 2), (4, None)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(REDUCE))
def test_reductions_every_dtype(n, upn, prog):
    """Sum, min, max, mean, the norms and dot of every dtype in 1-3 dimensions with
    ghosts against the gathered array (sums bit for bit by the documented order, integers
    bit for bit with NumPy), the same bytes on every unit; NaN propagates."""
    job = scenario("array_numpy.py", "reductions", n, upn, timeout=180.0, progress=prog)
    assert job.returncode == 0, job.describe()
    assert job.passes("numpy_reductions", n) == n, job.describe()


UFUNCS = [(1, None), (3, None), (4, 2)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(UFUNCS))
def test_ufuncs_moves_and_refusals(n, upn, prog):
    """Element-wise ufuncs (operators, out=, two outputs), the refusals on every unit
    (another distribution, a NumPy operand, reduce, gufuncs, axis, keepdims), a ufunc that
    fails on one unit only (every unit raises), from_numpy, gather_all, at[], to_xarray,
    dask, and the file errors as FileNotFoundError/IsADirectoryError/ValueError."""
    for case, passed in (("ufuncs", "numpy_ufuncs"), ("moves", "numpy_moves")):
        job = scenario("array_numpy.py", case, n, upn, timeout=120.0, progress=prog)
        assert job.returncode == 0, job.describe()
        assert job.passes(passed, n) == n, job.describe()


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn", [(2, None), (3, 1)])
def test_file_errors_on_every_unit(n, upn, tmp_path):
    job = scenario("array_numpy.py", "file_errors", n, upn, timeout=60.0, args=[str(tmp_path)])
    assert job.returncode == 0, job.describe()
    assert job.passes("numpy_file_errors", n) == n, job.describe()


# ---------------------------------------------------------------------------------------
# a real kernel
# ---------------------------------------------------------------------------------------

VIEW_CELLS = [
    "import numpy as np, dartpy as dart\ndart.init()\na = dart.Array((6, 8), halo=1)",
    "a.local[1, 1:3]",  # the cell's result: a view in Out, _ and _2
    "a.interior",
    "a.free()\nprint('freed with views in the output history')",
    "b = dart.Array((4, 4))\nv = b.local",
    "try:\n    b.free()\nexcept BufferError as e:\n    print('BufferError:', e)",
    "del v\nb.free()\n[x for x in (Out, _, __, ___)]\ndart.exit()\nprint('exit ok')",
]


@pytest.mark.multiunit
def test_views_in_ipython_output_history_do_not_block_free(monkeypatch):
    """A cell that displays a view puts it into IPython's output history: free() and
    exit() release it; a view the user's own variable holds still raises, naming it."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for k, v in launcher.clean_env().items():
        monkeypatch.setenv(k, v)
    for k in [k for k in os.environ if k not in launcher.clean_env()]:
        monkeypatch.delenv(k)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in VIEW_CELLS])
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    text = "".join(
        o.get("text", "")
        for c in nb.cells
        for o in c.get("outputs", [])
        if o["output_type"] == "stream"
    )
    assert "freed with views in the output history" in text
    assert "BufferError: dartpy.Array.free: 1 NumPy view(s)" in text
    assert "'v'" in text.split("BufferError:")[1].splitlines()[0]
    assert "exit ok" in text
    shown = [
        o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "execute_result"
    ]
    assert len(shown) >= 2  # the views were displayed
