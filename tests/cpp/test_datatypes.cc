// SPDX-License-Identifier: BSD-3-Clause
// Derived datatypes: strided (halo columns), indexed, custom (structs), destruction and
// type mismatches. Chunked transfers (DART_TRANSFER_CHUNK) are in prog_chunking.cc.
#include "dart_test.h"

#include <algorithm>
#include <utility>

using namespace dtest;

namespace {

constexpr int R = 6, C = 5;  // local block: R rows x C columns, row-major, doubles
// Segment layout per unit: the R*C block, then a contiguous halo of R doubles.
constexpr size_t kHaloOff = R * C;
constexpr size_t kSegElems = R * C + R;

double cell(int unit, int r, int c) { return unit * 1000 + r * 10 + c; }

struct Block {
  dart_gptr_t g = DART_GPTR_NULL;
  double *local = nullptr;
  dart_gptr_t at(int unit, size_t elem) const {
    dart_gptr_t q = g;
    dart_gptr_setunit(&q, DART_TEAM_UNIT_ID(unit));
    dart_gptr_incaddr(&q, (int64_t)(elem * sizeof(double)));
    return q;
  }
};

// Collective.
void make_block(Block &b) {
  const int me = myid();
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kSegElems, DART_TYPE_DOUBLE, &b.g));
  dart_gptr_getaddr(b.at(me, 0), reinterpret_cast<void **>(&b.local));
  EXPECT_NE(b.local, nullptr);
  if (b.local) {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) b.local[r * C + c] = cell(me, r, c);
    for (int r = 0; r < R; ++r) b.local[kHaloOff + r] = -1;
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

}  // namespace

// A halo column of a row-major block moves with a strided type, as the source type
// (local column -> remote contiguous halo) and as the destination type (local contiguous
// -> remote column), to the right neighbour and to self; and back with gets.
TEST(Datatypes, StridedHaloColumn) {
  const int n = nunits(), me = myid();
  dart_datatype_t col = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, C, 1, &col));
  EXPECT_NE(col, DART_TYPE_UNDEFINED);
  EXPECT_NE(col, DART_TYPE_DOUBLE);
  for (int target : {(me + 1) % n, me}) {
    Block b;
    make_block(b);
    const int left = target == me ? me : (me + n - 1) % n;
    // 1. Source strided: my last column -> target's halo (contiguous).
    std::vector<double> mycol(R * C);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) mycol[r * C + c] = cell(me, r, c);
    DART_EXPECT_OK(
        dart_put_blocking(b.at(target, kHaloOff), &mycol[C - 1], R, col, DART_TYPE_DOUBLE));
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    for (int r = 0; b.local && r < R; ++r)
      EXPECT_EQ(b.local[kHaloOff + r], cell(left, r, C - 1)) << "target " << target << " row " << r;
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    // 2. Destination strided: a contiguous vector -> target's column 0.
    std::vector<double> v(R);
    for (int r = 0; r < R; ++r) v[r] = -100.0 * (me + 1) - r;
    DART_EXPECT_OK(dart_put_blocking(b.at(target, 0), v.data(), R, DART_TYPE_DOUBLE, col));
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    if (b.local)
      for (int r = 0; r < R; ++r) {
        EXPECT_EQ(b.local[r * C + 0], -100.0 * (left + 1) - r) << "row " << r;
        for (int c = 1; c < C; ++c)
          EXPECT_EQ(b.local[r * C + c], cell(me, r, c)) << "neighbour cell touched";
      }
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    // 3. Get with a strided source: target's column 2 -> contiguous.
    std::vector<double> got(R, 0);
    DART_EXPECT_OK(dart_get_blocking(got.data(), b.at(target, 2), R, col, DART_TYPE_DOUBLE));
    for (int r = 0; r < R; ++r) EXPECT_EQ(got[r], cell(target, r, 2));
    // 4. Get with a strided destination: target's halo -> my local column buffer.
    std::vector<double> cols(R * C, 0.5);
    DART_EXPECT_OK(dart_get_blocking(&cols[3], b.at(target, kHaloOff), R, DART_TYPE_DOUBLE, col));
    const int target_left = (target + n - 1) % n;
    for (int r = 0; r < R; ++r) {
      EXPECT_EQ(cols[r * C + 3], cell(target == me ? me : target_left, r, C - 1)) << "row " << r;
      EXPECT_EQ(cols[r * C + 2], 0.5);
    }
    // 5. Strided on both sides: target's column 3 -> my buffer's column 1.
    std::vector<double> both(R * C, 0.5);
    DART_EXPECT_OK(dart_get_blocking(&both[1], b.at(target, 3), R, col, col));
    for (int r = 0; r < R; ++r) EXPECT_EQ(both[r * C + 1], cell(target, r, 3));
    // 6. Non-blocking variants with a strided type.
    std::vector<double> nb(R, 0);
    dart_handle_t h = DART_HANDLE_NULL;
    DART_EXPECT_OK(dart_get_handle(nb.data(), b.at(target, 4), R, col, DART_TYPE_DOUBLE, &h));
    DART_EXPECT_OK(dart_wait(&h));
    for (int r = 0; r < R; ++r) EXPECT_EQ(nb[r], cell(target, r, 4));
    DART_EXPECT_OK(dart_get(nb.data(), b.at(target, 1), R, col, DART_TYPE_DOUBLE));
    DART_EXPECT_OK(dart_flush(b.at(target, 0)));
    for (int r = 0; r < R; ++r) EXPECT_EQ(nb[r], cell(target, r, 1));
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    DART_EXPECT_OK(dart_team_memfree(b.g));
  }
  // Two columns at once: blocklen 2 (columns 1 and 2).
  dart_datatype_t col2 = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, C, 2, &col2));
  Block b;
  make_block(b);
  std::vector<double> two(2 * R, 0);
  DART_EXPECT_OK(
      dart_get_blocking(two.data(), b.at((me + 1) % n, 1), 2 * R, col2, DART_TYPE_DOUBLE));
  for (int r = 0; r < R; ++r) {
    EXPECT_EQ(two[2 * r], cell((me + 1) % n, r, 1));
    EXPECT_EQ(two[2 * r + 1], cell((me + 1) % n, r, 2));
  }
  // nelem not a multiple of the block length: INVAL.
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_get_blocking(two.data(), b.at(me, 1), 3, col2, DART_TYPE_DOUBLE));
  // A strided pattern that reaches past the end of the segment: INVAL.
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_get_blocking(two.data(), b.at(me, 1), R + 2, col, DART_TYPE_DOUBLE));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(b.g));
  DART_EXPECT_OK(dart_type_destroy(&col2));
  DART_EXPECT_OK(dart_type_destroy(&col));
  EXPECT_EQ(col, DART_TYPE_UNDEFINED);
}

