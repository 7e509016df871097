# SPDX-License-Identifier: BSD-3-Clause
"""The notebooks run top to bottom without errors, each within 2 minutes.

nbclient executes them in a fresh kernel of this Python (the venv of the MPI under test):
notebooks/01-prototype-heat2d.ipynb in a single-process kernel (one DART unit),
notebooks/02-heat2d-on-4-units.ipynb launching 4 units with %%dartrun, which asserts that
their field equals the one-unit field byte for byte, and
notebooks/03-from-notebook-to-fortran.ipynb: a dart.Array prototype in the kernel, the same
cell on 4 units, the Fortran heat2d built with dart-config against the installation of this
MPI (_install/<mpi>, or $DART_PREFIX_BASE/<mpi>) and run on 4 units, the three .npy files
identical and plotted.
"""

from __future__ import annotations

import os
import time

import launcher
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = launcher.HERE.parent.parent / "notebooks"


def outputs(nb, kind):
    return [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == kind or kind in o.get("data", {})
    ]


@pytest.mark.multiunit
@pytest.mark.parametrize(
    "name",
    [
        "01-prototype-heat2d.ipynb",
        "02-heat2d-on-4-units.ipynb",
        "03-from-notebook-to-fortran.ipynb",
    ],
)
def test_notebook_runs(name, monkeypatch):
    # The kernel starts its own MPI (a singleton); nothing of this process's MPI leaks in.
    for k, v in launcher.clean_env().items():
        monkeypatch.setenv(k, v)
    for k in [k for k in os.environ if k not in launcher.clean_env()]:
        monkeypatch.delenv(k)
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    t0 = time.monotonic()
    client.execute()  # raises CellExecutionError with the traceback on a failing cell
    seconds = time.monotonic() - t0
    assert seconds < 120, f"{name} took {seconds:.0f} s (limit 120 s)"
    assert not outputs(nb, "error")
    assert outputs(nb, "image/png"), "the notebook shows no plot"
    text = "".join(o.get("text", "") for o in outputs(nb, "stream"))
    if name.startswith("02"):
        assert "4 units on 1 node(s)" in text
        assert "1 unit == 4 units (load/store) == 4 units (MPI RMA): True" in text
    elif name.startswith("03"):
        assert "unit 3 of 4: rows 24..47, columns 32..63" in text  # the 2 x 2 grid
        assert "heat2d (Fortran): 4 units (2 x 2)" in text
        assert (
            "Python on 1 unit == Python on 4 units == Fortran on 4 units, byte for "
            "byte: True" in text
        )
    else:
        assert "unit 0 of 1" in text and "checksum" in text
