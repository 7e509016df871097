// SPDX-License-Identifier: BSD-3-Clause
// Teams: creation from groups, ids, translation, destruction, nesting, communicators,
// and symmetric collective allocation on sub-teams.
#include "dart_test.h"

#include <set>

using namespace dtest;

namespace {

std::vector<int> all_units() {
  std::vector<int> v;
  for (int u = 0; u < nunits(); ++u) v.push_back(u);
  return v;
}

std::vector<int> units_where(bool (*pred)(int, int)) {
  std::vector<int> v;
  for (int u = 0; u < nunits(); ++u)
    if (pred(u, nunits())) v.push_back(u);
  return v;
}

bool is_even(int u, int) { return u % 2 == 0; }
bool is_odd(int u, int) { return u % 2 == 1; }
bool is_last(int u, int n) { return u == n - 1; }
bool upper_half(int u, int n) { return u >= n / 2; }

bool contains(const std::vector<int> &v, int x) {
  for (int y : v)
    if (y == x) return true;
  return false;
}

// Checks everything a member can check locally about `team` made from `members`.
void check_team(dart_team_t team, const std::vector<int> &members) {
  const int me = myid();
  if (!contains(members, me)) {
    EXPECT_EQ(team, DART_TEAM_NULL) << "non-member got a team id";
    return;
  }
  ASSERT_NE(team, DART_TEAM_NULL);
  if (members.size() != (size_t)nunits() || team != DART_TEAM_ALL) {
    EXPECT_GT(team, DART_TEAM_ALL) << "created teams get fresh ids above DART_TEAM_ALL";
  }
  size_t sz = 0;
  DART_EXPECT_OK(dart_team_size(team, &sz));
  EXPECT_EQ(sz, members.size());
  dart_team_unit_t tme{-9};
  DART_EXPECT_OK(dart_team_myid(team, &tme));
  int expect_me = 0;
  while (members[expect_me] != me) ++expect_me;
  EXPECT_EQ(tme.id, expect_me) << "team ids follow the global order";
  for (size_t l = 0; l < members.size(); ++l) {
    dart_global_unit_t gu{-9};
    DART_EXPECT_OK(dart_team_unit_l2g(team, DART_TEAM_UNIT_ID((int)l), &gu));
    EXPECT_EQ(gu.id, members[l]);
    dart_team_unit_t lu{-9};
    DART_EXPECT_OK(dart_team_unit_g2l(team, DART_GLOBAL_UNIT_ID(members[l]), &lu));
    EXPECT_EQ(lu.id, (int)l);
  }
  for (int u = 0; u < nunits(); ++u) {
    if (contains(members, u)) continue;
    dart_team_unit_t lu{-9};
    DART_EXPECT_OK(dart_team_unit_g2l(team, DART_GLOBAL_UNIT_ID(u), &lu));
    EXPECT_EQ(lu.id, DART_UNDEFINED_UNIT_ID) << "g2l of non-member " << u;
  }
  // The group of the team.
  dart_group_t grp = DART_GROUP_NULL;
  DART_EXPECT_OK(dart_team_get_group(team, &grp));
  size_t gs = 0;
  DART_EXPECT_OK(dart_group_size(grp, &gs));
  EXPECT_EQ(gs, members.size());
  std::vector<dart_global_unit_t> ids(gs + 1);
  DART_EXPECT_OK(dart_group_getmembers(grp, ids.data()));
  for (size_t i = 0; i < gs && i < members.size(); ++i) EXPECT_EQ(ids[i].id, members[i]);
  dart_group_destroy(&grp);
  // The team's communicator.
  MPI_Comm comm = MPI_COMM_NULL;
  DART_EXPECT_OK(dart_team_comm(team, &comm));
  if (comm != MPI_COMM_NULL) {
    int csize = -1, crank = -1;
    MPI_Comm_size(comm, &csize);
    MPI_Comm_rank(comm, &crank);
    EXPECT_EQ(csize, (int)members.size());
    EXPECT_EQ(crank, tme.id);
  }
}

}  // namespace

