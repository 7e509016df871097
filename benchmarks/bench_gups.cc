// SPDX-License-Identifier: BSD-3-Clause
// HPCC RandomAccess (GUPS) on DART atomics and on plain MPI RMA.
//
// Rules as in HPCC's RandomAccess: a table of 2^n 64-bit words per unit (global table
// T = units * 2^n words, block-distributed: word i lives on unit i / 2^n), initialised
// with Table[i] = i; 4*T updates in all, each unit taking its contiguous share of the
// HPCC pseudo-random stream (x -> 2x, XORed with the polynomial 7 when the top bit was
// set); update = Table[ran mod T] ^= ran; at most 1024 updates outstanding per unit
// (HPCC's look-ahead limit): every 1024 updates the unit completes its outstanding ones.
// Verification: XOR is its own inverse, so applying the whole stream an even number of
// times must restore Table[i] = i; the error rate is the fraction of words that differ.
//
//   dart: dart_accumulate(DART_OP_BXOR, DART_TYPE_ULONGLONG) on a collective allocation,
//         dart_flush_all every 1024 updates (placement from the runtime, so
//         DART_UNITS_PER_NODE=1 gives the MPI RMA path, `remote`);
//   mpi:  MPI_Accumulate(MPI_BXOR, MPI_UINT64_T) on an MPI_Win_allocate window in one
//         lock_all epoch, MPI_Win_flush_all every 1024 updates (only in the `node` job).
//
// Each version runs the update phase R times (R odd; one more untimed pass makes the
// count even before verification). CSV row per version: bench=gups, op=update,
// bytes=8, median_us / min_us = seconds per update per unit over the R passes, so
// GUPS = units / (median_us * 1000). The verification result is printed on stderr and
// a nonzero error rate with atomics fails the job.
//
// Options: --log2-table N (default 16), --reps R (default 5), --placement node|remote,
//          --out FILE, --header.
#include <cstdint>

#include "bench_dart.h"

