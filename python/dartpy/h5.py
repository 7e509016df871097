# SPDX-License-Identifier: BSD-3-Clause
"""HDF5 files of distributed arrays (parallel HDF5 over MPI-IO; C API: dart_h5.h).

::

    with dart.h5.File("out.h5", "w") as f:          # collective over the team
        f["T"] = a                                   # every unit writes its block
        f["T"].attrs["time"] = 0.5
        f.attrs["title"] = "heat"
        f.append("series", a)                        # one step of a time series
    with dart.h5.File("out.h5") as f:
        b = dart.Array.from_h5(f, "T", halo=1)       # any units, any grid
        c = dart.h5.read(f, "series", step=-1)       # the last step

Every call is collective over the file's team. The files are plain HDF5 with netCDF-4
dimension scales: h5py and xarray (h5netcdf engine) read them without dartpy. A file
opened with "w" replaces the file at its path only when it is closed and every call on
it succeeded; otherwise the old file stays as it was.
"""

from __future__ import annotations

import os
from typing import Any, Iterator, Optional, Sequence

from . import _core

__all__ = ["File", "Dataset", "Attributes", "read", "available"]


def available() -> bool:
    """True if this build of DART-MPI has parallel HDF5."""
    return bool(_core.h5_available())


class Attributes:
    """The attributes of a file ("/") or a dataset: numbers, 1-d arrays of numbers, str."""

    def __init__(self, file: "File", obj: str) -> None:
        self._file = file
        self._obj = obj

    def __setitem__(self, key: str, value: Any) -> None:
        _core._h5_set_attr(self._file._handle(), self._obj, key, value)

    def __getitem__(self, key: str) -> Any:
        return _core._h5_get_attr(self._file._handle(), self._obj, key)


class Dataset:
    """A dataset of an open file: its shape, dtype and attributes; read() makes an Array."""

    def __init__(self, file: "File", name: str) -> None:
        self._file = file
        self.name = name
        self.attrs = Attributes(file, name)

    @property
    def shape(self) -> tuple:
        """The dataset's shape (C order; a time series has the steps first)."""
        return _core._h5_info(self._file._handle(), self.name)[0]

    @property
    def dtype(self) -> Any:
        """The dataset's NumPy dtype."""
        return _core._h5_info(self._file._handle(), self.name)[1]

    def read(self, step: Optional[int] = None, **kwargs: Any) -> Any:
        """Collective: a new Array of the dataset (or of one step); see dartpy.h5.read."""
        return read(self._file, self.name, step=step, **kwargs)


class File:
    """An HDF5 file open on every unit of a team (collective)::

        File(path, mode="r", *, team=TEAM_ALL)

    mode "w" creates (replaces at close), "a" adds to an existing file, "r" reads.
    Use it as a context manager, or call close().
    """

    def __init__(self, path: Any, mode: str = "r", *, team: Any = None) -> None:
        self.path = os.fsdecode(os.fspath(path))
        self.mode = mode
        self.team = _core.TEAM_ALL if team is None else team
        self._h = _core._h5_open(self.path, mode, self.team)
        self.attrs = Attributes(self, "/")

    def _handle(self) -> int:
        if not self._h:
            raise ValueError(f"dartpy.h5.File: '{self.path}' is closed")
        return self._h

    def close(self) -> None:
        """Collective: close the file ("w": the new file replaces the old one now)."""
        if self._h:
            h, self._h = self._h, 0
            _core._h5_close(h)

    def __enter__(self) -> "File":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __setitem__(self, name: str, array: Any) -> None:
        self.write(name, array)

    def __getitem__(self, name: str) -> Dataset:
        if name not in self:
            raise KeyError(f"dartpy.h5.File: '{self.path}' has no dataset '{name}'")
        return Dataset(self, name)

    def __contains__(self, name: object) -> bool:
        return name in self.keys()

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def keys(self) -> list:
        """Collective: the names of the datasets at the file's root (not bare dimensions)."""
        return list(_core._h5_names(self._handle()))

    def write(self, name: str, array: Any, *, dims: Optional[Sequence[str]] = None) -> None:
        """Collective: the array as the new dataset `name`, its dimensions named by
        `dims` (default "dim_0", "dim_1", ...; a dimension of a name is shared)."""
        _core._h5_write(self._handle(), name, array, None if dims is None else list(dims), False)

    def append(self, name: str, array: Any, *, dims: Optional[Sequence[str]] = None) -> None:
        """Collective: the array as the next step of the time series `name` (created by
        the first call, its leading dimension unlimited; dims: ndim + 1 names, default
        "time", "dim_0", ...)."""
        _core._h5_write(self._handle(), name, array, None if dims is None else list(dims), True)

    def __repr__(self) -> str:
        state = "open" if self._h else "closed"
        return f"<dartpy.h5.File '{self.path}' mode '{self.mode}' ({state})>"


def read(
    file: File,
    name: str,
    *,
    step: Optional[int] = None,
    dtype: Any = None,
    team: Any = None,
    halo: Any = 0,
    boundary: Any = "none",
    stencil: str = "star",
    procs: Any = None,
    blocks: Any = None,
    exchange: str = "auto",
) -> Any:
    """Collective over the file's team: a new Array holding the dataset `name` (or its
    step `step`, negative from the end) with the decomposition of the arguments, as
    Array.load does: the shape is the dataset's, the dtype too unless given."""
    return _core._h5_read(
        file._handle(),
        name,
        step,
        dtype,
        file.team if team is None else team,
        halo,
        boundary,
        stencil,
        procs,
        blocks,
        exchange,
    )


def _from_h5(file: File, name: str, **kwargs: Any) -> Any:
    """Collective: a new Array holding the dataset `name` of the open dartpy.h5.File
    `file` (step=k for one step of a time series); the arguments of dartpy.h5.read."""
    return read(file, name, **kwargs)


_core.Array.from_h5 = staticmethod(_from_h5)  # type: ignore[attr-defined]
