// SPDX-License-Identifier: BSD-3-Clause
// Groups: local, sorted sets of global unit ids. All calls are local.
#include "dart_test.h"

#include <algorithm>

using namespace dtest;

namespace {

std::vector<int> members(dart_group_t g) {
  size_t n = 0;
  if (dart_group_size(g, &n) != DART_OK) return {-999};
  std::vector<dart_global_unit_t> ids(n + 1);
  if (n && dart_group_getmembers(g, ids.data()) != DART_OK) return {-998};
  std::vector<int> out;
  for (size_t i = 0; i < n; ++i) out.push_back(ids[i].id);
  return out;
}

dart_group_t group_of(const std::vector<int> &ids) {
  dart_group_t g = DART_GROUP_NULL;
  DART_EXPECT_OK(dart_group_create(&g));
  for (int u : ids) DART_EXPECT_OK(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(u)));
  return g;
}

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

TEST(Group, CreateDestroyEmpty) {
  dart_group_t g = DART_GROUP_NULL;
  DART_EXPECT_OK(dart_group_create(&g));
  EXPECT_NE(g, DART_GROUP_NULL);
  size_t n = 77;
  DART_EXPECT_OK(dart_group_size(g, &n));
  EXPECT_EQ(n, 0u);
  dart_global_unit_t dummy{-5};
  DART_EXPECT_OK(dart_group_getmembers(g, &dummy));
  EXPECT_EQ(dummy.id, -5);
  DART_EXPECT_OK(dart_group_destroy(&g));
  EXPECT_EQ(g, DART_GROUP_NULL);
}

TEST(Group, SortedWhateverInsertionOrder) {
  const int n = nunits();
  // Reverse order and a shuffled order both end up sorted.
  std::vector<int> rev = iota(n);
  std::reverse(rev.begin(), rev.end());
  dart_group_t g = group_of(rev);
  EXPECT_EQ(members(g), iota(n));
  dart_group_destroy(&g);

  if (n >= 4) {
    dart_group_t h = group_of({3, 1, 2});
    EXPECT_EQ(members(h), (std::vector<int>{1, 2, 3}));
    // Adding an existing member changes nothing.
    DART_EXPECT_OK(dart_group_addmember(h, DART_GLOBAL_UNIT_ID(2)));
    EXPECT_EQ(members(h), (std::vector<int>{1, 2, 3}));
    DART_EXPECT_OK(dart_group_addmember(h, DART_GLOBAL_UNIT_ID(0)));
    EXPECT_EQ(members(h), (std::vector<int>{0, 1, 2, 3}));
    dart_group_destroy(&h);
  }
}

TEST(Group, AddDelIsmember) {
  const int n = nunits();
  dart_group_t g = group_of(iota(n));
  for (int u = 0; u < n; ++u) {
    int32_t is = -1;
    DART_EXPECT_OK(dart_group_ismember(g, DART_GLOBAL_UNIT_ID(u), &is));
    EXPECT_EQ(is, 1);
  }
  DART_EXPECT_OK(dart_group_delmember(g, DART_GLOBAL_UNIT_ID(n - 1)));
  int32_t is = -1;
  DART_EXPECT_OK(dart_group_ismember(g, DART_GLOBAL_UNIT_ID(n - 1), &is));
  EXPECT_EQ(is, 0);
  size_t sz = 0;
  DART_EXPECT_OK(dart_group_size(g, &sz));
  EXPECT_EQ(sz, static_cast<size_t>(n - 1));
  std::vector<int> expect = iota(n - 1);
  EXPECT_EQ(members(g), expect);
  // Delete from the middle and add back: still sorted.
  if (n >= 3) {
    DART_EXPECT_OK(dart_group_delmember(g, DART_GLOBAL_UNIT_ID(1)));
    std::vector<int> without1;
    for (int u = 0; u < n - 1; ++u)
      if (u != 1) without1.push_back(u);
    EXPECT_EQ(members(g), without1);
    DART_EXPECT_OK(dart_group_addmember(g, DART_GLOBAL_UNIT_ID(1)));
    EXPECT_EQ(members(g), expect);
  }
  dart_group_destroy(&g);
}

