# SPDX-License-Identifier: BSD-3-Clause
"""Running the benchmark programs: where they are built (and bringing that build up to
date), and launching a job of them through dartpy's launch module, with the node layout
of the placement it measures."""

import csv
import importlib.util
import os
import subprocess
import sys
import tempfile

from .results import HEADER

# The source tree: benchmarks/driver/jobs.py is two folders below it.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def _load_launch():
    """python/dartpy/launch.py of this source tree, imported from its file: it knows each
    MPI's mpiexec flags and job environment, and needs neither dartpy nor a venv."""
    path = os.path.join(REPO, "python", "dartpy", "launch.py")
    spec = importlib.util.spec_from_file_location("dart_launch", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


launch = _load_launch()


class JobFailed(Exception):
    """A job, a check of its results or a build step failed: the command exits with 1."""


def venv_python(mpi):
    """The python of the MPI's venv (scripts/setup.sh): dartpy, mpi4py, matplotlib."""
    return os.path.join(REPO, "_venv", mpi, "bin", "python")


def run_job(
    mpi,
    prog,
    args,
    emulate_nodes,
    timeout,
    label,
    n=2,
    units_per_node=None,
    env=None,
    columns=(),
    mpiexec=None,
):
    """Launch prog with args as a job of n processes and return the CSV rows it wrote (a
    dict per row). The program gets `--out FILE` and writes HEADER, `case` and then the
    given columns. emulate_nodes, units_per_node, env, mpiexec: as launch_job."""
    fd, out = tempfile.mkstemp(prefix="dart-bench-", suffix=".csv")
    os.close(fd)
    try:
        res = launch_job(
            mpi,
            [prog] + args + ["--out", out],
            emulate_nodes,
            timeout,
            label,
            n,
            units_per_node,
            env,
            mpiexec,
        )
        with open(out) as f:
            rows = [r for r in csv.DictReader(f, fieldnames=HEADER + ["case"] + list(columns))]
    finally:
        os.unlink(out)
    if res.stdout.strip():
        sys.stderr.write(res.stdout)
    return rows


# The node layout is the driver's to choose for each job: never taken from its own
# environment.
JOB_LAYOUT_VARS = ("DART_UNITS_PER_NODE", "DART_PROGRESS_PER_NODE")


def launch_job(
    mpi, argv, emulate_nodes, timeout, label, n=2, units_per_node=None, env=None, mpiexec=None
):
    """Launch argv as a job of n processes and return launch.run's Result (stdout and
    stderr merged in its stdout); raise JobFailed when it fails or runs out of time.
    emulate_nodes sets DART_UNITS_PER_NODE=1 (units_per_node: another number); env adds
    variables for the job; mpiexec replaces the MPI's own (hosts.mpiexec: two hosts). A
    line on stderr when the job starts and when it is done."""
    launcher = launch.Launcher.of(mpi, mpiexec)
    env_vars = dict(env or {})
    if emulate_nodes or units_per_node:
        env_vars["DART_UNITS_PER_NODE"] = str(units_per_node or 1)
    base = {k: v for k, v in os.environ.items() if k not in JOB_LAYOUT_VARS}
    cmd = launcher.command(n, argv, env_vars)
    sys.stderr.write(f"[bench] {label}: {' '.join(cmd)}\n")
    sys.stderr.flush()
    res = launch.run(cmd, launcher.job_environ(env_vars, base), timeout=timeout, merge_stderr=True)
    if res.timed_out:
        raise JobFailed(f"{label}: timed out after {timeout:g} s\n{res.stdout}")
    if res.returncode != 0:
        raise JobFailed(f"{label}: exit status {res.returncode}\n{res.stdout}")
    sys.stderr.write(f"[bench] done: {label} ({res.seconds:.1f} s)\n")
    sys.stderr.flush()
    return res


def progress_job(units_per_node):
    """(processes, env) of a 2-unit job with one progress process per (emulated) node."""
    n = launch.job_processes(2, units_per_node, 1)
    return n, {"DART_PROGRESS_PER_NODE": "1"}


def placement_label(placement, units):
    """The placement column of a job: `node` or `remote`, with `-oversub` appended when
    the job has more units than the machine has cores."""
    return placement + ("-oversub" if units > launch.cpu_count() else "")


# ---------------------------------------------------------------------------------------
# The build tree
# ---------------------------------------------------------------------------------------
# Found and used when built, never required (bench_latency_f and heat3d_f need
# DART_ENABLE_FORTRAN).
OPTIONAL_PROGRAMS = ["bench_latency_f", "heat3d_f"]


_CURRENT = set()  # MPIs whose build tree and venv this run has already brought up to date


def ensure_current(mpi):
    """Run `DART_MPIS=<mpi> scripts/setup.sh` once per run and MPI, so that _build/<mpi>
    and _venv/<mpi> match the sources: it rebuilds the library, the programs and dartpy
    where they changed and only checks when nothing did (~2 s). Without it, a run after
    a change of the core would time the library (and dartpy) built before it."""
    if mpi in _CURRENT:
        return
    setup = os.path.join(REPO, "scripts", "setup.sh")
    sys.stderr.write(
        f"[bench] DART_MPIS={mpi} scripts/setup.sh (builds what the sources changed)\n"
    )
    rc = subprocess.call(["bash", setup], env=dict(os.environ, DART_MPIS=mpi), stdout=sys.stderr)
    if rc != 0:
        raise JobFailed(
            f"scripts/setup.sh failed for {mpi} (exit {rc}): the build tree may "
            "not match the sources; fix it, or pass --build-dir to use a tree "
            "as it is"
        )
    _CURRENT.add(mpi)


def find_programs(mpi, build_dir, need_dart, extra=()):
    """{name: path} of the programs an experiment runs: bench_mpi_baselines, with
    need_dart also the DART benchmarks and the OPTIONAL_PROGRAMS that are built, plus
    extra. build_dir is used as it is; without it _build/<mpi>, made current first
    (ensure_current). A required program that is not built raises JobFailed."""
    build = build_dir or os.path.join(REPO, "_build", mpi)
    names = (
        ["bench_mpi_baselines"]
        + (["bench_latency", "bench_atomics", "bench_gups"] if need_dart else [])
        + list(extra)
    )
    if not build_dir:
        ensure_current(mpi)
    found = {}
    for n in names + (OPTIONAL_PROGRAMS if need_dart else []):
        for d in ("benchmarks", "examples", "bin", "."):
            p = os.path.join(build, d, n)
            if os.access(p, os.X_OK):
                found[n] = p
                break
    missing = [n for n in names if n not in found]
    if missing:
        hint = ""
        if "bench_latency" in missing:
            lib = os.path.join(build, "libdartmpi.so")
            state = "exists" if os.path.exists(lib) else "is missing too"
            hint = (
                f"\n  bench_latency needs the DART core library ({lib} {state}) and"
                f" the complete headers;\n  use --baselines-only to run the MPI"
                f" baselines alone."
            )
        raise JobFailed(f"not built in {build}: {', '.join(missing)}{hint}")
    return found
