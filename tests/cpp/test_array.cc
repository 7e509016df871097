// SPDX-License-Identifier: BSD-3-Clause
// Distributed arrays with ghost layers (dart_array.h): the ghost-filling matrix (ndim
// 1-4, asymmetric widths 0-3, every periodic combination, star and box, default, given
// and 1 x N grids, user-given blocks down to block = width, every basic type and complex
// points, both exchanges, blocking and split phase, two arrays in flight), region
// get/put across owners, gather/scatter, copy, the queries, neighbour-only
// synchronization, and the bad inputs (each on one unit and on all).
// dart-test: TIMEOUT 300
#include "dart_test.h"

#include <dash/dart/if/dart_array.h>
#include <dash/dart/if/dart_array.hpp>

#include <chrono>
#include <complex>
#include <functional>

using namespace dtest;

namespace {

constexpr int kMax = DART_ARRAY_MAX_DIMS;

struct Case {
  dart_array_spec_t spec;
  std::vector<int64_t> blocks;
  bool split = false;  // begin/end instead of the blocking update
  std::string name;
};

dart_array_spec_t base_spec(int ndim, dart_datatype_t dtype) {
  dart_array_spec_t s;
  dart_array_spec_init(&s);
  s.ndim = ndim;
  s.dtype = dtype;
  return s;
}

std::string describe(const Case &c) {
  std::ostringstream os;
  const auto &s = c.spec;
  os << c.name << ": ndim " << s.ndim << " dtype " << s.dtype << "x" << s.components << " stencil "
     << (s.stencil ? "box" : "star") << " exchange " << s.exchange
     << (c.split ? " split" : " blocking") << " shape/procs/lo/hi/periodic:";
  for (int d = 0; d < s.ndim; ++d)
    os << " [" << s.shape[d] << "/" << s.procs[d] << "/" << s.halo_lo[d] << "/" << s.halo_hi[d]
       << "/" << s.boundary[d] << "]";
  return os.str();
}

// The value of global point g (wrapped into the array) in round `round`, kept within what
// every basic type holds exactly (1..100 for bytes: distinct within the small arrays here).
double value_of(const dart_array_info_t &in, const int64_t *g, int round, int comp) {
  int64_t lin = 0;
  for (int d = 0; d < in.ndim; ++d) lin = lin * in.shape[d] + g[d];
  lin = lin * in.components + comp;
  const int64_t mod = in.dtype == DART_TYPE_BYTE ? 101 : 30011;
  return (double)(1 + (lin * 7 + round * 13) % mod);
}

// v in T (through a signed integer for integer types: -7.0 -> unsigned is undefined).
template <typename T>
T as(double v) {
  if constexpr (std::is_integral<T>::value) return static_cast<T>(static_cast<long long>(v));
  return static_cast<T>(v);
}

// The expected value of the local point at global index g (with ghosts): the point's own
// value inside the block, the source's where the library fills the ghost, the sentinel
// where it must not write. Returns false for "sentinel".
bool expected_at(const dart_array_info_t &in, const int64_t *g, int64_t *wrapped) {
  int moved = 0;
  for (int d = 0; d < in.ndim; ++d) {
    wrapped[d] = g[d];
    if (g[d] >= in.lo[d] && g[d] < in.hi[d]) continue;
    ++moved;
    if (g[d] < 0 || g[d] >= in.shape[d]) {
      if (in.boundary[d] != DART_ARRAY_BOUNDARY_PERIODIC) return false;
      wrapped[d] = (g[d] + in.shape[d]) % in.shape[d];
    }
  }
  return moved <= 1 || in.stencil == DART_STENCIL_BOX;
}

// Walks every local point (ghosts included) of this unit: fn(local point offset, global
// index).
void for_each_local(const dart_array_info_t &in,
                    const std::function<void(int64_t, const int64_t *)> &fn) {
  int64_t k[kMax] = {0}, g[kMax];
  int64_t total = 1;
  for (int d = 0; d < in.ndim; ++d) total *= in.local_shape[d];
  for (int64_t off = 0; off < total; ++off) {
    for (int d = 0; d < in.ndim; ++d) g[d] = in.lo[d] - in.halo_lo[d] + k[d];
    fn(off, g);
    for (int d = in.ndim - 1; d >= 0; --d) {
      if (++k[d] < in.local_shape[d]) break;
      k[d] = 0;
    }
  }
}

template <typename T>
void fill(const dart_array_info_t &in, int round) {
  T *p = static_cast<T *>(in.local);
  for_each_local(in, [&](int64_t off, const int64_t *g) {
    bool inside = true;
    for (int d = 0; d < in.ndim; ++d) inside = inside && g[d] >= in.lo[d] && g[d] < in.hi[d];
    for (int c = 0; c < in.components; ++c)
      p[off * in.components + c] = inside ? as<T>(value_of(in, g, round, c)) : as<T>(-7.0);
  });
}

// Number of wrong points; the first few are printed.
template <typename T>
long check(const dart_array_info_t &in, int round, const std::string &what) {
  const T *p = static_cast<const T *>(in.local);
  long bad = 0;
  for_each_local(in, [&](int64_t off, const int64_t *g) {
    int64_t w[kMax];
    const bool filled = expected_at(in, g, w);
    for (int c = 0; c < in.components; ++c) {
      const T want = filled ? as<T>(value_of(in, w, round, c)) : as<T>(-7.0);
      const T got = p[off * in.components + c];
      if (got == want) continue;
      if (++bad <= 3) {
        std::ostringstream os;
        for (int d = 0; d < in.ndim; ++d) os << (d ? "," : "") << g[d];
        ADD_FAILURE() << "[unit " << myid() << "] " << what << " round " << round << ": point ("
                      << os.str() << ") comp " << c << " is " << (double)got << ", expected "
                      << (double)want << (filled ? "" : " (sentinel: must not be written)");
      }
    }
  });
  return bad;
}

// Runs one case: create, then two rounds of fill / update / check; returns the failures.
template <typename T>
long run_typed(const Case &c) {
  dart_array_t a = DART_ARRAY_NULL;
  dart_array_spec_t spec = c.spec;
  spec.blocks = c.blocks.empty() ? nullptr : c.blocks.data();
  const dart_ret_t rc = dart_array_create(&spec, &a);
  EXPECT_TRUE(code_is(describe(c).c_str(), DART_OK, rc));
  if (rc != DART_OK) return 1;
  dart_array_info_t in;
  DART_EXPECT_OK(dart_array_get_info(a, &in));
  long bad = 0;
  for (int round = 0; round < 2; ++round) {
    fill<T>(in, round);
    if (c.split) {
      DART_EXPECT_OK(dart_array_update_halo_begin(a));
      DART_EXPECT_OK(dart_array_update_halo_end(a));
    } else {
      DART_EXPECT_OK(dart_array_update_halo(a));
    }
    bad += check<T>(in, round, describe(c));
  }
  DART_EXPECT_OK(dart_array_destroy(&a));
  EXPECT_EQ(a, DART_ARRAY_NULL);
  return bad;
}

long run_case(const Case &c) {
  switch (c.spec.dtype) {
    case DART_TYPE_BYTE: return run_typed<signed char>(c);
    case DART_TYPE_SHORT: return run_typed<short>(c);
    case DART_TYPE_INT: return run_typed<int>(c);
    case DART_TYPE_UINT: return run_typed<unsigned>(c);
    case DART_TYPE_LONG: return run_typed<long>(c);
    case DART_TYPE_ULONG: return run_typed<unsigned long>(c);
    case DART_TYPE_LONGLONG: return run_typed<long long>(c);
    case DART_TYPE_ULONGLONG: return run_typed<unsigned long long>(c);
    case DART_TYPE_FLOAT: return run_typed<float>(c);
    case DART_TYPE_DOUBLE: return run_typed<double>(c);
    case DART_TYPE_LONG_DOUBLE: return run_typed<long double>(c);
  }
  ADD_FAILURE() << "no case for dtype " << c.spec.dtype;
  return 1;
}

const dart_datatype_t kTypes[] = {DART_TYPE_BYTE,     DART_TYPE_SHORT,      DART_TYPE_INT,
                                  DART_TYPE_UINT,     DART_TYPE_LONG,       DART_TYPE_ULONG,
                                  DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG,  DART_TYPE_FLOAT,
                                  DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE};

// The process grid the library chooses (MPI_Dims_create's rule), for sizing the shapes.
std::vector<int> grid_of(int n, int ndim) {
  std::vector<int> primes;
  for (int p = 2, m = n; m > 1;) {
    if (m % p == 0) {
      primes.push_back(p);
      m /= p;
    } else {
      ++p;
    }
  }
  std::vector<int> dims(ndim, 1);
  for (auto it = primes.rbegin(); it != primes.rend(); ++it)
    *std::min_element(dims.begin(), dims.end()) *= *it;
  std::sort(dims.begin(), dims.end(), std::greater<int>());
  return dims;
}

// The matrix: for every ndim, every periodic combination and both stencils, asymmetric
// widths 0-3 (blocks of at least 3 points, uneven), exchange, blocking/split and dtype
// rotating.
std::vector<Case> matrix(int n) {
  std::vector<Case> cases;
  int k = 0;
  for (int nd = 1; nd <= kMax; ++nd) {
    const std::vector<int> grid = grid_of(n, nd);
    for (int mask = 0; mask < (1 << nd); ++mask)
      for (int stencil = 0; stencil < 2; ++stencil, ++k) {
        Case c;
        const dart_datatype_t t = kTypes[k % 11];
        c.spec = base_spec(nd, t);
        if (k % 13 == 5 && (t == DART_TYPE_DOUBLE || t == DART_TYPE_FLOAT)) c.spec.components = 2;
        if (k % 7 == 3) c.spec.components = 3;
        for (int d = 0; d < nd; ++d) {
          c.spec.shape[d] = 3 * grid[d] + (d + k) % 3;  // blocks of 3 or 4 points
          c.spec.halo_lo[d] = (d + mask + stencil) % 4;
          c.spec.halo_hi[d] = (2 * d + mask + 1 + k) % 4;
          c.spec.boundary[d] = (mask >> d) & 1;
        }
        c.spec.stencil = stencil;
        c.spec.exchange = 1 + (mask + stencil + k / 3) % 2;
        c.split = ((mask >> 1) + stencil + k) % 2;
        c.name = "matrix " + std::to_string(k);
        cases.push_back(c);
      }
  }
  return cases;
}

}  // namespace