TEST(Datatypes, Indexed) {
  const int n = nunits(), me = myid();
  const size_t bl[3] = {2, 1, 3}, off[3] = {0, 4, 7};  // 6 elements in an extent of 10
  dart_datatype_t idx = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_INT, 3, bl, off, &idx));
  const std::vector<int> pos = {0, 1, 4, 7, 8, 9};
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 40, DART_TYPE_INT, &g));
  int *local = nullptr;
  dart_gptr_t mine = g;
  dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me));
  dart_gptr_getaddr(mine, reinterpret_cast<void **>(&local));
  if (local)
    for (int i = 0; i < 40; ++i) local[i] = -1;
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  dart_gptr_t rg = g;
  dart_gptr_setunit(&rg, DART_TEAM_UNIT_ID(right));
  // Destination indexed: 12 contiguous ints -> two patterns at the right neighbour.
  std::vector<int> src(12);
  for (int i = 0; i < 12; ++i) src[i] = me * 100 + i;
  DART_EXPECT_OK(dart_put_blocking(rg, src.data(), 12, DART_TYPE_INT, idx));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  if (local) {
    std::vector<int> expect(40, -1);
    for (int k = 0; k < 12; ++k) expect[(k / 6) * 10 + pos[k % 6]] = left * 100 + k;
    for (int i = 0; i < 40; ++i) EXPECT_EQ(local[i], expect[i]) << "index " << i;
  }
  // Source indexed: gather them back.
  std::vector<int> back(12, 0);
  DART_EXPECT_OK(dart_get_blocking(back.data(), rg, 12, idx, DART_TYPE_INT));
  EXPECT_EQ(back, src);
  // Local indexed buffer as the source of a put to self (after everybody has read).
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  std::vector<int> scattered(20, 0);
  for (int k = 0; k < 6; ++k) scattered[pos[k]] = 500 + k;
  DART_EXPECT_OK(dart_put_blocking(mine, scattered.data(), 6, idx, DART_TYPE_INT));
  for (int k = 0; local && k < 6; ++k) EXPECT_EQ(local[k], 500 + k);
  // Not a multiple of the pattern's 6 elements: INVAL.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(back.data(), rg, 5, idx, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(rg, src.data(), 7, DART_TYPE_INT, idx));
  // Four patterns need an extent of 40 ints: exactly fits; five do not.
  std::vector<int> big(30, 1);
  DART_EXPECT_OK(dart_get_blocking(big.data(), rg, 24, idx, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(big.data(), rg, 30, idx, DART_TYPE_INT));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
  DART_EXPECT_OK(dart_type_destroy(&idx));
}

