# SPDX-License-Identifier: BSD-3-Clause
"""DART units from a notebook: sessions that keep their state (``%dart``, ``%%dart``) and
one-shot cells (``%%dartrun``).

Sessions (dartpy.session, on ipyparallel: ``pip install dart-mpi[notebook]``)::

    %load_ext dartpy.notebook
    %dart start -n 4                        # 4 units here, under the MPI dartpy was built with
    %dart start -n 8 --slurm --nodes 2 --time 00:30:00 [--partition P] [--account A] [--sbatch "..."]

    %%dart
    a = dart.Array((96, 128), np.float64, halo=1)   # lives on every unit until the session ends

    field = %dart gather a                  # the global array in the kernel
    ids = %dart pull me                     # [0, 1, 2, 3]
    %dart status                            # units, hosts, job id, MPI, uptime
    %dart restart
    %dart stop

``%dart start`` options: ``-n N`` (default 4), ``--slurm``, ``--nodes K``, ``--time T``
(always set; default 01:00:00), ``--partition P``, ``--account A``, ``--sbatch "..."``
(more sbatch options), ``--queue-timeout S``, ``--ip ADDR`` (the controller's address
that the units reach), ``--grace S`` (default 5), ``--upn K`` (local only). The same
without IPython: :class:`dartpy.session.Session`, also importable from here.

One-shot cells:

A Jupyter kernel is one process, so it is one DART unit. ``%%dartrun`` runs the body of
a cell as a program under ``mpiexec -n N`` (the launcher of the MPI dartpy was built
with, given the flags and environment of dartpy.launch), shows what the units print, and
brings named variables back into the notebook::

    %load_ext dartpy.notebook

    %%dartrun -n 4 --gather field,seconds
    import numpy as np
    field = np.full(3, float(dart.myid()))   # every unit has its own value
    seconds = 0.5 * dart.myid()

After the cell, ``field`` and ``seconds`` in the notebook are lists indexed by unit id
(``None`` where a unit did not define the name). Inside the cell, ``dart`` (dartpy,
initialized), ``np`` (NumPy), ``me`` and ``nunits`` are ready; DART is finalized after the
cell. Options::

  -n N           number of units (default 4)
  --upn K        DART_UNITS_PER_NODE=K (node emulation: the MPI RMA path)
  --gather a,b   variables to bring back (each unit's value must pickle)
  --timeout S    seconds before the whole job is killed (default 120)
  --cwd DIR      working directory of the units (default: the kernel's)
  --slurm        run as a Slurm job step: ``srun`` inside the kernel's allocation
                 ($SLURM_JOB_ID), else a batch job (sbatch, then waited for)
  --nodes K, --time T, --partition P, --account A, --sbatch "...": as for ``%dart start``

An exception on one unit ends the whole job (dartpy aborts all units, see dartpy.init),
and the magic raises ``DartRunError`` with the units' output, so a cell never hangs.
"""

from __future__ import annotations

import argparse
import os
import pickle
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import launch
from .session import (
    SLURM_MPI,
    Session,
    SessionError,
    SessionLost,
    UnitError,
    mpi_launcher,
)

__all__ = [
    "DartRunError",
    "Session",
    "SessionError",
    "SessionLost",
    "UnitError",
    "dartrun",
    "load_ipython_extension",
]


class DartRunError(RuntimeError):
    """The units of a %%dartrun cell failed or timed out; the message holds their output."""


_PROLOGUE = """\
import pickle as _dartrun_pickle
import numpy as np
import dartpy as dart
dart.init()
me, nunits = dart.myid(), dart.size()
"""

_EPILOGUE = """\
_dartrun_out = {{}}
for _dartrun_name in {names!r}:
    if _dartrun_name in globals():
        _dartrun_out[_dartrun_name] = globals()[_dartrun_name]
with open({folder!r} + "/unit%d.pkl" % me, "wb") as _dartrun_f:
    _dartrun_pickle.dump(_dartrun_out, _dartrun_f)
dart.barrier()
dart.exit()
"""


