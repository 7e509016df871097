# SPDX-License-Identifier: BSD-3-Clause
"""Scenarios for two real hosts (scripts/hosts.sh; the tests are in test_two_hosts.py):
DART sees the hosts as its nodes, by hostname, and moves data between them."""

from __future__ import annotations

import os
import socket

import numpy as np
from _helpers import done, main, pattern, same

import dartpy as dart

HOSTS = ("dart-h1", "dart-h2")


def init_putget():
    """dart.info() and the locality queries show two nodes, dart-h1 and dart-h2, with the
    first half of the units on dart-h1; each host has a /dev/shm of its own; blocking and
    handle put/get to the unit on the other host (and on this one) move the right bytes."""
    dart.init()
    me, n = dart.myid(), dart.size()
    info = dart.info()
    assert info["nodes"] == 2 and info["units_per_node_emulation"] == 0, info
    per = (n + 1) // 2
    assert info["unit_nodes"] == [u // per for u in range(n)], info["unit_nodes"]
    host = socket.gethostname()
    assert host == HOSTS[me // per], (me, host)
    names = [d["host"] for d in dart.locality_domains("node")]
    assert names == list(HOSTS), names
    assert dart.unit_locality(me)["host"] == host
    # /dev/shm: a file made on one host is not seen on the other.
    mark = f"/dev/shm/dart-two-hosts-{os.getppid()}-{me}"
    with open(mark, "w"):
        pass
    dart.barrier()
    seen = {u for u in range(n) if os.path.exists(f"/dev/shm/dart-two-hosts-{os.getppid()}-{u}")}
    dart.barrier()
    os.unlink(mark)
    assert me in seen and not any(u // per != me // per for u in seen), (me, seen)
    # put/get to the unit on the other host (me +- per) and to the next unit
    for across in (True, False):
        peer = peer_of(me, n, per, across)
        for dt in (np.int64, np.float64, np.uint8):
            g = dart.team_memalloc_aligned(dart.TEAM_ALL, 1000, dt)
            dart.put_blocking(g.setunit(peer), pattern(me, 1000, dt))
            dart.barrier()
            src = [u for u in range(n) if peer_of(u, n, per, across) == me]
            mine = np.zeros(1000, dt)
            dart.get_blocking(mine, g.setunit(me))
            assert len(src) == 1 and same(mine, pattern(src[0], 1000, dt)), (me, peer, dt)
            back = np.zeros(1000, dt)
            h = dart.get_handle(back, g.setunit(peer))
            h.wait()
            assert same(back, pattern(me, 1000, dt)), (me, peer, dt)
            dart.barrier()
            dart.team_memfree(g)
    done("init_putget")
    dart.exit()


def peer_of(u: int, n: int, per: int, across: bool) -> int:
    """The unit that unit u puts to: the one on the other host, or the next one."""
    return (u + per) % n if across else (u + 1) % n


if __name__ == "__main__":
    main({"init_putget": init_putget})
