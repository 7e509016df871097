# SPDX-License-Identifier: BSD-3-Clause
"""Error paths with several units, and the abort on an uncaught exception."""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from _helpers import done, main, raises, say

import dartpy as dart


def errors():
    dart.init()
    me, n = dart.myid(), dart.size()
    g = dart.team_memalloc_aligned(dart.TEAM_ALL, 4, np.float64)
    buf = np.zeros(4)
    # bad units: == size, > size, negative
    for bad in (n, n + 5, -1):
        e = raises(dart.DartError, dart.get_blocking, buf, g.setunit(bad), code=dart.ERR_INVAL)
        assert "out of range" in str(e) and e.detail
        raises(dart.DartError, dart.put_blocking, g.setunit(bad), buf, code=dart.ERR_INVAL)
        raises(dart.DartError, dart.put_handle, g.setunit(bad), buf, code=dart.ERR_INVAL)
    raises(ValueError, g.setunit, 1 << 24)  # does not fit the 24-bit field
    raises(dart.DartError, dart.team_unit_l2g, dart.TEAM_ALL, n, code=dart.ERR_INVAL)
    raises(dart.DartError, dart.send, buf, 0, n, code=dart.ERR_INVAL)
    # offset past the end (also partially past)
    raises(dart.DartError, dart.get_blocking, buf, g + 4, code=dart.ERR_INVAL, match="past the end")
    raises(dart.DartError, dart.get_blocking, buf, g + 1, code=dart.ERR_INVAL, match="past the end")
    raises(dart.DartError, dart.put_blocking, g, np.zeros(5), code=dart.ERR_INVAL)
    raises(ValueError, dart.view, g.setunit(me), 5, match="shape")
    # dtype mismatch
    raises(TypeError, dart.get_blocking, np.zeros(4, np.float32), g, match="float64")
    raises(TypeError, dart.put_blocking, g, np.zeros(4, np.int64), match="float64")
    raises(TypeError, dart.get_handle, np.zeros(4, np.complex64), g)
    # bad arguments name the argument
    raises(TypeError, dart.put_blocking, g, [1.0, 2.0], match="'array'")
    ro = np.zeros(4)
    ro.flags.writeable = False
    raises(ValueError, dart.get_blocking, ro, g, match="'out' is read-only")
    raises(ValueError, dart.get_blocking, np.zeros(8)[::-2], g, match="'out'")
    raises(TypeError, dart.team_memalloc_aligned, dart.TEAM_ALL, 4, "U5", match="'dtype'")
    raises(TypeError, dart.team_memalloc_aligned, "world", 4, np.int8, match="'team'")
    raises(ValueError, dart.view, g, (-1, 2), match="argument 'shape[0]' = -1 is negative")
    raises(ValueError, dart.put_blocking, g, np.zeros(3), remote_stride=2, remote_blocklen=2)
    raises(dart.DartError, dart.team_memalloc_aligned, 999, 4, np.int8, code=dart.ERR_NOTFOUND)
    dart.barrier()

    # freeing with live views raises on EVERY unit (collective check), frees nothing
    v = dart.view(g.setunit(me), 4) if me == 0 else None
    e = raises(BufferError, dart.team_memfree, g)
    assert "still alive" in str(e) and (("another unit" in str(e)) == (me != 0)), str(e)
    dart.get_blocking(buf, g)  # still allocated everywhere
    sl = v[1:] if v is not None else None
    del v  # the slice keeps the view's owner alive
    raises(BufferError, dart.team_memfree, g)
    del sl
    dart.team_memfree(g)
    raises(dart.DartError, dart.get_blocking, buf, g, code=dart.ERR_NOTFOUND)
    raises(dart.DartError, dart.team_memfree, g, code=dart.ERR_NOTFOUND)
    raises(dart.DartError, dart.view, g, code=dart.ERR_NOTFOUND)
    # pool memory: a view blocks memfree (local); another unit's block cannot be freed here
    p = dart.memalloc(8, np.int32)
    pv = dart.view(p, 8)
    raises(BufferError, dart.memfree, p)
    del pv
    dart.memfree(p)
    raises(dart.DartError, dart.memfree, p, code=dart.ERR_NOTFOUND)
    if n > 1:
        raises(dart.DartError, dart.memfree, p.setunit((me + 1) % n))

    # exit with live views raises everywhere and keeps DART running
    a = dart.zeros(dart.TEAM_ALL, 2, np.int8)
    keep = a.local if me == n - 1 else None
    raises(BufferError, dart.exit)
    assert dart.initialized()
    del keep
    a.free()
    done("errors")
    dart.exit()
    raises(dart.DartError, dart.myid, code=dart.ERR_NOTINIT)


