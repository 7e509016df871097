# SPDX-License-Identifier: BSD-3-Clause
"""DART on two real hosts of one machine (scripts/hosts.sh, docs/two-hosts.md): each host
a network, UTS, IPC and mount namespace of its own, MPI's traffic between them TCP over a
veth pair. Init (two nodes by hostname), put/get between the hosts and the array
ghost-filling matrix at 2 units (one per host) and 4 (two per host).

DART_TEST_TWO_HOSTS: ALL runs every job, REDUCED only the 4-unit ones (two units per host:
neighbours on the same host and on the other), OFF (the default for now, see MODE below
and docs/two-hosts.md) none.

Root only (the script creates namespaces): skipped with the reason otherwise. The hosts
are brought up once for this module and removed after it (left up when they were up
before). Every job has a time limit.

MPICH 4.0.2 (ch4:ucx) sometimes hangs in MPI_Finalize here after every unit has passed
(docs/two-hosts.md, "What differs"): such a job is reported as an expected failure
with that reason, never as a pass; a failure before every unit passed fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from launcher import FLAVOR, HERE, SCENARIOS, Job, clean_env

from dartpy import launch

REPO = HERE.parent.parent
HOSTS_SH = REPO / "scripts" / "hosts.sh"
STATE = os.environ.get("DART_HOSTS_STATE", "/run/dart-hosts")
JOB_TIMEOUT = 180.0
# Seconds a job gets to end after every unit printed PASS (MPI_Finalize, mpiexec).
FINALIZE_GRACE = 10.0

# OFF by default (run by hand with ALL or REDUCED): under MPICH the first jobs on fresh
# hosts failed in MPI_Init (UCX: "no active messages transport ... tcp/lo - Destination is
# unreachable") in the merged tree while later ones passed, and Open MPI's take 80-160 s
# on 2 cores; issue 36 has the note.
MODE = os.environ.get("DART_TEST_TWO_HOSTS", "OFF")
if MODE.upper() not in ("ALL", "REDUCED", "OFF"):
    raise ValueError(f"DART_TEST_TWO_HOSTS={MODE}: use ALL, REDUCED or OFF")
MODE = MODE.upper()

pytestmark = [
    pytest.mark.twohosts,
    pytest.mark.skipif(MODE == "OFF", reason="DART_TEST_TWO_HOSTS=OFF"),
]


def unit_counts() -> list:
    """2 and 4 units; under REDUCED the 2-unit job is skipped with the reason."""
    reduced = pytest.mark.skipif(
        MODE == "REDUCED", reason=f"DART_TEST_TWO_HOSTS={MODE} ({FLAVOR}): 4 units only"
    )
    return [pytest.param(2, id="n2", marks=reduced), pytest.param(4, id="n4")]


def unavailable() -> str:
    """Why the two hosts cannot be made here, or ""."""
    if os.geteuid() != 0:
        return "not root: scripts/hosts.sh creates network namespaces"
    for tool in ("ip", "nsenter", "unshare", "bash"):
        if not shutil.which(tool):
            return f"{tool} not found: scripts/hosts.sh needs it"
    probe = subprocess.run(
        ["unshare", "--net", "--uts", "--ipc", "--mount", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0:
        return f"namespaces are unavailable here (unshare: {probe.stderr.strip()})"
    return ""


def hosts_sh(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(HOSTS_SH), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, DART_HOSTS_STATE=STATE),
    )


@pytest.fixture(scope="module")
def hosts():
    reason = unavailable()
    if reason:
        pytest.skip(reason)
    was_up = hosts_sh("status").returncode == 0
    if not was_up:
        up = hosts_sh("up")
        assert up.returncode == 0, f"scripts/hosts.sh up failed:\n{up.stderr}"
    yield
    if not was_up:
        down = hosts_sh("down")
        assert down.returncode == 0, f"scripts/hosts.sh down failed:\n{down.stderr}"
        assert hosts_sh("status").returncode == 1


def run_on_hosts(argv, n: int, case: str, env_vars=None) -> Job:
    """argv as a job of n processes on the two hosts (launch.py's flags for this MPI,
    with the mpiexec wrapper of scripts/hosts.sh), killed after JOB_TIMEOUT s, or
    FINALIZE_GRACE s after the n PASS lines of ``case`` when it has not ended by then
    (the job's returncode is then None and ``finalize_hang`` is set)."""
    launcher = launch.Launcher(FLAVOR, f"{STATE}/mpiexec.{FLAVOR}")
    env_vars = dict(env_vars or {})
    env_vars.setdefault("DARTPY_TEST_STACKS_AFTER", str(JOB_TIMEOUT - 10))
    cmd = launcher.command(n, [str(a) for a in argv], env_vars)
    proc = subprocess.Popen(
        cmd,
        env=clean_env(env_vars),
        cwd=str(HERE),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    out: list = []
    err: list = []
    readers = [
        threading.Thread(target=lambda s=s, b=b: b.extend(s), daemon=True)
        for s, b in ((proc.stdout, out), (proc.stderr, err))
    ]
    for r in readers:
        r.start()
    t0 = time.monotonic()
    passed_at = None
    hang = False
    while proc.poll() is None:
        now = time.monotonic()
        if passed_at is None and Job(cmd, 0, "".join(out), "", 0).passes(case, n) == n:
            passed_at = now
        if now - t0 > JOB_TIMEOUT or (passed_at and now - passed_at > FINALIZE_GRACE):
            hang = passed_at is not None
            launch.kill_group(proc)
            break
        time.sleep(0.1)
    for r in readers:
        r.join(timeout=10)
    for pipe in (proc.stdout, proc.stderr):
        pipe.close()
    proc.wait(timeout=10)
    rc = None if hang or proc.returncode is None else proc.returncode
    job = Job(cmd, rc, "".join(out), "".join(err), time.monotonic() - t0)
    job.finalize_hang = hang  # type: ignore[attr-defined]
    return job


def check(job: Job, case: str, n: int) -> None:
    assert job.passes(case, n) == n, job.describe()
    if job.finalize_hang and FLAVOR == "mpich":
        pytest.xfail(
            "MPICH 4.0.2 (ch4:ucx) hung in MPI_Finalize after every unit passed (docs/two-hosts.md)"
        )
    assert job.returncode == 0, job.describe()


@pytest.mark.parametrize("n", unit_counts())
def test_init_and_putget(hosts, n):
    """Two nodes by hostname in dart.info() and the locality queries; put/get between
    the hosts and within one."""
    job = run_on_hosts(
        [sys.executable, SCENARIOS / "two_hosts.py", "init_putget"], n, "init_putget"
    )
    check(job, "init_putget", n)


@pytest.mark.parametrize("n", unit_counts())
def test_array_matrix(hosts, n):
    """The ghost-filling matrix of dartpy.Array (scenarios/arrays.py, unchanged) with the
    blocks of one host's units next to the other's."""
    job = run_on_hosts([sys.executable, SCENARIOS / "arrays.py", "matrix"], n, "array_matrix")
    check(job, "array_matrix", n)


def test_status(hosts):
    """`status` shows the names and addresses the script gives the hosts (the module's
    teardown checks that `down` removed them)."""
    st = hosts_sh("status")
    assert st.returncode == 0, st.stdout + st.stderr
    assert "dart-h1 10.236.36.1" in st.stdout and "dart-h2 10.236.36.2" in st.stdout
    assert "hostname dart-h1" in st.stdout and "hostname dart-h2" in st.stdout
    assert Path(STATE, f"mpiexec.{FLAVOR}").exists()
