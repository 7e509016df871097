"""The heat examples give the same bytes in every language, unit count, mode and placement.

For heat2d and heat3d, every language's program (examples/python/*.py, the C++ and
Fortran programs built in _build/<mpi>/examples/) runs under mpiexec with 1-4 units, in
every mode (blocking: the distributed arrays' halo update; nonblocking: its begin/end
around the points that need no ghost; notify: the arrays' notified exchange), without and
with DART_UNITS_PER_NODE=1|2 (both the load/store and the MPI RMA
path) and with progress processes (launcher.PROGRESS_PLACEMENTS, marker ``progress``),
and its output file must equal, byte for byte, the field computed here by a plain
serial NumPy loop with the same arithmetic (the rules in examples/cpp/heat_common.h).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import launcher

REPO = launcher.HERE.parent.parent
BUILD = REPO / "_build" / launcher.FLAVOR / "examples"

# Small grids with sizes that do not divide evenly among 2, 3 and 4 units.
GRIDS = {
    "heat2d": {"nx": 13, "ny": 11, "iters": 6},
    "heat3d": {"nx": 7, "ny": 6, "nz": 5, "iters": 4},
}


def reference(name: str) -> bytes:
    g = GRIDS[name]
    if name == "heat2d":
        u = np.zeros((g["nx"], g["ny"]))
        u[:, 0] = 0.5
        u[0, :] = 1.0
        for _ in range(g["iters"]):
            un = u.copy()
            un[1:-1, 1:-1] = 0.25 * ((u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:]))
            u = un
    else:
        u = np.zeros((g["nx"], g["ny"], g["nz"]))
        u[:, :, 0] = 0.25
        u[:, 0, :] = 0.5
        u[0, :, :] = 1.0
        for _ in range(g["iters"]):
            un = u.copy()
            c = u[1:-1, 1:-1, 1:-1]
            lap = (((u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1])
                    + (u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]))
                   + (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]))
            un[1:-1, 1:-1, 1:-1] = c + 0.125 * (lap - 6.0 * c)
            u = un
    return u.astype("<f8").tobytes()


def programs(name: str):
    """(language, argv prefix) of every implementation of an example."""
    return [
        ("python", [sys.executable, str(REPO / "examples" / "python" / f"{name}.py")]),
        ("c++", [str(BUILD / name)]),
        ("fortran", [str(BUILD / f"{name}_f")]),
    ]


def case(name, n, upn, prog=0):
    marks = [pytest.mark.progress] if prog else []
    return pytest.param(name, n, upn, prog, marks=marks,
                        id=f"{name}-n{n}-upn{upn or 'none'}" + (f"-prog{prog}" if prog else ""))


CASES = [case(name, n, upn) for name in GRIDS for n in (1, 2, 3, 4)
         for upn in ((None,) if n == 1 else (None, 1, 2))]
CASES += [case(name, n, upn, 1) for name in GRIDS
          for places in launcher.PROGRESS_PLACEMENTS.values() for n, upn in places]


@pytest.mark.mpi
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
            out = tmp_path / f"{lang}-{mode}.bin"
            job = launcher.run_job(prefix + args + ["--mode", mode, "--out", str(out)],
                                   nprocs, env, timeout=120)
            if job.returncode != 0:
                problems.append(f"{lang} {mode} failed\n{job.describe()}")
                continue
            if "checksum:" not in job.stdout:
                problems.append(f"{lang} {mode}: no checksum line\n{job.describe()}")
            got = out.read_bytes() if out.exists() else b""
            if got != want:
                diff = "missing file" if not got else (
                    f"{len(got)} bytes, first difference at element "
                    f"{next((i for i in range(0, min(len(got), len(want)), 8) if got[i:i+8] != want[i:i+8]), -8) // 8}")
                problems.append(f"{lang} {mode}: output differs from the reference ({diff})")
    assert not problems, "\n".join(problems)


def test_python_heat2d_solver_is_short():
    """Issue 28: on dart.Array the Python heat2d solver (solve() and the block parts it
    uses) is at most 60 lines, without offset arithmetic (no gptr, no block or grid
    computation)."""
    src = (REPO / "examples" / "python" / "heat2d.py").read_text()
    solver = src[src.index("# Parts of a block"):src.index("def main")].rstrip().splitlines()
    assert len(solver) <= 60, f"the solver has {len(solver)} lines"
    for word in ("gptr", "dims_create", "block(", "unit_at", "offset"):
        assert word not in "\n".join(solver), word


RING = [pytest.param(n, 1 if n > 2 else None, 0, id=str(n)) for n in (1, 2, 3, 4)]
RING += [pytest.param(n, upn, 1, id=f"{n}-upn{upn or 'none'}-prog1", marks=pytest.mark.progress)
         for places in launcher.PROGRESS_PLACEMENTS.values() for n, upn in places]


@pytest.mark.mpi
@pytest.mark.parametrize("n,upn,prog", RING)
def test_readme_halo_ring(n, upn, prog):
    """The README's ten-line halo exchange, in Python and in Fortran, prints the same."""
    want = sorted(f"unit {u}: ghosts {(u - 1) % n} {(u + 1) % n}" for u in range(n))
    nprocs, env = launcher.placed(n, upn, prog)
    for prefix in ([sys.executable, str(REPO / "examples" / "python" / "halo_ring.py")],
                   [str(BUILD / "halo_ring_f")]):
        job = launcher.run_job(prefix, nprocs, env, timeout=60)
        assert job.returncode == 0, job.describe()
        # Units print concurrently; Open MPI may forward one unit's text and its newline
        # separately, so lines of different units can run together.
        got = sorted(f"unit {u}: ghosts {a} {b}"
                     for u, a, b in re.findall(r"unit (\d+): ghosts (\d+) (\d+)", job.stdout))
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
        lines.append(f"unit {u}: rows {i0}..{i1 - 1}, columns {j0}..{j1 - 1}, "
                     f"west ghost {100 * i0 + (j0 - 1) % 8}")
    return sorted(lines)


@pytest.mark.mpi
@pytest.mark.parametrize("n,upn,prog", RING)
def test_readme_halo_array(n, upn, prog):
    """The README's first example, a distributed array, in Python and in Fortran, prints
    the same lines (each unit's block and a wrapped ghost)."""
    want = halo_array_lines(n)
    nprocs, env = launcher.placed(n, upn, prog)
    for prefix in ([sys.executable, str(REPO / "examples" / "python" / "halo_array.py")],
                   [str(BUILD / "halo_array_f")]):
        job = launcher.run_job(prefix, nprocs, env, timeout=60)
        assert job.returncode == 0, job.describe()
        got = sorted(re.findall(r"unit \d+: rows \d+\.\.\d+, columns \d+\.\.\d+, west ghost -?\d+",
                                job.stdout))
        assert got == want, job.describe()
