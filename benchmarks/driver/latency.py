# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run latency`: DART's put/get and handles (C, Fortran, Python), atomics and
locks against the MPI baselines of the same run, node and emulated remote placement,
and their target ratios."""

import os
import sys

from .experiment import Experiment
from .jobs import REPO, find_programs, run_job, venv_python
from .options import parse, program_args
from .results import aggregate, write_csv
from .summary import ATOMIC_OPS, summary
from .tables import ROW_ORDER, fmt_us, size_label
from .targets import target_lines

MIB = 1 << 20


def python_jobs(mpi, args):
    """The dartpy and mpi4py jobs (label, program, args, emulate nodes), none when the
    MPI's venv does not exist (scripts/setup.sh makes it)."""
    py = venv_python(mpi)
    script = os.path.join(REPO, "benchmarks", "bench_python.py")
    if not os.access(py, os.X_OK):
        sys.stderr.write(f"[bench] no {py}: dartpy/mpi4py rows skipped (run scripts/setup.sh)\n")
        return []
    return [
        ("dartpy node", py, [script, "--impl", "dartpy", "--placement", "node"] + args, False),
        (
            "dartpy remote (DART_UNITS_PER_NODE=1)",
            py,
            [script, "--impl", "dartpy", "--placement", "remote"] + args,
            True,
        ),
        ("mpi4py", py, [script, "--impl", "mpi4py"] + args, False),
    ]


def cmd_latency(argv):
    opts = parse(
        argv,
        {
            "csv",
            "mpi",
            "quick",
            "rounds",
            "sizes",
            "baselines_only",
            "no_python",
            "build_dir",
            "markdown",
            "timeout",
        },
    )
    mpi = opts["mpi"]
    rounds = int(opts["rounds"] or (1 if opts["quick"] else 3))
    timeout = float(opts["timeout"])
    progs = find_programs(mpi, opts["build_dir"], not opts["baselines_only"])
    args = program_args(opts)
    jobs = [("baselines", progs["bench_mpi_baselines"], args, False)]
    if not opts["baselines_only"]:
        jobs += [
            ("dart node", progs["bench_latency"], args + ["--placement", "node"], False),
            (
                "dart remote (DART_UNITS_PER_NODE=1)",
                progs["bench_latency"],
                args + ["--placement", "remote"],
                True,
            ),
        ]
        if "bench_latency_f" in progs:
            jobs += [
                (
                    "dart-fortran node",
                    progs["bench_latency_f"],
                    args + ["--placement", "node"],
                    False,
                ),
                (
                    "dart-fortran remote (DART_UNITS_PER_NODE=1)",
                    progs["bench_latency_f"],
                    args + ["--placement", "remote"],
                    True,
                ),
            ]
        else:
            sys.stderr.write(
                "[bench] bench_latency_f not built (DART_ENABLE_FORTRAN=OFF?): "
                "no dart-fortran rows\n"
            )
        qa = ["--quick"] if opts["quick"] else []
        jobs += [
            ("atomics node", progs["bench_atomics"], qa + ["--placement", "node"], False),
            (
                "atomics remote (DART_UNITS_PER_NODE=1)",
                progs["bench_atomics"],
                qa + ["--placement", "remote"],
                True,
            ),
        ]
    if not opts["baselines_only"] and not opts["no_python"]:
        jobs += python_jobs(mpi, args)
    per_round = []
    for r in range(rounds):
        rows = []
        # Each round starts with the next job, so that no kind of job always runs first.
        for label, prog, a, emulate in jobs[r % len(jobs) :] + jobs[: r % len(jobs)]:
            rows += run_job(mpi, prog, a, emulate, timeout, f"{mpi} round {r + 1} {label}")
        per_round.append(rows)
    rows = aggregate(per_round)
    key = lambda r: (
        [k for k in ROW_ORDER].index((r["impl"], r["op"]))  # noqa: E731
        if (r["impl"], r["op"]) in ROW_ORDER
        else 99,
        r["placement"],
        int(r["bytes"]),
    )
    rows.sort(key=key)
    if opts["csv"]:
        write_csv(opts["csv"], rows, mpi)
    print(
        f"DART-MPI latency, 2 units, {mpi}, {rounds} round(s)"
        + (" [quick]" if opts["quick"] else "")
    )
    print(
        summary(rows, opts["markdown"], RATIOS if any(r["impl"] == "dart" for r in rows) else None)
    )
    if opts["csv"]:
        print(f"CSV: {opts['csv']}")
    return 0