// Blocks out of order and overlapping, as MPI_Type_indexed allows: elements are taken in
// the order of the blocks. Overlap is legal where the type is read (the source of a put,
// the remote side of a get) and refused as a destination. The right neighbour is on the
// same node (load/store path) or, with DART_UNITS_PER_NODE=1, reached by MPI RMA.
TEST(Datatypes, IndexedUnorderedAndOverlapping) {
  const int n = nunits(), me = myid();
  const int right = (n > 0) ? (me + 1) % n : 0;
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_INT, &g));
  dart_gptr_t mine = g, rg = g;
  dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me));
  dart_gptr_setunit(&rg, DART_TEAM_UNIT_ID(right));
  int *local = nullptr;
  dart_gptr_getaddr(mine, reinterpret_cast<void **>(&local));
  if (local)
    for (int i = 0; i < 16; ++i) local[i] = -1;
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));

  // Unordered: [5], [0 1], [3] -- 4 elements per pattern, extent 6.
  const size_t ubl[3] = {1, 2, 1}, uoff[3] = {5, 0, 3};
  const int upos[4] = {5, 0, 1, 3};
  dart_datatype_t unord = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_INT, 3, ubl, uoff, &unord));
  std::vector<int> src(8);
  for (int k = 0; k < 8; ++k) src[k] = me * 100 + k;
  DART_EXPECT_OK(dart_put_blocking(rg, src.data(), 8, DART_TYPE_INT, unord));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  const int left = (n > 0) ? (me + n - 1) % n : 0;
  if (local) {
    std::vector<int> expect(16, -1);
    for (int k = 0; k < 8; ++k) expect[(k / 4) * 6 + upos[k % 4]] = left * 100 + k;
    for (int i = 0; i < 16; ++i) EXPECT_EQ(local[i], expect[i]) << "index " << i;
  }
  std::vector<int> back(8, 0);
  DART_EXPECT_OK(dart_get_blocking(back.data(), rg, 8, unord, DART_TYPE_INT));
  EXPECT_EQ(back, src);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));

  // Overlapping: [0 1 2], [1 2] -- 5 elements per pattern, extent 3.
  const size_t obl[2] = {3, 2}, ooff[2] = {0, 1};
  dart_datatype_t over = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_INT, 2, obl, ooff, &over));
  if (local)
    for (int i = 0; i < 16; ++i) local[i] = me * 1000 + i;
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  // Remote side of a get: elements 0 1 2 1 2 of each pattern.
  std::vector<int> got(10, 0);
  DART_EXPECT_OK(dart_get_blocking(got.data(), rg, 10, over, DART_TYPE_INT));
  const int opos[5] = {0, 1, 2, 1, 2};
  for (int k = 0; k < 10; ++k) EXPECT_EQ(got[k], right * 1000 + (k / 5) * 3 + opos[k % 5]) << k;
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  // Source of a put: a local pattern read with overlap into 5 contiguous remote ints.
  const int three[3] = {7, 8, 9};
  DART_EXPECT_OK(dart_put_blocking(rg, three, 5, over, DART_TYPE_INT));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  if (local) {
    const int expect[5] = {7, 8, 9, 8, 9};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(local[i], expect[i]) << "index " << i;
  }
  // As a destination (remote side of a put, local side of a get): refused, nothing moves.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(rg, got.data(), 5, DART_TYPE_INT, over));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put(rg, got.data(), 5, DART_TYPE_INT, over));
  std::vector<int> untouched(3, -7);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(untouched.data(), rg, 5, DART_TYPE_INT, over));
  EXPECT_EQ(untouched, std::vector<int>(3, -7));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  if (local) {
    const int expect[5] = {7, 8, 9, 8, 9};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(local[i], expect[i]) << "after refused put, index " << i;
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
  DART_EXPECT_OK(dart_type_destroy(&over));
  DART_EXPECT_OK(dart_type_destroy(&unord));
}

