// SPDX-License-Identifier: BSD-3-Clause
// The locality API (dart_locality.h, issue 30): the team trees GLOBAL -> NODE -> MODULE ->
// NUMA -> CORE against the runtime's own node table (dart_unit_node, dart_node_count), so
// that every placement checks itself: real nodes, DART_UNITS_PER_NODE emulation (an
// emulated node is a node domain with its own host name), MPICH's fake hosts, progress
// processes; sub-teams; the unit localities; the domain operations (clone, destroy,
// find, select, exclude, add, move, split, group, scope lists); the group split by
// locality and dart_team_locality_split; dart_config; the error paths.
#include "dart_test.h"

#include <dash/dart/if/dart_locality.h>

#include <map>
#include <set>

using namespace dtest;

namespace {

std::vector<int> units_of(const dart_domain_locality_t *d) {
  std::vector<int> v;
  for (int i = 0; i < d->num_units; ++i) v.push_back(d->unit_ids[i].id);
  return v;
}

// Checks the derived fields of a tree below d: tags, parents, levels, relative indices,
// units ascending and the union of the children's.
void check_tree(const dart_domain_locality_t *d, long *nodes_seen) {
  EXPECT_TRUE(
      std::is_sorted(d->unit_ids, d->unit_ids + d->num_units,
                     [](dart_global_unit_t a, dart_global_unit_t b) { return a.id < b.id; }))
      << d->domain_tag;
  if (d->scope == DART_LOCALITY_SCOPE_NODE) ++*nodes_seen;
  if (d->num_domains == 0) {
    EXPECT_EQ(d->scope, DART_LOCALITY_SCOPE_CORE) << d->domain_tag << ": leaves are cores";
    EXPECT_EQ(d->num_cores, 1);
    EXPECT_GE(d->num_units, 1);
    return;
  }
  std::vector<int> all;
  int cores = 0;
  for (int i = 0; i < d->num_domains; ++i) {
    const dart_domain_locality_t *c = d->children[i];
    EXPECT_EQ(c->parent, d);
    EXPECT_EQ(c->relative_index, i);
    EXPECT_EQ(c->level, d->level + 1);
    EXPECT_GT((int)c->scope, (int)d->scope);
    std::string want = std::string(std::strcmp(d->domain_tag, ".") == 0 ? "" : d->domain_tag) +
                       "." + std::to_string(i);
    EXPECT_EQ(std::string(c->domain_tag), want);
    if (d->scope >= DART_LOCALITY_SCOPE_NODE) {
      EXPECT_EQ(c->node_id, d->node_id);
    }
    std::vector<int> u = units_of(c);
    all.insert(all.end(), u.begin(), u.end());
    cores += c->num_cores;
    check_tree(c, nodes_seen);
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, units_of(d)) << d->domain_tag;
  EXPECT_EQ(cores, d->num_cores) << d->domain_tag;
}

}  // namespace

