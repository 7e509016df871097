#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up DART-MPI on Debian 12: install the apt packages, then configure, build and install
# the library once per MPI. Idempotent; a second run only checks and takes seconds.
#
#   bash scripts/setup.sh
#
# Environment:
#   DART_MPIS         MPIs to build (default "mpich openmpi")
#   DART_PREFIX_BASE  install prefixes are $DART_PREFIX_BASE/<mpi> (default <repo>/_install)
#   DART_BUILD_TYPE   CMake build type for a new build tree (default Release)
#   DART_PYTHON       interpreter for the Python venvs (default /usr/bin/python3)
#   DART_SKIP_PYTHON  1: skip step 3 (Python venvs)
#   DART_SANITIZE     address (ASan + UBSan) or thread (TSan): build a sanitizer tree
#                     <repo>/_build/<mpi>-asan or -tsan (cmake/DartSanitize.cmake) for the
#                     C++ and Fortran tests only: no install, no Python step
#   DART_BUILD_FOR_TESTS  with DART_SANITIZE: ctest selection arguments (e.g. "-R threads");
#                     only the library and the programs those tests run are built
#   DART_WERROR       1: compiler warnings are errors (CMake DART_WERROR=ON); the default is
#                     1 when CI=true (CI builds must be warning-free), else 0
# Build trees: <repo>/_build/<mpi>. Python environments: <repo>/_venv/<mpi>.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPIS=${DART_MPIS:-mpich openmpi}
PREFIX_BASE=${DART_PREFIX_BASE:-$REPO/_install}
BUILD_TYPE=${DART_BUILD_TYPE:-Release}
SANITIZE=${DART_SANITIZE:-}
if [[ ${CI:-} == true ]]; then WERROR=${DART_WERROR:-1}; else WERROR=${DART_WERROR:-0}; fi
# Not for the sanitizer trees: GCC warns about what a sanitizer does not support (e.g.
# -Wtsan on atomic_thread_fence), which says nothing about the code.
if [[ $WERROR == 1 && -z $SANITIZE ]]; then WERROR=ON; else WERROR=OFF; fi
case $SANITIZE in
  "") tree_suffix="" ;;
  address) tree_suffix=-asan ;;
  thread) tree_suffix=-tsan ;;
  *) echo "[setup] error: DART_SANITIZE must be address or thread, not '$SANITIZE'" >&2; exit 1 ;;
esac

log() { echo "[setup] $*"; }
die() { echo "[setup] error: $*" >&2; exit 1; }

