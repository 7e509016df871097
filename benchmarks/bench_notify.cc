// SPDX-License-Identifier: BSD-3-Clause
// Notified access latency (dart_notify.h): a ping-pong between unit 0 and unit 1 in which
// each hop moves `bytes` into the peer's memory and tells the peer it arrived; a row is
// half a round trip (Case::divisor 2). Rows (bench=notify, CSV of bench_common.h):
//
//   dart,put_notify        dart_put_notify + dart_notify_wait
//   dart,put_flush_msg     dart_put + dart_flush + a zero-byte MPI_Send / MPI_Recv
//   dart,put_barrier       dart_put_blocking + dart_barrier (two barriers per round trip)
//   mpi,put_flush_acc      raw MPI on an MPI_Win_allocate window: MPI_Put, MPI_Win_flush,
//                          MPI_Accumulate(SUM) on the peer's counter, MPI_Win_flush; the
//                          waiter polls its counter with MPI_Fetch_and_op(NO_OP) + flush
//   shm,put_flag           (placement node only) the hand-written baseline: memcpy into
//                          the peer's part of an MPI_Win_allocate_shared window, then a
//                          release store of a flag; the waiter polls it with acquire loads
//
// Every waiter yields the core between polls (sched_yield), as DART's waits do while
// young, so the rows compare the same waiting policy. The placement column is the
// runtime's (dart_unit_node), as in bench_latency.cc.
//
//   mpiexec -n 2 ./bench_notify [--header] [--quick] [--sizes 8,1K] [--only dart:put_notify]
//            [--out FILE] [--placement node|remote] [--batch-us US] [--reps R]
#include "bench_dart.h"

#include <sched.h>

