# SPDX-License-Identifier: BSD-3-Clause
"""pytest configuration of the dartpy tests: see launcher.py for how MPI jobs run."""

from __future__ import annotations

import gc
import signal

import launcher
import pytest

import dartpy as dart

# An outer `timeout` sends SIGTERM: turn it into KeyboardInterrupt, so that a running MPI
# job (its own session, outside timeout's process group) is killed by launcher.run_job
# instead of being orphaned.
signal.signal(signal.SIGTERM, signal.default_int_handler)


def pytest_report_header(config):
    flags = " ".join([launcher.MPIEXEC] + launcher.LAUNCHER.flags())
    return f"dartpy MPI: {launcher.FLAVOR} (launcher {flags}, built with {launcher.BUILD['mpicc']})"


@pytest.fixture
def d():
    """DART initialized in this process (a one-unit job) for one in-process test."""
    dart.init()
    try:
        yield dart
    finally:
        if dart.initialized():
            gc.collect()
            try:
                dart.exit()
            except BufferError:
                # a failed test keeps views alive in its traceback: end DART anyway so
                # that the next test starts clean, then report it
                dart._core._exit(False)
                raise