namespace {

constexpr uint64_t kPoly = 0x7;
constexpr uint64_t kPeriod = 1317624576693539401ULL;  // period of the HPCC stream
constexpr long kLookahead = 1024;

inline uint64_t next_ran(uint64_t x) { return (x << 1) ^ ((int64_t)x < 0 ? kPoly : 0); }

// The n-th element of the stream that starts at 1 (n >= 0), by repeated squaring of the
// "multiply by x" map in GF(2)[x] / (x^64 + x^2 + x + 1): powers[i] is x^(2^i)... as in
// HPCC, computed here from scratch: m2[i] is the stream element 2i steps after 1, used
// to square a value (the map is linear over GF(2)).
uint64_t stream_start(int64_t n) {
  while (n < 0) n += (int64_t)kPeriod;
  while (n > (int64_t)kPeriod) n -= (int64_t)kPeriod;
  if (n == 0) return 1;
  uint64_t m2[64];
  uint64_t t = 1;
  for (int i = 0; i < 64; ++i) {  // m2[i] = 2i steps from 1 = x^(2i)
    m2[i] = t;
    t = next_ran(next_ran(t));
  }
  int i = 62;
  while (i >= 0 && !((n >> i) & 1)) --i;
  uint64_t ran = 2;  // one step from 1
  while (i > 0) {
    // Square: ran(x)^2 = sum over set bits j of x^(2j).
    uint64_t sq = 0;
    for (int j = 0; j < 64; ++j)
      if ((ran >> j) & 1) sq ^= m2[j];
    ran = sq;
    --i;
    if ((n >> i) & 1) ran = next_ran(ran);
  }
  return ran;
}

struct Opts {
  int log2_table = 16;
  int reps = 5;
  std::string placement, out;
  bool header = false;
};

Opts parse(int argc, char **argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_gups: %s needs a value\n", a.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      return argv[++i];
    };
    if (a == "--log2-table")
      o.log2_table = std::atoi(val().c_str());
    else if (a == "--reps")
      o.reps = std::atoi(val().c_str());
    else if (a == "--placement")
      o.placement = val();
    else if (a == "--out")
      o.out = val();
    else if (a == "--header")
      o.header = true;
    else if (a == "--quick")
      o.reps = 3, o.log2_table = std::min(o.log2_table, 14);
    else {
      std::fprintf(stderr,
                   "usage: bench_gups [--log2-table N] [--reps R] [--placement node|remote]"
                   " [--out FILE] [--header] [--quick]\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (o.log2_table < 4 || o.log2_table > 30 || o.reps < 1) {
    std::fprintf(stderr, "bench_gups: bad --log2-table or --reps\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (o.reps % 2 == 0) ++o.reps;
  return o;
}

// One version of the benchmark: `update(target unit, word offset in the unit's part,
// pointer to the value)` starts one update (the value must stay untouched until the
// next `complete()`: MPI may read the origin buffer any time before that), `complete()` completes
// the outstanding ones, `local` is this unit's part for initialisation and verification, `sync()`
// orders this unit's loads/stores of `local` with the atomics (collective).
struct Version {
  std::string impl;
  std::function<void(int, uint64_t, const uint64_t *)> update;
  std::function<void()> complete;
  std::function<void()> sync;
  uint64_t *local;
};

struct Result {
  double median_us, min_us;
  long iters;
  uint64_t errors;
  std::vector<double> samples;  // us per update per unit, one per timed pass
};

// Two runs of one version (taken in the order A B B A with the other version, so that a
// drift of the machine's speed during the job affects both alike) as one result.
Result merge(const Result &a, const Result &b) {
  Result r;
  r.samples = a.samples;
  r.samples.insert(r.samples.end(), b.samples.begin(), b.samples.end());
  std::sort(r.samples.begin(), r.samples.end());
  const size_t k = r.samples.size();
  r.median_us = k % 2 ? r.samples[k / 2] : 0.5 * (r.samples[k / 2 - 1] + r.samples[k / 2]);
  r.min_us = r.samples.front();
  r.iters = a.iters + b.iters;
  r.errors = a.errors + b.errors;
  return r;
}

Result run_version(const Version &v, int me, int n, int log2_local, int reps) {
  const uint64_t local_words = 1ULL << log2_local;
  const uint64_t table = local_words * (uint64_t)n;
  const bool pow2 = (table & (table - 1)) == 0;
  const int64_t updates_total = 4 * (int64_t)table;
  const int64_t mine = updates_total / n;
  const uint64_t start = stream_start(mine * me);
  for (uint64_t i = 0; i < local_words; ++i) v.local[i] = (uint64_t)me * local_words + i;
  v.sync();

  std::vector<uint64_t> vals(kLookahead);  // origin buffers of the outstanding updates
  auto pass = [&]() {
    uint64_t ran = start;
    for (int64_t i = 0; i < mine; ++i) {
      ran = next_ran(ran);
      uint64_t idx = pow2 ? (ran & (table - 1)) : (ran % table);
      uint64_t *val = &vals[i % kLookahead];
      *val = ran;
      v.update((int)(idx >> log2_local), idx & (local_words - 1), val);
      if ((i + 1) % kLookahead == 0) v.complete();
    }
    v.complete();
  };

  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    BENCH_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    pass();
    double t = MPI_Wtime() - t0;
    // Per update per unit, from the slowest unit of the pass.
    double tmax = 0;
    BENCH_MPI_CHECK(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    us.push_back(tmax * 1e6 / (double)mine);
  }
  pass();  // reps is odd: an even number of passes restores the table
  v.sync();
  uint64_t err = 0;
  for (uint64_t i = 0; i < local_words; ++i)
    if (v.local[i] != (uint64_t)me * local_words + i) ++err;
  uint64_t errors = 0;
  BENCH_MPI_CHECK(MPI_Allreduce(&err, &errors, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front(), (long)(mine * reps), errors, us};
}

void emit(std::FILE *f, const std::string &impl, int n, const std::string &placement,
          const Result &r) {
  std::fprintf(f, "gups,%s,update,8,%d,%s,%.4f,%.4f,%ld\n", impl.c_str(), n, placement.c_str(),
               r.median_us, r.min_us, r.iters);
  std::fflush(f);
}

}  // namespace

int main(int argc, char **argv) {
  if (dart_init(&argc, &argv) != DART_OK) {
    std::fprintf(stderr, "dart_init failed: %s\n", dart_error_detail());
    return 1;
  }
  Opts o = parse(argc, argv);
  {  // the jump-ahead must agree with stepping the stream
    uint64_t x = 1;
    for (int64_t k = 0; k < 300; ++k, x = next_ran(x))
      if (stream_start(k) != x) {
        std::fprintf(stderr, "bench_gups: stream_start(%lld) is wrong\n", (long long)k);
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
  }
  dart_global_unit_t myid;
  size_t nunits = 0;
  BENCH_DART_CHECK(dart_myid(&myid));
  BENCH_DART_CHECK(dart_size(&nunits));
  const int me = myid.id, n = (int)nunits;
  size_t nnodes = 0;
  BENCH_DART_CHECK(dart_node_count(&nnodes));
  const std::string placement = nnodes == 1 ? "node" : "remote";
  if (!o.placement.empty() && o.placement != placement) {
    std::fprintf(stderr, "bench_gups: --placement %s but the runtime sees %zu node(s)\n",
                 o.placement.c_str(), nnodes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::FILE *out = stdout;
  if (me == 0 && !o.out.empty()) {
    out = std::fopen(o.out.c_str(), "a");
    if (!out) {
      std::fprintf(stderr, "bench_gups: cannot open %s\n", o.out.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (me == 0 && o.header) std::fprintf(out, "%s\n", bench::kCsvHeader);
  const uint64_t local_words = 1ULL << o.log2_table;
  int failures = 0;
  auto report = [&](const std::string &impl, const std::string &pl, const Result &r) {
    const double rate = (double)r.errors / ((double)local_words * n);
    if (me == 0) {
      emit(out, impl, n, pl, r);
      std::fprintf(stderr,
                   "[gups] %-4s %-6s %d units, table 2^%d words/unit: %.5f GUPS "
                   "(median %.4f us/update/unit), verification: %llu errors (rate %.2e)\n",
                   impl.c_str(), pl.c_str(), n, o.log2_table, n / (r.median_us * 1e3), r.median_us,
                   (unsigned long long)r.errors, rate);
    }
    if (r.errors != 0) ++failures;  // both versions use atomics: 0 is required
  };

  // ---- DART -------------------------------------------------------------------------
  dart_gptr_t g = DART_GPTR_NULL;
  BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, local_words, DART_TYPE_ULONGLONG, &g));
  std::vector<dart_gptr_t> base(n, g);
  void *addr = nullptr;  // this unit's part (the returned gptr names unit 0's)
  BENCH_DART_CHECK(dart_gptr_setunit(&base[me], DART_TEAM_UNIT_ID(me)));
  BENCH_DART_CHECK(dart_gptr_getaddr(base[me], &addr));
  for (int u = 0; u < n; ++u) BENCH_DART_CHECK(dart_gptr_setunit(&base[u], DART_TEAM_UNIT_ID(u)));
  Version dart_v{"dart",
                 [&](int unit, uint64_t word, const uint64_t *val) {
                   dart_gptr_t t = base[unit];
                   t.addr_or_offs.offset += word * sizeof(uint64_t);
                   BENCH_DART_CHECK(dart_accumulate(t, val, 1, DART_TYPE_ULONGLONG, DART_OP_BXOR));
                 },
                 [&]() { BENCH_DART_CHECK(dart_flush_all(g)); },
                 // The table is initialised and verified by load/store, separated from
                 // the atomics by flushes and a barrier (docs/design.md, "Atomics").
                 [&]() { BENCH_DART_CHECK(dart_barrier(DART_TEAM_ALL)); },
                 static_cast<uint64_t *>(addr)};

  // ---- plain MPI RMA (once per run: in the job whose runtime sees one node) ----------
  const bool with_mpi = placement == "node";
  uint64_t *local = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  if (with_mpi) {
    BENCH_MPI_CHECK(MPI_Win_allocate((MPI_Aint)(local_words * sizeof(uint64_t)), sizeof(uint64_t),
                                     MPI_INFO_NULL, MPI_COMM_WORLD, &local, &win));
    BENCH_MPI_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  }
  Version mpi_v{"mpi",
                [&](int unit, uint64_t word, const uint64_t *val) {
                  BENCH_MPI_CHECK(MPI_Accumulate(val, 1, MPI_UINT64_T, unit, (MPI_Aint)word, 1,
                                                 MPI_UINT64_T, MPI_BXOR, win));
                },
                [&]() { BENCH_MPI_CHECK(MPI_Win_flush_all(win)); },
                [&]() {  // unified model: MPI_Win_sync orders local stores with RMA
                  BENCH_MPI_CHECK(MPI_Win_sync(win));
                  BENCH_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
                  BENCH_MPI_CHECK(MPI_Win_sync(win));
                },
                local};

  // Order A B B A; each run has its own verification.
  if (with_mpi) {
    Result d1 = run_version(dart_v, me, n, o.log2_table, o.reps);
    Result m1 = run_version(mpi_v, me, n, o.log2_table, o.reps);
    Result m2 = run_version(mpi_v, me, n, o.log2_table, o.reps);
    Result d2 = run_version(dart_v, me, n, o.log2_table, o.reps);
    report("dart", placement, merge(d1, d2));
    report("mpi", placement, merge(m1, m2));
  } else {
    report("dart", placement, run_version(dart_v, me, n, o.log2_table, o.reps));
  }
  BENCH_DART_CHECK(dart_barrier(DART_TEAM_ALL));
  BENCH_DART_CHECK(dart_team_memfree(g));
  if (with_mpi) {
    BENCH_MPI_CHECK(MPI_Win_unlock_all(win));
    BENCH_MPI_CHECK(MPI_Win_free(&win));
  }
  if (me == 0 && out != stdout) std::fclose(out);
  int any = 0;
  BENCH_MPI_CHECK(MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  BENCH_DART_CHECK(dart_exit());
  return any ? 3 : 0;
}
