# SPDX-License-Identifier: BSD-3-Clause
"""docs/performance.md and the plots from the CSV files of `all` (`benchmarks/run doc`),
and `benchmarks/run report`, the terminal summary of CSV files."""

import fnmatch
import os
import re
import shutil
import sys

from . import gups, latency
from .experiments import EXPERIMENTS, suite_targets
from .ghost import ghost_tables
from .halo import halo_loc, halo_tables
from .jobs import REPO, JobFailed, launch, venv_python
from .options import Usage, parse
from .overlap import overlap_tables
from .results import read_csv
from .summary import summary

DOC_TEMPLATE = os.path.join(REPO, "benchmarks", "performance.md.in")
DOC_NOTES = os.path.join(REPO, "benchmarks", "performance-notes.txt")
MPI_NAMES = {"mpich": "MPICH 4.0.2", "openmpi": "Open MPI 4.1.4"}


def plot(directory, stems, mpi):
    """A PNG per CSV file <stem>.csv in directory, drawn by benchmarks/plot.py with the
    matplotlib of the MPI's venv (the driver itself needs the standard library only)."""
    py = venv_python(mpi)
    if not os.access(py, os.X_OK):
        py = sys.executable
    argv = [py, os.path.join(REPO, "benchmarks", "plot.py")]
    for stem in stems:
        argv += [os.path.join(directory, stem + ".csv"), os.path.join(directory, stem + ".png")]
    res = launch.run(argv, timeout=600, merge_stderr=True)
    if res.returncode != 0:
        raise JobFailed(f"plot.py failed (exit {res.returncode}):\n{res.stdout}")
    sys.stderr.write(f"[bench] plotted {len(stems)} PNG file(s) in {directory}\n")


def read_notes(path=DOC_NOTES):
    """The explanations of MISS verdicts: [(glob, Markdown text)], each glob matched
    against "<mpi> <target name>"; a section is a [glob] line and the lines after it,
    and lines starting with # before the first section are comments."""
    notes, key = [], None
    with open(path) as f:
        for line in f:
            m = re.match(r"^\[(.+)\]\s*$", line)
            if m:
                key = m.group(1)
                notes.append([key, []])
            elif key is not None:
                notes[-1][1].append(line.rstrip("\n"))
    return [(k, " ".join(t.strip() for t in text if t.strip())) for k, text in notes]


def explain(notes, mpi, name):
    """(glob, text) of the first note matching the target, or a request for one."""
    for key, text in notes:
        if fnmatch.fnmatchcase(f"{mpi} {name}", key):
            return key, text
    return None, (
        "(no explanation recorded: add a [glob] section matching "
        f"`{mpi} {name}` to benchmarks/performance-notes.txt)"
    )


def targets_section(mpi, targets, notes):
    """The document's targets of one MPI: the count, the table (MISS cells numbered)
    and the explanations of the MISS verdicts, each once."""
    npass = sum(t[2] == "PASS" for t in targets)
    nmiss = sum(t[2] == "MISS" for t in targets)
    tg = [
        f"### {MPI_NAMES[mpi]}: {npass} PASS, {nmiss} MISS\n",
        "| target | measured (medians) | verdict |\n|---|---|---|",
    ]
    used = []
    for name, measured, verdict in targets:
        cell = verdict
        if verdict == "MISS":
            key, text = explain(notes, mpi, name)
            if (key, text) not in used:
                used.append((key, text))
            cell = f"**MISS** [{used.index((key, text)) + 1}]"
        tg.append(f"| {name} | {measured} | {cell} |")
    tg.append("")
    for i, (_key, text) in enumerate(used, 1):
        tg.append(f"{i}. {text}")
    tg.append("")
    return tg


