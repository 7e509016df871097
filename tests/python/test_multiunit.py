# SPDX-License-Identifier: BSD-3-Clause
"""Multi-unit scenarios, each one `mpiexec -n N` job with a timeout (see launcher.py).

Every job is independent: a failing unit aborts (or is killed with) its own job only.
Every scenario that runs on 2 or 3 units also runs with progress processes (the
placements of launcher.placements, marker ``progress``; ``-m progress`` selects them).
"""

from __future__ import annotations

import os
import re
import time

import pytest
from launcher import FLAVOR, check_scenario, placements, run_job, scenario

import dartpy
from dartpy import launch

pytestmark = pytest.mark.multiunit


ONESIDED = [(n, upn) for n in (1, 2, 3, 4) for upn in (None, 1, 2)]


@pytest.mark.parametrize("n,upn,prog", placements(ONESIDED))
def test_onesided(n, upn, prog):
    """put/get (all dtypes), handles, flush, zero-copy views, halo columns, 3-D faces."""
    check_scenario("onesided.py", "onesided", n, upn, progress=prog)


NOTIFY = [(1, None), (2, None), (2, 1), (3, 2), (4, None), (4, 1)]


@pytest.mark.parametrize("n,upn,prog", placements(NOTIFY))
def test_notify(n, upn, prog):
    """put_notify (strided slices, SET/ADD, handles), notify after puts, waits, errors."""
    check_scenario("notify.py", "notify", n, upn, progress=prog)


COLLECTIVES = [(1, None), (2, None), (3, None), (4, None), (3, 1), (4, 2)]


@pytest.mark.parametrize("n,upn,prog", placements(COLLECTIVES))
def test_collectives(n, upn, prog):
    check_scenario("collective.py", "collectives", n, upn, progress=prog)


TEAMS = [(1, None), (3, None), (2, 1), (4, 2)]


@pytest.mark.parametrize("n,upn,prog", placements(TEAMS))
def test_groups_teams_locks_atomics(n, upn, prog):
    check_scenario("teams.py", "groups_teams_locks", n, upn, progress=prog)


ERRORS = [(1, None), (2, None), (3, 1), (3, 2)]


@pytest.mark.parametrize("n,upn,prog", placements(ERRORS))
def test_error_paths(n, upn, prog):
    """Bad units (incl. == size), freed segments, offsets past the end, dtype mismatch,
    bad arguments, frees and exit with live views (collective BufferError)."""
    check_scenario("errors.py", "errors", n, upn, progress=prog)


COLLECTIVE_ARGS = [(2, None), (3, None), (3, 1)]


@pytest.mark.parametrize("n,upn,prog", placements(COLLECTIVE_ARGS))
def test_collective_argument_errors_raise_on_every_unit(n, upn, prog):
    """Bad arguments on some units only (team_create with no group or a destroyed one,
    allgatherv counts, the root's buffer of scatter/gather/reduce): every unit raises, no
    unit hangs (the job's timeout), and the units stay in step."""
    check_scenario("errors.py", "collective_args", n, upn, progress=prog)


HOSTILE = [(2, None), (2, 1)]


@pytest.mark.parametrize("n,upn,prog", placements(HOSTILE))
def test_hostile_random_calls_raise_or_succeed(n, upn, prog):
    """A fixed-seed random sequence of ~1,650 calls with wrong dtypes, non-contiguous and
    read-only arrays, out-of-range gptr arithmetic and pickled gptrs of freed memory: each
    call succeeds or raises a documented exception, collectives fail on every unit alike,
    and put/get still work after every round (scenarios/hostile.py prints the counts)."""
    job = check_scenario("hostile.py", "hostile", n, upn, timeout=180, progress=prog)
    assert "hostile dartpy calls per category" in job.stdout, job.describe()


INTEROP = [(2, None), (3, 1)]


@pytest.mark.parametrize("order", ["mpi4py_first", "dartpy_first"])
@pytest.mark.parametrize("n,upn,prog", placements(INTEROP))
def test_mpi4py_interop(order, n, upn, prog):
    """init after mpi4py and before it; team.comm; team_from_comm; gptrs pickled through
    mpi4py."""
    pytest.importorskip("mpi4py")
    if prog and order == "mpi4py_first":
        # mpi4py starts MPI before dart.init(): DART refuses progress processes then, on
        # every process (none became a progress process)
        job = scenario("teams.py", order, n, upn, progress=prog)
        assert job.returncode == 0, job.describe()
        assert job.stdout.count(f"PASS {order} refused") == launch.job_processes(
            n, upn or 0, prog
        ), job.describe()
        return
    check_scenario("teams.py", order, n, upn, progress=prog)


