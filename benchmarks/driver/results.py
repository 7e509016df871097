# SPDX-License-Identifier: BSD-3-Clause
"""Rows of results: the CSV columns, merging the rows of several rounds, and the CSV
files the experiments write and the document is made from."""

import csv
import statistics

# What every benchmark program writes per row (then `case`, see write_csv).
HEADER = ["bench", "impl", "op", "bytes", "units", "placement", "median_us", "min_us", "iters"]
# Further columns of some experiments only (overlap), after `case` and `mpi`.
EXTRA_COLUMNS = ["availability", "overhead_us", "heap_bytes"]


def aggregate(rounds):
    """One row per configuration from the rows of several rounds (a list per round):
    median_us is the smallest of the rounds' medians, min_us the smallest minimum,
    iters the sum; an EXTRA_COLUMNS value is the median over the rounds.

    The smallest median, because a job on these VMs runs at one of three levels of
    cross-process latency, picked by where the host puts the two virtual CPUs for the
    job's duration and not by the program (MPICH's 8 B ping-pong: 0.11, 0.18 or 0.7
    us, DART and MPI alike): rows of two jobs only compare at the same level, while the
    noise inside one job is already filtered by its median."""
    groups, order = {}, []
    for rows in rounds:
        for r in rows:
            key = (
                r["bench"],
                r["impl"],
                r["op"],
                r["bytes"],
                r["units"],
                r["placement"],
                r.get("case") or "",
            )
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append(r)
    out = []
    for key in order:
        g = groups[key]
        row = dict(g[0])
        row["median_us"] = "%.4f" % min(float(r["median_us"]) for r in g)
        row["min_us"] = "%.4f" % min(float(r["min_us"]) for r in g)
        row["iters"] = str(sum(int(r["iters"]) for r in g))
        for col in EXTRA_COLUMNS:  # where the rows have them
            vals = [float(r[col]) for r in g if r.get(col)]
            if vals:
                row[col] = "%.4f" % statistics.median(vals)
        out.append(row)
    return out


def write_csv(path, rows, mpi=None):
    """Write rows with the HEADER columns, then `case` (the program's name for one of its
    configurations, e.g. 3d-32), `mpi` (the run's MPI) and those EXTRA_COLUMNS that the
    rows have (overlap: availability, overhead_us)."""
    extra = [c for c in EXTRA_COLUMNS if any(c in r for r in rows)]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(
            f,
            fieldnames=HEADER + ["case", "mpi"] + extra,
            lineterminator="\n",
            extrasaction="ignore",
        )
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, case=r.get("case") or "", mpi=mpi or r.get("mpi") or ""))


def read_csv(path):
    """The rows of a file that write_csv wrote."""
    with open(path) as f:
        return [r for r in csv.DictReader(f) if r.get("bench")]


def finish(per_round, opts, mpi, title, tables, targets):
    """The end of an experiment's run: its rounds merged (aggregate), the CSV file when
    asked (--csv), the tables (tables(rows, markdown)) under `title` and one line per
    target (targets(rows): (name, measured, verdict)). Returns the exit status 0."""
    rows = aggregate(per_round)
    if opts["csv"]:
        write_csv(opts["csv"], rows, mpi)
    print(f"{title}, {mpi}" + (" [quick]" if opts["quick"] else ""))
    print(tables(rows, False))
    for name, measured, verdict in targets(rows):
        print(f"{name}: {measured} {verdict}")
    return 0
