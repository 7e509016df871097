# SPDX-License-Identifier: BSD-3-Clause
"""The watchdog of a notebook session (dartpy.session): a process beside the units that
ends them when the kernel is gone.

A session starts it as ``python -m dartpy._watchdog <state.json>`` in a session of its
own, with a pipe from the kernel as its stdin. The kernel holds the pipe's only write end,
so the pipe reaches end-of-file when the kernel ends in any way: a normal exit, a kernel
restart, a crash or SIGKILL (which runs no atexit hook). The watchdog also checks the
kernel's pid twice a second. Then it reads ``state.json`` (which the session rewrites as
it starts things) and ends what it lists, each item by its id:

- ``groups``: process groups (the local mpiexec, the controller): SIGTERM, then SIGKILL
  after ``kill_grace`` seconds;
- ``jobs``: Slurm job ids, with ``scancel`` (``SLURM_CONF`` and PATH are the kernel's);
- ``folder``: removed at the end when ``remove_folder`` is true.

``Session.stop()`` ends everything itself and then closes the pipe; the watchdog's own
pass finds nothing left and exits. It needs the standard library only.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of ours is gone for every purpose here.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def _group_alive(pgid: int) -> bool:
    # The group's leader may be our own child (the session's mpiexec): reap it, or its
    # zombie keeps the group "alive".
    try:
        os.waitpid(pgid, os.WNOHANG)
    except (ChildProcessError, OSError):
        pass
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def end_everything(state: dict) -> None:
    """Ends the jobs and process groups that ``state`` lists (also used by the session)."""
    scancel = state.get("scancel", "scancel")
    for job in state.get("jobs", []):
        # SIGKILL to every process of the job first (units blocked in MPI ignore nothing
        # then, and the job does not linger in COMPLETING for KillWait), then cancel it.
        for cmd in ([scancel, "--full", "--signal=KILL", str(job)], [scancel, str(job)]):
            try:
                subprocess.run(
                    cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30
                )
            except (OSError, subprocess.TimeoutExpired):
                pass
    groups = [int(g) for g in state.get("groups", [])]
    grace = float(state.get("kill_grace", 3.0))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        live = [g for g in groups if _group_alive(g)]
        if not live:
            break
        for g in live:
            try:
                os.killpg(g, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(_group_alive(g) for g in live):
            time.sleep(0.05)
    if state.get("remove_folder") and state.get("folder"):
        shutil.rmtree(state["folder"], ignore_errors=True)


def _read(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def main(argv: list) -> int:
    if len(argv) != 2:
        sys.stderr.write(
            "usage: python -m dartpy._watchdog STATE.json (stdin: the kernel's pipe)\n"
        )
        return 2
    path = argv[1]
    kernel = _read(path).get("kernel_pid") or os.getppid()
    # SIGINT and SIGHUP of the kernel's terminal are not ours.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    fd = sys.stdin.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready and not os.read(fd, 4096):
            break  # end-of-file: the kernel is gone or the session closed the pipe
        if not _alive(int(kernel)):
            break
    end_everything(_read(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
