#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# install_check.sh BUILD_DIR WORK_DIR SOURCE_DIR FLAVOR
#
# Installs the build tree BUILD_DIR into WORK_DIR/prefix and builds SOURCE_DIR/solver.f90
# against that installation the three documented ways, then runs each on 1 and 2 units:
#   1. $(dart-config --fc) solver.f90 $(dart-config --fflags) $(dart-config --flibs)
#   2. $(pkg-config --variable=mpifort dart-mpi-fortran) solver.f90 \
#        $(pkg-config --cflags --libs dart-mpi-fortran)   (--define-prefix: a moved copy)
#   3. CMake: find_package(DartMPI COMPONENTS Fortran) + DartMPI::dartmpi_f
# Fails (non-zero exit) at the first step that does not work.
set -euo pipefail
build=$1 work=$2 src=$3 flavor=$4

step() { echo "[install_check] $*"; }
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

export PATH=$prefix/bin:$PATH
step "module files: $(cd "$prefix" && ls -d include/dart-mpi/fortran/*/dart.mod)"
test -f "$prefix/lib/cmake/DartMPI/DartMPIFortranTargets.cmake"
test -f "$prefix/lib/pkgconfig/dart-mpi-fortran.pc"

launch=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/python/dartpy/launch.py
run() { # <units> <exe>: under the installation's mpiexec, flags and environment of launch.py
  python3 "$launch" --mpi "$flavor" --mpiexec "$(dart-config --mpiexec)" -n "$1" \
    --timeout 120 -- "$2"
}

check_run() { # <exe>
  local out
  for n in 1 2; do
    out=$(run "$n" "$1" 2>&1) || { echo "$out"; step "FAILED: $1 on $n units"; exit 1; }
    echo "$out"
    grep -q "solver: OK" <<<"$out" || { step "FAILED: no 'solver: OK' from $1 on $n units"; exit 1; }
  done
}

step "1. dart-config: $(dart-config --fc) solver.f90 $(dart-config --fflags) $(dart-config --flibs)"
# The flags are word lists, split on purpose (the README's command lines).
# shellcheck disable=SC2046
(cd "$work" && $(dart-config --fc) "$src/solver.f90" $(dart-config --fflags) \
   $(dart-config --flibs) -o solver_dart_config)
check_run "$work/solver_dart_config"

# The .pc files name the configured prefix; --define-prefix points them at this copy.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
pc() { pkg-config --define-prefix "$@"; }
fc=$(pc --variable=mpifort dart-mpi-fortran)
step "2. pkg-config: $fc solver.f90 $(pc --cflags --libs dart-mpi-fortran)"
# shellcheck disable=SC2046
(cd "$work" && "$fc" "$src/solver.f90" $(pc --cflags --libs dart-mpi-fortran) \
   -o solver_pkg_config)
check_run "$work/solver_pkg_config"

step "3. CMake find_package(DartMPI COMPONENTS Fortran)"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$src" -B "$work/cmake-build" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/cmake-configure.log" 2>&1 \
  || { cat "$work/cmake-configure.log"; step "FAILED: CMake configure"; exit 1; }
cmake --build "$work/cmake-build" >"$work/cmake-build.log" 2>&1 \
  || { cat "$work/cmake-build.log"; step "FAILED: CMake build"; exit 1; }
check_run "$work/cmake-build/solver"

step "all three builds against the installed package work"
