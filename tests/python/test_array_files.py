# SPDX-License-Identifier: BSD-3-Clause
"""Array files (issue 29): dart.Array.save and dart.Array.load. In-process tests on one
unit (this pytest process), and the scenarios of scenarios/array_files.py under mpiexec:
round trips on 2-4 units with and without emulation, a save on N units loaded on M in
separate jobs, every refusal and failed save on every unit, and the DART_FAULT hook."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from launcher import SCENARIOS, placements, scenario

import dartpy as dart

sys.path.append(str(SCENARIOS))
import array_files  # noqa: E402  (the scenarios' cases and checks, shared with them)
from _helpers import same  # noqa: E402

FILE_DTYPES = array_files.FILE_DTYPES
field, is_np_save = array_files.field, array_files.is_np_save
check_loaded = array_files.check_loaded


class PathLike:
    def __init__(self, p):
        self.p = p

    def __fspath__(self):
        return self.p


# ---------------------------------------------------------------------------------------
# one unit, in this process
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FILE_DTYPES, ids=lambda t: np.dtype(t).name)
def test_round_trips_every_dtype_and_ndim(d, dtype, tmp_path):
    """ndim 1-4, odd extents: the file is np.save's (this NumPy, header padding
    included), np.load reads it, and a load gives the values back with ghosts zero."""
    for nd in range(1, d.ARRAY_MAX_DIMS + 1):
        shape = (7, 2, 4, 3)[:nd]
        ref = field(shape, dtype, nd)
        path = tmp_path / f"x{nd}.npy"
        with d.Array(shape, dtype, halo=[(1, 2)] * nd, boundary="periodic") as a:
            a.local[...] = ref.flat[-1]
            a.interior[...] = ref
            a.save(path)
        assert is_np_save(path.read_bytes(), ref)
        assert same(np.load(path), ref)
        with d.Array.load(path, halo=1, stencil="box", boundary="periodic") as b:
            assert (b.shape, b.dtype, b.halo, b.stencil) == (
                shape,
                np.dtype(dtype),
                ((1, 1),) * nd,
                "box",
            )
            check_loaded(b, ref, str(shape))
            array_files.check_update(b, ref, str(shape))
        with d.Array.load(path, dtype=dtype) as b:
            assert same(b[...], ref)


def test_header_is_numpys_for_every_length(d, tmp_path):
    """np.save pads the header for the first extent to grow in place (21 digits) and to
    a multiple of 64 bytes: shapes whose first extent has 1 to 6 digits, any ndim."""
    for shape in [
        (1,),
        (9,),
        (10,),
        (123, 2),
        (4567, 1, 3),
        (100003,),
        (2, 3, 4, 5),
        (1, 1, 1, 1),
        (31, 1),
        (999, 1000),
    ]:
        ref = field(shape, np.float64)
        path = tmp_path / "h.npy"
        with d.Array(shape, halo=1) as a:
            a.scatter(ref)
            a.save(path)
        assert is_np_save(path.read_bytes(), ref), shape
        assert path.read_bytes()[:6] == b"\x93NUMPY"


def test_paths_str_bytes_pathlike(d, tmp_path, monkeypatch):
    ref = field((3, 4), np.int32)
    monkeypatch.chdir(tmp_path)
    with d.Array(ref.shape, np.int32) as a:
        a.scatter(ref)
        for p in (
            str(tmp_path / "s.npy"),
            os.fsencode(tmp_path / "b.npy"),
            tmp_path / "p.npy",
            PathLike(str(tmp_path / "l.npy")),
            "rel.npy",
            tmp_path / "é ü.npy",
        ):
            a.save(p)
            with d.Array.load(p) as b:
                assert same(b[...], ref)
        # saving over an existing file replaces it
        (tmp_path / "old.npy").write_bytes(b"old")
        a.save(tmp_path / "old.npy")
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted(
        ["s.npy", "b.npy", "p.npy", "l.npy", "rel.npy", "é ü.npy", "old.npy"]
    )
    assert is_np_save((tmp_path / "old.npy").read_bytes(), ref)


def test_load_arguments(d, tmp_path):
    """The decomposition arguments of Array(); ndim from the per-dimension ones; the dtype
    the file's (LONG and LONGLONG files are both int64)."""
    ref = field((6, 5, 4), np.int64)
    np.save(tmp_path / "i8.npy", ref)
    with d.Array.load(
        tmp_path / "i8.npy",
        halo=[(1, 0), 2, (0, 3)],
        boundary=["periodic", "none", "periodic"],
        stencil="box",
        procs=(1, 1, 0),
        exchange="notify",
    ) as b:
        assert (b.shape, b.dtype, b.procs, b.halo, b.boundary, b.stencil, b.exchange) == (
            (6, 5, 4),
            np.int64,
            (1, 1, 1),
            ((1, 0), (2, 2), (0, 3)),
            ("periodic", "none", "periodic"),
            "box",
            "notify",
        )
        check_loaded(b, ref, "i8")
    with d.Array.load(tmp_path / "i8.npy", dtype=np.longlong, blocks=[[6], [5], [4]]) as b:
        assert b.dtype == np.int64 and same(b[...], ref)
    np.save(tmp_path / "c.npy", ref.astype(np.complex64) * 1j)
    with d.Array.load(str(tmp_path / "c.npy"), dtype="complex64") as b:
        assert same(b[...], ref.astype(np.complex64) * 1j)