// The tree of DART_TEAM_ALL and every unit's locality against the node table.
TEST(Locality, TeamAllTreeMatchesTheNodes) {
  const int n = nunits();
  size_t nnodes = 0;
  DART_EXPECT_OK(dart_node_count(&nnodes));
  dart_domain_locality_t *root = nullptr;
  DART_EXPECT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->scope, DART_LOCALITY_SCOPE_GLOBAL);
  EXPECT_EQ(root->team, DART_TEAM_ALL);
  EXPECT_EQ(root->level, 0);
  EXPECT_EQ(root->parent, nullptr);
  EXPECT_EQ(root->num_units, n);
  EXPECT_EQ(root->num_nodes, (int)nnodes);
  EXPECT_EQ(root->num_domains, (int)nnodes);
  long nodes_seen = 0;
  check_tree(root, &nodes_seen);
  EXPECT_EQ(nodes_seen, (long)nnodes);
  // Node domains in node order, each holding exactly the units of its node; every node a
  // host name of its own.
  std::set<std::string> hosts;
  for (int i = 0; i < root->num_domains; ++i) {
    const dart_domain_locality_t *nd = root->children[i];
    EXPECT_EQ(nd->scope, DART_LOCALITY_SCOPE_NODE);
    EXPECT_EQ(nd->node_id, i);
    EXPECT_EQ(nd->global_index, i);
    EXPECT_EQ(nd->num_nodes, 1);
    hosts.insert(nd->host);
    for (int u : units_of(nd)) EXPECT_EQ(node_of(u), i) << "unit " << u;
    ASSERT_EQ(nd->num_domains, 1);
    EXPECT_EQ(nd->children[0]->scope, DART_LOCALITY_SCOPE_MODULE);
    for (int m = 0; m < nd->children[0]->num_domains; ++m)
      EXPECT_EQ(nd->children[0]->children[m]->scope, DART_LOCALITY_SCOPE_NUMA);
  }
  EXPECT_EQ(hosts.size(), nnodes) << "node domains share a host name";
  // Every unit: its core domain by tag, its ancestors up to its node, the same host.
  std::map<int, int> core_units;
  for (int u = 0; u < n; ++u) {
    dart_unit_locality_t *loc = nullptr;
    DART_EXPECT_OK(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(u), &loc));
    ASSERT_NE(loc, nullptr);
    EXPECT_EQ(loc->unit.id, u);
    EXPECT_EQ(loc->team, DART_TEAM_ALL);
    dart_domain_locality_t *core = nullptr;
    DART_EXPECT_OK(dart_domain_team_locality(DART_TEAM_ALL, loc->domain_tag, &core));
    ASSERT_NE(core, nullptr);
    EXPECT_EQ(core->scope, DART_LOCALITY_SCOPE_CORE);
    std::vector<int> cu = units_of(core);
    EXPECT_NE(std::find(cu.begin(), cu.end(), u), cu.end());
    EXPECT_EQ(core->global_index, loc->hwinfo.core_id);
    EXPECT_EQ(core->parent->scope, DART_LOCALITY_SCOPE_NUMA);
    EXPECT_EQ(core->parent->global_index, loc->hwinfo.numa_id);
    const dart_domain_locality_t *nd = core->parent->parent->parent;
    EXPECT_EQ(nd->scope, DART_LOCALITY_SCOPE_NODE);
    EXPECT_EQ(nd->node_id, node_of(u));
    EXPECT_STREQ(nd->host, loc->hwinfo.host);
    EXPECT_GE(loc->hwinfo.num_cores, 1);
    EXPECT_GE(loc->hwinfo.num_numa, 1);
    EXPECT_GE(loc->hwinfo.min_threads, 1);
    EXPECT_GE(loc->hwinfo.cpu_id, 0);
    EXPECT_EQ(loc->hwinfo.num_scopes, 2);
    EXPECT_EQ(loc->hwinfo.scopes[0].scope, DART_LOCALITY_SCOPE_CORE);
    EXPECT_EQ(loc->hwinfo.scopes[1].scope, DART_LOCALITY_SCOPE_NUMA);
    ++core_units[core->global_index * 4096 + node_of(u)];
  }
  // Emulated nodes: DART_UNITS_PER_NODE=k gives ceil(n / k) nodes.
  if (units_per_node() > 0) {
    EXPECT_EQ((int)nnodes, (n + units_per_node() - 1) / units_per_node());
  }
  // Every node's cores share its machine's (in proportion to the units).
  DART_EXPECT_OK(dart_team_locality_init(DART_TEAM_ALL));  // built already: nothing to do
  dart_domain_locality_t *again = nullptr;
  DART_EXPECT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &again));
  EXPECT_EQ(again, root);
}