// Gets whose remote layout is dense (span <= 5/4 of the bytes: a blocking get fetches the
// span contiguously and unpacks it locally) and sparse ones (one MPI derived-type get), from
// the right neighbour and from self, into contiguous and strided local buffers, blocking
// and with handles: every form must deliver the same elements.
TEST(Datatypes, DenseAndSparseRemoteGets) {
  const int n = nunits(), me = myid();
  Block b;
  make_block(b);
  struct Case {
    size_t stride, blocklen, nelem;  // the remote strided type (elements of the R x C block)
    const char *what;
  };
  // Interior columns 0..C-2 of all rows: span 29 of 24 elements (dense); columns 0..C-3
  // of all rows: span 28 of 18 (sparse); one row: a single block (no span copy); 3 rows.
  const Case cases[] = {{C, C - 1, R * (C - 1), "dense rows"},
                        {C, C - 2, R * (C - 2), "sparse rows"},
                        {C, C - 1, C - 1, "one block"},
                        {C, C - 1, 3 * (C - 1), "three rows"}};
  for (int target : {(me + 1) % n, me}) {
    for (const Case &k : cases) {
      dart_datatype_t rt = DART_TYPE_UNDEFINED, lt = DART_TYPE_UNDEFINED;
      DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, k.stride, k.blocklen, &rt));
      // Local destination: the same elements spread with a gap of one after each block.
      DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, k.blocklen + 1, k.blocklen, &lt));
      std::vector<double> expect;
      for (size_t e = 0; e < k.nelem; ++e) {
        size_t blk = e / k.blocklen, off = e % k.blocklen, at = blk * k.stride + off;
        expect.push_back(cell(target, (int)(at / C), (int)(at % C)));
      }
      std::vector<double> flat(k.nelem, -1), flat_h(k.nelem, -1);
      DART_EXPECT_OK(
          dart_get_blocking(flat.data(), b.at(target, 0), k.nelem, rt, DART_TYPE_DOUBLE));
      dart_handle_t h = DART_HANDLE_NULL;
      DART_EXPECT_OK(
          dart_get_handle(flat_h.data(), b.at(target, 0), k.nelem, rt, DART_TYPE_DOUBLE, &h));
      DART_EXPECT_OK(dart_wait(&h));
      EXPECT_EQ(flat, expect) << k.what << ", target " << target;
      EXPECT_EQ(flat_h, expect) << k.what << ", target " << target << " (handle)";
      const size_t nblk = k.nelem / k.blocklen, span = nblk * (k.blocklen + 1);
      std::vector<double> spread(span, -2);
      DART_EXPECT_OK(dart_get_blocking(spread.data(), b.at(target, 0), k.nelem, rt, lt));
      for (size_t e = 0; e < k.nelem; ++e)
        EXPECT_EQ(spread[(e / k.blocklen) * (k.blocklen + 1) + e % k.blocklen], expect[e])
            << k.what << ", target " << target << ", element " << e;
      for (size_t blk = 0; blk < nblk; ++blk)  // the gaps stay untouched
        EXPECT_EQ(spread[blk * (k.blocklen + 1) + k.blocklen], -2) << k.what << ", gap " << blk;
      DART_EXPECT_OK(dart_type_destroy(&lt));
      DART_EXPECT_OK(dart_type_destroy(&rt));
    }
  }
  // Indexed with absolute offsets (a gptr at the block's start, as a halo face): rows 2-4,
  // columns 0..C-2 -- dense from its first element on (14 of 12 elements) although the
  // type's extent starts at 0; and rows 1, 3, 5 (sparse: 24 of 12).
  for (int target : {(me + 1) % n, me}) {
    for (size_t rows : {size_t(1), size_t(2)}) {  // row step
      const size_t r0 = rows == 1 ? 2 : 1;
      size_t bl[3], off[3];
      for (size_t i = 0; i < 3; ++i) bl[i] = C - 1, off[i] = (r0 + i * rows) * C;
      dart_datatype_t it = DART_TYPE_UNDEFINED;
      DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_DOUBLE, 3, bl, off, &it));
      std::vector<double> got(3 * (C - 1), -1), expect;
      for (size_t i = 0; i < 3; ++i)
        for (int c = 0; c < C - 1; ++c) expect.push_back(cell(target, (int)(r0 + i * rows), c));
      DART_EXPECT_OK(
          dart_get_blocking(got.data(), b.at(target, 0), got.size(), it, DART_TYPE_DOUBLE));
      EXPECT_EQ(got, expect) << "indexed, row step " << rows << ", target " << target;
      DART_EXPECT_OK(dart_type_destroy(&it));
    }
  }
  // A dense span that would pass the end of the segment is refused like any other.
  dart_datatype_t rt = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, C, C - 1, &rt));
  std::vector<double> untouched(2 * (C - 1), -3);
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_get_blocking(untouched.data(), b.at((me + 1) % n, kSegElems - C),
                                     2 * (C - 1), rt, DART_TYPE_DOUBLE));
  EXPECT_EQ(untouched, std::vector<double>(2 * (C - 1), -3));
  DART_EXPECT_OK(dart_type_destroy(&rt));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(b.g));
}

