# SPDX-License-Identifier: BSD-3-Clause
"""Python threads sharing dartpy: worker threads put/get (plain and prepared), use
atomics and dart.memalloc while another thread runs allreduce with a Python reduction op,
which needs the GIL inside MPI. With init() dartpy serializes the DART calls; a thread
waiting for that serialization must not hold the GIL (it would deadlock with the
reduction). With init_thread() nothing is serialized. No deadlock (the job's timeout),
exact values.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
from _helpers import done, main

import dartpy as dart

WORKERS = 3
SLOT = 8  # int64 elements per worker region
ROUNDS = 60  # allreduce calls with the Python op


def run(multiple: bool) -> None:
    if multiple:
        assert dart.init_thread() == dart.THREAD_MULTIPLE
    else:
        dart.init()
    me, n = dart.myid(), dart.size()
    right = (me + 1) % n
    data = dart.zeros(dart.TEAM_ALL, n * WORKERS * SLOT, np.int64)
    ctr = dart.zeros(dart.TEAM_ALL, 1, np.int64)  # unit 0's word counts all increments
    calls = [0]

    def add(invec, inoutvec):
        calls[0] += 1
        inoutvec += invec

    op = dart.op_create(add, np.int64)
    stop = threading.Event()
    errors: list = []
    adds = [0] * WORKERS

    def worker(t: int) -> None:
        try:
            region = data.gptr.setunit(right) + (me * WORKERS + t) * SLOT
            out = np.zeros(SLOT, np.int64)
            # prepared transfers of this thread (made here, under the other threads'
            # calls), on a strided half of the region
            vbuf, got = np.zeros(SLOT // 2, np.int64), np.zeros(SLOT, np.int64)
            tput = dart.put_init(region, vbuf, remote_stride=2)
            tget = dart.get_init(got[::2], region, remote_stride=2)
            i = 0
            while i < 20 or not stop.is_set():
                v = np.arange(SLOT, dtype=np.int64) + (me << 40) + (t << 32) + i * SLOT
                dart.put_blocking(region, v)
                dart.get_blocking(out, region)
                assert np.array_equal(out, v), (out, v)
                dart.put(region, v + 1)  # flush-based: a handle freed under the guard
                dart.flush(region)
                h = dart.get_handle(out, region)
                h.wait()
                assert np.array_equal(out, v + 1), (out, v + 1)
                vbuf[:] = v[::2] + 7
                tput.run()
                got[...] = -1
                tget.start().wait()
                assert np.array_equal(got[::2], v[::2] + 7) and (got[1::2] == -1).all(), got
                dart.fetch_and_op(ctr.gptr, 1, dart.OP_SUM)
                adds[t] += 1
                g = dart.memalloc(4, np.int64)  # a short call under the guard
                dart.memfree(g)
                i += 1
        except BaseException as e:  # reported by the main thread
            errors.append(repr(e))
            stop.set()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(WORKERS)]
    for th in threads:
        th.start()
    mine = np.array([me + 1, 1], np.int64)
    res = np.zeros(2, np.int64)
    for _ in range(ROUNDS):
        dart.allreduce(mine, res, op)
        assert list(res) == [n * (n + 1) // 2, n], res
    stop.set()
    for th in threads:
        th.join()
    assert not errors, errors
    assert n == 1 or calls[0] > 0  # the Python op ran (on some unit: summed below)

    dart.barrier()
    total = np.zeros(1, np.int64)
    dart.allreduce(np.array([sum(adds)], np.int64), total, dart.OP_SUM)
    got = np.zeros(1, np.int64)
    dart.get_blocking(got, ctr.gptr)
    assert got[0] == total[0], (got, total)
    ran = np.zeros(1, np.int64)
    dart.allreduce(np.array([calls[0]], np.int64), ran, dart.OP_SUM)
    assert ran[0] > 0, ran
    dart.barrier()
    op.destroy()
    ctr.free()
    data.free()
    print(f"unit {me}: {sum(adds)} worker rounds, {calls[0]} op calls", file=sys.stderr)
    done("multiple" if multiple else "serialized")
    dart.exit()


if __name__ == "__main__":
    main(
        {
            "serialized": lambda: run(False),
            "multiple": lambda: run(True),
        }
    )
