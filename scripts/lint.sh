#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The checks every contributor and CI run (CONTRIBUTING.md). Exit status non-zero on any
# finding.
#
#   bash scripts/lint.sh                       # every check, over the tracked files
#   bash scripts/lint.sh --check NAME [FILE..] # one check (pre-commit passes the files)
#   bash scripts/lint.sh --fix                 # apply ruff's safe fixes and the formatters
#                                              # to the files they check
#   bash scripts/lint.sh --format-all          # apply the formatters to EVERY file and
#                                              # empty scripts/format-pending.txt
#
# Checks: spdx (scripts/spdx.py), ruff (ruff check), ruff-format (ruff format --check and
# the import order), clang-format (C and C++, .clang-format), fortran-indent
# (scripts/fortran_indent.py), shellcheck (scripts/*.sh, .ci/run,
# tests/fortran/install_check.sh), citation (CITATION.cff against CFF 1.2.0).
#
# The format checks (ruff-format, clang-format) leave out the files listed in
# scripts/format-pending.txt: the tree as it was before the formatters were adopted, to be
# formatted in one commit that changes nothing else (--format-all). Any other file,
# new ones included, must already be formatted.
#
# The tools live in a venv of their own, $DART_LINT_VENV (default <repo>/_venv/lint),
# installed from scripts/lint-requirements.txt when missing or when the pins changed.
# DART_LINT_JUNIT=<file> also writes the results as JUnit XML (scripts/test.sh uses it).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${DART_LINT_VENV:-$REPO/_venv/lint}
REQS=$REPO/scripts/lint-requirements.txt
PENDING=$REPO/scripts/format-pending.txt
PYTHON=${DART_PYTHON:-/usr/bin/python3}
CHECKS=(spdx ruff ruff-format clang-format fortran-indent shellcheck citation)

log() { echo "[lint] $*"; }

# --- the tools ---------------------------------------------------------------------------
stamp=$(sha256sum "$REQS" | cut -d' ' -f1)
if [[ $(cat "$VENV/.lint-stamp" 2>/dev/null) != "$stamp" ]]; then
  log "installing the tools into $VENV ($(grep -cv '^#' "$REQS") packages)"
  [[ -x $VENV/bin/python ]] || "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS"
  echo "$stamp" >"$VENV/.lint-stamp"
fi
BIN=$VENV/bin

# --- which files -------------------------------------------------------------------------
cd "$REPO"
# By the end of the name (a pathspec like '*.c' would also take docs/Doxyfile.c).
tracked() { git ls-files | grep -E "$1" || true; }
py_files() { tracked '(\.pyi?|^benchmarks/run)$' | grep -v '^notebooks/' || true; }
c_files() { tracked '\.(c|cc|h|hpp)$' | grep -v '^cpp/include/' || true; }
f_files() { tracked '\.(F90|f90|inc)$'; }
sh_files() { tracked '(^scripts/[^/]*\.sh|^\.ci/run|^tests/fortran/install_check\.sh)$'; }
# Drops the files of scripts/format-pending.txt from stdin's list.
not_pending() {
  if [[ -s $PENDING ]]; then grep -vxF -f <(grep -v '^#' "$PENDING") || true; else cat; fi
}

# --- the checks (each gets its files as arguments) ------------------------------------------
check_spdx() { "$PYTHON" scripts/spdx.py; }
check_ruff() { "$BIN/ruff" check --quiet --force-exclude "$@"; }
check_ruff_format() {
  "$BIN/ruff" format --check --quiet --force-exclude "$@" &&
    "$BIN/ruff" check --quiet --force-exclude --select I "$@"
}
check_clang_format() { "$BIN/clang-format" --dry-run --Werror "$@"; }
check_fortran_indent() { "$PYTHON" scripts/fortran_indent.py "$@"; }
check_shellcheck() { "$BIN/shellcheck" -f gcc "$@"; }
check_citation() { "$BIN/cffconvert" --validate -i CITATION.cff >/dev/null; }

files_of() { # <check>: the files it looks at, one a line
  case $1 in
    ruff) py_files ;;
    ruff-format) py_files | not_pending ;;
    clang-format) c_files | not_pending ;;
    fortran-indent) f_files ;;
    shellcheck) sh_files ;;
    *) ;;
  esac
}

