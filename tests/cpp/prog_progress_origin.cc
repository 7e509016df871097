// dart-test: UNITS 2 UPN 1 PROCS 4 ENV DART_PROGRESS_PER_NODE=1 TIMEOUT 240 LABELS progress
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
//    for a get) says done, the data is there: the get's buffer holds all of it, a blocking
//    get after a put sees all of it.
//
// The target waits meanwhile without any DART call (node shared memory, prog_progress.h).
#include "prog_progress.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr const char *kName = "prog_progress_origin";
constexpr size_t kMiB = 1 << 20;
constexpr size_t kBig = 4 * kMiB / sizeof(uint64_t);    // elements of a 4 MiB transfer
constexpr size_t kSmall = kMiB / sizeof(uint64_t);      // elements of a 1 MiB transfer
constexpr int kDone = 0;                                // unit 0's word: 1 = finished

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

struct Origin {
  dart_gptr_t remote;     // the target's part of the segment
  uint64_t *dart_buf;     // the origin's own part (DART memory)
  std::vector<uint64_t> heap;  // outside DART's memory
  std::vector<uint64_t> check;
  uint64_t round = 1;     // the target's part holds value(round, i) when not in a put
  double loop_s;

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
    std::printf("%s: 1 MiB %s %s: dart_test after %.1f s of computation: %s\n", kName, op,
                what, loop_s, done ? "done" : "NOT DONE");
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
    CHECK_OK(dart_get_blocking(check.data(), remote, kSmall, DART_TYPE_ULONG, DART_TYPE_ULONG));
    CHECK(all_equal(check.data(), r, 0, kSmall));
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

  // 4 MiB put polled with dart_test from its start: "done" means a blocking get sees it.
  long put_test_is_real(uint64_t *src) {
    const uint64_t r = round + 1;
    for (size_t i = 0; i < kBig; ++i) src[i] = value(r, i);
    dart_handle_t h = DART_HANDLE_NULL;
    CHECK_OK(dart_put_handle(remote, src, kBig, DART_TYPE_ULONG, DART_TYPE_ULONG, &h));
    const long not_done = poll(&h, false, [&] {
      poison(check.data(), kBig);
      CHECK_OK(dart_get_blocking(check.data(), remote, kBig, DART_TYPE_ULONG, DART_TYPE_ULONG));
      return all_equal(check.data(), r, 0, kBig);
    });
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
      o.remote = g;
      dart_gptr_setunit(&o.remote, dart_team_unit_t{s.target});
      o.dart_buf = local;
      o.heap.assign(kBig, 0);
      o.check.assign(kBig, 0);
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
      std::printf("%s: 4 MiB transfers, dart_test calls that said \"not done\" before done "
                  "(3 each): get %ld, get (test_local) %ld, put %ld, put from DART memory "
                  "%ld\n",
                  kName, nd[0], nd[1], nd[2], nd[3]);
      std::fflush(stdout);
      s.sw.store(0, kDone, 1);
    } else if (!s.sw.wait_at_least(0, kDone, 1, 600, s.units)) {
      // No DART call while unit 0 works; the MPI_Iprobe only keeps a run without progress
      // processes from stalling at this target (prog_progress_target tests that side).
      CHECK(!"unit 0 did not finish within 600 s");
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_memfree(g));
    s.sw.destroy();
  }
  const int rc = prog::finish_units(kName, s.units);
  CHECK_OK(dart_exit());
  return rc;
}
