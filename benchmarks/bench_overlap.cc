// SPDX-License-Identifier: BSD-3-Clause
// bench_overlap: how much of a non-blocking transfer the origin can hide behind its own
// computation (bench=overlap), and what a computing target costs an origin's get
// (bench=overlap-target). Unit 0 is the origin, unit 1 the target.
//
//   mpiexec -n 2 bench_overlap [--quick] [--sizes 4K,64K] [--target-sizes 8,64K]
//       [--mode plain|progress|async-thread] [--placement node|remote] [--reps R]
//       [--impl NAME] [--no-target] [--out FILE]
//
// Availability (the Sandia host-overhead method as in ICPADS 2016 Sec. III-A): for each
// (impl, op, size) the transfer time alone, base_t (start + wait), then iterations of
// start, work, wait with a growing amount of work (a compute loop without MPI or DART
// calls, calibrated in iterations per microsecond) until the iteration time iter_t
// exceeds 1.5 base_t; at that point, with work_t the time of the work loop alone,
//   overhead_us = iter_t - work_t,  availability = 1 - overhead_us / base_t
// (both clipped to their range: a loaded machine can push them past it). Each time is the
// median over --reps batches of the mean per iteration (a batch lasts >= 200 us); work
// and iteration batches alternate, so both see the same load. median_us / min_us are
// base_t's median and min.
//
// Target side (Casper's asynchronous-progress benchmark): the origin times single gets
// (start + wait) to a target that is idle (waiting in MPI: it yields the core between
// tests, and after 16 tests sleeps 20 us between them when DART's waits sleep, i.e. more
// processes than cores, as an idle DART unit does; else a spinning idle target would take
// the core a progress process needs) and to a target that computes 100 us at a time without MPI
// calls, testing once between two work periods whether the origin is done (op get_target_idle /
// get_target_busy, remote placement only).
//
// Modes: plain   impls `dart` (dart_get_handle / dart_put_handle + dart_wait) and
//                `mpi-rma-allocate` (MPI_Get / MPI_Put + MPI_Win_flush on an
//                MPI_Win_allocate window over the units);
//        progress  the same DART code as `dart-progress`; the job runs with
//                DART_PROGRESS_PER_NODE=1 (benchmarks/run starts the extra processes);
//                a run without progress processes fails;
//        async-thread  the MPI code as `mpi-async-thread` under MPI_THREAD_MULTIPLE
//                (the job runs with MPICH's MPIR_CVAR_ASYNC_PROGRESS=1).
// --impl NAME renames the progress mode's rows (NAME starts with "dart"): benchmarks/run
// measures the offload threshold's crossover with two progress jobs that differ only in
// DART_PROGRESS_THRESHOLD. --no-target leaves the target-side cases out.
// Correctness: every case moves a pattern unique to the case; after the case the
// receiver checks every byte ("CHECK FAILED" and abort otherwise); at the end unit 0
// prints "bench_overlap: every check passed".
// Rows: the latency benchmark's columns, `case` (empty), `availability`, `overhead_us`
// (empty for overlap-target rows).
#include "bench_dart.h"

#include <sched.h>

#include <cstdint>
#include <cstring>
#include <ctime>

namespace {

struct Opts {
  bool quick = false;
  std::string mode = "plain", placement, out, impl;
  bool target = true;
  std::vector<size_t> sizes, target_sizes;
  int reps = 0;
};

Opts parse(int argc, char **argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) bench::die(("missing value for " + a).c_str());
      return argv[++i];
    };
    auto sizes = [&](std::vector<size_t> *v) {
      for (const std::string &s : bench::split(val(), ',')) v->push_back(bench::parse_size(s));
    };
    if (a == "--quick")
      o.quick = true;
    else if (a == "--mode")
      o.mode = val();
    else if (a == "--placement")
      o.placement = val();
    else if (a == "--out")
      o.out = val();
    else if (a == "--reps")
      o.reps = std::atoi(val().c_str());
    else if (a == "--sizes")
      sizes(&o.sizes);
    else if (a == "--target-sizes")
      sizes(&o.target_sizes);
    else if (a == "--impl")
      o.impl = val();
    else if (a == "--no-target")
      o.target = false;
    else
      bench::die(("unknown option " + a).c_str());
  }
  if (o.mode != "plain" && o.mode != "progress" && o.mode != "async-thread")
    bench::die("--mode must be plain, progress or async-thread");
  if (!o.impl.empty() && (o.mode != "progress" || o.impl.rfind("dart", 0) != 0))
    bench::die("--impl needs --mode progress and a name starting with dart");
  if (o.sizes.empty())
    o.sizes = o.quick
                  ? std::vector<size_t>{4 << 10, 64 << 10}
                  : std::vector<size_t>{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20};
  if (o.target_sizes.empty())
    o.target_sizes = o.quick ? std::vector<size_t>{8} : std::vector<size_t>{8, 64 << 10};
  if (o.reps <= 0) o.reps = o.quick ? 5 : 11;
  return o;
}

