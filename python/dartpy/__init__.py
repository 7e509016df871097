# SPDX-License-Identifier: BSD-3-Clause
"""dartpy: Python bindings of DART-MPI, a PGAS runtime on MPI-3.

``import dartpy as dart`` gives the DART 3.2 C API without the ``dart_`` prefix
(``dart.init()``, ``dart.myid()``, ``dart.team_memalloc_aligned(team, nelem, dtype)``,
``dart.put_blocking(gptr, array)``, ...) and its constants without ``DART_``
(``dart.TEAM_ALL``, ``dart.OP_SUM``). Unit ids are 0-based. Buffers are NumPy arrays: the
DART datatype follows from the dtype, strided NumPy views travel as one strided DART
datatype, and ``dart.view(gptr, shape)`` is a zero-copy ndarray of memory on this node.

``dart.Array(shape, dtype, halo=..., boundary=..., ...)`` is a distributed N-d array with
ghost layers: zero-copy views of this unit's block (``a.local`` with ghosts,
``a.interior``), a one-call halo update (``a.update_halo()``, or begin/end), reads and
writes by global index (``a[i, j]``), gather, scatter and copy, and collective ``.npy``
files (``a.save(path)``, ``dart.Array.load(path, ...)`` on any number of units).

Errors: ``dart.DartError`` (a RuntimeError with ``.code`` and ``.detail``) for failed
DART calls, ``ValueError``/``TypeError`` naming the argument for bad arguments,
``BufferError`` when memory with live NumPy views would be freed.

An uncaught exception on any unit aborts the whole job (``dart_abort``) when more than one
unit runs, so the other units never hang; so does an exit without ``dart.exit()``
(``sys.exit()``) that the other units do not share within ``DARTPY_EXIT_WAIT`` seconds
(default 5). Opt out with ``DARTPY_NO_ABORT_ON_EXCEPTION=1`` or
``dart.init(abort_on_exception=False)``.
"""

from __future__ import annotations

import atexit
import math
import os
import sys
import threading
import warnings
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from ._errors import (  # before _core, which raises them
    DartError,
    DartFileError,  # noqa: F401
    DartFileFormatError,  # noqa: F401
    DartFileNotFoundError,  # noqa: F401
    DartIsADirectoryError,  # noqa: F401
    DartNotADirectoryError,  # noqa: F401
    DartPermissionError,  # noqa: F401
)

# isort: split
from . import _core
from ._core import *  # noqa: F401,F403  (the C API mirror)
from ._core import (  # noqa: F401  (explicit names for readers and type checkers)
    ARRAY_MAX_DIMS,
    GPTR_NULL,
    TEAM_ALL,
    TEAM_NULL,
    Array,
    Gptr,
    Group,
    Handle,
    Lock,
    Op,
    Team,
    Transfer,
)

# isort: split
from . import _agree, _array_access, _array_display, _array_numpy
from ._array_numpy import dot, norm  # noqa: F401  (collective reductions of arrays)
from ._array_temporaries import collect_arrays  # noqa: F401

_array_numpy.install(Array)
_array_access.install(Array)
_array_display.install(Array)

from . import h5  # noqa: F401,E402  (dartpy.h5.File; adds Array.from_h5)

__version__: str = _core.__version__

_hooks: Optional[tuple] = None
_atexit_registered = False


def _abort_wanted(flag: Optional[bool]) -> bool:
    if flag is not None:
        return bool(flag)
    return os.environ.get("DARTPY_NO_ABORT_ON_EXCEPTION", "").strip() in ("", "0")


def _abort_after_uncaught(what: str) -> None:
    """Ends the whole job after an uncaught exception when more than one unit runs."""
    try:
        if not _core.initialized() or _core.size() <= 1:
            return
        me, n = _core.myid(), _core.size()
    except Exception:  # pragma: no cover - the runtime is half gone
        return
    sys.stderr.write(
        f"dartpy: {what} on unit {me} of {n}: aborting all units (dart_abort). "
        "Set DARTPY_NO_ABORT_ON_EXCEPTION=1 or call "
        "dartpy.init(abort_on_exception=False) to disable.\n"
    )
    sys.stderr.flush()
    _core.abort(1)