def dartrun(
    source: str,
    n: int = 4,
    *,
    gather: Sequence[str] = (),
    upn: Optional[int] = None,
    timeout: float = 120.0,
    cwd: Optional[str] = None,
    echo: bool = True,
    slurm: Optional[Mapping[str, Any]] = None,
) -> Dict[str, List[object]]:
    """Runs ``source`` on n units; returns {name: [value of unit 0, value of unit 1, ...]}.

    The function behind ``%%dartrun``, usable without IPython. Raises DartRunError when a
    unit fails or the job exceeds ``timeout`` seconds (the job is killed then).
    ``slurm``: None (mpiexec here) or a dict as for ``Session(slurm=...)``: the cell runs
    as ``srun`` inside the kernel's allocation ($SLURM_JOB_ID), else as a batch job.
    """
    if n < 1:
        raise ValueError("argument 'n' must be >= 1")
    names = [g for g in gather if g]
    for name in names:
        if not name.isidentifier():
            raise ValueError(f"argument 'gather': {name!r} is not a variable name")
    if slurm is not None:
        if upn is not None:
            raise ValueError("argument 'upn' is for local runs (Slurm places the units)")
        slurm = Session._check_slurm(slurm, n)
    # With Slurm the folder must be visible on the compute nodes (the home folder is,
    # at most sites).
    parent = None
    if slurm is not None:
        parent = Path.home() / ".dartpy" / "runs"
        parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dartrun-", dir=parent) as folder:
        script = Path(folder) / "cell.py"
        script.write_text(
            _PROLOGUE
            + textwrap.dedent(source)
            + "\n"
            + _EPILOGUE.format(names=names, folder=folder)
        )
        launcher = mpi_launcher()
        # The kernel may itself be an initialized singleton MPI process: job_environ drops
        # its MPI variables, and DART_UNITS_PER_NODE is the cell's --upn or nothing.
        env_vars = {} if upn is None else {"DART_UNITS_PER_NODE": str(upn)}
        base = {k: v for k, v in os.environ.items() if k != "DART_UNITS_PER_NODE"}
        env = launcher.job_environ(env_vars, base)
        env["PYTHONUNBUFFERED"] = "1"
        if slurm is None:
            cmd = launcher.command(n, [sys.executable, str(script)], env_vars)
            res = launch.run(cmd, env, timeout=timeout, cwd=cwd, merge_stderr=True)
            output, rc, what = res.stdout, res.returncode, shlex.join(cmd[:-2]) + " ..."
        else:
            output, rc, what = _dartrun_slurm(
                launcher.flavor, n, slurm, script, folder, env, timeout, cwd
            )
        if rc is None:
            raise DartRunError(f"%%dartrun: killed after {timeout:g} s ({what})\n{output}")
        if echo and output:
            sys.stdout.write(output)
        if rc != 0:
            where = "above" if echo else f"below:\n{output[-6000:]}"
            raise DartRunError(
                f"%%dartrun: the job failed (exit status {rc}); the units' output is {where}"
            )
        per_unit = []
        for unit in range(n):
            f = Path(folder) / f"unit{unit}.pkl"
            per_unit.append(pickle.loads(f.read_bytes()) if f.exists() else {})
    return {name: [d.get(name) for d in per_unit] for name in names}


def _srun_command(flavor: str, n: int, slurm: Mapping[str, Any]) -> List[str]:
    # One MPI job of n ranks (the --mpi plugin of dartpy's MPI); one bad exit ends all.
    cmd = [
        "srun",
        f"--mpi={SLURM_MPI[flavor]}",
        "--kill-on-bad-exit=1",
        f"--ntasks={n}",
        f"--nodes={slurm['nodes']}",
    ]
    if n % slurm["nodes"] == 0:  # as many units on every node (as a session does)
        cmd.append(f"--ntasks-per-node={n // slurm['nodes']}")
    return cmd


