// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 UPN none 1 TIMEOUT 300 LABELS threads
//
// Thread safety under DART_THREAD_MULTIPLE: 4 worker threads per unit do put/get (basic
// and strided, flush-based, blocking and with handles; dense strided gets completed by
// any thread's flush), atomics, dart_memalloc/memfree,
// layout types and failing calls, while the main thread of every unit allocates and
// frees team segments (more than 256 ids: the segment table grows a chunk while the
// workers read it), registers memory and creates and destroys teams with their own
// allocations. Every value is checked: each worker owns a region of every unit's part
// of the workers' segment that only it writes; fetch-and-op increments of one counter
// are summed over all units. The run is bounded: the main threads do a fixed number of
// rounds and the workers stop when their main thread is done (and after at least
// kMinIters iterations each). Then two threads per unit create teams at the same time.
// Run under ThreadSanitizer by the CI (tests/sanitizers).
#include "prog_common.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 4;
constexpr int kSlot = 256;         // longs per worker region
constexpr long kMinIters = 20;     // per worker
constexpr int kRounds = 12;        // main thread rounds
constexpr int kSegsPerRound = 22;  // 264 segment ids in all: crosses a 256-id table chunk

struct Shared {
  int me = -1, n = 0;
  dart_gptr_t data = DART_GPTR_NULL;     // n * kThreads regions of kSlot longs per unit
  dart_gptr_t counter = DART_GPTR_NULL;  // one long on unit 0
  dart_datatype_t every_other = DART_TYPE_UNDEFINED;   // strided: 1 long of every 2
  dart_datatype_t four_of_five = DART_TYPE_UNDEFINED;  // strided: 4 longs of every 5 (dense)
  std::atomic<bool> stop{false};
  std::atomic<long> adds{0};  // fetch-and-op increments done by this unit
  std::atomic<int> errors{0};
  std::atomic<long> iters{0};  // worker iterations done on this unit
};

#define W_CHECK(cond)                                                                              \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      if (s->errors.fetch_add(1) < 8)                                                              \
        std::fprintf(stderr, "[rank %d thread %d] CHECK FAILED line %d: %s (detail: %s)\n", s->me, \
                     t, __LINE__, #cond, dart_error_detail());                                     \
    }                                                                                              \
  } while (0)
#define W_OK(call) W_CHECK((call) == DART_OK)