TEST(Group, Clone) {
  const int n = nunits();
  std::vector<int> odd;
  for (int u = n - 1; u >= 0; --u)
    if (u % 2 == 0) odd.push_back(u);
  dart_group_t g = group_of(odd);
  dart_group_t c = DART_GROUP_NULL;
  DART_EXPECT_OK(dart_group_clone(g, &c));
  EXPECT_NE(c, g);
  EXPECT_EQ(members(c), members(g));
  // Independent copies.
  DART_EXPECT_OK(dart_group_delmember(c, DART_GLOBAL_UNIT_ID(0)));
  int32_t is = -1;
  DART_EXPECT_OK(dart_group_ismember(g, DART_GLOBAL_UNIT_ID(0), &is));
  EXPECT_EQ(is, 1);
  dart_group_destroy(&g);
  EXPECT_EQ(members(c).size(), odd.size() - 1);
  dart_group_destroy(&c);
}

TEST(Group, UnionIntersectOfUnsortedGroups) {
  const int n = nunits();
  // a = even units added descending, b = units >= n/2 added in a scrambled order.
  std::vector<int> a_ids, b_ids, a_sorted, b_sorted;
  for (int u = n - 1; u >= 0; --u)
    if (u % 2 == 0) a_ids.push_back(u);
  for (int u = n / 2; u < n; ++u) b_sorted.push_back(u);
  b_ids = b_sorted;
  std::rotate(b_ids.begin(), b_ids.begin() + b_ids.size() / 2, b_ids.end());
  std::reverse(b_ids.begin(), b_ids.end());
  a_sorted = a_ids;
  std::sort(a_sorted.begin(), a_sorted.end());

  dart_group_t a = group_of(a_ids), b = group_of(b_ids);
  dart_group_t u = DART_GROUP_NULL, i = DART_GROUP_NULL;
  DART_EXPECT_OK(dart_group_union(a, b, &u));
  DART_EXPECT_OK(dart_group_intersect(a, b, &i));
  std::vector<int> eu, ei;
  std::set_union(a_sorted.begin(), a_sorted.end(), b_sorted.begin(), b_sorted.end(),
                 std::back_inserter(eu));
  std::set_intersection(a_sorted.begin(), a_sorted.end(), b_sorted.begin(), b_sorted.end(),
                        std::back_inserter(ei));
  EXPECT_EQ(members(u), eu);
  EXPECT_EQ(members(i), ei);
  // With itself and with an empty group.
  dart_group_t e = DART_GROUP_NULL, ue = DART_GROUP_NULL, ie = DART_GROUP_NULL;
  DART_EXPECT_OK(dart_group_create(&e));
  DART_EXPECT_OK(dart_group_union(a, e, &ue));
  DART_EXPECT_OK(dart_group_intersect(a, e, &ie));
  EXPECT_EQ(members(ue), a_sorted);
  EXPECT_EQ(members(ie), std::vector<int>{});
  for (dart_group_t *p : {&a, &b, &u, &i, &e, &ue, &ie}) DART_EXPECT_OK(dart_group_destroy(p));
}

