# SPDX-License-Identifier: BSD-3-Clause
"""Groups, teams, locks, atomics; mpi4py interop (team.comm, teams from communicators,
gptrs pickled through mpi4py) in both init orders; init/exit cycles."""

from __future__ import annotations

import os
import pickle
import sys

import numpy as np
from _helpers import PROGRESS, done, increments_during, main, raises, say

if len(sys.argv) > 1 and sys.argv[1] == "mpi4py_first":
    from mpi4py import MPI  # noqa: F401  (initializes MPI before dartpy, MULTIPLE)

import dartpy as dart


def groups(me, n):
    g = dart.group_create()
    assert dart.group_size(g) == 0 and len(g) == 0
    for u in reversed(range(n)):
        dart.group_addmember(g, u)
    assert dart.group_getmembers(g) == list(range(n))  # always sorted
    evens, odds = dart.Group(), dart.Group()
    for u in range(n):
        (evens if u % 2 == 0 else odds).addmember(u)
    assert (evens | odds).members == list(range(n))
    assert dart.group_intersect(evens, g).members == evens.members
    assert (evens & odds).size() == 0
    c = dart.group_clone(g)
    dart.group_delmember(c, 0)
    assert not dart.group_ismember(c, 0) and (n == 1 or 1 in c)
    parts = g.split(2)
    assert sum(len(p) for p in parts) == n
    raises(dart.DartError, g.addmember, n, code=dart.ERR_INVAL)  # unit == size
    raises(dart.DartError, g.addmember, -1, code=dart.ERR_INVAL)
    tg = dart.team_get_group(dart.TEAM_ALL)
    assert tg.members == list(range(n))
    c.destroy()
    raises(dart.DartError, c.size, code=dart.ERR_INVAL)


def teams(me, n):
    assert dart.TEAM_ALL == 0 and dart.TEAM_ALL.size == n and dart.TEAM_ALL.myid == me
    assert dart.team_size(0) == n and dart.team_myid(dart.TEAM_ALL) == me
    # two halves from a group split
    halves = dart.team_get_group(dart.TEAM_ALL).split(2)
    mine = [h for h in halves if me in h][0]
    t = dart.team_create(dart.TEAM_ALL, mine)
    assert t and t.size == len(mine) and t.myid == mine.members.index(me)
    assert [t.unit_l2g(u) for u in range(t.size)] == mine.members
    assert dart.team_unit_g2l(t, me) == t.myid
    outside = [u for u in range(n) if u not in mine]
    if outside:
        assert t.unit_g2l(outside[0]) == dart.UNDEFINED_UNIT_ID
    raises(dart.DartError, t.unit_l2g, t.size, code=dart.ERR_INVAL)
    # team memory: ring inside the team
    a = dart.zeros(t, 4, np.int32)
    r = (t.myid + 1) % t.size
    dart.put_blocking(a.gptr_of(r), np.full(4, me, np.int32))
    t.barrier()
    assert (a.local == t.unit_l2g((t.myid - 1) % t.size)).all()
    a.free()
    with dart.team_clone(t) as c:
        assert c.size == t.size and c.id not in (t.id, 0)
        c.barrier()
    raises(dart.DartError, dart.team_size, c, code=dart.ERR_NOTFOUND)
    dart.team_destroy(t)
    raises(dart.DartError, dart.team_destroy, dart.TEAM_ALL, code=dart.ERR_INVAL)
    raises(TypeError, dart.barrier, "all")


def locks_and_atomics(me, n):
    # a read-modify-write counter protected by the lock (not atomic by itself)
    ctr = dart.zeros(dart.TEAM_ALL, 1, np.int64)
    lock = dart.team_lock_init(dart.TEAM_ALL)
    assert lock.initialized and dart.lock_initialized(lock)
    for _ in range(20):
        with lock:
            v = np.zeros(1, np.int64)
            dart.get_blocking(v, ctr.gptr)
            dart.put_blocking(ctr.gptr, v + 1)
    dart.barrier()
    if dart.lock_try_acquire(lock):
        dart.lock_release(lock)
    dart.barrier()
    got = np.zeros(1, np.int64)
    dart.get_blocking(got, ctr.gptr)
    assert got[0] == 20 * n, got
    dart.team_lock_destroy(lock)
    raises(dart.DartError, lock.acquire, code=dart.ERR_INVAL)
    # atomics on unit 0's word
    dart.barrier()
    prev = dart.fetch_and_op(ctr.gptr, 5, dart.OP_SUM)
    assert prev.dtype == np.int64 and 20 * n <= prev < 20 * n + 8 * n, (prev, n)
    dart.accumulate(ctr.gptr, np.array([1], np.int64), dart.OP_SUM)
    dart.flush(ctr.gptr)
    dart.accumulate_blocking_local(ctr.gptr, 2, dart.OP_SUM)
    dart.flush(ctr.gptr)
    dart.barrier()
    cur = dart.fetch_and_op(ctr.gptr, 0, dart.OP_NO_OP)
    assert cur == 20 * n + 8 * n, cur
    dart.barrier()
    # compare-and-swap: exactly one unit wins
    f = dart.zeros(dart.TEAM_ALL, 1, np.int32)
    old = dart.compare_and_swap(f.gptr, me + 1, 0)
    wins = np.zeros(1, np.int32)
    dart.allreduce(np.array([1 if old == 0 else 0], np.int32), wins, dart.OP_SUM)
    assert wins[0] == 1
    raises(TypeError, dart.fetch_and_op, f.gptr, np.int64(1), dart.OP_SUM, match="int32")
    cz = dart.zeros(dart.TEAM_ALL, 1, np.complex64)
    raises(TypeError, dart.fetch_and_op, cz.gptr, 1, dart.OP_SUM, match="arithmetic")
    dart.barrier()
    f.free()
    ctr.free()
    return cz


