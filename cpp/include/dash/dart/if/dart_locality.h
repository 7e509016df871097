/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_locality.h -- where the units are: nodes, NUMA domains, cores (DART 3.2).
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible); the
 * types are in dart_types.h. Every unit's hardware is exchanged once, at
 * dart_init; after that every call here is local. For each team DART builds a
 * tree of domains at its first query:
 *
 *   "."          GLOBAL  every unit of the team
 *   ".n"         NODE    one node (shared memory); an emulated node of
 *                        DART_UNITS_PER_NODE is a node
 *   ".n.0"       MODULE  the node's processor module (one per node)
 *   ".n.0.m"     NUMA    a NUMA domain holding units of the node
 *   ".n.0.m.c"   CORE    a core on which units ran at dart_init: the leaves
 *
 * (n, m, c: indices among the parent's children, in order of node index, NUMA
 * index, core index). The NUMA and core detail comes from hwloc where DART-MPI
 * was built with it, else from Linux's sysfs; both read the same kernel tables.
 *
 * What it is for: placing work per node (which units share a node, and so
 * memory), per NUMA domain, and splitting a team along them
 * (dart_group_locality_split + dart_team_create), as DASH's Team::locality_split
 * does. dart_unit_node / dart_node_count (dart_ext.h) answer the common
 * question "which node" with one call.
 *
 * Ownership: a team's tree and its unit localities belong to DART; the pointers
 * returned for them stay valid until dart_team_locality_finalize, the team's
 * destruction or dart_exit. dart_domain_create / _clone return trees the caller
 * owns and releases with dart_domain_destroy. Failed calls set their pointer
 * outputs to NULL.
 */
#ifndef DART__LOCALITY_H_
#define DART__LOCALITY_H_

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_team_group.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Build the team's tree now (it is built at the first query otherwise). Local
 *  (every unit's hardware is known since dart_init); a second call does
 *  nothing. */
dart_ret_t dart_team_locality_init(
  dart_team_t                     team) DART_NOTHROW;

/** Release the team's tree and unit localities (pointers to them become
 *  invalid); a later query builds them again. Local. */
dart_ret_t dart_team_locality_finalize(
  dart_team_t                     team) DART_NOTHROW;

/** The domain of the team's tree tagged domain_tag ("." for the root).
 *  DART_ERR_NOTFOUND for a tag not in the tree. Local. */
dart_ret_t dart_domain_team_locality(
  dart_team_t                     team,
  const char                    * domain_tag,
  dart_domain_locality_t       ** team_domain_out) DART_NOTHROW;

/** A new empty domain (scope UNDEFINED, no children), owned by the caller. */
dart_ret_t dart_domain_create(
  dart_domain_locality_t       ** domain_out) DART_NOTHROW;

/** A deep copy of domain_in and its subtree, owned by the caller; the copy has
 *  no parent. */
dart_ret_t dart_domain_clone(
  const dart_domain_locality_t  * domain_in,
  dart_domain_locality_t       ** domain_out) DART_NOTHROW;

/** Free a tree made by dart_domain_create / _clone. DART_ERR_INVAL for a domain
 *  of a team's tree and for a subdomain (destroy its root). */
dart_ret_t dart_domain_destroy(
  dart_domain_locality_t        * domain) DART_NOTHROW;

/** Replace domain_lhs's contents by a deep copy of domain_rhs's (domain_lhs
 *  keeps its parent). Not for a domain of a team's tree. */
dart_ret_t dart_domain_assign(
  dart_domain_locality_t        * domain_lhs,
  const dart_domain_locality_t  * domain_rhs) DART_NOTHROW;

/** The domain tagged domain_tag at or below domain_in. DART_ERR_NOTFOUND if
 *  there is none. */
dart_ret_t dart_domain_find(
  const dart_domain_locality_t  * domain_in,
  const char                    * domain_tag,
  dart_domain_locality_t       ** subdomain_out) DART_NOTHROW;

/** Keep below domain_in only the domains at or below one of the tags and their
 *  ancestors; units and counts are recomputed. ".0.1" names a domain and its
 *  subtree (not ".0.10"). */
dart_ret_t dart_domain_select(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags) DART_NOTHROW;

/** Remove from domain_in the domains at or below one of the tags; units and
 *  counts are recomputed. */
dart_ret_t dart_domain_exclude(
  dart_domain_locality_t        * domain_in,
  int                             num_subdomain_tags,
  const char                   ** subdomain_tags) DART_NOTHROW;

/** Insert subdomain (a root: no parent) as child number subdomain_rel_id of
 *  domain (appended when out of range); domain owns it from then on. */
dart_ret_t dart_domain_add_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * subdomain,
  int                             subdomain_rel_id) DART_NOTHROW;

