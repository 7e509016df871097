# SPDX-License-Identifier: BSD-3-Clause
"""How the dartpy tests launch MPI jobs (imported by the test modules).

One pytest process per MPI. In-process tests run as a single unit (a singleton MPI
process, no mpiexec, as in a Jupyter kernel). Multi-unit scenarios run as
`mpiexec -n N python scenarios/<file>.py <case>` jobs with a timeout (the whole process
group is killed), so a failing unit can never desynchronize other tests.

The mpiexec flags and environment of each MPI come from dartpy.launch (the module that
benchmarks/run, the %%dartrun magic and CMake's tests use too). The launcher is the one
dartpy was built for (dartpy.build_info()["mpiexec"]), or $DARTPY_TEST_MPIEXEC.

Progress processes: a scenario with ``progress=k`` runs with DART_PROGRESS_PER_NODE=k on
``launch.job_processes(n, upn, k)`` processes, of which n are units. The test modules
add the placements of cmake/DartMpiTest.cmake (``placements()``), marked ``progress``.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

import dartpy
from dartpy import launch

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
BUILD = dartpy.build_info()
FLAVOR = BUILD["mpi_flavor"]
MPIEXEC = os.environ.get("DARTPY_TEST_MPIEXEC") or BUILD["mpiexec"] or f"mpiexec.{FLAVOR}"
LAUNCHER = launch.Launcher(FLAVOR, MPIEXEC)

# DART variables a test sets itself when it wants them, never inherited from the caller.
_DART_VARS = (
    "DART_UNITS_PER_NODE",
    "DARTPY_NO_ABORT_ON_EXCEPTION",
    "DART_POOL_SIZE",
    "DART_TRANSFER_CHUNK",
    "DART_PROGRESS_PER_NODE",
    "DART_PROGRESS_THRESHOLD",
)

# The progress placements (units, DART_UNITS_PER_NODE or None) of cmake/DartMpiTest.cmake,
# all with DART_PROGRESS_PER_NODE=1: 2 units on one node and on two, 3 units with upn 2.
# DART_TEST_PROGRESS (as the CMake option of that name): ALL, REDUCED (default: only
# 2 units with upn 1) or OFF.
PROGRESS_MODE = os.environ.get("DART_TEST_PROGRESS", "REDUCED").upper()
if PROGRESS_MODE not in ("ALL", "REDUCED", "OFF"):
    raise ValueError(f"DART_TEST_PROGRESS={PROGRESS_MODE}: use ALL, REDUCED or OFF")
PROGRESS_PLACEMENTS = {
    "ALL": {2: [(2, None), (2, 1)], 3: [(3, 2)]},
    "REDUCED": {2: [(2, 1)]},
    "OFF": {},
}[PROGRESS_MODE]


# Oversubscribed jobs (more units than cores), as cmake/DartMpiTest.cmake's option of the
# same name: REDUCED (MPICH's default: its waits busy-poll, an oversubscribed job costs
# 10-40 times what it costs under Open MPI) leaves out a job of more units than cores with
# upn None or 1 when a smaller oversubscribed unit count has the same shape; ALL keeps it.
OVERSUBSCRIBED_MODE = os.environ.get(
    "DART_TEST_OVERSUBSCRIBED", "REDUCED" if FLAVOR == "mpich" else "ALL"
).upper()
if OVERSUBSCRIBED_MODE not in ("ALL", "REDUCED"):
    raise ValueError(f"DART_TEST_OVERSUBSCRIBED={OVERSUBSCRIBED_MODE}: use ALL or REDUCED")


def same_shape_pruned(params: Sequence[Tuple[int, Optional[int]]]) -> list:
    """params without the (n, upn) pairs whose job has the shape of another one on this
    machine: upn >= n is one node, as upn None (when that is in params); under REDUCED
    (above) an oversubscribed n with upn None or 1 when a smaller oversubscribed count
    is in params too."""
    cores = os.cpu_count() or 1
    counts = {n for n, _ in params}
    out = []
    for n, upn in params:
        if upn is not None and upn >= n and (n, None) in params:
            continue
        if (
            OVERSUBSCRIBED_MODE == "REDUCED"
            and n > cores
            and upn in (None, 1)
            and any(cores < m < n for m in counts)
        ):
            continue
        out.append((n, upn))
    return out


def placements(params: Sequence[Tuple[int, Optional[int]]]) -> list:
    """pytest parameters (n, upn, progress) for "n,upn,progress": ``params`` (n, upn)
    without progress processes (less those of the same shape as another, see
    same_shape_pruned), then the progress placements of the unit counts among them
    (marked ``progress``, ids ending in -prog1)."""
    import pytest

    def ident(n, upn):
        return f"n{n}" + ("" if upn is None else f"-upn{upn}")

    out = [pytest.param(n, upn, 0, id=ident(n, upn)) for n, upn in same_shape_pruned(params)]
    for units in sorted({n for n, _ in params}):
        out += [
            pytest.param(n, upn, 1, id=ident(n, upn) + "-prog1", marks=pytest.mark.progress)
            for n, upn in PROGRESS_PLACEMENTS.get(units, [])
        ]
    return out


def clean_env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """The environment of a test job: no MPI or DART variables of this process, what the
    MPI's mpiexec needs, unbuffered Python, then ``extra``."""
    env = LAUNCHER.job_environ()
    for k in _DART_VARS:
        env.pop(k, None)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if extra:
        env.update(extra)
    return env