// Indexed types on both sides of a transfer (a halo face described at the origin and at
// the target): with the same block lengths (blocks paired one to one, over two patterns,
// blocks out of order) and with different ones (the blocks split where either side's end),
// as gets and puts, to the right neighbour and to self.
TEST(Datatypes, IndexedOnBothSides) {
  const int n = nunits(), me = myid();
  constexpr size_t kElems = 64;
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kElems, DART_TYPE_LONG, &g));
  auto at = [&](int unit) {
    dart_gptr_t q = g;
    dart_gptr_setunit(&q, DART_TEAM_UNIT_ID(unit));
    return q;
  };
  long *local = nullptr;
  dart_gptr_getaddr(at(me), reinterpret_cast<void **>(&local));
  EXPECT_NE(local, nullptr);  // no early return before the collectives below
  std::vector<long> stand_in(kElems);
  if (local == nullptr) local = stand_in.data();
  auto value = [](int unit, size_t i) { return (long)(unit * 1000 + i); };
  // The element offsets, in transfer order, of `reps` patterns of an indexed type.
  auto positions = [](const std::vector<size_t> &bl, const std::vector<size_t> &off, size_t reps) {
    size_t extent = 0;
    for (size_t j = 0; j < bl.size(); ++j) extent = std::max(extent, off[j] + bl[j]);
    std::vector<size_t> pos;
    for (size_t r = 0; r < reps; ++r)
      for (size_t j = 0; j < bl.size(); ++j)
        for (size_t e = 0; e < bl[j]; ++e) pos.push_back(r * extent + off[j] + e);
    return pos;
  };
  struct Case {
    const char *what;
    std::vector<size_t> rbl, roff, lbl, loff;  // remote and local type
    size_t rreps, lreps;
  };
  const Case cases[] = {
      {"same block lengths, two patterns, unordered",
       {3, 1, 2},
       {9, 0, 4},
       {3, 1, 2},
       {0, 5, 7},
       2,
       2},
      {"different block lengths", {2, 1, 3}, {0, 4, 7}, {4, 2}, {1, 8}, 2, 2},
      {"one pattern against three", {6, 6}, {0, 20}, {2, 2}, {0, 3}, 1, 3},
      // Block lengths that agree only for the first blocks, and a pattern that is the
      // start of the other's: not the block-by-block pairing, the walk.
      {"same first block lengths, then different",
       {2, 1, 3},
       {0, 4, 7},
       {2, 1, 1, 2},
       {10, 0, 3, 5},
       2,
       2},
      {"one pattern the start of the other", {2, 2}, {0, 5}, {2, 2, 2, 2}, {1, 4, 8, 12}, 2, 1},
      // One-block patterns: their block is read from the type's first line, not its array.
      {"one block on both sides, three patterns", {3}, {2}, {3}, {5}, 3, 3},
      {"one block on both sides, different lengths", {4}, {1}, {2}, {3}, 1, 2},
      {"one block against two", {4}, {0}, {2, 2}, {6, 0}, 2, 2},
      // One run on both sides at different offsets: MPI gets the element type and a
      // count (rma_start), not the two indexed types.
      {"one block on both sides, one pattern each", {4}, {3}, {4}, {6}, 1, 1},
  };
  for (const Case &k : cases) {
    dart_datatype_t rt = DART_TYPE_UNDEFINED, lt = DART_TYPE_UNDEFINED;
    DART_EXPECT_OK(
        dart_type_create_indexed(DART_TYPE_LONG, k.rbl.size(), k.rbl.data(), k.roff.data(), &rt));
    DART_EXPECT_OK(
        dart_type_create_indexed(DART_TYPE_LONG, k.lbl.size(), k.lbl.data(), k.loff.data(), &lt));
    const std::vector<size_t> rpos = positions(k.rbl, k.roff, k.rreps);
    const std::vector<size_t> lpos = positions(k.lbl, k.loff, k.lreps);
    EXPECT_EQ(rpos.size(), lpos.size()) << k.what;  // the same on every unit
    const size_t ne = std::min(rpos.size(), lpos.size());
    for (int target : {(me + 1) % n, me}) {
      const std::string where = std::string(k.what) + ", target " + std::to_string(target);
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      for (size_t i = 0; i < kElems; ++i) local[i] = value(me, i);
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      // Get: the target's elements at rpos land at lpos here; the rest stays.
      std::vector<long> buf(kElems, -1);
      DART_EXPECT_OK(dart_get_blocking(buf.data(), at(target), ne, rt, lt));
      std::vector<long> expect(kElems, -1);
      for (size_t e = 0; e < ne; ++e) expect[lpos[e]] = value(target, rpos[e]);
      EXPECT_EQ(buf, expect) << "get, " << where;
      // Put: my elements at lpos go to the target's rpos (every unit puts to its right
      // neighbour, or to itself).
      std::vector<long> src(kElems);
      for (size_t i = 0; i < kElems; ++i) src[i] = -value(me, i) - 1;
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      DART_EXPECT_OK(dart_put_blocking(at(target), src.data(), ne, lt, rt));
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      const int from = target == me ? me : (me + n - 1) % n;
      std::vector<long> mine(kElems);
      for (size_t i = 0; i < kElems; ++i) mine[i] = value(me, i);
      for (size_t e = 0; e < ne; ++e) mine[rpos[e]] = -value(from, lpos[e]) - 1;
      EXPECT_EQ(std::vector<long>(local, local + kElems), mine) << "put, " << where;
    }
    DART_EXPECT_OK(dart_type_destroy(&rt));
    DART_EXPECT_OK(dart_type_destroy(&lt));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
}