// Oversubscribed (3 and 4 units on the CI's 2 cores) every creation and free of the two
// windows of an array costs tens of milliseconds of scheduling: there a third of the
// matrix runs (every ndim, stencil and exchange still occurs), and a sixth with progress
// processes, whose window creations take part in a job-wide protocol (design.md).
TEST(Array, GhostMatrix) {
  long bad = 0;
  const std::vector<Case> cases = matrix(nunits());
  int32_t progress = 0;
  dart_progress_per_node(&progress);
  const size_t step = !oversubscribed() ? 1 : progress > 0 ? 6 : 3;
  for (size_t k = 0; k < cases.size(); k += step) bad += run_case(cases[k]);
  EXPECT_EQ(bad, 0);
}

// Given grids: 1 x N, N x 1 and (in 3D) 1 x N x 1, each periodic where the grid has one
// process (so the unit is its own neighbour there), both exchanges, box.
TEST(Array, GivenGrids) {
  const int n = nunits();
  long bad = 0;
  int k = 0;
  for (int nd = 2; nd <= 3; ++nd)
    for (int along = 0; along < nd; ++along)
      for (int ex = 1; ex <= 2; ++ex, ++k) {
        Case c;
        c.spec = base_spec(nd, DART_TYPE_DOUBLE);
        for (int d = 0; d < nd; ++d) {
          c.spec.procs[d] = d == along ? n : 1;
          c.spec.shape[d] = d == along ? 2 * n + 1 : 4;
          c.spec.halo_lo[d] = 1 + (d + k) % 2;
          c.spec.halo_hi[d] = 2 - (d + k) % 2;
          c.spec.boundary[d] = DART_ARRAY_BOUNDARY_PERIODIC;
        }
        c.spec.stencil = DART_STENCIL_BOX;
        c.spec.exchange = ex;
        c.split = k % 2;
        c.name = "grid along " + std::to_string(along);
        bad += run_case(c);
      }
  EXPECT_EQ(bad, 0);
}

