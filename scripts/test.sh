#!/usr/bin/env bash
# Set everything up (scripts/setup.sh) and run every test, for each MPI.
#
#   bash scripts/test.sh [ctest arguments, e.g. -R test_init -L n2]
#
# Keeps going after a failing MPI; the last line is `tests: <P> passed, <F> failed` and
# the exit status is non-zero if anything failed (including a failed build).
# DART_MPIS selects the MPIs (default "mpich openmpi").
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPIS=${DART_MPIS:-mpich openmpi}

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

logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

for mpi in $MPIS; do
  echo "=== $mpi ==="
  if ! DART_MPIS=$mpi bash "$REPO/scripts/setup.sh"; then
    failed=$((failed + 1))
    notes+=("$mpi: setup/build failed")
    continue
  fi
  log=$logdir/ctest-$mpi.log
  # ctest < 3.20 has no --test-dir, hence the cd.
  (cd "$REPO/_build/$mpi" && ctest -j2 --output-on-failure --timeout 300 "$@") 2>&1 \
    | tee "$log" || true
  count_ctest "$log" "$mpi ctest"
done

# --- Python tests (pytest) -----------------------------------------------------------------
# To be added with the Python bindings: run them here for each MPI and add their counts to
# $passed / $failed (pytest's "N passed, M failed" line), like count_ctest does.
# ---------------------------------------------------------------------------------------------

for n in "${notes[@]+"${notes[@]}"}"; do
  echo "[test] $n"
done
echo "tests: $passed passed, $failed failed"
((failed == 0))
