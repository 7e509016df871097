# SPDX-License-Identifier: BSD-3-Clause
"""dartpy's exception for failed DART calls (raised by the extension, defined here so that
it is an ordinary, picklable Python class)."""

from __future__ import annotations

import errno
import os
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


# ---- file errors: DartError and the built-in exception a Python user catches ------------


class DartFileError(DartError, OSError):
    """A DART file operation (``Array.save``, ``Array.load``) that the file system refused:
    a DartError and an OSError (``errno``, ``strerror``, ``filename``; ``str()`` is
    DART's whole message, the same on every unit). The subclasses are also the matching
    built-in exception: ``except FileNotFoundError`` catches a load of a missing file."""

    def __init__(
        self,
        message: str = "",
        code: Optional[int] = None,
        detail: str = "",
        errnum: int = 0,
        filename: Optional[str] = None,
    ) -> None:
        OSError.__init__(self, errnum, os.strerror(errnum) if errnum else "", filename)
        self.args = (message, code, detail, errnum, filename)
        self.code = code
        self.detail = detail
        self._message = message

    def __str__(self) -> str:
        return self._message

    def __reduce__(self) -> tuple:
        return (type(self), self.args)


class DartFileNotFoundError(DartFileError, FileNotFoundError):
    """The file or its folder does not exist (ENOENT)."""


class DartPermissionError(DartFileError, PermissionError):
    """The file system denied access (EACCES, EPERM, EROFS)."""


class DartIsADirectoryError(DartFileError, IsADirectoryError):
    """The path is a directory (EISDIR)."""


class DartNotADirectoryError(DartFileError, NotADirectoryError):
    """A component of the path is no directory (ENOTDIR)."""


class DartFileFormatError(DartError, ValueError):
    """The file is no array DART can read as asked: not .npy, truncated, a dtype, order
    or shape it cannot hold, or one the arguments cannot decompose."""


_BY_ERRNO = {
    errno.ENOENT: DartFileNotFoundError,
    errno.EACCES: DartPermissionError,
    errno.EPERM: DartPermissionError,
    errno.EROFS: DartPermissionError,
    errno.EISDIR: DartIsADirectoryError,
    errno.ENOTDIR: DartNotADirectoryError,
}


def file_error(
    message: str, code: int, detail: str, errnum: int, filename: Optional[str], invalid: int
) -> DartError:
    """The exception of a failed file call: by the file system's errno when it has one,
    a DartFileFormatError for a refused file or argument (code `invalid`), else a
    plain DartError."""
    if errnum:
        return _BY_ERRNO.get(errnum, DartFileError)(message, code, detail, errnum, filename)
    if code == invalid:
        return DartFileFormatError(message, code, detail)
    return DartError(message, code, detail)
