# SPDX-License-Identifier: BSD-3-Clause
"""Interactive parallel sessions: DART units that keep their state across notebook cells.

A :class:`Session` starts an ipyparallel controller beside the kernel and ``n`` ipyparallel
engines as one MPI job, either here (under the ``mpiexec`` of the MPI dartpy was built
with, see dartpy.launch) or as a Slurm job (``srun --mpi=pmi2`` for MPICH,
``--mpi=pmix`` for Open MPI). Every engine is one DART unit; ``dart`` (initialized once),
``np``, ``me`` and ``nunits`` are ready in its namespace::

    from dartpy.notebook import Session
    with Session(n=4) as s:                                 # or slurm=dict(nodes=2, time="00:30:00")
        s.run("a = dart.Array((96, 128), np.float64, halo=1)")
        s.run("a.interior[...] = me")                      # a is still there
        field = s.gather_array("a")                        # the global array, here
        ids = s.pull("me")                                 # [0, 1, 2, 3]

``%load_ext dartpy.notebook`` gives the same as the ``%dart`` and ``%%dart`` magics.
ipyparallel is an optional dependency: ``pip install dart-mpi[notebook]``.

What a session guarantees (each point is tested through a real kernel, locally and under
a real Slurm):

- The units are one MPI world of the requested size, or the session refuses to start
  (an engine started without the right ``--mpi`` plugin is a silent singleton).
- With Slurm no unit and no MPI process runs in the kernel's machine: the controller
  (no MPI) runs here, the units in the job. While the job is pending the session prints
  its state ("waiting for Slurm job 12: PENDING (Resources)") and gives up after
  ``queue_timeout`` seconds.
- A cell never hangs the notebook. An exception on a unit raises :class:`UnitError` in
  the kernel with the unit id and the traceback; the session lives on. If other units
  are still busy ``grace`` seconds later (e.g. in a barrier the failed unit never
  reached), the session ends its units and raises :class:`SessionLost`, saying which
  units were blocked where. A unit that dies ends the session (``SessionLost``) within
  seconds. Ctrl-C (a kernel interrupt) sends SIGINT to the units; if they are not all
  done ``grace`` seconds later, the session ends and says so.
- Nothing outlives the session: :meth:`Session.stop`, and a watchdog process beside the
  units (dartpy._watchdog) that ends the Slurm job (``scancel``) or the local processes
  when the kernel ends in any way, SIGKILL included; a Slurm job always has ``--time``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from . import _watchdog, launch

__all__ = ["Session", "SessionError", "SessionLost", "UnitError", "mpi_launcher"]

# Slurm's --mpi plugin for the MPI dartpy was built with (Debian 12: MPICH has PMI2,
# Open MPI has PMIx; the other plugin starts every unit as a singleton).
SLURM_MPI = {"mpich": "pmi2", "openmpi": "pmix"}
DEFAULT_TIME = "01:00:00"
# The controller's heartbeat period (ms). ipyparallel's default, 3 s, is most of its
# start-up time: an engine counts as registered after its first heartbeat.
HEARTBEAT_MS = 250


class SessionError(RuntimeError):
    """A session could not start, or is not running."""

    def _render_traceback_(self) -> List[str]:
        # IPython shows this instead of the kernel-side frames, which say nothing.
        return [f"{type(self).__name__}: {self}"]


class SessionLost(SessionError):
    """The session ended during a call (a unit died, units were blocked, Ctrl-C could
    not interrupt them); the units' state is lost. ``Session.restart()`` starts anew."""


class UnitError(RuntimeError):
    """A cell raised on some units; ``tracebacks`` maps unit id to its traceback text.
    The session lives on."""

    def __init__(self, message: str, tracebacks: Dict[int, str]):
        super().__init__(message)
        self.tracebacks = tracebacks
        self.units = sorted(tracebacks)

    def _render_traceback_(self) -> List[str]:
        return [f"{type(self).__name__}: {self}"]


def mpi_launcher() -> "launch.Launcher":
    """The mpiexec of the MPI dartpy was built with ($DARTPY_MPIEXEC overrides it)."""
    import dartpy

    build = dartpy.build_info()
    return launch.Launcher(
        build["mpi_flavor"], os.environ.get("DARTPY_MPIEXEC") or build["mpiexec"] or "mpiexec"
    )