def _dartrun_slurm(flavor, n, slurm, script, folder, env, timeout, cwd):
    """(output, exit status or None after the timeout, what ran) of a %%dartrun --slurm."""
    argv = [sys.executable, str(script)]
    if env.get("SLURM_JOB_ID"):
        # Inside an allocation: a job step. srun's --time ends it, our timeout too.
        cmd = _srun_command(flavor, n, slurm) + [f"--time={slurm['time']}"] + argv
        res = launch.run(cmd, env, timeout=timeout, cwd=cwd, merge_stderr=True)
        return res.stdout, res.returncode, shlex.join(cmd[: -len(argv)]) + " ..."
    # A batch job; waited for by polling squeue four times a second (sbatch --wait polls
    # every 8 s after the first 2).
    out = Path(folder) / "slurm.out"
    status = Path(folder) / "status"
    batch = Path(folder) / "cell.sbatch"
    batch.write_text(
        "#!/bin/bash\n"
        + shlex.join(_srun_command(flavor, n, slurm) + argv)
        + f"\necho $? > {shlex.quote(str(status))}\n"
    )
    opts = [
        "--parsable",
        "--job-name=dartrun",
        f"--nodes={slurm['nodes']}",
        f"--ntasks={n}",
        f"--time={slurm['time']}",
        f"--output={out}",
    ]
    if slurm.get("partition"):
        opts.append(f"--partition={slurm['partition']}")
    if slurm.get("account"):
        opts.append(f"--account={slurm['account']}")
    if cwd:
        opts.append(f"--chdir={cwd}")
    res = subprocess.run(
        ["sbatch"] + opts + slurm["sbatch"] + [str(batch)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    if res.returncode != 0:
        raise DartRunError(f"%%dartrun: sbatch failed: {res.stderr.strip()}")
    job = res.stdout.strip().split(";")[0]
    deadline = time.monotonic() + timeout
    try:
        while True:
            q = subprocess.run(
                ["squeue", "-h", "-j", job, "-o", "%T"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                timeout=30,
            )
            if q.returncode == 0 and not q.stdout.strip():
                break
            if time.monotonic() > deadline:
                subprocess.run(["scancel", job], timeout=30)
                text = out.read_text(errors="replace") if out.exists() else ""
                return text, None, f"Slurm job {job}"
            time.sleep(0.25)
    except BaseException:  # interrupted: never leave the job behind
        subprocess.run(["scancel", job], timeout=30)
        raise
    text = out.read_text(errors="replace") if out.exists() else ""
    try:
        rc = int(status.read_text().strip())
    except (OSError, ValueError):
        rc = 1  # the batch script did not get to write its status (cancelled, time limit)
    return text, rc, f"Slurm job {job}"


def _slurm_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--slurm", action="store_true")
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--time", default=None)
    p.add_argument("--partition", default=None)
    p.add_argument("--account", default=None)
    p.add_argument("--sbatch", default=None)


def _slurm_dict(opts: argparse.Namespace, extra: Optional[Dict[str, Any]] = None):
    if not opts.slurm:
        for name in ("time", "partition", "account", "sbatch"):
            if getattr(opts, name):
                raise ValueError(f"--{name} needs --slurm")
        return None
    d: Dict[str, Any] = {"nodes": opts.nodes}
    for name in ("time", "partition", "account", "sbatch"):
        if getattr(opts, name):
            d[name] = getattr(opts, name)
    d.update(extra or {})
    return d


def _parse(line: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="%%dartrun", add_help=False)
    p.add_argument("-n", type=int, default=4)
    p.add_argument("--upn", type=int, default=None)
    p.add_argument("--gather", default="")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--cwd", default=None)
    _slurm_options(p)
    try:
        return p.parse_args(shlex.split(line))
    except SystemExit:
        raise ValueError(
            f"%%dartrun: bad options {line!r}; usage: %%dartrun [-n N] "
            "[--upn K] [--gather a,b] [--timeout S] [--cwd DIR] [--slurm [--nodes K] "
            "[--time T] [--partition P] [--account A] [--sbatch '...']]"
        ) from None


# ---------------------------------------------------------------------------------------
# %dart and %%dart: one session per kernel
# ---------------------------------------------------------------------------------------
_USAGE = (
    "usage: %dart start [-n N] [--slurm [--nodes K] [--time T] [--partition P] "
    "[--account A] [--sbatch '...'] [--queue-timeout S]] [--ip ADDR] [--grace S] [--upn K]"
    " | stop | restart | status | gather NAME | pull NAME"
)

_session: Optional[Session] = None


def current_session() -> Session:
    """The session of ``%dart start`` (SessionError if there is none)."""
    if _session is None or not _session.alive:
        raise SessionError("no session is running: %dart start -n N [--slurm ...]")
    return _session


def _parse_start(args: List[str]) -> Dict[str, Any]:
    p = argparse.ArgumentParser(prog="%dart start", add_help=False)
    p.add_argument("-n", type=int, default=4)
    _slurm_options(p)
    p.add_argument("--queue-timeout", type=float, default=None)
    p.add_argument("--ip", default=None)
    p.add_argument("--grace", type=float, default=5.0)
    p.add_argument("--upn", type=int, default=None)
    try:
        o = p.parse_args(args)
    except SystemExit:
        raise ValueError(f"%dart start: bad options {shlex.join(args)!r}; {_USAGE}") from None
    extra = {} if o.queue_timeout is None else {"queue_timeout": o.queue_timeout}
    if o.queue_timeout is not None and not o.slurm:
        raise ValueError("--queue-timeout needs --slurm")
    return dict(n=o.n, slurm=_slurm_dict(o, extra), ip=o.ip, grace=o.grace, upn=o.upn)


def dart_line(line: str) -> Any:
    """The ``%dart`` line magic without IPython: ``dart_line("start -n 4")``."""
    global _session
    args = shlex.split(line)
    if not args:
        raise ValueError(_USAGE)
    cmd, rest = args[0], args[1:]
    if cmd == "start":
        if _session is not None and _session.alive:
            raise SessionError("a session is running: %dart stop or %dart restart first")
        kwargs = _parse_start(rest)
        _session = Session(**kwargs)
        st = _session.status()
        where = f"Slurm job {st['job_id']}" if st["job_id"] else "here"
        print(
            f"{st['units']} units ({where}, {st['mpi']}) on "
            f"{', '.join(sorted(set(st['hosts'])))}, ready in {st['startup_seconds']:.1f} s"
        )
        return None
    if cmd == "stop":
        if _session is not None:
            _session.stop()
            _session = None
        return None
    if cmd == "restart":
        current = _session
        if current is None:
            raise SessionError("no session to restart: %dart start")
        current.restart()
        print(f"restarted: {current.n} units, ready in {current.startup_seconds:.1f} s")
        return None
    if cmd == "status":
        if _session is None:
            print("no session")
            return None
        st = _session.status()
        job = f", Slurm job {st['job_id']}" if st["job_id"] else ""
        print(
            f"{'running' if st['running'] else 'ended'}: {st['units']} units, "
            f"{st['launcher']}{job}, {st['mpi']}, up {st['uptime']:.0f} s"
        )
        for unit, host in enumerate(st["hosts"]):
            print(f"  unit {unit}: {host}")
        return None
    if cmd in ("gather", "pull"):
        if len(rest) != 1:
            raise ValueError(f"%dart {cmd} NAME (one variable name); {_USAGE}")
        s = current_session()
        return s.gather_array(rest[0]) if cmd == "gather" else s.pull(rest[0])
    raise ValueError(f"%dart: unknown command {cmd!r}; {_USAGE}")


def load_ipython_extension(ipython) -> None:
    """``%load_ext dartpy.notebook`` registers ``%%dartrun``, ``%dart`` and ``%%dart``."""

    def dartrun_magic(line: str, cell: str) -> None:
        opts = _parse(line)
        got = dartrun(
            cell,
            opts.n,
            gather=opts.gather.split(","),
            upn=opts.upn,
            timeout=opts.timeout,
            cwd=opts.cwd,
            slurm=_slurm_dict(opts),
        )
        ipython.user_ns.update(got)

    def dart_magic(line: str, cell: Optional[str] = None) -> Any:
        if cell is None:
            return dart_line(line)
        if line.strip():
            raise ValueError("%%dart takes no options (start a session with %dart start)")
        current_session().run(cell)
        return None

    ipython.register_magic_function(dartrun_magic, magic_kind="cell", magic_name="dartrun")
    ipython.register_magic_function(dart_magic, magic_kind="line_cell", magic_name="dart")
