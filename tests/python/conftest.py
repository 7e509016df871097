"""pytest configuration of the dartpy tests: see launcher.py for how MPI jobs run."""

from __future__ import annotations

import launcher


def pytest_report_header(config):
    return (f"dartpy MPI: {launcher.FLAVOR} (launcher {launcher.MPIEXEC}, "
            f"built with {launcher.BUILD['mpicc']})")
