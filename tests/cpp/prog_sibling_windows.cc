// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 4 UPN 1 TIMEOUT 900 LABELS stress NO_FAKE_HOSTS
//
// Concurrent window creation on sibling teams (quirk ompi-rdma-shared-file, quirks.h):
// the teams {even units} and {odd units}, made by one dart_team_create each from the
// same parent, allocate (and free) 300 times at the same time; then the same two teams
// made by one dart_team_create (each unit passing its own group: one team id). Open
// MPI 4.1's osc/rdma names the shared-memory file of an MPI_Win_create window after the
// communicator's context id, which such teams share; without the workaround about 1 in
// 13 of these allocations failed with MPI_ERR_WIN (and with one team id, issue 34, the
// lock did not tell the teams apart). Every allocation must succeed and work.
#include "prog_common.h"

#include <vector>

namespace {

// 300 allocations (and frees) on `mine`, at the same time as the sibling team's.
void allocate_often(dart_team_t mine, int rank, const char *what) {
  dart_team_unit_t me{-1};
  size_t tsize = 0;
  CHECK_OK(dart_team_myid(mine, &me));
  CHECK_OK(dart_team_size(mine, &tsize));
  int failed = 0;
  for (int i = 0; i < 300; ++i) {
    dart_gptr_t g = DART_GPTR_NULL;
    dart_ret_t rc = dart_team_memalloc_aligned(mine, 8, DART_TYPE_INT, &g);
    if (rc != DART_OK) {  // all-or-nothing: every unit of the team sees the failure
      if (++failed <= 3) CHECK_OK(rc);
      continue;
    }
    // The window works: put to the next unit of the team, read it back.
    dart_gptr_t next = g;
    CHECK_OK(dart_gptr_setunit(&next, DART_TEAM_UNIT_ID((me.id + 1) % (int)tsize)));
    int v = i * 10 + me.id, got = -1;
    CHECK_OK(dart_put_blocking(next, &v, 1, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_OK(dart_get_blocking(&got, next, 1, DART_TYPE_INT, DART_TYPE_INT));
    CHECK(got == v);
    CHECK_OK(dart_barrier(mine));
    CHECK_OK(dart_team_memfree(g));
  }
  if (failed)
    std::fprintf(stderr, "[rank %d] %s: %d of 300 allocations failed\n", rank, what, failed);
  CHECK(failed == 0);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
}

}  // namespace

int main(int argc, char **argv) {
  const int rank = prog::init_dart(&argc, &argv);
  size_t n = 0;
  CHECK_OK(dart_size(&n));
  dart_group_t even = DART_GROUP_NULL, odd = DART_GROUP_NULL;
  CHECK_OK(dart_group_create(&even));
  CHECK_OK(dart_group_create(&odd));
  for (int u = 0; u < (int)n; ++u)
    CHECK_OK(dart_group_addmember(u % 2 ? odd : even, DART_GLOBAL_UNIT_ID(u)));
  // Two creations: two team ids.
  dart_team_t te = DART_TEAM_NULL, to = DART_TEAM_NULL;
  CHECK_OK(dart_team_create(DART_TEAM_ALL, even, &te));
  CHECK_OK(dart_team_create(DART_TEAM_ALL, odd, &to));
  allocate_often(rank % 2 ? to : te, rank, "teams of two creations");
  CHECK_OK(dart_team_destroy(rank % 2 ? &to : &te));
  // One creation, each unit passing its colour's group: the teams share one id (issue
  // 34: the machine lock took them for one team, and Open MPI's MPI_Win_create failed).
  dart_team_t both = DART_TEAM_NULL;
  CHECK_OK(dart_team_create(DART_TEAM_ALL, rank % 2 ? odd : even, &both));
  allocate_often(both, rank, "teams of one creation");
  CHECK_OK(dart_team_destroy(&both));
  CHECK_OK(dart_group_destroy(&even));
  CHECK_OK(dart_group_destroy(&odd));
  return prog::end("prog_sibling_windows");
}