TEST(Team, TeamAllBasics) {
  check_team(DART_TEAM_ALL, all_units());
  dart_team_t all = DART_TEAM_ALL;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_destroy(&all));
  EXPECT_EQ(all, DART_TEAM_ALL);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

TEST(Team, CreateFromGroups) {
  const int n = nunits();
  using Pred = bool (*)(int, int);
  const Pred preds[] = {is_even, is_odd, is_last, upper_half};
  for (Pred p : preds) {
    std::vector<int> mem = units_where(p);
    if (mem.empty()) continue;  // same decision on every unit
    dart_team_t t = make_team(mem);
    check_team(t, mem);
    if (t != DART_TEAM_NULL) {
      DART_EXPECT_OK(dart_barrier(t));
      DART_EXPECT_OK(dart_team_destroy(&t));
      EXPECT_EQ(t, DART_TEAM_NULL);
    }
  }
  // All units, group built in reverse order.
  std::vector<int> rev;
  for (int u = n - 1; u >= 0; --u) rev.push_back(u);
  dart_team_t t = make_team(rev);
  check_team(t, all_units());
  drop_team(t);
  // Non-members may pass DART_GROUP_NULL.
  {
    dart_group_t grp = DART_GROUP_NULL;
    dart_group_create(&grp);
    dart_group_addmember(grp, DART_GLOBAL_UNIT_ID(0));
    dart_team_t t0 = 12345;
    DART_EXPECT_OK(dart_team_create(DART_TEAM_ALL, myid() == 0 ? grp : DART_GROUP_NULL, &t0));
    check_team(t0, {0});
    drop_team(t0);
    dart_group_destroy(&grp);
  }
  // An empty group: nobody is a member.
  {
    dart_group_t grp = DART_GROUP_NULL;
    dart_group_create(&grp);
    dart_team_t te = 12345;
    DART_EXPECT_OK(dart_team_create(DART_TEAM_ALL, grp, &te));
    EXPECT_EQ(te, DART_TEAM_NULL);
    dart_group_destroy(&grp);
  }
}

TEST(Team, Clone) {
  dart_team_t c = DART_TEAM_NULL;
  DART_EXPECT_OK(dart_team_clone(DART_TEAM_ALL, &c));
  EXPECT_NE(c, DART_TEAM_ALL);
  check_team(c, all_units());
  std::vector<int> even = units_where(is_even);
  dart_team_t e = make_team(even);
  if (e != DART_TEAM_NULL) {
    dart_team_t ec = DART_TEAM_NULL;
    DART_EXPECT_OK(dart_team_clone(e, &ec));
    EXPECT_NE(ec, e);
    check_team(ec, even);
    drop_team(ec);
  }
  drop_team(e);
  drop_team(c);
}

TEST(Team, NestedTeams) {
  const int n = nunits();
  // Level 1: upper half; level 2 (from level 1): its last unit and, if there, the first.
  std::vector<int> l1 = units_where(upper_half);
  dart_team_t t1 = make_team(l1);
  check_team(t1, l1);
  if (t1 != DART_TEAM_NULL) {
    std::vector<int> l2 = {l1.back()};
    if (l1.size() > 1) l2.insert(l2.begin(), l1.front());
    dart_team_t t2 = make_team(l2, t1);
    check_team(t2, l2);
    if (t2 != DART_TEAM_NULL) {
      dart_team_t t3 = make_team({l2.back()}, t2);
      check_team(t3, {l2.back()});
      drop_team(t3);
      DART_EXPECT_OK(dart_barrier(t2));
    }
    drop_team(t2);
    // A group with a unit outside the parent team: INVAL on every member, no hang.
    if (n >= 2) {
      dart_group_t grp = DART_GROUP_NULL;
      dart_group_create(&grp);
      dart_group_addmember(grp, DART_GLOBAL_UNIT_ID(0));  // 0 is never in the upper half
      dart_group_addmember(grp, DART_GLOBAL_UNIT_ID(l1.back()));
      dart_team_t bad = 777;
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_create(t1, grp, &bad));
      EXPECT_EQ(bad, DART_TEAM_NULL);  // object outputs null on failure (issue 30)
      dart_group_destroy(&grp);
    }
    DART_EXPECT_OK(dart_barrier(t1));
  }
  drop_team(t1);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