// A sub-team's tree holds its units only, with team-relative unit localities; finalize
// releases it and the next query builds it again.
TEST(Locality, SubTeamTreeAndUnitLocalities) {
  const int n = nunits();
  std::vector<int> upper;
  for (int u = n / 2; u < n; ++u) upper.push_back(u);
  dart_team_t t = make_team(upper);
  if (t != DART_TEAM_NULL) {
    DART_EXPECT_OK(dart_team_locality_init(t));
    dart_domain_locality_t *root = nullptr;
    DART_EXPECT_OK(dart_domain_team_locality(t, ".", &root));
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->team, t);
    EXPECT_EQ(units_of(root), upper);
    long nodes_seen = 0;
    check_tree(root, &nodes_seen);
    std::set<int> nodes;
    for (int u : upper) nodes.insert(node_of(u));
    EXPECT_EQ(nodes_seen, (long)nodes.size());
    for (size_t i = 0; i < upper.size(); ++i) {
      dart_unit_locality_t *loc = nullptr, *all = nullptr;
      DART_EXPECT_OK(dart_unit_locality(t, DART_TEAM_UNIT_ID((int)i), &loc));
      DART_EXPECT_OK(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(upper[i]), &all));
      EXPECT_EQ(loc->unit.id, (int)i);
      EXPECT_EQ(loc->team, t);
      EXPECT_STREQ(loc->hwinfo.host, all->hwinfo.host);
      EXPECT_EQ(loc->hwinfo.core_id, all->hwinfo.core_id);
    }
    dart_unit_locality_t *bad = reinterpret_cast<dart_unit_locality_t *>(0x1);
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_unit_locality(t, DART_TEAM_UNIT_ID((int)upper.size()), &bad));
    EXPECT_EQ(bad, nullptr);
    DART_EXPECT_OK(dart_team_locality_finalize(t));
    DART_EXPECT_OK(dart_domain_team_locality(t, ".", &root));  // built again
    EXPECT_EQ(root->num_units, (int)upper.size());
    drop_team(t);
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Domain operations on clones (the team's tree is DART's: not destroyed by the user).
TEST(Locality, DomainOperationsOnClones) {
  const int n = nunits();
  size_t nnodes = 0;
  DART_EXPECT_OK(dart_node_count(&nnodes));
  dart_domain_locality_t *root = nullptr;
  DART_EXPECT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_destroy(root));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_destroy(root->children[0]));
  // scope lists
  int cnt = 0;
  dart_domain_locality_t **doms = nullptr;
  DART_EXPECT_OK(dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_NODE, &cnt, &doms));
  EXPECT_EQ(cnt, (int)nnodes);
  std::free(doms);
  char **tags = nullptr;
  DART_EXPECT_OK(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_CORE, &cnt, &tags));
  EXPECT_GE(cnt, (int)nnodes);
  for (int i = 0; i < cnt; ++i) {
    dart_domain_locality_t *c = nullptr;
    DART_EXPECT_OK(dart_domain_find(root, tags[i], &c));
    EXPECT_EQ(c->scope, DART_LOCALITY_SCOPE_CORE);
    std::free(tags[i]);
  }
  std::free(tags);
  doms = reinterpret_cast<dart_domain_locality_t **>(0x1);
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_CACHE, &cnt, &doms));
  EXPECT_EQ(doms, nullptr);
  dart_domain_locality_t *none = reinterpret_cast<dart_domain_locality_t *>(0x1);
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_domain_find(root, ".77", &none));
  EXPECT_EQ(none, nullptr);
  // clone, select node 0, exclude node 0
  dart_domain_locality_t *c = nullptr;
  DART_EXPECT_OK(dart_domain_clone(root, &c));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->parent, nullptr);
  EXPECT_EQ(units_of(c), units_of(root));
  const char *node0[] = {".0"};
  DART_EXPECT_OK(dart_domain_select(c, 1, node0));
  EXPECT_EQ(c->num_domains, 1);
  EXPECT_EQ(units_of(c), units_of(root->children[0]));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_destroy(c->children[0]));  // a subdomain
  dart_domain_locality_t *d = nullptr;
  DART_EXPECT_OK(dart_domain_clone(root, &d));
  DART_EXPECT_OK(dart_domain_exclude(d, 1, node0));
  EXPECT_EQ(d->num_domains, (int)nnodes - 1);
  EXPECT_EQ((int)(units_of(c).size() + units_of(d).size()), n);
  // assign: d becomes a copy of c
  DART_EXPECT_OK(dart_domain_assign(d, c));
  EXPECT_EQ(units_of(d), units_of(c));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_assign(root, c));
  DART_EXPECT_OK(dart_domain_destroy(c));
  DART_EXPECT_OK(dart_domain_destroy(d));
  // split by nodes into two parts (or one): the parts' units cover every unit once
  const int parts = nnodes >= 2 ? 2 : 1;
  std::vector<dart_domain_locality_t> split(parts);
  DART_EXPECT_OK(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NODE, parts, split.data()));
  std::vector<int> covered;
  for (auto &p : split) {
    std::vector<int> u = units_of(&p);
    covered.insert(covered.end(), u.begin(), u.end());
  }
  std::sort(covered.begin(), covered.end());
  EXPECT_EQ(covered, units_of(root));
  dart_domain_locality_t *empty = nullptr;
  DART_EXPECT_OK(dart_domain_create(&empty));
  for (auto &p : split) DART_EXPECT_OK(dart_domain_assign(&p, empty));  // releases them
  DART_EXPECT_OK(dart_domain_destroy(empty));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NODE,
                                                           (int)nnodes + 1, split.data()));
  // group every node under one GROUP domain (a clone): the new tag follows the last node's
  if (nnodes >= 2) {
    dart_domain_locality_t *g = nullptr;
    DART_EXPECT_OK(dart_domain_clone(root, &g));
    std::vector<std::string> names;
    for (int i = 0; i < (int)nnodes; ++i) names.push_back("." + std::to_string(i));
    std::vector<const char *> ptrs;
    for (auto &s : names) ptrs.push_back(s.c_str());
    char tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
    DART_EXPECT_OK(dart_domain_group(g, (int)nnodes, ptrs.data(), tag));
    EXPECT_EQ(std::string(tag), "." + std::to_string(nnodes));
    dart_domain_locality_t *grp = nullptr;
    DART_EXPECT_OK(dart_domain_find(g, tag, &grp));
    EXPECT_EQ(grp->scope, DART_LOCALITY_SCOPE_GROUP);
    EXPECT_EQ(grp->num_domains, (int)nnodes);
    EXPECT_EQ(units_of(grp), units_of(root));
    EXPECT_EQ(grp->num_nodes, (int)nnodes);
    dart_domain_locality_t *n1 = nullptr;
    DART_EXPECT_OK(dart_domain_find(g, ".1", &n1));  // the grouped keep their tags
    EXPECT_EQ(n1->parent, grp);
    const char *nested[] = {".0", ".0.0"};
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_group(g, 2, nested, tag));
    DART_EXPECT_OK(dart_domain_destroy(g));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Tags name a domain and its subtree: ".1" is not a prefix of ".10". A hand-built tree