# No progress placements: with progress processes DART starts MPI and dart.exit() ends it,
# so init/exit cannot cycle (init.cc, init_impl).
@pytest.mark.parametrize("with_mpi4py", [False, True], ids=["dartpy-mpi", "mpi4py-mpi"])
def test_init_exit_cycles(with_mpi4py):
    if with_mpi4py:
        pytest.importorskip("mpi4py")
    env = {"CYCLES_WITH_MPI4PY": "1"} if with_mpi4py else {}
    check_scenario("teams.py", "cycles", 2, extra_env=env)


THREADS = [(2, None), (2, 1)]


@pytest.mark.parametrize("mode", ["serialized", "multiple"])
@pytest.mark.parametrize("n,upn,prog", placements(THREADS))
def test_threads_beside_a_python_reduction_op_do_not_deadlock(mode, n, upn, prog):
    """Worker threads put/get, fetch_and_op, memalloc/memfree while another thread runs
    allreduce with a Python op (which takes the GIL inside MPI): a call waiting for
    dartpy's serialization (init()) must not hold the GIL; init_thread() serializes
    nothing. No deadlock (the timeout), exact values."""
    check_scenario("threads.py", mode, n, upn, timeout=120, progress=prog)


@pytest.mark.parametrize("n,upn,prog", placements([(2, None)]))
def test_blocking_calls_release_the_gil(n, upn, prog):
    job = check_scenario("teams.py", "gil", n, upn, progress=prog)
    assert "increments during the barrier" in job.stdout


def _pids_gone(pids):
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            if state != "Z":
                alive.append(pid)
        except FileNotFoundError:
            pass
    return not alive, alive


def _check_job_ended(job, n, upn=None, prog=0):
    """Every process (units and progress processes, which print their PID before
    dart.init() too) is gone within 10 s of the RAISING line, with a non-zero status."""
    n = launch.job_processes(n, upn or 0, prog)
    assert job.returncode not in (0, None), job.describe()
    raised = [float(x) for x in re.findall(r"RAISING ([0-9.]+\.[0-9]{3})", job.stdout)]
    assert len(raised) == 1, job.describe()
    pids = [int(x) for x in re.findall(r"^PID (\d+)$", job.stdout, re.M)]  # not hydra's
    assert len(pids) == n, job.describe()
    # mpiexec may return while the killed units are still being torn down: wait for them,
    # but only up to 10 s after the exception was raised
    while True:
        gone, alive = _pids_gone(pids)
        if gone or time.time() - raised[0] > 10.0:
            break
        time.sleep(0.05)
    end = time.time()
    assert gone, f"units still running 10 s after the exception: {alive}\n{job.describe()}"
    assert end - raised[0] < 10.0, f"all units gone only {end - raised[0]:.1f} s after the raise"
    assert "UNREACHABLE" not in job.stdout


ABORTS = [(2, None), (4, None)]


@pytest.mark.parametrize("case", ["abort", "abort_in_with"])
@pytest.mark.parametrize("n,upn,prog", placements(ABORTS))
def test_uncaught_exception_aborts_all_units(n, upn, prog, case):
    """Unit n-1 raises while the others sit in a barrier (in abort_in_with: inside `with`
    blocks of a team and an allocation): all units are gone within 10 s (and the job,
    progress processes included, ends: the timeout)."""
    job = scenario("errors.py", case, n, upn, timeout=60, progress=prog)
    _check_job_ended(job, n, upn, prog)
    assert "deliberate failure on unit" in job.stderr  # the traceback was printed
    assert f"dartpy: uncaught RuntimeError on unit {n - 1} of {n}" in job.stderr
    assert "UNREACHABLE" not in job.stdout