TEST(Team, IdsNeverReused) {
  std::set<int> seen;
  bool dup = false, bad = false;
  const std::vector<int> all = all_units();
  // 200 creations; 50 when oversubscribed (MPICH's collectives busy-poll there: 9 s).
  const int rounds = oversubscribed() ? 50 : 200;
  for (int it = 0; it < rounds; ++it) {
    dart_team_t t = DART_TEAM_NULL;
    dart_ret_t rc = (it % 2) ? dart_team_clone(DART_TEAM_ALL, &t) : DART_OK;
    if (!(it % 2)) t = make_team(all);
    if (rc != DART_OK || t == DART_TEAM_NULL) {
      bad = true;
    } else {
      if (!seen.insert(t).second) dup = true;
      if (dart_team_destroy(&t) != DART_OK) bad = true;
    }
  }
  EXPECT_FALSE(bad) << dart_error_detail();
  EXPECT_FALSE(dup) << "a team id was reused";
  EXPECT_EQ(seen.size(), (size_t)rounds);
  EXPECT_EQ(seen.count(DART_TEAM_ALL), 0u);
  // Every unit saw the same ids.
  long long s = 0;
  for (int id : seen) s += id;
  long long smin = s, smax = s;
  MPI_Comm comm;
  dart_team_comm(DART_TEAM_ALL, &comm);
  MPI_Allreduce(MPI_IN_PLACE, &smin, 1, MPI_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &smax, 1, MPI_LONG_LONG, MPI_MAX, comm);
  EXPECT_EQ(smin, smax);
}

TEST(Team, DestroyedTeamIsNotFoundEverywhere) {
  dart_team_t t = make_team(all_units());
  const dart_team_t dead = t;
  DART_EXPECT_OK(dart_team_destroy(&t));
  EXPECT_EQ(t, DART_TEAM_NULL);

  size_t sz = 4242;
  dart_team_unit_t tu{-42};
  dart_global_unit_t gu{-42};
  dart_group_t grp = reinterpret_cast<dart_group_t>(0x1);
  dart_team_t nt = 4242;
  MPI_Comm comm = MPI_COMM_SELF;
  dart_gptr_t gp = DART_GPTR_NULL;
  int buf[4] = {1, 2, 3, 4};
  dart_team_t d = dead;

  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_size(dead, &sz));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_myid(dead, &tu));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_get_group(dead, &grp));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_unit_l2g(dead, DART_TEAM_UNIT_ID(0), &gu));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_unit_g2l(dead, DART_GLOBAL_UNIT_ID(0), &tu));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_clone(dead, &nt));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_destroy(&d));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_comm(dead, &comm));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_barrier(dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_memalloc_aligned(dead, 4, DART_TYPE_INT, &gp));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_team_memregister_aligned(dead, 4, DART_TYPE_INT, buf, &gp));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_memregister(dead, 4, DART_TYPE_INT, buf, &gp));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_bcast(buf, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_allreduce(buf, buf + 1, 1, DART_TYPE_INT, DART_OP_SUM, dead));
  dart_lock_t lock = DART_LOCK_NULL;
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_lock_init(dead, &lock));
  EXPECT_EQ(lock, DART_LOCK_NULL);
  dart_group_t g0 = DART_GROUP_NULL;
  dart_group_create(&g0);
  dart_group_addmember(g0, DART_GLOBAL_UNIT_ID(0));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_create(dead, g0, &nt));
  dart_group_destroy(&g0);

  // Outputs untouched, object outputs null (issue 30).
  EXPECT_EQ(sz, 4242u);
  EXPECT_EQ(tu.id, -42);
  EXPECT_EQ(gu.id, -42);
  EXPECT_EQ(grp, DART_GROUP_NULL);
  EXPECT_EQ(nt, DART_TEAM_NULL);
  EXPECT_EQ(comm, MPI_COMM_SELF);
  EXPECT_TRUE(DART_GPTR_ISNULL(gp));
  EXPECT_EQ(d, dead);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

