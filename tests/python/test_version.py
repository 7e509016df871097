# SPDX-License-Identifier: BSD-3-Clause
"""One version: the file VERSION is the only place it is written, and every artifact that
reports a version reports that one (dartpy, the C library, the wheel's metadata, the
installed dart-config, pkg-config file and dart_version.h)."""

from __future__ import annotations

import os
import re
import subprocess
from importlib import metadata
from pathlib import Path

import launcher
import pytest

import dartpy

REPO = launcher.HERE.parent.parent


def the_version() -> str:
    lines = (REPO / "VERSION").read_text().splitlines()
    assert len(lines) == 1 and re.fullmatch(r"\d+\.\d+\.\d+", lines[0]), lines
    return lines[0]


def install_prefix() -> Path:
    """Where scripts/setup.sh installed the C library for this MPI."""
    base = os.environ.get("DART_PREFIX_BASE") or str(REPO / "_install")
    return Path(base) / launcher.FLAVOR


def test_python_package_reports_the_version():
    v = the_version()
    assert dartpy.__version__ == v
    assert dartpy.build_info()["version"] == v
    assert metadata.version("dart-mpi") == v  # pyproject.toml's dynamic version


def test_library_reports_the_version():
    assert dartpy.mpi_version() == the_version()  # dart_mpi_version(), no init needed


def test_installed_files_report_the_version():
    prefix = install_prefix()
    config = prefix / "bin" / "dart-config"
    if not config.exists():
        pytest.skip(f"no installation at {prefix} (scripts/setup.sh installs one)")
    v = the_version()
    got = subprocess.run(
        [str(config), "--version"], stdout=subprocess.PIPE, text=True, check=True, timeout=30
    ).stdout.strip()
    assert got == v
    pc = (prefix / "lib" / "pkgconfig" / "dart-mpi.pc").read_text()
    assert re.search(rf"^Version: {re.escape(v)}$", pc, re.M), pc
    header = (prefix / "include" / "dash" / "dart" / "if" / "dart_version.h").read_text()
    assert f'#define DARTMPI_VERSION_STR   "{v}"' in header
    major, minor, patch = v.split(".")
    for name, value in (("MAJOR", major), ("MINOR", minor), ("PATCH", patch)):
        assert re.search(rf"^#define DARTMPI_VERSION_{name} {value}$", header, re.M), header