def _outward_address() -> str:
    """An address of this machine that other hosts reach: the one of the route to the
    Slurm controller's host, else of the hostname, else loopback."""
    for host in (os.environ.get("SLURMCTLD_HOST"), "192.0.2.1", "10.255.255.255"):
        if not host:
            continue
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((host, 9))  # no packet is sent
                return s.getsockname()[0]
        except OSError:
            continue
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


_PROLOGUE = """\
import faulthandler as _dart_fh, os as _dart_os, signal as _dart_signal, socket as _dart_socket
from mpi4py import MPI as _dart_MPI
_dart_world = (_dart_MPI.COMM_WORLD.Get_rank(), _dart_MPI.COMM_WORLD.Get_size(),
               _dart_socket.gethostname(), _dart_os.getpid())
import numpy as np
import dartpy as dart
dart.init(abort_on_exception=False)
me, nunits = dart.myid(), dart.size()
_dart_stack = open({folder!r} + "/stack-%d.txt" % me, "w")
_dart_fh.register(_dart_signal.SIGUSR1, file=_dart_stack, all_threads=True)
del _dart_fh, _dart_os, _dart_signal, _dart_socket, _dart_MPI
"""


@contextlib.contextmanager
def _no_interrupts():
    """SIGINT ignored while a session ends its units (a second Ctrl-C, or Jupyter's
    repeated interrupt, must not leave the job half ended); main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _check_time(value: str) -> str:
    # Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
    if not re.fullmatch(r"(\d+-)?\d+(:\d+){0,2}", str(value)):
        raise ValueError(f"slurm 'time': {value!r} is not a Slurm time (e.g. 00:30:00)")
    return str(value)


class Session:
    """``n`` DART units as ipyparallel engines that keep their state across cells.

    Arguments:

    - ``n``: number of units.
    - ``slurm``: None (units here, under mpiexec) or a dict with ``nodes``, ``time``
      (default 01:00:00; always set), ``partition``, ``account``, ``sbatch`` (more sbatch
      options, one string), ``queue_timeout`` (seconds to wait while the job is pending,
      default 600).
    - ``ip``: the address the controller binds and the units connect to (default:
      loopback here; with Slurm every interface, advertised as this machine's outward
      address).
    - ``grace``: seconds that the other units get to finish after one failed or after
      Ctrl-C before the session is ended (default 5).
    - ``upn``: DART_UNITS_PER_NODE for the units (node emulation; local sessions).
    - ``start_timeout``: seconds for the units to register once running (default 60).
    - ``folder``: parent of the session's folder (connection files, logs). With Slurm it
      must be visible on the compute nodes: the default is ~/.dartpy/sessions.
    - ``echo``: print the units' output after each cell.
    """

    def __init__(
        self,
        n: int = 4,
        *,
        slurm: Optional[Mapping[str, Any]] = None,
        ip: Optional[str] = None,
        grace: float = 5.0,
        upn: Optional[int] = None,
        start_timeout: float = 60.0,
        folder: Optional[str] = None,
        echo: bool = True,
    ):
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"argument 'n' must be an int >= 1, not {n!r}")
        if grace <= 0:
            raise ValueError(f"argument 'grace' must be > 0, not {grace!r}")
        if upn is not None and upn < 1:
            raise ValueError(f"argument 'upn' must be >= 1, not {upn!r}")
        self.n = n
        self.grace = float(grace)
        self.upn = upn
        self.start_timeout = float(start_timeout)
        self.echo = echo
        self.ip = ip
        self.slurm = self._check_slurm(slurm, n) if slurm is not None else None
        if self.slurm is not None and upn is not None:
            raise ValueError("argument 'upn' is for local sessions (Slurm places the units)")
        self._parent = folder
        self.launcher = mpi_launcher()
        self._watchdog: Optional[subprocess.Popen] = None
        self._controller: Optional[subprocess.Popen] = None
        self._engines: Optional[subprocess.Popen] = None
        self.job_id: Optional[str] = None
        self.client = None
        self.units: List[Dict[str, Any]] = []  # unit id -> engine, host, pid
        self.started: Optional[float] = None
        self.startup_seconds: Optional[float] = None
        self.folder: Optional[str] = None
        self._start()

    # -- configuration ----------------------------------------------------------------
    @staticmethod
    def _check_slurm(slurm: Mapping[str, Any], n: int) -> Dict[str, Any]:
        if not isinstance(slurm, Mapping):
            raise TypeError("argument 'slurm' must be a dict (nodes=, time=, ...) or None")
        known = {"nodes", "time", "partition", "account", "sbatch", "queue_timeout"}
        bad = sorted(set(slurm) - known)
        if bad:
            raise ValueError(f"argument 'slurm': unknown keys {bad} (known: {sorted(known)})")
        out = dict(slurm)
        nodes = out.get("nodes", 1)
        if not isinstance(nodes, int) or nodes < 1 or nodes > n:
            raise ValueError(f"slurm 'nodes' must be an int in 1..{n} (n), not {nodes!r}")
        out["nodes"] = nodes
        out["time"] = _check_time(out.get("time") or DEFAULT_TIME)
        out["sbatch"] = shlex.split(out.get("sbatch") or "")
        out["queue_timeout"] = float(out.get("queue_timeout", 600.0))
        for cmd in ("sbatch", "squeue", "scancel"):
            if shutil.which(cmd) is None:
                raise SessionError(f"slurm: {cmd} is not on PATH")
        return out

    # -- start ------------------------------------------------------------------------
    def _state(self) -> dict:
        groups = [p.pid for p in (self._controller, self._engines) if p is not None]
        return {
            "kernel_pid": os.getpid(),
            "groups": groups,
            "jobs": [self.job_id] if self.job_id else [],
            "scancel": shutil.which("scancel") or "scancel",
            "folder": self.folder,
            "remove_folder": True,
            "kill_grace": 1.0,
        }

    def _save_state(self) -> None:
        path = Path(self.folder) / "watchdog.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._state()))
        os.replace(tmp, path)

    def _popen(self, cmd: List[str], log: str, env: Optional[Mapping[str, str]] = None):
        with open(Path(self.folder) / log, "ab") as out:
            return subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=None if env is None else dict(env),
                start_new_session=True,
            )

    def _start(self) -> None:
        try:
            import ipyparallel  # noqa: F401
        except ImportError:
            raise SessionError(
                "a session needs ipyparallel: pip install dart-mpi[notebook]"
            ) from None
        t0 = time.monotonic()
        self._job_started: Optional[float] = None
        self.ready_after_job_start: Optional[float] = None
        if self.slurm is not None and self._parent is None:
            parent = Path.home() / ".dartpy" / "sessions"
            parent.mkdir(parents=True, exist_ok=True)
        else:
            parent = Path(self._parent) if self._parent else None
        self.folder = tempfile.mkdtemp(prefix="dart-session-", dir=parent)
        os.chmod(self.folder, 0o700)
        self._save_state()
        # The watchdog first: from here on, nothing outlives the kernel.
        self._watchdog = subprocess.Popen(
            [sys.executable, _watchdog.__file__, str(Path(self.folder) / "watchdog.json")],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            # The units start while the controller does (they wait for its files).
            self._start_controller()
            if self.slurm is None:
                self._start_local()
                self._wait_controller()
            else:
                self._start_slurm()
                self._wait_controller()
                self._wait_running()
            self._connect()
        except BaseException:
            self._end()
            raise
        self.started = time.time()
        self.startup_seconds = time.monotonic() - t0
        if self._job_started is not None:
            self.ready_after_job_start = time.monotonic() - self._job_started

    def _start_controller(self) -> None:
        cid = uuid.uuid4().hex[:10]
        profile = Path(self.folder) / "profile"
        profile.mkdir()
        if self.ip:
            bind, location = self.ip, self.ip
        elif self.slurm is not None:
            bind, location = "*", _outward_address()
        else:
            bind, location = "127.0.0.1", "127.0.0.1"
        self._cid, self._profile = cid, profile
        self._controller = self._popen(
            [
                sys.executable,
                "-m",
                "ipyparallel.controller",
                f"--profile-dir={profile}",
                f"--cluster-id={cid}",
                f"--ip={bind}",
                f"--location={location}",
                f"--ping={HEARTBEAT_MS}",
                # A unit counts as dead after 10 s without a heartbeat, not 2.5 s: a busy
                # machine delays beats. Deaths show sooner through the engines' nannies.
                f"--HeartMonitor.max_heartmonitor_misses={10_000 // HEARTBEAT_MS}",
                "--log-level=WARN",
            ],
            "controller.log",
            launch.clean_environ(),
        )
        self._save_state()
        sec = profile / "security"
        self._client_file = sec / f"ipcontroller-{cid}-client.json"
        self._engine_file = sec / f"ipcontroller-{cid}-engine.json"

    def _wait_controller(self) -> None:
        deadline = time.monotonic() + 30
        while not (self._client_file.exists() and self._engine_file.exists()):
            if self._controller.poll() is not None:
                raise SessionError(
                    f"the ipyparallel controller ended:\n{self._log('controller.log')}"
                )
            if time.monotonic() > deadline:
                raise SessionError("the ipyparallel controller did not start within 30 s")
            time.sleep(0.02)

    def _engine_argv(self) -> List[str]:
        return [
            sys.executable,
            "-m",
            "ipyparallel.engine",
            f"--file={self._engine_file}",
            f"--profile-dir={self._profile}",
            f"--cluster-id={self._cid}",
            "--mpi",
            # An engine whose controller is gone ends by itself after 40 missed heartbeats.
            "--IPEngine.max_heartbeat_misses=40",
            "--IPEngine.wait_for_url_file=60",
            "--log-level=ERROR",
        ]

    def _start_local(self) -> None:
        env_vars = {} if self.upn is None else {"DART_UNITS_PER_NODE": str(self.upn)}
        base = {k: v for k, v in os.environ.items() if k != "DART_UNITS_PER_NODE"}
        env = self.launcher.job_environ(env_vars, base)
        env["PYTHONUNBUFFERED"] = "1"
        cmd = self.launcher.command(self.n, self._engine_argv(), env_vars)
        self._engines = self._popen(cmd, "engines.log", env)
        self._save_state()

    def batch_script(self) -> str:
        """The Slurm batch script of this session (``--time`` is always set)."""
        s = self.slurm
        assert s is not None
        lines = [
            "#!/bin/bash",
            "#SBATCH --job-name=dart-session",
            f"#SBATCH --nodes={s['nodes']}",
            f"#SBATCH --ntasks={self.n}",
            f"#SBATCH --time={s['time']}",
            f"#SBATCH --output={self.folder}/slurm-%j.out",
        ]
        if self.n % s["nodes"] == 0:
            lines.append(f"#SBATCH --ntasks-per-node={self.n // s['nodes']}")
        if s.get("partition"):
            lines.append(f"#SBATCH --partition={s['partition']}")
        if s.get("account"):
            lines.append(f"#SBATCH --account={s['account']}")
        mpi = SLURM_MPI[self.launcher.flavor]
        lines += [
            "export PYTHONUNBUFFERED=1",
            # One MPI job: every engine a rank of one world; one engine that dies ends all.
            f"exec srun --mpi={mpi} --kill-on-bad-exit=1 --ntasks={self.n} "
            + shlex.join(self._engine_argv()),
        ]
        return "\n".join(lines) + "\n"

    def _start_slurm(self) -> None:
        s = self.slurm
        assert s is not None
        script = Path(self.folder) / "session.sbatch"
        script.write_text(self.batch_script())
        env = self.launcher.job_environ({}, os.environ)
        res = subprocess.run(
            ["sbatch", "--parsable"] + s["sbatch"] + [str(script)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        if res.returncode != 0:
            raise SessionError(
                f"sbatch failed (exit status {res.returncode}): {res.stderr.strip()}\n"
                "If your site needs an account or a QOS, give slurm=dict(account=..., "
                "sbatch='--qos=...') or %dart start --slurm --account A --sbatch '--qos=Q'."
            )
        self.job_id = res.stdout.strip().split(";")[0]
        self._save_state()

    def _wait_running(self) -> None:
        s = self.slurm
        assert s is not None
        # Wait while the job is pending, with a state line.
        deadline = time.monotonic() + s["queue_timeout"]
        shown = None
        while True:
            state, reason = self._job_state()
            if state == "RUNNING":
                self._job_started = time.monotonic()
                break
            if state not in ("PENDING", "CONFIGURING", ""):
                raise SessionError(
                    f"Slurm job {self.job_id} is {state} ({reason}) before its units "
                    f"started:\n{self._log(f'slurm-{self.job_id}.out')}"
                )
            line = f"waiting for Slurm job {self.job_id}: {state or 'submitted'} ({reason})"
            if line != shown and self.echo:
                print(line, flush=True)
                shown = line
            if time.monotonic() > deadline:
                raise SessionError(
                    f"Slurm job {self.job_id} still {state} ({reason}) after "
                    f"{s['queue_timeout']:g} s: cancelled"
                )
            time.sleep(0.25)

    def _job_state(self) -> tuple:
        """(state, reason) of the Slurm job; ("", "") while squeue does not list it yet
        and ("GONE", ...) when it has left the queue."""
        res = subprocess.run(
            ["squeue", "-h", "-j", str(self.job_id), "-o", "%T|%r"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        out = res.stdout.strip()
        if not out:
            return ("GONE", "no longer in squeue") if res.returncode == 0 else ("", "")
        state, _, reason = out.partition("|")
        return state, reason

    def _launcher_alive(self) -> Optional[str]:
        """None while the units' job runs, else what happened to it."""
        if self._engines is not None:
            rc = self._engines.poll()
            return None if rc is None else f"mpiexec ended with exit status {rc}"
        if self.job_id is not None:
            state, reason = self._job_state()
            if state in ("RUNNING", ""):
                return None
            return f"Slurm job {self.job_id} is {state} ({reason})"
        return "no units were started"

    def _connect(self) -> None:
        import ipyparallel as ipp

        self.client = ipp.Client(str(self._client_file), profile_dir=str(self._profile), timeout=30)
        deadline = time.monotonic() + self.start_timeout
        last_check = 0.0
        while len(self.client.ids) < self.n:
            if time.monotonic() - last_check > 0.5:
                last_check = time.monotonic()
                dead = self._launcher_alive()
                if dead:
                    raise SessionError(f"the units did not start: {dead}\n{self._units_log()}")
            if time.monotonic() > deadline:
                raise SessionError(
                    f"only {len(self.client.ids)} of {self.n} units registered within "
                    f"{self.start_timeout:g} s\n{self._units_log()}"
                )
            time.sleep(0.02)
        ids = sorted(self.client.ids)
        if len(ids) != self.n:
            raise SessionError(f"{len(ids)} engines registered for {self.n} units: {ids}")
        # One round trip: each engine's MPI rank, world size, host and pid, then DART.
        view = self.client[ids]
        try:
            view.execute(_PROLOGUE.format(folder=self.folder), block=True)
        except Exception as e:  # e.g. dart.init failing on the units: say what they said
            lines = [ln for ln in str(e).splitlines() if ln.strip()]
            raise SessionError(
                "DART did not initialize on the units: "
                + "; ".join(dict.fromkeys(lines[-4:]))
                + f"\n{self._units_log()}"
            ) from None
        got = view.pull(["_dart_world", "me"], block=True)
        info = [tuple(w) for w, _ in got]
        mes = [m for _, m in got]
        ranks = sorted(r for r, _, _, _ in info)
        sizes = sorted({s for _, s, _, _ in info})
        if ranks != list(range(self.n)) or sizes != [self.n]:
            how = (
                f"srun --mpi={SLURM_MPI[self.launcher.flavor]}"
                if self.slurm is not None
                else self.launcher.mpiexec
            )
            raise SessionError(
                f"the {self.n} units are not one MPI world of {self.n}: MPI ranks {ranks}, "
                f"world sizes {sizes} (singletons: {how} did not start them as one job, "
                "is it the launcher of the MPI dartpy was built with?)"
            )
        by_unit: Dict[int, Dict[str, Any]] = {}
        for eid, unit, (rank, _, host, pid) in zip(ids, mes, info):
            by_unit[unit] = {"engine": eid, "rank": rank, "host": host, "pid": pid}
        if sorted(by_unit) != list(range(self.n)):
            raise SessionError(f"DART unit ids of the engines are {sorted(by_unit)}")
        self.units = [by_unit[u] for u in range(self.n)]

    # -- logs -------------------------------------------------------------------------
    def _log(self, name: str, tail: int = 4000) -> str:
        try:
            text = (Path(self.folder) / name).read_text(errors="replace")
        except (OSError, TypeError):
            return ""
        return text[-tail:]

    def _units_log(self) -> str:
        name = "engines.log" if self.slurm is None else f"slurm-{self.job_id}.out"
        text = self._log(name)
        return f"the units' log ({name}):\n{text}" if text.strip() else ""

    # -- state ------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """True while the session runs (its units are not checked here: see status())."""
        return self.client is not None

    def _need(self) -> None:
        if self.client is None:
            raise SessionError("the session is not running (start a new one, or restart())")

    def status(self) -> Dict[str, Any]:
        """units, hosts per unit, launcher, job id, MPI, uptime, whether the units live."""
        running = self.client is not None and self._launcher_alive() is None
        return {
            "running": running,
            "units": self.n,
            "hosts": [u["host"] for u in self.units],
            "launcher": "slurm" if self.slurm is not None else "local",
            "job_id": self.job_id,
            "mpi": self.launcher.flavor,
            "uptime": (time.time() - self.started) if (self.started and running) else 0.0,
            "startup_seconds": self.startup_seconds,
            "ready_after_job_start": self.ready_after_job_start,
            "folder": self.folder,
        }

    def __repr__(self) -> str:
        st = "running" if self.client is not None else "stopped"
        where = f"Slurm job {self.job_id}" if self.slurm is not None else "local"
        return f"<dartpy Session: {self.n} units, {where}, {self.launcher.flavor}, {st}>"

    # -- cells ------------------------------------------------------------------------
    def run(self, code: str, *, echo: Optional[bool] = None) -> List[Any]:
        """Runs ``code`` on every unit; returns per unit the text (repr) of the value of
        its last expression, None where it has none (``pull`` brings values). Raises UnitError (an exception on some units, the
        session lives on) or SessionLost (the session had to end)."""
        self._need()
        echo = self.echo if echo is None else echo
        code = textwrap.dedent(code)
        ars = [
            self.client[u["engine"]].execute(code, silent=False, block=False) for u in self.units
        ]
        failed_at = None
        last_check = time.monotonic()
        try:
            while True:
                pending = [i for i, ar in enumerate(ars) if not ar.ready()]
                errors = [i for i, ar in enumerate(ars) if ar.ready() and not ar.successful()]
                if not pending:
                    break
                died = self._death(ars, errors)
                if died:
                    self._lose(f"{died}: the session ended", ars, code, echo, log=True)
                if errors and failed_at is None:
                    failed_at = time.monotonic()
                if failed_at is not None and time.monotonic() - failed_at > self.grace:
                    self._lose_blocked(
                        f"unit(s) {self._ids(errors)} raised, and unit(s) "
                        f"{self._ids(pending)} were still blocked {self.grace:g} s later:",
                        pending,
                        ars,
                        code,
                        echo,
                    )
                if time.monotonic() - last_check > 1.0:
                    last_check = time.monotonic()
                    dead = self._launcher_alive()
                    if dead:
                        self._lose(
                            f"the units' job ended ({dead}): the session ended",
                            ars,
                            code,
                            echo,
                            log=True,
                        )
                ars[pending[0]].wait(0.01)
        except KeyboardInterrupt:
            self._interrupt(ars, code, echo)
        died = self._death(ars, range(len(ars)))
        if died:
            self._lose(f"{died}: the session ended", ars, code, echo, log=True)
        self._show(ars, echo)
        errors = {i: self._traceback(ar) for i, ar in enumerate(ars) if not ar.successful()}
        if errors:
            first = min(errors)
            raise UnitError(
                f"the cell raised on unit(s) {self._ids(errors)}; unit {first}:\n{errors[first]}",
                errors,
            )
        return [self._value(ar) for ar in ars]

    @staticmethod
    def _ids(units) -> str:
        return ", ".join(str(u) for u in sorted(units))

    def _death(self, ars, errors) -> Optional[str]:
        """Which units died, if the error of a finished cell says a unit died. MPI often
        ends the whole job when one unit dies, so the others' death notices follow within
        moments: they are waited for briefly and all named."""
        import ipyparallel as ipp

        def dead(indices) -> List[int]:
            out = []
            for i in indices:
                if not ars[i].ready():
                    continue
                try:
                    ars[i].get(0)
                except ipp.error.EngineError:
                    out.append(i)
                except ipp.error.RemoteError as e:
                    if e.ename == "EngineError":
                        out.append(i)
                except Exception:
                    continue
            return out

        if not dead(errors):
            return None
        time.sleep(0.3)
        units = dead(range(len(ars)))
        return f"unit(s) {self._ids(units)} died (or were ended with the job)"

    @staticmethod
    def _traceback(ar) -> str:
        try:
            ar.get(0)
        except Exception as e:
            tb = getattr(e, "traceback", None)
            if isinstance(tb, str) and tb:
                return re.sub(r"\x1b\[[0-9;]*m", "", tb)
            return f"{type(e).__name__}: {e}"
        return ""

    @staticmethod
    def _value(ar) -> Any:
        res = ar.get(0)
        er = getattr(res, "execute_result", None) if res is not None else None
        if er is None:
            er = getattr(ar, "execute_result", None)
        if er is None:
            return None
        data = er.get("data", {}) if isinstance(er, dict) else getattr(er, "data", {})
        return data.get("text/plain")

    def _show(self, ars, echo: bool) -> None:
        """The units' output, grouped and prefixed by unit id, in unit order."""
        if not echo:
            return
        # A result may arrive before the output of its cell (separate channels).
        deadline = time.monotonic() + 5.0
        for ar in ars:
            if ar.ready():
                ar.wait_for_output(max(0.0, deadline - time.monotonic()))
        for i, ar in enumerate(ars):
            for stream, where in (("stdout", sys.stdout), ("stderr", sys.stderr)):
                text = getattr(ar, stream, "") or ""
                if isinstance(text, list):
                    text = "".join(t or "" for t in text)
                if text:
                    where.write(
                        "".join(f"[{i}] {line}\n" for line in text.rstrip("\n").split("\n"))
                    )
            where = sys.stdout
            where.flush()
            outputs = getattr(ar, "outputs", None) or []
            if outputs and isinstance(outputs[0], list):
                outputs = [o for per in outputs for o in per]
            if outputs:
                self._display(i, outputs)
        sys.stdout.flush()
        sys.stderr.flush()

    @staticmethod
    def _display(unit: int, outputs) -> None:
        try:
            from IPython.display import publish_display_data
        except ImportError:
            return
        for out in outputs:
            data = out.get("data", {}) if isinstance(out, dict) else getattr(out, "data", {})
            md = out.get("metadata", {}) if isinstance(out, dict) else getattr(out, "metadata", {})
            if data:
                print(f"[{unit}] (display)")
                publish_display_data(data, md)

    def _where(self, units: List[int], code: str) -> str:
        """Where the given units are: each one's innermost Python frame and its cell
        line, from a faulthandler dump (SIGUSR1, delivered by the engines' nannies)."""
        eids = [self.units[u]["engine"] for u in units]
        sizes = {u: self._stack_size(u) for u in units}
        try:
            self.client.send_signal(signal.SIGUSR1, targets=eids, block=True)
        except Exception as e:  # the controller may be gone: say so
            return f"  (their stacks could not be asked for: {e})"
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and any(self._stack_size(u) <= sizes[u] for u in units):
            time.sleep(0.05)
        time.sleep(0.1)
        lines = code.split("\n")
        out = []
        for u in units:
            text = self._stack_text(u)[sizes[u] :]
            out.append(f"  unit {u}: {self._describe(text, lines)}")
        return "\n".join(out)

    def _stack_path(self, unit: int) -> Path:
        return Path(self.folder) / f"stack-{unit}.txt"

    def _stack_size(self, unit: int) -> int:
        try:
            return self._stack_path(unit).stat().st_size
        except OSError:
            return 0

    def _stack_text(self, unit: int) -> str:
        try:
            return self._stack_path(unit).read_text(errors="replace")
        except OSError:
            return ""

    @staticmethod
    def _describe(dump: str, cell: List[str]) -> str:
        frame = re.compile(r'File "([^"]+)", line (\d+) in (\S+)')
        # The thread that runs the cell is the one with a module-level frame.
        for block in re.split(r"\n(?=(?:Current thread|Thread) 0x)", dump):
            frames = frame.findall(block)
            top = [f for f in frames if f[2] == "<module>"]
            if not top:
                continue
            inner = frames[0]
            line = int(top[0][1])
            src = cell[line - 1].strip() if 0 < line <= len(cell) else "?"
            text = f"cell line {line}: {src}"
            if inner != top[0]:
                text += f" (in {inner[2]}, {os.path.basename(inner[0])}:{inner[1]})"
            return text
        return "no Python frame of the cell found (not in a cell?)"

    def _interrupt(self, ars, code: str, echo: bool) -> None:
        """Ctrl-C: SIGINT to the busy units; end the session if they stay busy."""
        busy = [i for i, ar in enumerate(ars) if not ar.ready()]
        try:
            try:
                self.client.send_signal(
                    signal.SIGINT, targets=[self.units[u]["engine"] for u in busy], block=True
                )
            except Exception:
                pass
            deadline = time.monotonic() + self.grace
            while time.monotonic() < deadline and not all(ar.ready() for ar in ars):
                time.sleep(0.05)
        except KeyboardInterrupt:
            pass  # Ctrl-C again: wait no longer
        busy = [i for i, ar in enumerate(ars) if not ar.ready()]
        if busy:
            self._lose_blocked(
                f"interrupted: unit(s) {self._ids(busy)} could not be interrupted within "
                f"{self.grace:g} s:",
                busy,
                ars,
                code,
                echo,
            )
        self._show(ars, echo)
        sys.stderr.write("interrupted: every unit stopped its cell; the session lives on\n")
        raise KeyboardInterrupt

    def _lose_blocked(self, why: str, blocked, ars, code: str, echo: bool) -> None:
        """Ends the session, saying where the blocked units are; immune to Ctrl-C."""
        with _no_interrupts():
            where = self._where(blocked, code)
            self._lose(f"{why}\n{where}\nthe session ended its units", ars, code, echo)

    def _lose(self, why: str, ars, code: str, echo: bool, log: bool = False) -> None:
        import ipyparallel as ipp

        why += "; its state is lost (restart() starts a new session)"
        for i, ar in enumerate(ars):
            if ar.ready() and not ar.successful():
                try:
                    ar.get(0)
                except ipp.error.EngineError:
                    continue  # "died while running": said already
                except ipp.error.RemoteError as e:
                    if e.ename == "EngineError":
                        continue
                except Exception:
                    pass
                why += f"\nunit {i}: {self._traceback(ar).strip()}"
        try:
            self._show(ars, echo=echo and all(ar.ready() for ar in ars))
        except Exception:
            pass
        text = self._units_log() if log else ""
        with _no_interrupts():
            self._end()
        raise SessionLost(why + (f"\n{text[-1500:]}" if text else ""))

    # -- data -------------------------------------------------------------------------
    def pull(self, name: str) -> List[Any]:
        """The value of ``name`` on every unit, as a list indexed by unit id (each value
        must pickle)."""
        self._need()
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"argument 'name': {name!r} is not a variable name")
        import ipyparallel as ipp

        values = []
        for i, u in enumerate(self.units):
            try:
                values.append(self.client[u["engine"]].pull(name, block=True))
            except ipp.error.RemoteError as e:
                if e.ename == "NameError":
                    raise NameError(f"name {name!r} is not defined on unit {i}") from None
                raise UnitError(
                    f"unit {i}: cannot pull {name!r}: {e.ename}: {e.evalue}", {i: str(e)}
                ) from None
        return values

    def gather_array(self, name: str, root: int = 0):
        """The global NumPy array of the dart.Array ``name``: ``a.gather(root)`` on the
        units, then one transfer from unit ``root`` into the kernel."""
        self._need()
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"argument 'name': {name!r} is not a variable name")
        if not 0 <= root < self.n:
            raise ValueError(f"argument 'root' must be in 0..{self.n - 1}, not {root}")
        self.run(
            f"_dart_gathered = {name}.gather({root}) if isinstance({name}, dart.Array) "
            f"else None\nif not isinstance({name}, dart.Array):\n"
            f"    raise TypeError('{name} is ' + type({name}).__name__ + ', not a dart.Array')",
            echo=False,
        )
        eng = self.client[self.units[root]["engine"]]
        try:
            return eng.pull("_dart_gathered", block=True)
        finally:
            self.run("del _dart_gathered", echo=False)

    # -- end --------------------------------------------------------------------------
    def _end(self, wait_gone: bool = False) -> None:
        """Ends everything this session started (idempotent); ``wait_gone``: until the
        Slurm job has left the queue, not only its units."""
        client, self.client = self.client, None
        if client is not None:
            try:
                client.close()
            except Exception:
                pass
        if self.folder is None:
            return
        state = self._state()
        state["remove_folder"] = False
        _watchdog.end_everything(state)
        for proc in (self._controller, self._engines):
            if proc is not None:
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        if self._watchdog is not None:
            try:
                self._watchdog.stdin.close()
                self._watchdog.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                launch.kill_group(self._watchdog, grace=1.0)
            self._watchdog = None
        if self.slurm is not None and self.job_id is not None:
            # scancel returns before the job's units are gone; wait for that.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    state_, _ = self._job_state()
                except (OSError, subprocess.TimeoutExpired):
                    break
                # COMPLETING: its units are killed (SIGKILL); Slurm still waits for the
                # engines' helper processes. stop() waits until the job has left squeue.
                if state_ == "GONE" or (not wait_gone and state_ == "COMPLETING"):
                    break
                time.sleep(0.2)
        shutil.rmtree(self.folder, ignore_errors=True)

    def stop(self) -> None:
        """Ends the units (the Slurm job, or the local processes) and the controller;
        returns when the job has left Slurm's queue."""
        with _no_interrupts():
            self._end(wait_gone=True)

    def restart(self) -> "Session":
        """Stops the session and starts a new one with the same arguments."""
        self._end()
        self.job_id = None
        self._controller = self._engines = None
        self.units = []
        self.started = self.startup_seconds = None
        self._start()
        return self

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __del__(self):
        # Only a safety net; the watchdog is the guarantee.
        try:
            if self.client is not None:
                self._end()
        except Exception:
            pass