TEST(Team, BadInputs) {
  const int n = nunits();
  size_t sz = 4242;
  dart_team_unit_t tu{-42};
  dart_global_unit_t gu{-42};
  dart_group_t grp = reinterpret_cast<dart_group_t>(0x1);
  dart_team_t nt = 4242;
  MPI_Comm comm = MPI_COMM_SELF;

  // Never-created team id -> NOTFOUND; DART_TEAM_NULL / negative -> INVAL.
  const dart_team_t never = 32000;
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_size(never, &sz));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_myid(never, &tu));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_comm(never, &comm));
  for (dart_team_t bad : {DART_TEAM_NULL, static_cast<dart_team_t>(-7)}) {
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_size(bad, &sz));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_myid(bad, &tu));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_get_group(bad, &grp));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_unit_l2g(bad, DART_TEAM_UNIT_ID(0), &gu));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_unit_g2l(bad, DART_GLOBAL_UNIT_ID(0), &tu));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_clone(bad, &nt));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_comm(bad, &comm));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_barrier(bad));
    dart_team_t b = bad;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_destroy(&b));
  }
  // Unit ids out of range.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_unit_l2g(DART_TEAM_ALL, DART_TEAM_UNIT_ID(n), &gu));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_unit_l2g(DART_TEAM_ALL, DART_TEAM_UNIT_ID(-1), &gu));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_unit_g2l(DART_TEAM_ALL, DART_GLOBAL_UNIT_ID(n), &tu));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_unit_g2l(DART_TEAM_ALL, DART_GLOBAL_UNIT_ID(-1), &tu));
  // NULL outputs.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_size(DART_TEAM_ALL, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_myid(DART_TEAM_ALL, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_get_group(DART_TEAM_ALL, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_team_unit_l2g(DART_TEAM_ALL, DART_TEAM_UNIT_ID(0), nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_team_unit_g2l(DART_TEAM_ALL, DART_GLOBAL_UNIT_ID(0), nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_comm(DART_TEAM_ALL, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_destroy(nullptr));
  // NULL newteam on every unit.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_clone(DART_TEAM_ALL, nullptr));
  dart_group_t g0 = DART_GROUP_NULL;
  dart_group_create(&g0);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_create(DART_TEAM_ALL, g0, nullptr));
  dart_group_destroy(&g0);
  // A bad argument on one unit only: every unit fails, none waits for it.
  {
    dart_group_t all = DART_GROUP_NULL;
    DART_EXPECT_OK(dart_team_get_group(DART_TEAM_ALL, &all));
    dart_team_t t1 = DART_TEAM_NULL;
    dart_team_t *out = myid() == 0 ? nullptr : &t1;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_create(DART_TEAM_ALL, all, out));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_clone(DART_TEAM_ALL, out));
    EXPECT_EQ(t1, DART_TEAM_NULL);
    dart_group_destroy(&all);
  }

  EXPECT_EQ(sz, 4242u);  // scalar outputs untouched, object outputs null (issue 30)
  EXPECT_EQ(tu.id, -42);
  EXPECT_EQ(gu.id, -42);
  EXPECT_EQ(grp, DART_GROUP_NULL);
  EXPECT_EQ(nt, DART_TEAM_NULL);
  EXPECT_EQ(comm, MPI_COMM_SELF);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Aligned, symmetric allocation on a sub-team: every member computes every member's