def test_load_refusals(d, tmp_path):
    """Each refusal: DartError with the code and the reason, nothing created."""
    held = d._core._type_cache_size()[1]
    bad = array_files.bad_files(tmp_path, 1, write=True)
    for name, code, phrase in bad:
        with pytest.raises(d.DartError, match=phrase) as e:
            d.Array.load(tmp_path / name)
        assert e.value.code == code, name
    for path, kw, phrase in array_files.refused_loads(tmp_path, 1):
        with pytest.raises(d.DartError, match=phrase) as e:
            d.Array.load(path, **kw)
        assert e.value.code == d.ERR_INVAL
    assert d._core._live_views() == 0 and d._core._type_cache_size()[1] == held


@pytest.mark.parametrize(
    "exc,match,args,kw",
    [
        (TypeError, "'path' must be a str, bytes or os.PathLike object, not int", (3,), {}),
        (TypeError, "'path'", (None,), {}),
        (ValueError, "'path' is empty", ("",), {}),
        (ValueError, "NUL", ("a\0b.npy",), {}),
        (TypeError, "no .npy file of a DART array holds bool", ("f.npy",), dict(dtype=bool)),
        (TypeError, "holds float16", ("f.npy",), dict(dtype=np.float16)),
        (TypeError, "'dtype'", ("f.npy",), dict(dtype="U3")),
        (ValueError, "'boundary' is 'wrap'", ("f.npy",), dict(boundary="wrap")),
        (ValueError, "must be >= 0", ("f.npy",), dict(halo=[(0, -1), 0])),
        (ValueError, "does not fit", ("f.npy",), dict(procs=(2, 1))),
        (ValueError, "'halo' has 5 entries", ("f.npy",), dict(halo=[1] * 5)),
        (
            ValueError,
            "'boundary' has 3 entries but the array has 2",
            ("f.npy",),
            dict(halo=[1, 1], boundary=["none"] * 3),
        ),
        (
            ValueError,
            "'blocks[1]' has 2 extents but procs[1] is 1",
            ("f.npy",),
            dict(blocks=[[3], [2, 2]], procs=(1, 1)),
        ),
        (TypeError, "'stencil'", ("f.npy",), dict(stencil=1)),
    ],
)
def test_load_bad_arguments(d, tmp_path, monkeypatch, exc, match, args, kw):
    """This unit's bad arguments (without the file): ValueError/TypeError."""
    monkeypatch.chdir(tmp_path)
    np.save("f.npy", np.zeros((3, 4)))
    with pytest.raises(exc, match="^dartpy.Array.load: .*" + re.escape(match)):
        d.Array.load(*args, **kw)
    assert d._core._live_views() == 0


