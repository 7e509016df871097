# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark driver behind benchmarks/run (python3 standard library only).

Shared machinery: jobs.py (launching jobs, the build tree), options.py (the command
line), results.py (CSV rows, aggregating rounds), tables.py (table rendering),
targets.py (how targets and target ratios are stated), summary.py (the latency-style
summary), twoplacement.py (a program run at node and remote placement), experiment.py
(what an experiment module declares).

One module per experiment, each with its cmd_<name>, tables and targets and an
EXPERIMENT record: latency.py, halo.py, ghost.py, gups.py, nbi.py, notify.py,
overlap.py, windows.py, io.py, alloc.py; experiments.py lists them. suite.py runs them all (`all`,
`--gate`), doc.py writes docs/performance.md (`doc`) and prints `report`.
"""
