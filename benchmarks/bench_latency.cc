// SPDX-License-Identifier: BSD-3-Clause
// DART latency: put_blocking, get_blocking and the initiation time of
// put_handle/get_handle, unit 0 -> unit 1, through the public DART C API only.
//
// The placement column is what the runtime reports (dart_unit_node): `node` when both
// units share a node (shared-window load/store path), `remote` otherwise, e.g. with
// DART_UNITS_PER_NODE=1 (MPI RMA path). `--placement` only cross-checks it.
//
// The harness (bench_common.h) drives the target with MPI_Bcast on MPI_COMM_WORLD,
// whose ranks are the DART global unit ids.

#include "bench_dart.h"

namespace {

constexpr long kHandleChunk = 1024;  // outstanding handles per dart_waitall

void run_all(const bench::Options &opt) {
  bench::Runner runner(opt);
  const size_t max_bytes = *std::max_element(opt.sizes.begin(), opt.sizes.end());

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
    bench::die(("--placement " + opt.placement + " but the runtime reports " + placement +
                " (is DART_UNITS_PER_NODE passed to both units?)")
                   .c_str());

  dart_gptr_t gptr = DART_GPTR_NULL;
  BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, max_bytes, DART_TYPE_BYTE, &gptr));
  dart_gptr_t target = gptr;
  BENCH_DART_CHECK(dart_gptr_setunit(&target, DART_TEAM_UNIT_ID(1)));

  std::vector<char> src_v(max_bytes, 2), dst_v(max_bytes, 3);
  char *src = src_v.data();
  char *dst = dst_v.data();
  std::vector<dart_handle_t> handles(kHandleChunk);
  dart_handle_t *hs = handles.data();
  const dart_datatype_t B = DART_TYPE_BYTE;

  for (size_t n : opt.sizes) {
    std::vector<bench::Case> cases;
    auto add = [&](const char *op, std::function<double(long)> origin) {
      if (!runner.selected("dart", op)) return;
      bench::Case c{"dart", op, placement, n, std::move(origin), nullptr};
      cases.push_back(std::move(c));
    };
    add("put_blocking", [=](long k) {
      double t0 = MPI_Wtime();
      for (long i = 0; i < k; ++i) BENCH_DART_CHECK(dart_put_blocking(target, src, n, B, B));
      return MPI_Wtime() - t0;
    });
    add("get_blocking", [=](long k) {
      double t0 = MPI_Wtime();
      for (long i = 0; i < k; ++i) {
        BENCH_DART_CHECK(dart_get_blocking(dst, target, n, B, B));
        bench::clobber(dst);
      }
      return MPI_Wtime() - t0;
    });
    // Only the initiation calls are timed; dart_waitall runs outside the timed region,
    // after every chunk of at most kHandleChunk outstanding handles.
    add("put_handle_init", [=](long k) {
      double t = 0;
      for (long done = 0; done < k;) {
        long m = std::min(kHandleChunk, k - done);
        double t0 = MPI_Wtime();
        for (long i = 0; i < m; ++i)
          BENCH_DART_CHECK(dart_put_handle(target, src, n, B, B, &hs[i]));
        t += MPI_Wtime() - t0;
        BENCH_DART_CHECK(dart_waitall(hs, static_cast<size_t>(m)));
        done += m;
      }
      return t;
    });
    add("get_handle_init", [=](long k) {
      double t = 0;
      for (long done = 0; done < k;) {
        long m = std::min(kHandleChunk, k - done);
        double t0 = MPI_Wtime();
        for (long i = 0; i < m; ++i)
          BENCH_DART_CHECK(dart_get_handle(dst, target, n, B, B, &hs[i]));
        t += MPI_Wtime() - t0;
        BENCH_DART_CHECK(dart_waitall(hs, static_cast<size_t>(m)));
        bench::clobber(dst);
        done += m;
      }
      return t;
    });
    for (auto &c : cases) runner.run(c);
  }

  runner.barrier();
  BENCH_DART_CHECK(dart_team_memfree(gptr));
}

}  // namespace

int main(int argc, char **argv) {
  {
    dart_ret_t ret = dart_init(&argc, &argv);
    if (ret != DART_OK) {
      std::fprintf(stderr, "dart_init failed: %d (%s)\n", static_cast<int>(ret),
                   dart_strerror(ret));
      return 1;
    }
  }
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  run_all(bench::parse_options(argc, argv));
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
