# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark suite cannot rot: `benchmarks/run all --quick` (MPICH only) writes every
CSV and PNG file and the document, and every correctness check of the programs passed
(bench_halo: each implementation's final field equals dart's; the heat3d examples agree;
bench_ghost: every slot holds what its neighbour sent; RandomAccess: no lost update;
bench_overlap: every transferred byte). Rows that need progress processes (dart-progress,
dart-nb-progress) must be present.
No timing is asserted: the numbers of a loaded machine are whatever they are.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from pathlib import Path

import launcher
import pytest

REPO = launcher.HERE.parent.parent
EXPERIMENTS = ["latency", "halo", "ghost", "gups", "nbi", "notify", "overlap", "windows", "alloc"]


@pytest.mark.multiunit
@pytest.mark.skipif(launcher.FLAVOR != "mpich", reason="the suite runs once, on MPICH")
def test_benchmark_suite_quick(tmp_path: Path):
    out = tmp_path / "out"
    doc = tmp_path / "performance.md"
    # Generous: about a minute on a quiet machine, several under load.
    job = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "run"),
            "all",
            "--quick",
            "--mpi",
            "mpich",
            "--out",
            str(out),
            "--doc",
            str(doc),
        ],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=REPO,
    )
    log = job.stdout + job.stderr
    assert job.returncode == 0, log[-6000:]
    for exp in EXPERIMENTS:
        for ext in ("csv", "png"):
            f = out / f"{exp}-mpich.{ext}"
            assert f.is_file() and f.stat().st_size > 0, f"{f} missing\n{log[-3000:]}"
        with open(out / f"{exp}-mpich.csv") as fh:
            rows = list(csv.DictReader(fh))
        assert rows and all(r["mpi"] == "mpich" for r in rows), exp
    with open(out / "halo-mpich.csv") as fh:
        halo_rows = list(csv.DictReader(fh))
    halo = {r["impl"] for r in halo_rows}
    # transfer is the exchange without its barrier, timed inside it: never longer.
    times = {
        (r["impl"], r["op"], r["units"], r["placement"], r["case"]): float(r["median_us"])
        for r in halo_rows
    }
    transfer = {k: v for k, v in times.items() if k[1] == "transfer"}
    for impl in ("dart", "dart-nb", "mpi-rma-flat", "mpi-rma-shm", "mpi-p2p"):
        assert any(k[0] == impl for k in transfer), impl
    for k, v in transfer.items():
        assert v <= times[(k[0], "exchange") + k[2:]], k
    for impl in (
        "dart",
        "dart-nb",
        "dart-notify",
        "mpi-rma-flat",
        "mpi-rma-shm",
        "mpi-p2p",
        "mpi-p2p-nb",
        "dart-array",
        "dart-array-nb",
        "dart-array-notify",
        "dart-array-example",
        "dartpy-array",
    ):
        assert impl in halo, impl
    # Every halo implementation reported a passed check (per case and placement), no
    # check failed, the examples' fields agreed, every ghost job checked its slots.
    assert "CHECK FAILED" not in log
    examples = {"dart-array-example", "dartpy-array", "dart-fortran-array"}
    assert log.count("check passed (hash") >= len(halo - examples) * 4, log[-3000:]
    assert "identical fields, check passed" in log
    assert log.count("bench_ghost: every check passed") == 2
    assert "verification: 0 errors" in log
    with open(out / "notify-mpich.csv") as fh:
        notify = {(r["impl"], r["op"], r["placement"]) for r in csv.DictReader(fh)}
    for pl in ("node", "remote"):
        assert ("dart", "put_notify", pl) in notify, pl
    assert ("shm", "put_flag", "node") in notify
    with open(out / "overlap-mpich.csv") as fh:
        overlap = list(csv.DictReader(fh))
    got = {(r["bench"], r["impl"], r["op"], r["placement"]) for r in overlap}
    for impl in ("dart", "mpi-rma-allocate", "mpi-async-thread"):
        for op in ("get", "put"):
            for pl in ("node", "remote"):
                assert ("overlap", impl, op, pl) in got, (impl, op, pl)
        for op in ("get_target_idle", "get_target_busy"):
            assert ("overlap-target", impl, op, "remote") in got, (impl, op)
    for r in overlap:
        if r["bench"] == "overlap":
            assert 0.0 <= float(r["availability"]) <= 1.0 and float(r["overhead_us"]) >= 0, r
    # One job per placement and mode (plain, progress, async-thread and the threshold
    # crossover's two progress jobs), each passed its byte checks; progress rows present.
    assert any(r["impl"] == "dart-progress" for r in overlap)
    for impl in ("dart-progress-offload-all", "dart-progress-offload-none"):
        for op in ("get", "put"):
            for pl in ("node", "remote"):
                assert ("overlap", impl, op, pl) in got, (impl, op, pl)
    assert log.count("bench_overlap: every check passed") == 10, log[-3000:]
    assert "offload threshold crossover" in doc.read_text()
    with open(out / "alloc-mpich.csv") as fh:
        alloc = {(r["op"], r["units"]) for r in csv.DictReader(fh)}
    for op in ("alloc-equal", "alloc-unequal", "free-equal", "free-unequal"):
        assert (op, "2") in alloc, op
    assert "dart-nb-progress" in halo
    text = doc.read_text()
    assert "## Targets" in text and "perf/halo-mpich.png" in text
    assert "dart put_notify <= 1.5x shm put_flag" in text
    assert "perf/overlap-mpich.png" in text and "availability" in text
    for exp in EXPERIMENTS:
        assert (tmp_path / "perf" / f"{exp}-mpich.png").is_file()


