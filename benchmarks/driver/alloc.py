# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run alloc`: collective allocation of equal and per-unit sizes (issue 30):
the time of one dart_team_memalloc_aligned (and its free) and the heap of a live segment
per unit, at equal and unequal sizes, 2 to 64 units on one machine with Open MPI (2 with
MPICH, whose waits busy-poll: more units than cores measure the scheduler), and with --base-lib DIR the same
program against another libdartmpi (the build before the change) for the targets: the
equal-size path no slower and no larger than before."""

import os

from .experiment import Experiment
from .jobs import find_programs, placement_label, run_job
from .options import parse, units_list
from .results import finish
from .tables import render_table
from .targets import bounded, relative

SIZES = "4096,1048576"
# MPICH busy-polls: with more units than cores its numbers measure the scheduler.
UNITS = {"mpich": "2", "openmpi": "2,4,8,16,32,64"}


def cmd_alloc(argv):
    opts = parse(
        argv,
        {"csv", "mpi", "quick", "build_dir", "timeout", "units", "sizes", "rounds", "base_lib"},
    )
    mpi, quick = opts["mpi"], opts["quick"]
    prog = find_programs(mpi, opts["build_dir"], True, ["bench_alloc"])["bench_alloc"]
    args = ["--sizes", opts["sizes"] or SIZES] + (["--quick"] if quick else [])
    timeout = float(opts["timeout"])
    libs = [("dart", None)]
    if opts.get("base_lib"):
        libs.append(("dart-base", os.path.abspath(opts["base_lib"])))
    per_round = []
    for r in range(int(opts["rounds"] or 1)):
        rows = []
        for units in units_list(opts, "2" if quick else UNITS[mpi]):
            for impl, lib in libs:
                env = {"LD_LIBRARY_PATH": lib} if lib else None
                got = run_job(
                    mpi,
                    prog,
                    args + ["--impl", impl],
                    False,
                    timeout,
                    f"{mpi} alloc {impl} {units} units round {r + 1}",
                    n=units,
                    env=env,
                    columns=["heap_bytes"],
                )
                for row in got:
                    row["placement"] = placement_label("node", units)
                rows += got
        per_round.append(rows)
    return finish(per_round, opts, mpi, "collective allocation", alloc_tables, alloc_targets)


def alloc_tables(rows, markdown):
    """Time per allocation and free (median us, a column per units and size) and the heap
    of one live segment per unit (bytes, a column per units, the largest size)."""
    cols = sorted({(int(r["units"]), int(r["bytes"])) for r in rows})
    idx = {(r["impl"], r["op"], int(r["units"]), int(r["bytes"])): r for r in rows}
    keys = sorted({(r["impl"], r["op"]) for r in rows}, key=lambda k: (k[1].split("-")[0], k))
    body = [
        [impl, op]
        + [
            (
                "-"
                if (impl, op, u, b) not in idx
                else f"{float(idx[(impl, op, u, b)]['median_us']):.1f}"
            )
            for u, b in cols
        ]
        for impl, op in keys
    ]
    h = "### " if markdown else ""
    out = (
        h + "dart_team_memalloc_aligned / dart_team_memfree of DART_TEAM_ALL: median us "
        "(the slowest unit)\n"
        + render_table(
            ["impl", "op"] + [f"{u} units {b >> 10} KiB" for u, b in cols], body, markdown
        )
        + "\n"
    )
    big = max((b for _, b in cols), default=0)
    units = sorted({u for u, _ in cols})
    hbody = []
    for impl, op in keys:
        if not op.startswith("alloc-"):
            continue
        cells = [idx.get((impl, op, u, big), {}).get("heap_bytes") for u in units]
        hbody.append(
            [impl, op.replace("alloc-", "")]
            + ["-" if c in (None, "") else f"{float(c):.0f}" for c in cells]
        )
    out += (
        "\n" + h + f"heap of one live segment per unit (bytes: DART's bookkeeping and MPI's"
        f" window objects, {big >> 10} KiB per unit)\n"
        + render_table(["impl", "sizes"] + [f"{u} units" for u in units], hbody, markdown)
        + "\n"
    )
    return out


def alloc_targets(rows):
    """Equal sizes no slower than the base build (<= 1.10x) and no larger on the heap
    (<= 1.02x); unequal sizes relative to equal ones (info)."""
    med = {
        (r["impl"], r["op"], int(r["units"]), int(r["bytes"])): float(r["median_us"]) for r in rows
    }
    heap = {
        (r["impl"], r["op"], int(r["units"]), int(r["bytes"])): float(r.get("heap_bytes") or 0)
        for r in rows
    }
    out = []
    for units, nbytes in sorted({(k[2], k[3]) for k in med}):
        where = f"alloc {units} units {nbytes >> 10} KiB"
        eq, base = (
            med.get(("dart", "alloc-equal", units, nbytes)),
            med.get(("dart-base", "alloc-equal", units, nbytes)),
        )
        out += bounded(f"{where}: equal sizes <= 1.10x the base build", eq, base, 1.10)
        hb = heap.get(("dart-base", "alloc-equal", units, nbytes))
        he = heap.get(("dart", "alloc-equal", units, nbytes))
        if hb and he:
            out += [
                (
                    f"{where}: heap per segment, equal sizes <= 1.02x the base build + 64 B",
                    f"{he:.0f} / {hb:.0f} B",
                    "PASS" if he <= 1.02 * hb + 64 else "MISS",
                )
            ]
        out += relative(
            f"{where}: unequal sizes relative to equal",
            med.get(("dart", "alloc-unequal", units, nbytes)),
            eq,
            "ratio",
        )
    return out


EXPERIMENT = Experiment(
    name="alloc",
    title="Collective allocation of per-unit sizes (`benchmarks/run alloc`, issue 30)",
    run=cmd_alloc,
    doc_tables=lambda rows: alloc_tables(rows, True),
    targets=alloc_targets,
)
