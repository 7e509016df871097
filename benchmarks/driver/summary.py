# SPDX-License-Identifier: BSD-3-Clause
"""The summary of latency-style rows (latency, gups, windows, and whatever `report`
is given besides halo, ghost and overlap): the transfer tables, the atomics and locks,
RandomAccess, and the target ratios."""

from .tables import op_table, tables
from .targets import ratios

# The ops of bench_atomics: tabled per placement (op_table), not per size.
ATOMIC_OPS = (
    "fetch_and_op",
    "compare_and_swap",
    "lock_acquire_release",
    "lock_acquire_release_contended",
)


def summary(rows, markdown, sections=None):
    """The tables of rows and, with sections (target ratio sections, see targets.py; an
    empty tuple still prints the heading and the count), their target ratios."""
    transfers = [r for r in rows if r["bench"] != "gups" and r["op"] not in ATOMIC_OPS]
    atomics = [r for r in rows if r["bench"] != "gups" and r["op"] in ATOMIC_OPS]
    gups = [r for r in rows if r["bench"] == "gups"]
    text = [tables(transfers, markdown)] if transfers else []
    if atomics:
        text.append(op_table(atomics, markdown, "atomics and locks: median / min us per operation"))
    if gups:
        text.append(
            op_table(
                gups,
                markdown,
                "gups: median / min us per update per unit (GUPS = units / (us * 1000))",
            )
        )
    if sections is not None:
        lines, npass, nmiss = ratios(rows, sections)
        text.append(("### " if markdown else "") + "target ratios (medians of this run)")
        text += [("- " if markdown else "  ") + ln for ln in lines]
        text.append(f"{npass} PASS, {nmiss} MISS")
    return "\n".join(text)
