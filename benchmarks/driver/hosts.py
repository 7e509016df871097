# SPDX-License-Identifier: BSD-3-Clause
"""`--hosts 2`: jobs on two real hosts of this machine (scripts/hosts.sh: a network, UTS,
IPC and mount namespace per host, MPI's traffic between them TCP over a veth pair;
docs/two-hosts.md). The jobs start through launch.py like every other job, with the
script's mpiexec wrapper as their mpiexec; placement column `hosts`."""

import contextlib
import os
import subprocess
import sys

from .jobs import REPO, JobFailed

HOSTS_SH = os.path.join(REPO, "scripts", "hosts.sh")
STATE = os.environ.get("DART_HOSTS_STATE", "/run/dart-hosts")
PLACEMENT = "hosts"


def hosts_count(opts):
    """The value of --hosts (0 when not given); only 2 is supported."""
    value = opts.get("hosts")
    if not value:
        return 0
    if value != "2":
        raise JobFailed(f"--hosts {value}: scripts/hosts.sh makes exactly 2 hosts")
    return 2


def _sh(*args):
    return subprocess.run(["bash", HOSTS_SH, *args], capture_output=True, text=True, timeout=120)


@contextlib.contextmanager
def two_hosts(mpi):
    """Brings the hosts up for the block (root only) and removes them after it, also on
    an error; hosts that were up before are left up."""
    if os.geteuid() != 0:
        raise JobFailed("--hosts needs root: scripts/hosts.sh creates network namespaces")
    if mpi == "openmpi":
        sys.stderr.write(
            "[bench] note: under Open MPI the dart-notify rows hang on the two hosts "
            "(docs/two-hosts.md, 'What differs'); the run then ends at its --timeout\n"
        )
    was_up = _sh("status").returncode == 0
    if not was_up:
        up = _sh("up")
        if up.returncode != 0:
            raise JobFailed(f"scripts/hosts.sh up failed:\n{up.stderr}")
        sys.stderr.write("[bench] two hosts up (scripts/hosts.sh): dart-h1, dart-h2\n")
    try:
        yield
    finally:
        if not was_up:
            down = _sh("down")
            if down.returncode != 0:
                sys.stderr.write(f"[bench] scripts/hosts.sh down failed:\n{down.stderr}\n")


def mpiexec(mpi):
    """The mpiexec wrapper of scripts/hosts.sh for this MPI (launch.py's --mpiexec)."""
    return os.path.join(STATE, f"mpiexec.{mpi}")