/** Move domain (with its subtree) to be child number new_domain_rel_id of
 *  new_parent_domain, in the same tree. */
dart_ret_t dart_domain_move_subdomain(
  dart_domain_locality_t        * domain,
  dart_domain_locality_t        * new_parent_domain,
  int                             new_domain_rel_id) DART_NOTHROW;

/** Split domain_in by its domains of `scope` (in tree order) into num_parts
 *  contiguous parts of nearly equal counts (the first parts get one more):
 *  split_domain_out[p] (an array of num_parts structs) receives a copy of
 *  domain_in holding part p only (dart_domain_select). 1 <= num_parts <= the
 *  number of such domains. The parts' children and unit lists are malloc'd:
 *  dart_domain_assign of an empty domain (dart_domain_create) releases them. */
dart_ret_t dart_domain_split_scope(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                             num_parts,
  dart_domain_locality_t        * split_domain_out) DART_NOTHROW;

/** Tags of the domains of `scope` at or below domain_in, in tree order:
 *  *domain_tags_out is a malloc'd array of malloc'd strings (free each, then
 *  the array). DART_ERR_NOTFOUND if there are none. */
dart_ret_t dart_domain_scope_tags(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  char                        *** domain_tags_out) DART_NOTHROW;

/** The domains of `scope` at or below domain_in, in tree order: *domains_out
 *  is a malloc'd array (free it) of pointers into the tree. DART_ERR_NOTFOUND
 *  if there are none. */
dart_ret_t dart_domain_scope_domains(
  const dart_domain_locality_t  * domain_in,
  dart_locality_scope_t           scope,
  int                           * num_domains_out,
  dart_domain_locality_t      *** domains_out) DART_NOTHROW;

/** Group the domains named by the tags (disjoint domains of domain_in's
 *  subtree) under a new domain of scope GROUP, appended to the children of
 *  their lowest common ancestor; its tag (written to group_domain_tag_out,
 *  DART_LOCALITY_DOMAIN_TAG_MAX_SIZE bytes) is that ancestor's tag with one
 *  past its children's largest last index, so no existing tag changes; the
 *  grouped domains keep theirs. */
dart_ret_t dart_domain_group(
  dart_domain_locality_t        * domain_in,
  int                             num_group_subdomains,
  const char                   ** group_subdomain_tags,
  char                          * group_domain_tag_out) DART_NOTHROW;

/** Locality of team unit `unit` (its hardware and the tag of its CORE domain in
 *  the team's tree), owned by DART (see above). Local. */
dart_ret_t dart_unit_locality(
  dart_team_t                     team,
  dart_team_unit_t                unit,
  dart_unit_locality_t         ** loc) DART_NOTHROW;

/** DART-MPI extension. Collective over `team`: split it by locality in one call,
 *  as DASH's Team::locality_split does with the calls above: the team's domains
 *  of `scope` are split as dart_group_locality_split splits them into min(n,
 *  their number) parts, one new team is created per part (in order) and
 *  *newteam is the calling unit's. E.g. scope DART_LOCALITY_SCOPE_NODE with n
 *  >= the number of nodes: a team per node. All or nothing. */
dart_ret_t dart_team_locality_split(
  dart_team_t                     team,
  dart_locality_scope_t           scope,
  size_t                          n,
  dart_team_t                   * newteam) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__LOCALITY_H_ */
