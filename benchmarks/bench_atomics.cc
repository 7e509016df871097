// SPDX-License-Identifier: BSD-3-Clause
// Latency of DART atomics and team locks against raw MPI atomics on the same window
// kinds, 2 units, unit 0 -> unit 1 (rows of `benchmarks/run latency`).
//
//   dart  fetch_and_op                     dart_fetch_and_op(SUM, int64) on unit 1's memory
//   dart  compare_and_swap                 dart_compare_and_swap(int64) on unit 1's memory
//   dart  lock_acquire_release             dart_lock_acquire + dart_lock_release, unit 1
//                                          idle (the lock's tail is on unit 0, lock 0)
//   dart  lock_acquire_release_contended   the same while unit 1 runs the same loop
//   mpi-shm / mpi-rma-create-shm / mpi-rma-allocate  fetch_and_op, compare_and_swap:
//        MPI_Fetch_and_op / MPI_Compare_and_swap + MPI_Win_flush(1) on a window of the
//        kind DART uses for that placement (node: the MPI_Win_allocate_shared window;
//        remote: MPI_Win_create over the shared segment) and on MPI_Win_allocate.
//
// The placement of the DART rows is what the runtime reports (DART_UNITS_PER_NODE=1
// gives `remote`); the raw MPI rows are printed with the placement whose DART path uses
// that window kind, so a row pairs with its baseline in one table. `bytes` is 8 for
// the atomics and 4 (one lock word) for the locks.

#include <cstdint>

#include "bench_dart.h"

namespace {

// Raw MPI atomics on one window: fetch_and_op and compare_and_swap rows.
void mpi_atomic_cases(bench::Runner &runner, const std::string &impl, const std::string &placement,
                      MPI_Win win, bool with_cas) {
  {
    std::vector<bench::Case> cases;
    const int64_t one = 1;
    if (runner.selected(impl, "fetch_and_op"))
      cases.push_back({impl, "fetch_and_op", placement, 8,
                       [=](long k) {
                         int64_t old = 0;
                         double t0 = MPI_Wtime();
                         for (long i = 0; i < k; ++i) {
                           BENCH_MPI_CHECK(
                               MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win));
                           BENCH_MPI_CHECK(MPI_Win_flush(1, win));
                         }
                         bench::clobber(&old);
                         return MPI_Wtime() - t0;
                       },
                       nullptr});
    if (with_cas && runner.selected(impl, "compare_and_swap"))
      cases.push_back({impl, "compare_and_swap", placement, 8,
                       [=](long k) {
                         int64_t v = 7, cmp = 0, old = 0;
                         double t0 = MPI_Wtime();
                         for (long i = 0; i < k; ++i) {
                           BENCH_MPI_CHECK(
                               MPI_Compare_and_swap(&v, &cmp, &old, MPI_INT64_T, 1, 8, win));
                           BENCH_MPI_CHECK(MPI_Win_flush(1, win));
                         }
                         bench::clobber(&old);
                         return MPI_Wtime() - t0;
                       },
                       nullptr});
    for (auto &c : cases) runner.run(c);
  }
}