def write_doc(directory, doc, note):
    """Write doc (docs/performance.md) from the files `<experiment>-<mpi>.csv` of
    directory (and their PNG files, copied to perf/ beside doc), the template
    benchmarks/performance.md.in and the explanations of MISS verdicts in
    benchmarks/performance-notes.txt; note goes before the suite's run times."""
    names = {e.name for e in EXPERIMENTS}
    data, timing = {}, {}
    for name in sorted(os.listdir(directory)):
        m = re.match(r"^(\w+)-(mpich|openmpi)\.csv$", name)
        if m and m.group(1) in names:
            data.setdefault(m.group(2), {})[m.group(1)] = read_csv(os.path.join(directory, name))
        m = re.match(r"^suite-(mpich|openmpi)\.txt$", name)
        if m:
            with open(os.path.join(directory, name)) as f:
                timing[m.group(1)] = " + ".join(ln.strip() for ln in f if ln.strip())
    mpis = [m for m in ("mpich", "openmpi") if m in data]
    docdir = os.path.dirname(os.path.abspath(doc))
    perf = os.path.join(docdir, "perf")
    os.makedirs(perf, exist_ok=True)
    notes = read_notes()
    tg = []
    for mpi in mpis:
        tg += targets_section(mpi, suite_targets(data[mpi]), notes)
    # The results: per experiment and MPI, the plot and the tables.
    res = []
    for exp in EXPERIMENTS:
        present = [m for m in mpis if exp.name in data[m]]
        if not present:
            continue
        res.append(f"## {exp.title}\n")
        for mpi in present:
            stem = f"{exp.name}-{mpi}"
            png = os.path.join(directory, f"{stem}.png")
            res.append(f"### {MPI_NAMES[mpi]}\n")
            if os.path.exists(png):
                if os.path.abspath(png) != os.path.join(perf, f"{stem}.png"):
                    shutil.copyfile(png, os.path.join(perf, f"{stem}.png"))
                res.append(f"![{exp.name}, {MPI_NAMES[mpi]}](perf/{stem}.png)\n")
            res.append(exp.doc_tables(data[mpi][exp.name]))
            res.append("")
    loc = halo_loc()
    loc_table = "\n".join(
        ["| implementation | lines of the halo exchange |", "|---|---:|"]
        + [f"| `{k}` | {v} |" for k, v in sorted(loc.items())]
    )
    runs = "; ".join(f"{MPI_NAMES[m]}: {timing[m]}" for m in mpis if m in timing)
    with open(DOC_TEMPLATE) as f:
        text = f.read()
    text = (
        text.replace(
            "{{note}}", (note + " " if note else "") + (f"Suite run times: {runs}." if runs else "")
        )
        .replace("{{mpis}}", ", ".join(MPI_NAMES[m] for m in mpis) or "none")
        .replace("{{targets}}", "\n".join(tg).rstrip())
        .replace("{{loc}}", loc_table)
        .replace("{{results}}", "\n".join(res).rstrip())
    )
    with open(doc, "w") as f:
        f.write(text.rstrip() + "\n")


def cmd_doc(argv):
    opts = parse(argv, {"files", "doc", "note", "mpi"})
    if len(opts["files"]) != 1:
        raise Usage("doc needs the directory of the CSV files")
    directory = opts["files"][0]
    stems = sorted(f[:-4] for f in os.listdir(directory) if f.endswith(".csv"))
    by_mpi = {}
    for stem in stems:
        by_mpi.setdefault(stem.rsplit("-", 1)[-1], []).append(stem)
    for mpi, st in by_mpi.items():
        plot(directory, st, mpi if mpi in ("mpich", "openmpi") else opts["mpi"])
    doc = opts.get("doc") or os.path.join(REPO, "docs", "performance.md")
    write_doc(directory, doc, opts.get("note") or "")
    print(f"wrote {doc}")
    return 0


# The target ratios of a report, whose rows may mix latency and gups files: gups's
# line comes after latency's atomics and locks, before its Python rows.
REPORT_RATIOS = latency.C_RATIOS + gups.RATIOS + latency.PYTHON_RATIOS


def cmd_report(argv):
    opts = parse(argv, {"files", "markdown"})
    if not opts["files"]:
        raise Usage("report needs CSV files")
    rows = []
    for f in opts["files"]:
        rows += read_csv(f)
    halo = [r for r in rows if r["bench"] == "halo"]
    ghost = [r for r in rows if r["bench"] == "ghost"]
    overlap = [r for r in rows if r["bench"].startswith("overlap")]
    rest = [
        r
        for r in rows
        if r["bench"] not in ("halo", "ghost") and not r["bench"].startswith("overlap")
    ]
    if overlap:
        print(overlap_tables(overlap, opts["markdown"]))
    if halo:
        print(halo_tables(halo, opts["markdown"]))
    if ghost:
        print(ghost_tables(ghost, opts["markdown"]))
    if rest:
        print(
            summary(
                rest,
                opts["markdown"],
                REPORT_RATIOS if any(r["impl"] == "dart" for r in rest) else None,
            )
        )
    return 0