// User-given uneven blocks down to block = width (the narrowest block is exactly as wide as
// the widest ghost it fills), periodic, box, both exchanges.
TEST(Array, GivenBlocks) {
  const int n = nunits();
  long bad = 0;
  for (int ex = 1; ex <= 2; ++ex) {
    Case c;
    c.spec = base_spec(2, DART_TYPE_INT);
    c.spec.procs[0] = n;
    c.spec.procs[1] = 1;
    int64_t total = 0;
    for (int u = 0; u < n; ++u) {
      const int64_t b = u % 2 == 0 ? 2 : 5;  // width 2: the narrow blocks are exactly 2
      c.blocks.push_back(b);
      total += b;
    }
    c.blocks.push_back(6);  // dimension 1: one block
    c.spec.shape[0] = total;
    c.spec.shape[1] = 6;
    c.spec.halo_lo[0] = 2;
    c.spec.halo_hi[0] = 2;
    c.spec.halo_lo[1] = 1;
    c.spec.halo_hi[1] = 0;
    c.spec.boundary[0] = c.spec.boundary[1] = DART_ARRAY_BOUNDARY_PERIODIC;
    c.spec.stencil = DART_STENCIL_BOX;
    c.spec.exchange = ex;
    c.split = ex == 2;
    c.name = "given blocks";
    bad += run_case(c);
  }
  EXPECT_EQ(bad, 0);
}