def load_driver():
    """benchmarks/run as a module (it has no .py suffix), with the modules of
    benchmarks/driver/ it imports, without writing a __pycache__ into the source tree."""
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("bench_driver", str(REPO / "benchmarks" / "run"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


def test_gate_rule():
    """`all --gate`'s rule: no verdict of quiet while calibrating, then quiet only near
    the best probe seen (compute, exchange and ping-pong)."""
    gate = load_driver().suite.Gate("mpich", {}, 60, 10)
    calibrate = [gate.judge(130.0, 2.0, 0.2) for _ in range(gate.GATE_CALIBRATE)]
    assert calibrate == [False] * (gate.GATE_CALIBRATE - 1) + [True]
    assert not gate.judge(150.0, 2.0, 0.2)  # compute 1.15x the best
    assert gate.judge(140.0, 3.9, 0.35)  # within 1.12x, +2 us, 2x
    assert not gate.judge(131.0, 4.5, 0.2)  # exchange 2.25x and +2.5 us
    assert not gate.judge(131.0, 2.0, 0.6)  # the ping-pong's slow level
    assert gate.judge(128.0, 1.9, 0.18)  # a new best
    assert not gate.judge(144.0, 1.9, 0.18)  # 1.125x the new best


@pytest.mark.multiunit
@pytest.mark.skipif(launcher.FLAVOR != "mpich", reason="the suite runs once, on MPICH")
def test_gated_experiment(tmp_path: Path):
    """`all --gate` probes, runs the experiment and records how it was gated, whether
    or not the machine turned quiet within the wait."""
    out = tmp_path / "out"
    job = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "run"),
            "all",
            "--quick",
            "--only",
            "windows",
            "--gate",
            "10",
            "--mpi",
            "mpich",
            "--out",
            str(out),
            "--doc",
            str(tmp_path / "performance.md"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    log = job.stdout + job.stderr
    assert job.returncode == 0, log[-6000:]
    assert "[bench] gate: compute " in log and " ping-pong " in log, log[-3000:]
    assert (out / "windows-mpich.csv").stat().st_size > 0
    record = (out / "suite-mpich.txt").read_text()
    assert re.search(
        r"gate: windows (quiet \(attempt [123]\)|NOT quiet in 3 attempts)$", record.strip()
    ), record
