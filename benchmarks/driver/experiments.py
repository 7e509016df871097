# SPDX-License-Identifier: BSD-3-Clause
"""Every experiment, in the order `all` runs them and the document shows their results,
and the targets of a run in the order of the document's table."""

from . import alloc, ghost, gups, halo, io, latency, nbi, notify, overlap, windows

EXPERIMENTS = [
    m.EXPERIMENT for m in (latency, halo, ghost, gups, nbi, notify, overlap, windows, io, alloc)
]
BY_NAME = {e.name: e for e in EXPERIMENTS}

# The order of the targets table (experiments without targets are left out).
TARGET_ORDER = [
    BY_NAME[n] for n in ("halo", "ghost", "notify", "overlap", "latency", "gups", "io", "alloc")
]


def suite_targets(data):
    """The targets of the rows of one MPI ({experiment: rows}): a list of (name,
    measured, verdict), verdict PASS or MISS, or info/ratio/n/a for lines without a
    target; targets without rows are left out."""
    out = []
    for exp in TARGET_ORDER:
        if data.get(exp.name):
            out += exp.targets(data[exp.name])
    return out
