// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 PROGRESS_ONLY TIMEOUT 240 LABELS progress
//
// Origin side of the progress processes (issue 14), unit 0 against the last unit (another
// emulated node here; the same node in the variant of tests/cpp/CMakeLists.txt):
//
// 1. A 1 MiB dart_get_handle and a 1 MiB dart_put_handle, started before a compute loop
//    that makes no DART or MPI call, are complete when the loop ends: ONE dart_test after
//    the loop says done (the progress process moved the data meanwhile), and the data is
//    right. Each with a buffer outside DART's memory (malloc: staged by the runtime) and
//    one inside it (the origin's own part of a collective segment). The loop runs a fixed
//    time (argument 1, seconds, default 2), far longer than the transfer takes.
// 2. dart_test is a real test: for 4 MiB gets and puts, polled from right after the start,
//    it may say "not done" (never asserted: timing), but whenever it (or dart_test_local
//    for a get) says done, the data is there: the get's buffer holds all of it; after a
//    put, the target finds all of it in its own memory.
//
// The target makes no DART call meanwhile: it answers unit 0's requests to check its memory
// (after a put) through node shared memory (prog_progress.h, SharedWords). A blocking get
// would not do for that check: it first completes the unit's offloaded transfers.
#include "prog_progress.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr const char *kName = "prog_progress_origin";
constexpr size_t kMiB = 1 << 20;
constexpr size_t kBig = 4 * kMiB / sizeof(uint64_t);  // elements of a 4 MiB transfer
constexpr size_t kSmall = kMiB / sizeof(uint64_t);    // elements of a 1 MiB transfer
// Words of SharedWords: unit 0's
constexpr int kDone = 0;      // 1: finished
constexpr int kAsk = 1;       // the number of its latest request to the target
constexpr int kAskRound = 2;  // the request: does the target hold value(round, i),
constexpr int kAskCount = 3;  // i < count?
// and the target's
constexpr int kAnswered = 0;  // the number of the latest request answered
constexpr int kAnswerOk = 1;  // that number if the answer is yes, else 0

uint64_t value(uint64_t round, size_t i) { return (round << 40) ^ (0x5eedULL << 24) ^ i; }

bool all_equal(const uint64_t *got, uint64_t round, size_t off, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != value(round, off + i)) {
      std::fprintf(stderr, "%s: element %zu is %#llx, expected %#llx\n", kName, i,
                   static_cast<unsigned long long>(got[i]),
                   static_cast<unsigned long long>(value(round, off + i)));
      return false;
    }
  return true;
}

void poison(uint64_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = ~0ULL - i;
}

// Pure computation for `seconds`, no DART or MPI call: what the transfer must overlap.
void compute_for(double seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t steps = 0;
  do {
    prog::compute_step();
    ++steps;
  } while ((steps & 15) != 0 || prog::seconds_since(t0) < seconds);
}

// The target: answers unit 0's requests (kAsk) about its part `local` until unit 0 is
// done, without any DART call.
void serve_checks(prog::SharedWords &sw, int me, MPI_Comm units, const uint64_t *local) {
  uint64_t answered = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (!sw.load(0, kDone)) {
    const uint64_t ask = sw.load(0, kAsk);
    if (ask > answered) {
      const bool ok = all_equal(local, sw.load(0, kAskRound), 0, sw.load(0, kAskCount));
      sw.store(me, kAnswerOk, ok ? ask : 0);
      sw.store(me, kAnswered, ask);
      answered = ask;
      continue;
    }
    // Sleeps between polls; the MPI_Iprobe only keeps a run without progress processes
    // from stalling at this target (prog_progress_target tests that side).
    if (!sw.wait_at_least(0, kAsk, answered + 1, 0.001, units) && prog::seconds_since(t0) > 600) {
      CHECK(!"unit 0 did not finish within 600 s");
      return;
    }
  }
}

struct Origin {
  prog::SharedWords *sw;
  int target;
  uint64_t asks = 0;
  dart_gptr_t remote;          // the target's part of the segment
  uint64_t *dart_buf;          // the origin's own part (DART memory)
  std::vector<uint64_t> heap;  // outside DART's memory
  uint64_t round = 1;          // the target's part holds value(round, i) when not in a put
  double loop_s;

  // Whether the target finds value(r, i), i < count, in its memory (it checks, no DART
  // call on either side).
  bool target_holds(uint64_t r, size_t count) {
    const uint64_t id = ++asks;
    sw->store(0, kAskRound, r);
    sw->store(0, kAskCount, count);
    sw->store(0, kAsk, id);
    if (!sw->wait_at_least(target, kAnswered, id)) {
      CHECK(!"the target did not answer within 120 s");
      return false;
    }
    return sw->load(target, kAnswerOk) == id;
  }

  // The target's content is value(round, i): set it with a blocking put.
  void reset_target(uint64_t r) {
    for (size_t i = 0; i < kBig; ++i) heap[i] = value(r, i);
    CHECK_OK(dart_put_blocking(remote, heap.data(), kBig, DART_TYPE_ULONG, DART_TYPE_ULONG));
    round = r;
  }

