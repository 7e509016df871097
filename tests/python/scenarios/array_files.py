# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.Array.save and dart.Array.load on several units (issue 29; the tests are in
test_array_files.py): round trips with other decompositions, a load on a sub-team, files
of another job, every refusal of a load and every failed save on every unit, and the
DART_FAULT=file_write hook.

Every case gets its folder as the argument after the case name (pytest's tmp_path).
The reference of a file is NumPy: ``np.save`` of the gathered array (byte for byte) and
``np.load`` of the file.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import numpy as np
from _helpers import done, main, raises, same
from arrays import grid_of, oversubscribed, values

import dartpy as dart

# The dtypes of .npy files of DART arrays: every DART basic type and the complex types
# (bool, uint8, uint16 and float16 are moved as int8/int16 and have no file of their own).
FILE_DTYPES = [
    np.int8,
    np.int16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float32,
    np.float64,
    np.longdouble,
    np.complex64,
    np.complex128,
    np.clongdouble,
]


def npy_bytes(x: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, x)
    return buf.getvalue()


def is_np_save(data: bytes, x: np.ndarray) -> bool:
    """data is the file np.save writes for x, byte for byte. Except, for long double
    (x87: 10 bytes of value in 16), the 6 padding bytes of every value, which hold
    whatever the memory held and which a transfer of MPI_LONG_DOUBLE need not copy."""
    want = npy_bytes(x)
    if len(data) != len(want):
        return False
    if (
        x.dtype not in (np.dtype(np.longdouble), np.dtype(np.clongdouble))
        or np.finfo(np.longdouble).nmant != 63
    ):
        return data == want
    head = len(want) - x.nbytes
    mask = np.tile(np.arange(16) < 10, x.nbytes // 16)
    got, ref = (np.frombuffer(b[head:], np.uint8) for b in (data, want))
    return data[:head] == want[:head] and bool(np.array_equal(got[mask], ref[mask]))


def field(shape, dt, seed: int = 0) -> np.ndarray:
    """The reference array of a case: exact values of its dtype by global index."""
    return values(np.arange(int(np.prod(shape))).reshape(shape), seed, np.dtype(dt))


def block_of(a: dart.Array) -> tuple:
    return tuple(slice(lo, hi) for lo, hi in zip(a.lo, a.hi))


def check_loaded(b: dart.Array, ref: np.ndarray, what: str) -> None:
    """b holds ref in its interior and zero in its ghosts (as after a load)."""
    assert b.shape == ref.shape and b.dtype == ref.dtype, (what, b.shape, b.dtype)
    assert same(b.interior.copy(), ref[block_of(b)]), f"unit {dart.myid()}: {what}: interior"
    ghosts = np.ones(b.local.shape, bool)
    ghosts[tuple(slice(h[0], h[0] + hi - lo) for h, lo, hi in zip(b.halo, b.lo, b.hi))] = False
    assert not b.local[ghosts].any(), f"unit {dart.myid()}: {what}: ghosts not zero"


def check_update(b: dart.Array, ref: np.ndarray, what: str) -> None:
    """After update_halo of a loaded periodic box-stencil array, every point of the local
    block (ghosts too) is the wrapped point of ref."""
    b.update_halo()
    idx = np.ix_(
        *[np.arange(lo - h[0], hi + h[1]) % n for lo, hi, h, n in zip(b.lo, b.hi, b.halo, b.shape)]
    )
    assert same(b.local.copy(), ref[idx]), f"unit {dart.myid()}: {what}: ghosts after update"


def same_everywhere(text: str) -> bool:
    """Collective: every unit has the same text (its first 1000 bytes)."""
    mine = np.frombuffer(text.encode()[:1000].ljust(1000, b"\0"), np.uint8)
    all_ = np.zeros(1000 * dart.size(), np.uint8)
    dart.allgather(mine, all_)
    return all(
        np.array_equal(all_[u * 1000 : (u + 1) * 1000], all_[:1000]) for u in range(dart.size())
    )


def in_step(tag: int) -> None:
    got = np.zeros(1, np.int64)
    dart.allreduce(np.array([tag], np.int64), got, dart.OP_SUM)
    assert got[0] == tag * dart.size(), (tag, got)


def listing(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir())


# ---------------------------------------------------------------------------------------


def roundtrip_cases(n: int) -> list:
    """(shape, dtype, creation kw, load kw): ndim 1-4, every file dtype, odd extents
    (uneven default blocks), ghosts and periodic boundaries on either side, the load on
    another grid where the file has the points for it (all units along the last
    dimension) and given uneven blocks."""
    cases = []
    k = 0
    for nd in range(1, dart.ARRAY_MAX_DIMS + 1):
        grid = grid_of(n, nd)
        for variant in range(3):
            dt = FILE_DTYPES[k % len(FILE_DTYPES)]
            shape = tuple(grid[d] * (2 + (k + d) % 3) + (d + variant) % 2 for d in range(nd))
            kw = dict(
                halo=[(variant % 2, (d + variant) % 2) for d in range(nd)],
                boundary=["periodic" if (d + k) % 2 else "none" for d in range(nd)],
                exchange=("get", "notify")[k % 2],
            )
            other = tuple(1 for _ in range(nd - 1)) + (n,)
            load = dict(
                halo=1,
                boundary="periodic",
                stencil="box",
                exchange=("notify", "get")[k % 2],
                dtype=dt if k % 2 else None,
            )
            if shape[-1] >= 2 * n:
                load["procs"] = other
            cases.append((shape, dt, kw, load))
            k += 1
    # given uneven blocks, 2 and 5 points along dimension 0
    rows = [2 if u % 2 == 0 else 5 for u in range(n)]
    cases.append(
        (
            (sum(rows), 5),
            np.float64,
            dict(blocks=[rows, [5]], halo=(2, 0)),
            dict(blocks=[rows[::-1], [5]], halo=[(2, 2), 1], boundary="periodic", stencil="box"),
        )
    )
    return cases


def roundtrip() -> None:
    """Create, fill, save; the file is np.save of the gathered array (unit 0 compares the
    bytes) and np.load reads it; load it with another decomposition, ghosts and dtype
    argument (interiors exact, ghosts zero, a periodic box update fills every ghost);
    save the loaded array again: the same bytes. Then a sub-team of the first n - 1 units
    loads a file with given uneven blocks. Oversubscribed, every third case (another
    third per placement)."""
    dart.init()
    folder = Path(sys.argv[2])
    me, n = dart.myid(), dart.size()
    cases = roundtrip_cases(n)
    step = 3 if oversubscribed() else 1
    for k in range((n + int(os.environ.get("DART_UNITS_PER_NODE") or 0)) % step, len(cases), step):
        shape, dt, kw, load = cases[k]
        what = f"case {k}: {np.dtype(dt).name} {shape} {kw} -> {load}"
        ref = field(shape, dt, k)
        path = folder / f"rt{k}.npy"
        with dart.Array(shape, dt, **kw) as a:
            a.local[...] = ref.flat[0]  # the ghosts too: they are not in the file
            a.interior[...] = ref[block_of(a)]
            a.save(path if k % 3 else str(path))
            got = a.gather()
        if me == 0:
            assert is_np_save(path.read_bytes(), got), f"{what}: not np.save's bytes"
            assert same(np.load(path), ref), what
        with dart.Array.load(path, **load) as b:
            check_loaded(b, ref, what)
            if b.boundary[0] == "periodic" and b.stencil == "box":
                check_update(b, ref, what)
            b.save(folder / f"again{k}.npy")
        dart.barrier()
        if me == 0:
            assert is_np_save((folder / f"again{k}.npy").read_bytes(), np.load(path)), what
    # a sub-team of fewer units loads what all units saved, with given uneven blocks
    m = max(1, n - 1)
    grp = dart.Group()
    for u in range(m):
        grp.addmember(u)
    team = dart.team_create(dart.TEAM_ALL, grp)
    ref = field((13, 4), np.float64, 99)
    with dart.Array(ref.shape, halo=1) as a:
        a.interior[...] = ref[block_of(a)]
        a.save(folder / "sub.npy")
    if team is not None and team != dart.TEAM_NULL:
        rows = [c + 1 for c in range(m - 1)]
        rows.append(13 - sum(rows))
        with dart.Array.load(
            folder / "sub.npy", team=team, blocks=[rows, [4]], halo=[(1, 0), 0]
        ) as b:
            assert b.team == team and b.procs == (m, 1)
            check_loaded(b, ref, "sub-team")
        team.destroy()
    dart.barrier()
    if me == 0:
        assert not [p for p in listing(folder) if "dart-tmp" in p], listing(folder)
    done("array_files_roundtrip")
    dart.exit()


def reload() -> None:
    """Load every .npy file of the folder (written by other jobs, on other numbers of
    units) on this job's units, periodic with ghosts of 1 (box): the interiors are
    np.load's, the ghosts zero, and an update fills every ghost from the wrapped file."""
    dart.init()
    files = sorted(Path(sys.argv[2]).glob("*.npy"))
    assert files, "no files to load"
    for path in files:
        ref = np.load(path)
        with dart.Array.load(path, halo=1, boundary="periodic", stencil="box") as b:
            check_loaded(b, ref, path.name)
            check_update(b, ref, path.name)
    done("array_files_reload")
    dart.exit()


# ---------------------------------------------------------------------------------------


def bad_files(folder: Path, n: int, write: bool = False) -> list:
    """(name, code, what the message says) of the files in `folder` a load must refuse
    (with `write`, writes them, and good.npy and small.npy). Also used in-process by
    test_array_files.py (one unit)."""
    good = np.arange(7, dtype=np.int32)
    ok = npy_bytes(good)
    fortran = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    files = {
        "text.npy": (b"just some text, long enough to be read", "not a .npy file"),
        "short.npy": (b"\x93NU", "not a .npy file"),
        "trunc-data.npy": (ok[:-3], "truncated"),
        "trunc-head.npy": (ok[:30], "truncated"),
        "version.npy": (ok[:6] + b"\x09\x00" + ok[8:], "format version"),
        "fortran.npy": (npy_bytes(fortran), "fortran_order: True"),
        "bool.npy": (npy_bytes(good > 3), "cannot hold"),
        "uint8.npy": (npy_bytes(good.astype(np.uint8)), "cannot hold"),
        "uint16.npy": (npy_bytes(good.astype(np.uint16)), "cannot hold"),
        "float16.npy": (npy_bytes(good.astype(np.float16)), "cannot hold"),
        "bigendian.npy": (npy_bytes(good.astype(">i4")), "cannot hold"),
        "unicode.npy": (npy_bytes(np.array(["ab", "c"])), "cannot hold"),
        "struct.npy": (npy_bytes(np.zeros(3, [("a", "<i4"), ("b", "<f8")])), "not one DART reads"),
        "scalar.npy": (npy_bytes(np.float64(1.5)), "0-dimensional"),
        "five.npy": (npy_bytes(np.zeros((1, 1, 1, 1, 2))), "5-dimensional"),
        "empty.npy": (npy_bytes(np.zeros((0, 3))), "extent 0"),
    }
    obj = io.BytesIO()
    np.save(obj, np.array([1, None], dtype=object), allow_pickle=True)
    files["object.npy"] = (obj.getvalue(), "cannot hold")
    if write:
        for name, (content, _) in files.items():
            (folder / name).write_bytes(content)
        (folder / "good.npy").write_bytes(ok)
        (folder / "small.npy").write_bytes(npy_bytes(np.zeros((max(1, n - 1), 5))))
    out = [(name, dart.ERR_INVAL, phrase) for name, (_, phrase) in files.items()]
    out += [("missing.npy", dart.ERR_OTHER, "cannot open"), (".", dart.ERR_OTHER, "cannot read")]
    return out


def refused_loads(folder: Path, n: int) -> list:
    """(path, load kw, what the message says) of loads that every unit must refuse with
    DartError ERR_INVAL: the bad files, then good files the arguments do not fit."""
    out = [
        (folder / name, {}, phrase)
        for name, code, phrase in bad_files(folder, n)
        if code == dart.ERR_INVAL
    ]
    good, small = folder / "good.npy", folder / "small.npy"
    out += [
        (good, dict(dtype=np.float32), "holds dtype '<i4', not '<f4'"),
        (good, dict(dtype=np.uint32), "holds dtype '<i4', not '<u4'"),
        (good, dict(halo=[1, 1]), "holds a 1-dimensional array, not 2"),
        (good, dict(boundary=["none"] * 3), "holds a 1-dimensional array, not 3"),
        (good, dict(blocks=[[2] * n]), "sum to"),
        (good, dict(halo=8, boundary="periodic"), "wider than the block"),
    ]
    if n > 1:
        out.append((small, dict(procs=(n, 1)), f"has {n - 1} points but {n} processes"))
    return out


def refusals() -> None:
    """Every refusal of a load on every unit (DartError, one message everywhere, nothing
    created); a bad argument on one unit (ValueError/TypeError there, DartError
    elsewhere); saves that cannot happen (no folder, a directory as the path, a
    read-only folder, /proc, different paths, a bad path on one unit, a dtype no file
    holds): every unit raises, no temporary file is left, old files keep their bytes."""
    dart.init()
    me, n = dart.myid(), dart.size()
    last = n - 1
    folder = Path(sys.argv[2])
    readonly = None if sys.argv[3] == "-" else Path(sys.argv[3])  # (none could be made)
    if me == 0:
        bad_files(folder, n, write=True)
    dart.barrier()
    for i, (path, kw, phrase) in enumerate(refused_loads(folder, n)):
        e = raises(dart.DartError, dart.Array.load, path, **kw, code=dart.ERR_INVAL, match=phrase)
        assert same_everywhere(str(e)), f"{path.name} {kw}: the units' messages differ"
        in_step(i)
    for path, phrase in ((folder / "missing.npy", "cannot open"), (folder, "cannot read")):
        e = raises(dart.DartError, dart.Array.load, path, code=dart.ERR_OTHER, match=phrase)
        assert same_everywhere(str(e)), f"{path}: the units' messages differ"
    assert dart._core._live_views() == 0
    good = folder / "good.npy"
    theirs = dict(code=dart.ERR_INVAL, match=f"another unit failed: unit {last} of team 0")
    if n > 1:
        # a bad argument on the last unit: its own error there, DartError elsewhere
        for exc, msg, kw in [
            (ValueError, "must be >= 0", dict(halo=-1)),
            (ValueError, "'boundary' is 'wrap'", dict(boundary="wrap")),
            (TypeError, "'dtype'", dict(dtype=np.bool_)),
            (TypeError, "'dtype'", dict(dtype=object)),
            (ValueError, "'halo' has 5 entries", dict(halo=[1] * 5)),
            (ValueError, "does not fit", dict(procs=(n + 1,))),
        ]:
            if me == last:
                raises(exc, dart.Array.load, good, **kw, match=msg)
            else:
                raises(dart.DartError, dart.Array.load, good, **theirs)
            in_step(100)
        # a dtype of the last unit that is not the file's: DartError everywhere
        raises(
            dart.DartError,
            dart.Array.load,
            good,
            dtype=np.float32 if me == last else None,
            code=dart.ERR_INVAL,
        )
        in_step(101)
        # a bad path on the last unit, then on unit 0: NULL for the core
        for bad in (last, 0):
            if me == bad:
                raises(TypeError, dart.Array.load, 3.5, match="'path'")
            else:
                raises(
                    dart.DartError,
                    dart.Array.load,
                    good,
                    code=dart.ERR_INVAL,
                    match=f"another unit failed: unit {bad} of team 0: refused by the binding: dartpy.Array.load: argument 'path'",
                )
            in_step(102)
        # another file on the last unit
        raises(
            dart.DartError,
            dart.Array.load,
            folder / "small.npy" if me == last else good,
            code=dart.ERR_INVAL,
            match="passed different arguments",
        )
        in_step(103)
    # the units' arguments are their own in a load: the same refusal everywhere
    raises(ValueError, dart.Array.load, good, halo=-1, match="must be >= 0")
    raises(ValueError, dart.Array.load, "", match="empty")
    raises(TypeError, dart.Array.load, None, match="'path'")
    in_step(103)

    # saves that cannot happen
    ck = folder / "ck.npy"
    adir = folder / "adir"
    if me == 0:
        ck.write_bytes(b"the old checkpoint")
        adir.mkdir()
        (adir / "keep").write_bytes(b"k")
    dart.barrier()
    before = listing(folder)
    ro_before = listing(readonly) if readonly else []
    ro_old = {p: (readonly / p).read_bytes() for p in ro_before}
    with dart.Array((3 * n, 4), np.float64, halo=1) as a:
        a.interior[...] = 1.5
        for path, code, phrase in [
            (folder / "nofolder" / "x.npy", dart.ERR_INVAL, "does not exist"),
            (adir, dart.ERR_INVAL, "is a directory"),
            (Path("/proc/dartpy-test.npy"), dart.ERR_OTHER, "MPI_File_open"),
        ] + ([(readonly / "ck.npy", dart.ERR_OTHER, "not writable")] if readonly else []):
            e = raises(dart.DartError, a.save, path, code=code, match=phrase)
            assert same_everywhere(str(e)), f"save to {path}: the units' messages differ"
        if n > 1:
            raises(
                dart.DartError,
                a.save,
                folder / ("b.npy" if me == 1 else "a.npy"),
                code=dart.ERR_INVAL,
                match="different arguments",
            )
            if me == last:
                raises(TypeError, a.save, 7, match="'path'")
            else:
                raises(
                    dart.DartError,
                    a.save,
                    ck,
                    code=dart.ERR_INVAL,
                    match=f"failed on unit {last} of team 0: path is NULL or empty",
                )
        raises(ValueError, a.save, "", match="empty")
        in_step(200)
        a.save(ck)  # a save that works replaces the old file, and loads
        got = a.gather()
    with dart.Array.load(ck, halo=1, boundary="periodic", stencil="box") as b:
        check_loaded(b, np.full((3 * n, 4), 1.5), "the saved checkpoint")
        check_update(b, np.full((3 * n, 4), 1.5), "the saved checkpoint")
    with dart.Array(n, np.bool_) as flags:
        raises(TypeError, flags.save, folder / "bool.npy", match="cannot hold bool")
    dart.barrier()
    if me == 0:
        assert ck.read_bytes() == npy_bytes(got)
        assert listing(folder) == before, (listing(folder), before)
        assert listing(adir) == ["keep"]
        assert (listing(readonly) if readonly else []) == ro_before
        assert all((readonly / p).read_bytes() == b for p, b in ro_old.items())
    done("array_files_refusals")
    dart.exit()


def fault() -> None:
    """DART_FAULT=file_write:<unit> in the job's environment: the first save's write
    fails on that unit after its data went out. The save fails on every unit with one
    message (ERR_OTHER), the old checkpoint keeps its bytes and no temporary file is
    left; the next save works."""
    dart.init()
    me, n = dart.myid(), dart.size()
    folder = Path(sys.argv[2])
    ck = folder / "checkpoint.npy"
    old = npy_bytes(np.arange(5.0))
    if me == 0:
        ck.write_bytes(old)
    dart.barrier()
    with dart.Array((4 * n, 3), np.float64, halo=1) as a:
        a.interior[...] = np.arange(a.interior.size).reshape(a.interior.shape) + 10.0 * me
        e = raises(
            dart.DartError, a.save, ck, code=dart.ERR_OTHER, match="fault injected by DART_FAULT"
        )
        assert same_everywhere(str(e)), "the units' messages differ"
        dart.barrier()
        if me == 0:
            assert ck.read_bytes() == old, "the old checkpoint changed"
            assert listing(folder) == ["checkpoint.npy"], listing(folder)
        a.save(ck)
        got = a.gather()
    dart.barrier()
    if me == 0:
        assert ck.read_bytes() == npy_bytes(got)
        assert listing(folder) == ["checkpoint.npy"], listing(folder)
    done("array_files_fault")
    dart.exit()


def full() -> None:
    """A save that the file system takes only in part (issue 34): "fsize", every unit's
    RLIMIT_FSIZE at 4096 bytes with SIGXFSZ ignored (the writer gets EFBIG, as a full
    disk or quota gives ENOSPC or EDQUOT); "tmpfs", the folder (argv[2]) a tmpfs too small
    for the file (ENOSPC). Every unit raises one DartError naming the path and the file
    system's errno text, the old checkpoint keeps its bytes and no temporary
    file is left; with room again the next save works."""
    import resource
    import signal

    dart.init()
    me, n = dart.myid(), dart.size()
    folder, mode = Path(sys.argv[2]), sys.argv[3]
    ck = folder / "checkpoint.npy"
    old = npy_bytes(np.arange(4.0).reshape(2, 2) + 0.5)
    if me == 0:
        ck.write_bytes(old)
    dart.barrier()
    shape = (512 * n, 16) if mode == "tmpfs" else (64 * n, 16)  # 64 KiB / 8 KiB per unit
    with dart.Array(shape, np.float64, halo=1) as a:
        a.interior[...] = np.arange(a.interior.size).reshape(a.interior.shape) + 1000.0 * me
        limit = None
        if mode == "fsize":
            limit = resource.getrlimit(resource.RLIMIT_FSIZE)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, limit[1]))
        try:
            e = raises(dart.DartError, a.save, ck, code=dart.ERR_OTHER)
        finally:
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        why = "File too large" if mode == "fsize" else "No space left on device"
        assert why in str(e) and str(ck) in str(e), str(e)
        assert same_everywhere(str(e)), "the units' messages differ"
        dart.barrier()
        if me == 0:
            assert ck.read_bytes() == old, "the old checkpoint changed"
            assert listing(folder) == ["checkpoint.npy"], listing(folder)
        if mode == "fsize":  # room again: the save works
            a.save(ck)
            got = a.gather()
            dart.barrier()
            if me == 0:
                assert ck.read_bytes() == npy_bytes(got)
    done("array_files_full")
    dart.exit()


