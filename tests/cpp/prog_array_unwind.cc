// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 1 2 3 UPN none 1 TIMEOUT 120
//
// Issue 37: the destructor of dart::Array does not enter its collective free while an
// exception unwinds (dart_array.hpp, docs/error-contract.md).
//
//   prog_array_unwind          (ctest, every placement above) every unit throws while
//                              an array lives: each destructor skips the free, the array
//                              stays (its memory answers dart_gptr_getaddr), the handler
//                              frees it by its handle on every unit (they all threw
//                              alike); an array destroyed without an exception is gone;
//                              the runtime works on and finalizes.
//   prog_array_unwind one      (prog_array_unwind.one.*, run through check_abort.cmake)
//                              only the last unit throws; the others wait in a barrier.
//                              Its destructor must not wait for them in the free: its
//                              handler is reached and ends the job with dart_abort and a
//                              message (a destructor that freed would hang the job).
#include "prog_common.h"

#include <dash/dart/if/dart_array.h>
#include <dash/dart/if/dart_array.hpp>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace {

// Whether the memory of the array whose block-0 gptr is g still exists.
bool alive(dart_gptr_t g) {
  void *addr = nullptr;
  dart_gptr_setunit(&g, dart_team_unit_t{0});
  return dart_gptr_getaddr(g, &addr) == DART_OK;
}

void every_unit_throws() {
  dart_array_t handle = DART_ARRAY_NULL;
  dart_gptr_t mem = DART_GPTR_NULL;
  bool caught = false;
  try {
    dart::Array<double> u({8, 8}, dart::ArrayOptions().halo(1));
    handle = u.handle();
    mem = u.info().gptr;
    CHECK(alive(mem));
    throw std::runtime_error("every unit fails alike");
  } catch (const std::runtime_error &) {
    caught = true;
  }
  CHECK(caught);
  // The destructor skipped the free: the memory is still there, on every unit.
  CHECK(alive(mem));
  // Every unit threw, so the handler may free it collectively by its handle.
  CHECK_RC(DART_OK, dart_array_destroy(&handle));
  CHECK(!alive(mem));

  // Without an exception the destructor frees (the control).
  dart_gptr_t mem2 = DART_GPTR_NULL;
  {
    dart::Array<int> v({4 * 3});
    mem2 = v.info().gptr;
    CHECK(alive(mem2));
  }
  CHECK(!alive(mem2));

  // An array made while an exception is already in flight (a destructor's own work) is
  // freed by its destructor there: only the exceptions raised after its creation count.
  struct Cleanup {
    dart_gptr_t *out;
    ~Cleanup() {
      dart::Array<float> w({6});
      *out = w.info().gptr;
    }
  };
  dart_gptr_t mem3 = DART_GPTR_NULL;
  try {
    Cleanup c{&mem3};
    throw std::runtime_error("unwinding");
  } catch (const std::runtime_error &) {
  }
#if defined(__cpp_lib_uncaught_exceptions) && __cpp_lib_uncaught_exceptions >= 201411L
  CHECK(!alive(mem3));
#endif

  // Still usable: a new array, a reduction.
  dart::Array<double> x({5});
  for (int64_t i = x.lo(0); i < x.hi(0); ++i) x(i) = 2.0;
  CHECK(x.sum() == 10.0);
}

// Only the last unit throws; the others wait in a barrier that it never joins.
[[noreturn]] void one_unit_throws(int me, int n) {
  try {
    dart::Array<double> u({(int64_t)n * 4});
    if (me == n - 1) throw std::runtime_error("a solver failed on this unit only");
    dart_barrier(DART_TEAM_ALL);  // never completes: the last unit does not come
  } catch (const std::exception &e) {
    std::fprintf(stderr, "unit %d caught: %s; ending the job\n", me, e.what());
    std::fflush(stderr);
    dart_abort(3);
  }
  std::fprintf(stderr, "unit %d: the barrier completed without the last unit\n", me);
  dart_abort(4);
}

}  // namespace

int main(int argc, char **argv) {
  const bool one = argc > 1 && std::strcmp(argv[1], "one") == 0;
  prog::init_dart(&argc, &argv);
  size_t n = 0;
  dart_size(&n);
  const int me = prog::rank();
  if (one) one_unit_throws(me, (int)n);
  every_unit_throws();
  return prog::end("prog_array_unwind");
}