def _install_hooks() -> None:
    global _hooks
    if _hooks is not None:
        return
    prev_sys, prev_thread = sys.excepthook, threading.excepthook

    def excepthook(etype, value, tb):
        try:
            prev_sys(etype, value, tb)
        finally:
            _abort_after_uncaught(f"uncaught {etype.__name__}")

    def thread_excepthook(args):
        try:
            prev_thread(args)
        finally:
            if args.exc_type is not SystemExit:
                name = getattr(args.thread, "name", "?")
                _abort_after_uncaught(f"uncaught {args.exc_type.__name__} in thread {name}")

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook
    _hooks = (prev_sys, prev_thread, excepthook, thread_excepthook)


def _remove_hooks() -> None:
    global _hooks
    if _hooks is None:
        return
    prev_sys, prev_thread, mine, mine_thread = _hooks
    if sys.excepthook is mine:
        sys.excepthook = prev_sys
    if threading.excepthook is mine_thread:
        threading.excepthook = prev_thread
    _hooks = None


def _exit_wait() -> float:
    try:
        return max(0.0, float(os.environ.get("DARTPY_EXIT_WAIT", "") or 5.0))
    except ValueError:
        return 5.0


def _at_interpreter_exit() -> None:
    # Ends DART if the program did not (no view check: nothing runs after this), then
    # finalizes MPI if dartpy started it. With the abort hook and several units, an exit
    # without dart.exit() (sys.exit(n), sys.exit(0) before dart.exit() on the others)
    # ends DART only if every unit exits the same way within DARTPY_EXIT_WAIT seconds,
    # and aborts the job otherwise: the others would hang in a collective.
    try:
        if _core.initialized():
            if _hooks is not None and _core.size() > 1:
                _core._exit_or_abort(_exit_wait())
            else:
                _core._exit(False)
    except Exception as e:  # pragma: no cover
        sys.stderr.write(f"dartpy: dart_exit at interpreter exit failed: {e}\n")
    _remove_hooks()
    _core._finalize_mpi()


def _after_init(abort_on_exception: Optional[bool]) -> None:
    global _atexit_registered
    if not _atexit_registered:
        atexit.register(_at_interpreter_exit)
        _atexit_registered = True
    if _abort_wanted(abort_on_exception):
        _install_hooks()


def init(*, abort_on_exception: Optional[bool] = None, thread_level: Optional[str] = None) -> None:
    """Initialize DART (dart_init). Collective over all processes of MPI_COMM_WORLD.

    Reuses an MPI that is already initialized (e.g. by ``import mpi4py.MPI``); otherwise
    initializes MPI with ``thread_level`` ('single', 'funneled', 'serialized' (default) or
    'multiple') and finalizes it only at interpreter exit, so init/exit may cycle.
    With progress processes (DART_PROGRESS_PER_NODE > 0) DART starts MPI itself
    (MULTIPLE requested) and refuses an MPI started before (DartError); dart.exit() then
    finalizes MPI, so init cannot cycle, and a progress process never returns from init().
    MPI_COMM_WORLD then also holds the progress processes: use ``dart.TEAM_ALL``'s
    communicator (``Team.comm``) for the program's own MPI calls.
    ``abort_on_exception`` (default: on unless DARTPY_NO_ABORT_ON_EXCEPTION=1) installs
    sys/threading excepthooks that abort the job after an uncaught exception when more
    than one unit runs.
    """
    _core._init(False, thread_level)
    _after_init(abort_on_exception)


def init_thread(*, abort_on_exception: Optional[bool] = None) -> int:
    """dart_init_thread: like init() with MPI_THREAD_MULTIPLE requested. Returns
    THREAD_MULTIPLE or THREAD_SINGLE (what the MPI provides)."""
    level = _core._init(True, None)
    _after_init(abort_on_exception)
    return level


def exit() -> None:  # noqa: A001 - mirrors dart_exit
    """dart_exit: collective; frees all global memory and teams of this cycle.

    Raises BufferError on every unit (and stays initialized) if NumPy views of global
    memory are alive on any unit.
    """
    _core._exit(True)
    _remove_hooks()


# ---------------------------------------------------------------------------------------
# NumPy-style allocations (extras on top of the one-to-one C mirror)
# ---------------------------------------------------------------------------------------

