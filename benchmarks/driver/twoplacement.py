# SPDX-License-Identifier: BSD-3-Clause
"""The command of an experiment that is one 2-unit program run at node and at remote
placement (nbi, notify)."""

from .jobs import find_programs, run_job
from .options import parse, program_args
from .results import aggregate, write_csv
from .tables import tables


def two_placement_cmd(argv, prog, what, title, quick_sizes=None, targets=None):
    """Run prog at both placements (--rounds rounds, interleaved), aggregate its rows,
    write them (--csv) and print the generic tables and, where the experiment has
    targets (rows -> target rows), their lines. quick_sizes: the --sizes of --quick."""
    opts = parse(argv, {"csv", "mpi", "quick", "build_dir", "timeout", "sizes", "rounds"})
    mpi = opts["mpi"]
    progs = find_programs(mpi, opts["build_dir"], True, [prog])
    if opts["quick"] and not opts["sizes"] and quick_sizes:
        opts["sizes"] = quick_sizes
    args = program_args(opts)
    per_round = []
    for _ in range(int(opts["rounds"] or 1)):
        rows = []
        for pl in ("node", "remote"):
            rows += run_job(
                mpi,
                progs[prog],
                args + ["--placement", pl],
                pl == "remote",
                float(opts["timeout"]),
                f"{mpi} {what} {pl}",
            )
        per_round.append(rows)
    rows = aggregate(per_round)
    if opts["csv"]:
        write_csv(opts["csv"], rows, mpi)
    print(f"{title}, 2 units, {mpi}")
    print(tables(rows, False))
    for name, measured, verdict in targets(rows) if targets else []:
        print(f"{name}: {measured} {verdict}")
    return 0
