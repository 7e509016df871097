# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run ghost`: the ghost-area exchange of EuroPVM/MPI 2004 (bench_ghost: 4 and
8 neighbours, every MPI synchronisation style and DART), its ratio table and target."""

from .experiment import Experiment
from .jobs import find_programs, placement_label, run_job
from .options import parse, units_list
from .results import write_csv
from .tables import fmt_us, render_table, size_label
from .targets import bounded


def cmd_ghost(argv):
    opts = parse(argv, {"csv", "mpi", "quick", "build_dir", "timeout", "units", "sizes"})
    mpi, quick = opts["mpi"], opts["quick"]
    progs = find_programs(mpi, opts["build_dir"], True, ["bench_ghost"])
    args = (["--quick"] if quick else []) + (["--sizes", opts["sizes"]] if opts["sizes"] else [])
    rows = []
    for units in units_list(opts, "2"):
        for pl in ("node", "remote"):
            label = placement_label(pl, units)
            rows += run_job(
                mpi,
                progs["bench_ghost"],
                args + ["--placement", label],
                pl == "remote",
                float(opts["timeout"]),
                f"{mpi} ghost {units} units {label}",
                n=units,
            )
    if opts["csv"]:
        write_csv(opts["csv"], rows, mpi)
    print(f"ghost-area exchange, {mpi}, time relative to mpi-p2p")
    print(ghost_tables(rows, False))
    return 0


def ghost_tables(rows, markdown):
    """The paper's table per (units, placement, case): each method's time relative to
    mpi-p2p's, per size."""
    out = []
    for units, pl, case in sorted({(int(r["units"]), r["placement"], r["case"]) for r in rows}):
        sub = [r for r in rows if (int(r["units"]), r["placement"], r["case"]) == (units, pl, case)]
        sizes = sorted({int(r["bytes"]) for r in sub})
        med = {(r["impl"], int(r["bytes"])): float(r["median_us"]) for r in sub}
        methods = []
        for r in sub:
            if r["impl"] not in methods:
                methods.append(r["impl"])
        body = []
        for m in methods:
            cells = []
            for n in sizes:
                v, p2p = med.get((m, n)), med.get(("mpi-p2p", n))
                cells.append("-" if v is None or not p2p else f"{v / p2p:.2f} ({fmt_us(v)} us)")
            body.append([m, "exchange"] + cells)
        out.append(
            ("### " if markdown else "") + f"ghost {case}, {units} units, {pl}: time "
            "relative to mpi-p2p (median us)"
        )
        out.append(render_table(["method", "op"] + [size_label(n) for n in sizes], body, markdown))
        out.append("")
    return "\n".join(out)


def ghost_targets(ghost):
    """DART at most 1.1x the best MPI one-sided method (fence, PSCW, lock), per units,
    placement, case and size."""
    out = []
    gm = {
        (r["impl"], int(r["bytes"]), int(r["units"]), r["placement"], r["case"]): float(
            r["median_us"]
        )
        for r in ghost
    }
    for units, pl, case, n in sorted(
        {(int(r["units"]), r["placement"], r["case"], int(r["bytes"])) for r in ghost}
    ):
        best = [
            (gm[k], k[0])
            for k in gm
            if k[1:] == (n, units, pl, case) and k[0] in ("mpi-fence", "mpi-pscw", "mpi-lock")
        ]
        if best:
            b = min(best)
            out += bounded(
                f"ghost {case} {units} units {pl} {size_label(n)}: dart <= 1.1x "
                f"best MPI one-sided ({b[1]})",
                gm.get(("dart", n, units, pl, case)),
                b[0],
                1.1,
            )
    return out


EXPERIMENT = Experiment(
    name="ghost",
    title="Ghost-area exchange (`benchmarks/run ghost`, EuroPVM/MPI 2004 Table 1)",
    run=cmd_ghost,
    doc_tables=lambda rows: ghost_tables(rows, True),
    targets=ghost_targets,
)
