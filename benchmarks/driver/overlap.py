# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run overlap` (issue 14, asynchronous progress): availability and host
overhead of a non-blocking get/put while the unit computes, the get latency to a
computing target, with and without progress processes, the offload threshold's
crossover, their tables and targets."""

from .experiment import Experiment
from .jobs import find_programs, launch, progress_job, run_job
from .options import parse, program_args
from .results import EXTRA_COLUMNS, aggregate, write_csv
from .tables import fmt_us, render_table, size_label

ASYNC_ABSENT = (
    "Open MPI 4.1 has no asynchronous progress thread (progress happens only "
    "inside MPI calls; osc rdma moves same-machine put/get by CMA without the "
    "target anyway): no mpi-async-thread rows"
)


# The offload threshold's crossover: two progress jobs that differ only in
# DART_PROGRESS_THRESHOLD (every transfer offloaded, none offloaded), at small sizes.
CROSSOVER_IMPLS = (("dart-progress-offload-all", "1"), ("dart-progress-offload-none", "2G"))
CROSSOVER_SIZES = "1K,4K,16K,64K,256K"


def cmd_overlap(argv):
    opts = parse(
        argv, {"csv", "mpi", "quick", "build_dir", "timeout", "sizes", "rounds", "target_sizes"}
    )
    mpi = opts["mpi"]
    progs = find_programs(mpi, opts["build_dir"], True, ["bench_overlap"])
    args = program_args(opts) + (
        ["--target-sizes", opts["target_sizes"]] if opts.get("target_sizes") else []
    )
    timeout = float(opts["timeout"])
    jobs = []  # (label, placement, mode, processes, env)
    for pl in ("node", "remote"):
        upn = 1 if pl == "remote" else 0
        jobs.append((f"dart + mpi-rma-allocate {pl}", pl, "plain", 2, {}))
        n, env = progress_job(upn)
        jobs.append(
            (
                f"dart-progress {pl} (DART_PROGRESS_PER_NODE=1, {n} processes)",
                pl,
                "progress",
                n,
                env,
            )
        )
        if mpi == "mpich":
            jobs.append(
                (
                    f"mpi-async-thread {pl} (MPIR_CVAR_ASYNC_PROGRESS=1)",
                    pl,
                    "async-thread",
                    2,
                    {"MPIR_CVAR_ASYNC_PROGRESS": "1"},
                )
            )
        for impl, threshold in CROSSOVER_IMPLS:
            jobs.append(
                (
                    f"{impl} {pl} (DART_PROGRESS_THRESHOLD={threshold})",
                    pl,
                    impl,
                    n,
                    dict(env, DART_PROGRESS_THRESHOLD=threshold),
                )
            )
    notes = []
    if mpi != "mpich":
        notes.append(ASYNC_ABSENT)
    per_round = []
    for r in range(int(opts["rounds"] or 1)):
        rows = []
        for label, pl, mode, n, env in jobs:
            label = f"{mpi} overlap round {r + 1} {label}"
            if mode.startswith("dart-progress-offload"):  # a crossover job
                sizes = "4K,64K" if opts["quick"] else CROSSOVER_SIZES
                job_args = [
                    "--mode",
                    "progress",
                    "--impl",
                    mode,
                    "--no-target",
                    "--sizes",
                    sizes,
                ] + (["--quick"] if opts["quick"] else [])
            else:
                job_args = args + ["--mode", mode]
            got = run_job(
                mpi,
                progs["bench_overlap"],
                job_args + ["--placement", pl],
                pl == "remote",
                timeout,
                label,
                n=n,
                env=env,
                columns=EXTRA_COLUMNS,
            )
            rows += got
        per_round.append(rows)
    rows = aggregate(per_round)
    if opts["csv"]:
        write_csv(opts["csv"], rows, mpi)
    print(
        f"overlap of computation and communication, 2 units, {mpi}, "
        f"{launch.cpu_count()} cores" + (" [quick]" if opts["quick"] else "")
    )
    for note in notes:
        print(f"note: {note}")
    print(overlap_tables(rows, False))
    for name, measured, verdict in overlap_targets(rows):
        print(f"{name}: {measured} {verdict}")
    return 0


def overlap_tables(rows, markdown):
    """Per placement, the availability per (impl, op) and size (cells: availability and
    the transfer time base_t, median us); then the get latencies to an idle and to a
    busy target."""
    out = []
    av = [r for r in rows if r["bench"] == "overlap"]
    sizes = sorted({int(r["bytes"]) for r in av})
    for pl in ("node", "remote"):
        sub = {(r["impl"], r["op"], int(r["bytes"])): r for r in av if r["placement"] == pl}
        keys = []
        for r in av:
            if r["placement"] == pl and (r["impl"], r["op"]) not in keys:
                keys.append((r["impl"], r["op"]))
        if not keys:
            continue
        body = []
        for impl, op in keys:
            cells = []
            for n in sizes:
                r = sub.get((impl, op, n))
                cells.append(
                    "-"
                    if r is None
                    else f"{float(r['availability']):.2f} ({fmt_us(r['median_us'])})"
                )
            body.append([impl, op] + cells)
        out.append(
            ("### " if markdown else "") + f"placement {pl}: availability (transfer "
            "time base_t, median us)"
        )
        out.append(render_table(["impl", "op"] + [size_label(n) for n in sizes], body, markdown))
        out.append("")
    tg = [r for r in rows if r["bench"] == "overlap-target"]
    if tg:
        med = {(r["impl"], r["op"], int(r["bytes"])): float(r["median_us"]) for r in tg}
        body = []
        for impl, n in sorted(
            {(r["impl"], int(r["bytes"])) for r in tg}, key=lambda k: (k[1], k[0])
        ):
            idle = med.get((impl, "get_target_idle", n))
            busy = med.get((impl, "get_target_busy", n))
            body.append(
                [
                    impl,
                    size_label(n),
                    "-" if idle is None else fmt_us(idle),
                    "-" if busy is None else fmt_us(busy),
                    f"{busy / idle:.2f}x" if idle and busy else "-",
                ]
            )
        out.append(
            ("### " if markdown else "") + "remote get latency (median us) to an idle "
            "target and to a target computing 100 us between MPI calls"
        )
        out.append(
            render_table(
                ["impl", "bytes", "idle target", "busy target", "busy / idle"], body, markdown
            )
        )
        out.append("")
    return "\n".join(out)


def overlap_targets(rows):
    """Issue 14's targets (dart-progress), the other implementations' numbers as `info`
    rows, and the offload threshold's crossover (info)."""
    out = []
    if not rows:
        return out
    av = {
        (r["impl"], r["op"], r["placement"], int(r["bytes"])): r
        for r in rows
        if r["bench"] == "overlap"
    }
    impls = []
    for r in rows:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    if "dart-progress" not in impls:
        out.append(
            (
                "overlap: dart-progress targets",
                "no dart-progress rows (progress processes were not running)",
                "n/a",
            )
        )
    kib64 = 64 << 10
    for op in ("get", "put"):
        for impl in impls:
            r = av.get((impl, op, "remote", kib64))
            if r is None:
                continue
            a = float(r["availability"])
            measured = (
                f"availability {a:.3f} (overhead {fmt_us(r['overhead_us'])} us of "
                f"{fmt_us(r['median_us'])} us)"
            )
            if impl == "dart-progress":
                out.append(
                    (
                        f"overlap remote 64KiB {op}: dart-progress availability >= 0.90",
                        measured + " (target >= 0.90)",
                        "PASS" if a >= 0.90 else "MISS",
                    )
                )
            else:
                out.append((f"overlap remote 64KiB {op}: {impl} availability", measured, "info"))
    # The crossover: the smallest size from which an offloaded transfer costs the
    # computing unit (overhead_us) no more than the same transfer done by the unit, in
    # the same job layout. Info rows, which DART_PROGRESS_THRESHOLD's default follows.
    (all_impl, _), (none_impl, _) = CROSSOVER_IMPLS
    for pl in ("node", "remote"):
        for op in ("get", "put"):
            sizes = sorted(k[3] for k in av if k[:3] == (all_impl, op, pl))
            pairs = [(n, av[(all_impl, op, pl, n)], av.get((none_impl, op, pl, n))) for n in sizes]
            pairs = [
                (n, float(a["overhead_us"]), float(b["overhead_us"]))
                for n, a, b in pairs
                if b is not None
            ]
            if not pairs:
                continue
            cross = next(
                (n for i, (n, _, _) in enumerate(pairs) if all(x <= y for _, x, y in pairs[i:])),
                None,
            )
            cells = ", ".join(f"{size_label(n)} {fmt_us(x)}/{fmt_us(y)}" for n, x, y in pairs)
            out.append(
                (
                    f"overlap {pl} {op}: offload threshold crossover",
                    f"{size_label(cross) if cross else 'none'} (host overhead us, "
                    f"offloaded/not: {cells})",
                    "info",
                )
            )
    med = {
        (r["impl"], r["op"], int(r["bytes"])): float(r["median_us"])
        for r in rows
        if r["bench"] == "overlap-target"
    }
    for impl, n in sorted({(k[0], k[2]) for k in med}, key=lambda k: (k[1], impls.index(k[0]))):
        idle, busy = med.get((impl, "get_target_idle", n)), med.get((impl, "get_target_busy", n))
        if not idle or busy is None:
            continue
        ratio = busy / idle
        measured = f"{fmt_us(busy)} / {fmt_us(idle)} us = {ratio:.2f}x"
        name = f"overlap-target remote {size_label(n)} get: {impl} busy target / idle target"
        if impl == "dart-progress":
            out.append(
                (name + " <= 2x", measured + " (target <= 2)", "PASS" if ratio <= 2.0 else "MISS")
            )
        else:
            out.append((name, measured, "info"))
    return out


EXPERIMENT = Experiment(
    name="overlap",
    title="Overlap and asynchronous progress (`benchmarks/run overlap`, ICPADS 2016 "
    "Sec. III-A; target side as Casper's asynchronous benchmark)",
    run=cmd_overlap,
    doc_tables=lambda rows: overlap_tables(rows, True),
    targets=overlap_targets,
)
