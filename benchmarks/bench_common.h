/* SPDX-License-Identifier: BSD-3-Clause */
// Shared timing harness of the DART-MPI benchmark programs (MPI only, no DART).
//
// Method (see docs/performance.md): rank 0 is the origin, rank 1 the target. For
// every case (impl, op, bytes) rank 0 runs one discarded call, calibrates a batch size
// K so that one batch takes at least --batch-us microseconds of wall time, runs one
// warm-up batch, then R timed batches.
// Each batch is announced to the target by an MPI_Bcast of K; the target then runs
// its side of the batch (nothing for one-sided ops) and waits in the next MPI_Bcast,
// so it sits inside MPI (driving progress) while the origin works. The time of a
// batch divided by K is one sample; the row reports median and min over the R
// samples and iters = R*K.
//
// Adding a case: push a bench::Case with an `origin` function that runs K operations
// and returns the seconds to count, and (two-sided cases only) a `target` function.
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// Abort the whole job (never hang the peer) when an MPI call fails.
#define BENCH_MPI_CHECK(call)                                                                   \
  do {                                                                                          \
    int bench_rc_ = (call);                                                                     \
    if (bench_rc_ != MPI_SUCCESS) {                                                             \
      char bench_msg_[MPI_MAX_ERROR_STRING];                                                    \
      int bench_len_ = 0;                                                                       \
      MPI_Error_string(bench_rc_, bench_msg_, &bench_len_);                                     \
      std::fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, bench_rc_, \
                   bench_msg_);                                                                 \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                             \
    }                                                                                           \
  } while (0)

[[noreturn]] inline void die(const char *msg) {
  std::fprintf(stderr, "bench: %s\n", msg);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::abort();
}

// Keeps the compiler from eliding copies into buffers that are never read.
inline void clobber(const void *p) { asm volatile("" : : "r"(p) : "memory"); }

constexpr const char *kCsvHeader = "bench,impl,op,bytes,units,placement,median_us,min_us,iters";

inline const std::vector<size_t> &all_sizes() {
  static const std::vector<size_t> s = {8, 64, 1024, 8192, 65536, 1 << 20, 4 << 20};
  return s;
}
inline const std::vector<size_t> &quick_sizes() {
  static const std::vector<size_t> s = {8, 1024, 65536, 1 << 20};
  return s;
}

struct Options {
  bool quick = false;
  bool header = false;
  std::string bench = "latency";  // the bench column of the rows
  std::string out;                // CSV file (append); empty: stdout
  std::string placement;          // bench_latency: node|remote (set by the driver)
  std::vector<std::string> only;  // impl or impl:op filters; empty = default set
  std::vector<size_t> sizes;
  double batch_us = 500.0;  // minimum duration of one timed batch
  int reps = 0;             // 0: default (31; 21 for >= 1 MiB; 5 with --quick)
};

inline size_t parse_size(const std::string &s) {
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  std::string suf(end);
  if (suf == "K" || suf == "KiB" || suf == "k")
    v *= 1024;
  else if (suf == "M" || suf == "MiB" || suf == "m")
    v *= 1024 * 1024;
  else if (!suf.empty() && suf != "B")
    die(("bad size: " + s).c_str());
  return static_cast<size_t>(v);
}

inline std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t pos = s.find(sep, start);
    if (pos == std::string::npos) pos = s.size();
    if (pos > start) out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  return out;
}

inline const char *usage_text() {
  return "options: [--quick] [--header] [--out FILE] [--placement node|remote]\n"
         "         [--sizes 8,1K,1M] [--only impl[:op],...] [--batch-us US] [--reps R]\n";
}

