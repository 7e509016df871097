#!/usr/bin/env bash
# Set up DART-MPI on Debian 12: install the apt packages, then configure, build and install
# the library once per MPI. Idempotent; a second run only checks and takes seconds.
#
#   bash scripts/setup.sh
#
# Environment:
#   DART_MPIS         MPIs to build (default "mpich openmpi")
#   DART_PREFIX_BASE  install prefixes are $DART_PREFIX_BASE/<mpi> (default <repo>/_install)
#   DART_BUILD_TYPE   CMake build type for a new build tree (default Release)
# Build trees: <repo>/_build/<mpi>.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPIS=${DART_MPIS:-mpich openmpi}
PREFIX_BASE=${DART_PREFIX_BASE:-$REPO/_install}
BUILD_TYPE=${DART_BUILD_TYPE:-Release}

log() { echo "[setup] $*"; }
die() { echo "[setup] error: $*" >&2; exit 1; }

# --- 1. apt packages ------------------------------------------------------------------
PACKAGES=(
  build-essential g++ gfortran cmake ninja-build pkg-config git ca-certificates procps
  python3 python3-venv python3-dev python3-pip
  mpich libmpich-dev openmpi-bin libopenmpi-dev
  libgtest-dev googletest
)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  log "installing ${#missing[@]} apt packages: ${missing[*]}"
  SUDO=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || die "not root and no sudo: install ${missing[*]}"
    SUDO=(sudo)
  fi
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"
  log "apt packages ok"
fi

command -v cmake >/dev/null || die "cmake not on PATH after apt install"
if command -v ninja >/dev/null; then GENERATOR=Ninja; else GENERATOR="Unix Makefiles"; fi

# --- 2. configure, build, install per MPI ------------------------------------------------
failed=()
for mpi in $MPIS; do
  case $mpi in
    # The Fortran wrapper (mpifort.<mpi>) is derived from mpicc.<mpi> by CMakeLists.txt.
    mpich)   cc=/usr/bin/mpicc.mpich   cxx=/usr/bin/mpicxx.mpich   run=/usr/bin/mpiexec.mpich ;;
    openmpi) cc=/usr/bin/mpicc.openmpi cxx=/usr/bin/mpicxx.openmpi run=/usr/bin/mpiexec.openmpi ;;
    *) die "unknown MPI '$mpi' in DART_MPIS (use mpich and/or openmpi)" ;;
  esac
  build=$REPO/_build/$mpi
  prefix=$PREFIX_BASE/$mpi

  # (Re)configure when the tree is new, half-configured, or installs elsewhere. Otherwise
  # `cmake --build` re-runs CMake by itself when a CMakeLists.txt or a glob changed.
  cached_prefix="" cached_fortran=""
  if [[ -f $build/CMakeCache.txt ]]; then
    cached_prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:[A-Z]*=//p' "$build/CMakeCache.txt")
    cached_fortran=$(sed -n 's/^DART_ENABLE_FORTRAN:[A-Z]*=//p' "$build/CMakeCache.txt")
  fi
  if [[ ! -f $build/build.ninja && ! -f $build/Makefile ]] || [[ $cached_prefix != "$prefix" ]] \
      || [[ $cached_fortran != ON ]]; then
    gen=()
    [[ -f $build/CMakeCache.txt ]] || gen=(-G "$GENERATOR")
    log "$mpi: configure ($build)"
    mkdir -p "$build"
    if ! cmake -S "$REPO" -B "$build" "${gen[@]}" \
        -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
        -DCMAKE_INSTALL_PREFIX="$prefix" \
        -DMPI_C_COMPILER="$cc" -DMPI_CXX_COMPILER="$cxx" \
        -DMPIEXEC_EXECUTABLE="$run" -DDART_MPI_FLAVOR="$mpi" \
        -DDART_ENABLE_FORTRAN=ON \
        >"$build/configure.log" 2>&1; then
      cat "$build/configure.log" >&2
      log "$mpi: configure FAILED"
      failed+=("$mpi"); continue
    fi
  fi

  if ! cmake --build "$build" -j2; then
    log "$mpi: build FAILED"
    failed+=("$mpi"); continue
  fi
  log "$mpi: build ok"

  if ! cmake --install "$build" --prefix "$prefix" >"$build/install.log" 2>&1; then
    cat "$build/install.log" >&2
    log "$mpi: install FAILED"
    failed+=("$mpi"); continue
  fi
  log "$mpi: installed in $prefix"
done

if ((${#failed[@]})); then
  log "failed: ${failed[*]}"
  exit 1
fi
