#!/usr/bin/env bash
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
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPIS=${DART_MPIS:-mpich openmpi}
SUITES=${DART_TESTS:-cpp python}

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

for mpi in $MPIS; do
  echo "=== $mpi ==="
  skip_py=${DART_SKIP_PYTHON:-0}
  [[ " $SUITES " == *" python "* ]] || skip_py=1
  if ! DART_MPIS=$mpi DART_SKIP_PYTHON=$skip_py bash "$REPO/scripts/setup.sh"; then
    failed=$((failed + 1))
    notes+=("$mpi: setup/build failed")
    echo "scripts/setup.sh failed for $mpi (see above)" >"$results/setup-$mpi.missing"
    continue
  fi
  if [[ " $SUITES " == *" cpp "* ]]; then
    log=$logdir/ctest-$mpi.log
    # ctest < 3.20 has no --test-dir, hence the cd.
    (cd "$REPO/_build/$mpi" && ctest -j"$(nproc)" --output-on-failure --timeout 300 \
        --output-junit "$results/ctest-$mpi.xml" "$@") 2>&1 | tee "$log" || true
    count_ctest "$log" "$mpi ctest"
  fi
  if [[ " $SUITES " == *" python "* ]]; then
    log=$logdir/pytest-$mpi.log
    py=$REPO/_venv/$mpi/bin/python
    if [[ ! -x $py ]]; then
      failed=$((failed + 1))
      notes+=("$mpi pytest: no venv at _venv/$mpi (DART_SKIP_PYTHON set?)")
    else
      echo "--- $mpi: pytest tests/python ---"
      # 1800 s: includes tests/python/test_benchmarks.py (benchmarks/run all --quick, MPICH).
      # shellcheck disable=SC2086
      (cd "$REPO" && timeout -k 60 1800 "$py" -m pytest tests/python -q -p no:cacheprovider \
          --junitxml="$results/pytest-$mpi.xml" ${DART_PYTEST_ARGS:-}) 2>&1 | tee "$log" || true
      count_pytest "$log" "$mpi pytest"
    fi
  fi
done

for n in "${notes[@]+"${notes[@]}"}"; do
  echo "[test] $n"
done
echo "tests: $passed passed, $failed failed"

# A runner that wrote no record (killed, crashed) is a failure of its own.
for mpi in $MPIS; do
  for suite in $SUITES; do
    kind=$([[ $suite == cpp ]] && echo ctest || echo pytest)
    [[ -e $results/setup-$mpi.missing || -s $results/$kind-$mpi.xml ]] ||
      echo "$kind for $mpi wrote no results" >"$results/$kind-$mpi.missing"
  done
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
