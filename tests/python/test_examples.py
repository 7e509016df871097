# SPDX-License-Identifier: BSD-3-Clause
"""The heat examples give the same bytes in every language, unit count, mode and placement.

For heat2d and heat3d, every language's program (examples/python/*.py, the C++ and
Fortran programs built in _build/<mpi>/examples/) runs under mpiexec with 1-4 units, in
every mode (blocking: the distributed arrays' halo update; nonblocking: its begin/end
around the points that need no ghost; notify: the arrays' notified exchange), without and
with DART_UNITS_PER_NODE=1|2 (both the load/store and the MPI RMA
path) and with progress processes (launcher.PROGRESS_PLACEMENTS, marker ``progress``),
and its --out file must equal, byte for byte, np.save of the field computed here by a
plain serial NumPy loop with the same arithmetic (the rules in examples/cpp/heat_common.h).
A few restart chains (--restart FILE on another number of units, across languages) must
give the bytes of the uninterrupted run.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import launcher
import numpy as np
import pytest

REPO = launcher.HERE.parent.parent
BUILD = REPO / "_build" / launcher.FLAVOR / "examples"

# Small grids with sizes that do not divide evenly among 2, 3 and 4 units.
GRIDS = {
    "heat2d": {"nx": 13, "ny": 11, "iters": 6},
    "heat3d": {"nx": 7, "ny": 6, "nz": 5, "iters": 4},
}


def reference(name: str, iters=None) -> bytes:
    """The bytes of np.save of the field after `iters` iterations (default: the grid's)."""
    g = GRIDS[name]
    if name == "heat2d":
        u = np.zeros((g["nx"], g["ny"]))
        u[:, 0] = 0.5
        u[0, :] = 1.0
        for _ in range(g["iters"] if iters is None else iters):
            un = u.copy()
            un[1:-1, 1:-1] = 0.25 * ((u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:]))
            u = un
    else:
        u = np.zeros((g["nx"], g["ny"], g["nz"]))
        u[:, :, 0] = 0.25
        u[:, 0, :] = 0.5
        u[0, :, :] = 1.0
        for _ in range(g["iters"] if iters is None else iters):
            un = u.copy()
            c = u[1:-1, 1:-1, 1:-1]
            lap = (
                (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]) + (u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1])
            ) + (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:])
            un[1:-1, 1:-1, 1:-1] = c + 0.125 * (lap - 6.0 * c)
            u = un
    buf = io.BytesIO()
    np.save(buf, u.astype("<f8"))
    return buf.getvalue()


def difference(got: bytes, want: bytes) -> str:
    """Where the file got differs from want, the .npy file of a float64 field."""
    if not got:
        return "missing file"
    if len(got) != len(want):
        return f"{len(got)} bytes, not {len(want)}"
    first = next(i for i in range(len(want)) if got[i] != want[i])
    data = len(want) - 8 * np.load(io.BytesIO(want)).size
    return (
        f"byte {first}, in the .npy header"
        if first < data
        else f"byte {first}, element {(first - data) // 8}"
    )


def programs(name: str):
    """(language, argv prefix) of every implementation of an example."""
    return [
        ("python", [sys.executable, str(REPO / "examples" / "python" / f"{name}.py")]),
        ("c++", [str(BUILD / name)]),
        ("fortran", [str(BUILD / f"{name}_f")]),
    ]


def case(name, n, upn, prog=0):
    marks = [pytest.mark.progress] if prog else []
    return pytest.param(
        name,
        n,
        upn,
        prog,
        marks=marks,
        id=f"{name}-n{n}-upn{upn or 'none'}" + (f"-prog{prog}" if prog else ""),
    )


# Every unit count and emulation, less the placements of the same shape as another
# (launcher.same_shape_pruned: n2-upn2 is one node as n2; under MPICH n4 and n4-upn1 are
# covered by n3 and n3-upn1): each case runs three languages in three modes.
CASES = [
    case(name, n, upn)
    for name in GRIDS
    for n, upn in launcher.same_shape_pruned(
        [(n, upn) for n in (1, 2, 3, 4) for upn in ((None,) if n == 1 else (None, 1, 2))]
    )
]
CASES += [
    case(name, n, upn, 1)
    for name in GRIDS
    for places in launcher.PROGRESS_PLACEMENTS.values()
    for n, upn in places
]


