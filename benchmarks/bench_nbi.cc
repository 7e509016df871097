// SPDX-License-Identifier: BSD-3-Clause
// bench_nbi: non-blocking transfers as in PGAS'14 Figs. 10-11: the initiation time
// (`*_init`: only the call that starts the transfer is timed; up to 1024 are outstanding,
// completed outside the timed region) and the completion time (`*_complete`: start plus
// wait of one transfer) of
//   dart           dart_put_handle / dart_get_handle (+ dart_wait),
//   mpi-rput       MPI_Rput / MPI_Rget (+ MPI_Wait) on an MPI_Win_allocate window,
//   mpi-put-flush  MPI_Put / MPI_Get (+ MPI_Win_flush) on the same window,
// unit 0 -> unit 1, with the harness of bench_common.h (bench=nbi). The MPI rows run in
// the job with --placement remote only (MPI RMA; DART's remote rows use it too).
//
//   mpiexec -n 2 bench_nbi [--quick] [--sizes 8,1K,64K,1M] --placement node|remote
#include "bench_dart.h"

namespace {

constexpr long kChunk = 1024;

// Times only the `init` calls of k transfers, completing every chunk with `wait_all`.
double init_only(long k, const std::function<void(long)> &init,
                 const std::function<void(long)> &wait_all) {
  double t = 0;
  for (long done = 0; done < k;) {
    long m = std::min(kChunk, k - done);
    double t0 = MPI_Wtime();
    for (long i = 0; i < m; ++i) init(i);
    t += MPI_Wtime() - t0;
    wait_all(m);
    done += m;
  }
  return t;
}

void run_all(bench::Options opt) {
  opt.bench = "nbi";
  bench::Runner runner(opt);
  const size_t max_bytes = *std::max_element(opt.sizes.begin(), opt.sizes.end());
  int32_t node0 = -1, node1 = -1;
  BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(0), &node0));
  BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(1), &node1));
  const std::string placement = node0 == node1 ? "node" : "remote";
  if (!opt.placement.empty() && opt.placement != placement)
    bench::die(("--placement " + opt.placement + " but DART reports " + placement).c_str());

  dart_gptr_t seg = DART_GPTR_NULL;
  BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, max_bytes, DART_TYPE_BYTE, &seg));
  dart_gptr_t target = seg;
  BENCH_DART_CHECK(dart_gptr_setunit(&target, DART_TEAM_UNIT_ID(1)));
  char *mem = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  BENCH_MPI_CHECK(MPI_Win_allocate(max_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));

  std::vector<char> src_v(max_bytes, 2), dst_v(max_bytes, 3);
  char *src = src_v.data(), *dst = dst_v.data();
  std::vector<dart_handle_t> hs(kChunk);
  std::vector<MPI_Request> rq(kChunk);
  const dart_datatype_t B = DART_TYPE_BYTE;

  for (size_t n : opt.sizes) {
    std::vector<bench::Case> cases;
    auto add = [&](const char *impl, const char *op, std::function<double(long)> f) {
      if (runner.selected(impl, op))
        cases.push_back({impl, op, placement, n, std::move(f), nullptr});
    };
    const int ni = static_cast<int>(n);
    auto timed = [](long k, const std::function<void()> &one) {
      double t0 = MPI_Wtime();
      for (long i = 0; i < k; ++i) one();
      return MPI_Wtime() - t0;
    };
    auto dart_waitall = [&](long m) { BENCH_DART_CHECK(::dart_waitall(hs.data(), m)); };
    auto mpi_waitall = [&](long m) {
      BENCH_MPI_CHECK(MPI_Waitall(static_cast<int>(m), rq.data(), MPI_STATUSES_IGNORE));
    };
    auto flush = [&](long) { BENCH_MPI_CHECK(MPI_Win_flush(1, win)); };
    add("dart", "put_init", [&, n](long k) {
      return init_only(
          k, [&](long i) { BENCH_DART_CHECK(dart_put_handle(target, src, n, B, B, &hs[i])); },
          dart_waitall);
    });
    add("dart", "get_init", [&, n](long k) {
      return init_only(
          k, [&](long i) { BENCH_DART_CHECK(dart_get_handle(dst, target, n, B, B, &hs[i])); },
          dart_waitall);
    });
    add("dart", "put_complete", [&, n](long k) {
      return timed(k, [&] {
        BENCH_DART_CHECK(dart_put_handle(target, src, n, B, B, &hs[0]));
        BENCH_DART_CHECK(dart_wait(&hs[0]));
      });
    });
    add("dart", "get_complete", [&, n](long k) {
      return timed(k, [&] {
        BENCH_DART_CHECK(dart_get_handle(dst, target, n, B, B, &hs[0]));
        BENCH_DART_CHECK(dart_wait(&hs[0]));
      });
    });
    if (placement == "remote") {
      add("mpi-rput", "put_init", [&, ni](long k) {
        return init_only(
            k,
            [&](long i) {
              BENCH_MPI_CHECK(MPI_Rput(src, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win, &rq[i]));
            },
            mpi_waitall);
      });
      add("mpi-rput", "get_init", [&, ni](long k) {
        return init_only(
            k,
            [&](long i) {
              BENCH_MPI_CHECK(MPI_Rget(dst, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win, &rq[i]));
            },
            mpi_waitall);
      });
      add("mpi-rput", "put_complete", [&, ni](long k) {
        return timed(k, [&] {
          BENCH_MPI_CHECK(MPI_Rput(src, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win, &rq[0]));
          BENCH_MPI_CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        });
      });
      add("mpi-rput", "get_complete", [&, ni](long k) {
        return timed(k, [&] {
          BENCH_MPI_CHECK(MPI_Rget(dst, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win, &rq[0]));
          BENCH_MPI_CHECK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        });
      });
      add("mpi-put-flush", "put_init", [&, ni](long k) {
        return init_only(
            k, [&](long) { BENCH_MPI_CHECK(MPI_Put(src, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win)); },
            flush);
      });
      add("mpi-put-flush", "get_init", [&, ni](long k) {
        return init_only(
            k, [&](long) { BENCH_MPI_CHECK(MPI_Get(dst, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win)); },
            flush);
      });
      add("mpi-put-flush", "put_complete", [&, ni](long k) {
        return timed(k, [&] {
          BENCH_MPI_CHECK(MPI_Put(src, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win));
          BENCH_MPI_CHECK(MPI_Win_flush(1, win));
        });
      });
      add("mpi-put-flush", "get_complete", [&, ni](long k) {
        return timed(k, [&] {
          BENCH_MPI_CHECK(MPI_Get(dst, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, win));
          BENCH_MPI_CHECK(MPI_Win_flush(1, win));
        });
      });
    }
    for (auto &c : cases) runner.run(c);
  }
  runner.barrier();
  BENCH_MPI_CHECK(MPI_Win_unlock_all(win));
  BENCH_MPI_CHECK(MPI_Win_free(&win));
  BENCH_DART_CHECK(dart_team_memfree(seg));
}

}  // namespace

int main(int argc, char **argv) {
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  bench::Options opt = bench::parse_options(argc, argv);
  if (std::find(argv, argv + argc, std::string("--sizes")) == argv + argc)
    opt.sizes = opt.quick ? std::vector<size_t>{8, 65536}
                          : std::vector<size_t>{8, 1024, 65536, 1 << 20};
  run_all(opt);
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
