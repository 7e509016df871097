# SPDX-License-Identifier: BSD-3-Clause
"""dartpy's exception for failed DART calls (raised by the extension, defined here so that
it is an ordinary, picklable Python class)."""

from __future__ import annotations

from typing import Optional


class DartError(RuntimeError):
    """A DART call failed.

    ``code`` is the DART return code (``dartpy.ERR_INVAL``, ``ERR_NOTFOUND``,
    ``ERR_NOTINIT``, ``ERR_NOMEM``, ``ERR_OTHER``), ``detail`` the runtime's description
    of what went wrong (``dart_error_detail()``, also part of the message). Pickling keeps
    both (e.g. through mpi4py or multiprocessing).
    """

    code: Optional[int]
    detail: str

    def __init__(self, message: str = "", code: Optional[int] = None, detail: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.detail = detail