def locality(me, n):
    """Issue 30: the locality queries against the node table; a team per node."""
    nodes = dart.locality_domains("node")
    assert len(nodes) == dart.node_count(), nodes
    for i, d in enumerate(nodes):
        assert d["node"] == i and d["tag"] == f".{i}" and d["scope"] == "node"
        assert d["units"] == [u for u in range(n) if dart.unit_node(u) == i], d
    hosts = {d["host"] for d in nodes}
    assert len(hosts) == len(nodes), nodes  # every node a name of its own
    mine = dart.unit_locality(me)
    assert mine["node"] == dart.unit_node(me) and mine["host"] == nodes[mine["node"]]["host"]
    assert mine["num_cores"] >= 1 and mine["cpu_id"] >= 0 and mine["domain_tag"].startswith(".")
    cores = dart.locality_domains(dart.LOCALITY_SCOPE_CORE)
    assert sorted(u for d in cores for u in d["units"]) == list(range(n))
    assert any(d["tag"] == mine["domain_tag"] and me in d["units"] for d in cores)
    assert dart.locality_domains(dart.LOCALITY_SCOPE_GROUP) == []  # none built
    raises(ValueError, dart.locality_domains, "socket", match="scope")
    raises(dart.DartError, dart.unit_locality, n, code=dart.ERR_INVAL)
    with dart.team_locality_split(dart.TEAM_ALL, "node", 64) as t:
        assert t.size == len(nodes[mine["node"]]["units"])
        sub = dart.unit_locality(t.myid, team=t)
        assert sub["team"] == t.id and sub["global_unit"] == me and sub["host"] == mine["host"]
        t.barrier()
    raises(ValueError, dart.team_locality_split, dart.TEAM_ALL, "node", 0)
    if me == 0:
        say(
            f"locality: {len(nodes)} node(s): "
            + ", ".join(f"{d['host']} {d['units']}" for d in nodes)
        )


def groups_teams_locks():
    dart.init()
    me, n = dart.myid(), dart.size()
    groups(me, n)
    teams(me, n)
    locality(me, n)
    cz = locks_and_atomics(me, n)
    done("groups_teams_locks")
    # an allocation dropped without free() only warns; dart.exit() frees its memory
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        del cz
    assert any(issubclass(x.category, ResourceWarning) for x in w), [str(x) for x in w]
    dart.exit()


