#!/usr/bin/env bash
# Set everything up (scripts/setup.sh), then compile examples/c/hello_dart.c against the
# INSTALLED MPICH build with dart-config, exactly as a user would, and run it on 4 units.
#
#   bash scripts/demo.sh
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${DART_PREFIX_BASE:-$REPO/_install}/mpich
SRC=$REPO/examples/c/hello_dart.c
OUT=$REPO/_build/demo/hello_dart

if [[ ! -f $SRC ]]; then
  echo "[demo] error: $SRC does not exist yet (the hello-world example is not written)" >&2
  exit 1
fi

# Builds and installs every MPI in DART_MPIS (default both); the demo uses the MPICH one.
bash "$REPO/scripts/setup.sh"

dart_config=$PREFIX/bin/dart-config
[[ -x $dart_config ]] || { echo "[demo] error: $dart_config missing (is mpich in DART_MPIS?)" >&2; exit 1; }

mkdir -p "$(dirname "$OUT")"
echo "[demo] compiling $SRC with $dart_config"
# Word splitting of the dart-config output is intended.
# shellcheck disable=SC2046
"$("$dart_config" --cc)" "$SRC" $("$dart_config" --cflags) $("$dart_config" --libs) -o "$OUT"

echo "[demo] mpiexec.mpich -n 4 $OUT"
exec "$("$dart_config" --mpiexec)" -n 4 "$OUT"