// Dense gets that complete later (dart_get, dart_get_handle) land in a buffer of their own
// and are unpacked by whichever completes them first: the handle's wait or test, or a
// flush of their target or window (the header's promise for a handle), exactly once. With
// their types destroyed before the completion, from the right neighbour and from self.
TEST(Datatypes, DenseGetsCompleteAtFlushOrWithTheirHandle) {
  const int n = nunits(), me = myid();
  Block b;
  make_block(b);
  for (int target : {(me + 1) % n, me}) {
    std::vector<double> expect;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C - 1; ++c) expect.push_back(cell(target, r, c));
    const size_t ne = expect.size();
    const dart_gptr_t at = b.at(target, 0);
    // Starts a dense get (dart_get when h is null), its type destroyed right after.
    auto start = [&](std::vector<double> &out, dart_handle_t *h) {
      dart_datatype_t rt = DART_TYPE_UNDEFINED;
      DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, C, C - 1, &rt));
      out.assign(ne, -1);
      if (h != nullptr) {
        DART_EXPECT_OK(dart_get_handle(out.data(), at, ne, rt, DART_TYPE_DOUBLE, h));
      } else {
        DART_EXPECT_OK(dart_get(out.data(), at, ne, rt, DART_TYPE_DOUBLE));
      }
      DART_EXPECT_OK(dart_type_destroy(&rt));
    };
    const std::string where = ", target " + std::to_string(target);
    // Handles: waitall over two to one target, testall, test_local.
    std::vector<double> o1, o2, o3, o4;
    dart_handle_t hs[2] = {DART_HANDLE_NULL, DART_HANDLE_NULL}, h = DART_HANDLE_NULL;
    start(o1, &hs[0]);
    start(o2, &hs[1]);
    DART_EXPECT_OK(dart_waitall(hs, 2));
    EXPECT_EQ(o1, expect) << "waitall, first" << where;
    EXPECT_EQ(o2, expect) << "waitall, second (same target)" << where;
    start(o3, &h);
    int32_t done = 0;
    DART_EXPECT_OK(dart_testall(&h, 1, &done));
    EXPECT_EQ(done, 1);
    EXPECT_EQ(o3, expect) << "testall" << where;
    start(o4, &h);
    DART_EXPECT_OK(dart_test_local(&h, &done));
    EXPECT_EQ(done, 1);
    EXPECT_EQ(o4, expect) << "test_local" << where;
    // A flush completes a handle's get; the later wait copies nothing again (the buffer
    // was reused in between).
    start(o1, &h);
    DART_EXPECT_OK(dart_flush(at));
    EXPECT_EQ(o1, expect) << "handle, then dart_flush" << where;
    std::fill(o1.begin(), o1.end(), -5.0);
    DART_EXPECT_OK(dart_wait(&h));
    EXPECT_EQ(o1, std::vector<double>(ne, -5.0)) << "wait after the flush copied again" << where;
    // A freed handle's get completes at the next flush.
    start(o2, &h);
    DART_EXPECT_OK(dart_handle_free(&h));
    EXPECT_EQ(h, DART_HANDLE_NULL);
    DART_EXPECT_OK(dart_flush_local(at));
    EXPECT_EQ(o2, expect) << "freed handle, then dart_flush_local" << where;
    // dart_get: every flush form completes it.
    using Flush = dart_ret_t (*)(dart_gptr_t);
    const std::pair<Flush, const char *> flushes[] = {
        {dart_flush, "dart_flush"},
        {dart_flush_all, "dart_flush_all"},
        {dart_flush_local, "dart_flush_local"},
        {dart_flush_local_all, "dart_flush_local_all"}};
    for (const auto &fl : flushes) {
      start(o3, nullptr);
      start(o4, nullptr);
      DART_EXPECT_OK(fl.first(at));
      EXPECT_EQ(o3, expect) << "dart_get, then " << fl.second << where;
      EXPECT_EQ(o4, expect) << "second dart_get, then " << fl.second << where;
    }
  }
  // Many pending at once (the segment's list grows past its pruning size), and many
  // completed by their handles (their records are dropped on the way).
  {
    const int target = (me + 1) % n;
    dart_datatype_t rt = DART_TYPE_UNDEFINED;
    DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, C, C - 1, &rt));
    const size_t ne = R * (C - 1);
    std::vector<std::vector<double>> outs(300, std::vector<double>(ne, -1));
    for (auto &o : outs)
      DART_EXPECT_OK(dart_get(o.data(), b.at(target, 0), ne, rt, DART_TYPE_DOUBLE));
    for (int i = 0; i < 300; ++i) {
      std::vector<double> o(ne, -1);
      dart_handle_t h = DART_HANDLE_NULL;
      DART_EXPECT_OK(dart_get_handle(o.data(), b.at(target, 0), ne, rt, DART_TYPE_DOUBLE, &h));
      DART_EXPECT_OK(dart_wait(&h));
      EXPECT_EQ(o[ne - 1], cell(target, R - 1, C - 2)) << "handle get " << i;
    }
    DART_EXPECT_OK(dart_flush_all(b.at(target, 0)));
    int wrong = 0;
    for (const auto &o : outs)
      for (size_t e = 0; e < ne; ++e)
        if (o[e] != cell(target, (int)(e / (C - 1)), (int)(e % (C - 1)))) ++wrong;
    EXPECT_EQ(wrong, 0) << "elements wrong over 300 pending dart_get";
    DART_EXPECT_OK(dart_type_destroy(&rt));
  }
  // Freeing the memory completes the gets still pending on it.
  std::vector<double> last;
  {
    dart_datatype_t rt = DART_TYPE_UNDEFINED;
    DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, C, C - 1, &rt));
    last.assign(R * (C - 1), -1);
    DART_EXPECT_OK(dart_get(last.data(), b.at((me + 1) % n, 0), last.size(), rt, DART_TYPE_DOUBLE));
    DART_EXPECT_OK(dart_type_destroy(&rt));
  }
  DART_EXPECT_OK(dart_team_memfree(b.g));
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C - 1; ++c)
      EXPECT_EQ(last[r * (C - 1) + c], cell((me + 1) % n, r, c))
          << "after memfree, " << r << "," << c;
}

