// SPDX-License-Identifier: BSD-3-Clause
// The layout engine (dart_type_from_layout, dart_ext.h): how layouts collapse, that the
// types move the right elements on both paths, the cache's holding rules and bad layouts.
#include "dart_test.h"

#include <cstring>

using namespace dtest;

namespace {

// A layout's type and element count, EXPECTing success.
struct Held {
  dart_datatype_t type = DART_TYPE_UNDEFINED;
  size_t nelem = 0;
};

Held layout(dart_datatype_t elem, std::vector<size_t> ext, std::vector<ptrdiff_t> str) {
  Held h;
  DART_EXPECT_OK(
      dart_type_from_layout(elem, (int)ext.size(), ext.data(), str.data(), &h.type, &h.nelem));
  return h;
}

size_t cache_entries() {
  size_t n = 0;
  DART_EXPECT_OK(dart_type_layout_cache_stats(&n, nullptr));
  return n;
}

}  // namespace

// Contiguous layouts, whatever their shape, are the element type itself.
TEST(Layout, ContiguousIsBasic) {
  Held a = layout(DART_TYPE_DOUBLE, {7}, {1});
  EXPECT_EQ(a.type, DART_TYPE_DOUBLE);
  EXPECT_EQ(a.nelem, 7u);
  Held b = layout(DART_TYPE_INT, {4, 1, 3}, {1, 99, 4});  // extent-1 dimension ignored
  EXPECT_EQ(b.type, DART_TYPE_INT);
  EXPECT_EQ(b.nelem, 12u);
  Held c = layout(DART_TYPE_INT, {4, 0}, {1, -5});  // empty: nothing to describe
  EXPECT_EQ(c.type, DART_TYPE_INT);
  EXPECT_EQ(c.nelem, 0u);
  Held d = layout(DART_TYPE_BYTE, {}, {});  // 0-d: one element
  EXPECT_EQ(d.type, DART_TYPE_BYTE);
  EXPECT_EQ(d.nelem, 1u);
  DART_EXPECT_OK(dart_type_layout_release(DART_TYPE_DOUBLE));  // a no-op for basic types
}

// A column of a row-major 6 x 5 block, a 2-column block, and a 3D sub-block: each moves
// the elements of its layout (to the next unit and to self; both paths with emulation).
TEST(Layout, MovesTheRightElements) {
  const int n = nunits(), me = myid();
  constexpr int X = 4, Y = 5, Z = 6;  // a Z x Y x X block, X fastest
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, X * Y * Z, DART_TYPE_DOUBLE, &g));
  auto at = [&](int unit) {
    dart_gptr_t q = g;
    dart_gptr_setunit(&q, DART_TEAM_UNIT_ID(unit));
    return q;
  };
  double *mine = nullptr;
  dart_gptr_getaddr(at(me), reinterpret_cast<void **>(&mine));
  EXPECT_NE(mine, nullptr);  // (no early return before the collectives below)
  auto value = [](int unit, int i) { return unit * 10000.0 + i; };
  for (int i = 0; mine != nullptr && i < X * Y * Z; ++i) mine[i] = value(me, i);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  struct Case {
    std::vector<size_t> ext;
    std::vector<ptrdiff_t> str;
    size_t first;  // element offset of the first element in the block
  };
  const std::vector<Case> cases = {
      {{(size_t)Y}, {X}, 2},                      // a column: strided (X, 1)
      {{2, (size_t)Y}, {1, X}, 1},                // two columns: strided (X, 2)
      {{2, 3, 2}, {1, X, X * Y}, X + 1},          // a 2 x 3 x 2 sub-block: indexed
      {{(size_t)X, 2, 3}, {1, X, X * Y}, X * Y},  // full rows: merged to strided
  };
  for (int target : {(me + 1) % n, me}) {
    for (const Case &c : cases) {
      Held h = layout(DART_TYPE_DOUBLE, c.ext, c.str);
      EXPECT_NE(h.type, DART_TYPE_DOUBLE);
      // The expected elements, in index order (dimension 0 fastest).
      std::vector<double> want;
      std::vector<size_t> idx(c.ext.size(), 0);
      for (size_t k = 0; k < h.nelem; ++k) {
        size_t off = c.first;
        for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * (size_t)c.str[d];
        want.push_back(value(target, (int)off));
        for (size_t d = 0; d < idx.size(); ++d) {
          if (++idx[d] < c.ext[d]) break;
          idx[d] = 0;
        }
      }
      dart_gptr_t src = at(target);
      dart_gptr_incaddr(&src, (int64_t)(c.first * sizeof(double)));
      std::vector<double> got(h.nelem, -1);
      DART_EXPECT_OK(dart_get_blocking(got.data(), src, h.nelem, h.type, DART_TYPE_DOUBLE));
      EXPECT_EQ(got, want) << "target " << target << ", layout of " << c.ext.size() << " dims";
      DART_EXPECT_OK(dart_type_layout_release(h.type));
    }
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
}

