# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 files of arrays (issue 38): dartpy.h5. In-process tests on one unit (the files
read by h5py and xarray without dartpy: every dtype, attributes, dimension names, a time
series), and the scenarios of scenarios/h5_files.py under mpiexec: round trips on 1-4
units with and without emulation, restarts 1 <-> 4 units, every refusal on every unit,
and a write beyond the file size limit that leaves the old file."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from launcher import FLAVOR, SCENARIOS, scenario

import dartpy as dart

sys.path.append(str(SCENARIOS))
import array_files  # noqa: E402
import h5_files  # noqa: E402
from _helpers import same  # noqa: E402

h5py = pytest.importorskip("h5py")
pytestmark = pytest.mark.skipif(not dart.h5.available(), reason="built without HDF5")


def test_h5py_reads_every_dtype(d, tmp_path):
    """Every dtype a file holds, ranks 1-4, written by dartpy: h5py reads the same values
    (complex as h5py's {r, i} compound, long double as numpy.longdouble), shapes, dims."""
    path = tmp_path / "all.h5"
    h5_files.write_all(path, 1)
    with h5py.File(path, "r") as f:
        for name, shape, dt in h5_files.datasets(1):
            got = f[name][...]
            assert got.dtype == np.dtype(dt) and got.shape == shape, (name, got.dtype)
            assert same(got, array_files.field(shape, dt, 7)), name
            scales = [f[name].dims[k][0].name for k in range(len(shape))]
            assert scales == [f"/{name}_{k}" for k in range(len(shape))], scales
        assert f.attrs["time"] == 2.5 and f.attrs["iterations"] == 100
        assert f.attrs["title"] == "héat"
        assert f[h5_files.F64].attrs["units"] == "K"
        assert f["T"].shape == (3, 5, 6) and f["T"].maxshape == (None, 5, 6)
        for k in range(3):
            assert same(f["T"][k], h5_files.series_step((5, 6), k))
    h5_files.check_all(path, 1)


def test_xarray_opens_the_file(d, tmp_path):
    """xarray.open_dataset (h5netcdf engine) sees the variables with their named
    dimensions (default dim_0, dim_1, ...), the time series with an unlimited "time",
    the attributes, and the values."""
    xr = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    path = tmp_path / "x.h5"
    ref = array_files.field((6, 4), np.float64, 3)
    with d.h5.File(path, "w") as f, d.Array((6, 4)) as a:
        a.scatter(ref)
        f["T"] = a
        f.write("U", a, dims=("y", "x"))
        f["T"].attrs["units"] = "K"
        f.attrs["alpha"] = 0.25
        for _ in range(2):
            f.append("S", a)
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        assert ds["T"].dims == ("dim_0", "dim_1")
        assert ds["U"].dims == ("y", "x")
        assert ds["S"].dims == ("time", "dim_0", "dim_1") and ds.sizes["time"] == 2
        assert same(ds["T"].values, ref) and same(ds["S"].values[1], ref)
        assert ds["T"].attrs["units"] == "K" and ds.attrs["alpha"] == 0.25


def test_h5py_file_read_by_dartpy(d, tmp_path):
    """A file h5py wrote (big-endian data, a chunked dataset) is read by dartpy; what it
    cannot hold (uint8, strings) is refused by name."""
    path = tmp_path / "h.h5"
    ref = np.arange(30, dtype=">f8").reshape(5, 6)
    with h5py.File(path, "w") as f:
        f.create_dataset("be", data=ref)
        f.create_dataset("chunked", data=ref.astype("<i4"), chunks=(2, 3))
        f.create_dataset("bytes", data=np.arange(4, dtype=np.uint8))
        f.attrs["name"] = "made by h5py"
    with d.h5.File(path) as f:
        with d.Array.from_h5(f, "be", halo=1) as b:
            assert b.dtype == np.float64 and same(b[...], ref.astype("<f8"))
        with d.Array.from_h5(f, "chunked") as b:
            assert b.dtype == np.int32 and same(b[...], ref.astype("<i4"))
        with pytest.raises(d.DartError, match="an unsigned integer of 1 bytes"):
            d.Array.from_h5(f, "bytes")
        assert f.attrs["name"] == "made by h5py"


def run(case: str, n, upn, *args, timeout=120.0):
    job = scenario("h5_files.py", case, n, upn, timeout=timeout, args=[str(a) for a in args])
    assert job.returncode == 0, job.describe()
    assert job.passes(f"h5_files_{case}", n) == n, job.describe()
    return job


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn", [(2, None), (3, 1)], ids=["n2", "n3-upn1"])
def test_round_trips(n, upn, tmp_path):
    """Every dtype, ranks 1-4, dims, attributes and a series of 3 steps written on n
    units and read back with other ghosts and grids; "a" adds a step and a dataset.
    (4 units on two emulated nodes: test_restart_on_another_unit_count.)"""
    run("roundtrip", n, upn, tmp_path)


@pytest.mark.multiunit
def test_restart_on_another_unit_count(tmp_path):
    """A file written on 1 unit is read on 4 (two emulated nodes), and one written on 4
    is read on 1: the same values."""
    run("roundtrip", 1, None, tmp_path)
    run("roundtrip", 4, 2, tmp_path)
    run("reload", 4, 2, tmp_path, 1)
    run("reload", 1, None, tmp_path, 4)


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn", [(2, None), (3, 1)], ids=["n2", "n3-upn1"])
def test_refusals_on_every_unit(n, upn, tmp_path):
    """Missing file, not HDF5, missing folder, bad mode, missing dataset, wrong dtype,
    wrong rank, ghosts the blocks cannot fill, a write to a read-only file, an existing
    name ("w": the close fails and the old file stays; "a": the file stays readable):
    one DartError with one message on every unit."""
    run("refusals", n, upn, tmp_path)


# Open MPI 4.1 at 4 units on two emulated nodes: the close of the refused file hangs in
# HDF5 1.10's collective flush (seen 2026-12-08, not yet understood): a known bug, not run.
OMPI_HANG = pytest.mark.xfail(
    FLAVOR == "openmpi", run=False, reason="hangs in dart_h5_close (HDF5 flush), issue 38"
)


@pytest.mark.multiunit
@pytest.mark.parametrize(
    "n,upn",
    [(1, None), (2, None), pytest.param(4, 2, marks=OMPI_HANG)],
    ids=["n1", "n2", "n4-upn2"],
)
def test_write_beyond_the_file_size_limit_keeps_the_old_file(n, upn, tmp_path):
    """RLIMIT_FSIZE below the file's size: the write or the close raises on every unit,
    the old file keeps its bytes, no temporary file is left."""
    run("full", n, upn, tmp_path)