namespace {
struct Rec {  // 24 bytes
  double a;
  int64_t b;
  int32_t c;
  float d;
};
static_assert(sizeof(Rec) == 24, "Rec must be 24 bytes");
bool same(const Rec &x, const Rec &y) {
  return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}
Rec rec(int u, int i) { return Rec{u + i / 8.0, 1000000000000LL * u + i, -u - i, 0.5f * i}; }
}  // namespace

TEST(Datatypes, Custom24ByteStruct) {
  const int n = nunits(), me = myid();
  dart_datatype_t rt = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_custom(sizeof(Rec), &rt));
  const int K = 5;
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, K, rt, &g));
  size_t nb = 0;
  DART_EXPECT_OK(dart_gptr_segment_size(g, &nb));
  EXPECT_EQ(nb, K * sizeof(Rec));
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  dart_gptr_t rg = g, mine = g;
  dart_gptr_setunit(&rg, DART_TEAM_UNIT_ID(right));
  dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me));
  std::vector<Rec> src(K);
  for (int i = 0; i < K; ++i) src[i] = rec(me, i);
  DART_EXPECT_OK(dart_put_blocking(rg, src.data(), K, rt, rt));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  Rec *local = nullptr;
  dart_gptr_getaddr(mine, reinterpret_cast<void **>(&local));
  for (int i = 0; local && i < K; ++i) EXPECT_TRUE(same(local[i], rec(left, i))) << "record " << i;
  std::vector<Rec> back(K);
  DART_EXPECT_OK(dart_get_blocking(back.data(), rg, K, rt, rt));
  for (int i = 0; i < K; ++i) EXPECT_TRUE(same(back[i], src[i])) << "record " << i;
  // Handles and a custom type in a collective.
  dart_handle_t h = DART_HANDLE_NULL;
  Rec one = rec(99, 1), got{};
  DART_EXPECT_OK(dart_get_handle(&got, mine, 1, rt, rt, &h));
  DART_EXPECT_OK(dart_wait(&h));
  if (local) {
    EXPECT_TRUE(same(got, local[0]));
  }
  Rec b = me == 0 ? one : Rec{};
  DART_EXPECT_OK(dart_bcast(&b, 1, rt, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  EXPECT_TRUE(same(b, one));
  std::vector<Rec> all(n);
  DART_EXPECT_OK(dart_allgather(&src[0], all.data(), 1, rt, DART_TEAM_ALL));
  for (int u = 0; u < n; ++u) EXPECT_TRUE(same(all[u], rec(u, 0)));
  // Custom vs basic: different base types.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(back.data(), rg, 1, rt, DART_TYPE_DOUBLE));
  // Strided over the custom type: every other record (header: basic or custom base).
  dart_datatype_t every2 = DART_TYPE_UNDEFINED, every1 = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_strided(rt, 2, 1, &every2));
  DART_EXPECT_OK(dart_type_create_strided(rt, 1, 1, &every1));
  if (every2 != DART_TYPE_UNDEFINED) {
    std::vector<Rec> pick(3);
    DART_EXPECT_OK(dart_get_blocking(pick.data(), rg, 3, every2, rt));
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(same(pick[i], src[2 * i])) << "record " << 2 * i;
  }
  // The strided types outlive the custom type they were built on.
  DART_EXPECT_OK(dart_type_destroy(&rt));
  if (every2 != DART_TYPE_UNDEFINED && every1 != DART_TYPE_UNDEFINED) {
    std::vector<Rec> pick(2);
    DART_EXPECT_OK(dart_get_blocking(pick.data(), rg, 2, every2, every1));
    for (int i = 0; i < 2; ++i) EXPECT_TRUE(same(pick[i], src[2 * i])) << "record " << 2 * i;
    DART_EXPECT_OK(dart_type_destroy(&every2));
    DART_EXPECT_OK(dart_type_destroy(&every1));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
}

TEST(Datatypes, DestroyAndUseAfterDestroy) {
  const int me = myid();
  dart_datatype_t s = DART_TYPE_UNDEFINED, c = DART_TYPE_UNDEFINED, x = DART_TYPE_UNDEFINED;
  const size_t bl[1] = {1}, off[1] = {0};
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &s));
  DART_EXPECT_OK(dart_type_create_custom(12, &c));
  DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_INT, 1, bl, off, &x));
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_INT, &g));
  dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(me));
  int buf[16] = {0};
  for (dart_datatype_t *t : {&s, &c, &x}) {
    const dart_datatype_t dead = *t;
    // Used first: this thread has validated it (DART remembers that until a destroy).
    DART_EXPECT_OK(dart_get_blocking(buf, g, 2, *t, *t));
    DART_EXPECT_OK(dart_type_destroy(t));
    EXPECT_EQ(*t, DART_TYPE_UNDEFINED);
    dart_datatype_t again = dead;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_destroy(&again));
    EXPECT_EQ(again, dead);
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(g, buf, 2, dead, dead));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(buf, g, 2, DART_TYPE_INT, dead));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get(buf, g, 2, dead, DART_TYPE_INT));
    dart_gptr_t ng = DART_GPTR_NULL;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_memalloc(2, dead, &ng));
    dart_datatype_t derived = DART_TYPE_UNDEFINED;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_strided(dead, 2, 1, &derived));
    EXPECT_EQ(derived, DART_TYPE_UNDEFINED);
  }
  // Collective with a destroyed type: fails on every unit (no hang).
  const dart_datatype_t dead = s;  // DART_TYPE_UNDEFINED after destroy
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_bcast(buf, 1, dead, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  // Basic types cannot be destroyed.
  for (dart_datatype_t b : {DART_TYPE_INT, DART_TYPE_DOUBLE, DART_TYPE_BYTE}) {
    dart_datatype_t t = b;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_destroy(&t));
    EXPECT_EQ(t, b);
  }
  dart_datatype_t u = DART_TYPE_UNDEFINED;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_destroy(&u));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_destroy(nullptr));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
}

