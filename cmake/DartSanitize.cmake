# SPDX-License-Identifier: BSD-3-Clause
# DartSanitize.cmake: build the library, the Fortran bindings and the tests with a
# sanitizer (examples and benchmarks are left out of a sanitizer tree), and give every MPI
# test the sanitizer's runtime options.
#
#   -DDART_SANITIZE=address   AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer
#                             included); scripts/setup.sh builds it in _build/<mpi>-asan
#   -DDART_SANITIZE=thread    ThreadSanitizer; _build/<mpi>-tsan
#
# The MPI library itself is not instrumented. The suppressions (only for the MPI
# library's own findings, each entry says why) are checked in under tests/sanitizers/;
# DART_SANITIZER_ENV holds the runtime options as NAME=VALUE for dart_add_mpi_test
# (cmake/DartMpiTest.cmake), which passes them to every rank. A finding fails the test:
# ASan and UBSan stop at the first report (halt_on_error, -fno-sanitize-recover), LSan
# exits non-zero after its report, TSan exits with status 66 after reporting.
set(DART_SANITIZE "" CACHE STRING "Sanitizer build: address (ASan+UBSan), thread (TSan), or empty")
set_property(CACHE DART_SANITIZE PROPERTY STRINGS "" address thread)

set(DART_SANITIZER_ENV "")
set(_dart_san_dir "${CMAKE_CURRENT_LIST_DIR}/../tests/sanitizers")
get_filename_component(_dart_san_dir "${_dart_san_dir}" ABSOLUTE)

if(DART_SANITIZE STREQUAL "address")
  set(_dart_san_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  set(DART_SANITIZER_ENV
      # detect_leaks: LeakSanitizer at exit (on by default on x86_64; said explicitly).
      "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1"
      "LSAN_OPTIONS=suppressions=${_dart_san_dir}/lsan.supp:print_suppressions=0"
      "UBSAN_OPTIONS=suppressions=${_dart_san_dir}/ubsan.supp:print_stacktrace=1:halt_on_error=1"
      # MPICH's hwloc loads its PCI plugin at MPI_Init and unloads it at MPI_Finalize,
      # which leaves 1016 bytes that LSan reports from an unknown (unloaded) module, so no
      # suppression line can name them (tests/sanitizers/lsan.supp); PCI discovery is off.
      "HWLOC_COMPONENTS=-pci")
elseif(DART_SANITIZE STREQUAL "thread")
  set(_dart_san_flags -fsanitize=thread -fno-omit-frame-pointer)
  # UCX_MEM_*: UCX's memory hooks (MPICH ch4:ucx) crash TSan's runtime at thread exit
  # before any report (tests/sanitizers/tsan.supp); off for the TSan runs.
  # MPIR_CVAR_SHM_SYMHEAP_RETRY=0: MPICH first tries to map a shared-memory window at one
  # random address in every process; under TSan (whose shadow mappings take much of the
  # address space) the attempt fails often, and MPICH leaves each failed attempt's
  # /dev/shm/mpich_shar_tmp* file behind (prog_threads_stress: ~225 files of 8 KiB per
  # run). With 0 it maps without the symmetric attempt: no file is left.
  set(DART_SANITIZER_ENV
      "TSAN_OPTIONS=suppressions=${_dart_san_dir}/tsan.supp:second_deadlock_stack=1:halt_on_error=1:exitcode=66"
      "UCX_MEM_MMAP_HOOK_MODE=none" "UCX_MEM_MALLOC_HOOKS=no" "MPIR_CVAR_SHM_SYMHEAP_RETRY=0")
elseif(NOT DART_SANITIZE STREQUAL "")
  message(FATAL_ERROR "DART_SANITIZE must be address, thread or empty, not '${DART_SANITIZE}'")
endif()

if(_dart_san_flags)
  if(DART_BUILD_PYTHON)
    # An instrumented extension would need the sanitizer runtime preloaded into Python.
    message(FATAL_ERROR "DART_SANITIZE is for the C/C++/Fortran build, not for dartpy")
  endif()
  # Every language (C, C++, Fortran) and every target of this project, compile and link.
  add_compile_options(${_dart_san_flags})
  add_link_options(${_dart_san_flags})
  message(STATUS "DART-MPI sanitizer build: ${DART_SANITIZE} (${_dart_san_flags})")
endif()