# Filters explicit files (from pre-commit) down to the ones a check looks at.
select_files() { # <check> <files...>
  local check=$1
  shift
  grep -xF -f <(files_of "$check") <(printf '%s\n' "$@") || true
}

results=()
failed=0
run_check() { # <check> [files...]: runs it, records "name|status|seconds|output"
  local name=$1 fn out rc start
  shift
  fn=check_${name//-/_}
  local files=("$@")
  if ((${#files[@]} == 0)); then
    case $name in spdx | citation) ;; *) mapfile -t files < <(files_of "$name") ;; esac
    if ((${#files[@]} == 0)) && [[ $name != spdx && $name != citation ]]; then
      log "$name: no files"
      results+=("$name|pass|0|no files")
      return
    fi
  fi
  start=$EPOCHREALTIME
  rc=0
  out=$("$fn" "${files[@]}" 2>&1) || rc=$?
  local secs
  secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  if ((rc == 0)); then
    if ((${#files[@]})); then log "$name: ok (${#files[@]} files, ${secs} s)"; else log "$name: ok (${secs} s)"; fi
    results+=("$name|pass|$secs|")
  else
    failed=$((failed + 1))
    log "$name: FAILED (${secs} s)"
    printf '%s\n' "$out" | head -n 200
    results+=("$name|fail|$secs|$out")
  fi
}

write_junit() { # <file>
  "$PYTHON" - "$1" "${results[@]}" <<'PY'
import sys
from xml.sax.saxutils import escape, quoteattr
out, rows = sys.argv[1], [r.split("|", 3) for r in sys.argv[2:]]
cases = []
for name, status, secs, text in rows:
    body = ""
    if status == "fail":
        msg = (text.strip().splitlines() or ["failed"])[0]
        body = f"<failure message={quoteattr(msg[:300])}>{escape(text)}</failure>"
    cases.append(f'<testcase classname="lint" name="{name}" time="{secs}">{body}</testcase>')
nfail = sum(r[1] == "fail" for r in rows)
with open(out, "w") as f:
    f.write(f'<testsuite name="lint" tests="{len(rows)}" failures="{nfail}">'
            + "".join(cases) + "</testsuite>\n")
PY
}

apply_formatters() { # <all|checked>
  local py c
  if [[ $1 == all ]]; then
    mapfile -t py < <(py_files)
    mapfile -t c < <(c_files)
  else
    mapfile -t py < <(files_of ruff-format)
    mapfile -t c < <(files_of clang-format)
  fi
  # --fix also applies ruff's safe fixes; --format-all only formats (layout and import
  # order), so that its commit changes nothing else.
  [[ $1 == all ]] || "$BIN/ruff" check --quiet --force-exclude --fix "${py[@]}" || true
  if ((${#py[@]})); then
    "$BIN/ruff" check --quiet --force-exclude --select I --fix "${py[@]}" || true
    "$BIN/ruff" format --quiet --force-exclude "${py[@]}"
  fi
  if ((${#c[@]})); then "$BIN/clang-format" -i "${c[@]}"; fi
  log "formatted ${#py[@]} Python and ${#c[@]} C/C++ files"
}

case ${1:-} in
  --fix) apply_formatters checked; exit 0 ;;
  --format-all)
    apply_formatters all
    printf '# SPDX-License-Identifier: BSD-3-Clause\n# Files not yet formatted (scripts/lint.sh): none.\n' >"$PENDING"
    log "scripts/format-pending.txt emptied: commit the formatting alone"
    exit 0
    ;;
  --check)
    name=${2:?--check NAME}
    shift 2
    [[ " ${CHECKS[*]} " == *" $name "* ]] || { log "unknown check $name (${CHECKS[*]})"; exit 2; }
    if (($#)) && [[ $name != spdx && $name != citation ]]; then
      mapfile -t sel < <(select_files "$name" "$@")
      ((${#sel[@]})) || exit 0
      run_check "$name" "${sel[@]}"
    else
      run_check "$name"
    fi
    ;;
  "")
    start=$SECONDS
    for c in "${CHECKS[@]}"; do run_check "$c"; done
    log "$((${#CHECKS[@]} - failed)) of ${#CHECKS[@]} checks passed in $((SECONDS - start)) s"
    ;;
  *) sed -n '3,16p' "$0"; exit 2 ;;
esac
[[ -z ${DART_LINT_JUNIT:-} ]] || write_junit "$DART_LINT_JUNIT"
((failed == 0))
