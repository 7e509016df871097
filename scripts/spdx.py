#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which files tracked by git are source files, and does each carry its SPDX line.

    python3 scripts/spdx.py          # list the source files without an SPDX line (exit 1)
    python3 scripts/spdx.py --fix    # add the line (after a shebang), in each file's syntax

Used by tests/python/test_spdx.py and scripts/lint.sh. Standard library only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LICENSE_ID = "BSD-3-Clause"
TAG = "SPDX-License-Identifier: "
# The line must be among the first lines of a file (a shebang and an encoding may precede).
HEAD_LINES = 5

# Comment syntax by file name ending (the longest ending wins), then by exact name.
BY_SUFFIX = {
    ".c": ("/* ", " */"),
    ".h": ("/* ", " */"),
    ".h.in": ("/* ", " */"),
    ".cc": ("// ", ""),
    ".cpp": ("// ", ""),
    ".hpp": ("// ", ""),
    ".F90": ("! ", ""),
    ".f90": ("! ", ""),
    ".inc": ("! ", ""),
    ".py": ("# ", ""),
    ".pyi": ("# ", ""),
    ".sh": ("# ", ""),
    ".cmake": ("# ", ""),
    ".cmake.in": ("# ", ""),
    ".pc.in": ("# ", ""),
    ".toml": ("# ", ""),
    ".yaml": ("# ", ""),
    ".yml": ("# ", ""),
}
BY_NAME = {
    "CMakeLists.txt": ("# ", ""),
    ".clang-format": ("# ", ""),
    "dart-config.in": ("# ", ""),
}
# Executables without an ending: a shebang makes them shell or Python, both '#' comments.
SHEBANG_DIRS = (".ci/", "benchmarks/", "scripts/")


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def comment_of(path: str, first_line: str) -> tuple[str, str] | None:
    name = path.rsplit("/", 1)[-1]
    if name in BY_NAME:
        return BY_NAME[name]
    for suffix in sorted(BY_SUFFIX, key=len, reverse=True):
        if name.endswith(suffix):
            return BY_SUFFIX[suffix]
    if "." not in name and first_line.startswith("#!") and path.startswith(SHEBANG_DIRS):
        return ("# ", "")
    return None


def tracked_sources(root: Path) -> list[tuple[str, tuple[str, str]]]:
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, stdout=subprocess.PIPE)
        .stdout.decode()
        .split("\0")
    )
    out = []
    for f in filter(None, files):
        p = root / f
        if not p.is_file():
            continue  # deleted in the work tree, not yet in the index
        with open(p, "rb") as fh:
            first = fh.readline().decode("utf-8", "replace")
        c = comment_of(f, first)
        if c is not None:
            out.append((f, c))
    return out


def has_tag(text: str) -> bool:
    return any(TAG + LICENSE_ID in line for line in text.splitlines()[:HEAD_LINES])


def missing(root: Path) -> list[str]:
    return [
        f
        for f, _ in tracked_sources(root)
        if not has_tag((root / f).read_text(encoding="utf-8", errors="replace"))
    ]


def fix(root: Path, path: str, comment: tuple[str, str]) -> None:
    p = root / path
    text = p.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    at = 1 if lines and lines[0].startswith("#!") else 0
    lines.insert(at, f"{comment[0]}{TAG}{LICENSE_ID}{comment[1]}\n")
    p.write_text("".join(lines), encoding="utf-8")


def main(argv: list[str]) -> int:
    root = repo_root()
    bad = missing(root)
    if "--fix" in argv:
        comments = dict(tracked_sources(root))
        for f in bad:
            fix(root, f, comments[f])
        print(f"spdx: added the line to {len(bad)} files")
        return 0
    for f in bad:
        print(f"{f}: no '{TAG}{LICENSE_ID}' in its first {HEAD_LINES} lines")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
