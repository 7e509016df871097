# SPDX-License-Identifier: BSD-3-Clause
"""Collectives and two-sided messages on NumPy arrays, user reduction operations."""

from __future__ import annotations

import numpy as np
from _helpers import done, main, raises

import dartpy as dart


def collectives():
    dart.init()
    me, n = dart.myid(), dart.size()
    right, left = (me + 1) % n, (me - 1) % n

    # bcast from the last unit
    b = np.arange(5, dtype=np.float32) * (me + 1)
    dart.bcast(b, root=n - 1, team=dart.TEAM_ALL)
    assert np.array_equal(b, np.arange(5, dtype=np.float32) * n)

    # scatter / gather with non-root buffers omitted
    send = np.arange(3 * n, dtype=np.int64) if me == 0 else None
    recv = np.zeros(3, np.int64)
    dart.scatter(send, recv, 0)
    assert np.array_equal(recv, np.arange(3 * me, 3 * me + 3))
    g = np.zeros(3 * n, np.int64) if me == 0 else None
    dart.gather(recv * 2, g, 0)
    if me == 0:
        assert np.array_equal(g, 2 * np.arange(3 * n))

    # allgather of complex numbers (two DART elements each)
    z = np.array([me + 1j * me], np.complex128)
    allz = np.zeros(n, np.complex128)
    dart.allgather(z, allz)
    assert np.array_equal(allz, np.arange(n) * (1 + 1j))

    # allgatherv: unit u contributes u+1 elements
    mine = np.full(me + 1, me, np.int32)
    counts = [u + 1 for u in range(n)]
    displs = [sum(counts[:u]) for u in range(n)]
    allv = np.zeros(sum(counts), np.int32)
    dart.allgatherv(mine, allv, counts, displs)
    assert np.array_equal(allv, np.repeat(np.arange(n), counts))

    # reductions
    s = np.array([me, 2 * me, -me], np.int64)
    r = np.zeros(3, np.int64)
    dart.allreduce(s, r, dart.OP_SUM)
    t = n * (n - 1) // 2
    assert list(r) == [t, 2 * t, -t]
    dart.allreduce(np.array([float(me)]), (mx := np.zeros(1)), dart.OP_MAX)
    assert mx[0] == n - 1
    mm = np.array([me, me], np.float64)
    out = np.zeros(2)
    dart.allreduce(mm, out, dart.OP_MINMAX)
    assert list(out) == [0.0, n - 1.0], out
    red = np.zeros(1, np.uint32) if me == n - 1 else None
    dart.reduce(np.array([me + 1], np.uint32), red, dart.OP_PROD, root=n - 1)
    if me == n - 1:
        assert red[0] == np.prod(np.arange(1, n + 1))

    # a user-defined operation (Python callable on NumPy views of MPI's buffers)
    def absmax(invec, inout):
        np.copyto(inout, np.where(np.abs(invec) > np.abs(inout), invec, inout))

    op = dart.op_create(absmax, np.float64)
    val = np.array([(-1.0) ** me * me])
    res = np.zeros(1)
    dart.allreduce(val, res, op)
    assert abs(res[0]) == n - 1, res
    # the core checks that the operation's type matches (on every unit)
    raises(
        dart.DartError,
        dart.allreduce,
        np.zeros(1, np.float32),
        np.zeros(1, np.float32),
        op,
        code=dart.ERR_INVAL,
    )
    op.destroy()

    # alltoall
    a2a = np.array([100 * me + u for u in range(n)], np.int16)
    got = np.zeros(n, np.int16)
    dart.alltoall(a2a, got)
    assert list(got) == [100 * u + me for u in range(n)]

    # argument errors name the argument (same on every unit, so nobody hangs)
    raises(ValueError, dart.allgather, np.zeros(2), np.zeros(2 * n + 1), match="recvbuf")
    raises(
        TypeError, dart.allreduce, np.zeros(2), np.zeros(2, np.float32), dart.OP_SUM, match="dtype"
    )
    raises(ValueError, dart.bcast, np.zeros((4, 4))[:, 1], 0, match="C-contiguous")
    raises(
        TypeError,
        dart.allreduce,
        np.zeros(2, np.complex64),
        np.zeros(2, np.complex64),
        dart.OP_SUM,
        match="arithmetic",
    )
    raises(dart.DartError, dart.bcast, np.zeros(1), n, code=dart.ERR_INVAL)  # root == size

    # two-sided: a ring with send/recv and sendrecv
    if n > 1:
        msg = np.full(4, me, np.int32)
        inbox = np.zeros(4, np.int32)
        if me % 2 == 0:
            dart.send(msg, 7, right)
            dart.recv(inbox, 7, left)
        else:
            dart.recv(inbox, 7, left)
            dart.send(msg, 7, right)
        assert (inbox == left).all()
    x = np.zeros(2, np.float64)
    dart.sendrecv(np.array([me, me + 0.5]), 3, right, x, 3, left)
    assert list(x) == [left, left + 0.5]

    # on a sub-team: the even units
    grp = dart.Group()
    for u in range(0, n, 2):
        grp.addmember(u)
    team = dart.team_create(dart.TEAM_ALL, grp)
    if me % 2 == 0:
        assert team and team.size == (n + 1) // 2 and team.myid == me // 2
        v = np.array([me], np.int64)
        w = np.zeros(1, np.int64)
        dart.allreduce(v, w, dart.OP_SUM, team)
        assert w[0] == sum(range(0, n, 2))
        dart.barrier(team)
        dart.team_destroy(team)
    else:
        assert team == dart.TEAM_NULL and not team
    done("collectives")
    dart.exit()


if __name__ == "__main__":
    main({"collectives": collectives})
