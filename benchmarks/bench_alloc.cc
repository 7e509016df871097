// SPDX-License-Identifier: BSD-3-Clause
// bench_alloc: collective allocation of equal and per-unit sizes (issue 30).
//
//   mpiexec -n N bench_alloc [--sizes 4096,1048576] [--reps R] [--live M] [--impl NAME]
//                            [--quick] [--header] [--out FILE]
//
// For every size S (bytes per unit) and two patterns, `equal` (every unit S) and
// `unequal` (unit u: S / 2 + S * u / N, so the sizes differ and average about S):
//  - op alloc-<pattern>: the time of one dart_team_memalloc_aligned on DART_TEAM_ALL, the
//    largest over the units, after a barrier; median and min over R repetitions (each
//    allocation freed before the next, the first one not counted);
//  - op free-<pattern>: the same for its dart_team_memfree;
//  - column heap_bytes of the alloc rows: the heap of one live segment on one unit (the
//    largest over the units), malloc's bytes in use (mallinfo2) before and after M
//    segments are allocated, divided by M: DART's bookkeeping of a segment and MPI's of
//    its windows (the shared memory itself is not heap).
// `--impl` names the library in the rows (the driver runs the same program with another
// libdartmpi on LD_LIBRARY_PATH to compare builds). CSV rows on rank 0: the HEADER of
// bench_common.h, `case` (the pattern), then heap_bytes.
#include "bench_common.h"

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_mpi.h>

#include <malloc.h>

namespace {

double now() { return MPI_Wtime(); }

size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

void check(dart_ret_t rc, const char *what) {
  if (rc != DART_OK) {
    std::fprintf(stderr, "bench_alloc: %s failed: %s\n", what, dart_error_detail());
    dart_abort(3);
  }
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<size_t> sizes = {4096, 1 << 20};
  int reps = 21, live = 32;
  bool quick = false, header = false;
  std::string impl = "dart", out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) bench::die(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--sizes") {
      sizes.clear();
      std::string s = next();
      for (size_t p = 0; p <= s.size();) {
        size_t q = s.find(',', p);
        if (q == std::string::npos) q = s.size();
        sizes.push_back(std::strtoull(s.substr(p, q - p).c_str(), nullptr, 10));
        p = q + 1;
      }
    } else if (a == "--reps") {
      reps = std::atoi(next().c_str());
    } else if (a == "--live") {
      live = std::atoi(next().c_str());
    } else if (a == "--impl") {
      impl = next();
    } else if (a == "--out") {
      out = next();
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--header") {
      header = true;
    } else {
      bench::die(("unknown argument " + a).c_str());
    }
  }
  if (quick) {
    reps = std::min(reps, 7);
    live = std::min(live, 8);
  }
  check(dart_init(&argc, &argv), "dart_init");
  MPI_Comm comm;
  check(dart_team_comm(DART_TEAM_ALL, &comm), "dart_team_comm");
  int me = 0, n = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  FILE *f = stdout;
  if (me == 0 && !out.empty()) f = std::fopen(out.c_str(), "a");
  if (me == 0 && header) std::fprintf(f, "%s,case,heap_bytes\n", bench::kCsvHeader);
  for (size_t S : sizes) {
    for (const char *pattern : {"equal", "unequal"}) {
      const bool eq = std::strcmp(pattern, "equal") == 0;
      const size_t mine = eq ? S : S / 2 + S * (size_t)me / (size_t)n;
      std::vector<double> ta, tf;
      for (int r = 0; r <= reps; ++r) {
        dart_gptr_t g = DART_GPTR_NULL;
        MPI_Barrier(comm);
        double t0 = now();
        check(dart_team_memalloc_aligned(DART_TEAM_ALL, mine, DART_TYPE_BYTE, &g), "alloc");
        double t1 = now();
        MPI_Barrier(comm);
        double t2 = now();
        check(dart_team_memfree(g), "free");
        double t3 = now();
        double local[2] = {t1 - t0, t3 - t2}, worst[2] = {0, 0};
        MPI_Reduce(local, worst, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (r > 0) {
          ta.push_back(worst[0] * 1e6);
          tf.push_back(worst[1] * 1e6);
        }
      }
      // heap of a live segment
      std::vector<dart_gptr_t> held((size_t)live, DART_GPTR_NULL);
      MPI_Barrier(comm);
      const size_t before = heap_in_use();
      for (auto &g : held)
        check(dart_team_memalloc_aligned(DART_TEAM_ALL, mine, DART_TYPE_BYTE, &g), "alloc");
      const size_t after = heap_in_use();
      for (auto &g : held) check(dart_team_memfree(g), "free");
      long long per = live > 0 ? ((long long)after - (long long)before) / live : 0, most = 0;
      MPI_Reduce(&per, &most, 1, MPI_LONG_LONG, MPI_MAX, 0, comm);
      if (me == 0) {
        for (int k = 0; k < 2; ++k) {
          std::vector<double> &v = k == 0 ? ta : tf;
          std::sort(v.begin(), v.end());
          const double med = v.empty() ? 0 : v[v.size() / 2], mn = v.empty() ? 0 : v.front();
          std::fprintf(f, "alloc,%s,%s-%s,%zu,%d,node,%.3f,%.3f,%d,%s,%lld\n", impl.c_str(),
                       k == 0 ? "alloc" : "free", pattern, S, n, med, mn, (int)v.size(), pattern,
                       k == 0 ? most : 0LL);
        }
        std::fflush(f);
      }
    }
  }
  if (me == 0 && f != stdout) std::fclose(f);
  check(dart_exit(), "dart_exit");
  return 0;
}
