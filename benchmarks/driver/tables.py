# SPDX-License-Identifier: BSD-3-Clause
"""Rendering rows as tables, as text for the terminal or as Markdown for the document:
the number formats, the generic latency tables (a column per message size) and the
per-operation table (a column per placement)."""


def size_label(n):
    """8B, 64KiB, 4MiB."""
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}KiB"
    return f"{n}B"


def fmt_us(v):
    """Microseconds with three or four significant digits."""
    v = float(v)
    if v >= 100:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    if v >= 0.1:
        return "%.3f" % v
    return "%.4f" % v


def render_table(header, body, markdown):
    """A table: the first two columns left-aligned, the others right-aligned."""
    if markdown:
        lines = [
            "| " + " | ".join(header) + " |",
            "|" + "|".join("---" if i < 2 else "---:" for i in range(len(header))) + "|",
        ]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *body)]
    fmt = lambda row: "  ".join(  # noqa: E731
        str(x).ljust(w) if i < 2 else str(x).rjust(w) for i, (x, w) in enumerate(zip(row, widths))
    )
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in body])


def index(rows):
    """{(impl, op, placement, bytes): row}."""
    return {(r["impl"], r["op"], r["placement"], int(r["bytes"])): r for r in rows}


# The order of the rows of the tables below, (impl, op); pairs not listed follow, sorted.
# A program's new impl or op goes here too.
ROW_ORDER = [
    ("dart", "put_blocking"),
    ("dart", "get_blocking"),
    ("dart", "put_handle_init"),
    ("dart", "get_handle_init"),
    ("dart-fortran", "put_blocking"),
    ("dart-fortran", "get_blocking"),
    ("dart-fortran", "put_handle_init"),
    ("dart-fortran", "get_handle_init"),
    ("mpi-shm", "put"),
    ("mpi-shm", "get"),
    ("mpi-rma-allocate", "put"),
    ("mpi-rma-allocate", "get"),
    ("mpi-rma-create-shm", "put"),
    ("mpi-rma-create-shm", "get"),
    ("mpi-rma-create", "put"),
    ("mpi-rma-create", "get"),
    ("mpi-rma-dynamic", "put"),
    ("mpi-rma-dynamic", "get"),
    ("mpi-rma-dynamic-shm", "put"),
    ("mpi-rma-dynamic-shm", "get"),
    ("mpi-p2p", "pingpong"),
    ("dart", "fetch_and_op"),
    ("mpi-shm", "fetch_and_op"),
    ("mpi-rma-create-shm", "fetch_and_op"),
    ("mpi-rma-allocate", "fetch_and_op"),
    ("dart", "compare_and_swap"),
    ("mpi-shm", "compare_and_swap"),
    ("mpi-rma-create-shm", "compare_and_swap"),
    ("mpi-rma-allocate", "compare_and_swap"),
    ("dart", "lock_acquire_release"),
    ("dart", "lock_acquire_release_contended"),
    ("dart", "update"),
    ("mpi", "update"),
    ("dartpy", "put_blocking"),
    ("dartpy", "get_blocking"),
    ("mpi4py", "put"),
    ("mpi4py", "get"),
    ("mpi4py-create-shm", "put"),
    ("mpi4py-create-shm", "get"),
]


def tables(rows, markdown):
    """Per placement, a row per (impl, op) and a column per message size: on the
    terminal a table of medians and one of minima, in Markdown one table of
    "median / min" cells."""
    idx = index(rows)
    sizes = sorted({int(r["bytes"]) for r in rows})
    keys = [k for k in ROW_ORDER] + sorted({(r["impl"], r["op"]) for r in rows} - set(ROW_ORDER))
    out = []
    for placement in ("node", "remote"):
        present = [k for k in keys if any((k[0], k[1], placement, s) in idx for s in sizes)]
        if not present:
            continue
        views = (
            ((None, "median / min"),) if markdown else (("median_us", "median"), ("min_us", "min"))
        )
        for col, what in views:
            header = ["impl", "op"] + [size_label(s) for s in sizes]
            body = []
            for impl, op in present:
                cells = []
                for s in sizes:
                    r = idx.get((impl, op, placement, s))
                    if r is None:
                        cells.append("-")
                    elif col is None:
                        cells.append(f"{fmt_us(r['median_us'])} / {fmt_us(r['min_us'])}")
                    else:
                        cells.append(fmt_us(r[col]))
                body.append([impl, op] + cells)
            title = f"placement {placement}: {what} latency per operation (us)"
            out.append(("### " if markdown else "") + title)
            out.append(render_table(header, body, markdown))
            out.append("")
    return "\n".join(out)


def op_table(rows, markdown, title):
    """A row per (impl, op, bytes), a column per placement, cells "median / min": the
    atomics and locks, and RandomAccess."""
    idx = index(rows)
    keys = []
    for k in ROW_ORDER + sorted({(r["impl"], r["op"]) for r in rows}):
        for n in sorted({int(r["bytes"]) for r in rows if (r["impl"], r["op"]) == k}):
            if (k[0], k[1], n) not in keys:
                keys.append((k[0], k[1], n))
    header = ["impl", "op", "bytes", "node", "remote"]
    body = []
    for impl, op, n in keys:
        cells = []
        for pl in ("node", "remote"):
            r = idx.get((impl, op, pl, n))
            cells.append("-" if r is None else f"{fmt_us(r['median_us'])} / {fmt_us(r['min_us'])}")
        body.append([impl, op, str(n)] + cells)
    return "\n".join(
        [("### " if markdown else "") + title, render_table(header, body, markdown), ""]
    )
