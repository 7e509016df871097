// SPDX-License-Identifier: BSD-3-Clause
// Teams: collective, each with its own communicator and node communicator.
// Team ids come from a per-unit counter agreed on by MAX over the parent team, so a unit
// never sees an id twice; id -> team is an index into g->teams (O(1)).
#include "internal.h"

#include <algorithm>

namespace dart {
namespace detail {

const std::vector<int> &group_members(dart_group_t gr);
dart_ret_t group_from_members(std::vector<int> members, dart_group_t *out);
dart_ret_t group_check(dart_group_t gr, const char *fn, const char *what);

Team *make_team(dart_team_t id, MPI_Comm comm, Agreement *a, const char *fn) {
  Team *t = new Team();
  t->id = id;
  t->comm = comm;
  a->expect(Agreement::Comm, comm != MPI_COMM_NULL);
  if (comm == MPI_COMM_NULL) return t;
  // Local steps stop at the first failure; the node split (collective over comm) runs
  // on every unit, so a local failure on one unit cannot hang the others.
  auto step = [&](int mrc, const char *what) {
    if (a->ok()) a->step(mpi_check(mrc, fn, what));
  };
  step(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  if (a->ok()) step(MPI_Comm_rank(comm, &t->myid), "MPI_Comm_rank");
  if (a->ok()) step(MPI_Comm_size(comm, &t->size), "MPI_Comm_size");
  if (a->ok()) step(MPI_Comm_group(comm, &t->group), "MPI_Comm_group");
  if (a->ok()) {
    std::vector<int> ranks(t->size);
    for (int i = 0; i < t->size; ++i) ranks[i] = i;
    t->global.resize(t->size);
    step(MPI_Group_translate_ranks(t->group, t->size, ranks.data(), g->world_group,
                                   t->global.data()),
         "MPI_Group_translate_ranks");
  }
  // Units of this team on my (possibly emulated) node, ordered by team rank.
  int mynode = g->node_of[g->myid];
  if (int src = MPI_Comm_split(comm, mynode, t->myid, &t->node_comm); src != MPI_SUCCESS) {
    t->node_comm = MPI_COMM_NULL;
    a->step(mpi_fail(src, fn, "MPI_Comm_split"));
  } else if (fault(FaultSite::CommSplit)) {
    a->step(fault_fail(FaultSite::CommSplit, fn, "MPI_Comm_split"));
  }
  a->expect(Agreement::NodeComm, t->node_comm != MPI_COMM_NULL);
  if (t->node_comm != MPI_COMM_NULL)
    step(MPI_Comm_set_errhandler(t->node_comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  if (a->ok()) step(MPI_Comm_size(t->node_comm, &t->node_size), "MPI_Comm_size");
  // Progress processes serve a team spanning nodes: they join its creation (collective,
  // so it runs after a local failure too).
  if (g->progress != nullptr && t->size > 0 && (int)t->global.size() == t->size &&
      std::any_of(t->global.begin(), t->global.end(),
                  [&](int gu) { return g->node_of[gu] != mynode; }))
    progress_team_create(t, a, fn);
  if (!a->ok()) return t;
  t->g2l.reserve((size_t)t->size);
  for (int i = 0; i < t->size; ++i) t->g2l.emplace(t->global[i], i);
  t->node_rank.assign(t->size, -1);
  int next = 0;
  for (int u = 0; u < t->size; ++u)
    if (g->node_of[t->global[u]] == mynode) t->node_rank[u] = next++;
  t->single_node = (t->node_size == t->size);
  return t;
}

Team::~Team() {
  xlate_forget();
  locality_team_free(this);
}

void register_team(Team *t) { g->teams.set((size_t)t->id, t); }

void release_team(Team *t, const Agreement &a) {
  if (t->served()) progress_team_free(t);
  if (t->node_comm != MPI_COMM_NULL && a.held_by_all(Agreement::NodeComm))
    MPI_Comm_free(&t->node_comm);
  if (t->group != MPI_GROUP_NULL) MPI_Group_free(&t->group);
  if (t->comm != MPI_COMM_NULL && a.held_by_all(Agreement::Comm)) MPI_Comm_free(&t->comm);
  delete t;
}

dart_ret_t destroy_team(Team *t, const char *fn) {
  dart_ret_t rc = DART_OK;
  auto free_seg = [&](size_t, Segment *s) {
    dart_ret_t r = segment_free(s, fn);
    if (rc == DART_OK) rc = r;
  };
  // Registrations by the team's list (the same on every unit, also where some units
  // deregistered and others did not), then allocations by id (the same everywhere).
  if (dart_ret_t r = registrations_free(t, fn); rc == DART_OK) rc = r;
  t->alloc_segs.for_each_desc(free_seg);
  if (t->served()) progress_team_free(t);
  auto keep_first = [&](int mrc, const char *what) {  // every step runs; first error wins
    if (mrc != MPI_SUCCESS && rc == DART_OK) rc = mpi_fail(mrc, fn, what);
  };
  if (t->node_comm != MPI_COMM_NULL) keep_first(MPI_Comm_free(&t->node_comm), "MPI_Comm_free");
  if (t->group != MPI_GROUP_NULL) keep_first(MPI_Group_free(&t->group), "MPI_Group_free");
  if (t->comm != MPI_COMM_NULL) keep_first(MPI_Comm_free(&t->comm), "MPI_Comm_free");
  g->teams.set((size_t)t->id, nullptr);
  delete t;
  return rc;
}

}  // namespace detail
}  // namespace dart

using namespace dart::detail;

namespace {

// Team ids come from one counter per unit: two creations at once on one unit (threads of
// a DART_THREAD_MULTIPLE program, over different parents) could agree on one id. So a
// creation that finds another one running on its unit fails, on every unit of its parent
// (through the reduction below), instead of waiting: units whose threads create teams in
// different orders would deadlock on a wait.
std::mutex g_create_mutex;

// local_rc: the result of the caller's own argument checks (their message already set).
dart_ret_t create_from(Team *parent, const std::vector<int> &members, dart_team_t *newteam,
                       dart_ret_t local_rc, const char *fn) {
  std::unique_lock<std::mutex> alone(g_create_mutex, std::try_to_lock);
  // Validate locally, then agree on the new id AND on success over the whole parent team
  // (members or not) in one reduction, so a bad argument on one unit fails everywhere
  // instead of hanging the others.
  int bad_unit = -1;
  for (int gid : members)
    if (parent->g2l.find(gid) == parent->g2l.end()) {
      bad_unit = gid;
      break;
    }
  const bool bad = local_rc != DART_OK || bad_unit >= 0;
  int in[3] = {alone.owns_lock() ? g->next_team_id : 0, bad ? 1 : 0, alone.owns_lock() ? 0 : 1};
  int out[3] = {0, 0, 0};
  DART_MPI(MPI_Allreduce(in, out, 3, MPI_INT, MPI_MAX, parent->comm), fn);
  if (local_rc != DART_OK) return local_rc;
  if (bad_unit >= 0)
    return fail(DART_ERR_INVAL, fn, "unit %d of the group is not a member of team %d", bad_unit,
                (int)parent->id);
  if (out[1] != 0)
    return fail(DART_ERR_INVAL, fn, "another unit of team %d passed an invalid argument",
                (int)parent->id);
  if (out[2] != 0)
    return fail(DART_ERR_INVAL, fn,
                "another thread of %s was creating a team at the same time (a unit creates "
                "one team at a time)",
                alone.owns_lock() ? "another unit" : "this unit");
  int id = out[0];
  if (id > 32767)
    return fail(DART_ERR_OTHER, fn,
                "team id space exhausted: dart_team_t is 16 bits and ids are never reused");
  g->next_team_id = id + 1;
  MPI_Group mg = MPI_GROUP_EMPTY;
  if (!members.empty())
    DART_MPI(MPI_Group_incl(g->world_group, (int)members.size(), members.data(), &mg), fn);
  // All-or-nothing over the parent team (Agreement): a member whose MPI_Comm_create or
  // setup failed makes the creation fail on every unit; the members' communicators are
  // freed together.
  Agreement a;
  MPI_Comm comm = MPI_COMM_NULL;
  if (int crc = MPI_Comm_create(parent->comm, mg, &comm); crc != MPI_SUCCESS) {
    comm = MPI_COMM_NULL;
    a.step(mpi_fail(crc, fn, "MPI_Comm_create"));
  } else if (comm != MPI_COMM_NULL && fault(FaultSite::CommCreate)) {
    a.step(fault_fail(FaultSite::CommCreate, fn, "MPI_Comm_create"));
  }
  if (mg != MPI_GROUP_EMPTY) MPI_Group_free(&mg);
  const bool member = std::find(members.begin(), members.end(), g->myid) != members.end();
  Team *t = member ? make_team((dart_team_t)id, comm, &a, fn) : nullptr;
  if (dart_ret_t rc = a.agree(parent->comm, parent, fn); rc != DART_OK) {
    if (t != nullptr) release_team(t, a);
    return rc;
  }
  if (t == nullptr) {
    *newteam = DART_TEAM_NULL;
    return DART_OK;
  }
  register_team(t);
  *newteam = (dart_team_t)id;
  return DART_OK;
}

}  // namespace

extern "C" {

dart_ret_t dart_team_create(dart_team_t teamid, const dart_group_t group, dart_team_t *newteam) {
  const char *fn = "dart_team_create";
  null_out(newteam, DART_TEAM_NULL);
  DART_TRY(check_init(fn));
  Team *parent = nullptr;
  DART_TRY(get_team(teamid, fn, &parent));
  // DART 3.2: units outside the new team may pass DART_GROUP_NULL.
  static const std::vector<int> no_members;
  dart_ret_t local = DART_OK;
  if (newteam == nullptr)
    local = fail(DART_ERR_INVAL, fn, "newteam is NULL");
  else if (group != DART_GROUP_NULL)
    local = group_check(group, fn, "group");
  const std::vector<int> &members = (local == DART_OK && group != DART_GROUP_NULL)
                                        ? group_members(group)
                                        : no_members;
  return create_from(parent, members, newteam, local, fn);
}

dart_ret_t dart_team_create_from_comm(dart_team_t teamid, MPI_Comm comm, dart_team_t *newteam) {
  const char *fn = "dart_team_create_from_comm";
  null_out(newteam, DART_TEAM_NULL);
  DART_TRY(check_init(fn));
  Team *parent = nullptr;
  DART_TRY(get_team(teamid, fn, &parent));
  // The members in the order of their ranks in comm: MPI_Group_incl keeps it, so the new
  // team's ranks are comm's (a group, DART's or MPI's sorted set, would lose it).
  std::vector<int> members;
  dart_ret_t local = DART_OK;
  auto check = [&](int mrc, const char *what) {
    if (local == DART_OK && mrc != MPI_SUCCESS) local = mpi_fail(mrc, fn, what);
  };
  if (newteam == nullptr) {
    local = fail(DART_ERR_INVAL, fn, "newteam is NULL");
  } else if (comm != MPI_COMM_NULL) {
    int inter = 0, n = 0;
    check(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
    if (local == DART_OK && inter) local = fail(DART_ERR_INVAL, fn, "comm is an intercommunicator");
    MPI_Group cg = MPI_GROUP_NULL;
    if (local == DART_OK) check(MPI_Comm_group(comm, &cg), "MPI_Comm_group");
    if (local == DART_OK) check(MPI_Group_size(cg, &n), "MPI_Group_size");
    if (local == DART_OK) {
      std::vector<int> ranks(n);
      for (int i = 0; i < n; ++i) ranks[i] = i;
      members.resize(n);
      check(MPI_Group_translate_ranks(cg, n, ranks.data(), g->world_group, members.data()),
            "MPI_Group_translate_ranks");
      for (int i = 0; i < n && local == DART_OK; ++i)
        if (members[i] == MPI_UNDEFINED)
          local = fail(DART_ERR_INVAL, fn,
                       "rank %d of comm is not a DART unit (a process "
                       "outside DART_TEAM_ALL)",
                       i);
    }
    if (cg != MPI_GROUP_NULL) MPI_Group_free(&cg);
    if (local != DART_OK) members.clear();
  }
  return create_from(parent, members, newteam, local, fn);
}

dart_ret_t dart_team_clone(dart_team_t teamid, dart_team_t *newteam) {
  const char *fn = "dart_team_clone";
  null_out(newteam, DART_TEAM_NULL);
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  dart_ret_t local = newteam == nullptr ? fail(DART_ERR_INVAL, fn, "newteam is NULL") : DART_OK;
  std::vector<int> members(t->global);
  std::sort(members.begin(), members.end());
  return create_from(t, members, newteam, local, fn);
}

dart_ret_t dart_team_destroy(dart_team_t *teamid) {
  const char *fn = "dart_team_destroy";
  DART_TRY(check_init(fn));
  if (teamid == nullptr) return fail(DART_ERR_INVAL, fn, "teamid is NULL");
  if (*teamid == DART_TEAM_ALL)
    return fail(DART_ERR_INVAL, fn, "DART_TEAM_ALL cannot be destroyed");
  Team *t = nullptr;
  DART_TRY(get_team(*teamid, fn, &t));
  DART_TRY(progress_drain(fn));
  DART_MPI(MPI_Barrier(t->comm), fn);
  DART_TRY(destroy_team(t, fn));
  *teamid = DART_TEAM_NULL;
  return DART_OK;
}

dart_ret_t dart_team_get_group(dart_team_t teamid, dart_group_t *group) {
  const char *fn = "dart_team_get_group";
  null_out(group, DART_GROUP_NULL);
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  if (group == nullptr) return fail(DART_ERR_INVAL, fn, "group is NULL");
  return group_from_members(t->global, group);
}

dart_ret_t dart_team_myid(dart_team_t teamid, dart_team_unit_t *myid) {
  const char *fn = "dart_team_myid";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  if (myid == nullptr) return fail(DART_ERR_INVAL, fn, "myid is NULL");
  myid->id = t->myid;
  return DART_OK;
}

dart_ret_t dart_team_size(dart_team_t teamid, size_t *size) {
  const char *fn = "dart_team_size";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  if (size == nullptr) return fail(DART_ERR_INVAL, fn, "size is NULL");
  *size = (size_t)t->size;
  return DART_OK;
}

dart_ret_t dart_team_unit_l2g(dart_team_t teamid, dart_team_unit_t localid,
                              dart_global_unit_t *globalid) {
  const char *fn = "dart_team_unit_l2g";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  if (globalid == nullptr) return fail(DART_ERR_INVAL, fn, "globalid is NULL");
  if (localid.id < 0 || localid.id >= t->size)
    return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d) of team %d", localid.id, t->size,
                (int)teamid);
  globalid->id = t->global[localid.id];
  return DART_OK;
}

dart_ret_t dart_team_unit_g2l(dart_team_t teamid, dart_global_unit_t globalid,
                              dart_team_unit_t *localid) {
  const char *fn = "dart_team_unit_g2l";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  if (localid == nullptr) return fail(DART_ERR_INVAL, fn, "localid is NULL");
  if (globalid.id < 0 || globalid.id >= g->size)
    return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d)", globalid.id, g->size);
  auto it = t->g2l.find(globalid.id);
  localid->id = it == t->g2l.end() ? DART_UNDEFINED_UNIT_ID : it->second;
  return DART_OK;
}

dart_ret_t dart_team_comm(dart_team_t teamid, MPI_Comm *comm) {
  const char *fn = "dart_team_comm";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  if (comm == nullptr) return fail(DART_ERR_INVAL, fn, "comm is NULL");
  *comm = t->comm;
  return DART_OK;
}

}  // extern "C"