// Issue 30: every unit's memory is exactly its block with ghosts (a collective allocation
// of per-unit sizes), not the largest block's. The array's memory is the first segment
// of a fresh team (segment ids are handed out by a deterministic per-team counter from 1:
// docs/design.md), so every unit can ask every unit's size with dart_gptr_segment_size.
TEST(Array, EachUnitAllocatesExactlyItsBlock) {
  const int n = nunits();
  dart_team_t team = DART_TEAM_NULL;
  DART_EXPECT_OK(dart_team_clone(DART_TEAM_ALL, &team));
  dart_array_spec_t s = base_spec(2, DART_TYPE_DOUBLE);
  std::vector<int64_t> blocks;
  s.procs[0] = n;
  s.procs[1] = 1;
  for (int u = 0; u < n; ++u) {
    blocks.push_back(1 + 3 * u);
    s.shape[0] += 1 + 3 * u;
  }
  blocks.push_back(5);
  s.shape[1] = 5;
  s.halo_lo[0] = s.halo_hi[0] = 1;
  s.halo_lo[1] = 2;
  s.blocks = blocks.data();
  s.team = team;
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  for (int u = 0; u < n; ++u) {
    size_t nb = 0;
    DART_EXPECT_OK(dart_gptr_segment_size(gptr_of(u, 1, team, 0), &nb));
    EXPECT_EQ(nb, (size_t)(1 + 3 * u + 2) * (5 + 2) * sizeof(double)) << "unit " << u;
  }
  if (a != DART_ARRAY_NULL) {
    DART_EXPECT_OK(dart_array_update_halo(a));
  }
  DART_EXPECT_OK(dart_array_destroy(&a));
  DART_EXPECT_OK(dart_team_destroy(&team));
}

// Two arrays with updates in flight at once (begin a, begin b, end b, end a), of both
// exchanges, then a blocking update of each.
TEST(Array, TwoInFlight) {
  Case ca, cb;
  ca.spec = base_spec(2, DART_TYPE_DOUBLE);
  cb.spec = base_spec(3, DART_TYPE_LONG);
  const std::vector<int> g2 = grid_of(nunits(), 2), g3 = grid_of(nunits(), 3);
  for (int d = 0; d < 2; ++d) {
    ca.spec.shape[d] = 4 * g2[d] + 1;
    ca.spec.halo_lo[d] = ca.spec.halo_hi[d] = 1;
    ca.spec.boundary[d] = DART_ARRAY_BOUNDARY_PERIODIC;
  }
  for (int d = 0; d < 3; ++d) {
    cb.spec.shape[d] = 3 * g3[d];
    cb.spec.halo_lo[d] = 2;
    cb.spec.halo_hi[d] = 1;
  }
  ca.spec.exchange = DART_ARRAY_EXCHANGE_GET;
  cb.spec.exchange = DART_ARRAY_EXCHANGE_NOTIFY;
  cb.spec.stencil = DART_STENCIL_BOX;
  dart_array_t a = DART_ARRAY_NULL, b = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&ca.spec, &a));
  DART_EXPECT_OK(dart_array_create(&cb.spec, &b));
  dart_array_info_t ia, ib;
  DART_EXPECT_OK(dart_array_get_info(a, &ia));
  DART_EXPECT_OK(dart_array_get_info(b, &ib));
  long bad = 0;
  for (int round = 0; round < 3; ++round) {
    fill<double>(ia, round);
    fill<long>(ib, round);
    DART_EXPECT_OK(dart_array_update_halo_begin(a));
    DART_EXPECT_OK(dart_array_update_halo_begin(b));
    DART_EXPECT_OK(dart_array_update_halo_end(b));
    DART_EXPECT_OK(dart_array_update_halo_end(a));
    bad += check<double>(ia, round, "a") + check<long>(ib, round, "b");
  }
  EXPECT_EQ(bad, 0);
  DART_EXPECT_OK(dart_array_destroy(&b));
  DART_EXPECT_OK(dart_array_destroy(&a));
}

// Neighbour-only synchronization: in 1-D with 4 units (not periodic), unit 3's update
// completes while unit 0 has not called it yet (unit 0 waits for unit 3's word first).
TEST(Array, NeighboursOnly) {
  const int n = nunits(), me = myid();
  if (n != 4) return;  // the same on every unit
  for (int ex = 1; ex <= 2; ++ex) {
    dart_array_spec_t s = base_spec(1, DART_TYPE_DOUBLE);
    s.shape[0] = 16;
    s.halo_lo[0] = s.halo_hi[0] = 1;
    s.exchange = ex;
    dart_array_t a = DART_ARRAY_NULL;
    DART_EXPECT_OK(dart_array_create(&s, &a));
    dart_gptr_t flag = DART_GPTR_NULL;
    DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 1, &flag));
    dart_gptr_t at0 = flag;
    dart_gptr_setunit(&at0, DART_TEAM_UNIT_ID(0));
    bool early = true;
    if (me == 0) {
      // wait (bounded: a global synchronization would make this a deadlock) for unit 3
      dart_gptr_t mine = at0;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      int32_t got = 0;
      while (!got && std::chrono::steady_clock::now() < until) {
        DART_EXPECT_OK(dart_notify_test(mine, 1, &got));
        if (!got) std::this_thread::yield();
      }
      early = got != 0;
      DART_EXPECT_OK(dart_array_update_halo(a));
    } else {
      DART_EXPECT_OK(dart_array_update_halo(a));
      if (me == 3) {
        DART_EXPECT_OK(dart_notify(at0, 1, DART_NOTIFY_ADD));
      }
    }
    EXPECT_TRUE(early) << "unit 3's update (exchange " << ex
                       << ") did not complete before unit 0 called its own";
    dart_barrier(DART_TEAM_ALL);
    DART_EXPECT_OK(dart_notify_free(flag));
    DART_EXPECT_OK(dart_array_destroy(&a));
  }
}