namespace {

void run_all(const bench::Options &opt) {
  bench::Runner runner(opt);
  const int me = runner.rank(), peer = 1 - me;
  const size_t max_bytes = *std::max_element(opt.sizes.begin(), opt.sizes.end());

  size_t nunits = 0;
  dart_global_unit_t myid;
  BENCH_DART_CHECK(dart_myid(&myid));
  BENCH_DART_CHECK(dart_size(&nunits));
  if (nunits != 2 || myid.id != me) bench::die("expected 2 units with ids = ranks");
  int32_t node0 = -1, node1 = -1;
  BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(0), &node0));
  BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(1), &node1));
  const std::string placement = node0 == node1 ? "node" : "remote";
  if (!opt.placement.empty() && opt.placement != placement)
    bench::die(("--placement " + opt.placement + " but the runtime reports " + placement).c_str());

  // DART memory: a data buffer and two counters per unit.
  dart_gptr_t data = DART_GPTR_NULL, cnt = DART_GPTR_NULL;
  BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, max_bytes, DART_TYPE_BYTE, &data));
  BENCH_DART_CHECK(dart_notify_alloc(DART_TEAM_ALL, 1, &cnt));
  dart_gptr_t peer_data = data, peer_cnt = cnt, my_cnt = cnt;
  BENCH_DART_CHECK(dart_gptr_setunit(&peer_data, DART_TEAM_UNIT_ID(peer)));
  BENCH_DART_CHECK(dart_gptr_setunit(&peer_cnt, DART_TEAM_UNIT_ID(peer)));
  BENCH_DART_CHECK(dart_gptr_setunit(&my_cnt, DART_TEAM_UNIT_ID(me)));
  MPI_Comm msg;  // the messages of put_flush_msg
  BENCH_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &msg));

  // Raw MPI: data then one uint64 counter per rank, one window, one lock_all epoch.
  char *mbase = nullptr;
  MPI_Win mwin;
  BENCH_MPI_CHECK(MPI_Win_allocate((MPI_Aint)(max_bytes + 64), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &mbase, &mwin));
  BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, mwin));
  const MPI_Aint cdisp = (MPI_Aint)((max_bytes + 7) / 8 * 8);
  *reinterpret_cast<uint64_t *>(mbase + cdisp) = 0;
  BENCH_MPI_CHECK(MPI_Win_sync(mwin));

  // Shared-memory baseline: both ranks' parts mapped (real node only).
  MPI_Comm shm_comm;
  BENCH_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm_comm));
  int shm_size = 0;
  BENCH_MPI_CHECK(MPI_Comm_size(shm_comm, &shm_size));
  const bool shm_ok = shm_size == 2 && placement == "node";
  MPI_Win swin = MPI_WIN_NULL;
  char *smine = nullptr, *speer = nullptr;
  if (shm_ok) {
    BENCH_MPI_CHECK(MPI_Win_allocate_shared((MPI_Aint)(max_bytes + 128), 1, MPI_INFO_NULL, shm_comm,
                                            &smine, &swin));
    MPI_Aint sz;
    int du;
    BENCH_MPI_CHECK(MPI_Win_shared_query(swin, peer, &sz, &du, &speer));
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, swin));
  }
  auto flag_of = [&](char *base) {
    return reinterpret_cast<uint64_t *>(base + (max_bytes + 63) / 64 * 64);
  };
  if (shm_ok) *flag_of(smine) = 0;
  runner.barrier();

  std::vector<char> src_v(max_bytes, 2);
  const char *src = src_v.data();
  const dart_datatype_t B = DART_TYPE_BYTE;
  uint64_t mpi_seen = 0, shm_seq = 0;  // per-rank sequence numbers (monotone counters)

  for (size_t n : opt.sizes) {
    std::vector<bench::Case> cases;
    auto add = [&](const char *impl, const char *op, std::function<void()> hop,
                   std::function<void()> wait) {
      if (!runner.selected(impl, op)) return;
      bench::Case c{impl, op, placement, n, nullptr, nullptr};
      c.divisor = 2.0;  // half a round trip
      c.origin = [=](long k) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < k; ++i) {
          hop();
          wait();
        }
        return MPI_Wtime() - t0;
      };
      c.target = [=](long k) {
        for (long i = 0; i < k; ++i) {
          wait();
          hop();
        }
      };
      cases.push_back(std::move(c));
    };
    add(
        "dart", "put_notify",
        [=] {
          BENCH_DART_CHECK(dart_put_notify(peer_data, src, n, B, B, peer_cnt, 1, DART_NOTIFY_ADD));
        },
        [=] { BENCH_DART_CHECK(dart_notify_wait(my_cnt, 1)); });
    add(
        "dart", "put_flush_msg",
        [=] {
          BENCH_DART_CHECK(dart_put(peer_data, src, n, B, B));
          BENCH_DART_CHECK(dart_flush(peer_data));
          BENCH_MPI_CHECK(MPI_Send(nullptr, 0, MPI_BYTE, peer, 0, msg));
        },
        [=] { BENCH_MPI_CHECK(MPI_Recv(nullptr, 0, MPI_BYTE, peer, 0, msg, MPI_STATUS_IGNORE)); });
    // One barrier after the put: the peer then reads; the second barrier is the
    // peer's hop, so a round trip is put + barrier twice.
    add(
        "dart", "put_barrier",
        [=] {
          BENCH_DART_CHECK(dart_put_blocking(peer_data, src, n, B, B));
          BENCH_DART_CHECK(dart_barrier(DART_TEAM_ALL));
        },
        [=] { BENCH_DART_CHECK(dart_barrier(DART_TEAM_ALL)); });
    uint64_t *seen = &mpi_seen;
    add(
        "mpi", "put_flush_acc",
        [=] {
          const uint64_t one = 1;
          BENCH_MPI_CHECK(MPI_Put(src, (int)n, MPI_BYTE, peer, 0, (int)n, MPI_BYTE, mwin));
          BENCH_MPI_CHECK(MPI_Win_flush(peer, mwin));
          BENCH_MPI_CHECK(
              MPI_Accumulate(&one, 1, MPI_UINT64_T, peer, cdisp, 1, MPI_UINT64_T, MPI_SUM, mwin));
          BENCH_MPI_CHECK(MPI_Win_flush(peer, mwin));
        },
        [=] {
          const uint64_t want = ++*seen;
          for (;;) {
            uint64_t v = 0;
            BENCH_MPI_CHECK(
                MPI_Fetch_and_op(nullptr, &v, MPI_UINT64_T, me, cdisp, MPI_NO_OP, mwin));
            BENCH_MPI_CHECK(MPI_Win_flush(me, mwin));
            if (v >= want) return;
            sched_yield();
          }
        });
    if (shm_ok) {
      uint64_t *seq = &shm_seq;
      // Both ranks advance their own sequence once per hop they receive and once per hop
      // they send, so the flag value a waiter expects is known locally.
      add(
          "shm", "put_flag",
          [=] {
            std::memcpy(speer, src, n);
            __atomic_store_n(flag_of(speer), ++*seq, __ATOMIC_RELEASE);
          },
          [=] {
            const uint64_t want = ++*seq;
            while (__atomic_load_n(flag_of(smine), __ATOMIC_ACQUIRE) < want) sched_yield();
            bench::clobber(smine);
          });
    }
    for (auto &c : cases) runner.run(c);
  }

  runner.barrier();
  if (shm_ok) {
    BENCH_MPI_CHECK(MPI_Win_unlock_all(swin));
    BENCH_MPI_CHECK(MPI_Win_free(&swin));
  }
  BENCH_MPI_CHECK(MPI_Comm_free(&shm_comm));
  BENCH_MPI_CHECK(MPI_Win_unlock_all(mwin));
  BENCH_MPI_CHECK(MPI_Win_free(&mwin));
  BENCH_MPI_CHECK(MPI_Comm_free(&msg));
  BENCH_DART_CHECK(dart_notify_free(cnt));
  BENCH_DART_CHECK(dart_team_memfree(data));
}

}  // namespace

int main(int argc, char **argv) {
  if (dart_init(&argc, &argv) != DART_OK) {
    std::fprintf(stderr, "dart_init failed: %s\n", dart_error_detail());
    return 1;
  }
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  bench::Options opt = bench::parse_options(argc, argv);
  opt.bench = "notify";
  run_all(opt);
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