TEST(Group, SplitCoversAllMembersOnce) {
  const int n = nunits();
  for (int m = 1; m <= n; ++m) {  // group sizes 1..n
    std::vector<int> ids;
    for (int u = m - 1; u >= 0; --u) ids.push_back(u);
    dart_group_t g = group_of(ids);
    for (size_t parts = 1; parts <= 5; ++parts) {
      std::vector<dart_group_t> out(parts, DART_GROUP_NULL);
      size_t nout = 999;
      DART_EXPECT_OK(dart_group_split(g, parts, &nout, out.data()));
      EXPECT_LE(nout, parts);
      EXPECT_GE(nout, 1u);
      if (nout > parts) nout = parts;
      std::vector<int> all;
      size_t mn = SIZE_MAX, mx = 0;
      int last = -1;
      for (size_t p = 0; p < nout; ++p) {
        std::vector<int> mem = members(out[p]);
        mn = std::min(mn, mem.size());
        mx = std::max(mx, mem.size());
        for (int x : mem) {
          EXPECT_GT(x, last) << "parts not ascending: m=" << m << " parts=" << parts;
          last = x;
          all.push_back(x);
        }
        dart_group_destroy(&out[p]);
      }
      EXPECT_EQ(all, iota(m)) << "m=" << m << " parts=" << parts;
      if (static_cast<size_t>(m) >= parts) {
        EXPECT_EQ(nout, parts);
        EXPECT_LE(mx - mn, 1u) << "m=" << m << " parts=" << parts;
      }
    }
    dart_group_destroy(&g);
  }
}

TEST(Group, BadInputs) {
  const int n = nunits();
  dart_group_t g = group_of({0});
  size_t sz = 4242;
  int32_t is = -3;
  dart_group_t out = reinterpret_cast<dart_group_t>(0x1);

  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_create(nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_destroy(nullptr));
  dart_group_t nullg = DART_GROUP_NULL;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_destroy(&nullg));

  // Unit ids out of range: == size and negative.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_addmember(g, DART_GLOBAL_UNIT_ID(n)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_addmember(g, DART_GLOBAL_UNIT_ID(-1)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_addmember(g, DART_GLOBAL_UNIT_ID(-100000)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_delmember(g, DART_GLOBAL_UNIT_ID(n)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_delmember(g, DART_GLOBAL_UNIT_ID(-1)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_ismember(g, DART_GLOBAL_UNIT_ID(n), &is));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_ismember(g, DART_GLOBAL_UNIT_ID(-1), &is));
  EXPECT_EQ(is, -3);
  EXPECT_EQ(members(g), std::vector<int>{0}) << "failed calls changed the group";

  // NULL group handles and NULL outputs.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_addmember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_delmember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_group_ismember(DART_GROUP_NULL, DART_GLOBAL_UNIT_ID(0), &is));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_ismember(g, DART_GLOBAL_UNIT_ID(0), nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_size(DART_GROUP_NULL, &sz));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_size(g, nullptr));
  EXPECT_EQ(sz, 4242u);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_getmembers(DART_GROUP_NULL, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_getmembers(g, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_clone(DART_GROUP_NULL, &out));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_clone(g, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_union(g, DART_GROUP_NULL, &out));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_union(DART_GROUP_NULL, g, &out));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_union(g, g, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_intersect(g, DART_GROUP_NULL, &out));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_intersect(g, g, nullptr));
  EXPECT_EQ(out, DART_GROUP_NULL) << "a failed call leaves its group output null (issue 30)";

  dart_group_t parts[2] = {reinterpret_cast<dart_group_t>(0x1),
                           reinterpret_cast<dart_group_t>(0x1)};
  size_t nout = 555;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_split(DART_GROUP_NULL, 2, &nout, parts));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_split(g, 2, nullptr, parts));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_split(g, 2, &nout, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_split(g, 0, &nout, parts));
  EXPECT_EQ(nout, 555u);
  EXPECT_EQ(parts[0], DART_GROUP_NULL);
  EXPECT_EQ(parts[1], DART_GROUP_NULL);

  DART_EXPECT_OK(dart_group_destroy(&g));
}

TEST(Group, ManyCreateDestroy) {
  // Cheap, local, no leaks visible as failures.
  const int n = nunits();
  for (int it = 0; it < 2000; ++it) {
    dart_group_t g = group_of({it % n});
    dart_group_t c = DART_GROUP_NULL;
    dart_group_clone(g, &c);
    dart_group_destroy(&g);
    dart_group_destroy(&c);
    if (g != DART_GROUP_NULL || c != DART_GROUP_NULL) {
      ADD_FAILURE() << "destroy did not reset the handle";
      break;
    }
  }
}
