# SPDX-License-Identifier: BSD-3-Clause
"""The targets of docs/performance.md: how an experiment states one and what a verdict
line looks like. Two forms:

- target ratios (latency, gups): functions ("sections") that check a Ratios over a set
  of rows and add lines "name: dart / base us (base name) = r (target <= limit) VERDICT";
  the terminal summary prints them as they are, `target_lines` turns them into the
  document's rows;
- target rows (every other experiment): (name, measured, verdict) tuples, verdict PASS
  or MISS, or `info`/`ratio` for a number reported without a target.

A target whose rows were not measured (another subcommand, --sizes, --quick) is left
out."""

from .tables import fmt_us, index


class Ratios:
    """The target ratios of one set of rows: each check adds a line and counts its
    verdict."""

    def __init__(self, rows):
        self.rows = rows
        self.idx = index(rows)
        self.lines = []
        self.counts = {"PASS": 0, "MISS": 0}

    def med(self, impl, op, pl, n):
        """The median (us) of the row, None when there is none."""
        key = (impl, op, pl, n)
        return float(self.idx[key]["median_us"]) if key in self.idx else None

    def verdict(self, line, passed):
        """Add line with its verdict."""
        verdict = "PASS" if passed else "MISS"
        self.counts[verdict] += 1
        self.lines.append(f"{line} {verdict}")

    def check(self, name, dart, base, base_name, limit, note=""):
        """dart / base <= limit; nothing when either was not measured."""
        if dart is None or base is None or base <= 0:
            return
        r = dart / base
        self.verdict(
            f"{name}: {fmt_us(dart)} / {fmt_us(base)} us ({base_name}) = {r:.3f}x "
            f"(target <= {limit:.3f}{note})",
            r <= limit,
        )


def ratios(rows, sections):
    """Run the sections over rows: (lines, number of PASS, number of MISS)."""
    r = Ratios(rows)
    for section in sections:
        section(r)
    return r.lines, r.counts["PASS"], r.counts["MISS"]


def target_lines(exp, rows, sections):
    """The PASS/MISS lines of the sections as target rows named `<exp> <name>`."""
    out = []
    lines, _, _ = ratios(rows, sections)
    for ln in lines:
        if ln.endswith(" PASS") or ln.endswith(" MISS"):
            name, _, rest = ln.partition(": ")
            out.append((f"{exp} {name}", rest[:-5], ln[-4:]))
    return out


def bounded(name, value, base, limit):
    """The target row value / base <= limit (a list of it, empty when either was not
    measured)."""
    if value is None or base is None or base <= 0:
        return []
    r = value / base
    return [
        (
            name,
            f"{fmt_us(value)} / {fmt_us(base)} us = {r:.3f}x (target <= {limit:.3f})",
            "PASS" if r <= limit else "MISS",
        )
    ]


def relative(name, value, base, verdict="info"):
    """A row value / base without a target (a list of it, empty when either was not
    measured)."""
    if value is None or not base:
        return []
    return [(name, f"{fmt_us(value)} / {fmt_us(base)} us = {value / base:.2f}x", verdict)]