// Region get/put across owners, negative-free bounds, strided buffers, gather/scatter
// round trips, copy, and the queries.
TEST(Array, RegionsGatherScatterCopy) {
  const int n = nunits(), me = myid();
  dart_array_spec_t s = base_spec(3, DART_TYPE_DOUBLE);
  const std::vector<int> g = grid_of(n, 3);
  for (int d = 0; d < 3; ++d) {
    s.shape[d] = 2 * g[d] + 3;
    s.halo_lo[d] = 1;
    s.halo_hi[d] = d % 2;
  }
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  dart_array_info_t in;
  DART_EXPECT_OK(dart_array_get_info(a, &in));
  EXPECT_EQ(in.nunits, n);
  EXPECT_EQ(in.myid, me);
  EXPECT_EQ(in.exchange == DART_ARRAY_EXCHANGE_GET || in.exchange == DART_ARRAY_EXCHANGE_NOTIFY,
            true);
  const int64_t total = s.shape[0] * s.shape[1] * s.shape[2];
  // The owner and block queries agree with each other for every point.
  long wrong_owner = 0;
  for (int64_t i = 0; i < s.shape[0]; ++i)
    for (int64_t j = 0; j < s.shape[1]; ++j)
      for (int64_t k = 0; k < s.shape[2]; ++k) {
        const int64_t idx[3] = {i, j, k};
        int32_t u = -1;
        DART_EXPECT_OK(dart_array_owner(a, idx, &u));
        int64_t lo[3], hi[3];
        DART_EXPECT_OK(dart_array_block(a, u, lo, hi));
        for (int d = 0; d < 3; ++d) wrong_owner += idx[d] < lo[d] || idx[d] >= hi[d];
      }
  EXPECT_EQ(wrong_owner, 0);

  // Scatter a global array from the last unit, gather it to unit 0: the same values.
  std::vector<double> global(total), back(total, -1.0);
  for (int64_t p = 0; p < total; ++p) global[p] = 0.5 + (double)p;
  DART_EXPECT_OK(dart_array_scatter(a, me == n - 1 ? global.data() : nullptr, n - 1));
  // Every unit's interior holds its part.
  long wrong = 0;
  for_each_local(in, [&](int64_t off, const int64_t *gi) {
    bool inside = true;
    for (int d = 0; d < 3; ++d) inside = inside && gi[d] >= in.lo[d] && gi[d] < in.hi[d];
    if (!inside) return;
    const int64_t lin = (gi[0] * s.shape[1] + gi[1]) * s.shape[2] + gi[2];
    wrong += static_cast<double *>(in.local)[off] != global[lin];
  });
  EXPECT_EQ(wrong, 0);
  DART_EXPECT_OK(dart_array_gather(a, me == 0 ? back.data() : nullptr, 0));
  if (me == 0) {
    EXPECT_EQ(back, global);
  }

  // A region spanning every owner, read by every unit into a strided buffer (every
  // second point of the innermost dimension), then written back shifted by 1000 by the
  // last unit only.
  const int64_t lo[3] = {1, 0, 1}, hi[3] = {s.shape[0], s.shape[1] - 1, s.shape[2]};
  int64_t ext[3], strides[3];
  for (int d = 0; d < 3; ++d) ext[d] = hi[d] - lo[d];
  strides[2] = 2;
  strides[1] = 2 * ext[2];
  strides[0] = strides[1] * ext[1];
  std::vector<double> buf((size_t)(strides[0] * ext[0]), -1.0);
  DART_EXPECT_OK(dart_array_get(a, lo, hi, buf.data(), strides));
  long bad_region = 0;
  for (int64_t i = 0; i < ext[0]; ++i)
    for (int64_t j = 0; j < ext[1]; ++j)
      for (int64_t k = 0; k < ext[2]; ++k) {
        const int64_t lin = ((i + lo[0]) * s.shape[1] + j + lo[1]) * s.shape[2] + k + lo[2];
        bad_region += buf[(size_t)(i * strides[0] + j * strides[1] + k * strides[2])] !=
                      global[lin];
        bad_region += buf[(size_t)(i * strides[0] + j * strides[1] + k * strides[2] + 1)] != -1.0;
      }
  EXPECT_EQ(bad_region, 0);
  dart_barrier(DART_TEAM_ALL);  // everyone has read before the last unit writes
  if (me == n - 1) {
    for (double &v : buf)
      if (v != -1.0) v += 1000.0;
    DART_EXPECT_OK(dart_array_put(a, lo, hi, buf.data(), strides));
  }
  // One point by global index, contiguous buffer (NULL strides); an empty region.
  const int64_t one_lo[3] = {0, 0, 0}, one_hi[3] = {1, 1, 1};
  double first = -1;
  DART_EXPECT_OK(dart_array_get(a, one_lo, one_hi, &first, nullptr));
  EXPECT_EQ(first, global[0]);
  const int64_t empty_hi[3] = {0, 1, 1};
  DART_EXPECT_OK(dart_array_get(a, one_lo, empty_hi, nullptr, nullptr));
  DART_EXPECT_OK(dart_array_gather(a, me == 0 ? back.data() : nullptr, 0));
  if (me == 0) {
    long bad_put = 0;
    for (int64_t i = 0; i < s.shape[0]; ++i)
      for (int64_t j = 0; j < s.shape[1]; ++j)
        for (int64_t k = 0; k < s.shape[2]; ++k) {
          const int64_t lin = (i * s.shape[1] + j) * s.shape[2] + k;
          const bool in_region = i >= lo[0] && j < hi[1] && k >= lo[2];
          bad_put += back[lin] != global[lin] + (in_region ? 1000.0 : 0.0);
        }
    EXPECT_EQ(bad_put, 0);
  }

  // copy: same distribution and halos, the contents of every block (ghosts too).
  static_cast<double *>(in.local)[0] = -42.0;  // a ghost point (or the corner of the block)
  dart_array_t b = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_copy(a, &b));
  dart_array_info_t ib;
  DART_EXPECT_OK(dart_array_get_info(b, &ib));
  int64_t points = 1;
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(ib.lo[d], in.lo[d]);
    EXPECT_EQ(ib.local_shape[d], in.local_shape[d]);
    points *= in.local_shape[d];
  }
  EXPECT_NE(ib.local, in.local);
  EXPECT_EQ(0, std::memcmp(ib.local, in.local, (size_t)points * sizeof(double)));
  DART_EXPECT_OK(dart_array_destroy(&b));
  DART_EXPECT_OK(dart_array_destroy(&a));
}

