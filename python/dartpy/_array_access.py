# SPDX-License-Identifier: BSD-3-Clause
"""Moving a dartpy.Array's data to and from one process, and global-index access to the
local block (installed on the class by dartpy's __init__).

``gather_all`` and ``from_numpy`` are the collective counterparts of NumPy's "one array
here" (gather to a root and broadcast; broadcast the root's shape and dtype, create,
scatter); ``to_xarray`` labels the gathered array; ``a.at[i, j]`` indexes this unit's block
with its ghosts by *global* index, as petsc4py's ``DMDA.getVecArray`` does.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._errors import DartError

Array = _core.Array

# ---- whole arrays -----------------------------------------------------------------------


def gather_all(self: Any) -> np.ndarray:
    """Collective: the global array as an ndarray on every unit (a gather to team unit 0,
    then a broadcast)."""
    x = self.gather(0)
    if x is None:
        x = np.empty(self.shape, dtype=self.dtype)
    _core.bcast(x.reshape(-1), 0, self.team)
    return x


_HEADER = 256  # bytes of the root's description of its array: "ndim s0 s1 ... dtype"


def from_numpy(x: Any, root: int = 0, *, team: Any = None, **kwargs: Any) -> Any:
    """Collective: a new Array holding root's NumPy array `x` (read on the root only;
    the others may pass None), distributed over `team` as ``Array(shape, dtype, team=team,
    **kwargs)`` would be, with x's shape and dtype. A bad `x` on the root raises there
    and a DartError on every other unit; nothing is created."""
    team = _core.Team(_core.TEAM_ALL) if team is None else team
    fn = "dartpy.Array.from_numpy"
    if not 0 <= root < team.size:
        raise ValueError(f"{fn}: root {root} is not a unit of team {team.id} (0..{team.size - 1})")
    header = np.zeros(_HEADER, dtype=np.uint8)
    error: Optional[BaseException] = None
    src = None
    if team.myid == root:
        try:
            src = np.asarray(x)
            if not 1 <= src.ndim <= _core.ARRAY_MAX_DIMS:
                raise ValueError(
                    f"{fn}: argument 'x' has {src.ndim} dimensions; a dartpy.Array has 1 to "
                    f"{_core.ARRAY_MAX_DIMS}"
                )
            text = " ".join([str(src.ndim), *map(str, src.shape), src.dtype.str]).encode()
            header[: len(text)] = np.frombuffer(text, dtype=np.uint8)
        except Exception as e:  # agreed on below
            error = e
    header[-1] = 0 if error is None else 1
    _core.bcast(header, root, team)
    if header[-1]:
        if error is not None:
            raise error
        raise DartError(
            f"{fn} failed on unit {root} of team {team.id}: its argument 'x' was refused "
            "(see its error); nothing was created",
            _core.ERR_INVAL,
            f"the root's argument 'x' was refused on unit {root}",
        )
    words = bytes(header[:-1]).rstrip(b"\0").decode().split()
    ndim = int(words[0])
    shape = tuple(int(w) for w in words[1 : 1 + ndim])
    dtype = np.dtype(words[1 + ndim])
    a = Array(shape, dtype, team=team, **kwargs)
    try:
        a.scatter(src if team.myid == root else None, root)
    except BaseException:
        a.free()
        raise
    return a


def to_xarray(
    self: Any,
    root: int = 0,
    *,
    dims: Optional[Sequence[str]] = None,
    name: Optional[str] = None,
) -> Any:
    """Collective: the gathered array as an ``xarray.DataArray`` on unit `root` (None
    elsewhere), with `dims` (default ``dim_0``, ``dim_1``, ...) and the global indices
    as coordinates."""
    fn = "dartpy.Array.to_xarray"
    dims = tuple(dims) if dims is not None else tuple(f"dim_{d}" for d in range(self.ndim))
    if len(dims) != self.ndim:
        raise ValueError(f"{fn}: {len(dims)} dims given for a {self.ndim}-d array")
    x = self.gather(root)
    if x is None:
        return None
    import xarray  # an optional dependency: only the root needs it

    coords = {d: np.arange(n) for d, n in zip(dims, self.shape)}
    return xarray.DataArray(x, dims=dims, coords=coords, name=name)


# ---- global-index access to the local block ---------------------------------------------


class GlobalIndexer:
    """``a.at[...]``: this unit's block with its ghosts, indexed by global index.

    Ints and slices are global indices, ghosts included: with a ghost width of 1 the
    block [lo, hi) is reachable as ``at[lo - 1]`` .. ``at[hi]``; a negative int is a
    global index below 0 (a ghost beyond the lower boundary), not a count from the end.
    ``None`` bounds of a slice are the block's ends with ghosts. The result is a view of
    ``a.local`` (an element for all ints); assignment writes into it. An index outside
    this unit's block with ghosts raises IndexError."""

    def __init__(self, array: Any) -> None:
        self._a = array

    def _local_key(self, key: Any) -> Tuple[Any, ...]:
        a = self._a
        nd = a.ndim
        key = key if isinstance(key, tuple) else (key,)
        if sum(k is Ellipsis for k in key) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        if Ellipsis in key:
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (nd - len(key) + 1) + key[i + 1 :]
        if len(key) > nd:
            raise IndexError(f"too many indices for a {nd}-d dartpy.Array: {len(key)}")
        key = key + (slice(None),) * (nd - len(key))
        out: List[Any] = []
        for d, k in enumerate(key):
            first = a.lo[d] - a.halo[d][0]
            end = a.hi[d] + a.halo[d][1]
            where = f"dimension {d}: this unit's block with ghosts is [{first}, {end})"
            if isinstance(k, slice):
                if k.step is not None and k.step < 1:
                    raise IndexError(
                        f"dartpy.Array.at: slice step {k.step} in {where} (steps >= 1)"
                    )
                start = first if k.start is None else int(k.start)
                stop = end if k.stop is None else int(k.stop)
                if not first <= start <= end or not first <= stop <= end:
                    raise IndexError(f"dartpy.Array.at: slice {start}:{stop} is outside {where}")
                out.append(slice(start - first, max(start, stop) - first, k.step))
            else:
                try:
                    i = int(np.asarray(k).item()) if not isinstance(k, bool) else None
                except (TypeError, ValueError):
                    i = None
                if i is None or isinstance(k, (float, np.floating)):
                    raise IndexError(
                        f"dartpy.Array.at: indices must be ints, slices or '...', not {type(k).__name__}"
                    )
                if not first <= i < end:
                    raise IndexError(f"dartpy.Array.at: global index {i} is outside {where}")
                out.append(i - first)
        return tuple(out)

    def __getitem__(self, key: Any) -> Any:
        return self._a.local[self._local_key(key)]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a.local[self._local_key(key)] = value


def install(cls: type) -> None:
    cls.gather_all = gather_all
    cls.from_numpy = staticmethod(from_numpy)
    cls.to_xarray = to_xarray
    cls.at = property(GlobalIndexer, doc=GlobalIndexer.__doc__)
