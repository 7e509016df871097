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
    raises(ValueError, dart.view, g, (-1, 2), match="'shape'")
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


def abort():
    """The last unit raises while the others wait in a barrier: the excepthook aborts."""
    say(f"PID {os.getpid()}")
    dart.init()
    me, n = dart.myid(), dart.size()
    dart.barrier()
    if me == n - 1:
        time.sleep(0.5)
        say(f"RAISING {time.time():.3f}")
        raise RuntimeError(f"deliberate failure on unit {me}")
    dart.barrier()  # never completes: unit n-1 is gone
    say("UNREACHABLE")


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
    main({"errors": errors, "abort": abort, "abort_in_with": abort_in_with,
          "abort_thread": abort_thread,
          "no_abort": no_abort})