// (create, add_subdomain, move_subdomain) with eleven children.
TEST(Locality, HandBuiltTreeTagsAndMoves) {
  dart_domain_locality_t *root = nullptr;
  DART_EXPECT_OK(dart_domain_create(&root));
  root->scope = DART_LOCALITY_SCOPE_GLOBAL;
  std::strcpy(root->domain_tag, ".");
  for (int i = 0; i < 11; ++i) {
    dart_domain_locality_t *c = nullptr, *leaf = nullptr;
    DART_EXPECT_OK(dart_domain_create(&c));
    DART_EXPECT_OK(dart_domain_create(&leaf));
    c->scope = DART_LOCALITY_SCOPE_NODE;
    std::snprintf(c->domain_tag, sizeof c->domain_tag, ".%d", i);
    leaf->scope = DART_LOCALITY_SCOPE_CORE;
    std::snprintf(leaf->domain_tag, sizeof leaf->domain_tag, ".%d.0", i);
    leaf->num_cores = 1;
    leaf->num_units = 1;
    leaf->unit_ids = static_cast<dart_global_unit_t *>(std::malloc(sizeof(dart_global_unit_t)));
    leaf->unit_ids[0].id = 100 + i;
    DART_EXPECT_OK(dart_domain_add_subdomain(c, leaf, -1));
    DART_EXPECT_OK(dart_domain_add_subdomain(root, c, -1));
  }
  EXPECT_EQ(root->num_domains, 11);
  EXPECT_EQ(root->num_units, 11);
  dart_domain_locality_t *sel = nullptr;
  DART_EXPECT_OK(dart_domain_clone(root, &sel));
  const char *one[] = {".1"};
  DART_EXPECT_OK(dart_domain_select(sel, 1, one));
  EXPECT_EQ(units_of(sel), std::vector<int>{101});
  DART_EXPECT_OK(dart_domain_destroy(sel));
  // Move leaf ".3.0" under ".5": ".3" keeps no unit, ".5" two.
  dart_domain_locality_t *leaf3 = nullptr, *n5 = nullptr;
  DART_EXPECT_OK(dart_domain_find(root, ".3.0", &leaf3));
  DART_EXPECT_OK(dart_domain_find(root, ".5", &n5));
  DART_EXPECT_OK(dart_domain_move_subdomain(leaf3, n5, 0));
  EXPECT_EQ(n5->num_units, 2);
  EXPECT_EQ(root->children[3]->num_units, 0);
  EXPECT_EQ(root->num_units, 11);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_move_subdomain(n5, leaf3, 0));  // below itself
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_add_subdomain(root, n5, 0));    // has a parent
  DART_EXPECT_OK(dart_domain_destroy(root));
}