ShapeLike = Union[int, Sequence[int]]


def _shape_tuple(shape: ShapeLike, fn: str = "dartpy.Allocation") -> Tuple[int, ...]:
    return _core._shape(shape, fn)  # the binding's one shape parser (python/src/args.h)


class _Collective:
    """What Allocation and NotifyBlock share: a collective free, once, by ``free()`` or at
    the end of a ``with`` block. Subclasses set ``team`` and call ``_live()`` after their
    allocation succeeded; ``_release()`` is their collective free."""

    _what, _noun = "object", "object"

    def _live(self) -> None:
        self._generation = _core._generation()
        self._freed = False

    @property
    def freed(self) -> bool:
        return (
            getattr(self, "_freed", True)
            or self._generation != _core._generation()
            or not _core.initialized()
        )

    def _release(self) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def free(self) -> None:
        """Collective free."""
        if getattr(self, "_freed", True):
            raise DartError(
                f"dartpy.{self._what}.free failed: already freed",
                _core.ERR_INVAL,
                f"dartpy.{self._what}.free: this {self._noun} was already freed",
            )
        self._release()
        self._freed = True

    def __enter__(self):
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        # While an exception unwinds on this unit the others are elsewhere: the collective
        # free would hang them. The memory is left to dart.exit() (the garbage collector
        # warns about it) and the exception goes on, to the abort hook with several units.
        if exc_type is None and not self.freed:
            self.free()


class Allocation(_Collective):
    """A collective allocation of ``shape`` elements of ``dtype`` on every unit of a team.

    Each unit passes its own ``shape``: the parts may differ in size between units (0
    elements too); ``nelem_of(u)`` is unit u's number of elements, and every access is
    bounded by its target unit's part. ``gptr`` is the global pointer of team unit 0's
    part, ``gptr_of(u)`` that of unit u; ``local`` is a zero-copy ndarray of this unit's
    part and ``view(u)`` one of a same-node unit's part. Free it collectively with
    ``free()`` or a ``with`` block; an allocation that is garbage-collected unfreed only
    emits a ResourceWarning (the memory stays until ``dart.exit()``).
    """

    _what, _noun = "Allocation", "allocation"

    def __init__(self, team: Any, shape: ShapeLike, dtype: Any = np.float64) -> None:
        self.team = Team(int(team.__index__()))
        error = None
        try:  # a bad argument of this unit fails the call on every unit (_agree.py)
            self.shape = _shape_tuple(shape)
            self.dtype = np.dtype(dtype)
        except (TypeError, ValueError) as e:
            error = e.with_traceback(None)
        _agree.agree(self.team, error, "dartpy.Allocation")
        self.gptr: Gptr = _core.team_memalloc_aligned(self.team, math.prod(self.shape), self.dtype)
        self._live()

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def gptr_of(self, unit: int) -> Gptr:
        """Global pointer of team unit ``unit``'s part."""
        return self.gptr.setunit(unit)

    def nelem_of(self, unit: int) -> int:
        """Number of elements of team unit ``unit``'s part (local call)."""
        return _core.gptr_segment_size(self.gptr_of(unit)) // self.dtype.itemsize

    def view(self, unit: Optional[int] = None, shape: Optional[ShapeLike] = None) -> np.ndarray:
        """Zero-copy ndarray of a unit's part (default: this unit); same node only.

        Its shape: ``shape`` if given, else this allocation's shape when the unit's part
        has as many elements as this unit's, else one dimension of ``nelem_of(unit)``."""
        if unit is None:
            unit = self.team.myid
        if shape is None:
            shape = self.shape
            if unit != self.team.myid and self.nelem_of(unit) != self.size:
                shape = (self.nelem_of(unit),)
        return _core.view(self.gptr_of(unit), _shape_tuple(shape))

    @property
    def local(self) -> np.ndarray:
        """Zero-copy ndarray of this unit's part."""
        return self.view(None)

    def _release(self) -> None:
        """team_memfree: BufferError on every unit while views live."""
        _core.team_memfree(self.gptr)

    def __repr__(self) -> str:
        state = "freed" if self.freed else "live"
        return (
            f"<dartpy.Allocation shape={self.shape} dtype={self.dtype} team={self.team.id} {state}>"
        )

    def __del__(self) -> None:
        if getattr(self, "_freed", True):
            return
        try:
            live = self._generation == _core._generation() and _core.initialized()
        except Exception:  # pragma: no cover - interpreter shutdown
            return
        if live:
            warnings.warn(
                f"dartpy.Allocation {self.shape} {self.dtype} of team {self.team.id} was "
                "garbage-collected without free(); the memory stays allocated until "
                "dart.exit() (collective frees are never made by the garbage collector)",
                ResourceWarning,
                stacklevel=2,
            )