void run_all(const bench::Options &opt) {
  bench::Runner runner(opt);
  dart_global_unit_t me;
  size_t nunits = 0;
  BENCH_DART_CHECK(dart_myid(&me));
  BENCH_DART_CHECK(dart_size(&nunits));
  if (nunits != 2 || me.id != runner.rank())
    bench::die("expected 2 units whose ids equal their MPI_COMM_WORLD ranks");
  int32_t node0 = -1, node1 = -1;
  BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(0), &node0));
  BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(1), &node1));
  const std::string placement = node0 == node1 ? "node" : "remote";
  if (!opt.placement.empty() && opt.placement != placement)
    bench::die(("--placement " + opt.placement + " but the runtime reports " + placement).c_str());

  // ---- DART ---------------------------------------------------------------------------
  dart_gptr_t g = DART_GPTR_NULL;
  BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2, DART_TYPE_LONGLONG, &g));
  dart_gptr_t target = g;
  BENCH_DART_CHECK(dart_gptr_setunit(&target, DART_TEAM_UNIT_ID(1)));
  dart_gptr_t target_cas = target;
  BENCH_DART_CHECK(dart_gptr_incaddr(&target_cas, 8));
  dart_lock_t lock = DART_LOCK_NULL;
  BENCH_DART_CHECK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  runner.barrier();

  std::vector<bench::Case> cases;
  if (runner.selected("dart", "fetch_and_op"))
    cases.push_back({"dart", "fetch_and_op", placement, 8,
                     [=](long k) {
                       long long one = 1, old = 0;
                       double t0 = MPI_Wtime();
                       for (long i = 0; i < k; ++i)
                         BENCH_DART_CHECK(dart_fetch_and_op(target, &one, &old, DART_TYPE_LONGLONG,
                                                            DART_OP_SUM));
                       bench::clobber(&old);
                       return MPI_Wtime() - t0;
                     },
                     nullptr});
  if (runner.selected("dart", "compare_and_swap"))
    cases.push_back({"dart", "compare_and_swap", placement, 8,
                     [=](long k) {
                       long long v = 7, cmp = 0, old = 0;
                       double t0 = MPI_Wtime();
                       for (long i = 0; i < k; ++i)
                         BENCH_DART_CHECK(
                             dart_compare_and_swap(target_cas, &v, &cmp, &old, DART_TYPE_LONGLONG));
                       bench::clobber(&old);
                       return MPI_Wtime() - t0;
                     },
                     nullptr});
  auto lock_loop = [=](long k) {
    double t0 = MPI_Wtime();
    for (long i = 0; i < k; ++i) {
      BENCH_DART_CHECK(dart_lock_acquire(lock));
      BENCH_DART_CHECK(dart_lock_release(lock));
    }
    return MPI_Wtime() - t0;
  };
  if (runner.selected("dart", "lock_acquire_release"))
    cases.push_back({"dart", "lock_acquire_release", placement, 4, lock_loop, nullptr});
  // Contended: the target runs the same K acquire/release pairs at the same time. The
  // origin's batch time per pair is the row; with FIFO hand-over both make progress.
  if (runner.selected("dart", "lock_acquire_release_contended"))
    cases.push_back({"dart", "lock_acquire_release_contended", placement, 4, lock_loop,
                     [=](long k) { lock_loop(k); }});
  for (auto &c : cases) runner.run(c);
  runner.barrier();
  BENCH_DART_CHECK(dart_team_lock_destroy(&lock));
  BENCH_DART_CHECK(dart_team_memfree(g));

  // ---- raw MPI on the window kinds DART uses (only in the `node` job, so each baseline
  // is measured once per run) --------------------------------------------------------
  if (placement != "node") return;
  MPI_Comm node_comm = MPI_COMM_NULL;
  BENCH_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm));
  int node_size = 0;
  BENCH_MPI_CHECK(MPI_Comm_size(node_comm, &node_size));
  if (node_size != 2) bench::die("the MPI baselines need both ranks on one node");
  char *shm_base = nullptr;
  MPI_Win shm = MPI_WIN_NULL, create = MPI_WIN_NULL, alloc = MPI_WIN_NULL;
  MPI_Info info;
  BENCH_MPI_CHECK(MPI_Info_create(&info));
  BENCH_MPI_CHECK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  BENCH_MPI_CHECK(MPI_Win_allocate_shared(64, 1, info, node_comm, &shm_base, &shm));
  BENCH_MPI_CHECK(MPI_Info_free(&info));
  std::memset(shm_base, 0, 64);
  BENCH_MPI_CHECK(MPI_Win_create(shm_base, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &create));
  char *alloc_base = nullptr;
  BENCH_MPI_CHECK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &alloc_base, &alloc));
  std::memset(alloc_base, 0, 64);
  for (MPI_Win w : {shm, create, alloc}) {
    BENCH_MPI_CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, w));
  }
  runner.barrier();
  // Open MPI's osc rdma segfaults on a 64-bit MPI_Compare_and_swap to a peer of an
  // MPI_Win_allocate window (docs/mpi-notes.md): that row is left out.
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  BENCH_MPI_CHECK(MPI_Get_library_version(lib, &len));
  const bool open_mpi = std::strstr(lib, "Open MPI") != nullptr;
  mpi_atomic_cases(runner, "mpi-shm", "node", shm, true);
  mpi_atomic_cases(runner, "mpi-rma-create-shm", "remote", create, true);
  mpi_atomic_cases(runner, "mpi-rma-allocate", "remote", alloc, !open_mpi);
  runner.barrier();
  for (MPI_Win *w : {&alloc, &create, &shm}) {
    BENCH_MPI_CHECK(MPI_Win_unlock_all(*w));
    BENCH_MPI_CHECK(MPI_Win_free(w));
  }
  BENCH_MPI_CHECK(MPI_Comm_free(&node_comm));
}

}  // namespace

int main(int argc, char **argv) {
  if (dart_init(&argc, &argv) != DART_OK) {
    std::fprintf(stderr, "dart_init failed: %s\n", dart_error_detail());
    return 1;
  }
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  run_all(bench::parse_options(argc, argv));
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