# ---------------------------------------------------------------------------------------
# Target ratios (sections, see targets.py)
# ---------------------------------------------------------------------------------------
def transfer_ratios(r):
    """Blocking put/get of the C API: node against memcpy through an MPI shared window,
    remote against the better of the MPI RMA window kinds, at every size measured."""
    for dop, bop in (("put_blocking", "put"), ("get_blocking", "get")):
        r.check(
            f"node 8B {dop} vs mpi-shm {bop}",
            r.med("dart", dop, "node", 8),
            r.med("mpi-shm", bop, "node", 8),
            "mpi-shm",
            1.2,
        )
    for dop, bop in (("put_blocking", "put"), ("get_blocking", "get")):
        r.check(
            f"node 1MiB {dop} vs mpi-shm {bop}",
            r.med("dart", dop, "node", MIB),
            r.med("mpi-shm", bop, "node", MIB),
            "mpi-shm",
            1 / 0.95,
            ", i.e. bandwidth >= 0.95x",
        )
    sizes = sorted(
        {
            int(x["bytes"])
            for x in r.rows
            if x["placement"] == "remote" and x["bench"] == "latency" and x["op"] not in ATOMIC_OPS
        }
    )
    for dop, bop in (("put_blocking", "put"), ("get_blocking", "get")):
        for n in sizes:
            cands = [
                (r.med(i, bop, "remote", n), i) for i in ("mpi-rma-allocate", "mpi-rma-dynamic")
            ]
            cands = [c for c in cands if c[0] is not None]
            best = min(cands) if cands else (None, "mpi-rma-*")
            r.check(
                f"remote {size_label(n)} {dop} vs best MPI RMA {bop}",
                r.med("dart", dop, "remote", n),
                best[0],
                best[1],
                1.1,
            )


def fortran_ratios(r):
    """The Fortran module against the C API: same ops, sizes and placements."""
    fsizes = sorted({int(x["bytes"]) for x in r.rows if x["impl"] == "dart-fortran"})
    for pl in ("node", "remote"):
        for op in ("put_blocking", "get_blocking", "put_handle_init", "get_handle_init"):
            for n in fsizes:
                f, c = r.med("dart-fortran", op, pl, n), r.med("dart", op, pl, n)
                if n >= 64 << 10:
                    r.check(f"fortran {pl} {size_label(n)} {op} vs C", f, c, "dart C", 1.05)
                elif n == 8:
                    if f is None or c is None:
                        r.lines.append(f"fortran {pl} 8B {op} vs C: n/a (missing rows)")
                        continue
                    d = (f - c) * 1000.0
                    r.verdict(
                        f"fortran {pl} 8B {op} vs C: {fmt_us(f)} - {fmt_us(c)} us = "
                        f"{d:+.1f} ns (target <= +50 ns; {f / c:.2f}x)",
                        d <= 50.0,
                    )


def atomic_ratios(r):
    """Atomics against the raw MPI call on the window kind DART uses at the placement;
    a lock acquire + release with both units contending."""
    for op in ("fetch_and_op", "compare_and_swap"):
        for pl, base in (("node", "mpi-shm"), ("remote", "mpi-rma-create-shm")):
            if r.med("dart", op, pl, 8) is not None:
                r.check(
                    f"{pl} {op} vs {base} {op}",
                    r.med("dart", op, pl, 8),
                    r.med(base, op, "remote" if base != "mpi-shm" else "node", 8),
                    base,
                    1.1,
                )
    for pl in ("node", "remote"):
        v = r.med("dart", "lock_acquire_release_contended", pl, 4)
        if v is not None:
            r.check(
                f"{pl} lock acquire+release, 2 units contending",
                v,
                1.0,
                "1 us",
                1.5,
                ", i.e. <= 1.5 us",
            )


def python_ratios(r):
    """dartpy: the cost of a call against mpi4py's (and mpi4py's on DART's window kind),
    the bandwidth against the C++ rows of the same run."""
    for pl in ("node", "remote"):
        for dop, mop in (("get_blocking", "get"), ("put_blocking", "put")):
            r.check(
                f"{pl} 8B dartpy {dop} vs mpi4py {mop}",
                r.med("dartpy", dop, pl, 8),
                r.med("mpi4py", mop, pl, 8),
                "mpi4py",
                1.0,
            )
    for dop, mop in (("get_blocking", "get"), ("put_blocking", "put")):
        r.check(
            f"remote 8B dartpy {dop} vs mpi4py {mop} on DART's window kind",
            r.med("dartpy", dop, "remote", 8),
            r.med("mpi4py-create-shm", mop, "remote", 8),
            "mpi4py-create-shm",
            1.0,
        )
    for pl in ("node", "remote"):
        for dop in ("put_blocking", "get_blocking"):
            r.check(
                f"{pl} 1MiB dartpy {dop} vs C++ dart {dop}",
                r.med("dartpy", dop, pl, MIB),
                r.med("dart", dop, pl, MIB),
                "dart C++",
                1.05,
            )


# The sections in the order of their lines. The C API's come before the Python rows'
# so that a `report` over latency and gups files can put gups's in between, where the
# atomics end (doc.REPORT_RATIOS).
C_RATIOS = (transfer_ratios, fortran_ratios, atomic_ratios)
PYTHON_RATIOS = (python_ratios,)
RATIOS = C_RATIOS + PYTHON_RATIOS


EXPERIMENT = Experiment(
    name="latency",
    title="Latency and bandwidth (`benchmarks/run latency`)",
    run=cmd_latency,
    doc_tables=lambda rows: summary(rows, True),
    targets=lambda rows: target_lines("latency", rows, RATIOS),
    # The command's own default (1 round with --quick, else 3), pinned for the suite.
    suite_args=lambda quick: ["--rounds", "1" if quick else "3"],
)
