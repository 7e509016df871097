# SPDX-License-Identifier: BSD-3-Clause
"""How a dartpy.Array shows itself: ``repr`` and Jupyter's ``_repr_html_``.

Both describe the distribution and this unit's part of it from what the unit knows
locally (no data, no communication): the global shape and dtype, the process grid, the
ghost widths, boundary, stencil and exchange, this unit's block and its memory.
"""

from __future__ import annotations

import html
from typing import Any, List, Tuple


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return ""  # pragma: no cover


def _fields(a: Any) -> List[Tuple[str, str]]:
    nd = a.ndim
    halo = a.halo
    widths = [f"{lo}" if lo == hi else f"{lo}/{hi}" for lo, hi in halo]
    boundary = a.boundary
    points = 1
    for d in range(nd):
        points *= a.hi[d] - a.lo[d] + halo[d][0] + halo[d][1]
    block = ", ".join(f"{lo}:{hi}" for lo, hi in zip(a.lo, a.hi))
    nunits = 1
    for p in a.procs:
        nunits *= p
    return [
        ("shape", str(tuple(a.shape))),
        ("dtype", str(a.dtype)),
        ("units", f"{nunits} of team {a.team.id}, grid {'x'.join(map(str, a.procs))}"),
        (
            "ghosts",
            "(" + ", ".join(widths) + ")" + (" lo/hi" if any(lo != hi for lo, hi in halo) else ""),
        ),
        ("boundary", boundary[0] if len(set(boundary)) == 1 else ", ".join(boundary)),
        ("stencil", a.stencil),
        ("exchange", a.exchange),
        ("my block", f"[{block}] (unit {a.team.myid}, coords {tuple(a.coords)})"),
        ("memory", f"{_bytes(points * a.dtype.itemsize)} with ghosts on this unit"),
    ]


def array_repr(self: Any) -> str:
    """Shape, dtype, grid, ghosts, boundary, stencil, exchange, this unit's block and
    memory; no data."""
    if self.freed:
        return "<dartpy.Array (freed)>"
    f = dict(_fields(self))
    return (
        f"<dartpy.Array {f['dtype']} {f['shape']} on {f['units']}; ghosts {f['ghosts']}, "
        f"boundary {f['boundary']}, stencil {f['stencil']}, exchange {f['exchange']};\n"
        f" my block {f['my block']}, {f['memory']}>"
    )


def array_repr_html(self: Any) -> str:
    """The same facts as repr() as a small HTML table (Jupyter)."""
    if self.freed:
        return "<code>dartpy.Array</code> (freed)"
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in _fields(self)
    )
    return f"<table><caption><code>dartpy.Array</code></caption>{rows}</table>"


def install(cls: type) -> None:
    cls.__repr__ = array_repr
    cls._repr_html_ = array_repr_html
