# SPDX-License-Identifier: BSD-3-Clause
"""Hostile input for dartpy: a bounded random-call scenario (fixed seed, 2 units).

Every unit draws from the same generator in the same order, so all units make the same
calls with the same arguments (a bad argument to a collective is the same everywhere).
Each call either succeeds or raises one of the documented exceptions (DartError with a
code and detail, TypeError, ValueError, BufferError, OverflowError, IndexError); anything
else (another exception, a crash, a hang) fails the job. After every round a valid
put/get ring and a reduction must still work. Unit 0 prints the calls per category
(docs/error-contract.md, "Hostile input").
"""

from __future__ import annotations

import pickle
import random
from collections import Counter

import numpy as np
from _helpers import done, main, say

import dartpy as dart

SEED = 0x13A57113
ROUNDS = 20
CALLS = 60
EXPECTED = (dart.DartError, TypeError, ValueError, BufferError, OverflowError, IndexError)

calls: Counter = Counter()
errors: Counter = Counter()


def attempt(cat: str, fn, *args, **kw):
    calls[cat] += 1
    try:
        return fn(*args, **kw)
    except EXPECTED as e:
        errors[cat] += 1
        if isinstance(e, dart.DartError):
            assert e.code in (dart.ERR_INVAL, dart.ERR_NOTFOUND, dart.ERR_NOMEM, dart.ERR_OTHER), (
                repr(e)
            )
            assert e.detail, repr(e)
        return None


def coll(cat: str, fn, *args, **kw):
    """A collective: every unit must end the same way (checked with a reduction)."""
    calls[cat] += 1
    failed = 0
    try:
        fn(*args, **kw)
    except EXPECTED:
        failed = 1
        errors[cat] += 1
    except Exception:  # noqa: BLE001 -- reported below, after the agreement
        failed = 2
    lo, hi = np.array([failed], np.int64), np.zeros(1, np.int64)
    dart.allreduce(lo, hi, dart.OP_MAX)
    mn = np.zeros(1, np.int64)
    dart.allreduce(lo, mn, dart.OP_MIN)
    assert failed != 2, f"{cat}: unexpected exception"
    assert hi[0] == mn[0], f"{cat}: units disagree ({fn.__name__})"


DTYPES = [
    np.int8,
    np.int32,
    np.int64,
    np.float32,
    np.float64,
    np.complex128,
    np.longdouble,
    np.bool_,
    "U4",
    object,
    "V3",
]


def arrays(r: random.Random, n: int):
    """A local array: wrong dtypes, non-contiguous, read-only, 0-d, empty, lists."""
    k = r.randrange(9)
    if k == 0:
        return np.zeros(n, r.choice([np.int8, np.float32, np.complex128, np.int64]))
    if k == 1:
        return np.zeros(2 * n + 1)[::2][:n]  # non-contiguous
    if k == 2:
        a = np.zeros(n)
        a.flags.writeable = False  # read-only
        return a
    if k == 3:
        return np.zeros(n)[::-1]  # negative stride
    if k == 4:
        return np.zeros((n, 2), order="F")[:, 0]  # column of a Fortran array
    if k == 5:
        return [1.0] * n  # not an array
    if k == 6:
        return np.array(np.float64(1))  # 0-d
    if k == 7:
        return np.zeros(n, dtype=r.choice(DTYPES[7:]))
    return np.zeros(n)  # fine


def gptrs(r: random.Random, env):
    g, n = env["g"], dart.size()
    k = r.randrange(10)
    if k == 0:
        return g.setunit(r.randrange(n)) + r.choice([-1, 16, 17, 1 << 40, -(1 << 20)])
    if k == 1:
        return env["freed"].setunit(r.randrange(n))
    if k == 2:
        return pickle.loads(env["freed_pickle"])  # pickled gptr of freed memory
    if k == 3:
        return pickle.loads(env["pool_freed_pickle"])
    if k == 4:
        return dart.Gptr(
            r.randrange(-2, n + 2),
            r.randrange(-300, 300),
            r.randrange(-2, 40),
            r.randrange(0, 1 << 20),
        )
    if k == 5:
        return g.setunit(r.randrange(n)).astype(r.choice([np.int8, np.float32, None]))
    return g.setunit(r.randrange(n)) + r.randrange(16)


def onesided(r: random.Random, env):
    gp = gptrs(r, env)
    a = arrays(r, r.choice([0, 1, 4, 16, 17]))
    kw = {}
    if r.randrange(4) == 0:
        kw = {
            "remote_stride": r.choice([0, 1, 2, -1, 1 << 40]),
            "remote_blocklen": r.choice([0, 1, 2, 3]),
        }
    fn = r.choice(
        [dart.put_blocking, dart.get_blocking, dart.put, dart.get, dart.put_handle, dart.get_handle]
    )
    if fn in (dart.put_blocking, dart.put, dart.put_handle):
        h = attempt("onesided", fn, gp, a, **kw)
    else:
        h = attempt("onesided", fn, a, gp, **kw)
    if isinstance(h, dart.Handle):
        attempt("onesided", h.wait)
    attempt(
        "onesided",
        r.choice([dart.flush, dart.flush_all, dart.flush_local, dart.flush_local_all]),
        gp,
    )