// The work: a dependent floating-point chain the compiler can neither vectorize nor
// shorten; no MPI or DART call inside.
double g_sink = 0;
void work(long iters) {
  double x = 1.0;
  for (long i = 0; i < iters; ++i) {
    x = x * 1.0000001 + 1e-9;
    asm volatile("" : "+x"(x));
  }
  g_sink += x;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

// Work iterations per microsecond (median of 7 runs of ~1 ms).
double calibrate_work() {
  const long n = 1 << 18;
  work(n);
  std::vector<double> rate;
  for (int r = 0; r < 7; ++r) {
    double t0 = MPI_Wtime();
    work(n);
    rate.push_back(n / ((MPI_Wtime() - t0) * 1e6));
  }
  return median(rate);
}

// Mean seconds per iteration of m iterations of body.
double batch(long m, const std::function<void()> &body) {
  double t0 = MPI_Wtime();
  for (long i = 0; i < m; ++i) body();
  return (MPI_Wtime() - t0) / m;
}

uint8_t pattern(size_t i, int salt) { return static_cast<uint8_t>(i * 7 + salt * 13 + 1); }

// One transfer of a case (origin side): start it, wait for its completion.
struct Transfer {
  std::function<void()> start, wait;
};

class Overlap {
 public:
  explicit Overlap(const Opts &o) : opt_(o) {
    comm_ = bench::units_comm();
    BENCH_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    int size = 0;
    BENCH_MPI_CHECK(MPI_Comm_size(comm_, &size));
    if (size != 2) bench::die("run with exactly 2 units");
    int32_t node0 = -1, node1 = -1;
    BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(0), &node0));
    BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(1), &node1));
    placement_ = node0 == node1 ? "node" : "remote";
    if (!o.placement.empty() && o.placement != placement_)
      bench::die(("--placement " + o.placement + " but DART reports " + placement_).c_str());
    max_ = std::max(*std::max_element(o.sizes.begin(), o.sizes.end()),
                    *std::max_element(o.target_sizes.begin(), o.target_sizes.end()));
    local_.assign(max_, 0);
    per_us_ = calibrate_work();
    sleepy_ = std::strstr(dart_config_string(), "waits: sleep") != nullptr;
    if (rank_ == 0) {
      out_ = o.out.empty() ? stdout : std::fopen(o.out.c_str(), "a");
      if (!out_) bench::die(("cannot open " + o.out).c_str());
    }
    if (o.mode == "plain" || o.mode == "progress") {
      BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, max_, DART_TYPE_BYTE, &seg_));
      target_ = seg_;
      BENCH_DART_CHECK(dart_gptr_setunit(&target_, DART_TEAM_UNIT_ID(1)));
      dart_gptr_t mine = seg_;
      BENCH_DART_CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(rank_)));
      void *addr = nullptr;
      BENCH_DART_CHECK(dart_gptr_getaddr(mine, &addr));
      dart_mem_ = static_cast<uint8_t *>(addr);
    }
    if (o.mode == "plain" || o.mode == "async-thread") {
      BENCH_MPI_CHECK(MPI_Win_allocate(max_, 1, MPI_INFO_NULL, comm_, &mpi_mem_, &win_));
      BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
    }
  }

  ~Overlap() {
    if (win_ != MPI_WIN_NULL) {
      BENCH_MPI_CHECK(MPI_Win_unlock_all(win_));
      BENCH_MPI_CHECK(MPI_Win_free(&win_));
    }
    if (!DART_GPTR_ISNULL(seg_)) BENCH_DART_CHECK(dart_team_memfree(seg_));
    if (out_ && out_ != stdout) std::fclose(out_);
  }

  void run() {
    std::vector<std::string> impls;
    if (opt_.mode == "plain")
      impls = {"dart", "mpi-rma-allocate"};
    else if (opt_.mode == "progress")
      impls = {opt_.impl.empty() ? "dart-progress" : opt_.impl};
    else
      impls = {"mpi-async-thread"};
    for (size_t n : opt_.sizes)
      for (const std::string &impl : impls)
        for (const char *op : {"get", "put"}) availability(impl, op, n);
    if (placement_ == "remote" && opt_.target)
      for (size_t n : opt_.target_sizes)
        for (const std::string &impl : impls)
          for (bool busy : {false, true}) target_side(impl, n, busy);
    BENCH_MPI_CHECK(MPI_Barrier(comm_));  // a failed check aborts the job before this
    if (rank_ == 0)
      std::fprintf(stderr, "bench_overlap: every check passed (%d cases, %s, %s)\n", salt_,
                   opt_.mode.c_str(), placement_.c_str());
  }

 private:
  bool is_dart(const std::string &impl) const { return impl.rfind("dart", 0) == 0; }

  // The target's memory, as the target sees it.
  uint8_t *target_mem(const std::string &impl) {
    return is_dart(impl) ? dart_mem_ : static_cast<uint8_t *>(static_cast<void *>(mpi_mem_));
  }

  Transfer transfer(const std::string &impl, const std::string &op, size_t n) {
    const dart_datatype_t B = DART_TYPE_BYTE;
    uint8_t *buf = local_.data();
    const int ni = static_cast<int>(n);
    if (is_dart(impl)) {
      if (op == "get")
        return {[=] { BENCH_DART_CHECK(dart_get_handle(buf, target_, n, B, B, &h_)); },
                [=] { BENCH_DART_CHECK(dart_wait(&h_)); }};
      return {[=] { BENCH_DART_CHECK(dart_put_handle(target_, buf, n, B, B, &h_)); },
              [=] { BENCH_DART_CHECK(dart_wait(&h_)); }};
    }
    MPI_Win w = win_;
    if (op == "get")
      return {[=] { BENCH_MPI_CHECK(MPI_Get(buf, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, w)); },
              [=] { BENCH_MPI_CHECK(MPI_Win_flush(1, w)); }};
    return {[=] { BENCH_MPI_CHECK(MPI_Put(buf, ni, MPI_BYTE, 1, 0, ni, MPI_BYTE, w)); },
            [=] { BENCH_MPI_CHECK(MPI_Win_flush(1, w)); }};
  }

  // Both units: the target's memory and the origin's buffer are ready (local stores
  // made visible to RMA), or the transfers of the case are complete.
  void sync(const std::string &impl) {
    if (is_dart(impl)) {
      BENCH_DART_CHECK(dart_barrier(DART_TEAM_ALL));
    } else {
      BENCH_MPI_CHECK(MPI_Win_sync(win_));
      BENCH_MPI_CHECK(MPI_Barrier(comm_));
      BENCH_MPI_CHECK(MPI_Win_sync(win_));
    }
  }

  // The target's side of a case: wait (in MPI) until the origin is done. Idle: test and
  // yield the core (sleep 20 us after 16 tests when DART's waits sleep); busy: 100 us of
  // work between two tests.
  void target_wait(bool busy) {
    MPI_Request r;
    BENCH_MPI_CHECK(MPI_Ibarrier(comm_, &r));
    const long w100 = static_cast<long>(100 * per_us_);
    const struct timespec nap = {0, 20 * 1000};
    for (int done = 0, tests = 0; !done; ++tests) {
      if (busy) work(w100);
      BENCH_MPI_CHECK(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
      if (busy || done) continue;
      if (sleepy_ && tests >= 16)
        nanosleep(&nap, nullptr);
      else
        sched_yield();
    }
  }

  void origin_done() {
    MPI_Request r;
    BENCH_MPI_CHECK(MPI_Ibarrier(comm_, &r));
    BENCH_MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }

  // Before a case: the sender's data is the case's pattern, the receiver's is zero.
  void prepare(const std::string &impl, const std::string &op, size_t n) {
    ++salt_;
    uint8_t *mem = rank_ == 0 ? local_.data() : target_mem(impl);
    const bool sender = (op == "get") == (rank_ == 1);
    for (size_t i = 0; i < n; ++i) mem[i] = sender ? pattern(i, salt_) : 0;
    sync(impl);
  }

  // After a case: the receiver checks every byte.
  void check(const std::string &impl, const std::string &op, size_t n, const char *what) {
    sync(impl);
    if ((op == "get") != (rank_ == 0)) return;
    const uint8_t *mem = rank_ == 0 ? local_.data() : target_mem(impl);
    for (size_t i = 0; i < n; ++i)
      if (mem[i] != pattern(i, salt_)) {
        std::fprintf(stderr,
                     "bench_overlap: %s %s %s %zu B: byte %zu is %d, expected %d: "
                     "CHECK FAILED\n",
                     what, impl.c_str(), op.c_str(), n, i, mem[i], pattern(i, salt_));
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
  }

  void availability(const std::string &impl, const std::string &op, size_t n) {
    prepare(impl, op, n);
    if (rank_ == 1) {
      target_wait(false);
    } else {
      const Transfer x = transfer(impl, op, n);
      auto once = [&] {
        x.start();
        x.wait();
      };
      for (int i = 0; i < 3; ++i) once();
      const double est = batch(3, once);
      const int R = opt_.reps;
      auto batch_len = [&](double per_iter) {
        return std::min(1000L, std::max(1L, static_cast<long>(std::ceil(200e-6 / per_iter))));
      };
      std::vector<double> b(R);
      const long mb = batch_len(est);
      for (int r = 0; r < R; ++r) b[r] = batch(mb, once);
      const double base = median(b), base_min = *std::min_element(b.begin(), b.end());
      double work_t = 0, iter_t = 0, factor = 0;
      for (double f : {0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0}) {
        factor = f;
        const long w = std::max(1L, static_cast<long>(f * base * 1e6 * per_us_));
        const long m = batch_len(base * (1 + f));
        std::vector<double> wt(R), it(R);
        for (int r = 0; r < R; ++r) {
          wt[r] = batch(m, [&] { work(w); });
          it[r] = batch(m, [&] {
            x.start();
            work(w);
            x.wait();
          });
        }
        work_t = median(wt);
        iter_t = median(it);
        if (iter_t > 1.5 * base) break;
      }
      const double overhead = std::max(0.0, iter_t - work_t);
      const double avail = std::min(1.0, std::max(0.0, 1.0 - overhead / base));
      std::fprintf(out_, "overlap,%s,%s,%zu,2,%s,%.4f,%.4f,%ld,,%.4f,%.4f\n", impl.c_str(),
                   op.c_str(), n, placement_.c_str(), base * 1e6, base_min * 1e6,
                   static_cast<long>(R) * mb, avail, overhead * 1e6);
      std::fflush(out_);
      std::fprintf(stderr,
                   "bench_overlap: %s %s %zu B %s: base_t %.2f us, work_t %.2f us "
                   "(%.2fx base), iter_t %.2f us -> overhead %.2f us, availability %.3f\n",
                   impl.c_str(), op.c_str(), n, placement_.c_str(), base * 1e6, work_t * 1e6,
                   factor, iter_t * 1e6, overhead * 1e6, avail);
      origin_done();
    }
    check(impl, op, n, "overlap");
  }

  void target_side(const std::string &impl, size_t n, bool busy) {
    prepare(impl, "get", n);
    if (rank_ == 1) {
      target_wait(busy);
    } else {
      const Transfer x = transfer(impl, "get", n);
      const int K = opt_.quick ? 50 : 200;
      for (int i = 0; i < 3; ++i) x.start(), x.wait();
      std::vector<double> t(K);
      for (int i = 0; i < K; ++i)
        t[i] = batch(1, [&] {
          x.start();
          x.wait();
        });
      std::fprintf(out_, "overlap-target,%s,%s,%zu,2,%s,%.4f,%.4f,%d,,,\n", impl.c_str(),
                   busy ? "get_target_busy" : "get_target_idle", n, placement_.c_str(),
                   median(t) * 1e6, *std::min_element(t.begin(), t.end()) * 1e6, K);
      std::fflush(out_);
      origin_done();
    }
    check(impl, "get", n, "overlap-target");
  }

  Opts opt_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = -1, salt_ = 0;
  std::string placement_;
  size_t max_ = 0;
  double per_us_ = 1;
  bool sleepy_ = false;  // DART's waits sleep (more processes than cores): so does the idle target
  std::vector<uint8_t> local_;
  std::FILE *out_ = nullptr;
  dart_gptr_t seg_ = DART_GPTR_NULL, target_ = DART_GPTR_NULL;
  uint8_t *dart_mem_ = nullptr;
  char *mpi_mem_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  dart_handle_t h_ = DART_HANDLE_NULL;
};

}  // namespace

int main(int argc, char **argv) {
  std::string mode = "plain";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--mode") mode = argv[i + 1];
  dart_thread_support_level_t level = DART_THREAD_MULTIPLE;
  dart_ret_t rc = mode == "async-thread" ? dart_init_thread(&argc, &argv, &level)
                                         : dart_init(&argc, &argv);
  if (rc != DART_OK) return bench::init_failed("bench_overlap", rc);
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const Opts o = parse(argc, argv);
  if (o.mode == "progress") bench::require_progress("bench_overlap");
  if (o.mode == "async-thread" && level != DART_THREAD_MULTIPLE)
    bench::die("mpi-async-thread needs MPI_THREAD_MULTIPLE, which this MPI does not provide");
  {
    Overlap b(o);
    b.run();
  }
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