  // The compute loop, then ONE dart_test, which must say done: the transfer of *h moved
  // while this unit computed. Waits for it if not (a failure).
  void overlap(dart_handle_t *h, const char *op, const char *what) {
    compute_for(loop_s);
    int32_t done = 0;
    CHECK_OK(dart_test(h, &done));
    std::printf("%s: 1 MiB %s %s: dart_test after %.1f s of computation: %s\n", kName, op, what,
                loop_s, done ? "done" : "NOT DONE");
    std::fflush(stdout);
    CHECK(done == 1);
    if (!done) CHECK_OK(dart_wait(h));
    CHECK(*h == DART_HANDLE_NULL);
  }

  // 1 MiB get_handle across a compute loop; one dart_test afterwards.
  void get_overlaps(uint64_t *dst, const char *what) {
    poison(dst, kSmall);
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_get_handle(dst, remote, kSmall, DART_TYPE_ULONG, DART_TYPE_ULONG, &h));
    overlap(&h, "get_handle into", what);
    CHECK(all_equal(dst, round, 0, kSmall));
  }

  // 1 MiB put_handle across a compute loop; one dart_test afterwards; read back.
  void put_overlaps(uint64_t *src, uint64_t r, const char *what) {
    for (size_t i = 0; i < kSmall; ++i) src[i] = value(r, i);
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_put_handle(remote, src, kSmall, DART_TYPE_ULONG, DART_TYPE_ULONG, &h));
    overlap(&h, "put_handle from", what);
    CHECK(target_holds(r, kSmall));
    reset_target(round + 1);  // the whole 4 MiB consistent again
  }

  // 4 MiB get polled with dart_test (or dart_test_local) from its start: "done" means the
  // data is there. Returns how many tests said "not done".
  long get_test_is_real(uint64_t *dst, bool local) {
    poison(dst, kBig);
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_get_handle(dst, remote, kBig, DART_TYPE_ULONG, DART_TYPE_ULONG, &h));
    return poll(&h, local, [&] { return all_equal(dst, round, 0, kBig); });
  }

  // 4 MiB put polled with dart_test from its start: "done" means the target holds it.
  long put_test_is_real(uint64_t *src) {
    const uint64_t r = round + 1;
    for (size_t i = 0; i < kBig; ++i) src[i] = value(r, i);
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_put_handle(remote, src, kBig, DART_TYPE_ULONG, DART_TYPE_ULONG, &h));
    const long not_done = poll(&h, false, [&] { return target_holds(r, kBig); });
    round = r;
    return not_done;
  }

  template <class Verify>
  long poll(dart_handle_t *h, bool local, Verify verify) {
    long not_done = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
      int32_t done = 0;
      CHECK_OK(local ? dart_test_local(h, &done) : dart_test(h, &done));
      if (done) {
        CHECK(*h == DART_HANDLE_NULL);
        CHECK(verify());
        return not_done;
      }
      ++not_done;
      if (prog::seconds_since(t0) > 120) {  // a safety net, not a measurement
        CHECK(!"dart_test never said done within 120 s");
        CHECK_OK(dart_wait(h));
        return not_done;
      }
    }
  }
};

}  // namespace

int main(int argc, char **argv) {
  const double loop_s = argc > 1 ? std::atof(argv[1]) : 2.0;
  prog::Start s;
  prog::start(&s, kName, &argc, &argv);
  if (s.ok) {
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kBig, DART_TYPE_ULONG, &g));
    dart_gptr_t mine = g;
    dart_gptr_setunit(&mine, dart_team_unit_t{s.me});
    uint64_t *local = nullptr;
    CHECK_OK(dart_gptr_getaddr(mine, reinterpret_cast<void **>(&local)));
    for (size_t i = 0; i < kBig; ++i) local[i] = value(1, i);
    CHECK_OK(dart_barrier(DART_TEAM_ALL));

    if (s.me == 0) {
      Origin o;
      o.sw = &s.sw;
      o.target = s.target;
      o.remote = g;
      dart_gptr_setunit(&o.remote, dart_team_unit_t{s.target});
      o.dart_buf = local;
      o.heap.assign(kBig, 0);
      o.loop_s = loop_s;

      o.get_overlaps(o.heap.data(), "a malloc buffer");
      o.get_overlaps(o.dart_buf, "DART memory");
      o.put_overlaps(o.heap.data(), 100, "a malloc buffer");
      o.put_overlaps(o.dart_buf, 200, "DART memory");

      long nd[4] = {0, 0, 0, 0};
      for (int rep = 0; rep < 3; ++rep) {
        nd[0] += o.get_test_is_real(o.heap.data(), false);
        nd[1] += o.get_test_is_real(o.dart_buf, true);
        nd[2] += o.put_test_is_real(o.heap.data());
        nd[3] += o.put_test_is_real(o.dart_buf);
      }
      std::printf(
          "%s: 4 MiB transfers, dart_test calls that said \"not done\" before done "
          "(3 each): get %ld, get (test_local) %ld, put %ld, put from DART memory "
          "%ld\n",
          kName, nd[0], nd[1], nd[2], nd[3]);
      std::fflush(stdout);
      s.sw.store(0, kDone, 1);
    } else if (s.me == s.target) {
      serve_checks(s.sw, s.me, s.units, local);
    } else if (!s.sw.wait_at_least(0, kDone, 1, 600, s.units)) {
      CHECK(!"unit 0 did not finish within 600 s");
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_memfree(g));
    s.sw.destroy();
  }
  return prog::end(kName);
}
