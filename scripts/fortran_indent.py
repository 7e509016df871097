#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the indentation of free-form Fortran: each block's body 2 spaces deeper.

    python3 scripts/fortran_indent.py FILE...    # prints FILE:LINE: want N spaces, has M

The rule is fprettify's `--indent 2` for statements (program units, procedures,
interfaces, derived types, do, if-then, select, block, associate, where, forall, critical,
enum; `contains`, `else`, `case`, `type is`, `class default` one level out), but neither
continuation lines (they are aligned by hand, e.g. under an opening parenthesis) nor
comment or preprocessor lines are checked, and no line is rewritten: fprettify 0.3.7 also
realigns continuations and, on some of the macro templates (`*.inc`), drops lines, so it
is not used as the check. An include file starts at the depth of its first statement. Standard library only; used by scripts/lint.sh.
"""

from __future__ import annotations

import re
import sys

WIDTH = 2
LABEL = re.compile(r"^[a-z_]\w*\s*:(?!:)\s*")
END = re.compile(
    r"^end\s*(do|if|select|type|interface|module|submodule|subroutine|function|"
    r"program|where|associate|block|forall|enum|critical|procedure)?\b(?!\s*=)"
)
MIDDLE = re.compile(
    r"^(else\b|elseif\b|elsewhere\b|case\b|contains\b|type\s+is\b|"
    r"class\s+is\b|class\s+default\b|rank\b)"
)
PREFIX = (
    r"((pure|impure|elemental|recursive|non_recursive|module|"
    r"integer|real|logical|complex|character|double\s+precision|"
    r"(type|class|integer|real|logical|complex|character)\s*\([^)]*\))\s+)*"
)
UNIT = re.compile(
    r"^(program|module(?!\s+procedure)|submodule\s*\(|block\s+data)\b|"
    rf"^{PREFIX}(subroutine|function)\b|^(abstract\s+)?interface\b|"
    r"^type\s*(,\s*(bind|public|private|extends|abstract)\b|::|\s+[a-z_]\w*\s*$)|^enum\s*,|^critical\b|^block\s*$|"
    r"^associate\s*\(|^select\s*(case|type|rank)\b|^do\b"
)


def strip(line: str) -> str:
    """The line without its comment and string contents (quotes kept)."""
    out, quote = [], None
    for ch in line:
        if quote:
            if ch == quote:
                quote = None
                out.append(ch)
            continue
        if ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "!":
            break
        else:
            out.append(ch)
    return "".join(out).strip()


def opens(stmt: str) -> bool:
    if UNIT.match(stmt):
        return True
    if re.match(r"^(else\s*)?if\b.*\bthen$", stmt):
        return not stmt.startswith("else")
    # a where construct: `where (mask)` with nothing after its parentheses
    # a where or forall construct: nothing after the header's parentheses
    m = re.match(r"^(where|forall)\s*(\(.*\))$", stmt)
    return bool(m) and _balanced_end(m.group(2))


def _balanced_end(s: str) -> bool:
    depth = 0
    for i, ch in enumerate(s.strip()):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ")":
            return i == len(s.strip()) - 1
    return False


def check(path: str) -> list[str]:
    problems, depth, continued = [], 0, False
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = fh.read().splitlines()
    logical: list[tuple[int, str, str]] = []  # (line number, raw first line, joined text)
    for no, raw in enumerate(lines, 1):
        code = strip(raw)
        if continued:
            logical[-1] = (
                logical[-1][0],
                logical[-1][1],
                logical[-1][2] + " " + code.lstrip("&").rstrip("&"),
            )
        elif code and not raw.lstrip().startswith("#"):
            logical.append((no, raw, code.rstrip("&")))
        continued = code.endswith("&")
    # An include file (*.inc) is a piece of a module: its first statement's depth is given.
    if path.endswith(".inc") and logical:
        depth = (len(logical[0][1]) - len(logical[0][1].lstrip(" "))) // WIDTH
    for no, raw, text in logical:
        # Keywords are lowercase in this code; a capitalized word is a macro (TYPE, CONV).
        stmts = [LABEL.sub("", s.strip()) for s in text.split(";") if s.strip()]
        if not stmts:
            continue
        first = stmts[0]
        want = depth
        if END.match(first) or MIDDLE.match(first):
            want = max(depth - 1, 0)
        has = len(raw) - len(raw.lstrip(" "))
        if "\t" not in raw[: has + 1] and has != want * WIDTH:
            problems.append(f"{path}:{no}: want {want * WIDTH} spaces, has {has}")
        for s in stmts:
            if END.match(s):
                depth = max(depth - 1, 0)
            elif opens(s):
                depth += 1
        if first.startswith("contains") and depth == 0:
            depth = 1
    return problems


def main(argv: list[str]) -> int:
    problems = [p for f in argv for p in check(f)]
    if problems:
        print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
