# SPDX-License-Identifier: BSD-3-Clause
"""What a release needs (issue 39): LICENSE is the BSD-3-Clause text, every source file
tracked by git carries an SPDX line (scripts/spdx.py says which files are sources and each
one's comment syntax), CITATION.cff and CHANGELOG.md name the version of the file VERSION.
No MPI: these read files only."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent


def _spdx():
    spec = importlib.util.spec_from_file_location("spdx", REPO / "scripts" / "spdx.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["spdx"] = mod
    spec.loader.exec_module(mod)
    return mod


def _in_git_checkout() -> bool:
    if shutil.which("git") is None:
        return False
    r = subprocess.run(
        ["git", "rev-parse", "--is-inside-work-tree"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return r.returncode == 0 and r.stdout.strip() == "true"


def test_license_file_is_bsd3():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "The DART-MPI developers" in text
    assert "to endorse or promote products derived from" in text  # the third clause


@pytest.mark.skipif(not _in_git_checkout(), reason="needs a git checkout (git ls-files)")
def test_every_source_file_has_an_spdx_line():
    spdx = _spdx()
    sources = spdx.tracked_sources(REPO)
    # The rule covers every language of the project (a wrong filter would pass vacuously).
    names = [f for f, _ in sources]
    for ending in (
        ".cc",
        ".h",
        ".c",
        ".F90",
        ".f90",
        ".py",
        ".cmake",
        "CMakeLists.txt",
        ".sh",
        ".pyi",
    ):
        assert any(n.endswith(ending) for n in names), ending
    assert ".ci/run" in names and "benchmarks/run" in names
    bad = spdx.missing(REPO)
    assert not bad, (
        "source files without 'SPDX-License-Identifier: BSD-3-Clause' in "
        f"their first {spdx.HEAD_LINES} lines (python3 scripts/spdx.py --fix "
        f"adds it): {bad}"
    )


def test_spdx_line_follows_a_shebang(tmp_path):
    spdx = _spdx()
    f = tmp_path / "run"
    f.write_text("#!/usr/bin/env bash\necho hi\n")
    spdx.fix(tmp_path, "run", ("# ", ""))
    assert f.read_text().splitlines()[:2] == [
        "#!/usr/bin/env bash",
        "# SPDX-License-Identifier: BSD-3-Clause",
    ]
    assert spdx.comment_of("cpp/src/x.h", "") == ("/* ", " */")
    assert spdx.comment_of("fortran/x.F90", "") == ("! ", "")
    assert spdx.comment_of("docs/x.md", "") is None


def test_citation_names_this_version():
    version = (REPO / "VERSION").read_text().strip()
    cff = (REPO / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.M)
    assert re.search(rf"^version: {re.escape(version)}$", cff, re.M), (
        "CITATION.cff's version is not the one in VERSION"
    )
    # The DOI of the PGAS'14 paper, the one DOI docs/references.md gives.
    assert "10.1145/2676870.2676875" in cff


def test_changelog_has_a_section_for_this_version():
    version = (REPO / "VERSION").read_text().strip()
    log = (REPO / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", log, re.M), (
        f"CHANGELOG.md has no '## [{version}] - YYYY-MM-DD' section"
    )
