/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_team_group.h -- groups (local sets of units) and teams (collective,
 * communicating sets of units).
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible).
 *
 * Groups are local objects: every group call is local and cheap. A group
 * always holds GLOBAL unit ids (relative to DART_TEAM_ALL) and keeps them
 * sorted in ascending order, whatever order they were added in.
 *
 * Teams are formed collectively from groups. Inside a team, unit ids are
 * 0 .. size-1, ordered like the global ids (the member with the smallest
 * global id is team unit 0). Team ids are never reused while the runtime is
 * up.
 */
#ifndef DART_TEAM_GROUP_H_INCLUDED
#define DART_TEAM_GROUP_H_INCLUDED

#include <stddef.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Groups (all calls are local)                                             */
/* ------------------------------------------------------------------------ */

/** Opaque handle of a group. Created by the calls marked "allocates" below
 *  and released with dart_group_destroy. */
typedef struct dart_group_struct * dart_group_t;

/** The group handle that refers to no group. */
#define DART_GROUP_NULL ((struct dart_group_struct *)NULL)

/** Allocate an empty group in *group. Local. */
dart_ret_t dart_group_create(
  dart_group_t       * group) DART_NOTHROW;

/** Release a group and set *group to DART_GROUP_NULL. Local. */
dart_ret_t dart_group_destroy(
  dart_group_t       * group) DART_NOTHROW;

/** Allocate *gout as a copy of gin. Local. */
dart_ret_t dart_group_clone(
  const dart_group_t   gin,
  dart_group_t       * gout) DART_NOTHROW;

/** Allocate *gout as the union of g1 and g2 (sorted, no duplicates). Local. */
dart_ret_t dart_group_union(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/** Allocate *gout as the intersection of g1 and g2 (sorted). Local. */
dart_ret_t dart_group_intersect(
  const dart_group_t   g1,
  const dart_group_t   g2,
  dart_group_t       * gout) DART_NOTHROW;

/** Add global unit `unitid` to g (no effect if already a member). Local. */
dart_ret_t dart_group_addmember(
  dart_group_t         g,
  dart_global_unit_t   unitid) DART_NOTHROW;

/** Remove global unit `unitid` from g. Local. */
dart_ret_t dart_group_delmember(
  dart_group_t         g,
  dart_global_unit_t   unitid) DART_NOTHROW;

/** Set *ismember to 1 if global unit `unitid` is in g, else 0. Local. */
dart_ret_t dart_group_ismember(
  const dart_group_t   g,
  dart_global_unit_t   unitid,
  int32_t            * ismember) DART_NOTHROW;

/** Number of units in g. Local. */
dart_ret_t dart_group_size(
  const dart_group_t   g,
  size_t             * size) DART_NOTHROW;

/** Write the members of g, ascending, to unitids[0 .. dart_group_size-1]
 *  (the caller provides the array). Local. */
dart_ret_t dart_group_getmembers(
  const dart_group_t   g,
  dart_global_unit_t * unitids) DART_NOTHROW;

/**
 * Split g into at most n groups of nearly equal size, keeping the ascending
 * order (the first groups get the lower ids). gout must have room for n
 * handles; the first *nout of them are allocated. Local.
 */
dart_ret_t dart_group_split(
  const dart_group_t   g,
  size_t               n,
  size_t             * nout,
  dart_group_t       * gout) DART_NOTHROW;

/**
 * Split g by locality: the domains of `scope` at or below `domain` (a domain of
 * a team's tree, dart_locality.h), in tree order, are split into min(n, their
 * number) contiguous parts of nearly equal counts (the first parts get one
 * more); group i holds the members of g whose CORE domain lies in part i (it
 * may be empty). gout must have room for n handles: the first *nout are new
 * groups, the rest DART_GROUP_NULL. DART_ERR_NOTFOUND when no domain has that
 * scope. Local.
 */
struct dart_domain_locality_s;
dart_ret_t dart_group_locality_split(
  const dart_group_t              g,
  struct dart_domain_locality_s * domain,
  dart_locality_scope_t           scope,
  size_t                          n,
  size_t                        * nout,
  dart_group_t                  * gout) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Teams                                                                    */
/* ------------------------------------------------------------------------ */

/** The team of all units; it exists from dart_init to dart_exit. */
#define DART_TEAM_ALL   ((dart_team_t)0)
/** The team id that names no team. */
#define DART_TEAM_NULL  ((dart_team_t)-1)

/** Allocate *group holding the global ids of the members of `teamid`. Local. */
dart_ret_t dart_team_get_group(
  dart_team_t          teamid,
  dart_group_t       * group) DART_NOTHROW;

/**
 * Create a team of the units in `group`, which must be a subset of team
 * `teamid`. Collective over ALL units of `teamid`: members pass equal groups,
 * units outside the new team pass an equal group or DART_GROUP_NULL.
 * Members receive the new team id in *newteam (the same on every member);
 * the other units receive DART_TEAM_NULL.
 */
dart_ret_t dart_team_create(
  dart_team_t          teamid,
  const dart_group_t   group,
  dart_team_t        * newteam) DART_NOTHROW;

/**
 * Destroy a team and set *teamid to DART_TEAM_NULL. Collective over the
 * members of the team. Memory and locks still allocated on the team are
 * released. DART_TEAM_ALL cannot be destroyed.
 */
dart_ret_t dart_team_destroy(
  dart_team_t        * teamid) DART_NOTHROW;

/** Create a new team with the same members as `team`. Collective over the
 *  members of `team`. */
dart_ret_t dart_team_clone(
  dart_team_t          team,
  dart_team_t        * newteam) DART_NOTHROW;

/** The calling unit's id within `teamid`. Local. */
dart_ret_t dart_team_myid(
  dart_team_t          teamid,
  dart_team_unit_t   * myid) DART_NOTHROW;

/** Number of units in `teamid`. Local. */
dart_ret_t dart_team_size(
  dart_team_t          teamid,
  size_t             * size) DART_NOTHROW;

/** The calling unit's id within DART_TEAM_ALL. Local. */
dart_ret_t dart_myid(
  dart_global_unit_t * myid) DART_NOTHROW;

/** Number of units in DART_TEAM_ALL. Local. */
dart_ret_t dart_size(
  size_t             * size) DART_NOTHROW;

/** Translate a unit id of `team` into its global id. Local. */
dart_ret_t dart_team_unit_l2g(
  dart_team_t          team,
  dart_team_unit_t     localid,
  dart_global_unit_t * globalid) DART_NOTHROW;

/** Translate a global unit id into its id within `team`; a unit that is not
 *  a member yields DART_UNDEFINED_UNIT_ID (and DART_OK). Local. */
dart_ret_t dart_team_unit_g2l(
  dart_team_t          team,
  dart_global_unit_t   globalid,
  dart_team_unit_t   * localid) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_TEAM_GROUP_H_INCLUDED */
