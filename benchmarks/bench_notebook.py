# SPDX-License-Identifier: BSD-3-Clause
"""Notebook sessions (dartpy.session): start-up time and the time of an empty cell.

Run by `benchmarks/run notebook` with the venv's python (not under mpiexec: a session
starts its own units). Per start: a Session of --units units, its start-up (until every
unit has run its DART initialization), then --cells empty cells (Session.run("pass"),
which waits for every unit); with --slurm the units are a Slurm job (SLURM_CONF must name
a running cluster, e.g. scripts/slurm.sh up) and the row `start-after-job-start` counts
from the moment squeue said RUNNING. Writes the driver's CSV rows to --out.

    python benchmarks/bench_notebook.py --out rows.csv [--units 4] [--starts 3] [--cells 50] [--slurm]
"""

import argparse
import csv
import statistics
import time

from dartpy.session import Session


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--units", type=int, default=4)
    p.add_argument("--starts", type=int, default=3)
    p.add_argument("--cells", type=int, default=50)
    p.add_argument("--slurm", action="store_true")
    a = p.parse_args()
    slurm = dict(nodes=2 if a.units >= 2 else 1, time="00:10:00") if a.slurm else None
    placement = "slurm" if a.slurm else "local"
    starts, after_job, cells = [], [], []
    for _ in range(a.starts):
        with Session(a.units, slurm=slurm, echo=False) as s:
            starts.append(s.startup_seconds)
            if s.ready_after_job_start is not None:
                after_job.append(s.ready_after_job_start)
            s.run("pass")  # the first cell warms the engines' code paths
            for _ in range(a.cells):
                t0 = time.perf_counter()
                s.run("pass")
                cells.append(time.perf_counter() - t0)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        for op, xs in (
            ("start", starts),
            ("start-after-job-start", after_job),
            ("empty-cell", cells),
        ):
            if xs:
                us = [x * 1e6 for x in xs]
                w.writerow(
                    [
                        "notebook",
                        "session",
                        op,
                        0,
                        a.units,
                        placement,
                        "%.1f" % statistics.median(us),
                        "%.1f" % min(us),
                        len(us),
                        op,
                    ]
                )


if __name__ == "__main__":
    main()
