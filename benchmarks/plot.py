# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the benchmark CSV files (run by benchmarks/run with the MPI's venv python).

usage: python plot.py FILE.csv OUT.png [FILE.csv OUT.png ...]

The kind of plot follows the `bench` column of the file: latency (log-log latency and
bandwidth per placement), halo (IJNC 2017 Fig. 8 style: grouped bars of exchange + compute
per iteration), ghost (time relative to mpi-p2p per size, EuroPVM/MPI 2004 Table 1 as
bars), gups (GUPS per implementation and placement), nbi (initiation and completion
time against size, PGAS'14 Figs. 10-11), notify (log-log latency of put + notification
per placement), overlap (availability against size per op and placement, and the
latency to a computing against an idle target as bars), io (save and load bandwidth of an
array file against size).
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TRANSFER_OPS = ("put_blocking", "get_blocking", "put", "get", "pingpong")


def read(path):
    with open(path) as f:
        return [r for r in csv.DictReader(f) if r.get("bench")]


def title_of(rows):
    mpi = rows[0].get("mpi") or ""
    return f"{rows[0]['bench']} ({mpi})" if mpi else rows[0]["bench"]


def series(rows, key):
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append((int(r["bytes"]), float(r["median_us"])))
    return {k: sorted(v) for k, v in out.items()}


def plot_latency(rows, png):
    rows = [r for r in rows if r["op"] in TRANSFER_OPS or r["op"].endswith("_init")]
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    for col, pl in enumerate(("node", "remote")):
        sub = [r for r in rows if r["placement"] == pl and not r["op"].endswith("_init")]
        for (impl, op), pts in sorted(series(sub, lambda r: (r["impl"], r["op"])).items()):
            xs = [p[0] for p in pts]
            style = "-" if impl.startswith("dart") else "--"
            axes[0][col].plot(
                xs, [p[1] for p in pts], style, marker="o", ms=3, label=f"{impl} {op}"
            )
            axes[1][col].plot(
                xs,
                [x / p[1] for x, p in zip(xs, pts)],
                style,
                marker="o",
                ms=3,
                label=f"{impl} {op}",
            )
        axes[0][col].set(
            xscale="log",
            yscale="log",
            title=f"latency, placement {pl}",
            xlabel="bytes",
            ylabel="us per operation (median)",
        )
        axes[1][col].set(
            xscale="log",
            yscale="log",
            title=f"bandwidth, placement {pl}",
            xlabel="bytes",
            ylabel="MB/s",
        )
        for ax in (axes[0][col], axes[1][col]):
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6, ncol=2)
    fig.suptitle(title_of(rows))
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def plot_halo(rows, png):
    cases = sorted({r["case"] for r in rows}, reverse=True)
    configs = sorted({(int(r["units"]), r["placement"]) for r in rows})
    fig, axes = plt.subplots(len(cases), 1, figsize=(14, 5.2 * len(cases)), squeeze=False)
    for ax, case in zip(axes[:, 0], cases):
        sub = [r for r in rows if r["case"] == case]
        impls = []
        for r in sub:
            if r["impl"] not in impls:
                impls.append(r["impl"])
        med = {
            (r["impl"], r["op"], int(r["units"]), r["placement"]): float(r["median_us"])
            for r in sub
        }
        width = 0.8 / max(1, len(impls))
        cmap = plt.get_cmap("tab20")
        for i, impl in enumerate(impls):
            xs, ex, co = [], [], []
            for j, cfg in enumerate(configs):
                if (impl, "exchange") + cfg in med:
                    xs.append(j + (i - len(impls) / 2) * width + width / 2)
                    ex.append(med[(impl, "exchange") + cfg])
                    co.append(med.get((impl, "compute") + cfg, 0.0))
            color = cmap(i % 20)
            ax.bar(xs, ex, width, color=color, label=impl)
            ax.bar(xs, co, width, bottom=ex, color=color, alpha=0.4, hatch="//", edgecolor="white")
        ax.set_xticks(range(len(configs)))
        ax.set_xticklabels([f"{u} units, {pl}" for u, pl in configs])
        ax.set(
            ylabel="us per iteration (median, log)",
            yscale="log",
            title=f"halo {case} per unit: exchange (solid) + compute (light, hatched) "
            "per iteration",
        )
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(
            fontsize=7, ncol=min(len(impls), 7), loc="upper center", bbox_to_anchor=(0.5, -0.08)
        )
    fig.suptitle(title_of(rows))
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def plot_ghost(rows, png):
    groups = sorted({(int(r["units"]), r["placement"], r["case"]) for r in rows})
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 4.5), squeeze=False)
    for ax, (units, pl, case) in zip(axes[0], groups):
        sub = [r for r in rows if (int(r["units"]), r["placement"], r["case"]) == (units, pl, case)]
        sizes = sorted({int(r["bytes"]) for r in sub})
        methods = []
        for r in sub:
            if r["impl"] not in methods:
                methods.append(r["impl"])
        med = {(r["impl"], int(r["bytes"])): float(r["median_us"]) for r in sub}
        width = 0.8 / len(methods)
        for i, m in enumerate(methods):
            ratios = [
                med.get((m, s), 0) / med[("mpi-p2p", s)] if med.get(("mpi-p2p", s)) else 0
                for s in sizes
            ]
            ax.bar(
                [j + (i - len(methods) / 2) * width + width / 2 for j in range(len(sizes))],
                ratios,
                width,
                label=m,
            )
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([f"{s} B" for s in sizes])
        ax.set(
            title=f"{units} units, {pl}, {case}",
            ylabel="time / mpi-p2p time",
            xlabel="ghost area size",
        )
        ax.legend(fontsize=7)
    fig.suptitle(title_of(rows))
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def plot_gups(rows, png):
    fig, ax = plt.subplots(figsize=(6, 4))
    labels = [f"{r['impl']}\n{r['placement']}" for r in rows]
    gups = [int(r["units"]) / (float(r["median_us"]) * 1000) for r in rows]
    ax.bar(labels, gups, color=["tab:blue" if r["impl"] == "dart" else "tab:gray" for r in rows])
    ax.set(yscale="log", ylabel="GUPS (log)", title=f"RandomAccess, {title_of(rows)}")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def loglog_panels(rows, png, field, panels, key, ylabel, title, width):
    """One log-log panel (us against bytes) per value of column `field`; a curve per
    key(row) (a tuple whose first element is the impl: dart solid, others dashed)."""
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 4.5), squeeze=False)
    for ax, (value, name) in zip(axes[0], panels):
        sub = [r for r in rows if r[field] == value]
        for k, pts in sorted(series(sub, key).items()):
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                "-" if k[0] == "dart" else "--",
                marker="o",
                ms=3,
                label=" ".join(k),
            )
        ax.set(xscale="log", yscale="log", title=name, xlabel="bytes", ylabel=ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title_of(rows) + title)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def plot_nbi(rows, png):
    ops = ["put_init", "get_init", "put_complete", "get_complete"]
    loglog_panels(
        rows,
        png,
        "op",
        [(op, op) for op in ops],
        lambda r: (r["impl"], r["placement"]),
        "us (median)",
        ": initiation (DTIT) and completion time",
        18,
    )