def test_save_refusals(d, tmp_path):
    """Saves that cannot happen raise, leave no file behind and keep what was there."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir" / "keep").write_bytes(b"k")
    before = sorted(p.name for p in tmp_path.iterdir())
    with d.Array((3, 4), halo=1) as a:
        for path, code, phrase in [
            (tmp_path / "no" / "x.npy", d.ERR_INVAL, "does not exist"),
            (tmp_path / "adir", d.ERR_INVAL, "is a directory"),
            ("/proc/dartpy-test.npy", d.ERR_OTHER, "MPI_File_open"),
        ]:
            with pytest.raises(d.DartError, match=phrase) as e:
                a.save(path)
            assert e.value.code == code
        for bad, exc in ((3, TypeError), ("", ValueError), (b"x\0.npy", ValueError)):
            with pytest.raises(exc, match="'path'"):
                a.save(bad)
    for dt in (np.bool_, np.uint8, np.uint16, np.float16):
        with d.Array(4, dt) as a:
            with pytest.raises(TypeError, match=f"cannot hold {np.dtype(dt).name}"):
                a.save(tmp_path / "t.npy")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert [p.name for p in (tmp_path / "adir").iterdir()] == ["keep"]


def test_fault_hook_keeps_the_old_file(tmp_path, monkeypatch):
    """DART_FAULT=file_write:0 on one unit: the first save fails and keeps the old file;
    the next one works."""
    monkeypatch.setenv("DART_FAULT", "file_write:0")
    ck = tmp_path / "ck.npy"
    ck.write_bytes(b"the old checkpoint")
    dart.init()
    try:
        with dart.Array((5, 3), np.float32, halo=1) as a:
            a.interior[...] = 2.5
            with pytest.raises(dart.DartError, match="fault injected by DART_FAULT") as e:
                a.save(ck)
            assert e.value.code == dart.ERR_OTHER
            assert ck.read_bytes() == b"the old checkpoint"
            assert [p.name for p in tmp_path.iterdir()] == ["ck.npy"]
            a.save(ck)
        assert is_np_save(ck.read_bytes(), np.full((5, 3), 2.5, np.float32))
    finally:
        dart.exit()


# ---------------------------------------------------------------------------------------
# several units (scenarios/array_files.py under mpiexec)
# ---------------------------------------------------------------------------------------


def run(case: str, n, upn, prog, *args, timeout=120.0, env=None):
    job = scenario(
        "array_files.py",
        case,
        n,
        upn,
        extra_env=env,
        timeout=timeout,
        args=[str(a) for a in args],
        progress=prog,
    )
    assert job.returncode == 0, job.describe()
    assert job.passes(f"array_files_{case}", n) == n, job.describe()
    return job


# (Progress processes take no part in the file's I/O; the refusals scenario saves and
# loads with them. Oversubscribed, their round trips cost 10 s of the CI run.)
ROUNDTRIP = [p for p in placements([(2, None), (4, 2)]) if p.values[2] == 0]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", ROUNDTRIP)
def test_round_trips(n, upn, prog, tmp_path):
    """ndim 1-4, every file dtype, odd extents and uneven blocks, given blocks; the file
    is np.save's of the gathered array and np.load reads it; loads on other grids, ghosts
    and boundaries (interiors exact, ghosts zero, an update fills them); a sub-team of
    n - 1 units loads a file all units saved, with given uneven blocks."""
    run("roundtrip", n, upn, prog, tmp_path)


@pytest.mark.multiunit
def test_save_on_n_units_load_on_m(d, tmp_path):
    """Files saved by 1 unit (here) and by 3 units (a job, one emulated node per unit)
    are loaded by 2 units (another job) and by 1 (here), with other grids and ghosts."""
    ref = field((5, 6, 7), np.complex128, 7)
    with d.Array(ref.shape, np.complex128, halo=2) as a:
        a.scatter(ref)
        a.save(tmp_path / "one-unit.npy")
    d.exit()  # (no DART in this process while the jobs run)
    run("roundtrip", 3, 1, 0, tmp_path)  # rt*.npy, again*.npy, sub.npy
    run("reload", 2, None, 0, tmp_path)
    d.init()
    files = sorted(tmp_path.glob("*.npy"))
    assert len(files) >= 6, files
    for path in files:
        want = np.load(path)
        with d.Array.load(path, halo=1, boundary="periodic", stencil="box") as b:
            check_loaded(b, want, path.name)
            array_files.check_update(b, want, path.name)
            b.save(tmp_path / "x.out")
        assert is_np_save((tmp_path / "x.out").read_bytes(), want), path.name


def readonly_folder(base: Path):
    """A folder this process cannot create files in, holding one old file, and how it
    was made: as root permission bits do not stop writes, so the immutable flag (chattr
    +i, ext4 and most Linux file systems) or a read-only tmpfs mount; as another user
    chmod 555. None if nothing works here."""
    ro = base / "readonly"
    ro.mkdir()
    (ro / "ck.npy").write_bytes(b"the old checkpoint")
    if os.geteuid() != 0:
        ro.chmod(0o555)
        return ro, "chmod 555", lambda: ro.chmod(0o755)
    if subprocess.run(["chattr", "+i", str(ro)], capture_output=True).returncode == 0:
        return ro, "chattr +i", lambda: subprocess.run(["chattr", "-i", str(ro)], check=True)
    mnt = base / "rotmpfs"
    mnt.mkdir()
    if (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True
        ).returncode
        == 0
    ):
        (mnt / "ck.npy").write_bytes(b"the old checkpoint")
        if (
            subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True).returncode
            == 0
        ):
            return mnt, "read-only tmpfs", lambda: subprocess.run(["umount", str(mnt)], check=True)
        subprocess.run(["umount", str(mnt)], check=False)
    return None, "none", lambda: None


REFUSALS = [(2, None), (3, 1)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", placements(REFUSALS))
def test_refusals_on_every_unit(n, upn, prog, tmp_path):
    """Every refusal of a load raises DartError with one message on every unit, nothing
    created; a bad argument on one unit raises ValueError/TypeError there, DartError
    elsewhere; saves into a missing folder, onto a directory, into a read-only folder,
    into /proc, with different paths or a bad path on one unit fail on every unit and
    leave no temporary file; the old files keep their bytes. No hang (the timeout)."""
    files = tmp_path / "files"
    files.mkdir()
    ro, how, undo = readonly_folder(tmp_path)  # (None: that case is left out)
    try:
        run("refusals", n, upn, prog, files, ro or "-")
    finally:
        undo()


@pytest.mark.multiunit
@pytest.mark.parametrize("n,unit", [(2, 1), (3, 0)])
def test_failed_write_keeps_the_old_checkpoint(n, unit, tmp_path):
    """DART_FAULT=file_write:<unit> in the job's environment fails that unit's write of
    the first save: every unit raises the same DartError, the old checkpoint is intact,
    no temporary file is left, and the next save works."""
    run("fault", n, 1 if n == 3 else None, 0, tmp_path, env={"DART_FAULT": f"file_write:{unit}"})


def small_tmpfs(base: Path, size: str):
    """A tmpfs of `size` mounted at base/full (root only), and how to unmount it; None
    where this machine does not let the test mount one."""
    mnt = base / "full"
    mnt.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], capture_output=True
        ).returncode
        != 0
    ):
        return None, lambda: None
    return mnt, lambda: subprocess.run(["umount", "-l", str(mnt)], check=False)


FULL = [(1, None), (2, None), (3, 1), (4, 2)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", [p for p in placements(FULL) if p.values[2] == 0])
def test_save_beyond_the_file_size_limit_keeps_the_old_file(n, upn, prog, tmp_path):
    """RLIMIT_FSIZE of 4096 bytes on every unit (EFBIG): the save raises on every unit with
    the errno's text and the path, the old checkpoint is intact, no temporary file left
    (issue 34: Open MPI reported success and left a truncated file)."""
    run("full", n, upn, prog, tmp_path, "fsize")


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn", [(2, None), (4, 2)])
def test_save_onto_a_full_tmpfs_keeps_the_old_file(n, upn, tmp_path):
    """A 48 KiB tmpfs that the file overflows (ENOSPC): the same promise."""
    mnt, undo = small_tmpfs(tmp_path, "48k")
    if mnt is None:
        pytest.skip("this machine does not let the test mount a tmpfs (not root?)")
    try:
        run("full", n, upn, 0, mnt, "tmpfs")
    finally:
        undo()


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn", [(2, None), (3, 1)])
def test_load_of_a_file_cut_or_deleted_meanwhile(n, upn, tmp_path):
    """Unit 0 truncates or deletes the file at a random moment of each of 30 loads: every
    load gives the file's values or raises on every unit, never zeros."""
    run("racing_load", n, upn, 0, tmp_path, 30)


@pytest.mark.multiunit
def test_long_file_name_saves_and_loads_quietly():
    """A 200-character base name at 4 units on two emulated nodes: no message of Open MPI's
    shared-file-pointer component, no abort (the temporary file's name is short). The
    folder is short: Open MPI 4.1's component "lockedfile" overflows a 256-byte buffer
    with a whole path of ~240 characters or more (docs/mpi-notes.md)."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="dl", dir="/tmp"))
    try:
        job = run("long_name", 4, 2, 0, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert "sharedfp" not in job.output and "overflow" not in job.output, job.describe()