// The grid rule, public (dart_array_dims_create) and as the creation applies it.
TEST(Array, DimsCreate) {
  int32_t p2[2] = {0, 0}, p3[3] = {0, 2, 0}, p4[4] = {0, 0, 0, 0}, bad[2] = {2, 0};
  DART_EXPECT_OK(dart_array_dims_create(12, 2, p2));
  EXPECT_EQ(p2[0], 4);
  EXPECT_EQ(p2[1], 3);
  DART_EXPECT_OK(dart_array_dims_create(12, 3, p3));
  EXPECT_EQ(p3[0], 3);
  EXPECT_EQ(p3[1], 2);
  EXPECT_EQ(p3[2], 2);
  DART_EXPECT_OK(dart_array_dims_create(7, 4, p4));
  EXPECT_EQ(p4[0] * 10 + p4[1] + p4[2] + p4[3], 73);  // 7 x 1 x 1 x 1
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dims_create(7, 2, bad));
  EXPECT_EQ(bad[1], 0);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dims_create(4, 0, p2));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dims_create(4, 2, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dims_create(0, 2, p2));
  // The creation picks the same grid.
  const int n = nunits();
  dart_array_spec_t s = base_spec(3, DART_TYPE_INT);
  s.shape[0] = s.shape[1] = s.shape[2] = 8;
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  dart_array_info_t in;
  DART_EXPECT_OK(dart_array_get_info(a, &in));
  int32_t want[3] = {0, 0, 0};
  DART_EXPECT_OK(dart_array_dims_create(n, 3, want));
  for (int d = 0; d < 3; ++d) EXPECT_EQ(in.procs[d], want[d]);
  DART_EXPECT_OK(dart_array_destroy(&a));
}

