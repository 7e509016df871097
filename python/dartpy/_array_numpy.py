# SPDX-License-Identifier: BSD-3-Clause
"""dartpy.Array as NumPy sees it: the array protocols, the reductions and the
distribution helpers (installed on the class by dartpy's __init__).

A dartpy.Array is distributed: no process holds it. So NumPy never converts it silently
(``__array__`` raises and says what to use instead); element-wise ufuncs apply to every
unit's interior and give a new Array of the same distribution (``__array_ufunc__``); the
reductions NumPy users call (``np.sum``, ``np.min``, ``np.max``, ``np.mean``,
``np.linalg.norm``, ``np.vdot``) are the collective reductions of the core
(``dart_array_reduce``, ``_norm``, ``_dot``), which sum in a fixed order, so that every
unit, and C, C++, Fortran and Python, get the same bits (``__array_function__``, NEP 18).
Everything else is a TypeError that names what is supported.

Every call here is collective over the array's team, like the core's: a failure that can
happen on one unit only (a ufunc that raises for some values) is agreed on before anything
collective follows, so every unit raises and none waits.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

from . import _array_temporaries, _core
from ._array_temporaries import agree_and_collect, register

Array = _core.Array

_NOT_LOCAL = (
    "a dartpy.Array is distributed over the units of its team, not one process's "
    "array: use a.gather() (the global array on one unit), a.gather_all() (on every "
    "unit), a.interior (this unit's block, a zero-copy view) or a.local (with ghosts)"
)

# ---- distribution -----------------------------------------------------------------------


def _nunits(a: Any) -> int:
    n = 1
    for p in a.procs:
        n *= p
    return n


def blocks(a: Any) -> Tuple[Tuple[int, ...], ...]:
    """The block extents per dimension, in grid order (dask's ``chunks``; the ``blocks``
    argument of ``Array``). A local query."""
    starts: List[Dict[int, int]] = [{} for _ in range(a.ndim)]
    for u in range(_nunits(a)):
        lo, hi = a.block(u)
        for d in range(a.ndim):
            starts[d][lo[d]] = hi[d] - lo[d]
    return tuple(tuple(ext for _, ext in sorted(s.items())) for s in starts)


def _distribution(a: Any) -> tuple:
    return (a.team.id, a.shape, a.procs, blocks(a))


def _same_distribution(a: Any, b: Any, what: str) -> None:
    """Raises (the same on every unit: the distribution is known everywhere) unless a and
    b are distributed alike."""
    if _distribution(a) == _distribution(b):
        return
    names = ("team", "shape", "process grid", "blocks")
    for name, x, y in zip(names, _distribution(a), _distribution(b)):
        if x != y:
            raise ValueError(
                f"{what}: the arrays are not distributed alike: {name} {x} and {y} "
                "(element-wise operations and dot need one team, shape, grid and blocks)"
            )


def like(a: Any, dtype: Any) -> Any:
    """Collective: a new zero Array of `dtype` distributed as `a` (same team, grid,
    blocks, ghosts, boundary, stencil and exchange)."""
    return Array(
        a.shape,
        dtype,
        team=a.team,
        halo=a.halo,
        boundary=a.boundary,
        stencil=a.stencil,
        procs=a.procs,
        blocks=blocks(a),
        exchange=a.exchange,
    )


# ---- __array__, sizes, iteration --------------------------------------------------------


def _array(self: Any, dtype: Any = None, copy: Any = None) -> np.ndarray:
    raise TypeError(f"NumPy cannot convert a dartpy.Array to one ndarray: {_NOT_LOCAL}")


def _iter(self: Any) -> Any:
    raise TypeError(f"a dartpy.Array cannot be iterated over: {_NOT_LOCAL}")


def _bool(self: Any) -> bool:
    raise ValueError(
        "the truth value of a dartpy.Array is ambiguous: reduce it first "
        "(a.min(), a.max(), a.sum()) or test a.interior on this unit"
    )


def _len(self: Any) -> int:
    return int(self.shape[0])


def _size(self: Any) -> int:
    n = 1
    for s in self.shape:
        n *= s
    return n


# ---- ufuncs -----------------------------------------------------------------------------

_UFUNC_KEYWORDS = ("dtype", "casting")


def _is_scalar(x: Any) -> bool:
    if isinstance(x, np.ndarray):
        return x.ndim == 0
    return isinstance(x, (numbers.Number, np.generic))


def _ufunc(self: Any, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    name = f"numpy.{ufunc.__name__}"
    if method != "__call__":
        raise TypeError(
            f"dartpy.Array does not support {name}.{method}: ufuncs apply element-wise "
            "(numpy.add(a, b)); reduce with a.sum(), a.min(), a.max(), a.mean(), "
            "dartpy.norm(a) or dartpy.dot(a, b)"
        )
    if ufunc.signature is not None:
        raise TypeError(
            f"dartpy.Array does not support the generalized ufunc {name} "
            f"(signature {ufunc.signature}): only element-wise ufuncs apply to it"
        )
    out = kwargs.pop("out", None) or ()
    bad = sorted(k for k in kwargs if k not in _UFUNC_KEYWORDS)
    if bad:
        raise TypeError(
            f"dartpy.Array: {name}: argument(s) {', '.join(repr(k) for k in bad)} not "
            "supported (only out=, dtype= and casting=)"
        )
    if out and (len(out) != ufunc.nout or any(o is None for o in out)):
        raise TypeError(f"dartpy.Array: {name}: give every output in out= or none")
    first = next(x for x in inputs + tuple(out) if isinstance(x, Array))
    for i, x in enumerate(inputs + tuple(out)):
        arg = f"input {i}" if i < len(inputs) else f"out[{i - len(inputs)}]"
        if isinstance(x, Array):
            if x.freed:
                raise ValueError(f"dartpy.Array: {name}: {arg} was freed")
            _same_distribution(first, x, f"dartpy.Array: {name}")
        elif i >= len(inputs):
            raise TypeError(
                f"dartpy.Array: {name}: out= must hold dartpy.Arrays when an input is "
                f"one, not {type(x).__name__}"
            )
        elif not _is_scalar(x):
            what = (
                f"a NumPy array of shape {x.shape} is one unit's data"
                if isinstance(x, np.ndarray)
                else f"{type(x).__name__} is neither a dartpy.Array nor a scalar"
            )
            raise TypeError(
                f"dartpy.Array: {name}: {arg}: {what}; element-wise operations take "
                "dartpy.Arrays of one distribution and scalars (use a.interior for "
                "this unit's block as a NumPy array)"
            )
    team = first.team
    if out:
        error = _apply(ufunc, inputs, tuple(out), kwargs)
        agree_and_collect(team, error, name)
        _core.barrier(team)  # every block written before any unit reads one
        return out[0] if len(out) == 1 else tuple(out)
    # The result dtypes from an empty computation: NumPy's own rules, no data touched.
    error = None
    dtypes: Sequence[np.dtype] = ()
    try:
        empty = [np.empty(0, x.dtype) if isinstance(x, Array) else x for x in inputs]
        probe = ufunc(*empty, **kwargs)
        dtypes = [r.dtype for r in (probe if ufunc.nout > 1 else (probe,))]
    except Exception as e:
        error = e.with_traceback(None)
    agree_and_collect(team, error, name)
    results: List[Any] = []
    try:
        for dt in dtypes:
            results.append(like(first, dt))
        agree_and_collect(team, _apply(ufunc, inputs, tuple(results), kwargs), name)
    except BaseException:
        for r in results:
            r.free()
        raise
    for r in results:
        register(r)
    _core.barrier(team)  # every block written before any unit reads one
    return results[0] if len(results) == 1 else tuple(results)


def _apply(ufunc: np.ufunc, inputs: tuple, out: tuple, kwargs: Dict[str, Any]) -> Any:
    """ufunc on this unit's interiors into out's; its exception, without a traceback
    (whose frames would keep the interiors' views alive), or None."""
    try:
        ufunc(
            *[x.interior if isinstance(x, Array) else x for x in inputs],
            out=tuple(o.interior for o in out),
            **kwargs,
        )
    except Exception as e:  # agreed on by the caller: every unit raises
        return e.with_traceback(None)
    return None


def install_operators(cls: type) -> None:
    """The Python operators (+, *, <, ...) as NumPy's ufuncs, which reach __array_ufunc__."""
    mixin = np.lib.mixins.NDArrayOperatorsMixin
    for name, fn in vars(mixin).items():
        if name.startswith("__") and name.endswith("__") and callable(fn):
            setattr(cls, name, fn)
    cls.__hash__ = object.__hash__  # an Array stays usable as a key (by identity)


# ---- reductions -------------------------------------------------------------------------

# The dtypes the core reduces itself (its DART type means the same number): every other
# (bool, uint8, uint16, float16, which the core stores as bytes or shorts) is reduced
# here with the same rules: a block in index order, then the blocks in unit order.
_CORE_KINDS = "iufc"


def _core_reduces(dt: np.dtype) -> bool:
    return dt.kind in _CORE_KINDS and dt not in (
        np.dtype(np.uint8),
        np.dtype(np.uint16),
        np.dtype(np.float16),
    )


def _sum_dtype(dt: np.dtype) -> np.dtype:
    if dt.kind == "b" or dt.kind == "i":
        return np.dtype(np.int64)
    if dt.kind == "u":
        return np.dtype(np.uint64)
    return dt


def _gathered(team: Any, partial: np.ndarray) -> np.ndarray:
    out = np.zeros(team.size * partial.size, dtype=partial.dtype)
    _core.allgather(np.ascontiguousarray(partial), out, team)
    return out


def _ordered_sum(x: np.ndarray) -> float:
    """A sum of float64s in index order (not NumPy's pairwise one)."""
    s = 0.0
    for v in x.tolist():
        s += v
    return s


def _round(dt: np.dtype, value: float) -> Any:
    """value rounded once to dt (float16 beyond its range: inf, silently, as NumPy's sums)."""
    with np.errstate(over="ignore"):
        return dt.type(value)


def _local_reduce(a: Any, op: str, dt: np.dtype) -> Any:
    """The fallback for dtypes the core does not reduce: same fixed order."""
    x = a.interior.reshape(-1)
    team = a.team
    if op == "sum":
        if dt.kind in "biu":
            part = np.array([x.sum(dtype=_sum_dtype(dt))])
            return _sum_dtype(dt).type(_gathered(team, part).sum(dtype=_sum_dtype(dt)))
        part = np.array([np.cumsum(x, dtype=np.float64)[-1] if x.size else 0.0])
        return _round(dt, _ordered_sum(_gathered(team, part)))
    part = np.array([x.min() if op == "min" else x.max()], dtype=dt)
    allp = _gathered(team, part)
    return dt.type(allp.min() if op == "min" else allp.max())


def _live(a: Any, fn: str) -> None:
    if not isinstance(a, Array):
        raise TypeError(f"{fn}: expected a dartpy.Array, not {type(a).__name__}")
    if a.freed:
        raise ValueError(f"{fn}: this dartpy.Array was freed")


def _no_axis(fn: str, axis: Any) -> None:
    if axis is not None:
        raise TypeError(
            f"{fn}: axis={axis!r} is not supported: dartpy.Array reductions reduce the whole "
            "array (axis=None); for one along an axis, gather the array or reduce a.interior "
            "on each unit and combine the results with dartpy.allreduce"
        )


def array_sum(self: Any, axis: Any = None) -> Any:
    """Collective: the sum of the interior, the same bits on every unit (each block in
    index order, then the blocks in unit order). Integers sum as int64 (uint64 if
    unsigned), as NumPy; float32 in double, rounded once."""
    _live(self, "dartpy.Array.sum")
    _no_axis("dartpy.Array.sum", axis)
    if _core_reduces(self.dtype):
        return _core._array_reduce(self, "sum")
    return _local_reduce(self, "sum", self.dtype)


def _minmax(self: Any, op: str, axis: Any) -> Any:
    fn = f"dartpy.Array.{op}"
    _live(self, fn)
    _no_axis(fn, axis)
    if self.dtype.kind == "c":
        raise TypeError(f"{fn}: complex numbers have no order (reduce abs or the real part)")
    if _core_reduces(self.dtype):
        return _core._array_reduce(self, op)
    return _local_reduce(self, op, self.dtype)


def array_min(self: Any, axis: Any = None) -> Any:
    """Collective: the minimum of the interior on every unit (NaN if any is NaN)."""
    return _minmax(self, "min", axis)


def array_max(self: Any, axis: Any = None) -> Any:
    """Collective: the maximum of the interior on every unit (NaN if any is NaN)."""
    return _minmax(self, "max", axis)


def array_mean(self: Any, axis: Any = None) -> Any:
    """Collective: sum() / size, float64 for integer arrays (as NumPy)."""
    _no_axis("dartpy.Array.mean", axis)
    s = array_sum(self)
    dt = self.dtype
    res = np.dtype(np.float64) if dt.kind in "biu" else dt
    return res.type(res.type(s) / _size(self))


_NORM_KINDS = {1: 1, 2: 2, None: 2, "fro": 2, np.inf: 3, float("inf"): 3}


def norm(a: Any, ord: Any = None) -> Any:  # noqa: A002 - NumPy's name
    """Collective: the vector norm of all interior points, the same on every unit
    (dart_array_norm): ord 1 (sum of |x|), 2 or None (the Euclidean norm; "fro" is the
    same) or numpy.inf (max |x|). A float64: the core's double, the same bits as in C,
    C++ and Fortran (NumPy's norm of a float32 array is a float32)."""
    fn = "dartpy.norm"
    _live(a, fn)
    try:
        kind = _NORM_KINDS[ord]
    except (KeyError, TypeError):
        raise ValueError(
            f"{fn}: ord={ord!r} is not supported (1, 2, None, 'fro' or numpy.inf)"
        ) from None
    if _core_reduces(a.dtype):
        core_kind = (_core.ARRAY_NORM_1, _core.ARRAY_NORM_2, _core.ARRAY_NORM_INF)[kind - 1]
        return np.float64(_core._array_norm(a, core_kind))
    x = np.abs(a.interior.reshape(-1).astype(np.float64))
    if kind == 3:
        return np.float64(_gathered(a.team, np.array([x.max()])).max())
    part = np.array([_ordered_sum(x if kind == 1 else x * x)])
    s = _ordered_sum(_gathered(a.team, part))
    return np.float64(s if kind == 1 else np.sqrt(s))


def dot(a: Any, b: Any) -> Any:
    """Collective: sum(conj(a) * b) over the interiors of two arrays of one distribution
    (numpy.vdot's meaning), the same bits on every unit (dart_array_dot)."""
    fn = "dartpy.dot"
    _live(a, fn)
    _live(b, fn)
    _same_distribution(a, b, fn)
    if a.dtype != b.dtype:
        raise TypeError(f"{fn}: the arrays have different dtypes ({a.dtype} and {b.dtype})")
    if _core_reduces(a.dtype):
        return _core._array_dot(a, b)
    dt = a.dtype
    x = a.interior.reshape(-1)
    y = b.interior.reshape(-1)
    if dt.kind in "biu":
        acc = _sum_dtype(dt)
        part = np.array([np.dot(x.astype(acc), y.astype(acc))])
        return acc.type(_gathered(a.team, part).sum(dtype=acc))
    part = np.array([_ordered_sum(x.astype(np.float64) * y.astype(np.float64))])
    return _round(dt, _ordered_sum(_gathered(a.team, part)))


# ---- __array_function__ (NEP 18) --------------------------------------------------------

_FUNCTIONS: Dict[Callable, Callable] = {}


def _implements(*funcs: Callable) -> Callable:
    def deco(impl: Callable) -> Callable:
        for f in funcs:
            _FUNCTIONS[f] = impl
        return impl

    return deco


def _only_defaults(fn: str, kwargs: Dict[str, Any], allowed: Sequence[str] = ()) -> None:
    bad = [
        k for k, v in kwargs.items() if k not in allowed and not (k == "keepdims" and v is False)
    ]
    if bad:
        raise TypeError(
            f"{fn} of a dartpy.Array: argument(s) {', '.join(repr(k) for k in bad)} not "
            "supported (the reductions of a dartpy.Array reduce the whole array to one "
            "value on every unit)"
        )


def _reduction(name: str, method: Callable) -> Callable:
    def impl(a: Any, axis: Any = None, **kwargs: Any) -> Any:
        _no_axis(f"numpy.{name}", axis)
        _only_defaults(f"numpy.{name}", kwargs)
        return method(a)

    return impl


_implements(np.sum)(_reduction("sum", array_sum))
_implements(np.amin, np.min)(_reduction("min", array_min))
_implements(np.amax, np.max)(_reduction("max", array_max))
_implements(np.mean)(_reduction("mean", array_mean))


@_implements(np.linalg.norm)
def _np_norm(a: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    _no_axis("numpy.linalg.norm", axis)
    _only_defaults("numpy.linalg.norm", {"keepdims": keepdims})
    if a.ndim > 1 and ord not in (None, "fro"):
        raise TypeError(
            f"numpy.linalg.norm of a {a.ndim}-d dartpy.Array supports ord=None and 'fro' "
            f"only (ord={ord!r} is a matrix norm in NumPy); dartpy.norm(a, {ord!r}) is the "
            "vector norm of all elements"
        )
    return norm(a, ord)


@_implements(np.vdot)
def _np_vdot(a: Any, b: Any) -> Any:
    return dot(a, b)


@_implements(np.shape)
def _np_shape(a: Any) -> Tuple[int, ...]:
    return tuple(a.shape)


@_implements(np.ndim)
def _np_ndim(a: Any) -> int:
    return int(a.ndim)


@_implements(np.size)
def _np_size(a: Any, axis: Any = None) -> int:
    return _size(a) if axis is None else int(a.shape[axis])


def _supported() -> str:
    names = sorted(
        {f"numpy.{'linalg.' if f is np.linalg.norm else ''}{f.__name__}" for f in _FUNCTIONS}
    )
    return ", ".join(names)


def _array_function(self: Any, func: Callable, types: Any, args: Any, kwargs: Any) -> Any:
    impl = _FUNCTIONS.get(func)
    if impl is None:
        raise TypeError(
            f"dartpy.Array does not support numpy.{func.__name__}: supported are "
            f"{_supported()} and the element-wise ufuncs; gather the array (a.gather()) or "
            "work on this unit's block (a.interior)"
        )
    for i, x in enumerate(args):
        if isinstance(x, np.ndarray):
            raise TypeError(
                f"numpy.{func.__name__}: argument {i} is a NumPy array (one unit's data) "
                "beside a dartpy.Array; pass dartpy.Arrays of one distribution"
            )
    return impl(*args, **kwargs)


def install(cls: type) -> None:
    """Puts the protocols and reductions on dartpy.Array."""
    cls.__array__ = _array
    cls.__array_ufunc__ = _ufunc
    cls.__array_function__ = _array_function
    cls.__iter__ = _iter
    cls.__len__ = _len
    cls.__bool__ = _bool
    cls.size = property(_size, doc="The number of elements of the global array.")
    cls.itemsize = property(lambda self: self.dtype.itemsize, doc="Bytes per element.")
    cls.nbytes = property(
        lambda self: _size(self) * self.dtype.itemsize, doc="Bytes of the global array."
    )
    cls.blocks = property(blocks, doc=blocks.__doc__)
    cls.sum = array_sum
    cls.min = array_min
    cls.max = array_max
    cls.mean = array_mean
    cls.copy = _array_temporaries.copying(cls.copy)
    install_operators(cls)
