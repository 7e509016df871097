"""How the dartpy tests launch MPI jobs (imported by the test modules).

One pytest process per MPI. In-process tests run as a single unit (a singleton MPI
process, no mpiexec, as in a Jupyter kernel). Multi-unit scenarios run as
`mpiexec -n N python scenarios/<file>.py <case>` jobs with a timeout (the whole process
group is killed), so a failing unit can never desynchronize other tests.

The mpiexec flags and environment of each MPI come from dartpy.launch (the module that
benchmarks/run, the %%dartrun magic and CMake's tests use too). The launcher is the one
dartpy was built for (dartpy.build_info()["mpiexec"]), or $DARTPY_TEST_MPIEXEC.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence

import dartpy
from dartpy import launch

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
BUILD = dartpy.build_info()
FLAVOR = BUILD["mpi_flavor"]
MPIEXEC = os.environ.get("DARTPY_TEST_MPIEXEC") or BUILD["mpiexec"] or f"mpiexec.{FLAVOR}"
LAUNCHER = launch.Launcher(FLAVOR, MPIEXEC)

# DART variables a test sets itself when it wants them, never inherited from the caller.
_DART_VARS = ("DART_UNITS_PER_NODE", "DARTPY_NO_ABORT_ON_EXCEPTION", "DART_POOL_SIZE",
              "DART_TRANSFER_CHUNK")


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
        return (f"command: {' '.join(self.cmd)}\nexit: {self.returncode} after "
                f"{self.seconds:.1f} s\n--- stdout ---\n{self.stdout[-6000:]}\n"
                f"--- stderr ---\n{self.stderr[-6000:]}")

    def passes(self, case: str, n: int) -> int:
        units = set(re.findall(rf"PASS {re.escape(case)} unit (\d+)/{n}\b", self.stdout))
        return len(units)


def launch_cmd(n: int, argv: Sequence[str], env_vars: Dict[str, str]) -> list:
    return LAUNCHER.command(n, argv, env_vars)


def run_job(argv: Sequence[str], n: Optional[int], env_vars: Optional[Dict[str, str]] = None,
            timeout: float = 60.0) -> Job:
    """Runs argv under mpiexec -n n (or alone if n is None); kills the group on timeout."""
    env_vars = dict(env_vars or {})
    cmd = list(argv) if n is None else launch_cmd(n, argv, env_vars)
    res = launch.run(cmd, clean_env(env_vars), timeout=timeout, cwd=str(HERE))
    return Job(res.cmd, res.returncode, res.stdout, res.stderr, res.seconds)


def scenario(script: str, case: str, n: int, upn: Optional[int] = None,
             extra_env: Optional[Dict[str, str]] = None, timeout: float = 60.0,
             args: Sequence[str] = ()) -> Job:
    env_vars = dict(extra_env or {})
    env_vars.setdefault("DARTPY_TEST_STACKS_AFTER", str(max(5.0, timeout - 10.0)))
    if upn is not None:
        env_vars["DART_UNITS_PER_NODE"] = str(upn)
    argv = [sys.executable, str(SCENARIOS / script), case, *args]
    return run_job(argv, n, env_vars, timeout)


def check_scenario(script: str, case: str, n: int, upn: Optional[int] = None,
                   extra_env: Optional[Dict[str, str]] = None, timeout: float = 60.0) -> Job:
    job = scenario(script, case, n, upn, extra_env, timeout)
    assert job.returncode == 0, job.describe()
    assert job.passes(case, n) == n, job.describe()
    return job

