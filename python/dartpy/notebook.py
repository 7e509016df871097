# SPDX-License-Identifier: BSD-3-Clause
"""Run a notebook cell on several DART units: the ``%%dartrun`` cell magic.

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

An exception on one unit ends the whole job (dartpy aborts all units, see dartpy.init),
and the magic raises ``DartRunError`` with the units' output, so a cell never hangs.
"""

from __future__ import annotations

import argparse
import os
import pickle
import shlex
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import launch

__all__ = ["DartRunError", "dartrun", "load_ipython_extension"]


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


def _launcher() -> "launch.Launcher":
    """The mpiexec of the MPI dartpy was built with ($DARTPY_MPIEXEC overrides it)."""
    import dartpy

    build = dartpy.build_info()
    return launch.Launcher(
        build["mpi_flavor"], os.environ.get("DARTPY_MPIEXEC") or build["mpiexec"] or "mpiexec"
    )


def dartrun(
    source: str,
    n: int = 4,
    *,
    gather: Sequence[str] = (),
    upn: Optional[int] = None,
    timeout: float = 120.0,
    cwd: Optional[str] = None,
    echo: bool = True,
) -> Dict[str, List[object]]:
    """Runs ``source`` on n units; returns {name: [value of unit 0, value of unit 1, ...]}.

    The function behind ``%%dartrun``, usable without IPython. Raises DartRunError when a
    unit fails or the job exceeds ``timeout`` seconds (the job is killed then).
    """
    if n < 1:
        raise ValueError("argument 'n' must be >= 1")
    names = [g for g in gather if g]
    for name in names:
        if not name.isidentifier():
            raise ValueError(f"argument 'gather': {name!r} is not a variable name")
    with tempfile.TemporaryDirectory(prefix="dartrun-") as folder:
        script = Path(folder) / "cell.py"
        script.write_text(
            _PROLOGUE
            + textwrap.dedent(source)
            + "\n"
            + _EPILOGUE.format(names=names, folder=folder)
        )
        launcher = _launcher()
        # The kernel may itself be an initialized singleton MPI process: job_environ drops
        # its MPI variables, and DART_UNITS_PER_NODE is the cell's --upn or nothing.
        env_vars = {} if upn is None else {"DART_UNITS_PER_NODE": str(upn)}
        base = {k: v for k, v in os.environ.items() if k != "DART_UNITS_PER_NODE"}
        env = launcher.job_environ(env_vars, base)
        env["PYTHONUNBUFFERED"] = "1"
        cmd = launcher.command(n, [sys.executable, str(script)], env_vars)
        res = launch.run(cmd, env, timeout=timeout, cwd=cwd, merge_stderr=True)
        output = res.stdout
        if res.timed_out:
            raise DartRunError(
                f"%%dartrun: killed after {timeout:g} s ({shlex.join(cmd[:-2])} ...)\n{output}"
            )
        if echo and output:
            sys.stdout.write(output)
        if res.returncode != 0:
            where = "above" if echo else f"below:\n{output[-6000:]}"
            raise DartRunError(
                f"%%dartrun: the job failed (exit status {res.returncode}); "
                f"the units' output is {where}"
            )
        per_unit = []
        for unit in range(n):
            f = Path(folder) / f"unit{unit}.pkl"
            per_unit.append(pickle.loads(f.read_bytes()) if f.exists() else {})
    return {name: [d.get(name) for d in per_unit] for name in names}


def _parse(line: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="%%dartrun", add_help=False)
    p.add_argument("-n", type=int, default=4)
    p.add_argument("--upn", type=int, default=None)
    p.add_argument("--gather", default="")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--cwd", default=None)
    try:
        return p.parse_args(shlex.split(line))
    except SystemExit:
        raise ValueError(
            f"%%dartrun: bad options {line!r}; usage: %%dartrun [-n N] "
            "[--upn K] [--gather a,b] [--timeout S] [--cwd DIR]"
        ) from None


def load_ipython_extension(ipython) -> None:
    """``%load_ext dartpy.notebook`` registers the ``%%dartrun`` cell magic."""

    def dartrun_magic(line: str, cell: str) -> None:
        opts = _parse(line)
        got = dartrun(
            cell,
            opts.n,
            gather=opts.gather.split(","),
            upn=opts.upn,
            timeout=opts.timeout,
            cwd=opts.cwd,
        )
        ipython.user_ns.update(got)

    ipython.register_magic_function(dartrun_magic, magic_kind="cell", magic_name="dartrun")
