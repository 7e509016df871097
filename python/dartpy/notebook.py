"""Run a notebook cell on several DART units: the ``%%dartrun`` cell magic.

A Jupyter kernel is one process, so it is one DART unit. ``%%dartrun`` runs the body of
a cell as a program under ``mpiexec -n N`` (the launcher of the MPI dartpy was built
with), shows what the units print, and brings named variables back into the notebook::

    %load_ext dartpy.notebook

    %%dartrun -n 4 --gather field,seconds
    import numpy as np
    field = np.full(3, float(dart.myid()))   # every unit has its own value
    seconds = 0.5 * dart.myid()

After the cell, ``field`` and ``seconds`` in the notebook are lists indexed by unit id
(``None`` where a unit did not define the name). Inside the cell, ``dart`` (dartpy,
initialized), ``np`` (NumPy), ``me`` and ``nunits`` are ready; DART is finalized after the
cell. Options:

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
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Dict, List, Optional, Sequence

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


def _launcher(n: int, upn: Optional[int]) -> tuple:
    """mpiexec command prefix and environment for n units."""
    import dartpy

    build = dartpy.build_info()
    mpiexec = os.environ.get("DARTPY_MPIEXEC") or build["mpiexec"] or "mpiexec"
    # The kernel itself may be an initialized singleton MPI process: its PMI/Open MPI
    # variables must not leak into the new job.
    prefixes = ("OMPI_", "PMIX_", "PMI_", "HYDRA_", "HYDI_", "OPAL_", "ORTE_", "MPIR_")
    keep = {"OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"}
    env = {k: v for k, v in os.environ.items() if k in keep or not k.startswith(prefixes)}
    env.pop("DART_UNITS_PER_NODE", None)
    env["PYTHONUNBUFFERED"] = "1"
    cmd = [mpiexec]
    if build["mpi_flavor"] == "openmpi":
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        cmd += ["--oversubscribe"]
        if upn is not None:
            env["DART_UNITS_PER_NODE"] = str(upn)
            cmd += ["-x", "DART_UNITS_PER_NODE"]
    elif upn is not None:
        cmd += ["-genv", "DART_UNITS_PER_NODE", str(upn)]
    return cmd + ["-n", str(n)], env


def dartrun(source: str, n: int = 4, *, gather: Sequence[str] = (), upn: Optional[int] = None,
            timeout: float = 120.0, cwd: Optional[str] = None,
            echo: bool = True) -> Dict[str, List[object]]:
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
        script.write_text(_PROLOGUE + textwrap.dedent(source) + "\n"
                          + _EPILOGUE.format(names=names, folder=folder))
        prefix, env = _launcher(n, upn)
        cmd = prefix + [sys.executable, str(script)]
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            try:
                output, _ = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:  # a unit outside the group keeps the pipe
                proc.stdout.close()
                output = ""
            raise DartRunError(f"%%dartrun: killed after {timeout:g} s "
                               f"({shlex.join(prefix)} ...)\n{output}") from None
        if echo and output:
            sys.stdout.write(output)
        if proc.returncode != 0:
            where = "above" if echo else f"below:\n{output[-6000:]}"
            raise DartRunError(f"%%dartrun: the job failed (exit status {proc.returncode}); "
                               f"the units' output is {where}")
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
        raise ValueError(f"%%dartrun: bad options {line!r}; usage: %%dartrun [-n N] "
                         "[--upn K] [--gather a,b] [--timeout S] [--cwd DIR]") from None


def load_ipython_extension(ipython) -> None:
    """``%load_ext dartpy.notebook`` registers the ``%%dartrun`` cell magic."""

    def dartrun_magic(line: str, cell: str) -> None:
        opts = _parse(line)
        got = dartrun(cell, opts.n, gather=opts.gather.split(","), upn=opts.upn,
                      timeout=opts.timeout, cwd=opts.cwd)
        ipython.user_ns.update(got)

    ipython.register_magic_function(dartrun_magic, magic_kind="cell", magic_name="dartrun")