// Bad input: a clear error, on every unit, nothing left behind (the layout cache's held
// count returns to where it was), no hang.
TEST(Array, BadInput) {
  const int n = nunits(), me = myid();
  size_t entries0 = 0, held0 = 0;
  dart_type_layout_cache_stats(&entries0, &held0);
  auto good = [&] {
    dart_array_spec_t s = base_spec(2, DART_TYPE_DOUBLE);
    s.shape[0] = 4 * n;
    s.shape[1] = 5;
    s.procs[0] = n;
    s.procs[1] = 1;
    s.halo_lo[0] = s.halo_hi[0] = s.halo_lo[1] = s.halo_hi[1] = 1;
    s.boundary[1] = DART_ARRAY_BOUNDARY_PERIODIC;
    s.stencil = DART_STENCIL_BOX;
    return s;
  };
  dart_array_t a = DART_ARRAY_NULL;
  auto all_fail = [&](dart_array_spec_t s, const char *needle, const char *what) {
    a = reinterpret_cast<dart_array_t>(&a);  // must become DART_ARRAY_NULL
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_create(&s, &a));
    EXPECT_EQ(a, DART_ARRAY_NULL) << what;
    EXPECT_NE(std::string(dart_error_detail()).find(needle), std::string::npos)
        << what << ": " << dart_error_detail();
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_spec_check(&s));
  };
  {
    auto s = good();
    s.ndim = 0;
    all_fail(s, "ndim 0", "ndim 0");
    s.ndim = kMax + 1;
    all_fail(s, "ndim 5", "ndim 5");
  }
  {
    auto s = good();
    s.dtype = DART_TYPE_UNDEFINED;
    all_fail(s, "not a DART basic type", "dtype");
  }
  {
    auto s = good();
    s.halo_lo[0] = 5;  // blocks of 4 rows (periodic: also checked with one unit)
    s.boundary[0] = DART_ARRAY_BOUNDARY_PERIODIC;
    all_fail(s, "wider than the block", "width > block");
  }
  {
    auto s = good();
    s.halo_hi[1] = 6;  // one process along 1, periodic: the unit itself fills it
    all_fail(s, "itself", "width > own block");
  }
  {
    auto s = good();
    s.shape[0] = n;  // blocks of 1 row, width 1: fine; then more processes than points
    s.procs[0] = n;
    s.procs[1] = 1;
    s.shape[1] = 5;
    DART_EXPECT_OK(dart_array_spec_check(&s));
    if (n > 1) {
      s.shape[0] = n - 1;
      all_fail(s, "points but", "fewer points than processes");
    }
  }
  {
    auto s = good();
    s.procs[0] = n + 1;
    all_fail(s, "does not fit", "procs");
  }
  {
    auto s = good();
    s.boundary[0] = 7;
    all_fail(s, "boundary[0]", "boundary");
    s = good();
    s.stencil = 3;
    all_fail(s, "stencil", "stencil");
    s = good();
    s.exchange = 9;
    all_fail(s, "exchange", "exchange");
    s = good();
    s.halo_lo[1] = -1;
    all_fail(s, "must be >= 0", "negative width");
  }
  {
    auto s = good();
    std::vector<int64_t> blocks(n + 1, 4);
    blocks[n] = 4;  // dimension 1 sums to 4, not 5
    s.procs[0] = n;
    s.procs[1] = 1;
    s.blocks = blocks.data();
    all_fail(s, "sum to", "blocks sum");
    s.procs[1] = 0;
    all_fail(s, "need the whole grid", "blocks without procs");
  }
  // One unit's argument is bad: that unit names it, the others name that unit.
  {
    auto s = good();
    if (me == n - 1) s.halo_lo[1] = -2;
    a = DART_ARRAY_NULL;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_create(&s, &a));
    EXPECT_EQ(a, DART_ARRAY_NULL);
    const std::string d = dart_error_detail();
    if (me == n - 1)
      EXPECT_NE(d.find("must be >= 0"), std::string::npos) << d;
    else
      EXPECT_NE(d.find("another unit failed: unit " + std::to_string(n - 1)), std::string::npos)
          << d;
  }
  // Mismatched arguments: every unit fails naming unit 0 and the first that differs.
  if (n > 1) {
    auto s = good();
    if (me == 1) s.dtype = DART_TYPE_FLOAT;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_create(&s, &a));
    const std::string d = dart_error_detail();
    EXPECT_NE(d.find("different arguments: unit 0: "), std::string::npos) << d;
    EXPECT_NE(d.find("; unit 1: "), std::string::npos) << d;
    EXPECT_NE(d.find("DART_TYPE_FLOAT"), std::string::npos) << d;
    s = good();
    if (me == n - 1) s.halo_hi[0] = 0;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_create(&s, &a));
  }
  // Calls on an array: split-phase misuse, regions out of range, a bad root (on one unit).
  {
    auto s = good();
    DART_EXPECT_OK(dart_array_create(&s, &a));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_update_halo_end(a));
    DART_EXPECT_OK(dart_array_update_halo_begin(a));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_update_halo_begin(a));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_update_halo(a));
    DART_EXPECT_OK(dart_array_update_halo_end(a));
    double v = 0;
    const int64_t lo[2] = {0, 0}, hi[2] = {1, 6}, neg[2] = {-1, 0}, one[2] = {1, 1};
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_get(a, lo, hi, &v, nullptr));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_get(a, neg, one, &v, nullptr));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_put(a, one, lo, &v, nullptr));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_get(a, lo, one, nullptr, nullptr));
    const int64_t zero_stride[2] = {0, 1};
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_get(a, lo, one, &v, zero_stride));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_owner(a, neg, nullptr));
    int32_t u;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_owner(a, neg, &u));
    int64_t blo[2], bhi[2];
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_block(a, n, blo, bhi));
    std::vector<double> whole((size_t)(4 * n * 5));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_gather(a, whole.data(), n));
    // the root's NULL buffer fails on every unit
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_gather(a, me == 0 ? nullptr : whole.data(), 0));
    // different roots
    if (n > 1)
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_scatter(a, whole.data(), me == 1 ? 1 : 0));
    DART_EXPECT_OK(dart_array_gather(a, whole.data(), 0));
    // destroy ends an update in flight
    DART_EXPECT_OK(dart_array_update_halo_begin(a));
    DART_EXPECT_OK(dart_array_destroy(&a));
  }
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_destroy(&a));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_destroy(nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_update_halo(DART_ARRAY_NULL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_create(nullptr, &a));
  dart_array_info_t info;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_get_info(DART_ARRAY_NULL, &info));
  size_t entries1 = 0, held1 = 0;
  dart_type_layout_cache_stats(&entries1, &held1);
  EXPECT_EQ(held1, held0) << "layout types still held after the failed creations";
}

