# SPDX-License-Identifier: BSD-3-Clause
"""The arrays that element-wise operations and copy() make, freed collectively once no
unit uses them.

``b = 2 * a + 1`` makes two arrays: ``2 * a``, which nothing refers to once the sum is
made, and ``b``. Every array is a collective allocation of its team, and the garbage
collector never frees one (units collect at different moments; a collective free there
would hang them). So the arrays a ufunc or copy() makes (dask.array.from_array copies
the array it is given) are kept in a list per team, in creation
order, which is the same on every unit (each was made by a collective call). At the
agreement that starts every element-wise operation on the team (and in
dartpy.collect_arrays()), each unit marks the
listed arrays it still refers to; the units combine the marks (one allreduce), and the
arrays no unit refers to are freed, in list order, on every unit. An array the user
freed, or whose team or DART ended, leaves the list. An array that still has NumPy views
on some unit stays until the next time.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional

import numpy as np

from . import _core
from ._agree import agree
from ._errors import DartError

_made: Dict[int, List[Any]] = {}  # team id -> arrays made by ufuncs, in creation order

# What sys.getrefcount reports for an object that only a list refers to (measured, not
# assumed: the count of the call's own reference differs between Python versions).
_probe = [object()]
_ONLY_THE_LIST = sys.getrefcount(_probe[0])
del _probe


def register(a: Any) -> None:
    """Keeps `a` (made by a ufunc on every unit of its team) until no unit uses it."""
    _made.setdefault(a.team.id, []).append(a)


def agree_and_collect(team: Any, error: Optional[BaseException], what: str) -> None:
    """Collective over `team`: raises on every unit if `error` is set on any (this unit's
    own error where it has one, a DartError naming the lowest failed unit elsewhere);
    then frees the made arrays that no unit refers to any more."""
    arrays = [x for x in _made.get(team.id, []) if not x.freed and x.team.id == team.id]
    _made[team.id] = arrays
    n = len(arrays)
    most, minus_least = agree(team, error, what, also=(n, -n))
    if most != -minus_least:
        _made[team.id] = []  # forget them: their memory stays until dart.exit()
        raise DartError(
            f"{what}: the units of team {team.id} made different arrays by element-wise "
            f"operations ({-minus_least} to {most}): every unit must run the same operations",
            _core.ERR_INVAL,
            "element-wise operations differ between units",
        )
    if n == 0:
        return
    used = np.array(
        [0 if sys.getrefcount(arrays[i]) <= _ONLY_THE_LIST else 1 for i in range(n)],
        dtype=np.int64,
    )
    anywhere = np.zeros(n, dtype=np.int64)
    _core.allreduce(used, anywhere, _core.OP_MAX, team)
    keep = []
    for i in range(n):
        if anywhere[i]:
            keep.append(arrays[i])
            continue
        try:
            arrays[i].free()
        except BufferError:  # (raised on every unit alike: the views check is collective)
            keep.append(arrays[i])
    _made[team.id] = keep


def collect_arrays(team: Any = None) -> None:
    """Collective over `team` (default TEAM_ALL): frees the arrays that element-wise
    operations and copy() made and that no unit refers to any more (done anyway at the
    start of every element-wise operation on the team)."""
    team = _core.Team(_core.TEAM_ALL) if team is None else team
    agree_and_collect(team, None, "dartpy.collect_arrays")


def copying(copy: Any) -> Any:
    """Array.copy, with the copy kept until no unit uses it."""

    def copy_array(self: Any) -> Any:
        b = copy(self)
        register(b)
        return b

    copy_array.__doc__ = (
        "Collective: a new array, same distribution, contents copied. Freed collectively "
        "(by free(), or once no unit refers to it: dartpy.collect_arrays())."
    )
    return copy_array
