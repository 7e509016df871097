# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run windows`: the side experiment behind DART's choice of window kinds,
MPI put/get + flush on each kind of MPI window (bench_mpi_baselines)."""

from .experiment import Experiment
from .jobs import find_programs, run_job
from .options import parse
from .results import aggregate, write_csv
from .summary import summary

WINDOW_IMPLS = [
    "mpi-rma-allocate",
    "mpi-rma-create-shm",
    "mpi-rma-create",
    "mpi-rma-dynamic",
    "mpi-rma-dynamic-shm",
]


def cmd_windows(argv):
    opts = parse(
        argv, {"csv", "mpi", "quick", "sizes", "build_dir", "markdown", "timeout", "rounds"}
    )
    mpi = opts["mpi"]
    progs = find_programs(mpi, opts["build_dir"], False)
    args = ["--only", ",".join(WINDOW_IMPLS), "--sizes", opts["sizes"] or "8,64K,1M"]
    if opts["quick"]:
        args.append("--quick")
    rounds = int(opts["rounds"] or 1)
    per_round = [
        run_job(
            mpi,
            progs["bench_mpi_baselines"],
            args,
            False,
            float(opts["timeout"]),
            f"{mpi} windows round {r + 1}",
        )
        for r in range(rounds)
    ]
    rows = aggregate(per_round)
    if opts["csv"]:
        write_csv(opts["csv"], rows, mpi)
    print(f"MPI window kinds, put/get + MPI_Win_flush, 2 ranks on one node, {mpi}")
    print(summary(rows, opts["markdown"]))
    return 0


EXPERIMENT = Experiment(
    name="windows",
    title="Side experiment: MPI window kinds (`benchmarks/run windows`)",
    run=cmd_windows,
    doc_tables=lambda rows: summary(rows, True),
)
