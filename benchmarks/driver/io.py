# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run io`: the save and load of a distributed array as one .npy file
(dart_array_save/_load, issue 29) on 1, 2 and 4 units against raw MPI-IO of the same
subarrays (bench_io, one job) and against one process's np.save/np.load of the same array
(bench_io_numpy.py), and its targets: within 1.10x of raw MPI-IO from 64 MiB on."""

import os

from .experiment import Experiment
from .jobs import REPO, find_programs, run_job, venv_python
from .options import parse, units_list
from .results import finish
from .tables import render_table
from .targets import bounded, relative

SIZES_MIB = "8,64,256,1024"
QUICK_SIZES_MIB = "8,64"
OPS = (
    ("dart", "save"),
    ("mpi-io", "write"),
    ("numpy", "save"),
    ("dart", "load"),
    ("mpi-io", "read"),
    ("numpy", "load"),
)


def cmd_io(argv):
    opts = parse(
        argv,
        {"csv", "mpi", "quick", "build_dir", "timeout", "units", "sizes", "rounds", "no_python"},
    )
    mpi, quick = opts["mpi"], opts["quick"]
    progs = find_programs(mpi, opts["build_dir"], True, ["bench_io"])
    sizes = opts["sizes"] or (QUICK_SIZES_MIB if quick else SIZES_MIB)
    reps = "1" if quick else "3"
    timeout = float(opts["timeout"])
    py = venv_python(mpi)
    per_round = []
    for r in range(int(opts["rounds"] or 1)):
        rows = []
        for units in units_list(opts, "1,2" if quick else "1,2,4"):
            rows += run_job(
                mpi,
                progs["bench_io"],
                ["--mib", sizes, "--reps", reps],
                False,
                timeout,
                f"{mpi} io {units} units round {r + 1}",
                n=units,
            )
        if not opts["no_python"] and os.access(py, os.X_OK):
            rows += run_job(
                mpi,
                py,
                [
                    os.path.join(REPO, "benchmarks", "bench_io_numpy.py"),
                    "--mib",
                    sizes,
                    "--reps",
                    reps,
                ],
                False,
                timeout,
                f"{mpi} io numpy round {r + 1}",
                n=1,
            )
        per_round.append(rows)
    return finish(per_round, opts, mpi, "array files (.npy)", io_tables, io_targets)


def gbps(row):
    """Bandwidth of a row in GB/s (10^9 bytes per second of its median)."""
    return int(row["bytes"]) / (float(row["median_us"]) * 1e3)


def io_tables(rows, markdown):
    """A row per (impl, op), a column per (units, size): median bandwidth in GB/s."""
    cols = sorted({(int(r["units"]), int(r["bytes"])) for r in rows if r["impl"] != "numpy"})
    idx = {(r["impl"], r["op"], int(r["units"]), int(r["bytes"])): r for r in rows}
    body = []
    for impl, op in OPS:
        if not any(k[:2] == (impl, op) for k in idx):
            continue
        cells = []
        for units, nbytes in cols:
            r = idx.get((impl, op, 1 if impl == "numpy" else units, nbytes))
            cells.append("-" if r is None else f"{gbps(r):.2f}")
        body.append([impl, op] + cells)
    head = ("### " if markdown else "") + (
        "save and load of one .npy file: median GB/s (numpy: one process, the same in every column)"
    )
    return (
        head
        + "\n"
        + render_table(
            ["impl", "op"] + [f"{u} units {n >> 20} MiB" for u, n in cols], body, markdown
        )
        + "\n"
    )


def io_targets(rows):
    """dart save/load within 1.10x of raw MPI-IO from 64 MiB on (per units and size);
    info: np.save/np.load of one process relative to dart."""
    med = {
        (r["impl"], r["op"], int(r["units"]), int(r["bytes"])): float(r["median_us"]) for r in rows
    }
    out = []
    for units, nbytes in sorted({(k[2], k[3]) for k in med if k[0] == "dart"}):
        where = f"io {units} units {nbytes >> 20} MiB"
        for op, raw in (("save", "write"), ("load", "read")):
            d, m = med.get(("dart", op, units, nbytes)), med.get(("mpi-io", raw, units, nbytes))
            if nbytes >= 64 << 20:
                out += bounded(f"{where}: dart {op} <= 1.10x mpi-io {raw}", d, m, 1.10)
            else:
                out += relative(f"{where}: dart {op} relative to mpi-io {raw}", d, m)
            out += relative(
                f"{where}: numpy {op} (one process) relative to dart {op}",
                med.get(("numpy", op, 1, nbytes)),
                d,
            )
    return out


EXPERIMENT = Experiment(
    name="io",
    title="Array files (`benchmarks/run io`, issue 29)",
    run=cmd_io,
    doc_tables=lambda rows: io_tables(rows, True),
    targets=io_targets,
)
