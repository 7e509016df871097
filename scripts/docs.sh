#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the documentation site into _build/docs/html (entry page: index.html).
#
#   bash scripts/docs.sh
#
# 1. doxygen (apt, installed if missing): the C API as XML for breathe (docs/Doxyfile-c)
#    and the Fortran module as HTML pages (docs/Doxyfile-fortran, the site's fortran-api/).
# 2. Sphinx (docs/requirements.txt, pip-installed into the venv when missing): the
#    Markdown pages (MyST) and the API references, warnings as errors (-W).
# 3. scripts/check_links.py: every internal link and #anchor of the built site resolves.
#
# autodoc imports dartpy from the venv _venv/$DART_DOCS_MPI (default mpich), which
# scripts/setup.sh makes; run it first. DART_DOCS_JUNIT=<file> also writes the three
# steps' results as JUnit XML (scripts/test.sh uses it). Exit status non-zero on any
# warning, error or broken link.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPI=${DART_DOCS_MPI:-mpich}
VENV=${DART_DOCS_VENV:-$REPO/_venv/$MPI}
OUT=$REPO/_build/docs
PY=$VENV/bin/python

log() { echo "[docs] $*"; }
die() { echo "[docs] error: $*" >&2; exit 1; }

[[ -x $PY ]] || die "no venv at $VENV: run DART_MPIS=$MPI bash scripts/setup.sh first"
"$PY" -c 'import dartpy' 2>/dev/null || die "dartpy is not installed in $VENV (scripts/setup.sh)"

if ! command -v doxygen >/dev/null; then
  log "installing doxygen (apt)"
  SUDO=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || die "not root and no sudo: apt-get install doxygen"
    SUDO=(sudo)
  fi
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends doxygen
fi
stamp=$(sha256sum "$REPO/docs/requirements.txt" | cut -d' ' -f1)
if [[ $(cat "$VENV/.docs-stamp" 2>/dev/null) != "$stamp" ]]; then
  log "pip install -r docs/requirements.txt into $VENV"
  "$PY" -m pip install -q --disable-pip-version-check -r "$REPO/docs/requirements.txt"
  echo "$stamp" >"$VENV/.docs-stamp"
fi

results=()
failed=0
step() { # <name> <command...>: runs it, prints its output, records the result
  local name=$1 start rc=0 out
  shift
  start=$SECONDS
  out=$("$@" 2>&1) || rc=$?
  [[ -z $out ]] || printf '%s\n' "$out"
  if ((rc == 0)); then
    log "$name: ok ($((SECONDS - start)) s)"
    results+=("$name|pass|$((SECONDS - start))|")
  else
    failed=$((failed + 1))
    log "$name: FAILED ($((SECONDS - start)) s)"
    results+=("$name|fail|$((SECONDS - start))|$out")
  fi
  return "$rc"
}

doxygen_all() {
  rm -rf "$OUT/doxygen-c" "$OUT/doxygen-fortran"
  mkdir -p "$OUT/doxygen-c" "$OUT/doxygen-fortran"
  (cd "$REPO" && DART_DOXYGEN_OUT=$OUT/doxygen-c doxygen docs/Doxyfile-c) &&
    (cd "$REPO" && DART_DOXYGEN_OUT=$OUT/doxygen-fortran doxygen docs/Doxyfile-fortran)
}

sphinx() {
  rm -rf "$OUT/html" "$OUT/doctrees"
  DART_DOXYGEN_XML=$OUT/doxygen-c/xml DART_FORTRAN_HTML=$OUT/doxygen-fortran \
    "$PY" -m sphinx -W --keep-going -q -b html -d "$OUT/doctrees" "$REPO/docs" "$OUT/html"
}

start=$SECONDS
if step doxygen doxygen_all && step sphinx sphinx; then
  step links "$PY" "$REPO/scripts/check_links.py" "$OUT/html" || true
fi

if [[ -n ${DART_DOCS_JUNIT:-} ]]; then
  "$PY" - "$DART_DOCS_JUNIT" "${results[@]}" <<'PY'
import sys
from xml.sax.saxutils import escape, quoteattr
out, rows = sys.argv[1], [r.split("|", 3) for r in sys.argv[2:]]
cases = []
for name, status, secs, text in rows:
    body = ""
    if status == "fail":
        msg = (text.strip().splitlines() or ["failed"])[-1]
        body = f"<failure message={quoteattr(msg[:300])}>{escape(text)}</failure>"
    cases.append(f'<testcase classname="docs" name="{name}" time="{secs}">{body}</testcase>')
nfail = sum(r[1] == "fail" for r in rows)
with open(out, "w") as f:
    f.write(f'<testsuite name="docs" tests="{len(rows)}" failures="{nfail}">'
            + "".join(cases) + "</testsuite>\n")
PY
fi
if ((failed)); then
  log "FAILED ($((SECONDS - start)) s)"
  exit 1
fi
log "site built in $((SECONDS - start)) s: $OUT/html/index.html"
