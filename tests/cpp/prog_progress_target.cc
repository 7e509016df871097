// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 3 PROGRESS_ONLY TIMEOUT 180 LABELS progress
//
// Target side of the progress processes (issue 14): while the LAST unit computes (a loop
// without any DART or MPI call), unit 0 on another (emulated) node gets from and puts to
// its memory, runs fetch_and_ops on it and acquires a lock whose MCS tail it holds. With
// DART_PROGRESS_PER_NODE=1 the progress process of the target's node answers, so every
// one of these completes while the target still computes. The proof is not a timer: the
// target publishes its loop counter and an "in the loop" state in node shared memory
// (prog_progress.h, SharedWords), which unit 0 reads after each operation.
//
// The target's loop ends when unit 0 says it is done, or after a cap (argument 1, seconds,
// default 5) that is only reached when an operation stalls: then the operations complete
// once the target enters MPI again, and the program reports each as STALLED and fails.
// Run without DART_PROGRESS_PER_NODE under MPICH (no progress processes, emulated nodes)
// to see that the test can fail. Registered with progress processes only (PROGRESS_ONLY:
// the .n2.prog1, .n2.upn1.prog1 and .n3.upn2.prog1 placements; in the last the computing
// unit is alone on the second node). On one node (.n2.prog1) it passes without showing
// anything.
#include "prog_progress.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr const char *kName = "prog_progress_target";
constexpr size_t kElems = 4096;  // longs per unit
constexpr size_t kBlock = 1024;  // elements of one get / put

// Words of SharedWords: the target's
constexpr int kState = 0;    // 1: in the compute loop, 2: left it
constexpr int kCounter = 1;  // loop iterations so far
constexpr int kFinal = 2;    // iterations when it left the loop
// and unit 0's
constexpr int kDone = 0;  // 1: all operations issued and checked

long pattern(int unit, size_t i) { return 1000000L * (unit + 1) + static_cast<long>(i); }

// After an operation on the target's memory: was the target still computing?
void report(prog::SharedWords &sw, int target, const char *op) {
  const uint64_t state = sw.load(target, kState);
  const uint64_t count = sw.load(target, kCounter);
  if (state == 1) {
    std::printf("%s: %s completed while unit %d computed (its counter: %llu)\n", kName, op, target,
                static_cast<unsigned long long>(count));
  } else {
    std::printf(
        "%s: STALLED: %s completed only after unit %d stopped computing (final "
        "count %llu)\n",
        kName, op, target, static_cast<unsigned long long>(sw.load(target, kFinal)));
  }
  std::fflush(stdout);
  CHECK(state == 1 && "the operation completed while the target computed");
}

