# SPDX-License-Identifier: BSD-3-Clause
"""The project's own checkers (issue 39) find what they are for: scripts/fortran_indent.py
(the Fortran step of scripts/lint.sh) a misindented statement, scripts/check_links.py (the
last step of scripts/docs.sh) a broken internal link or anchor. No MPI, no tools to install:
both are standard-library Python."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
    )


def test_fortran_indent_accepts_blocks_and_free_continuations(tmp_path):
    f = tmp_path / "ok.f90"
    f.write_text(
        "module m\n  implicit none\ncontains\n  subroutine s(x)\n"
        "    integer, intent(inout) :: x\n    if (x > 0) then\n      x = 1\n"
        "    else if (x < 0) then\n      x = -1\n    end if\n"
        "    select case (x)\n    case (1)\n      call foo(x, &\n"
        "               x)\n    end select\n"
        "    forall (x = 1:2) y(x) = 0\n  end subroutine s\nend module m\n"
    )
    r = _run("fortran_indent.py", str(f))
    assert r.returncode == 0, r.stdout


def test_fortran_indent_finds_a_misindented_statement(tmp_path):
    f = tmp_path / "bad.f90"
    f.write_text(
        "program p\n  integer :: i\n  do i = 1, 2\n  print *, i\n  end do\nend program p\n"
    )
    r = _run("fortran_indent.py", str(f))
    assert r.returncode == 1
    assert f"{f}:4: want 4 spaces, has 2" in r.stdout


def test_check_links_finds_broken_files_and_anchors(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="a.html#here">ok</a> <a href="a.html#gone">anchor</a> '
        '<a href="missing.html">file</a> <a href="https://example.org/x">external</a>'
    )
    (tmp_path / "a.html").write_text('<h1 id="here">A</h1>')
    r = _run("check_links.py", str(tmp_path))
    assert r.returncode == 1
    assert "index.html: a.html#gone: no id 'gone'" in r.stdout
    assert "index.html: missing.html: no such file" in r.stdout
    assert "example.org" not in r.stdout and "#here" not in r.stdout
