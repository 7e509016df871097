# SPDX-License-Identifier: BSD-3-Clause
"""Notified access: notify_alloc blocks, put_notify (strided NumPy slices too), its
handle form, notify after plain puts, waits and tests, SET and ADD, and the errors."""

from __future__ import annotations

import numpy as np
from _helpers import done, main, raises

import dartpy as dart


def chain(me, n, right, left):
    """A token passes around the ring for several laps, one put_notify per hop."""
    laps = 10
    buf = dart.zeros(dart.TEAM_ALL, 1, np.int64)
    with dart.notify_alloc(dart.TEAM_ALL, 1) as nv:
        for lap in range(laps):
            token = 0
            if not (me == 0 and lap == 0):
                dart.notify_wait(nv.mine(0))
                token = int(buf.local[0])
                assert token == lap * n + me, (lap, token)
            dart.put_notify(
                buf.gptr_of(right), np.array([token + 1], np.int64), nv.gptr_of(right, 0)
            )
        if me == 0:
            dart.notify_wait(nv.gptr_of(0, 0), until=1)
            assert buf.local[0] == laps * n
        assert dart.notify_get(nv.mine(0)) == 0
        dart.barrier()
    dart.barrier()
    buf.free()


def strided_set_handles(me, n, right, left):
    """A halo column (strided on both sides) with SET; handles; notify after puts."""
    R, C = 5, 6
    a = dart.zeros(dart.TEAM_ALL, (R, C), np.float64)
    loc = a.local
    loc[...] = me * 100 + np.arange(R * C, dtype=np.float64).reshape(R, C)
    with dart.notify_alloc(dart.TEAM_ALL, 4) as nv:
        dart.barrier()
        # my column 1 -> right's last column; counter 0 set to 7
        dart.put_notify(
            a.gptr_of(right) + (C - 1),
            loc[:, 1],
            nv.gptr_of(right, 0),
            7,
            dart.NOTIFY_SET,
            remote_stride=C,
        )
        while not dart.notify_test(nv.mine(0), until=7):
            pass
        want = left * 100 + np.arange(R * C, dtype=np.float64).reshape(R, C)[:, 1]
        assert np.array_equal(loc[:, C - 1], want), loc
        assert dart.notify_get(nv.mine(0)) == 0
        # three handles to the same target, each notifying counter 1
        h = dart.zeros(dart.TEAM_ALL, 6, np.float64)
        srcs = [np.full(2, 10.0 * me + i) for i in range(3)]
        hs = [
            dart.put_notify_handle(h.gptr_of(right) + 2 * i, s, nv.gptr_of(right, 1))
            for i, s in enumerate(srcs)
        ]
        dart.waitall(hs)
        dart.notify_wait(nv.mine(1), 3)
        for i in range(3):
            assert (h.local[2 * i : 2 * i + 2] == 10.0 * left + i).all(), h.local
        # plain puts to every unit, then one notify per unit (an event post)
        g = dart.zeros(dart.TEAM_ALL, n, np.int64)
        for u in range(n):
            dart.put(g.gptr_of(u) + me, np.array([1000 + me], np.int64))
        for u in range(n):
            dart.notify(nv.gptr_of(u, 2), 1, dart.NOTIFY_ADD)
        assert dart._core._pending_count() == 0  # notify completed the puts
        dart.notify_wait(nv.mine(2), until=n)
        assert (g.local == 1000 + np.arange(n)).all(), g.local
        dart.barrier()
        g.free()
        h.free()
        del loc
    dart.barrier()
    a.free()


def errors(me, n, right, left):
    buf = dart.zeros(dart.TEAM_ALL, 4, np.float64)
    nv = dart.notify_alloc(dart.TEAM_ALL, 2)
    e = raises(
        dart.DartError,
        dart.notify_wait,
        buf.gptr_of(me),
        code=dart.ERR_INVAL,
        match="not a notification counter",
    )
    assert "dart_notify_wait" in str(e)
    raises(
        dart.DartError,
        dart.put_notify,
        buf.gptr_of(right),
        np.zeros(4),
        buf.gptr_of(me),
        code=dart.ERR_INVAL,
    )
    raises(dart.DartError, dart.notify, nv.gptr_of(right), 1, 5, code=dart.ERR_INVAL)
    if n > 1:
        raises(
            dart.DartError, dart.notify_wait, nv.gptr_of(right), code=dart.ERR_INVAL, match="own"
        )
    raises(IndexError, nv.gptr_of, me, 2)
    assert dart.notify_get(nv.mine(1)) == 0
    dart.barrier()
    nv.free()
    raises(dart.DartError, dart.notify_get, nv.mine(0), code=dart.ERR_NOTFOUND)
    raises(dart.DartError, nv.free, code=dart.ERR_INVAL)
    dart.barrier()
    buf.free()


def notify():
    dart.init()
    me, n = dart.myid(), dart.size()
    right, left = (me + 1) % n, (me - 1) % n
    chain(me, n, right, left)
    strided_set_handles(me, n, right, left)
    errors(me, n, right, left)
    done("notify")
    dart.exit()


if __name__ == "__main__":
    main({"notify": notify})
