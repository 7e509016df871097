"""How the dartpy tests launch MPI jobs (imported by the test modules).

One pytest process per MPI. In-process tests run as a single unit (a singleton MPI
process, no mpiexec, as in a Jupyter kernel). Multi-unit scenarios run as
`mpiexec -n N python scenarios/<file>.py <case>` jobs with a timeout (the whole process
group is killed), so a failing unit can never desynchronize other tests.

The launcher is the one dartpy was built for (dartpy.build_info()["mpiexec"]), or
$DARTPY_TEST_MPIEXEC.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence

import dartpy

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
BUILD = dartpy.build_info()
FLAVOR = BUILD["mpi_flavor"]
MPIEXEC = os.environ.get("DARTPY_TEST_MPIEXEC") or BUILD["mpiexec"] or f"mpiexec.{FLAVOR}"

# Variables an MPI library puts into a process's environment (singleton init in this
# pytest process does): never hand them to a new mpiexec job.
_MPI_ENV_PREFIXES = ("OMPI_", "PMIX_", "PMI_", "HYDRA_", "HYDI_", "MPIR_", "OPAL_", "ORTE_",
                     "MPICH_", "I_MPI_")
_KEEP = {"OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"}


def clean_env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k in _KEEP or not k.startswith(_MPI_ENV_PREFIXES)}
    for k in ("DART_UNITS_PER_NODE", "DARTPY_NO_ABORT_ON_EXCEPTION", "DART_POOL_SIZE",
              "DART_TRANSFER_CHUNK"):
        env.pop(k, None)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if FLAVOR == "openmpi":
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
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
    if FLAVOR == "openmpi":
        # No `--mca btl ...`: it would replace Debian's `btl = ^uct,openib,ofi` and bring
        # back btl ofi, which corrupts strided RMA puts and has no atomics here
        # (docs/python.md, "Open MPI notes").
        cmd = [MPIEXEC, "--oversubscribe", "--bind-to", "none", "-n", str(n)]
        for k in sorted(env_vars):
            cmd += ["-x", k]
    else:
        cmd = [MPIEXEC, "-n", str(n)]
        for k in sorted(env_vars):
            cmd += ["-genv", k, env_vars[k]]
    return cmd + list(argv)


def _kill_group(proc: subprocess.Popen):
    """Ends the job's process group (TERM, then KILL); returns what it wrote, never blocks
    for more than a few seconds even if a descendant outside the group keeps the pipes."""
    out = err = ""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            out, err = proc.communicate(timeout=5)
            return out, err
        except subprocess.TimeoutExpired:
            continue
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    return out, err


def run_job(argv: Sequence[str], n: Optional[int], env_vars: Optional[Dict[str, str]] = None,
            timeout: float = 60.0) -> Job:
    """Runs argv under mpiexec -n n (or alone if n is None); kills the group on timeout."""
    env_vars = dict(env_vars or {})
    cmd = list(argv) if n is None else launch_cmd(n, argv, env_vars)
    env = clean_env(env_vars)
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, cwd=str(HERE))
    try:
        out, err = proc.communicate(timeout=timeout)
        rc: Optional[int] = proc.returncode
    except subprocess.TimeoutExpired:
        out, err = _kill_group(proc)
        rc = None
    except BaseException:  # pytest interrupted (Ctrl-C, SIGTERM): never orphan a job
        _kill_group(proc)
        raise
    return Job(cmd, rc, out or "", err or "", time.monotonic() - t0)


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