def collective_args():
    """Argument errors that only some units make in a collective call: every unit raises
    (the others a DartError naming "another unit"), none hangs, and afterwards all units
    are still in step."""
    dart.init()
    me, n = dart.myid(), dart.size()
    last = n - 1
    others = dict(code=dart.ERR_INVAL, match="another unit")

    def in_step(tag: int) -> None:
        got = np.zeros(1, np.int64)
        dart.allreduce(np.array([tag], np.int64), got, dart.OP_SUM)
        assert got[0] == tag * n, (tag, got)

    # team_create: the last unit passes something that is no group
    grp = dart.team_get_group(dart.TEAM_ALL)
    if me == last:
        raises(TypeError, dart.team_create, dart.TEAM_ALL, [0], match="'group'")
    else:
        raises(dart.DartError, dart.team_create, dart.TEAM_ALL, grp, **others)
    in_step(1)
    # team_create: unit 0 passes a destroyed group (the core's check)
    mine = dart.team_get_group(dart.TEAM_ALL)
    if me == 0:
        mine.destroy()
        raises(
            dart.DartError,
            dart.team_create,
            dart.TEAM_ALL,
            mine,
            code=dart.ERR_INVAL,
            match="not a live group",
        )
    elif n > 1:
        raises(dart.DartError, dart.team_create, dart.TEAM_ALL, mine, **others)
    in_step(2)
    # allgatherv: unit 0 passes one count too few
    counts = [2] * n
    displs = [2 * u for u in range(n)]
    out = np.zeros(2 * n)
    if me == 0:
        raises(ValueError, dart.allgatherv, np.ones(2), out, counts[1:], displs, match="nrecvelem")
    elif n > 1:
        raises(dart.DartError, dart.allgatherv, np.ones(2), out, counts, displs, **others)
    in_step(3)
    # rooted collectives: only the root's extra buffer is wrong
    root = last
    if me == root:
        raises(ValueError, dart.scatter, np.zeros(n), np.zeros(2), root, match="sendbuf")
        raises(ValueError, dart.gather, np.zeros(2), np.zeros(2 * n + 1), root, match="recvbuf")
        raises(
            ValueError,
            dart.reduce,
            np.zeros(2),
            np.zeros(3),
            dart.OP_SUM,
            root,
            match="differ in size",
        )
    else:
        raises(dart.DartError, dart.scatter, None, np.zeros(2), root, **others)
        raises(dart.DartError, dart.gather, np.zeros(2), None, root, **others)
        raises(dart.DartError, dart.reduce, np.zeros(2), None, dart.OP_SUM, root, **others)
    in_step(4)
    # a root out of range is the core's check, on every unit
    raises(dart.DartError, dart.scatter, None, np.zeros(2), n, code=dart.ERR_INVAL, match="root")
    in_step(5)
    grp.destroy()
    done("collective_args")
    dart.exit()


def _last_unit_leaves(leave, others) -> None:
    """Unit n-1 leaves with leave() half a second after a barrier (printing RAISING and
    the time first); the others call others(), which never completes."""
    say(f"PID {os.getpid()}")
    dart.init()
    me, n = dart.myid(), dart.size()
    dart.barrier()
    if me == n - 1:
        time.sleep(0.5)
        say(f"RAISING {time.time():.3f}")
        leave()
    others()
    say("UNREACHABLE")


def abort():
    """The last unit raises while the others wait in a barrier: the excepthook aborts."""

    def fail():
        raise RuntimeError(f"deliberate failure on unit {dart.myid()}")

    _last_unit_leaves(fail, dart.barrier)