// The C++ class (dart_array.hpp): global-index element access, the options, complex
// points, move, copy, exceptions with the DART code.
TEST(Array, CppClass) {
  const int n = nunits(), me = myid();
  using C = std::complex<double>;
  dart::Array<C> u({3 * n, 4}, dart::ArrayOptions()
                                   .halo({1, 2}, {2, 1})
                                   .periodic({true, true})
                                   .stencil(DART_STENCIL_BOX)
                                   .procs({n, 1})
                                   .exchange(DART_ARRAY_EXCHANGE_NOTIFY));
  EXPECT_EQ(u.ndim(), 2);
  EXPECT_EQ(u.lo(0), 3 * me);
  EXPECT_EQ(u.hi(0), 3 * me + 3);
  EXPECT_EQ(u.local_shape(1), 4 + 2 + 1);
  EXPECT_EQ(u.info().components, 2);
  for (int64_t i = u.lo(0); i < u.hi(0); ++i)
    for (int64_t j = 0; j < 4; ++j) u(i, j) = C((double)i, (double)j);
  u.update_halo();
  long bad = 0;
  for (int64_t i = u.lo(0) - 1; i < u.hi(0) + 2; ++i)
    for (int64_t j = -2; j < 4 + 1; ++j) {
      const int64_t wi = (i + 3 * n) % (3 * n), wj = (j + 4) % 4;
      bad += u(i, j) != C((double)wi, (double)wj);
    }
  EXPECT_EQ(bad, 0);
  // move keeps the array; copy duplicates it (collective).
  dart::Array<C> v = std::move(u);
  dart::Array<C> w = v.copy();
  EXPECT_EQ(w(w.lo(0), 0), C((double)w.lo(0), 0.0));
  std::vector<C> all(n == 0 ? 0 : (size_t)(3 * n * 4));
  w.gather(all.data(), 0);
  if (me == 0) {
    EXPECT_EQ(all[(size_t)(4 * (3 * n - 1) + 3)], C(3.0 * n - 1, 3.0));
  }
  // A region by global index; a bad one throws dart::error with DART_ERR_INVAL.
  C two[2];
  v.get({0, 1}, {1, 3}, two);
  EXPECT_EQ(two[1], C(0.0, 2.0));
  try {
    v.get({0, 0}, {1, 5}, two);
    ADD_FAILURE() << "no exception for a region past the end";
  } catch (const dart::error &e) {
    EXPECT_EQ(e.code(), DART_ERR_INVAL);
    EXPECT_NE(std::string(e.what()).find("dart_array_get"), std::string::npos) << e.what();
  }
  // A creation that fails on every unit throws on every unit.
  bool threw = false;
  try {
    dart::Array<float> bad_array({n - 1 + 0 * me}, dart::ArrayOptions().procs({n}));
  } catch (const dart::error &e) {
    threw = e.code() == DART_ERR_INVAL;
  }
  EXPECT_EQ(threw, true);
  w.destroy();
}
