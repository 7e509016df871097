/* SPDX-License-Identifier: BSD-3-Clause */
// Shared pieces of the C++ heat examples (heat2d.cc, heat3d.cc): command line, the
// output file, the checksum and the report. The Python and Fortran versions implement
// exactly the same rules (docs/porting.md); the process grid and the blocks are the
// distributed arrays' (dart_array.h), the same in every language:
//
//  - process grid: n is factored into primes and each prime, largest first, goes to the
//    dimension that is currently smallest (ties: the lowest index), so dims are
//    non-increasing: 4 units in 2D -> 2 x 2, 3 units -> 3 x 1; unit u has coordinates in
//    row-major order over dims (the last one varies fastest). dart_array_create chooses
//    it; `dims_create` below asks the library (dart_array_dims_create) for the
//    benchmarks' hand-written exchanges (benchmarks/bench_halo.cc, bench_ghost.cc);
//  - blocks: N points over P blocks, block b has N/P points plus one if b < N % P, and
//    starts at b*(N/P) + min(b, N % P) (the arrays' default blocks);
//  - output: the final global field as one NumPy .npy file (dart_array_save: every unit
//    writes its block; the bytes of np.save of the whole array), C order (the last
//    index varies fastest); --restart FILE starts from such a file (dart_array_load,
//    on any number of units) instead of the initial state, and --iters more iterations
//    give the same bytes as an uninterrupted run;
//  - checksum: the plain left-to-right sum of that array in file order.
#pragma once

#include <dash/dart/if/dart.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace heat {

// Ends the whole job with a message when a DART call fails (never a hang).
#define HEAT_CHECK(call)                                                             \
  do {                                                                               \
    dart_ret_t heat_rc_ = (call);                                                    \
    if (heat_rc_ != DART_OK) {                                                       \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                   dart_strerror(heat_rc_), dart_error_detail());                    \
      dart_abort(3);                                                                 \
    }                                                                                \
  } while (0)

struct Args {
  long nx = 0, ny = 0, nz = 0;
  long iters = 0;
  bool nonblocking = false;
  bool notify = false;  // --mode notify: faces pushed with put_notify, no barrier
  std::string mode = "blocking";
  std::string out;      // --out: the final field as a .npy file (dart_array_save)
  std::string restart;  // --restart: start from this .npy file (dart_array_load)
};

[[noreturn]] inline void usage(const char *prog, bool three_d, const char *why) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s --nx N --ny N%s --iters N "
               "--mode blocking|nonblocking|notify [--out FILE.npy] [--restart FILE.npy]\n",
               prog, why, prog, three_d ? " --nz N" : "");
  if (dart_initialized()) dart_exit();  // every unit parses the same arguments
  std::exit(2);
}

inline Args parse_args(int argc, char **argv, bool three_d) {
  Args a;
  std::string mode = "blocking";
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) usage(argv[0], three_d, ("missing value after " + k).c_str());
    std::string v = argv[++i];
    char *end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    bool numeric = end && *end == '\0' && !v.empty();
    if (k == "--mode")
      mode = v;
    else if (k == "--out")
      a.out = v;
    else if (k == "--restart")
      a.restart = v;
    else if (!numeric)
      usage(argv[0], three_d, (k + " needs a whole number").c_str());
    else if (k == "--nx")
      a.nx = n;
    else if (k == "--ny")
      a.ny = n;
    else if (k == "--nz" && three_d)
      a.nz = n;
    else if (k == "--iters")
      a.iters = n;
    else
      usage(argv[0], three_d, ("unknown option " + k).c_str());
  }
  if (mode != "blocking" && mode != "nonblocking" && mode != "notify")
    usage(argv[0], three_d, "--mode must be blocking, nonblocking or notify");
  a.nonblocking = mode == "nonblocking";
  a.notify = mode == "notify";
  a.mode = mode;
  if (a.nx < 3 || a.ny < 3 || (three_d && a.nz < 3))
    usage(argv[0], three_d, "every grid size must be at least 3");
  if (a.iters < 0) usage(argv[0], three_d, "--iters must be >= 0");
  return a;
}

// The balanced process grid of the file comment: the one dart_array_create chooses.
inline std::vector<int> dims_create(int n, int ndims) {
  std::vector<int32_t> dims((size_t)ndims, 0);
  HEAT_CHECK(dart_array_dims_create(n, ndims, dims.data()));
  return std::vector<int>(dims.begin(), dims.end());
}

inline double checksum(const std::vector<double> &field) {
  double s = 0.0;
  for (double v : field) s += v;
  return s;
}

// Seconds on a monotonic clock.
inline double wtime() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The largest of x over all units (for the timing report).
inline double max_over_units(double x) {
  double r = 0;
  HEAT_CHECK(dart_allreduce(&x, &r, 1, DART_TYPE_DOUBLE, DART_OP_MAX, DART_TEAM_ALL));
  return r;
}

// The report of every heat example (collective; unit 0 prints): what ran (`name`, the
// process grid and the grid of points as "A x B[ x C]"), the time per iteration split
// into compute and halo exchange (max over units), the checksum and the output file.
// halo_per_iter (seconds per iteration, optional): also the median halo exchange (max
// over units), which a few descheduled iterations do not move as they move the mean.
inline void report(const char *name, const std::string &procs, const std::string &points,
                   const Args &args, double t_halo, double t_compute,
                   const std::vector<double> &global, int me, int nunits,
                   const std::vector<double> *halo_per_iter = nullptr) {
  const double halo = max_over_units(t_halo), compute = max_over_units(t_compute);
  double median = 0;
  if (halo_per_iter) {
    std::vector<double> v = *halo_per_iter;
    if (!v.empty()) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      median = v[v.size() / 2];
      if (v.size() % 2 == 0)  // the mean of the two middle values, as NumPy and Fortran
        median = (median + *std::max_element(v.begin(), v.begin() + v.size() / 2)) / 2;
    }
    median = max_over_units(median);
  }
  if (me != 0) return;
  size_t nnodes = 0;
  HEAT_CHECK(dart_node_count(&nnodes));
  const double per = args.iters > 0 ? 1e6 / (double)args.iters : 0.0;
  std::printf("%s (C++): %d units (%s) on %zu node(s), grid %s, %ld iterations, %s\n", name, nunits,
              procs.c_str(), nnodes, points.c_str(), args.iters, args.mode.c_str());
  std::printf("time per iteration: compute %.2f us, halo exchange %.2f us (max over units)\n",
              compute * per, halo * per);
  if (halo_per_iter)
    std::printf("halo exchange median %.2f us per iteration (max over units)\n", median * 1e6);
  std::printf("checksum: %.17g\n", checksum(global));
  if (!args.out.empty()) std::printf("wrote %s\n", args.out.c_str());
}

}  // namespace heat
