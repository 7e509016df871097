# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run nbi`: initiation and completion time of non-blocking transfers (DART
handles, MPI_Rput/Rget, MPI_Put/Get + flush; PGAS'14 Figs. 10-11)."""

from .experiment import Experiment
from .tables import tables
from .twoplacement import two_placement_cmd


def cmd_nbi(argv):
    return two_placement_cmd(argv, "bench_nbi", "nbi", "non-blocking initiation and completion")


EXPERIMENT = Experiment(
    name="nbi",
    title="Non-blocking initiation and completion (`benchmarks/run nbi`, PGAS'14 Figs. 10-11)",
    run=cmd_nbi,
    doc_tables=lambda rows: tables(rows, True),
)