def plot_notify(rows, png):
    loglog_panels(
        rows,
        png,
        "placement",
        [(pl, f"placement {pl}") for pl in ("node", "remote")],
        lambda r: (r["impl"], r["op"]),
        "us per put + notification (median, half round trip)",
        ": notified access latency",
        13,
    )


def plot_overlap(rows, png):
    """Availability against size, one panel per (op, placement) (ICPADS 2016 Fig. 6/7
    style), and the target-side experiment as bars: remote get latency to an idle and to a
    computing target per implementation and size."""
    av = [r for r in rows if r["bench"] == "overlap"]
    tg = [r for r in rows if r["bench"] == "overlap-target"]
    fig = plt.figure(figsize=(17, 8.5))
    grid = fig.add_gridspec(2, 3)
    sizes = sorted({int(r["bytes"]) for r in av})
    for row, pl in enumerate(("node", "remote")):
        for col, op in enumerate(("get", "put")):
            ax = fig.add_subplot(grid[row, col])
            curves = {}
            for r in av:
                if r["op"] == op and r["placement"] == pl:
                    curves.setdefault(r["impl"], []).append(
                        (int(r["bytes"]), float(r["availability"]))
                    )
            for impl, pts in curves.items():
                pts.sort()
                ax.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    "-" if impl.startswith("dart") else "--",
                    marker="o",
                    ms=3,
                    label=impl,
                )
            ax.axhline(0.9, color="k", lw=0.6, ls=":")
            ax.set(
                xscale="log",
                ylim=(-0.05, 1.05),
                title=f"{op}, placement {pl}",
                xlabel="bytes",
                ylabel="availability",
            )
            ax.set_xticks(sizes)
            ax.set_xticklabels([f"{n >> 10}K" if n < 1 << 20 else f"{n >> 20}M" for n in sizes])
            ax.minorticks_off()
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
    ax = fig.add_subplot(grid[:, 2])
    if tg:
        keys = sorted({(int(r["bytes"]), r["impl"]) for r in tg})
        med = {(r["impl"], int(r["bytes"]), r["op"]): float(r["median_us"]) for r in tg}
        xs = range(len(keys))
        for off, op, color in (
            (-0.2, "get_target_idle", "tab:blue"),
            (0.2, "get_target_busy", "tab:red"),
        ):
            ax.bar(
                [x + off for x in xs],
                [med.get((i, n, op), 0) for n, i in keys],
                0.4,
                color=color,
                label=op.replace("get_target_", "target ")
                + (" (computes 100 us between MPI calls)" if "busy" in op else ""),
            )
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{i}\n{n} B" for n, i in keys], fontsize=7)
        ax.set(
            yscale="log",
            ylabel="remote get latency, median us (log)",
            title="computing vs idle target",
        )
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7)
    else:
        ax.set_axis_off()
    fig.suptitle(title_of(rows) + ": availability = 1 - overhead / transfer time")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def plot_io(rows, png):
    """Bandwidth against size per unit count: save (dart, raw MPI-IO write, np.save of one
    process) and load (dart, raw MPI-IO read, np.load)."""
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for ax, ops in zip(
        axes,
        (
            (("dart", "save"), ("mpi-io", "write"), ("numpy", "save")),
            (("dart", "load"), ("mpi-io", "read"), ("numpy", "load")),
        ),
    ):
        for impl, op in ops:
            sub = [r for r in rows if (r["impl"], r["op"]) == (impl, op)]
            for units, pts in sorted(series(sub, lambda r: int(r["units"])).items()):
                style = "-" if impl == "dart" else ("--" if impl == "mpi-io" else ":")
                ax.plot(
                    [p[0] >> 20 for p in pts],
                    [p[0] / (p[1] * 1e3) for p in pts],
                    style,
                    marker="o",
                    ms=3,
                    label=f"{impl} {op}, {units} unit(s)",
                )
        ax.set(
            xscale="log", xlabel="MiB", ylabel="GB/s (median)", title=f"{ops[0][1]}: one .npy file"
        )
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title_of(rows))
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def plot_alloc(rows, png):
    """Time of one collective allocation against units, per size: equal and unequal sizes
    (and the base build when measured)."""
    sizes = sorted({int(r["bytes"]) for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 5), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        for impl, op in sorted({(r["impl"], r["op"]) for r in rows if r["op"].startswith("alloc")}):
            pts = sorted(
                (int(r["units"]), float(r["median_us"]))
                for r in rows
                if (r["impl"], r["op"], int(r["bytes"])) == (impl, op, size)
            )
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                "-" if impl == "dart" else "--",
                marker="o",
                ms=3,
                label=f"{impl} {op.replace('alloc-', '')} sizes",
            )
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="units",
            ylabel="us per allocation (median)",
            title=f"dart_team_memalloc_aligned, {size >> 10} KiB per unit",
        )
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title_of(rows))
    fig.tight_layout()
    fig.savefig(png, dpi=90)


PLOTS = {
    "latency": plot_latency,
    "halo": plot_halo,
    "ghost": plot_ghost,
    "gups": plot_gups,
    "nbi": plot_nbi,
    "notify": plot_notify,
    "overlap": plot_overlap,
    "overlap-target": plot_overlap,
    "io": plot_io,
    "alloc": plot_alloc,
}


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        sys.stderr.write(__doc__)
        return 2
    for path, png in zip(argv[0::2], argv[1::2]):
        rows = read(path)
        if not rows:
            sys.stderr.write(f"plot.py: no rows in {path}\n")
            return 1
        PLOTS[rows[0]["bench"]](rows, png)
        plt.close("all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
