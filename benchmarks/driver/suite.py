# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run all`: every experiment (or those of --only) into a folder of CSV, text
and PNG files, then the document; with --gate, each experiment only on a quiet
machine (Gate)."""

import contextlib
import io
import os
import sys
import time

from .doc import plot, write_doc
from .experiments import BY_NAME, EXPERIMENTS
from .halo import heat_times
from .jobs import REPO, JobFailed, find_programs, launch, launch_job, run_job
from .options import Usage, parse


class Gate:
    """`all --gate`: run each experiment only while the machine is quiet. On a shared
    VM the neighbours come and go, and a run taken while they compute turns every ratio
    into noise. Two probes, under half a second each:
    - the C++ heat3d example (2 units, 64 x 32 x 32, 200 iterations): its compute time
      follows the speed of the CPU, its median halo exchange the scheduling of the two
      processes;
    - MPI's own 8 B ping-pong between two processes (bench_mpi_baselines): it follows
      where the host runs the two virtual CPUs, which on these VMs switches every few
      seconds between three levels (MPICH: 0.11, 0.18 and 0.7 us; every cross-process
      latency, DART's as MPI's, moves with it; see aggregate).
    Quiet means all three numbers near the best of this run (compute <= 1.12x,
    exchange <= 1.6x or +2 us, ping-pong <= 2x: either fast level, not the slow one).
    An experiment starts after GATE_QUIET quiet probes in a row (and GATE_CALIBRATE
    probes at least in all), and is run again (GATE_ATTEMPTS times at most) when neither
    of the two probes after it is quiet. After `wait` seconds without quiet it runs
    anyway; suite-<mpi>.txt records how each experiment was gated."""

    GATE_QUIET, GATE_CALIBRATE, GATE_ATTEMPTS = 3, 8, 3

    def __init__(self, mpi, progs, timeout, wait):
        self.mpi, self.progs, self.timeout, self.wait_s = mpi, progs, timeout, wait
        self.best, self.count = None, 0

    def probe(self):
        res = launch_job(
            self.mpi,
            [
                self.progs["heat3d"],
                "--nx",
                "64",
                "--ny",
                "32",
                "--nz",
                "32",
                "--iters",
                "200",
                "--mode",
                "blocking",
            ],
            False,
            self.timeout,
            f"{self.mpi} gate probe",
        )
        c, e = heat_times("gate probe", res.stdout)
        rows = run_job(
            self.mpi,
            self.progs["bench_mpi_baselines"],
            ["--quick", "--sizes", "8"],
            False,
            self.timeout,
            f"{self.mpi} gate probe (ping-pong)",
        )
        p = [r["median_us"] for r in rows if r["impl"] == "mpi-p2p"]
        if not p:
            raise JobFailed(f"gate probe: no mpi-p2p row from bench_mpi_baselines: {rows}")
        return self.judge(float(c), float(e), float(p[0]))

    def judge(self, c, e, p):
        """Whether a probe's compute, exchange and ping-pong times (us) are quiet."""
        self.count += 1
        b = (c, e, p) if self.best is None else tuple(map(min, self.best, (c, e, p)))
        self.best = b
        quiet = (
            self.count >= self.GATE_CALIBRATE
            and c <= 1.12 * b[0]
            and e <= max(1.6 * b[1], b[1] + 2.0)
            and p <= 2.0 * b[2]
        )
        sys.stderr.write(
            f"[bench] gate: compute {c:.1f} us, exchange {e:.2f} us, "
            f"ping-pong {p:.3f} us (best {b[0]:.1f} / {b[1]:.2f} / {b[2]:.3f}):"
            f" {'quiet' if quiet else 'busy'}\n"
        )
        return quiet

    def wait(self):
        """Probe until GATE_QUIET quiet probes in a row: True, or False when the time
        limit came first."""
        t0, run = time.monotonic(), 0
        while run < self.GATE_QUIET:
            if time.monotonic() - t0 > self.wait_s:
                return False
            run = run + 1 if self.probe() else 0
            if run == 0:
                time.sleep(2)
        return True

    def around(self, exp, body):
        """body(), gated; returns the record of it for suite-<mpi>.txt."""
        for attempt in range(1, self.GATE_ATTEMPTS + 1):
            started_quiet = self.wait()
            body()
            # Right after a job the first probe is often a little slow (its processes
            # have only just gone): one of two has to be quiet.
            if started_quiet and (self.probe() or self.probe()):
                return f"quiet (attempt {attempt})"
            why = (
                "the probes after it were busy"
                if started_quiet
                else f"no quiet probes within {self.wait_s:g} s before it"
            )
            sys.stderr.write(f"[bench] gate: {exp} attempt {attempt}: {why}\n")
        return f"NOT quiet in {self.GATE_ATTEMPTS} attempts"


def cmd_all(argv):
    opts = parse(
        argv, {"out", "mpi", "quick", "build_dir", "timeout", "doc", "note", "only", "gate"}
    )
    mpi, quick, out = opts["mpi"], opts["quick"], opts.get("out")
    if not out:
        raise Usage("all needs --out DIR")
    os.makedirs(out, exist_ok=True)
    common = ["--mpi", mpi, "--timeout", str(opts["timeout"])] + (
        ["--build-dir", opts["build_dir"]] if opts["build_dir"] else []
    )
    chosen = opts.get("only", "").split(",") if opts.get("only") else [e.name for e in EXPERIMENTS]
    for exp in chosen:
        if exp not in BY_NAME:
            raise Usage(f"unknown experiment {exp}")
    gate = None
    if opts.get("gate"):
        gate = Gate(
            mpi,
            find_programs(mpi, opts["build_dir"], True, ["heat3d"]),
            opts["timeout"],
            float(opts["gate"]),
        )
    gated = []
    t_all = time.monotonic()
    for exp in chosen:
        t0 = time.monotonic()
        csv_path = os.path.join(out, f"{exp}-{mpi}.csv")
        experiment = BY_NAME[exp]

        def body():
            with contextlib.redirect_stdout(io.StringIO()) as text:
                experiment.run(
                    common
                    + experiment.suite_args(quick)
                    + (["--quick"] if quick else [])
                    + ["--csv", csv_path]
                )
            with open(os.path.join(out, f"{exp}-{mpi}.txt"), "w") as f:
                f.write(text.getvalue())

        if gate:
            gated.append(f"{exp} {gate.around(exp, body)}")
        else:
            body()
        sys.stderr.write(f"[bench] {exp} finished in {time.monotonic() - t0:.0f} s: {csv_path}\n")
    plot(out, [f"{e}-{mpi}" for e in chosen], mpi)
    took = time.monotonic() - t_all
    sys.stderr.write(f"[bench] {mpi}: suite finished in {took:.0f} s\n")
    # A partial run (--only) adds its line to those of the runs before.
    with open(os.path.join(out, f"suite-{mpi}.txt"), "a" if opts.get("only") else "w") as f:
        f.write(
            f"{'--quick ' if quick else ''}{', '.join(chosen)} in {took:.0f} s on "
            f"{launch.cpu_count()} cores "
            f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})"
            + (f"; gate: {', '.join(gated)}" if gate else "")
            + "\n"
        )
    doc = opts.get("doc") or (
        os.path.join(out, "performance.md")
        if quick
        else os.path.join(REPO, "docs", "performance.md")
    )
    write_doc(out, doc, opts.get("note") or "")
    print(f"CSV and PNG files in {out}; document {doc}")
    return 0