def gptr_math(r: random.Random, env):
    gp = gptrs(r, env)
    fn = r.randrange(7)
    if fn == 0:
        attempt("gptr", lambda: gp + r.choice([1 << 62, -(1 << 62), 1 << 70, -1]))
    elif fn == 1:
        attempt("gptr", gp.setunit, r.choice([-1, 1 << 24, dart.size(), 1 << 30]))
    elif fn == 2:
        attempt("gptr", dart.gptr_segment_size, gp)
    elif fn == 3:
        attempt("gptr", dart.gptr_getaddr, gp)
    elif fn == 4:
        attempt("gptr", dart.view, gp, r.choice([None, 1, 16, 17, (4, 4), (-1,), 0]))
    elif fn == 5:
        attempt("gptr", dart.gptr_incaddr, gp, r.choice([1 << 63, -(1 << 63), 5, -5]))
    else:
        # a pickled round trip of any of them, then used
        attempt("gptr", dart.get_blocking, np.zeros(2, np.int64), pickle.loads(pickle.dumps(gp)))


def atomics(r: random.Random, env):
    gp = gptrs(r, env)
    op = r.choice(
        [
            dart.OP_SUM,
            dart.OP_BAND,
            dart.OP_MINMAX,
            dart.OP_NO_OP,
            dart.OP_REPLACE,
            dart.OP_UNDEFINED,
            999,
            -1,
        ]
    )
    dt = r.choice([None, np.int64, np.float64, np.int8, "U2", np.complex64])
    k = r.randrange(3)
    if k == 0:
        attempt("atomics", dart.accumulate, gp, arrays(r, r.choice([1, 2, 16, 17])), op, dtype=dt)
    elif k == 1:
        attempt(
            "atomics", dart.fetch_and_op, gp, r.choice([1, 1.5, "x", None, 1 << 70]), op, dtype=dt
        )
    else:
        attempt("atomics", dart.compare_and_swap, gp, 1, r.choice([0, "y", 2.5]), dtype=dt)
    dart.flush_all(env["g"])


def collectives(r: random.Random, env):
    n = dart.size()
    k = r.randrange(6)
    root = r.choice([0, n - 1, -1, n, 1 << 31])
    count = r.choice([0, 1, 3])
    dt = r.choice([np.int64, np.float64, np.int8])
    bad = r.randrange(4)  # 0: fine; 1: wrong dtype pair; 2: read-only out; 3: non-contiguous
    send = np.zeros(count * n, dt)
    recv = np.zeros(count * n, dt if bad != 1 else np.int16)
    if bad == 2:
        recv.flags.writeable = False
    if bad == 3:
        recv = np.zeros(2 * count * n, dt)[::2]
    if k == 0:
        coll("collectives", dart.bcast, recv, root)
    elif k == 1:
        coll(
            "collectives",
            dart.allreduce,
            send,
            recv,
            r.choice([dart.OP_SUM, dart.OP_UNDEFINED, 77]),
        )
    elif k == 2:
        coll("collectives", dart.allgather, send[:count], recv)
    elif k == 3:
        coll("collectives", dart.alltoall, send, recv)
    elif k == 4:
        coll("collectives", dart.barrier, r.choice([dart.TEAM_ALL, 999, -1]))
    else:
        coll(
            "collectives",
            dart.team_memalloc_aligned,
            r.choice([dart.TEAM_ALL, 999, -3]),
            r.choice([-1, 1 << 62, 4]),
            r.choice([np.int64, "U3", object]),
        )


def still_works(env, rnd: int):
    dart.flush_all(env["g"])
    dart.barrier()
    me, n = dart.myid(), dart.size()
    g = env["g"]
    dart.put_blocking(g.setunit((me + 1) % n), np.full(16, rnd * 100 + me, np.int64))
    dart.barrier()
    out = np.zeros(16, np.int64)
    dart.get_blocking(out, g.setunit(me))
    assert (out == rnd * 100 + (me + n - 1) % n).all(), out
    s = np.zeros(1, np.int64)
    dart.allreduce(np.ones(1, np.int64), s, dart.OP_SUM)
    assert s[0] == n
    dart.barrier()


def hostile():
    dart.init()
    g = dart.team_memalloc_aligned(dart.TEAM_ALL, 16, np.int64)
    freed = dart.team_memalloc_aligned(dart.TEAM_ALL, 4, np.int64)
    dart.team_memfree(freed)
    p = dart.memalloc(4, np.int64)
    dart.memfree(p)
    env = {
        "g": g,
        "freed": freed,
        "freed_pickle": pickle.dumps(freed),
        "pool_freed_pickle": pickle.dumps(p),
    }
    r = random.Random(SEED)
    for rnd in range(ROUNDS):
        for _ in range(CALLS):
            f = r.choice([onesided, onesided, gptr_math, atomics, collectives])
            f(r, env)
        still_works(env, rnd)
    dart.team_memfree(g)
    if dart.myid() == 0:
        total = sum(calls.values())
        say(f"hostile dartpy calls per category (seed {SEED:#x}):")
        for cat in sorted(calls):
            say(
                f"  {cat:12s} {calls[cat]:5d} calls: {calls[cat] - errors[cat]:5d} OK, "
                f"{errors[cat]:5d} errors"
            )
        say(
            f"  {'total':12s} {total:5d} calls: {total - sum(errors.values()):5d} OK, "
            f"{sum(errors.values()):5d} errors"
        )
    done("hostile")
    dart.exit()


if __name__ == "__main__":
    main({"hostile": hostile})
