# SPDX-License-Identifier: BSD-3-Clause
"""How to launch an MPI job for DART-MPI, for MPICH and for Open MPI: the one place.

Used by the dartpy tests (tests/python/launcher.py), the ``%%dartrun`` cell magic
(dartpy.notebook), ``benchmarks/run``, ``scripts/demo.sh`` and, at configure time, by
CMake's test registration (cmake/DartMpiTest.cmake, through ``--print-cmake``). It needs
the Python standard library only and never imports ``dartpy._core``, so it also runs as a
plain script from a source tree::

    python3 python/dartpy/launch.py --mpi openmpi -n 4 --timeout 60 -- ./app args
    python3 python/dartpy/launch.py --mpi mpich --dry-run -n 2 --env DART_UNITS_PER_NODE=1 -- ./app
    python3 python/dartpy/launch.py --mpi openmpi --print-cmake
    python3 python/dartpy/launch.py --mpi mpich -n 2 --progress 1 --env DART_UNITS_PER_NODE=1 -- ./app
    python3 python/dartpy/launch.py --processes-for 3 2 1

Progress processes (``--progress K``): ``-n`` then counts DART units, not processes.
launch.py sets DART_PROGRESS_PER_NODE=K on every rank and starts
``job_processes(n, upn, K)`` processes, where upn is the DART_UNITS_PER_NODE given with
``--env`` (none: the machine is one node). ``--processes-for UNITS UPN K`` only prints
that number (UPN 0 or ``none``: no emulation); CMake's test registration asks it once
per job shape.

What each MPI needs (Debian 12: MPICH 4.0 with hydra, Open MPI 4.1):

- Open MPI refuses to run as root unless OMPI_ALLOW_RUN_AS_ROOT=1 and
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set; it refuses more ranks than cores unless
  ``--oversubscribe`` is given (also set as OMPI_MCA_rmaps_base_oversubscribe=1, which
  covers a job that mpiexec starts indirectly); it binds ranks to cores by default, which
  pins two concurrent jobs (``ctest -j``) onto the same cores, so ``--bind-to none``
  (MPICH's hydra does not bind by default either). A variable reaches the ranks on every
  node only with ``-x NAME=VALUE``.
- No ``--mca btl ...`` flag, ever: it would replace Debian's ``btl = ^uct,openib,ofi``
  (/etc/openmpi/openmpi-mca-params.conf) and bring back btl ofi, which then carries osc
  rdma's atomics and strided puts and aborts ("fi_fetch_atomic failed ... Function not
  implemented") or corrupts them.
- MPICH's hydra runs as root and oversubscribes without flags; ``-genv NAME VALUE`` sets a
  variable on every rank. ``-hosts nodeA:2,nodeB:2 -launcher fork`` makes it place ranks
  on two emulated hosts of one machine (MPI then sees two nodes); Open MPI has no cheap
  equivalent.
- A process that initialized MPI as a singleton (a Jupyter kernel, pytest) or was started
  by mpiexec carries the MPI library's own variables (OMPI_*, PMIX_*, PMI_*, HYDRA_*, ...):
  a new mpiexec must not inherit them, or its ranks join the wrong job.
- A job that exceeds its time limit is ended as a whole: it runs in its own session
  (process group), which gets SIGTERM, then SIGKILL, so no rank is left behind.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = [
    "FLAVORS",
    "Launcher",
    "Result",
    "clean_environ",
    "cpu_count",
    "detect_flavor",
    "job_processes",
    "kill_group",
    "run",
]

FLAVORS = ("mpich", "openmpi")

# Prefixes of the variables an MPI library or its launcher puts into a process's
# environment; a new job never inherits them (except the two run-as-root switches).
MPI_ENV_PREFIXES = (
    "OMPI_",
    "PMIX_",
    "PMI_",
    "HYDRA_",
    "HYDI_",
    "MPIR_",
    "OPAL_",
    "ORTE_",
    "MPICH_",
    "I_MPI_",
)
_KEEP = frozenset({"OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"})

# Seconds a job gets between SIGTERM and SIGKILL, and to hand back its output after each.
KILL_GRACE = 5.0


def job_processes(units: int, units_per_node: int = 0, progress_per_node: int = 0) -> int:
    """Processes to start for ``units`` DART units on one machine with
    DART_UNITS_PER_NODE=``units_per_node`` (0: unset, one node) and
    DART_PROGRESS_PER_NODE=``progress_per_node``: every (emulated) node adds its progress
    processes, which are not units. dart_init's rule (cpp/src/progress.cc): a node's
    processes in MPI_COMM_WORLD rank order are split into groups of units_per_node +
    progress_per_node, and the last progress_per_node processes of each group serve it."""
    if units < 1 or units_per_node < 0 or progress_per_node < 0:
        raise ValueError(
            f"bad job shape: {units} units, {units_per_node} per node, "
            f"{progress_per_node} progress processes per node"
        )
    nodes = 1 if units_per_node == 0 else -(-units // units_per_node)
    return units + nodes * progress_per_node


def cpu_count() -> int:
    """Cores this process may run on (the affinity mask where there is one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def detect_flavor(mpiexec: str) -> str:
    """'mpich' or 'openmpi', from ``mpiexec --version`` (the same test as CMakeLists.txt)."""
    try:
        out = subprocess.run(
            [mpiexec, "--version"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=20,
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ValueError(f"cannot run {mpiexec} --version: {e}") from None
    if re.search(r"Open ?MPI|OpenRTE", out):
        return "openmpi"
    if re.search(r"HYDRA|MPICH", out):
        return "mpich"
    raise ValueError(f"{mpiexec} is neither MPICH's nor Open MPI's mpiexec")


def clean_environ(base: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """``base`` (default os.environ) without the MPI library's own variables."""
    base = os.environ if base is None else base
    return {k: v for k, v in base.items() if k in _KEEP or not k.startswith(MPI_ENV_PREFIXES)}


@dataclass(frozen=True)
class Launcher:
    """The mpiexec of one MPI and what it needs: ``Launcher.of("openmpi")``."""

    flavor: str
    mpiexec: str

    def __post_init__(self) -> None:
        if self.flavor not in FLAVORS:
            raise ValueError(f"unknown MPI flavor {self.flavor!r} (use mpich or openmpi)")

    @classmethod
    def of(cls, flavor: Optional[str] = None, mpiexec: Optional[str] = None) -> "Launcher":
        """The launcher of ``flavor`` (default: asked from ``mpiexec``); ``mpiexec``
        defaults to ``mpiexec.<flavor>`` on PATH (Debian's names), else ``mpiexec``."""
        if not flavor and not mpiexec:
            raise ValueError("give the MPI flavor or its mpiexec")
        if not mpiexec:
            mpiexec = shutil.which(f"mpiexec.{flavor}") or shutil.which("mpiexec") or "mpiexec"
        if not flavor:
            flavor = detect_flavor(mpiexec)
        return cls(flavor, mpiexec)

    def flags(self) -> List[str]:
        """Flags that every job of this MPI gets, before ``-n``."""
        if self.flavor == "openmpi":
            return ["--oversubscribe", "--bind-to", "none"]
        return []

    def environment(self) -> Dict[str, str]:
        """Variables that mpiexec itself needs in its environment."""
        if self.flavor == "openmpi":
            return {
                "OMPI_ALLOW_RUN_AS_ROOT": "1",
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1",
            }
        return {}

    def forward(self, name: str, value: str) -> List[str]:
        """Flags that set NAME=VALUE on every rank."""
        if self.flavor == "openmpi":
            return ["-x", f"{name}={value}"]
        return ["-genv", name, str(value)]

    def hosts(self, hosts: Sequence[Tuple[str, int]]) -> Optional[List[str]]:
        """Flags that place the ranks on emulated hosts [(name, ranks), ...] of this
        machine, or None if this MPI cannot do it without help (Open MPI)."""
        return self._hosts(",".join(f"{h}:{k}" for h, k in hosts))

    def _hosts(self, spec: str) -> Optional[List[str]]:
        # hydra with `-launcher fork` never contacts or resolves the names: it only uses
        # them to place ranks, and MPICH then treats each name as a node.
        if self.flavor != "mpich":
            return None
        return ["-hosts", spec, "-launcher", "fork"]

    def command(
        self,
        n: int,
        argv: Sequence[str],
        env_vars: Optional[Mapping[str, str]] = None,
        hosts: Optional[Sequence[Tuple[str, int]]] = None,
    ) -> List[str]:
        """``mpiexec <flags> [<hosts>] <forwarded env_vars> -n n argv...``."""
        if n < 1:
            raise ValueError(f"number of processes must be >= 1, not {n}")
        cmd = [self.mpiexec] + self.flags()
        if hosts:
            placed = self.hosts(hosts)
            if placed is None:
                raise ValueError(f"{self.flavor}: emulated hosts are not supported")
            cmd += placed
        for k in sorted(env_vars or {}):
            cmd += self.forward(k, env_vars[k])
        return cmd + ["-n", str(n)] + [str(a) for a in argv]

    def job_environ(
        self, env_vars: Optional[Mapping[str, str]] = None, base: Optional[Mapping[str, str]] = None
    ) -> Dict[str, str]:
        """The environment for mpiexec: ``base`` (default os.environ) cleaned of MPI
        variables, plus what this MPI needs, plus ``env_vars`` (also forwarded by
        command())."""
        env = clean_environ(base)
        env.update(self.environment())
        env.update({k: str(v) for k, v in (env_vars or {}).items()})
        return env


@dataclass
class Result:
    """A finished job: ``returncode`` is None when it was killed after its timeout."""

    cmd: List[str]
    returncode: Optional[int]
    stdout: str
    stderr: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def kill_group(proc: subprocess.Popen, grace: float = KILL_GRACE) -> Tuple[str, str]:
    """Ends the process group of ``proc`` (SIGTERM, then SIGKILL) and returns what it
    wrote; never blocks for much more than 2 x ``grace`` seconds, even if a descendant
    that left the group keeps the pipes open."""
    out = err = ""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            o, e = proc.communicate(timeout=grace)
            return o or "", e or ""
        except subprocess.TimeoutExpired:
            continue
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    return out, err


def run(
    cmd: Sequence[str],
    env: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
    cwd: Optional[str] = None,
    capture: bool = True,
    merge_stderr: bool = False,
) -> Result:
    """Runs ``cmd`` in its own session; on timeout (and if the caller is interrupted,
    e.g. Ctrl-C) the whole process group is killed. ``capture``: collect stdout and
    stderr (``merge_stderr``: both into stdout) instead of passing them through."""
    cmd = [str(c) for c in cmd]
    out_pipe = subprocess.PIPE if capture else None
    err_pipe = (subprocess.STDOUT if merge_stderr else subprocess.PIPE) if capture else None
    t0 = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        env=None if env is None else dict(env),
        cwd=cwd,
        stdout=out_pipe,
        stderr=err_pipe,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        rc: Optional[int] = proc.returncode
    except subprocess.TimeoutExpired:
        out, err = kill_group(proc)
        rc = None
    except BaseException:  # interrupted: never leave the job behind
        kill_group(proc)
        raise
    return Result(cmd, rc, out or "", err or "", time.monotonic() - t0)


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------
def _cmake_list(items: Sequence[str]) -> str:
    for item in items:
        if ";" in item or "]==]" in item:
            raise ValueError(f"cannot write {item!r} as a CMake list element")
    return "[==[" + ";".join(items) + "]==]"


def print_cmake(launcher: Launcher) -> str:
    """CMake code that tells cmake/DartMpiTest.cmake how to launch this MPI's tests."""
    env = [f"{k}={v}" for k, v in sorted(launcher.environment().items())]
    fwd = launcher.forward("@NAME@", "@VALUE@")
    hosts = launcher._hosts("@HOSTS@")  # CMake fills in name:ranks,name:ranks
    lines = [
        f"# Written by {os.path.basename(__file__)} --print-cmake for {launcher.flavor}.",
        f"set(DART_LAUNCH_FLAVOR {_cmake_list([launcher.flavor])})",
        f"set(DART_LAUNCH_FLAGS {_cmake_list(launcher.flags())})",
        f"set(DART_LAUNCH_ENV {_cmake_list(env)})",
        f"set(DART_LAUNCH_FORWARD {_cmake_list(fwd)})",
        f"set(DART_LAUNCH_HOSTS {_cmake_list(hosts or [])})",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(
        prog="launch.py",
        description="Run a program under the mpiexec of MPICH or Open MPI "
        "with the flags and environment it needs (see the module documentation).",
    )
    p.add_argument("--mpi", choices=FLAVORS, help="MPI flavor (default: asked from --mpiexec)")
    p.add_argument("--mpiexec", help="launcher (default: mpiexec.<flavor> on PATH)")
    p.add_argument(
        "-n",
        type=int,
        default=1,
        help="number of processes (default 1); with --progress: of DART units",
    )
    p.add_argument(
        "--progress",
        type=int,
        default=None,
        metavar="K",
        help="K progress processes per (emulated) node: sets "
        "DART_PROGRESS_PER_NODE=K and starts job_processes(n, upn, K) processes",
    )
    p.add_argument(
        "--processes-for",
        nargs=3,
        metavar=("UNITS", "UPN", "K"),
        help="print job_processes(UNITS, UPN, K) and exit (UPN 0 or none: no node emulation)",
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a variable on every rank (repeatable)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds before the whole job is killed (exit status 124)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the command, run nothing")
    p.add_argument(
        "--print-cmake",
        action="store_true",
        help="print the launch facts as CMake code (cmake/DartMpiTest.cmake)",
    )
    p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
    a = p.parse_args(argv)
    if a.processes_for:
        units, upn, k = a.processes_for
        try:
            print(job_processes(int(units), 0 if upn == "none" else int(upn), int(k)))
        except ValueError as e:
            p.error(f"--processes-for: {e}")
        return 0
    try:
        launcher = Launcher.of(a.mpi, a.mpiexec)
    except ValueError as e:
        p.error(str(e))
    if a.print_cmake:
        sys.stdout.write(print_cmake(launcher))
        return 0
    prog = a.program[1:] if a.program[:1] == ["--"] else a.program
    if not prog:
        p.error("no program given")
    env_vars = {}
    for item in a.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            p.error(f"--env wants NAME=VALUE, not {item!r}")
        env_vars[name] = value
    nprocs = a.n
    if a.progress is not None:
        upn = env_vars.get("DART_UNITS_PER_NODE", "").strip()
        try:
            nprocs = job_processes(a.n, int(upn) if upn else 0, a.progress)
        except ValueError as e:
            p.error(f"--progress: {e}")
        env_vars["DART_PROGRESS_PER_NODE"] = str(a.progress)
    cmd = launcher.command(nprocs, prog, env_vars)
    if a.dry_run:
        print(shlex.join(cmd))
        return 0
    # A SIGTERM (e.g. from an outer `timeout`) ends the job too.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        res = run(cmd, launcher.job_environ(env_vars), timeout=a.timeout, capture=False)
    except KeyboardInterrupt:
        return 130
    if res.timed_out:
        sys.stderr.write(f"launch.py: killed after {a.timeout:g} s: {shlex.join(cmd)}\n")
        return 124
    return res.returncode


if __name__ == "__main__":
    sys.exit(main())
