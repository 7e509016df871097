#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set everything up (scripts/setup.sh) and run every test, for each MPI.
#
#   bash scripts/test.sh [ctest arguments, e.g. -R test_init -L n2]
#
# Keeps going after a failing MPI. Every runner records its results (JUnit XML); the last
# step replays those records as one pytest session (tests/summary), so the output ends
# with pytest's summary line over every test of the run, and the exit status is non-zero
# if anything failed (including a failed build or a runner that did not finish).
# DART_MPIS selects the MPIs (default "mpich openmpi").
# DART_TESTS selects the suites: "cpp python" (default), "cpp" or "python" (pytest of
# tests/python in _venv/<mpi>; extra pytest arguments in DART_PYTEST_ARGS).
# DART_SANITIZE=address|thread runs the C++ and Fortran tests (ctest) of the sanitizer
# build _build/<mpi>-asan (ASan + UBSan) or _build/<mpi>-tsan (TSan) instead; dartpy is
# not built with sanitizers, so the python suite is left out (and said so).
# The sanitizer steps follow the runs above, on MPICH: the C++ and Fortran tests at 2
# units under ASan + UBSan, and the threaded stress tests (ctest -R threads) under TSan.
# They are part of "every test" (a plain `bash scripts/test.sh`, which .ci/run runs);
# DART_CI_SANITIZERS=0 leaves them out, =1 forces them. By default (auto) they run unless
# the call selects a part: ctest arguments, DART_SANITIZE, or DART_MPIS/DART_TESTS
# without mpich/cpp. Every step prints how long it took.
# The lint step (scripts/lint.sh) and the docs step (scripts/docs.sh, with the first MPI's
# venv) run after the MPI runs; their results enter the summary like every test.
# DART_CI_LINT / DART_CI_DOCS: 0 leaves them out, 1 forces them; by default (auto) they run
# unless the call selects a part (ctest arguments, DART_SANITIZE, DART_TESTS).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPIS=${DART_MPIS:-mpich openmpi}
SUITES=${DART_TESTS:-cpp python}
SANITIZE=${DART_SANITIZE:-}

passed=0
failed=0
notes=()

# Adds the counts from a ctest log; a log without a summary counts as one failure.
count_ctest() { # <log> <what>
  local line total nfail
  # "95% tests passed, 2 tests failed out of 40"; CMake 4 drops ", 0 tests failed".
  line=$(grep -E '^[0-9]+% tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$1" | tail -n1 || true)
  if [[ -n $line ]]; then
    nfail=0
    if [[ $line =~ ([0-9]+)\ tests?\ failed ]]; then nfail=${BASH_REMATCH[1]}; fi
    [[ $line =~ out\ of\ ([0-9]+) ]] && total=${BASH_REMATCH[1]}
    passed=$((passed + total - nfail))
    failed=$((failed + nfail))
    ((nfail == 0)) || notes+=("$2: $nfail of $total failed")
  elif grep -q 'No tests were found' "$1"; then
    notes+=("$2: no tests matched")
  else
    failed=$((failed + 1))
    notes+=("$2: ctest did not finish")
  fi
}

# Adds the counts of pytest's summary line ("3 failed, 88 passed, 1 error in 40.1s");
# a log without one counts as one failure.
count_pytest() { # <log> <what>
  local line np=0 nf=0 ne=0
  line=$(grep -E '^(=+ )?[0-9]+ (passed|failed|errors?|skipped|deselected)' "$1" | tail -n1 || true)
  if [[ -z $line ]]; then
    failed=$((failed + 1))
    notes+=("$2: pytest did not finish")
    return
  fi
  if [[ $line =~ ([0-9]+)\ passed ]]; then np=${BASH_REMATCH[1]}; fi
  if [[ $line =~ ([0-9]+)\ failed ]]; then nf=${BASH_REMATCH[1]}; fi
  if [[ $line =~ ([0-9]+)\ errors? ]]; then ne=${BASH_REMATCH[1]}; fi
  passed=$((passed + np))
  failed=$((failed + nf + ne))
  ((nf + ne == 0)) || notes+=("$2: $nf failed, $ne errors")
  ((np + nf + ne > 0)) || notes+=("$2: no tests ran")
}

logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
results=$logdir/results
mkdir -p "$results"
export GTEST_COLOR=no

# Sanitizer build trees and record names: _build/<mpi><suffix>, ctest-<mpi><suffix>.xml.
san_suffix() { case $1 in address) echo -asan ;; thread) echo -tsan ;; *) echo "" ;; esac; }

# Records that must exist at the end ("<kind>-<tag>"); a missing one is a failure.
expected=()