class NotifyBlock(_Collective):
    """``n`` notification counters (uint64, zeroed) on every unit of a team.

    ``gptr_of(unit, i)`` is counter ``i`` of team unit ``unit``: pass it to
    ``put_notify``/``notify`` (any unit's) and to ``notify_wait``/``notify_test`` (only
    this unit's own, also ``mine(i)``). Free it collectively with ``free()`` or a ``with``
    block.
    """

    _what, _noun = "NotifyBlock", "counter block"

    def __init__(self, team: Any, n: int) -> None:
        self.team = Team(int(team.__index__()))
        error = None
        try:  # a bad argument of this unit fails the call on every unit (_agree.py)
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
                raise TypeError(
                    f"dartpy.notify_alloc: argument 'n' must be an int, not {type(n).__name__}"
                )
            self.n = int(n)
        except (TypeError, ValueError) as e:
            error = e.with_traceback(None)
        _agree.agree(self.team, error, "dartpy.notify_alloc")
        self.gptr: Gptr = _core._notify_alloc(self.team, self.n)
        self._live()

    def gptr_of(self, unit: int, i: int = 0) -> Gptr:
        """Counter ``i`` of team unit ``unit``."""
        if not 0 <= i < self.n:
            raise IndexError(f"counter index {i} out of range [0, {self.n})")
        return self.gptr.setunit(unit) + i

    def mine(self, i: int = 0) -> Gptr:
        """Counter ``i`` of this unit."""
        return self.gptr_of(self.team.myid, i)

    def _release(self) -> None:
        _core.notify_free(self.gptr)

    def __repr__(self) -> str:
        state = "freed" if self.freed else "live"
        return f"<dartpy.NotifyBlock n={self.n} team={self.team.id} {state}>"


def notify_alloc(team: Any, n: int) -> NotifyBlock:
    """Collective: ``n`` zeroed notification counters per unit (``with ... as nv:``)."""
    return NotifyBlock(team, n)


def empty(team: Any, shape: ShapeLike, dtype: Any = np.float64) -> Allocation:
    """Collective allocation, contents undefined."""
    return Allocation(team, shape, dtype)


def full(team: Any, shape: ShapeLike, fill_value: Any, dtype: Any = np.float64) -> Allocation:
    """Collective allocation with every element of every unit's part set to fill_value
    (ends with a barrier of the team, so all parts are set on return)."""
    a = Allocation(team, shape, dtype)
    try:
        loc = a.local
        loc[...] = fill_value
        del loc
    except BaseException:
        a._freed = True  # the collective free cannot be made by one unit alone
        raise
    _core.barrier(a.team)
    return a


def zeros(team: Any, shape: ShapeLike, dtype: Any = np.float64) -> Allocation:
    """Collective allocation filled with zeros."""
    return full(team, shape, 0, dtype)


def ones(team: Any, shape: ShapeLike, dtype: Any = np.float64) -> Allocation:
    """Collective allocation filled with ones."""
    return full(team, shape, 1, dtype)


def info() -> dict:
    """Runtime facts: MPI library, thread level, units, nodes, emulation, MPI workarounds,
    version."""
    d: dict = {
        "dartpy": __version__,
        "dart_interface": _core.VERSION,
        "dart_mpi": _core.mpi_version(),
        "build": _core.build_info(),
        "mpi": _core.mpi_info(),
    }
    if _core.initialized():
        n = _core.size()
        d.update(
            units=n,
            nodes=_core.node_count(),
            units_per_node_emulation=_core.units_per_node_emulation(),
            progress_per_node=_core.progress_per_node(),
            unit_nodes=[_core.unit_node(u) for u in range(n)],
            config=_core.config_string(),
            mpi_quirks=_core.mpi_quirks(),
        )
    return d