// The same layout gives the same cached type; a held type cannot be destroyed by
// dart_type_destroy; releasing more often than holding is an error.
TEST(Layout, CacheHoldsAndReleases) {
  std::vector<size_t> ext = {3, 4};
  std::vector<ptrdiff_t> str = {1, 7};
  Held a = layout(DART_TYPE_FLOAT, ext, str);
  Held b = layout(DART_TYPE_FLOAT, ext, str);
  EXPECT_EQ(a.type, b.type);
  size_t entries = 0, held = 0;
  DART_EXPECT_OK(dart_type_layout_cache_stats(&entries, &held));
  EXPECT_GE(entries, 1u);
  EXPECT_GE(held, 1u);
  dart_datatype_t t = a.type;
  DART_EXPECT_CODE(DART_ERR_INVAL, dart_type_destroy(&t));
  EXPECT_EQ(t, a.type);
  DART_EXPECT_OK(dart_type_layout_release(a.type));
  DART_EXPECT_OK(dart_type_layout_release(b.type));
  DART_EXPECT_CODE(DART_ERR_INVAL, dart_type_layout_release(a.type));
  EXPECT_NE(std::string(dart_error_detail()).find("dart_type_layout_release"), std::string::npos);
  // Still cached: the next request finds the same type.
  Held c = layout(DART_TYPE_FLOAT, ext, str);
  EXPECT_EQ(c.type, a.type);
  DART_EXPECT_OK(dart_type_layout_release(c.type));
}

// When every slot is held, types are built outside the cache and freed by their release;
// the cache never grows past its bound and evicts only what nobody holds.
TEST(Layout, BoundedCacheNeverFreesAHeldType) {
  std::vector<Held> held;
  for (ptrdiff_t s = 2; s < 2 + 300; ++s) held.push_back(layout(DART_TYPE_INT, {3}, {s}));
  const size_t bound = cache_entries();
  EXPECT_LT(bound, 300u);
  // Every held type still works (none was freed under its holder).
  int src[3 * 301] = {0};
  for (int i = 0; i < 3 * 301; ++i) src[i] = i;
  std::vector<int> local(3);
  const int me = myid();
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 3 * 301, DART_TYPE_INT, &g));
  dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(me));
  int *mine = nullptr;
  dart_gptr_getaddr(g, reinterpret_cast<void **>(&mine));
  EXPECT_NE(mine, nullptr);
  if (mine != nullptr) std::memcpy(mine, src, sizeof src);
  for (size_t i = 0; i < held.size(); i += 37) {
    const int s = (int)i + 2;
    DART_EXPECT_OK(dart_get_blocking(local.data(), g, 3, held[i].type, DART_TYPE_INT));
    EXPECT_EQ(local, (std::vector<int>{0, s, 2 * s}));
  }
  for (Held &h : held) DART_EXPECT_OK(dart_type_layout_release(h.type));
  size_t entries = 0, nheld = 0;
  DART_EXPECT_OK(dart_type_layout_cache_stats(&entries, &nheld));
  EXPECT_EQ(entries, bound);
  EXPECT_EQ(nheld, 0u);
  // A new layout now evicts an unheld entry instead of growing the cache.
  Held extra = layout(DART_TYPE_INT, {3}, {1000});
  EXPECT_EQ(cache_entries(), bound);
  DART_EXPECT_OK(dart_type_layout_release(extra.type));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
}

// Layouts no DART datatype describes, and bad arguments: DART_ERR_INVAL with a reason.
TEST(Layout, BadLayouts) {
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  size_t n = 0;
  auto rc = [&](dart_datatype_t elem, std::vector<size_t> ext, std::vector<ptrdiff_t> str) {
    return dart_type_from_layout(elem, (int)ext.size(), ext.data(), str.data(), &t, &n);
  };
  auto detail_has = [](const char *what) {
    return std::string(dart_error_detail()).find(what) != std::string::npos;
  };
  DART_EXPECT_CODE(DART_ERR_INVAL, rc(DART_TYPE_INT, {4}, {-1}));  // reversed
  EXPECT_TRUE(detail_has("negative"));
  DART_EXPECT_CODE(DART_ERR_INVAL, rc(DART_TYPE_INT, {4, 2}, {1, 0}));  // broadcast
  DART_EXPECT_CODE(DART_ERR_INVAL, rc(DART_TYPE_INT, {2, 4}, {4, 1}));  // transposed
  EXPECT_TRUE(detail_has("index order"));
  DART_EXPECT_CODE(DART_ERR_INVAL, rc(DART_TYPE_INT, {3, 2}, {1, 2}));             // overlapping
  DART_EXPECT_CODE(DART_ERR_INVAL, rc(DART_TYPE_INT, {2}, {(ptrdiff_t)1 << 40}));  // > INT_MAX
  DART_EXPECT_CODE(DART_ERR_INVAL, rc(DART_TYPE_UNDEFINED, {2}, {1}));
  DART_EXPECT_CODE(DART_ERR_INVAL, rc(DART_TYPE_LAST, {2}, {1}));
  size_t ext[2] = {(size_t)1 << 40, (size_t)1 << 40};
  ptrdiff_t str[2] = {1, 1};
  DART_EXPECT_CODE(DART_ERR_INVAL, dart_type_from_layout(DART_TYPE_INT, 2, ext, str, &t, &n));
  DART_EXPECT_CODE(DART_ERR_INVAL, dart_type_from_layout(DART_TYPE_INT, -1, ext, str, &t, &n));
  DART_EXPECT_CODE(DART_ERR_INVAL, dart_type_from_layout(DART_TYPE_INT, 1, nullptr, str, &t, &n));
  DART_EXPECT_CODE(DART_ERR_INVAL, dart_type_from_layout(DART_TYPE_INT, 1, ext, str, nullptr, &n));
  DART_EXPECT_CODE(DART_ERR_INVAL, dart_type_layout_release((dart_datatype_t)12345));
}
