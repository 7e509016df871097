#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main demo: set everything up (scripts/setup.sh; MPICH only unless DART_MPIS says
# otherwise), then run heat2d on 4 units in Python and in Fortran, each writing its field
# as one .npy file (every unit its block), show that the two files are identical byte for
# byte and that np.load reads them, and plot the field.
#
#   bash scripts/demo.sh
#
# Environment: DART_MPIS (default mpich; the first one listed runs the demo),
# DEMO_NX, DEMO_NY, DEMO_ITERS (default 96 x 128, 2000 iterations), DEMO_TIMEOUT (seconds
# per run, default 600). Output in _demo/.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export DART_MPIS=${DART_MPIS:-mpich}
NX=${DEMO_NX:-96}
NY=${DEMO_NY:-128}
ITERS=${DEMO_ITERS:-2000}

bash "$REPO/scripts/setup.sh"

mpi=${DART_MPIS%% *}
py=$REPO/_venv/$mpi/bin/python
heat_f=$REPO/_build/$mpi/examples/heat2d_f
out=$REPO/_demo
mkdir -p "$out"
[[ $mpi == mpich || $mpi == openmpi ]] || { echo "[demo] unknown MPI '$mpi'" >&2; exit 1; }
[[ -x $py && -x $heat_f ]] || { echo "[demo] missing $py or $heat_f" >&2; exit 1; }

# Jobs start through python/dartpy/launch.py: the mpiexec flags and environment of this
# MPI, and a time limit after which the whole job is killed (the demo then fails).
launch=(python3 "$REPO/python/dartpy/launch.py" --mpi "$mpi" -n 4)
limit=(--timeout "${DEMO_TIMEOUT:-600}")
shown=$("${launch[@]}" --dry-run -- python)  # the mpiexec command line, for the log
args=(--nx "$NX" --ny "$NY" --iters "$ITERS" --mode nonblocking)
echo
echo "[demo] heat2d, ${NX} x ${NY} grid, $ITERS Jacobi iterations, 4 units ($mpi), on distributed arrays (one update_halo per iteration)"
echo "[demo] Python:  $shown examples/python/heat2d.py ${args[*]}"
rm -f "$out/heat2d_python.npy" "$out/heat2d_fortran.npy"
"${launch[@]}" "${limit[@]}" -- "$py" "$REPO/examples/python/heat2d.py" "${args[@]}" \
  --out "$out/heat2d_python.npy" | sed 's/^/    /'
echo "[demo] Fortran: ${shown% python} _build/$mpi/examples/heat2d_f ${args[*]}"
"${launch[@]}" "${limit[@]}" -- "$heat_f" "${args[@]}" --out "$out/heat2d_fortran.npy" \
  | sed 's/^/    /'

if cmp -s "$out/heat2d_python.npy" "$out/heat2d_fortran.npy"; then
  # np.load reads both (the shape and dtype of the header; the values are the same bytes)
  loaded=$("$py" -c 'import sys, numpy as np
a, b = (np.load(f) for f in sys.argv[1:])
assert a.tobytes() == b.tobytes() and a.shape == b.shape
print(" x ".join(map(str, a.shape)), a.dtype)' "$out/heat2d_python.npy" "$out/heat2d_fortran.npy")
  sum=$(sha256sum "$out/heat2d_python.npy" | cut -c1-16)
  echo "[demo] the Python and Fortran fields are identical, byte for byte" \
       "(np.load: $loaded, sha256 $sum...)"
else
  echo "[demo] ERROR: the Python and Fortran fields differ" >&2
  cmp "$out/heat2d_python.npy" "$out/heat2d_fortran.npy" >&2 || true
  exit 1
fi
"$py" "$REPO/examples/python/plot_field.py" "$out/heat2d_python.npy" \
  --png "$out/heat2d.png" --title "heat2d: $NX x $NY, $ITERS iterations, 4 units"
echo "[demo] plot of the field: $out/heat2d.png"
