# SPDX-License-Identifier: BSD-3-Clause
"""`benchmarks/run notify`: notified access, half a round trip of a put and its
notification (dart_put_notify against the other ways to tell the peer), and its
targets."""

from .experiment import Experiment
from .tables import size_label, tables
from .targets import bounded, relative
from .twoplacement import two_placement_cmd


def cmd_notify(argv):
    return two_placement_cmd(
        argv,
        "bench_notify",
        "notify",
        "notified access: half a round trip of put + notification",
        quick_sizes="8,1K,64K",
        targets=notify_targets,
    )


def notify_targets(notify):
    """put_notify against the hand-written put + flag store in shared memory (the
    target, node), and the other ways to tell the peer relative to put_notify (verdict
    `ratio`)."""
    out = []
    nm = {
        (r["impl"], r["op"], r["placement"], int(r["bytes"])): float(r["median_us"]) for r in notify
    }
    for n in sorted({int(r["bytes"]) for r in notify}):
        out += bounded(
            f"notify node {size_label(n)}: dart put_notify <= 1.5x shm put_flag "
            "(hand-written put + flag store)",
            nm.get(("dart", "put_notify", "node", n)),
            nm.get(("shm", "put_flag", "node", n)),
            1.5,
        )
    for pl in ("node", "remote"):
        base = nm.get(("dart", "put_notify", pl, 8))
        for impl, op in (
            ("dart", "put_flush_msg"),
            ("dart", "put_barrier"),
            ("mpi", "put_flush_acc"),
        ):
            out += relative(
                f"notify {pl} 8B: {impl} {op} relative to dart put_notify",
                nm.get((impl, op, pl, 8)),
                base,
                "ratio",
            )
    return out


EXPERIMENT = Experiment(
    name="notify",
    title="Notified access (`benchmarks/run notify`): put + notification, half a round trip",
    run=cmd_notify,
    doc_tables=lambda rows: tables(rows, True),
    targets=notify_targets,
)