def abort_in_with():
    """The last unit raises inside `with` blocks of a sub-team and of an allocation while
    the others wait in a barrier inside them: leaving the blocks must not run their
    collective destroy/free on the failing unit alone (that would hang), so the
    excepthook still aborts the job."""
    say(f"PID {os.getpid()}")
    dart.init()
    me, n = dart.myid(), dart.size()
    with dart.team_create(dart.TEAM_ALL, dart.TEAM_ALL.group) as team:
        with dart.zeros(team, (4,)) as a:
            dart.barrier()
            if me == n - 1:
                time.sleep(0.5)
                say(f"RAISING {time.time():.3f}")
                raise RuntimeError(f"deliberate failure on unit {me}")
            dart.barrier()  # never completes: unit n-1 is gone
            say(f"UNREACHABLE {a.gptr}")


def abort_thread():
    """An uncaught exception in a thread of unit 0 aborts the job, too."""
    import threading

    say(f"PID {os.getpid()}")
    dart.init()
    if dart.myid() == 0:

        def work():
            time.sleep(0.3)
            say(f"RAISING {time.time():.3f}")
            raise ValueError("deliberate failure in a thread")

        threading.Thread(target=work, name="worker").start()
    dart.barrier()
    dart.barrier()
    time.sleep(60)  # only the abort ends this
    say("UNREACHABLE")


def exit_nonzero():
    """The last unit calls sys.exit(3) while the others wait in a barrier: its interpreter
    exit does not find the others there, so it aborts the job."""
    _last_unit_leaves(lambda: sys.exit(3), dart.barrier)


def exit_zero_early():
    """The last unit calls sys.exit(0) before dart.exit(), the others call dart.exit():
    the same as sys.exit(n) (the job must not hang in dart.exit's barrier)."""
    _last_unit_leaves(lambda: sys.exit(0), dart.exit)


def killed():
    """The last unit is killed by SIGKILL while the others wait in a barrier: the MPI
    launcher ends the job."""
    import signal

    _last_unit_leaves(lambda: os.kill(os.getpid(), signal.SIGKILL), dart.barrier)


def exit_all_without_dart_exit():
    """Every unit ends with sys.exit(0) and no dart.exit(): they meet at interpreter exit
    and end DART together (status 0)."""
    dart.init()
    dart.barrier()
    done("exit_all_without_dart_exit")
    sys.exit(0)


def op_raises():
    """A Python reduction operation raises: every unit raises (the original exception
    where the function raised, a DartError naming that unit elsewhere), and the units
    stay in step."""
    dart.init()
    _me, n = dart.myid(), dart.size()

    def bad(invec, inoutvec):
        raise ValueError("deliberate failure in a reduction operation")

    op = dart.op_create(bad, np.int64)
    out = np.zeros(2, np.int64)
    for call in (
        lambda: dart.allreduce(np.ones(2, np.int64), out, op),
        lambda: dart.reduce(np.ones(2, np.int64), out, op, 0),
    ):
        try:
            call()
            raise AssertionError("the reduction did not raise")
        except ValueError as e:
            assert "deliberate failure" in str(e)
        except dart.DartError as e:
            assert "raised an exception on unit" in str(e), str(e)
        got = np.zeros(1, np.int64)
        dart.allreduce(np.array([1], np.int64), got, dart.OP_SUM)
        assert got[0] == n
    op.destroy()
    done("op_raises")
    dart.exit()


def no_abort():
    """With DARTPY_NO_ABORT_ON_EXCEPTION=1 no hook is installed (nothing aborts)."""
    assert os.environ.get("DARTPY_NO_ABORT_ON_EXCEPTION") == "1"
    before = sys.excepthook
    dart.init()
    assert sys.excepthook is before
    dart.exit()
    dart.init(abort_on_exception=True)
    assert sys.excepthook is not before
    dart.exit()
    assert sys.excepthook is before
    dart.init()
    done("no_abort")
    dart.exit()


if __name__ == "__main__":
    main(
        {
            "errors": errors,
            "collective_args": collective_args,
            "abort": abort,
            "abort_in_with": abort_in_with,
            "abort_thread": abort_thread,
            "exit_nonzero": exit_nonzero,
            "exit_zero_early": exit_zero_early,
            "killed": killed,
            "exit_all_without_dart_exit": exit_all_without_dart_exit,
            "op_raises": op_raises,
            "no_abort": no_abort,
        }
    )
