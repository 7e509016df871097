# SPDX-License-Identifier: BSD-3-Clause
"""Progress processes (DART_PROGRESS_PER_NODE, issue 14) from Python, Fortran and C++.

- A progress process never returns from init: in dartpy (scenarios/progress.py) and in
  Fortran (ftest_progress, from the build tree) every process that returns is a unit,
  and exactly one line per unit is printed.
- Refusal: dart.init() raises DartError (ERR_INVAL, naming the variable) when mpi4py
  initialized MPI first, and in a singleton run.
- The abort path: a unit that calls dart_abort, exits without dart_exit (C++
  progress_abort from the build tree) or raises (dartpy's excepthook) ends the whole job,
  progress processes included: non-zero status before the job's timeout, and no process
  of the job left (found by a unique tag in their command lines).

Every job starts launch.job_processes(units, upn, 1) processes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid

import launcher
import pytest

from dartpy import launch

pytestmark = [pytest.mark.multiunit]

REPO = launcher.HERE.parent.parent
BUILD = REPO / "_build" / launcher.FLAVOR
PROGRESS = {"DART_PROGRESS_PER_NODE": "1"}

# (units, DART_UNITS_PER_NODE or None): one node; two nodes of one unit; the last unit
# alone on the second node.
SHAPES = [(2, None), (2, 1), (3, 2)]


def ids(shapes):
    return [f"n{n}" + ("" if upn is None else f"-upn{upn}") for n, upn in shapes]


def procs(units, upn):
    return launch.job_processes(units, upn or 0, 1)


def env_of(upn, extra=None):
    env = dict(PROGRESS)
    if upn is not None:
        env["DART_UNITS_PER_NODE"] = str(upn)
    env.update(extra or {})
    return env


def built(path):
    if not path.exists():
        pytest.fail(f"{path} is not built (cmake --build _build/{launcher.FLAVOR})")
    return path


# ---- a progress process never returns from init -------------------------------------------
@pytest.mark.parametrize("units,upn", SHAPES, ids=ids(SHAPES))
def test_python_progress_process_never_returns(units, upn):
    job = launcher.scenario(
        "progress.py", "never_returns", procs(units, upn), upn, PROGRESS, args=[str(units)]
    )
    assert job.returncode == 0, job.describe()
    returned = re.findall(r"^RETURNED unit (\d+)/(\d+) ", job.stdout, re.M)
    assert sorted(int(u) for u, _ in returned) == list(range(units)), job.describe()
    assert {int(n) for _, n in returned} == {units}, job.describe()
    assert job.passes("never_returns", units) == units, job.describe()
    assert len(re.findall(r"^PASS ", job.stdout, re.M)) == units, job.describe()


@pytest.mark.parametrize("units,upn", SHAPES, ids=ids(SHAPES))
def test_fortran_progress_process_never_returns(units, upn):
    exe = built(BUILD / "tests" / "fortran" / "ftest_progress")
    job = launcher.run_job([str(exe), str(units)], procs(units, upn), env_of(upn))
    assert job.returncode == 0, job.describe()
    lines = re.findall(r"^ftest_progress: unit (\d+) of (\d+) ", job.stdout, re.M)
    assert sorted(int(u) for u, _ in lines) == list(range(units)), job.describe()
    assert {int(n) for _, n in lines} == {units}, job.describe()
    assert "ftest_progress: 0 failed" in job.stdout, job.describe()


# ---- refusal --------------------------------------------------------------------------------
def test_refused_after_mpi4py_initialized_mpi():
    pytest.importorskip("mpi4py")
    job = launcher.check_scenario("progress.py", "refuse_mpi_init", 2)
    assert job.stdout.count("REFUSED mpi_init") == 2, job.describe()


def test_refused_in_a_singleton_run():
    job = launcher.run_job(
        [sys.executable, str(launcher.SCENARIOS / "progress.py"), "refuse_singleton"], None
    )
    assert job.returncode == 0, job.describe()
    assert "REFUSED singleton" in job.stdout and "PASS refuse_singleton" in job.stdout, (
        job.describe()
    )


# ---- the abort path -------------------------------------------------------------------------
def _survivors(tag):
    out = subprocess.run(["pgrep", "-f", tag], stdout=subprocess.PIPE, text=True).stdout
    return [int(p) for p in out.split()]


def _check_nothing_left(job, tag):
    """The job ended by itself (not by the timeout) with a non-zero status, and none of its
    processes survives. mpiexec may return while its killed processes are still being
    torn down, so they get a moment to disappear; any left are killed and reported."""
    assert job.returncode is not None, "the job did not end by itself:\n" + job.describe()
    assert job.returncode != 0, job.describe()
    alive = _survivors(tag)
    for _ in range(100):
        if not alive:
            break
        time.sleep(0.1)
        alive = _survivors(tag)
    for pid in alive:  # this test's own job: never leave it behind
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        print(f"survivor {pid}: {cmd}")
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not alive, f"processes of the job still running: {alive}\n{job.describe()}"


ABORTS = [(2, 1), (3, 2), (2, None)]


@pytest.mark.parametrize("mode", ["dart_abort", "exit"])
@pytest.mark.parametrize("units,upn", ABORTS, ids=ids(ABORTS))
def test_abort_ends_units_and_progress_processes(mode, units, upn):
    exe = built(BUILD / "tests" / "cpp" / "progress_abort")
    tag = f"dart-progress-abort-{uuid.uuid4().hex}"
    job = launcher.run_job([str(exe), mode, tag], procs(units, upn), env_of(upn), timeout=90)
    _check_nothing_left(job, tag)
    assert f"progress_abort: unit {units - 1} fails ({mode})" in job.stderr, job.describe()
    assert "passed the barrier" not in job.stderr, job.describe()


@pytest.mark.parametrize("units,upn", [(2, 1)], ids=ids([(2, 1)]))
def test_python_exception_ends_units_and_progress_processes(units, upn):
    tag = f"dart-progress-abort-{uuid.uuid4().hex}"
    job = launcher.scenario(
        "errors.py", "abort", procs(units, upn), upn, PROGRESS, timeout=90, args=[tag]
    )
    _check_nothing_left(job, tag)
    assert f"dartpy: uncaught RuntimeError on unit {units - 1} of {units}" in job.stderr, (
        job.describe()
    )


# ---- teams when the machine is not oversubscribed -------------------------------------------
@pytest.mark.parametrize("units,upn", [(2, None)], ids=ids([(2, None)]))
def test_teams_with_progress_when_not_oversubscribed(units, upn):
    """DART_WAIT=yield makes DART treat the machine as not oversubscribed: the progress
    processes' barrier of a team creation and destruction is then MPI_Barrier (it once
    called itself forever there, a crash on a machine with a core per process)."""
    exe = built(BUILD / "tests" / "cpp" / "test_team")
    job = launcher.run_job(
        [str(exe), "--gtest_filter=*Create*:*Nested*:*Clone*"],
        procs(units, upn),
        env_of(upn, {"DART_WAIT": "yield"}),
        timeout=120,
    )
    assert job.returncode == 0, job.describe()
    assert "[  PASSED  ]" in job.stdout and "FAILED" not in job.stdout, job.describe()
