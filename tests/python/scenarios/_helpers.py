# SPDX-License-Identifier: BSD-3-Clause
"""Shared helpers of the multi-unit scenarios (run under mpiexec, one process per unit).

A scenario prints "PASS <case> unit <id>/<n>" when all its checks passed on that unit.
A failed check raises; dartpy's excepthook then aborts the whole job, so pytest sees a
non-zero exit status instead of a hang.
"""

from __future__ import annotations

import faulthandler
import os
import sys
from typing import Callable, Dict

import numpy as np

import dartpy as dart

DTYPES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.longdouble,
    np.complex64,
    np.complex128,
]


def pattern(seed: int, n: int, dtype) -> np.ndarray:
    """Distinct, dtype-exact values for unit `seed`."""
    dt = np.dtype(dtype)
    base = np.arange(n, dtype=np.int64) + 7 * seed + 1
    if dt == np.bool_:
        return ((base + seed) % 2).astype(dt)
    if dt.kind == "c":
        return (base + 1j * (base + 3)).astype(dt)
    if dt.kind == "u" or dt.itemsize == 1:
        return (base % 100).astype(dt)
    return base.astype(dt)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-exact equality; long double compares values (its padding bytes are undefined)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype in (np.dtype(np.longdouble), np.dtype(np.clongdouble)):
        return bool(np.array_equal(a, b))
    return a.tobytes() == b.tobytes()


def raises(exc, fn: Callable, *args, code=None, match=None, **kw):
    try:
        fn(*args, **kw)
    except exc as e:
        if code is not None:
            assert getattr(e, "code", None) == code, (
                f"{e!r}: code {getattr(e, 'code', None)} != {code}"
            )
        if match is not None:
            assert match in str(e), f"{match!r} not in {str(e)!r}"
        return e
    raise AssertionError(f"{getattr(fn, '__name__', fn)} did not raise {exc.__name__}")


def increments_during(call: Callable[[], None], warmup: float = 0.05) -> int:
    """How often another Python thread increments a counter while call() runs: many
    (millions per second) when call() releases the GIL, about none when it holds it."""
    import threading
    import time

    count, stop = [0], [False]

    def spin():
        while not stop[0]:
            count[0] += 1

    th = threading.Thread(target=spin)
    th.start()
    time.sleep(warmup)
    before = count[0]
    try:
        call()
    finally:
        during = count[0] - before
        stop[0] = True
        th.join()
    return during


# DART_PROGRESS_PER_NODE of this job (0: none); a few cases differ with progress processes.
PROGRESS = int(os.environ.get("DART_PROGRESS_PER_NODE") or 0)


def same_node(unit: int) -> bool:
    return dart.unit_node(unit) == dart.unit_node(dart.myid())


def say(line: str) -> None:
    """Print one line with a single write (units share the output pipe)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def done(case: str) -> None:
    # one write: lines of several units share the pipe
    sys.stdout.write(f"PASS {case} unit {dart.myid()}/{dart.size()}\n")
    sys.stdout.flush()


def main(cases: Dict[str, Callable[[], None]]) -> None:
    # A hung unit prints every thread's stack and exits before pytest's timeout kills
    # the job (the launcher sets the delay).
    after = float(os.environ.get("DARTPY_TEST_STACKS_AFTER", "0") or 0)
    if after > 0:
        faulthandler.dump_traceback_later(after, exit=True)
    case = sys.argv[1]
    if case not in cases:
        raise SystemExit(f"unknown case {case}; known: {', '.join(cases)}")
    cases[case]()