@pytest.mark.parametrize("case", ["exit_nonzero", "exit_zero_early"])
@pytest.mark.parametrize("n,upn,prog", placements(ABORTS))
def test_sys_exit_on_one_unit_ends_job(n, upn, prog, case):
    """sys.exit(3), or sys.exit(0) before the others' dart.exit(), on unit n-1: every unit
    is gone within 10 s, non-zero status (the exit waits DARTPY_EXIT_WAIT = 5 s for the
    others, then aborts)."""
    job = scenario("errors.py", case, n, upn, timeout=60, progress=prog)
    _check_job_ended(job, n, upn, prog)
    # (its message "dartpy: unit U of N is exiting without dart.exit() ..." may be lost
    # when the launcher kills the job before forwarding it)


@pytest.mark.parametrize("n,upn,prog", placements(ABORTS))
def test_killed_unit_ends_job(n, upn, prog):
    """kill -9 of unit n-1: the launcher (hydra / prterun) ends the others within 10 s."""
    job = scenario("errors.py", "killed", n, upn, timeout=60, progress=prog)
    _check_job_ended(job, n, upn, prog)


@pytest.mark.parametrize("n,upn,prog", placements([(3, None)]))
def test_exit_without_dart_exit_on_every_unit(n, upn, prog):
    check_scenario("errors.py", "exit_all_without_dart_exit", n, upn, progress=prog)


@pytest.mark.parametrize("n,upn,prog", placements([(2, None), (3, None)]))
def test_reduction_op_error_raises_on_every_unit(n, upn, prog):
    check_scenario("errors.py", "op_raises", n, upn, progress=prog)


@pytest.mark.parametrize("n,upn,prog", placements([(2, None)]))
def test_uncaught_exception_in_thread_aborts(n, upn, prog):
    job = scenario("errors.py", "abort_thread", n, upn, timeout=60, progress=prog)
    end = time.time()
    assert job.returncode not in (0, None), job.describe()
    raised = [float(x) for x in re.findall(r"RAISING ([0-9.]+\.[0-9]{3})", job.stdout)]
    assert len(raised) == 1 and end - raised[0] < 10.0, job.describe()
    assert "uncaught ValueError in thread worker" in job.stderr
    assert "UNREACHABLE" not in job.stdout


# No progress placements: the scenario initializes DART twice in one process, and with
# progress processes dart_init starts MPI and dart_exit finalizes it (no second init).
@pytest.mark.parametrize("n,upn", [(2, None)])
def test_abort_opt_out(n, upn):
    check_scenario("errors.py", "no_abort", n, upn, extra_env={"DARTPY_NO_ABORT_ON_EXCEPTION": "1"})


@pytest.mark.progress
def test_info_progress():
    """--info under progress processes: 2 units on two emulated nodes, 4 processes, and
    only unit 0 prints (a progress process never returns from init)."""
    import sys

    env = {"DART_UNITS_PER_NODE": "1", "DART_PROGRESS_PER_NODE": "1"}
    job = run_job(
        [sys.executable, "-m", "dartpy", "--info"], launch.job_processes(2, 1, 1), env, timeout=60
    )
    assert job.returncode == 0, job.describe()
    assert "units: 2\n" in job.stdout, job.stdout
    assert "progress processes: 1 per node (DART_PROGRESS_PER_NODE=1" in job.stdout
    assert job.stdout.count("DART interface") == 1


@pytest.mark.parametrize("n,upn", [(None, None), (3, 1)], ids=["singleton", "n3-upn1"])
def test_info(n, upn):
    import sys

    env = {"DART_UNITS_PER_NODE": str(upn)} if upn else {}
    job = run_job([sys.executable, "-m", "dartpy", "--info"], n, env, timeout=60)
    assert job.returncode == 0, job.describe()
    out = job.stdout
    lib = "MPICH" if FLAVOR == "mpich" else "Open MPI"
    assert f"MPI library: {lib}" in out, out
    assert re.search(r"^thread level: (single|funneled|serialized|multiple)", out, re.M)
    units = n or 1
    assert f"units: {units}\n" in out
    if upn:
        assert f"nodes: {units} (node emulation: DART_UNITS_PER_NODE={upn})" in out
    else:
        assert "nodes: 1 (node emulation: off)" in out
    assert "windows: MPI_Win_allocate_shared" in out
    assert "progress processes: none" in out
    assert re.search(r"^MPI workarounds: (none|\d+)$", out, re.M), out
    assert f"DART interface {dartpy.VERSION}" in out
    assert out.count("dartpy ") == 1  # only unit 0 prints
    assert os.path.basename(dartpy.build_info()["mpiexec"]) in out