void worker(Shared *s, int t) {
  const int right = (s->me + 1) % s->n;
  const long tag = ((long)s->me << 40) | ((long)t << 32);
  dart_gptr_t region = s->data;  // my region on the right neighbour
  W_OK(dart_gptr_setunit(&region, DART_TEAM_UNIT_ID(right)));
  W_OK(dart_gptr_incaddr(&region, (int64_t)((s->me * kThreads + t) * kSlot * sizeof(long))));
  std::vector<long> out(kSlot), in(kSlot);
  long iter = 0;
  for (; iter < kMinIters || !s->stop.load(std::memory_order_relaxed); ++iter) {
    const long v = tag | iter;
    const int k = 1 + (int)(iter % 100);  // 1..100 elements: many strided block counts

    // blocking put, then get back
    for (int i = 0; i < k; ++i) out[i] = v + i;
    W_OK(dart_put_blocking(region, out.data(), k, DART_TYPE_LONG, DART_TYPE_LONG));
    W_OK(dart_get_blocking(in.data(), region, k, DART_TYPE_LONG, DART_TYPE_LONG));
    for (int i = 0; i < k; ++i) W_CHECK(in[i] == v + i);

    // strided remote layout (every other long): the type's MPI vector cache is shared by
    // the threads and evicts entries while others use theirs
    const int m = k < kSlot / 2 ? k : kSlot / 2;
    for (int i = 0; i < m; ++i) out[i] = -(v + i);
    W_OK(dart_put_blocking(region, out.data(), m, DART_TYPE_LONG, s->every_other));
    W_OK(dart_get_blocking(in.data(), region, 2 * m, DART_TYPE_LONG, DART_TYPE_LONG));
    for (int i = 0; i < m; ++i) W_CHECK(in[2 * i] == -(v + i));
    // the same layout as a type of this thread's own, made and destroyed while the other
    // threads validate theirs (a destroy empties every thread's memory of valid types)
    if (iter % 8 == 0) {
      dart_datatype_t own = DART_TYPE_UNDEFINED;
      W_OK(dart_type_create_strided(DART_TYPE_LONG, 2, 1, &own));
      W_OK(dart_get_blocking(in.data(), region, m, own, DART_TYPE_LONG));
      for (int i = 0; i < m; ++i) W_CHECK(in[i] == -(v + i));
      W_OK(dart_type_destroy(&own));
    }

    // dense gets that complete later: each lands in a buffer of its own and is unpacked
    // by the first completion, its handle's wait or a flush of the window, also another
    // thread's (every worker flushes this window)
    for (int i = 0; i < 40; ++i) out[i] = 3 * v + i;
    W_OK(dart_put_blocking(region, out.data(), 40, DART_TYPE_LONG, DART_TYPE_LONG));
    std::vector<long> d1(32, -1), d2(32, -1);
    dart_handle_t hd = DART_HANDLE_NULL;
    W_OK(dart_get_handle(d1.data(), region, 32, s->four_of_five, DART_TYPE_LONG, &hd));
    W_OK(dart_get(d2.data(), region, 32, s->four_of_five, DART_TYPE_LONG));
    W_OK(dart_flush_all(region));
    W_OK(dart_wait(&hd));
    for (int i = 0; i < 32; ++i) {
      W_CHECK(d1[i] == 3 * v + (i / 4) * 5 + i % 4);
      W_CHECK(d2[i] == 3 * v + (i / 4) * 5 + i % 4);
    }

    // handles, and flush-based put/get
    dart_handle_t h[2] = {DART_HANDLE_NULL, DART_HANDLE_NULL};
    out[0] = v ^ 0x5555;
    W_OK(dart_put_handle(region, out.data(), 1, DART_TYPE_LONG, DART_TYPE_LONG, &h[0]));
    W_OK(dart_wait(&h[0]));
    W_OK(dart_get_handle(in.data(), region, 1, DART_TYPE_LONG, DART_TYPE_LONG, &h[1]));
    W_OK(dart_waitall(&h[1], 1));
    W_CHECK(in[0] == (v ^ 0x5555));
    out[1] = v + 7;
    dart_gptr_t second = region;
    W_OK(dart_gptr_incaddr(&second, sizeof(long)));
    W_OK(dart_put(second, &out[1], 1, DART_TYPE_LONG, DART_TYPE_LONG));
    W_OK(dart_flush(second));
    in[1] = 0;
    W_OK(dart_get(&in[1], second, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    W_OK(dart_flush_local(second));
    W_CHECK(in[1] == v + 7);

    // atomics: a shared counter, and compare-and-swap on my own word
    long one = 1, old = -1;
    W_OK(dart_fetch_and_op(s->counter, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
    W_CHECK(old >= 0);
    s->adds.fetch_add(1, std::memory_order_relaxed);
    long expect = v + 7, swapped = v + 8, result = -1;
    W_OK(dart_compare_and_swap(second, &swapped, &expect, &result, DART_TYPE_LONG));
    W_CHECK(result == v + 7);

    // the non-collective pool, a layout type, and a failing call with its detail message
    dart_gptr_t mine = DART_GPTR_NULL;
    W_OK(dart_memalloc(16 + (size_t)k, DART_TYPE_LONG, &mine));
    W_OK(dart_put_blocking(mine, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    long back = 0;
    W_OK(dart_get_blocking(&back, mine, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    W_CHECK(back == v);
    W_OK(dart_memfree(mine));
    size_t ext[2] = {(size_t)k, 3}, nelem = 0;
    ptrdiff_t str[2] = {1, (ptrdiff_t)k + 1 + t};
    dart_datatype_t lt = DART_TYPE_UNDEFINED;
    W_OK(dart_type_from_layout(DART_TYPE_LONG, 2, ext, str, &lt, &nelem));
    W_OK(dart_type_layout_release(lt));
    dart_gptr_t bad = region;
    W_OK(dart_gptr_setunit(&bad, DART_TEAM_UNIT_ID(s->n)));
    W_CHECK(dart_get_blocking(in.data(), bad, 1, DART_TYPE_LONG, DART_TYPE_LONG) == DART_ERR_INVAL);
    W_CHECK(std::strstr(dart_error_detail(), "out of range") != nullptr);
    // Leave the cores to the main threads too (their collectives need both units'
    // main threads running): 2 units x 5 threads share the test machine's cores.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  s->iters.fetch_add(iter);
}

// One round of the main thread: collective allocations and frees, a registration, and a
// team created, used and destroyed, while the workers run.
void main_round(Shared *s, int round) {
  const int me = s->me, n = s->n, right = (me + 1) % n;
  dart_gptr_t segs[kSegsPerRound];
  for (auto &g : segs) CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONG, &g));
  for (int i = 0; i < kSegsPerRound; ++i) {
    dart_gptr_t g = segs[i];
    CHECK_OK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(right)));
    long v = (long)round * 1000 + i * 10 + me;
    CHECK_OK(dart_put_blocking(g, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  const int left = (me + n - 1) % n;
  for (int i = 0; i < kSegsPerRound; ++i) {
    long *p = nullptr;
    dart_gptr_t g = segs[i];
    CHECK_OK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(me)));
    CHECK_OK(dart_gptr_getaddr(g, (void **)&p));
    CHECK(p != nullptr && *p == (long)round * 1000 + i * 10 + left);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  for (auto &g : segs) CHECK_OK(dart_team_memfree(g));

  long reg[4] = {me, round, 0, 0};
  dart_gptr_t rg = DART_GPTR_NULL;
  CHECK_OK(dart_team_memregister_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONG, reg, &rg));
  CHECK_OK(dart_gptr_setunit(&rg, DART_TEAM_UNIT_ID(right)));
  long got[2] = {-1, -1};
  CHECK_OK(dart_get_blocking(got, rg, 2, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK(got[0] == right && got[1] == round);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memderegister(rg));

  dart_team_t team = DART_TEAM_NULL;
  CHECK_OK(dart_team_clone(DART_TEAM_ALL, &team));
  dart_gptr_t tg = DART_GPTR_NULL;
  CHECK_OK(dart_team_memalloc_aligned(team, 1, DART_TYPE_LONG, &tg));
  CHECK_OK(dart_gptr_setunit(&tg, DART_TEAM_UNIT_ID(right)));
  long tv = round + 100 * me;
  CHECK_OK(dart_put_blocking(tg, &tv, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK_OK(dart_barrier(team));
  long tb = -1;
  CHECK_OK(dart_get_blocking(&tb, tg, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK(tb == tv);
  CHECK_OK(dart_barrier(team));
  CHECK_OK(dart_team_memfree(tg));
  CHECK_OK(dart_team_destroy(&team));
}

// Two threads of every unit create a team at the same time (over two different parent
// teams): team ids come from one counter per unit, so a creation that meets another on
// its unit fails on every unit of its parent. Whatever the interleaving, each creation
// has the same result on every unit, nobody hangs, and two teams made never share an id.
void concurrent_team_creation(Shared *s, int rounds) {
  dart_team_t second = DART_TEAM_NULL;
  CHECK_OK(dart_team_clone(DART_TEAM_ALL, &second));
  int both = 0, one_failed = 0;
  for (int r = 0; r < rounds; ++r) {
    dart_team_t made[2] = {DART_TEAM_NULL, DART_TEAM_NULL};
    int rc[2] = {-1, -1};
    std::thread other([&] { rc[1] = (int)dart_team_clone(second, &made[1]); });
    rc[0] = (int)dart_team_clone(DART_TEAM_ALL, &made[0]);
    other.join();
    for (int i = 0; i < 2; ++i) CHECK(rc[i] == DART_OK || rc[i] == DART_ERR_INVAL);
    int lo[2], hi[2];
    MPI_Allreduce(rc, lo, 2, MPI_INT, MPI_MIN, prog::comm());
    MPI_Allreduce(rc, hi, 2, MPI_INT, MPI_MAX, prog::comm());
    CHECK(lo[0] == hi[0] && lo[1] == hi[1]);  // each creation agreed on every unit
    if (rc[0] == DART_OK && rc[1] == DART_OK) {
      CHECK(made[0] != made[1]);
      ++both;
    } else {
      ++one_failed;
    }
    std::thread destroyer([&] {
      if (rc[1] == DART_OK) CHECK_OK(dart_team_destroy(&made[1]));
    });
    if (rc[0] == DART_OK) CHECK_OK(dart_team_destroy(&made[0]));
    destroyer.join();
  }
  CHECK_OK(dart_team_destroy(&second));
  if (s->me == 0)
    std::printf("concurrent team creations: %d rounds both made, %d with a refusal\n", both,
                one_failed);
}

}  // namespace

int main(int argc, char **argv) {
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  prog::init_dart(&argc, &argv, true, &level);
  CHECK(level == DART_THREAD_MULTIPLE);
  Shared s;
  {
    dart_global_unit_t u{-1};
    size_t nu = 0;
    dart_myid(&u);
    dart_size(&nu);
    s.me = u.id;
    s.n = (int)nu;
  }
  CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)s.n * kThreads * kSlot, DART_TYPE_LONG,
                                      &s.data));
  CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &s.counter));
  CHECK_OK(dart_gptr_setunit(&s.counter, DART_TEAM_UNIT_ID(0)));
  if (s.me == 0) {
    long zero = 0;
    CHECK_OK(dart_put_blocking(s.counter, &zero, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  }
  CHECK_OK(dart_type_create_strided(DART_TYPE_LONG, 2, 1, &s.every_other));
  CHECK_OK(dart_type_create_strided(DART_TYPE_LONG, 5, 4, &s.four_of_five));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  // Open MPI 4.1.4: MPI_Win_create (osc rdma) on the main thread hangs in its internal
  // collectives while other threads run RMA atomics on other windows of a team spanning
  // nodes (seen with DART_UNITS_PER_NODE=1, every run). Until that is understood, the
  // main thread's rounds follow the workers there instead of overlapping them.
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(lib, &len);
  int32_t node0 = 0, node1 = 0;
  dart_unit_node(DART_GLOBAL_UNIT_ID(0), &node0);
  dart_unit_node(DART_GLOBAL_UNIT_ID(s.n - 1), &node1);
  const bool overlap = !(std::strstr(lib, "Open MPI") != nullptr && node0 != node1);
  if (!overlap && s.me == 0)
    std::printf("Open MPI across nodes: main-thread rounds after the workers (not overlapped)\n");
  auto t0 = std::chrono::steady_clock::now();
  if (!overlap) s.stop = true;
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) workers.emplace_back(worker, &s, t);
  if (!overlap)
    for (auto &w : workers) w.join();
  // With progress processes every served creation is a node collective with them (about
  // 0.2 s here under the workers' load): a third of the rounds; the table-chunk crossing
  // (264 ids) is the other placements' part.
  const int rounds_todo = prog::progress_per_node() > 0 ? kRounds / 3 : kRounds;
  for (int r = 0; r < rounds_todo; ++r) main_round(&s, r);
  double rounds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.stop = true;
  if (overlap)
    for (auto &w : workers) w.join();
  double all_done = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s.me == 0)
    std::printf("main thread rounds %.2f s, workers done %.2f s, %ld worker iterations\n", rounds,
                all_done, s.iters.load());

  CHECK(s.errors == 0);
  concurrent_team_creation(&s, 10);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  long mine = s.adds, all = 0, counted = -1;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, prog::comm());
  CHECK_OK(dart_get_blocking(&counted, s.counter, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  CHECK(counted == all);
  if (s.me == 0) std::printf("%ld fetch-and-op increments, counter %ld\n", all, counted);

  CHECK_OK(dart_type_destroy(&s.every_other));
  CHECK_OK(dart_type_destroy(&s.four_of_five));
  CHECK_OK(dart_team_memfree(s.counter));
  CHECK_OK(dart_team_memfree(s.data));
  return prog::end("prog_threads_stress");
}
