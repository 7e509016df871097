# SPDX-License-Identifier: BSD-3-Clause
"""Progress processes (DART_PROGRESS_PER_NODE) seen from Python: run by test_progress.py.

never_returns <units>   a progress process never returns from dart.init(): every process
                        that does is a unit, dart.size() == <units>, one line per unit
refuse_mpi_init         MPI initialized first (mpi4py): dart.init() raises DartError
                        (ERR_INVAL, naming DART_PROGRESS_PER_NODE); without the variable
                        it then works
refuse_singleton        no mpiexec: dart.init() raises the same
"""

from __future__ import annotations

import os
import sys

from _helpers import done, main, raises, say

import dartpy as dart


def never_returns():
    units = int(sys.argv[2])
    dart.init()
    me, n = dart.myid(), dart.size()
    say(f"RETURNED unit {me}/{n} node {dart.unit_node(me)}")
    assert n == units, f"dart.size() is {n}, expected {units}"
    assert 0 <= me < n
    dart.barrier()
    done("never_returns")
    dart.exit()


def _refused(name):
    e = raises(dart.DartError, dart.init, code=dart.ERR_INVAL, match="DART_PROGRESS_PER_NODE")
    assert not dart.initialized()
    say(f"REFUSED {name}: {e}")


def refuse_mpi_init():
    from mpi4py import MPI  # initializes MPI before dartpy

    assert MPI.Is_initialized()
    os.environ["DART_PROGRESS_PER_NODE"] = "1"
    _refused("mpi_init")
    del os.environ["DART_PROGRESS_PER_NODE"]
    dart.init()
    assert dart.size() == MPI.COMM_WORLD.Get_size()
    dart.barrier()
    done("refuse_mpi_init")
    dart.exit()


def refuse_singleton():
    os.environ["DART_PROGRESS_PER_NODE"] = "1"
    _refused("singleton")
    say("PASS refuse_singleton unit 0/1")


if __name__ == "__main__":
    main(
        {
            "never_returns": never_returns,
            "refuse_mpi_init": refuse_mpi_init,
            "refuse_singleton": refuse_singleton,
        }
    )