def interop(order):
    if order == "dartpy_first":
        dart.init()
        from mpi4py import MPI
    else:
        from mpi4py import MPI

        assert MPI.Is_initialized() and not dart.initialized()
        if PROGRESS:
            # progress processes would be part of the MPI_COMM_WORLD mpi4py already uses
            raises(dart.DartError, dart.init, code=dart.ERR_INVAL, match="DART_PROGRESS_PER_NODE")
            assert not dart.initialized()
            say(f"PASS {order} refused on rank {MPI.COMM_WORLD.Get_rank()}")
            return
        dart.init()
    info = dart.mpi_info()
    # with progress processes dart_init starts MPI (dartpy must not)
    assert info["started_by_dartpy"] == (order == "dartpy_first" and not PROGRESS), info
    if order == "mpi4py_first":
        assert MPI.Query_thread() == MPI.THREAD_MULTIPLE
    me, n = dart.myid(), dart.size()
    world = dart.TEAM_ALL.comm  # the units (MPI_COMM_WORLD also holds progress processes)
    assert world.Get_rank() == me and world.Get_size() == n
    if not PROGRESS:
        assert MPI.COMM_WORLD.Get_rank() == me and MPI.COMM_WORLD.Get_size() == n

    # team.comm is an mpi4py communicator over the team's units
    comm = dart.TEAM_ALL.comm
    assert isinstance(comm, MPI.Comm) and comm.Get_size() == n and comm.Get_rank() == me
    assert comm.allreduce(me, op=MPI.SUM) == n * (n - 1) // 2
    assert comm.handle == dart._core._team_comm_handle(dart.TEAM_ALL)

    # a team built from an mpi4py communicator (collective over TEAM_ALL)
    sub = world.Split(color=me % 2, key=-me)  # reversed order inside each color
    t = dart.team_from_comm(sub)
    members = sorted((u for u in range(n) if u % 2 == me % 2), reverse=True)
    assert t.size == sub.Get_size() == len(members)
    # the team keeps the communicator's order (issue 34): ids are its ranks
    assert t.myid == sub.Get_rank(), (t.myid, sub.Get_rank())
    assert [t.unit_l2g(u) for u in range(t.size)] == members
    tc = t.comm
    assert tc.Get_size() == t.size and tc.allreduce(1) == t.size
    assert MPI.Comm.Compare(tc, sub) == MPI.CONGRUENT
    # an array on it lays its blocks out in that order: team unit k has block k
    with dart.Array((3 * t.size, 2), np.int32, team=t, halo=1) as arr:
        assert arr.lo[0] == 3 * sub.Get_rank(), (arr.lo, sub.Get_rank())
        arr.interior[...] = me
        arr.update_halo()
        got = arr.gather(root=0)
        if t.myid == 0:
            want = np.repeat(np.array(members, np.int32), 3)[:, None].repeat(2, axis=1)
            assert np.array_equal(got, want), (got, want)
    t.destroy()
    # every unit, reversed
    rev = world.Split(0, n - 1 - me)
    t = dart.team_from_comm(rev)
    assert t.myid == n - 1 - me == rev.Get_rank()
    assert MPI.Comm.Compare(t.comm, rev) == MPI.CONGRUENT
    t.destroy()
    rev.Free()
    t2 = dart.team_from_comm(MPI.COMM_SELF if me == 0 else MPI.COMM_NULL)  # only unit 0
    assert (t2 == dart.TEAM_NULL) == (me != 0)
    if me == 0:
        assert t2.size == 1
        t2.destroy()
    sub.Free()

    # gptrs travel through mpi4py (pickling keeps fields and dtype)
    a = dart.zeros(dart.TEAM_ALL, 8, np.float64)
    loc = a.local
    loc[:] = np.arange(8) + 10 * me
    del loc
    dart.barrier()
    g = world.bcast(a.gptr_of(n - 1) + 3 if me == 0 else None, root=0)
    assert isinstance(g, dart.Gptr) and g.unit == n - 1 and g.offset == 24
    assert g.dtype == np.float64 and g == a.gptr_of(n - 1) + 3
    assert pickle.loads(pickle.dumps(g)) == g and hash(pickle.loads(pickle.dumps(g))) == hash(g)
    out = np.zeros(5)
    dart.get_blocking(out, g)
    assert np.array_equal(out, np.arange(3, 8) + 10 * (n - 1))
    right, left = (me + 1) % n, (me - 1) % n
    gl = world.sendrecv(a.gptr_of(me), dest=right, source=left)
    assert gl == a.gptr_of(left)
    e = raises(dart.DartError, dart.team_memfree, dart.GPTR_NULL)
    e2 = pickle.loads(pickle.dumps(e))
    assert isinstance(e2, dart.DartError) and e2.code == e.code
    dart.barrier()
    a.free()
    done(order)
    dart.exit()
    if order == "dartpy_first":
        # dartpy finalizes it only at interpreter exit; DART when it started it
        assert MPI.Is_finalized() == bool(PROGRESS)


def cycles():
    use_mpi4py = os.environ.get("CYCLES_WITH_MPI4PY") == "1"
    if use_mpi4py:
        from mpi4py import MPI  # noqa: F401
    for i in range(5):
        raises(dart.DartError, dart.myid, code=dart.ERR_NOTINIT)
        raises(dart.DartError, dart.barrier, code=dart.ERR_NOTINIT)
        dart.init()
        assert dart.initialized()
        raises(dart.DartError, dart.init, code=dart.ERR_INVAL)
        a = dart.full(dart.TEAM_ALL, 3, i, np.int32)
        b = dart.team_memalloc_aligned(dart.TEAM_ALL, 2, np.int8)  # freed by exit
        h = np.zeros(3, np.int32)
        dart.get_blocking(h, a.gptr_of((dart.myid() + 1) % dart.size()))
        assert (h == i).all()
        a.free()
        g = dart.Group()
        dart.exit()
        assert not dart.initialized()
        raises(dart.DartError, dart.get_blocking, np.zeros(2, np.int8), b, code=dart.ERR_NOTINIT)
        del g  # a group of a finished cycle is dropped silently
    dart.init()
    done("cycles")
    dart.exit()


def gil():
    """A blocking call releases the GIL: another thread keeps running meanwhile."""
    import time

    dart.init()
    if dart.myid() == 0:
        during = increments_during(dart.barrier, 0.2)  # unit 1 arrives 2 s later
        print(f"increments during the barrier: {during}", flush=True)
        assert during > 1_000_000, during
    else:
        time.sleep(2.0)
        dart.barrier()
    done("gil")
    dart.exit()


if __name__ == "__main__":
    main(
        {
            "gil": gil,
            "groups_teams_locks": groups_teams_locks,
            "mpi4py_first": lambda: interop("mpi4py_first"),
            "dartpy_first": lambda: interop("dartpy_first"),
            "cycles": cycles,
        }
    )