TEST(Datatypes, MismatchedBaseTypes) {
  const int me = myid();
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_DOUBLE, &g));
  dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(me));
  dart_datatype_t sd = DART_TYPE_UNDEFINED, si = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_DOUBLE, 4, 1, &sd));
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_INT, 4, 1, &si));
  double buf[64] = {0};
  dart_handle_t h = DART_HANDLE_NULL;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(g, buf, 4, sd, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(g, buf, 4, DART_TYPE_FLOAT, DART_TYPE_DOUBLE));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(buf, g, 4, si, sd));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put(g, buf, 4, DART_TYPE_LONG, DART_TYPE_ULONG));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_handle(buf, g, 4, DART_TYPE_DOUBLE, si, &h));
  EXPECT_EQ(h, DART_HANDLE_NULL);
  // Same base type: fine.
  DART_EXPECT_OK(dart_get_blocking(buf, g, 4, sd, DART_TYPE_DOUBLE));
  DART_EXPECT_OK(dart_put_blocking(g, buf, 4, DART_TYPE_DOUBLE, sd));
  DART_EXPECT_OK(dart_type_destroy(&sd));
  DART_EXPECT_OK(dart_type_destroy(&si));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
}

TEST(Datatypes, CreateBadInputs) {
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  const size_t bl[2] = {1, 2}, off[2] = {0, 3};
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_strided(DART_TYPE_INT, 4, 1, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_strided(DART_TYPE_UNDEFINED, 4, 1, &t));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_strided(DART_TYPE_LAST, 4, 1, &t));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_indexed(DART_TYPE_INT, 2, bl, off, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_indexed(DART_TYPE_UNDEFINED, 2, bl, off, &t));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_indexed(DART_TYPE_INT, 2, nullptr, off, &t));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_indexed(DART_TYPE_INT, 2, bl, nullptr, &t));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_custom(8, nullptr));
  EXPECT_EQ(t, DART_TYPE_UNDEFINED);
  // Strided of strided: the base must be a basic or custom type.
  dart_datatype_t s = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_INT, 4, 1, &s));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_strided(s, 4, 1, &t));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_type_create_indexed(s, 2, bl, off, &t));
  EXPECT_EQ(t, DART_TYPE_UNDEFINED);
  DART_EXPECT_OK(dart_type_destroy(&s));
  // Many types created and destroyed.
  for (int i = 0; i < 1000; ++i) {
    dart_datatype_t a = DART_TYPE_UNDEFINED;
    if (dart_type_create_strided(DART_TYPE_DOUBLE, 3 + i % 5, 1 + i % 3, &a) != DART_OK ||
        dart_type_destroy(&a) != DART_OK) {
      ADD_FAILURE() << "cycle " << i << ": " << dart_error_detail();
      break;
    }
  }
}