def racing_load() -> None:
    """Loads while unit 0 cuts the file short or deletes it at a random moment (issue
    34): each load either gives the file's values on every unit or raises one DartError
    on every unit, never zeros or stale bytes; ROUNDS rounds (argv[3])."""
    import random
    import threading
    import time

    dart.init()
    me, n = dart.myid(), dart.size()
    folder, rounds = Path(sys.argv[2]), int(sys.argv[3])
    ref = np.arange(64 * n * 32, dtype=np.float64).reshape(64 * n, 32) + 0.25
    data = npy_bytes(ref)
    path = folder / "racing.npy"
    rng = random.Random(12345)
    outcomes = {"loaded": 0, "refused": 0}
    for rnd in range(rounds):
        if me == 0:
            path.write_bytes(data)
        dart.barrier()
        cut = None
        if me == 0:
            delay, how = rng.choice([0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.5]), rnd % 2

            def cut_it():
                time.sleep(delay)
                if how:
                    os.truncate(path, len(data) // 3)
                else:
                    path.unlink()

            cut = threading.Thread(target=cut_it)
            cut.start()
        try:
            b = dart.Array.load(path, halo=1)
        except dart.DartError as e:
            assert same_everywhere(str(e)), f"round {rnd}: the units' messages differ"
            outcomes["refused"] += 1
        else:
            with b:
                mine = b.interior
                blk = ref[tuple(slice(lo, hi) for lo, hi in zip(b.lo, b.hi))]
                assert same(mine, blk), f"round {rnd}: unit {me} loaded wrong values"
                del mine
            ok = np.zeros(1, np.int64)
            dart.allreduce(np.ones(1, np.int64), ok, dart.OP_SUM)
            assert ok[0] == n
            outcomes["loaded"] += 1
        if cut is not None:
            cut.join()
        in_step(rnd)
    if me == 0:
        sys.stdout.write(f"racing_load outcomes: {outcomes}\n")
    done("array_files_racing_load")
    dart.exit()


def long_name() -> None:
    """A save and a load of a file whose base name has 200 characters (issue 34: Open MPI's
    shared-file-pointer component "sm" named a file of its own after the temporary file's
    base name and printed "unable to open file for mmap")."""
    dart.init()
    path = Path(sys.argv[2]) / ("c" * 196 + ".npy")
    with dart.Array((8 * dart.size(), 5), np.float64, halo=1) as a:
        a.interior[...] = dart.myid() + 0.5
        a.save(path)
        got = a.gather()
    with dart.Array.load(path) as b:
        ref = b.gather()
    if dart.myid() == 0:
        assert same(got, ref) and same(np.load(path), ref)
    done("array_files_long_name")
    dart.exit()


if __name__ == "__main__":
    main(
        {
            "roundtrip": roundtrip,
            "reload": reload,
            "refusals": refusals,
            "fault": fault,
            "full": full,
            "racing_load": racing_load,
            "long_name": long_name,
        }
    )