@pytest.mark.multiunit
@pytest.mark.parametrize("name,n,upn,prog", CASES)
def test_same_bytes(name, n, upn, prog, tmp_path: Path):
    want = reference(name)
    args = [x for k, v in GRIDS[name].items() for x in (f"--{k}", str(v))]
    nprocs, env = launcher.placed(n, upn, prog)
    problems = []
    for lang, prefix in programs(name):
        if not Path(prefix[-1]).exists():
            problems.append(f"{lang}: {prefix[-1]} is not built")
            continue
        for mode in ("blocking", "nonblocking", "notify"):
            out = tmp_path / f"{lang}-{mode}.npy"
            job = launcher.run_job(
                prefix + args + ["--mode", mode, "--out", str(out)], nprocs, env, timeout=120
            )
            if job.returncode != 0:
                problems.append(f"{lang} {mode} failed\n{job.describe()}")
                continue
            if "checksum:" not in job.stdout:
                problems.append(f"{lang} {mode}: no checksum line\n{job.describe()}")
            got = out.read_bytes() if out.exists() else b""
            if got != want:
                problems.append(
                    f"{lang} {mode}: output differs from the reference ({difference(got, want)})"
                )
    assert not problems, "\n".join(problems)


# Restart chains: each step runs the example on other units (language, units,
# DART_UNITS_PER_NODE, mode, iterations) from the file of the step before (the first from
# the initial state); every file must be the reference after all iterations so far.
RESTARTS = {
    "heat2d": [
        ("c++", 3, None, "blocking", 3),
        ("python", 2, 1, "nonblocking", 2),
        ("fortran", 4, 2, "notify", 1),
    ],
    "heat3d": [
        ("fortran", 2, None, "nonblocking", 2),
        ("python", 3, 1, "notify", 1),
        ("c++", 1, None, "blocking", 1),
    ],
}


@pytest.mark.multiunit
@pytest.mark.parametrize("name", list(RESTARTS))
def test_restart_on_other_units_and_languages(name, tmp_path: Path):
    """K1 iterations on N units, then --restart with K2 more on M != N units, in another
    language, give the bytes of K1 + K2 uninterrupted iterations (C++ -> Python ->
    Fortran in 2D, Fortran -> Python -> C++ in 3D)."""
    grid = [x for k, v in GRIDS[name].items() if k != "iters" for x in (f"--{k}", str(v))]
    langs = dict(programs(name))
    done, last = 0, None
    for k, (lang, n, upn, mode, iters) in enumerate(RESTARTS[name]):
        if not Path(langs[lang][-1]).exists():
            pytest.fail(f"{lang}: {langs[lang][-1]} is not built")
        out = tmp_path / f"{k}-{lang}.npy"
        argv = langs[lang] + grid + ["--iters", str(iters), "--mode", mode, "--out", str(out)]
        if last is not None:
            argv += ["--restart", str(last)]
        nprocs, env = launcher.placed(n, upn, 0)
        job = launcher.run_job(argv, nprocs, env, timeout=120)
        assert job.returncode == 0, job.describe()
        done += iters
        want = reference(name, done)
        got = out.read_bytes() if out.exists() else b""
        assert got == want, (
            f"step {k} ({lang} on {n} units after {done} iterations): "
            f"{difference(got, want)}\n{job.describe()}"
        )
        last = out


@pytest.mark.multiunit
def test_restart_refuses_another_field(tmp_path: Path):
    """Every language refuses a --restart file of another shape with the same message,
    and one that is no .npy file, with status 2 (one unit each)."""
    g = GRIDS["heat2d"]
    good, text = tmp_path / "good.npy", tmp_path / "text.npy"
    good.write_bytes(reference("heat2d", 1))
    text.write_bytes(b"no numbers here")
    for lang, prefix in programs("heat2d"):
        for path, nx, msg in (
            (
                good,
                g["nx"] - 1,
                f"heat2d: --restart {good} is not a {g['nx'] - 1} x {g['ny']} field",
            ),
            (text, g["nx"], "is not a .npy file"),
        ):
            job = launcher.run_job(
                prefix
                + ["--nx", str(nx), "--ny", str(g["ny"]), "--iters", "1", "--restart", str(path)],
                1,
                {},
                timeout=60,
            )
            assert job.returncode == 2 and msg in job.stderr, f"{lang}\n{job.describe()}"


def test_python_heat2d_solver_is_short():
    """Issue 28: on dart.Array the Python heat2d solver (solve() and the block parts it
    uses) is at most 60 lines, without offset arithmetic (no gptr, no block or grid
    computation)."""
    src = (REPO / "examples" / "python" / "heat2d.py").read_text()
    solver = src[src.index("# Parts of a block") : src.index("def main")].rstrip().splitlines()
    assert len(solver) <= 60, f"the solver has {len(solver)} lines"
    for word in ("gptr", "dims_create", "block(", "unit_at", "offset"):
        assert word not in "\n".join(solver), word