// Groups and teams split by locality.
TEST(Locality, GroupAndTeamSplitsByNode) {
  const int n = nunits(), me = myid();
  size_t nnodes = 0;
  DART_EXPECT_OK(dart_node_count(&nnodes));
  dart_domain_locality_t *root = nullptr;
  DART_EXPECT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  dart_group_t all = DART_GROUP_NULL;
  DART_EXPECT_OK(dart_team_get_group(DART_TEAM_ALL, &all));
  std::vector<dart_group_t> parts(nnodes + 2, DART_GROUP_NULL);
  size_t nout = 0;
  DART_EXPECT_OK(dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NODE, nnodes + 2, &nout,
                                           parts.data()));
  EXPECT_EQ(nout, nnodes);
  for (size_t p = 0; p < nout; ++p) {
    size_t sz = 0;
    DART_EXPECT_OK(dart_group_size(parts[p], &sz));
    std::vector<dart_global_unit_t> m(sz);
    DART_EXPECT_OK(dart_group_getmembers(parts[p], m.data()));
    for (auto u : m) EXPECT_EQ(node_of(u.id), (int)p);
    DART_EXPECT_OK(dart_group_destroy(&parts[p]));
  }
  for (size_t p = nout; p < parts.size(); ++p) EXPECT_EQ(parts[p], DART_GROUP_NULL);
  DART_EXPECT_OK(
      dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NODE, 1, &nout, parts.data()));
  EXPECT_EQ(nout, 1u);
  size_t sz = 0;
  DART_EXPECT_OK(dart_group_size(parts[0], &sz));
  EXPECT_EQ((int)sz, n);
  DART_EXPECT_OK(dart_group_destroy(&parts[0]));
  DART_EXPECT_FAIL(
      DART_ERR_NOTFOUND,
      dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_CACHE, 2, &nout, parts.data()));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_group_locality_split(all, root, DART_LOCALITY_SCOPE_NODE, 0,
                                                             &nout, parts.data()));
  DART_EXPECT_OK(dart_group_destroy(&all));
  // One team per node.
  dart_team_t mine = DART_TEAM_NULL;
  DART_EXPECT_OK(dart_team_locality_split(DART_TEAM_ALL, DART_LOCALITY_SCOPE_NODE, 64, &mine));
  size_t tsize = 0;
  DART_EXPECT_OK(dart_team_size(mine, &tsize));
  int same = 0;
  for (int u = 0; u < n; ++u) same += node_of(u) == node_of(me);
  EXPECT_EQ((int)tsize, same);
  dart_domain_locality_t *troot = nullptr;
  DART_EXPECT_OK(dart_domain_team_locality(mine, ".", &troot));
  EXPECT_EQ(troot->num_domains, 1);  // one node
  DART_EXPECT_OK(dart_barrier(mine));
  DART_EXPECT_OK(dart_team_destroy(&mine));
  dart_team_t t = 12345;
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_team_locality_split(DART_TEAM_ALL, DART_LOCALITY_SCOPE_NODE, 0, &t));
  EXPECT_EQ(t, DART_TEAM_NULL);
  t = 12345;
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_team_locality_split(DART_TEAM_ALL, DART_LOCALITY_SCOPE_CACHE, 2, &t));
  EXPECT_EQ(t, DART_TEAM_NULL);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Bad arguments leave pointer outputs NULL; dart_config works at any time.
TEST(Locality, ErrorPathsAndConfig) {
  dart_domain_locality_t *d = reinterpret_cast<dart_domain_locality_t *>(0x1);
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_domain_team_locality(31000, ".", &d));
  EXPECT_EQ(d, nullptr);
  d = reinterpret_cast<dart_domain_locality_t *>(0x1);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_team_locality(-3, ".", &d));
  EXPECT_EQ(d, nullptr);
  d = reinterpret_cast<dart_domain_locality_t *>(0x1);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_team_locality(DART_TEAM_ALL, nullptr, &d));
  EXPECT_EQ(d, nullptr);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_team_locality(DART_TEAM_ALL, ".", nullptr));
  dart_unit_locality_t *l = reinterpret_cast<dart_unit_locality_t *>(0x1);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID(-1), &l));
  EXPECT_EQ(l, nullptr);
  l = reinterpret_cast<dart_unit_locality_t *>(0x1);
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_unit_locality(31000, DART_TEAM_UNIT_ID(0), &l));
  EXPECT_EQ(l, nullptr);
  d = reinterpret_cast<dart_domain_locality_t *>(0x1);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_clone(nullptr, &d));
  EXPECT_EQ(d, nullptr);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_destroy(nullptr));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_locality_init(31000));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_locality_finalize(31000));
  dart_domain_locality_t *root = nullptr;
  DART_EXPECT_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_select(root, -1, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_domain_select(root, 1, nullptr));
  char tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  const char *missing[] = {".99"};
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_domain_group(root, 1, missing, tag));
  dart_config_t *cfg = nullptr;
  dart_config(&cfg);
  ASSERT_NE(cfg, nullptr);
  cfg->log_enabled = 1;  // DASH does this; DART-MPI writes no log
  dart_config_t *again = nullptr;
  dart_config(&again);
  EXPECT_EQ(again, cfg);
}
