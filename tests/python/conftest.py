"""pytest configuration of the dartpy tests: see launcher.py for how MPI jobs run."""

from __future__ import annotations

import signal

import launcher

# An outer `timeout` sends SIGTERM: turn it into KeyboardInterrupt, so that a running MPI
# job (its own session, outside timeout's process group) is killed by launcher.run_job
# instead of being orphaned.
signal.signal(signal.SIGTERM, signal.default_int_handler)


def pytest_report_header(config):
    flags = " ".join([launcher.MPIEXEC] + launcher.LAUNCHER.flags())
    return (f"dartpy MPI: {launcher.FLAVOR} (launcher {flags}, "
            f"built with {launcher.BUILD['mpicc']})")