RING = [pytest.param(n, 1 if n > 2 else None, 0, id=str(n)) for n in (1, 2, 3, 4)]
RING += [
    pytest.param(n, upn, 1, id=f"{n}-upn{upn or 'none'}-prog1", marks=pytest.mark.progress)
    for places in launcher.PROGRESS_PLACEMENTS.values()
    for n, upn in places
]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", RING)
def test_readme_halo_ring(n, upn, prog):
    """The README's ten-line halo exchange, in Python and in Fortran, prints the same."""
    want = sorted(f"unit {u}: ghosts {(u - 1) % n} {(u + 1) % n}" for u in range(n))
    nprocs, env = launcher.placed(n, upn, prog)
    for prefix in (
        [sys.executable, str(REPO / "examples" / "python" / "halo_ring.py")],
        [str(BUILD / "halo_ring_f")],
    ):
        job = launcher.run_job(prefix, nprocs, env, timeout=60)
        assert job.returncode == 0, job.describe()
        # Units print concurrently; Open MPI may forward one unit's text and its newline
        # separately, so lines of different units can run together.
        got = sorted(
            f"unit {u}: ghosts {a} {b}"
            for u, a, b in re.findall(r"unit (\d+): ghosts (\d+) (\d+)", job.stdout)
        )
        assert got == want, job.describe()


def halo_array_lines(n: int) -> list:
    """What examples/*/halo_array print on n units, from the default grid and blocks
    (computed here): each unit's block of the 6 x 8 array and the ghost west of its first
    point, 100 i + j of the point it mirrors (periodic)."""
    import dartpy

    grid = dartpy.array_dims_create(n, 2)

    def starts(points, parts):
        q, r = divmod(points, parts)
        return [c * q + min(c, r) for c in range(parts + 1)]

    rows, cols = starts(6, grid[0]), starts(8, grid[1])
    lines = []
    for u in range(n):
        cx, cy = divmod(u, grid[1])
        i0, i1, j0, j1 = rows[cx], rows[cx + 1], cols[cy], cols[cy + 1]
        lines.append(
            f"unit {u}: rows {i0}..{i1 - 1}, columns {j0}..{j1 - 1}, "
            f"west ghost {100 * i0 + (j0 - 1) % 8}"
        )
    return sorted(lines)


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn,prog", RING)
def test_readme_halo_array(n, upn, prog):
    """The README's first example, a distributed array, in Python and in Fortran, prints
    the same lines (each unit's block and a wrapped ghost)."""
    want = halo_array_lines(n)
    nprocs, env = launcher.placed(n, upn, prog)
    for prefix in (
        [sys.executable, str(REPO / "examples" / "python" / "halo_array.py")],
        [str(BUILD / "halo_array_f")],
    ):
        job = launcher.run_job(prefix, nprocs, env, timeout=60)
        assert job.returncode == 0, job.describe()
        got = sorted(
            re.findall(
                r"unit \d+: rows \d+\.\.\d+, columns \d+\.\.\d+, west ghost -?\d+", job.stdout
            )
        )
        assert got == want, job.describe()


IDENTITY = [(1, None), (2, None), (3, 1), (4, 2)]


@pytest.mark.multiunit
@pytest.mark.parametrize("n,upn", IDENTITY)
def test_reductions_same_bits_in_c_fortran_python(n, upn):
    """examples/{c,fortran,python}/reduce_identity: the sum, min, max, the three norms
    and dot of four double and float fields in 2D and 3D print the same bytes in the three
    languages, and every unit gets them (each program checks that)."""
    nprocs, env = launcher.placed(n, upn, 0)
    outputs = {}
    for lang, prefix in (
        ("c", [str(BUILD / "reduce_identity")]),
        ("fortran", [str(BUILD / "reduce_identity_f")]),
        ("python", [sys.executable, str(REPO / "examples" / "python" / "reduce_identity.py")]),
    ):
        job = launcher.run_job(prefix, nprocs, env, timeout=60)
        assert job.returncode == 0, job.describe()
        outputs[lang] = re.findall(r"^[df][23] \w+ [0-9a-f]+$", job.stdout, re.M)
        assert len(outputs[lang]) == 28, job.describe()
    assert outputs["c"] == outputs["fortran"] == outputs["python"], outputs
