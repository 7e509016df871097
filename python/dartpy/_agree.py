# SPDX-License-Identifier: BSD-3-Clause
"""The binding's agreement before a collective call: an argument this unit refused must
not leave the other units waiting in the collective.

``agree(team, error, what)`` is one allreduce over the team: if any unit has an error,
every unit raises (its own error where it has one; elsewhere a DartError with ERR_INVAL
that names the lowest failed unit), and nobody enters the collective. Used where the core
has no spec to carry a refusal (the allocations and notify blocks, the element-wise
operations); dart.Array's arguments travel in its spec's ``refusal`` instead.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _core
from ._errors import DartError

_NO_ERROR = -(1 << 62)


def agree(team: Any, error: Optional[BaseException], what: str, also: Any = ()) -> np.ndarray:
    """Collective over `team`: raises on every unit if `error` is set on any; returns the
    maximum over the units of the int64 values `also` (reduced in the same allreduce)."""
    mine = np.array([_NO_ERROR if error is None else -(team.myid + 1), *also], dtype=np.int64)
    out = np.zeros_like(mine)
    _core.allreduce(mine, out, _core.OP_MAX, team)
    if out[0] != _NO_ERROR:
        if error is not None:
            raise error
        unit = int(-out[0] - 1)
        raise DartError(
            f"{what} failed on unit {unit} of team {team.id}: its arguments were refused (see "
            "its error there); nothing was done on this unit",
            _core.ERR_INVAL,
            f"another unit failed: unit {unit} of team {team.id}",
        )
    return out[1:]