# One step: set up <mpi> (with sanitizer <san>, may be empty) and run <suites> (cpp and/or
# python); the remaining arguments go to ctest.
run_step() { # <mpi> <san> <suites> [ctest args...]
  local mpi=$1 san=$2 suites=$3 tag log py skip_py start
  shift 3
  tag=$mpi$(san_suffix "$san")
  start=$SECONDS
  echo "=== $tag ==="
  if [[ -n $san && " $suites " == *" python "* ]]; then
    notes+=("$tag: python suite not run (dartpy is not built with sanitizers)")
    suites=${suites//python/}
  fi
  skip_py=${DART_SKIP_PYTHON:-0}
  [[ " $suites " == *" python "* ]] || skip_py=1
  # A sanitizer tree builds only what its tests run (the selection below is ctest's).
  if ! DART_MPIS=$mpi DART_SANITIZE=$san DART_SKIP_PYTHON=$skip_py \
      DART_BUILD_FOR_TESTS="${san:+$*}" bash "$REPO/scripts/setup.sh"; then
    failed=$((failed + 1))
    notes+=("$tag: setup/build failed")
    echo "scripts/setup.sh failed for $tag (see above)" >"$results/setup-$tag.missing"
    return
  fi
  if [[ " $suites " == *" cpp "* ]]; then
    expected+=("ctest-$tag")
    log=$logdir/ctest-$tag.log
    # ctest < 3.20 has no --test-dir, hence the cd.
    (cd "$REPO/_build/$tag" && ctest -j"$(nproc)" --output-on-failure --timeout 300 \
        --output-junit "$results/ctest-$tag.xml" "$@") 2>&1 | tee "$log" || true
    count_ctest "$log" "$tag ctest"
  fi
  if [[ " $suites " == *" python "* ]]; then
    expected+=("pytest-$tag")
    log=$logdir/pytest-$tag.log
    py=$REPO/_venv/$mpi/bin/python
    if [[ ! -x $py ]]; then
      failed=$((failed + 1))
      notes+=("$tag pytest: no venv at _venv/$mpi (DART_SKIP_PYTHON set?)")
    else
      echo "--- $tag: pytest tests/python ---"
      # 1800 s: includes tests/python/test_benchmarks.py (benchmarks/run all --quick, MPICH).
      # shellcheck disable=SC2086
      (cd "$REPO" && timeout -k 60 1800 "$py" -m pytest tests/python -q -p no:cacheprovider \
          --junitxml="$results/pytest-$tag.xml" ${DART_PYTEST_ARGS:-}) 2>&1 | tee "$log" || true
      count_pytest "$log" "$tag pytest"
    fi
  fi
  notes+=("step $tag ($suites): $((SECONDS - start)) s")
}

# The lint and docs steps: each a script that writes its results as JUnit XML.
script_step() { # <name> <script> <junit variable>
  local name=$1 script=$2 var=$3 start=$SECONDS
  echo "=== $name ==="
  expected+=("$name")
  if env "$var=$results/$name.xml" bash "$REPO/scripts/$script"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    notes+=("$name: failed (scripts/$script, see above)")
  fi
  notes+=("step $name: $((SECONDS - start)) s")
}
part_selected=0
if (($# > 0)) || [[ -n $SANITIZE || -n ${DART_TESTS:-} ]]; then part_selected=1; fi
want_step() { # <DART_CI_* value>: 0 or 1
  case $1 in 1) return 0 ;; 0) return 1 ;; *) ((part_selected == 0)) ;; esac
}

for mpi in $MPIS; do
  run_step "$mpi" "$SANITIZE" "$SUITES" "$@"
done

# After the setup, which installs what lint.sh needs to make its venv (python3-venv).
if want_step "${DART_CI_LINT:-auto}"; then script_step lint lint.sh DART_LINT_JUNIT; fi

if want_step "${DART_CI_DOCS:-auto}"; then
  docs_mpi=""
  for mpi in $MPIS; do
    if [[ -x $REPO/_venv/$mpi/bin/python ]]; then docs_mpi=$mpi; break; fi
  done
  if [[ -n $docs_mpi ]]; then
    DART_DOCS_MPI=$docs_mpi script_step docs docs.sh DART_DOCS_JUNIT
  else
    failed=$((failed + 1))
    notes+=("docs: no venv of $MPIS to build the docs with")
    echo "no venv of $MPIS (scripts/setup.sh failed?)" >"$results/docs.missing"
  fi
fi

san_steps=${DART_CI_SANITIZERS:-auto}
if [[ $san_steps == auto ]]; then
  san_steps=0
  if (($# == 0)) && [[ -z $SANITIZE && " $MPIS " == *" mpich "* && " $SUITES " == *" cpp "* ]]; then
    san_steps=1
  fi
fi
if [[ $san_steps == 1 ]]; then
  # ASan + UBSan: the C++ and Fortran tests at 2 units (all node emulations).
  run_step mpich address cpp -L '^n2$' -L '^(cpp|fortran)$'
  # TSan: the threaded stress tests. Until one exists (its ctest name contains
  # "threads"), the step records one skipped case that says so, instead of passing.
  run_step mpich thread cpp -R threads
  if grep -q 'No tests were found' "$logdir/ctest-mpich-tsan.log" 2>/dev/null; then
    cat >"$results/ctest-mpich-tsan.xml" <<'XML'
<testsuite name="tsan"><testcase name="tsan: no threaded stress test (ctest -R threads) in _build/mpich-tsan"><skipped message="no test matches -R threads yet"/></testcase></testsuite>
XML
  fi
fi

for n in "${notes[@]+"${notes[@]}"}"; do
  echo "[test] $n"
done
echo "tests: $passed passed, $failed failed"

# A runner that wrote no record (killed, crashed) is a failure of its own.
for rec in "${expected[@]+"${expected[@]}"}"; do
  [[ -s $results/$rec.xml ]] || echo "$rec wrote no results" >"$results/$rec.missing"
done

# The summary session: pytest from the first venv that has it.
summary_py=""
for mpi in $MPIS; do
  if "$REPO/_venv/$mpi/bin/python" -c 'import pytest' 2>/dev/null; then
    summary_py=$REPO/_venv/$mpi/bin/python
    break
  fi
done
echo "=== all results ==="
if [[ -n $summary_py ]]; then
  rc=0
  DART_RESULTS_DIR=$results "$summary_py" -m pytest "$REPO/tests/summary" --rootdir \
      "$REPO/tests/summary" -c "$REPO/tests/summary/pytest.ini" || rc=$?
  ((failed == 0 && rc == 0))
else
  ((failed == 0))
fi