// gptr locally (dart_gptr_setunit) and reads that member's data.
TEST(Team, SymmetricAllocationOnSubTeams) {
  using Pred = bool (*)(int, int);
  const Pred preds[] = {is_even, is_odd, upper_half, is_last};
  const size_t N = 64;
  for (Pred p : preds) {
    std::vector<int> mem = units_where(p);
    if (mem.empty()) continue;
    dart_team_t t = make_team(mem);
    if (t == DART_TEAM_NULL) continue;  // not a member
    dart_team_unit_t tme{-1};
    size_t tsize = 0;
    dart_team_myid(t, &tme);
    dart_team_size(t, &tsize);
    dart_gptr_t gp = DART_GPTR_NULL;
    DART_EXPECT_OK(dart_team_memalloc_aligned(t, N, DART_TYPE_LONG, &gp));
    EXPECT_EQ(gp.teamid, t);
    EXPECT_EQ(gp.unitid, 0);
    dart_gptr_t mine = gp;
    dart_gptr_setunit(&mine, tme);
    long *local = nullptr;
    DART_EXPECT_OK(dart_gptr_getaddr(mine, reinterpret_cast<void **>(&local)));
    if (local)
      for (size_t i = 0; i < N; ++i) local[i] = 1000L * tme.id + (long)i;
    DART_EXPECT_OK(dart_barrier(t));
    for (size_t u = 0; u < tsize; ++u) {
      dart_gptr_t q = gp;
      dart_gptr_setunit(&q, DART_TEAM_UNIT_ID((int)u));
      dart_gptr_incaddr(&q, 8 * sizeof(long));
      std::vector<long> got(N - 8, -1);
      DART_EXPECT_OK(dart_get_blocking(got.data(), q, N - 8, DART_TYPE_LONG, DART_TYPE_LONG));
      for (size_t i = 0; i < N - 8; ++i)
        if (got[i] != 1000L * (long)u + (long)(i + 8)) {
          ADD_FAILURE() << "team unit " << u << " element " << i + 8 << ": " << got[i];
          break;
        }
    }
    DART_EXPECT_OK(dart_barrier(t));
    DART_EXPECT_OK(dart_team_memfree(gp));
    DART_EXPECT_OK(dart_team_destroy(&t));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Destroying a team releases its memory: the segment is gone afterwards.
TEST(Team, DestroyReleasesSegments) {
  dart_team_t t = make_team(all_units());
  dart_gptr_t gp = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(t, 16, DART_TYPE_INT, &gp));
  DART_EXPECT_OK(dart_team_destroy(&t));
  int x = 0;
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_get_blocking(&x, gp, 1, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_memfree(gp));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// dart_team_create_from_comm (issue 34): the team keeps the communicator's rank order
// (team unit id == rank, a congruent communicator), an allocation on it is placed in that
// order, the colours of one split make one team each in one call (and allocate at once),
// units outside pass MPI_COMM_NULL, and a bad argument on one unit fails everywhere.
TEST(Team, CreateFromCommKeepsRankOrder) {
  const int n = nunits(), me = myid();
  MPI_Comm all = MPI_COMM_NULL;
  DART_EXPECT_OK(dart_team_comm(DART_TEAM_ALL, &all));
  // Every unit, reversed.
  MPI_Comm rev = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(all, 0, n - 1 - me, &rev), MPI_SUCCESS);
  dart_team_t t = DART_TEAM_NULL;
  DART_EXPECT_OK(dart_team_create_from_comm(DART_TEAM_ALL, rev, &t));
  ASSERT_NE(t, DART_TEAM_NULL);
  dart_team_unit_t tme{-9};
  DART_EXPECT_OK(dart_team_myid(t, &tme));
  EXPECT_EQ(tme.id, n - 1 - me) << "the team id is the rank in the communicator";
  for (int l = 0; l < n; ++l) {
    dart_global_unit_t gu{-9};
    DART_EXPECT_OK(dart_team_unit_l2g(t, DART_TEAM_UNIT_ID(l), &gu));
    EXPECT_EQ(gu.id, n - 1 - l);
    dart_team_unit_t lu{-9};
    DART_EXPECT_OK(dart_team_unit_g2l(t, DART_GLOBAL_UNIT_ID(l), &lu));
    EXPECT_EQ(lu.id, n - 1 - l);
  }
  MPI_Comm tc = MPI_COMM_NULL;
  DART_EXPECT_OK(dart_team_comm(t, &tc));
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(tc, rev, &cmp);
  EXPECT_EQ(cmp, MPI_CONGRUENT);
  // Team unit l's memory is global unit n - 1 - l's.
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(t, 1, DART_TYPE_INT, &g));
  dart_gptr_t mine = g;
  DART_EXPECT_OK(dart_gptr_setunit(&mine, tme));
  int *p = nullptr;
  DART_EXPECT_OK(dart_gptr_getaddr(mine, reinterpret_cast<void **>(&p)));
  if (p != nullptr) *p = 1000 + me;
  DART_EXPECT_OK(dart_barrier(t));
  for (int l = 0; l < n; ++l) {
    dart_gptr_t at = g;
    DART_EXPECT_OK(dart_gptr_setunit(&at, DART_TEAM_UNIT_ID(l)));
    int v = -1;
    DART_EXPECT_OK(dart_get_blocking(&v, at, 1, DART_TYPE_INT, DART_TYPE_INT));
    EXPECT_EQ(v, 1000 + n - 1 - l) << "team unit " << l;
  }
  DART_EXPECT_OK(dart_barrier(t));
  DART_EXPECT_OK(dart_team_memfree(g));
  DART_EXPECT_OK(dart_team_destroy(&t));
  MPI_Comm_free(&rev);

  // The colours of one split: one call, disjoint teams with one id, reversed inside.
  MPI_Comm half = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(all, me % 2, -me, &half), MPI_SUCCESS);
  DART_EXPECT_OK(dart_team_create_from_comm(DART_TEAM_ALL, half, &t));
  int hrank = -1, hsize = 0;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  DART_EXPECT_OK(dart_team_myid(t, &tme));
  EXPECT_EQ(tme.id, hrank);
  for (int round = 0; round < 20; ++round) {  // both teams allocate at once
    DART_EXPECT_OK(dart_team_memalloc_aligned(t, 4, DART_TYPE_INT, &g));
    dart_gptr_t next = g;
    DART_EXPECT_OK(dart_gptr_setunit(&next, DART_TEAM_UNIT_ID((hrank + 1) % hsize)));
    int v = round * 100 + me, back = -1;
    DART_EXPECT_OK(dart_put_blocking(next, &v, 1, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_OK(dart_get_blocking(&back, next, 1, DART_TYPE_INT, DART_TYPE_INT));
    EXPECT_EQ(back, v);
    DART_EXPECT_OK(dart_barrier(t));
    DART_EXPECT_OK(dart_team_memfree(g));
  }
  DART_EXPECT_OK(dart_team_destroy(&t));
  MPI_Comm_free(&half);

  // Only unit 0, with MPI_COMM_SELF; the others pass MPI_COMM_NULL.
  DART_EXPECT_OK(
      dart_team_create_from_comm(DART_TEAM_ALL, me == 0 ? MPI_COMM_SELF : MPI_COMM_NULL, &t));
  EXPECT_EQ(t == DART_TEAM_NULL, me != 0);
  if (t != DART_TEAM_NULL) {
    DART_EXPECT_OK(dart_team_destroy(&t));
  }

  // Bad arguments: a NULL output on the last unit fails the call everywhere; an
  // intercommunicator is refused (on every unit of the parent).
  t = 4242;
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_team_create_from_comm(DART_TEAM_ALL, all, me == n - 1 ? nullptr : &t));
  EXPECT_EQ(t, me == n - 1 ? 4242 : DART_TEAM_NULL);
  if (n >= 2) {
    MPI_Comm side = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    const int colour = me < n / 2 ? 0 : 1;
    ASSERT_EQ(MPI_Comm_split(all, colour, me, &side), MPI_SUCCESS);
    ASSERT_EQ(MPI_Intercomm_create(side, 0, all, colour == 0 ? n / 2 : 0, 77, &inter), MPI_SUCCESS);
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_create_from_comm(DART_TEAM_ALL, inter, &t));
    EXPECT_EQ(t, DART_TEAM_NULL);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&side);
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}