@dataclass
class Job:
    cmd: Sequence[str]
    returncode: Optional[int]  # None: killed after the timeout
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        return (
            f"command: {' '.join(self.cmd)}\nexit: {self.returncode} after "
            f"{self.seconds:.1f} s\n--- stdout ---\n{self.stdout[-6000:]}\n"
            f"--- stderr ---\n{self.stderr[-6000:]}"
        )

    def passes(self, case: str, n: int) -> int:
        units = set(re.findall(rf"PASS {re.escape(case)} unit (\d+)/{n}\b", self.stdout))
        return len(units)


def launch_cmd(n: int, argv: Sequence[str], env_vars: Dict[str, str]) -> list:
    return LAUNCHER.command(n, argv, env_vars)


def run_job(
    argv: Sequence[str],
    n: Optional[int],
    env_vars: Optional[Dict[str, str]] = None,
    timeout: float = 60.0,
) -> Job:
    """Runs argv under mpiexec -n n (or alone if n is None); kills the group on timeout."""
    env_vars = dict(env_vars or {})
    cmd = list(argv) if n is None else launch_cmd(n, argv, env_vars)
    res = launch.run(cmd, clean_env(env_vars), timeout=timeout, cwd=str(HERE))
    return Job(res.cmd, res.returncode, res.stdout, res.stderr, res.seconds)


def placed(
    n: int, upn: Optional[int], progress: int, env_vars: Optional[Dict[str, str]] = None
) -> Tuple[int, Dict[str, str]]:
    """(processes, variables) of a job of ``n`` units with DART_UNITS_PER_NODE ``upn``
    (None: unset) and ``progress`` progress processes per node (0: none)."""
    env = dict(env_vars or {})
    if upn is not None:
        env["DART_UNITS_PER_NODE"] = str(upn)
    if progress:
        env["DART_PROGRESS_PER_NODE"] = str(progress)
        n = launch.job_processes(n, upn or 0, progress)
    return n, env


def scenario(
    script: str,
    case: str,
    n: int,
    upn: Optional[int] = None,
    extra_env: Optional[Dict[str, str]] = None,
    timeout: float = 60.0,
    args: Sequence[str] = (),
    progress: int = 0,
) -> Job:
    """``n`` units; with ``progress`` k > 0 also k progress processes per (emulated) node."""
    n, env_vars = placed(n, upn, progress, extra_env)
    env_vars.setdefault("DARTPY_TEST_STACKS_AFTER", str(max(5.0, timeout - 10.0)))
    argv = [sys.executable, str(SCENARIOS / script), case, *args]
    return run_job(argv, n, env_vars, timeout)


def check_scenario(
    script: str,
    case: str,
    n: int,
    upn: Optional[int] = None,
    extra_env: Optional[Dict[str, str]] = None,
    timeout: float = 60.0,
    progress: int = 0,
) -> Job:
    job = scenario(script, case, n, upn, extra_env, timeout, progress=progress)
    assert job.returncode == 0, job.describe()
    assert job.passes(case, n) == n, job.describe()
    return job
