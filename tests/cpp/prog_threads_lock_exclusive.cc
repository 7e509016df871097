// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 UPN none 1 TIMEOUT 300 LABELS threads
//
// A DART lock is held by a thread, not by a unit (DART 3.2): with DART_THREAD_MULTIPLE,
// 4 threads on each of 2 units do N locked read-modify-write increments each of one
// counter in the last unit's memory (dart_get_blocking + dart_put_blocking), first with
// dart_lock_acquire, then with dart_lock_try_acquire retried until it succeeds. The
// counter must be exactly units * threads * N after each phase, and no two threads of
// one unit may ever be inside the critical section together. Then the per-thread rules:
// a thread cannot release a lock another thread of its unit holds, and a second acquire
// by the holding thread is an error (not recursive). N = 1,000 unless given as argv[1].
#include "prog_common.h"

#include <sched.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 4;

struct Shared {
  dart_lock_t lock = DART_LOCK_NULL;
  dart_gptr_t counter = DART_GPTR_NULL;
  std::atomic<int> inside{0};    // threads of this unit inside the critical section
  std::atomic<int> overlaps{0};  // times two were inside together
  std::atomic<int> errors{0};    // failed DART calls
};

void increments(Shared *s, long n, bool use_try) {
  for (long i = 0; i < n; ++i) {
    if (use_try) {
      int32_t got = 0;
      while (!got) {
        if (dart_lock_try_acquire(s->lock, &got) != DART_OK) {
          ++s->errors;
          return;
        }
        if (!got) sched_yield();
      }
    } else if (dart_lock_acquire(s->lock) != DART_OK) {
      ++s->errors;
      return;
    }
    if (s->inside.fetch_add(1) != 0) ++s->overlaps;
    long v = -1;
    if (dart_get_blocking(&v, s->counter, 1, DART_TYPE_LONG, DART_TYPE_LONG) != DART_OK)
      ++s->errors;
    ++v;
    if (dart_put_blocking(s->counter, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG) != DART_OK)
      ++s->errors;
    s->inside.fetch_sub(1);
    if (dart_lock_release(s->lock) != DART_OK) {
      ++s->errors;
      return;
    }
  }
}

// Runs one phase on kThreads threads and checks the counter on every unit.
void phase(Shared *s, long n, int units, bool use_try, const char *name) {
  const int me = prog::rank();
  if (me == units - 1) {
    long zero = 0;
    CHECK_OK(dart_put_blocking(s->counter, &zero, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(increments, s, n, use_try);
  for (auto &th : threads) th.join();
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  long final_v = -1;
  CHECK_OK(dart_get_blocking(&final_v, s->counter, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  const long want = (long)units * kThreads * n;
  if (final_v != want || s->overlaps != 0 || s->errors != 0)
    std::fprintf(stderr, "[rank %d] %s: counter %ld (want %ld), %d overlaps, %d errors\n", me, name,
                 final_v, want, s->overlaps.load(), s->errors.load());
  CHECK(final_v == want);
  CHECK(s->overlaps == 0);
  CHECK(s->errors == 0);
  s->overlaps = 0;
  s->errors = 0;
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

}  // namespace

int main(int argc, char **argv) {
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  prog::init_dart(&argc, &argv, true, &level);
  long N = 1000;
  if (argc > 1) N = std::strtol(argv[1], nullptr, 10);
  CHECK(level == DART_THREAD_MULTIPLE);
  size_t nu = 0;
  dart_size(&nu);
  const int n = (int)nu;

  Shared s;
  CHECK_OK(dart_team_lock_init(DART_TEAM_ALL, &s.lock));
  CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &s.counter));
  CHECK_OK(dart_gptr_setunit(&s.counter, DART_TEAM_UNIT_ID(n - 1)));

  phase(&s, N, n, false, "dart_lock_acquire");
  phase(&s, N, n, true, "dart_lock_try_acquire");

  // Per-thread ownership: the main thread holds the lock; another thread of this unit
  // can neither release it nor get it, and the holder cannot acquire it twice.
  CHECK_OK(dart_lock_acquire(s.lock));
  std::thread other([&] {
    CHECK_RC(DART_ERR_INVAL, dart_lock_release(s.lock));
    CHECK(std::strstr(dart_error_detail(), "another thread") != nullptr);
    int32_t got = -1;
    CHECK_OK(dart_lock_try_acquire(s.lock, &got));
    CHECK(got == 0);
  });
  other.join();
  CHECK_RC(DART_ERR_INVAL, dart_lock_acquire(s.lock));
  CHECK(std::strstr(dart_error_detail(), "already holds") != nullptr);
  CHECK_OK(dart_lock_release(s.lock));
  CHECK_RC(DART_ERR_INVAL, dart_lock_release(s.lock));  // released: nobody holds it here

  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(s.counter));
  CHECK_OK(dart_team_lock_destroy(&s.lock));
  return prog::end("prog_threads_lock_exclusive");
}