// Unit 0: every kind of access that needs the target's side, one after another.
void origin(prog::SharedWords &sw, int target, dart_gptr_t g, dart_lock_t lock) {
  if (!sw.wait_at_least(target, kState, 1)) {
    CHECK(!"the target never entered its compute loop");
    return;
  }
  dart_gptr_t t = g;
  dart_gptr_setunit(&t, dart_team_unit_t{target});

  std::vector<long> buf(kBlock, -1);
  CHECK_OK(dart_get_blocking(buf.data(), t, kBlock, DART_TYPE_LONG, DART_TYPE_LONG));
  report(sw, target, "dart_get_blocking");
  bool same = true;
  for (size_t i = 0; i < kBlock; ++i) same = same && buf[i] == pattern(target, i);
  CHECK(same);

  dart_gptr_t p = t;
  dart_gptr_incaddr(&p, kBlock * sizeof(long));
  for (size_t i = 0; i < kBlock; ++i) buf[i] = -static_cast<long>(i) - 1;
  CHECK_OK(dart_put_blocking(p, buf.data(), kBlock, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_flush(p));
  report(sw, target, "dart_put_blocking + dart_flush");
  std::vector<long> back(kBlock, 0);
  CHECK_OK(dart_get_blocking(back.data(), p, kBlock, DART_TYPE_LONG, DART_TYPE_LONG));
  report(sw, target, "dart_get_blocking of the put data");
  CHECK(back == buf);

  dart_gptr_t a = t;
  dart_gptr_incaddr(&a, 2 * kBlock * sizeof(long));
  long add = 5, old = 0;
  CHECK_OK(dart_fetch_and_op(a, &add, &old, DART_TYPE_LONG, DART_OP_SUM));
  report(sw, target, "dart_fetch_and_op(SUM)");
  CHECK(old == pattern(target, 2 * kBlock));
  CHECK_OK(dart_fetch_and_op(a, &add, &old, DART_TYPE_LONG, DART_OP_NO_OP));
  report(sw, target, "dart_fetch_and_op(NO_OP)");
  CHECK(old == pattern(target, 2 * kBlock) + 5);

  CHECK_OK(dart_lock_acquire(lock));
  report(sw, target, "dart_lock_acquire (MCS tail on the target)");
  CHECK_OK(dart_lock_release(lock));
  report(sw, target, "dart_lock_release");
  int32_t got = 0;
  CHECK_OK(dart_lock_try_acquire(lock, &got));
  report(sw, target, "dart_lock_try_acquire");
  CHECK(got == 1);
  if (got) CHECK_OK(dart_lock_release(lock));
}

// The target: computes, publishing its counter, until unit 0 is done or the cap passes.
void target_compute(prog::SharedWords &sw, int me, double cap_s) {
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t i = 0;
  sw.store(me, kState, 1);
  for (;;) {
    prog::compute_step();
    sw.store(me, kCounter, ++i);
    if (sw.load(0, kDone)) break;
    if ((i & 15) == 0 && prog::seconds_since(t0) > cap_s) break;
  }
  sw.store(me, kFinal, i);
  sw.store(me, kState, 2);
  std::printf("%s: unit %d computed %llu steps in %.2f s%s\n", kName, me,
              static_cast<unsigned long long>(i), prog::seconds_since(t0),
              sw.load(0, kDone) ? "" : " (the cap: the operations did not finish meanwhile)");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  const double cap_s = argc > 1 ? std::atof(argv[1]) : 5.0;
  prog::Start s;
  prog::start(&s, kName, &argc, &argv);
  // On one node the operations are loads, stores and CPU atomics, which need nothing from
  // the target: the program then runs but shows nothing about progress.
  if (s.ok && s.same_node && s.me == 0)
    std::printf("%s: the same node: no test of the target side\n", kName);
  if (s.ok) {
    const int target = s.target;
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kElems, DART_TYPE_LONG, &g));
    dart_gptr_t mine = g;
    dart_gptr_setunit(&mine, dart_team_unit_t{s.me});
    long *local = nullptr;
    CHECK_OK(dart_gptr_getaddr(mine, reinterpret_cast<void **>(&local)));
    for (size_t i = 0; i < kElems; ++i) local[i] = pattern(s.me, i);
    // Lock k of a team has its MCS tail on team unit k mod size (lock.cc): the
    // (target+1)-th lock of DART_TEAM_ALL has it on the target.
    std::vector<dart_lock_t> locks(target + 1, DART_LOCK_NULL);
    for (auto &l : locks) CHECK_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));

    if (s.me == target) {
      target_compute(s.sw, s.me, cap_s);
    } else if (s.me == 0) {
      origin(s.sw, target, g, locks[target]);
      s.sw.store(0, kDone, 1);
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));

    if (s.me == target) {  // what unit 0 wrote, seen in the target's own memory
      bool put_ok = true;
      for (size_t i = 0; i < kBlock; ++i)
        put_ok = put_ok && local[kBlock + i] == -static_cast<long>(i) - 1;
      CHECK(put_ok);
      CHECK(local[2 * kBlock] == pattern(target, 2 * kBlock) + 5);
      CHECK(local[0] == pattern(target, 0));
    }
    for (auto &l : locks) CHECK_OK(dart_team_lock_destroy(&l));
    CHECK_OK(dart_team_memfree(g));
    s.sw.destroy();
  }
  return prog::end(kName);
}
