# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run notebook`: notebook sessions (dartpy.session, issue 35), the start-up
of 4 units and the time of an empty cell, with the local launcher and (--slurm, root, a
Slurm of scripts/slurm.sh) as a Slurm job (benchmarks/bench_notebook.py with the venv's
python). Targets: 4 local units ready in <= 4 s, a Slurm session <= 6 s after its job
starts, an empty cell <= 20 ms at 4 units. Not part of `all` (benchmarks/run)."""

import csv
import os
import subprocess
import sys
import tempfile

from .experiment import Experiment
from .jobs import REPO, JobFailed, venv_python
from .options import parse
from .results import HEADER, finish
from .tables import render_table

TARGETS_US = {
    ("start", "local"): 4e6,
    ("start-after-job-start", "slurm"): 6e6,
    ("empty-cell", "local"): 20e3,
    ("empty-cell", "slurm"): 20e3,
}


def _run(py, args, timeout, label):
    fd, out = tempfile.mkstemp(prefix="dart-bench-", suffix=".csv")
    os.close(fd)
    sys.stderr.write(f"[bench] {label} ...\n")
    try:
        res = subprocess.run(
            [py, os.path.join(REPO, "benchmarks", "bench_notebook.py"), "--out", out] + args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
        )
        if res.returncode != 0:
            raise JobFailed(f"{label}: exit status {res.returncode}\n{res.stdout[-3000:]}")
        with open(out) as f:
            return list(csv.DictReader(f, fieldnames=HEADER + ["case"]))
    finally:
        os.unlink(out)


def cmd_notebook(argv):
    opts = parse(argv, {"csv", "mpi", "quick", "timeout", "rounds", "slurm"})
    mpi = opts["mpi"]
    py = venv_python(mpi)
    probe = subprocess.run([py, "-c", "import ipyparallel"], capture_output=True)
    if probe.returncode != 0:
        print(f"notebook: skipped, {py} has no ipyparallel (pip install dart-mpi[notebook])")
        return 0
    args = ["--starts", "1" if opts["quick"] else "3", "--cells", "20" if opts["quick"] else "100"]
    per_round = []
    for r in range(int(opts["rounds"] or 1)):
        rows = _run(py, args, float(opts["timeout"]), f"{mpi} notebook local round {r + 1}")
        if opts.get("slurm"):
            rows += _run(
                py,
                args + ["--slurm"],
                float(opts["timeout"]),
                f"{mpi} notebook slurm round {r + 1}",
            )
        per_round.append(rows)
    return finish(
        per_round, opts, mpi, "Notebook sessions, 4 units", notebook_tables, notebook_targets
    )


def notebook_tables(rows, markdown):
    body = [
        [
            r["placement"],
            r["op"],
            r["units"],
            "%.1f" % (float(r["median_us"]) / 1e3),
            "%.1f" % (float(r["min_us"]) / 1e3),
            r["iters"],
        ]
        for r in rows
    ]
    return render_table(
        ["launcher", "what", "units", "median ms", "min ms", "samples"], body, markdown
    )


def notebook_targets(rows):
    out = []
    for r in rows:
        limit = TARGETS_US.get((r["op"], r["placement"]))
        if limit is None:
            continue
        v = float(r["median_us"])
        out.append(
            (
                f"notebook {r['placement']} {r['op']} ({r['units']} units) <= {limit / 1e3:g} ms",
                f"{v / 1e3:.1f} ms",
                "PASS" if v <= limit else "MISS",
            )
        )
    return out


EXPERIMENT = Experiment(
    name="notebook",
    title="Notebook sessions (`benchmarks/run notebook`, issue 35)",
    run=cmd_notebook,
    doc_tables=lambda rows: notebook_tables(rows, True),
    targets=notebook_targets,
)
