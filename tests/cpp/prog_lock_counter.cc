// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 3 4 UPN none 1 2 TIMEOUT 900 LABELS stress NO_FAKE_HOSTS
//
// Lock stress: every unit does N locked read-modify-write increments of one shared counter
// (on the last unit) with dart_get_blocking + dart_put_blocking; the final value must be
// exactly units * N. N = 10,000 unless given as argv[1]. Prints the elapsed time and the
// time per lock cycle (acquire + get + put + release), so the cost of a hand-over on
// each configuration can be compared.
#include "prog_common.h"

#include <chrono>

int main(int argc, char **argv) {
  prog::init_dart(&argc, &argv);
  long N = 10000;
  if (argc > 1) N = std::strtol(argv[1], nullptr, 10);
  dart_global_unit_t u{-1};
  size_t nu = 0;
  dart_myid(&u);
  dart_size(&nu);
  const int me = u.id, n = (int)nu;
  if (me == 0) {
    const char *cfg = dart_config_string();
    std::printf("config: %s\nunits %d, N = %ld\n", cfg ? cfg : "(null)", n, N);
    std::fflush(stdout);
  }

  dart_lock_t lock = DART_LOCK_NULL;
  CHECK_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &g));
  dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(n - 1));
  if (me == n - 1) {
    long zero = 0;
    CHECK_OK(dart_put_blocking(g, &zero, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  auto t0 = std::chrono::steady_clock::now();
  long failures_before = prog::failures();
  for (long i = 0; i < N; ++i) {
    dart_ret_t a = dart_lock_acquire(lock);
    long v = -1;
    dart_ret_t b = dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    ++v;
    dart_ret_t c = dart_put_blocking(g, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    dart_ret_t d = dart_lock_release(lock);
    if (a != DART_OK || b != DART_OK || c != DART_OK || d != DART_OK) {
      CHECK_OK(a);
      CHECK_OK(b);
      CHECK_OK(c);
      CHECK_OK(d);
      if (prog::failures() - failures_before > 8) break;  // do not flood the log
    }
  }
  double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, prog::comm());

  long final_v = -1;
  CHECK_OK(dart_get_blocking(&final_v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK(final_v == (long)n * N);
  if (me == 0) {
    std::printf(
        "counter %ld (want %ld); elapsed %.3f s (slowest unit %.3f s); "
        "%.2f us per lock cycle (%ld cycles)\n",
        final_v, (long)n * N, total, slowest, N > 0 ? total * 1e6 / ((double)n * N) : 0.0,
        (long)n * N);
    std::fflush(stdout);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(g));
  CHECK_OK(dart_team_lock_destroy(&lock));
  return prog::end("prog_lock_counter");
}