# --- 1. apt packages ------------------------------------------------------------------
PACKAGES=(
  build-essential g++ gfortran cmake ninja-build pkg-config git ca-certificates procps
  python3 python3-venv python3-dev python3-pip
  mpich libmpich-dev openmpi-bin libopenmpi-dev
  libgtest-dev googletest
  # NUMA and core detail of the locality API; the build works without it (sysfs).
  libhwloc-dev
  # Parallel HDF5 of each MPI, for the arrays' HDF5 files (cpp/src/array/h5.cc); they
  # install side by side (/usr/include/hdf5/<mpi>, /usr/lib/<multiarch>/hdf5/<mpi>) and
  # the build works without them (cmake/DartHDF5.cmake).
  libhdf5-mpich-dev libhdf5-openmpi-dev
  # The API references of the documentation site (scripts/docs.sh; it installs it too).
  doxygen
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
  build=$REPO/_build/$mpi$tree_suffix
  prefix=$PREFIX_BASE/$mpi$tree_suffix

  # (Re)configure when the tree is new, half-configured, or installs elsewhere. Otherwise
  # `cmake --build` re-runs CMake by itself when a CMakeLists.txt or a glob changed.
  cached_prefix="" cached_fortran="" cached_sanitize="" cached_werror=""
  if [[ -f $build/CMakeCache.txt ]]; then
    cached_prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:[A-Z]*=//p' "$build/CMakeCache.txt")
    cached_fortran=$(sed -n 's/^DART_ENABLE_FORTRAN:[A-Z]*=//p' "$build/CMakeCache.txt")
    cached_sanitize=$(sed -n 's/^DART_SANITIZE:[A-Z]*=//p' "$build/CMakeCache.txt")
    cached_werror=$(sed -n 's/^DART_WERROR:[A-Z]*=//p' "$build/CMakeCache.txt")
  fi
  if [[ ! -f $build/build.ninja && ! -f $build/Makefile ]] || [[ $cached_prefix != "$prefix" ]] \
      || [[ $cached_fortran != ON ]] || [[ $cached_sanitize != "$SANITIZE" ]] \
      || [[ $cached_werror != "$WERROR" ]]; then
    gen=()
    [[ -f $build/CMakeCache.txt ]] || gen=(-G "$GENERATOR")
    log "$mpi$tree_suffix: configure ($build)"
    mkdir -p "$build"
    if ! cmake -S "$REPO" -B "$build" "${gen[@]}" \
        -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
        -DCMAKE_INSTALL_PREFIX="$prefix" \
        -DMPI_C_COMPILER="$cc" -DMPI_CXX_COMPILER="$cxx" \
        -DMPIEXEC_EXECUTABLE="$run" -DDART_MPI_FLAVOR="$mpi" \
        -DDART_ENABLE_FORTRAN=ON -DDART_SANITIZE="$SANITIZE" -DDART_WERROR="$WERROR" \
        >"$build/configure.log" 2>&1; then
      cat "$build/configure.log" >&2
      log "$mpi: configure FAILED"
      failed+=("$mpi"); continue
    fi
  fi

  targets=()
  if [[ -n $SANITIZE && -n ${DART_BUILD_FOR_TESTS:-} ]]; then
    # The library first (it re-runs CMake when a CMakeLists.txt changed, so the test list
    # is current), then the programs of the selected tests, named by ctest itself.
    # shellcheck disable=SC2086
    if cmake --build "$build" -j"$(nproc)" --target dartmpi >/dev/null; then
      mapfile -t targets < <(cd "$build" && ctest --show-only=json-v1 $DART_BUILD_FOR_TESTS |
        python3 -c 'import json, os, re, sys
# Programs of the build tree anywhere in a command: also inside a driver'"'"'s argument
# (the abort tests pass "-DCMD=mpiexec|...|<build>/tests/fortran/fprog_abort|put").
path = re.compile(re.escape(sys.argv[1]) + r"/[^|;=\s]+")
names = {os.path.basename(p) for t in json.load(sys.stdin)["tests"]
         for c in t.get("command", []) for p in path.findall(c)}
print("\n".join(sorted(n for n in names if "." not in n)))' "$build")
    fi
    ((${#targets[@]})) || targets=(all)
    log "$mpi$tree_suffix: building for the selected tests: ${targets[*]}"
  fi
  if ! cmake --build "$build" -j"$(nproc)" ${targets[@]+--target "${targets[@]}"}; then
    log "$mpi$tree_suffix: build FAILED"
    failed+=("$mpi"); continue
  fi
  log "$mpi$tree_suffix: build ok"
  # A sanitizer tree is for its own tests; its library is never installed.
  [[ -z $SANITIZE ]] || continue

  if ! cmake --install "$build" --prefix "$prefix" >"$build/install.log" 2>&1; then
    cat "$build/install.log" >&2
    log "$mpi: install FAILED"
    failed+=("$mpi"); continue
  fi
  log "$mpi: installed in $prefix"
done

# --- 3. Python: one venv per MPI with numpy, pytest, mpi4py and dartpy -----------------
# mpi4py is built from source against the same MPI (PyPI's wheels and Debian's package may
# use another one); dartpy is `pip install .` with build isolation, MPICC naming the MPI.
# Each step is skipped when already satisfied; dartpy is reinstalled only when the hash of
# its sources (cpp/ python/ pyproject.toml CMakeLists.txt VERSION cmake/) changed.
PYTHON=${DART_PYTHON:-/usr/bin/python3}
dartpy_hash() {
  (cd "$REPO" && find cpp python cmake pyproject.toml CMakeLists.txt VERSION -type f \
      ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z \
      | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
}
if [[ ${DART_SKIP_PYTHON:-0} != 1 && -z $SANITIZE ]]; then
  src_hash=$(dartpy_hash)
  for mpi in $MPIS; do
    [[ " ${failed[*]} " == *" $mpi "* ]] && continue
    cc=/usr/bin/mpicc.$mpi
    venv=$REPO/_venv/$mpi
    py=$venv/bin/python
    if [[ ! -x $py ]]; then
      log "$mpi: creating venv $venv ($PYTHON)"
      if ! "$PYTHON" -m venv "$venv"; then
        log "$mpi: venv FAILED"; failed+=("$mpi"); continue
      fi
    fi
    pip=("$py" -m pip install -q --disable-pip-version-check)
    # numpy and pytest for dartpy and its tests; nbclient, ipykernel and matplotlib for the
    # notebooks (executed by tests/python/test_notebooks.py) and the demo's plot; mypy for
    # the check of the stubs (tests/python/test_docs.py, mypy.stubtest); ipyparallel for
    # the notebook sessions (the extra dart-mpi[notebook]; tests/python/test_session.py);
    # h5py (a serial wheel), xarray and h5netcdf read the HDF5 files DART writes, and
    # dask reads a dart.Array block by block (tests/python).
    if ! "$py" -c 'import numpy, pytest, nbclient, nbformat, ipykernel, matplotlib, mypy, ipyparallel, h5py, xarray, h5netcdf, dask.array' 2>/dev/null; then
      log "$mpi: pip install numpy pytest nbclient nbformat ipykernel matplotlib mypy ipyparallel h5py xarray h5netcdf dask"
      "${pip[@]}" numpy pytest nbclient nbformat ipykernel matplotlib mypy 'ipyparallel>=9.2' h5py xarray h5netcdf 'dask[array]' ||
        { log "$mpi: pip FAILED"; failed+=("$mpi"); continue; }
    fi
    # mpi4py: rebuilt when missing, broken, or built with another wrapper. No pip cache:
    # a wheel built against the other MPI must never be reused.
    if [[ $(cat "$venv/.mpi4py-mpicc" 2>/dev/null) != "$cc" ]] ||
       ! "$py" -c 'import mpi4py; assert int(mpi4py.__version__.split(".")[0]) >= 4' 2>/dev/null; then
      log "$mpi: building mpi4py from source with MPICC=$cc"
      # -g0: mpi4py's generated MPI.c takes minutes to compile with debug info.
      if ! MPICC=$cc CFLAGS="${CFLAGS:-} -g0" "${pip[@]}" --no-cache-dir --no-binary=mpi4py --force-reinstall \
          --no-deps 'mpi4py>=4'; then
        log "$mpi: mpi4py FAILED"; failed+=("$mpi"); continue
      fi
      echo "$cc" >"$venv/.mpi4py-mpicc"
    fi
    if [[ $(cat "$venv/.dartpy-stamp" 2>/dev/null) != "$src_hash" ]] ||
       ! "$py" -c 'import dartpy' 2>/dev/null; then
      log "$mpi: pip install . (dartpy, MPICC=$cc)"
      rm -f "$venv/.dartpy-stamp"
      if ! MPICC=$cc "${pip[@]}" --no-cache-dir "$REPO" >"$venv/dartpy-install.log" 2>&1; then
        tail -n 40 "$venv/dartpy-install.log" >&2
        log "$mpi: dartpy install FAILED (log: $venv/dartpy-install.log)"
        failed+=("$mpi"); continue
      fi
      echo "$src_hash" >"$venv/.dartpy-stamp"
    fi
    log "$mpi: python venv ok ($venv)"
  done
fi

if ((${#failed[@]})); then
  log "failed: ${failed[*]}"
  exit 1
fi
