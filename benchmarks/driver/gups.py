# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run gups`: HPCC RandomAccess with DART atomics (node and remote) against
plain MPI_Accumulate, and its target: DART's GUPS at least MPI's."""

from .experiment import Experiment
from .jobs import find_programs, run_job
from .options import parse
from .results import aggregate, write_csv
from .summary import summary
from .targets import target_lines


def cmd_gups(argv):
    opts = parse(
        argv, {"csv", "mpi", "quick", "rounds", "build_dir", "markdown", "timeout", "log2_table"}
    )
    mpi = opts["mpi"]
    progs = find_programs(mpi, opts["build_dir"], True)
    args = ["--quick"] if opts["quick"] else []
    if opts.get("log2_table"):
        args += ["--log2-table", str(int(opts["log2_table"]))]
    rounds = int(opts["rounds"] or 1)
    per_round = []
    for r in range(rounds):
        rows = []
        for label, pl, emulate in (
            ("node", "node", False),
            ("remote (DART_UNITS_PER_NODE=1)", "remote", True),
        ):
            rows += run_job(
                mpi,
                progs["bench_gups"],
                args + ["--placement", pl],
                emulate,
                float(opts["timeout"]),
                f"{mpi} gups round {r + 1} {label}",
            )
        per_round.append(rows)
    rows = aggregate(per_round)
    if opts["csv"]:
        write_csv(opts["csv"], rows, mpi)
    print(f"HPCC RandomAccess, 2 units, {mpi}, {rounds} round(s)")
    print(summary(rows, opts["markdown"], RATIOS))
    for r in rows:
        print(
            f"  {r['impl']:5s} {r['placement']:6s} GUPS = "
            f"{int(r['units']) / (float(r['median_us']) * 1000):.5f}"
        )
    if opts["csv"]:
        print(f"CSV: {opts['csv']}")
    return 0


def gups_ratios(r):
    """Time per update of DART (each placement) against MPI's on MPI_Win_allocate: at
    most as long, i.e. GUPS at least MPI's."""
    for pl in ("node", "remote"):
        if r.med("dart", "update", pl, 8) is not None:
            r.check(
                f"gups {pl}: dart us/update vs mpi (GUPS >= mpi's)",
                r.med("dart", "update", pl, 8),
                r.med("mpi", "update", "node", 8),
                "mpi MPI_Win_allocate",
                1.0,
            )


RATIOS = (gups_ratios,)  # target ratio sections, see targets.py


EXPERIMENT = Experiment(
    name="gups",
    title="RandomAccess (`benchmarks/run gups`)",
    run=cmd_gups,
    doc_tables=lambda rows: summary(rows, True),
    targets=lambda rows: target_lines("gups", rows, RATIOS),
)
