# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.h5 on several units (issue 38; the tests are in test_h5_files.py): a file of
every dtype, attributes and a time series written by one job and read back with other
decompositions, a file of another job's unit count read here, every refusal with one
message on every unit, and a write the file system refuses that leaves the old file.

Every case gets its folder as the argument after the case name (pytest's tmp_path). The
reference of a dataset is array_files.field (exact values by global index).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from _helpers import done, main, raises, same
from array_files import FILE_DTYPES, block_of, check_loaded, field, listing, same_everywhere

import dartpy as dart

# (name, shape, dtype): ndim 1-4, odd extents (uneven blocks), every dtype a file holds.
SHAPES = [(13,), (7, 5), (5, 3, 4), (3, 2, 5, 3)]
F64 = f"v{FILE_DTYPES.index(np.float64)}_float64"  # the dataset with attributes


def datasets(n: int) -> list:
    out = []
    for k, dt in enumerate(FILE_DTYPES):
        shape = SHAPES[k % len(SHAPES)]
        shape = (shape[0] * n,) + shape[1:]
        out.append((f"v{k}_{np.dtype(dt).name}", shape, dt))
    return out


def series_step(shape, k: int) -> np.ndarray:
    return field(shape, np.float32, 100 + k)


def write_all(path: Path, n: int) -> None:
    """Every dataset (dims named per dataset), attributes, a series of 3 steps."""
    with dart.h5.File(path, "w") as f:
        for name, shape, dt in datasets(n):
            with dart.Array(shape, dt, halo=1, boundary="periodic") as a:
                a.local[...] = field(shape, dt, 9).flat[0]  # ghosts: not in the file
                a.interior[...] = field(shape, dt, 7)[block_of(a)]
                f.write(name, a, dims=[f"{name}_{d}" for d in range(len(shape))])
        f[F64].attrs["units"] = "K"
        f[F64].attrs["spacing"] = [0.5, 0.25]
        f.attrs["time"] = 2.5
        f.attrs["iterations"] = 100
        f.attrs["title"] = "héat"
        shape = (4 * n + 1, 6)
        with dart.Array(shape, np.float32, procs=[1, n] if n <= 6 else None) as a:
            for k in range(3):
                a.scatter(series_step(shape, k))
                f.append("T", a, dims=["time", "y", "x"])


def check_all(path: Path, n_written: int, steps: int = 3) -> None:
    """Reads everything write_all wrote (on n_written units) with other decompositions."""
    with dart.h5.File(path, "r") as f:
        assert "T" in f and "time" not in f.keys(), f.keys()
        for k, (name, shape, dt) in enumerate(datasets(n_written)):
            assert f[name].shape == shape and f[name].dtype == np.dtype(dt), name
            if k % 2:  # (one read each, the two ways in turn)
                b = dart.h5.read(f, name, dtype=dt, stencil="box")
            else:
                b = dart.Array.from_h5(f, name, halo=1, boundary="periodic")
            with b:
                check_loaded(b, field(shape, dt, 7), name)
        assert f[F64].attrs["units"] == "K"
        assert same(f[F64].attrs["spacing"], np.array([0.5, 0.25]))
        assert f.attrs["time"] == 2.5 and f.attrs["iterations"] == 100
        assert f.attrs["title"] == "héat"
        shape = (4 * n_written + 1, 6)
        assert f["T"].shape == (steps,) + shape
        for k in (0, 1, 2):
            with dart.Array.from_h5(f, "T", step=k, halo=1) as b:
                check_loaded(b, series_step(shape, k), f"step {k}")
        with dart.Array.from_h5(f, "T", step=-1) as b:
            check_loaded(b, series_step(shape, steps - 1), "step -1")


def roundtrip() -> None:
    dart.init()
    folder = Path(sys.argv[2])
    path = folder / f"all-{dart.size()}.h5"
    write_all(path, dart.size())
    check_all(path, dart.size())
    # "a": one more step and a dataset; the file keeps the rest
    shape = (4 * dart.size() + 1, 6)
    with dart.h5.File(path, "a") as f, dart.Array(shape, np.float32) as a:
        a.scatter(series_step(shape, 3))
        f.append("T", a)
        f["extra"] = a
    with dart.h5.File(path) as f:
        assert f["T"].shape == (4,) + shape
        with f["T"].read(step=3) as b:
            check_loaded(b, series_step(shape, 3), "appended step")
    check_all(path, dart.size(), 4)
    done("h5_files_roundtrip")
    dart.exit()


def reload() -> None:
    """Reads the files of other jobs (argv[3:]: their unit counts)."""
    dart.init()
    folder = Path(sys.argv[2])
    for n in sys.argv[3:]:
        check_all(folder / f"all-{n}.h5", int(n), 4)  # (roundtrip appended a 4th step)
    done("h5_files_reload")
    dart.exit()


def refused(match: str, fn, *args, **kw) -> None:
    e = raises(dart.DartError, fn, *args, **kw)
    assert match in str(e), (match, str(e))
    assert same_everywhere(str(e)), f"the units' messages differ: {e}"


def refusals() -> None:
    dart.init()
    n = dart.size()
    folder = Path(sys.argv[2])
    good, text = folder / "good.h5", folder / "text.h5"
    if dart.myid() == 0:
        text.write_text("not HDF5 at all, but long enough to be looked at")
    dart.barrier()
    refused("No such file", dart.h5.File, folder / "missing.h5")
    refused("is not an HDF5 file", dart.h5.File, text)
    refused("is not an HDF5 file", dart.h5.File, text, "a")
    refused("does not exist", dart.h5.File, folder / "no" / "x.h5", "w")
    refused("mode 'q'", dart.h5.File, good, "q")
    with dart.Array((n, 3), np.int32) as a:
        a.interior[...] = 7
        with dart.h5.File(good, "w") as f:
            f["T"] = a
            f.attrs["units"] = "K"
        dart.barrier()
        before = good.read_bytes()
        with dart.h5.File(good) as f:
            refused("has no dataset 'U'", dart.Array.from_h5, f, "U")
            refused("holds int32, not float64", dart.Array.from_h5, f, "T", dtype=np.float64)
            refused("has 2 dimensions, not 1", dart.Array.from_h5, f, "T", halo=[1])
            if n > 1:
                refused("is wider than the block", dart.Array.from_h5, f, "T", halo=2)
            refused("has no attribute 'time'", lambda: f.attrs["time"])
            refused("is open read-only", f.write, "V", a)
        # "w": a failed call (the name exists) makes the close fail; the old file stays
        f = dart.h5.File(good, "w")
        f["T"] = a
        refused("has a dataset 'T' already", f.write, "T", a)
        refused("an earlier call failed", f.close)
        dart.barrier()
        assert good.read_bytes() == before, "the old file changed"
        # "a": refused on every unit, the file stays readable
        with dart.h5.File(good, "a") as f:
            refused("has a dataset 'T' already", f.write, "T", a)
            refused("is not a time series", f.append, "T", a)
        with dart.h5.File(good) as f, dart.Array.from_h5(f, "T") as b:
            assert (b.interior == 7).all()
    dart.barrier()
    if dart.myid() == 0:
        assert listing(folder) == ["good.h5", "text.h5"], listing(folder)
    done("h5_files_refusals")
    dart.exit()


def full() -> None:
    """RLIMIT_FSIZE of 64 KiB on every unit (EFBIG, SIGXFSZ ignored) and a file that needs
    more: the write or the close raises on every unit with one message, the old file keeps
    its bytes, no temporary file is left; with room again the write works."""
    import resource
    import signal

    dart.init()
    me, n = dart.myid(), dart.size()
    folder = Path(sys.argv[2])
    ck = folder / "checkpoint.h5"
    shape = (256 * n, 64)  # 128 KiB per unit
    with dart.Array(shape, np.float64, halo=1) as a:
        a.interior[...] = 1.0 + me
        with dart.h5.File(ck, "w") as f:
            f["T"] = a
        dart.barrier()
        old = ck.read_bytes()
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, limit[1]))
        failed = None
        try:
            f = dart.h5.File(ck, "w")
            try:
                f["T"] = a
                f.attrs["time"] = 1.0
            except dart.DartError as e:
                failed = e
            try:
                f.close()
            except dart.DartError as e:
                failed = failed or e
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        assert failed is not None, "a file beyond RLIMIT_FSIZE was written"
        assert same_everywhere(str(failed)), f"the units' messages differ: {failed}"
        dart.barrier()
        if me == 0:
            assert ck.read_bytes() == old, "the old file changed"
            assert listing(folder) == ["checkpoint.h5"], listing(folder)
        a.interior[...] = 5.0
        with dart.h5.File(ck, "w") as f:
            f["T"] = a
        with dart.h5.File(ck) as f, dart.Array.from_h5(f, "T") as b:
            assert (b.interior == 5.0).all()
    done("h5_files_full")
    dart.exit()


if __name__ == "__main__":
    main({"roundtrip": roundtrip, "reload": reload, "refusals": refusals, "full": full})