inline Options parse_options(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--quick")
      o.quick = true;
    else if (a == "--header")
      o.header = true;
    else if (a == "--out")
      o.out = value();
    else if (a == "--placement")
      o.placement = value();
    else if (a == "--only")
      o.only = split(value(), ',');
    else if (a == "--sizes") {
      for (auto &s : split(value(), ',')) o.sizes.push_back(parse_size(s));
    } else if (a == "--batch-us")
      o.batch_us = std::atof(value().c_str());
    else if (a == "--reps")
      o.reps = std::atoi(value().c_str());
    else if (a == "--help" || a == "-h") {
      std::printf("%s", usage_text());
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown option %s\n%s", a.c_str(), usage_text());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (o.sizes.empty()) o.sizes = o.quick ? quick_sizes() : all_sizes();
  return o;
}

struct Case {
  std::string impl, op, placement;
  size_t bytes = 0;
  // Runs K operations on the origin; returns the seconds to charge to those K ops.
  std::function<double(long)> origin;
  // Two-sided cases: the target's part of a batch of K operations.
  std::function<void(long)> target;
  double divisor = 1.0;  // e.g. 2 for a ping-pong round trip -> half round trip
  long kmax = 1L << 22;
};

class Runner {
 public:
  explicit Runner(const Options &o) : opt_(o) {
    BENCH_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
    BENCH_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    BENCH_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    BENCH_MPI_CHECK(MPI_Comm_size(comm_, &size_));
    if (size_ != 2) die("run with exactly 2 processes");
    if (rank_ == 0) {
      if (!opt_.out.empty()) {
        out_ = std::fopen(opt_.out.c_str(), "a");
        if (!out_) die(("cannot open " + opt_.out).c_str());
      } else {
        out_ = stdout;
      }
      if (opt_.header) std::fprintf(out_, "%s\n", kCsvHeader);
    }
  }
  ~Runner() {
    if (out_ && out_ != stdout) std::fclose(out_);
    MPI_Comm_free(&comm_);
  }
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  int rank() const { return rank_; }
  const Options &options() const { return opt_; }

  // Whether the default set (or --only) selects impl:op.
  bool selected(const std::string &impl, const std::string &op, bool default_on = true) const {
    if (opt_.only.empty()) return default_on;
    for (auto &f : opt_.only)
      if (f == impl || f == impl + ":" + op || f == "*:" + op) return true;
    return false;
  }

  // Collective over both ranks.
  void run(const Case &c) {
    if (rank_ == 0) {
      run_origin(c);
    } else {
      for (;;) {
        long k = 0;
        BENCH_MPI_CHECK(MPI_Bcast(&k, 1, MPI_LONG, 0, comm_));
        if (k == 0) break;
        if (c.target) c.target(k);
      }
    }
  }

  void barrier() { BENCH_MPI_CHECK(MPI_Barrier(comm_)); }

 private:
  // Returns the seconds charged to the K ops; *wall gets the whole batch's duration
  // (larger than the charged time when only part of the batch is timed).
  double batch(const Case &c, long k, double *wall = nullptr) {
    BENCH_MPI_CHECK(MPI_Bcast(&k, 1, MPI_LONG, 0, comm_));
    double t0 = MPI_Wtime();
    double t = c.origin(k);
    if (wall) *wall = MPI_Wtime() - t0;
    return t;
  }

  int reps_for(size_t bytes) const {
    if (opt_.reps > 0) return opt_.reps;
    if (opt_.quick) return 5;
    return bytes >= (1u << 20) ? 21 : 31;
  }

  void run_origin(const Case &c) {
    const double target = opt_.batch_us * 1e-6;
    // First touch (page faults, lazy connection setup) is not part of calibration.
    batch(c, 1);
    // Calibration (doubles as warm-up): grow K until one batch takes >= target wall
    // time (for *_handle_init the untimed completion counts here, keeping K bounded).
    long k = 1;
    for (;;) {
      double t = 0;
      batch(c, k, &t);
      if (t >= target || k >= c.kmax) break;
      double grow = t > 0 ? std::ceil(1.2 * target / t) : 16.0;
      grow = std::min(std::max(grow, 2.0), 64.0);
      k = std::min(c.kmax, static_cast<long>(k * grow));
    }
    batch(c, k);  // warm-up at the final K
    const int reps = reps_for(c.bytes);
    std::vector<double> us(reps);
    for (int r = 0; r < reps; ++r) us[r] = batch(c, k) * 1e6 / (k * c.divisor);
    long zero = 0;
    BENCH_MPI_CHECK(MPI_Bcast(&zero, 1, MPI_LONG, 0, comm_));
    std::sort(us.begin(), us.end());
    double median = (reps % 2) ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
    std::fprintf(out_, "%s,%s,%s,%zu,%d,%s,%.4f,%.4f,%ld\n", opt_.bench.c_str(), c.impl.c_str(),
                 c.op.c_str(), c.bytes, size_, c.placement.c_str(), median, us[0],
                 static_cast<long>(reps) * k);
    std::fflush(out_);
  }

  Options opt_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = -1, size_ = 0;
  std::FILE *out_ = nullptr;
};

}  // namespace bench
