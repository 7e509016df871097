// SPDX-License-Identifier: BSD-3-Clause
// The locality API of DART 3.2 (dart_locality.h): per team a tree of domains GLOBAL ->
// NODE -> MODULE -> NUMA -> CORE, built at the first query from every unit's hardware as
// dart_init exchanged it (locality_hw.cc): a local call, nothing is exchanged after
// dart_init; and the domain operations on such trees and on the user's copies.
//
// Nodes are DART's nodes: MPI's shared-memory groups refined by DART_UNITS_PER_NODE, so
// an emulated node is a node domain, named "<host>#<i>" when a machine holds several.
// docs/design.md, "Locality".
#include "internal.h"

#include <dash/dart/if/dart_locality.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

namespace dart {
namespace detail {

// ---------------------------------------------------------------------------
// domains: allocation, copies, the tree's derived fields
// ---------------------------------------------------------------------------
namespace {

// Every domain is one malloc'd struct (dart_domain_destroy frees it with free), its
// arrays malloc'd too; a tree owns its children.
dart_domain_locality_t *dom_new() {
  auto *d = static_cast<dart_domain_locality_t *>(std::calloc(1, sizeof(dart_domain_locality_t)));
  if (d == nullptr) return nullptr;
  d->scope = DART_LOCALITY_SCOPE_UNDEFINED;
  d->global_index = -1;
  d->team = DART_TEAM_NULL;
  d->node_id = -1;
  d->shared_mem_bytes = -1;
  return d;
}

void dom_clear(dart_domain_locality_t *d) {  // frees what d owns, not d itself
  for (int i = 0; i < d->num_domains; ++i) {
    dom_clear(d->children[i]);
    std::free(d->children[i]);
  }
  std::free(d->children);
  std::free(d->unit_ids);
  std::free(d->aliases);
  d->children = nullptr;
  d->unit_ids = nullptr;
  d->aliases = nullptr;
  d->num_domains = d->num_units = d->num_aliases = 0;
}

// Deep copy of src's contents into dst (dst's own contents are not looked at). Aliases
// are not copied; dst's parent is `parent`.
bool dom_copy(dart_domain_locality_t *dst, const dart_domain_locality_t *src,
              dart_domain_locality_t *parent) {
  *dst = *src;
  dst->parent = parent;
  dst->aliases = nullptr;
  dst->num_aliases = 0;
  dst->children = nullptr;
  dst->unit_ids = nullptr;
  dst->num_domains = 0;
  dst->num_units = 0;
  if (src->num_units > 0 && src->unit_ids != nullptr) {
    dst->unit_ids = static_cast<dart_global_unit_t *>(
        std::malloc(sizeof(dart_global_unit_t) * (size_t)src->num_units));
    if (dst->unit_ids == nullptr) return false;
    std::memcpy(dst->unit_ids, src->unit_ids, sizeof(dart_global_unit_t) * (size_t)src->num_units);
    dst->num_units = src->num_units;
  }
  if (src->num_domains > 0 && src->children != nullptr) {
    dst->children = static_cast<dart_domain_locality_t **>(
        std::calloc((size_t)src->num_domains, sizeof(dart_domain_locality_t *)));
    if (dst->children == nullptr) return false;
    for (int i = 0; i < src->num_domains; ++i) {
      dst->children[i] = static_cast<dart_domain_locality_t *>(
          std::malloc(sizeof(dart_domain_locality_t)));
      if (dst->children[i] == nullptr) return false;
      dst->num_domains = i + 1;
      if (!dom_copy(dst->children[i], src->children[i], dst)) return false;
    }
  }
  return true;
}

// Recomputes the derived fields of d's subtree bottom-up: children's parent, level and
// relative index; units, cores, nodes and symmetry of every inner domain from its
// children. A CORE domain is a leaf that keeps its units; an inner domain without
// children has none.
void dom_refresh(dart_domain_locality_t *d) {
  if (d->scope == DART_LOCALITY_SCOPE_CORE && d->num_domains == 0) return;
  std::vector<dart_global_unit_t> units;
  int cores = 0;
  std::set<int> nodes;
  bool symmetric = true;
  for (int i = 0; i < d->num_domains; ++i) {
    dart_domain_locality_t *c = d->children[i];
    c->parent = d;
    c->level = d->level + 1;
    c->relative_index = i;
    c->team = d->team;
    dom_refresh(c);
    units.insert(units.end(), c->unit_ids, c->unit_ids + c->num_units);
    cores += std::max(0, c->num_cores);
    if (c->node_id >= 0) nodes.insert(c->node_id);
    symmetric = symmetric && c->num_units == d->children[0]->num_units &&
                c->num_cores == d->children[0]->num_cores;
  }
  std::sort(units.begin(), units.end(),
            [](dart_global_unit_t a, dart_global_unit_t b) { return a.id < b.id; });
  std::free(d->unit_ids);
  d->unit_ids = nullptr;
  d->num_units = (int)units.size();
  if (!units.empty()) {
    d->unit_ids = static_cast<dart_global_unit_t *>(
        std::malloc(sizeof(dart_global_unit_t) * units.size()));
    if (d->unit_ids != nullptr)
      std::memcpy(d->unit_ids, units.data(), sizeof(dart_global_unit_t) * units.size());
    else
      d->num_units = 0;
  }
  d->num_cores = cores;
  d->is_symmetric = symmetric ? 1 : 0;
  if (d->scope < DART_LOCALITY_SCOPE_NODE) {  // above nodes: what the children hold
    d->num_nodes = (int)nodes.size();
    d->node_id = nodes.size() == 1 ? *nodes.begin() : -1;
  }
}

const dart_domain_locality_t *dom_root(const dart_domain_locality_t *d) {
  while (d->parent != nullptr) d = d->parent;
  return d;
}

// After a change at or below d: the derived fields of d's whole tree (trees are small).
void dom_refresh_up(dart_domain_locality_t *d) {
  dom_refresh(const_cast<dart_domain_locality_t *>(dom_root(d)));
}

// Tag relations. "." is the root; ".0.1" lies below ".0" (not below ".0.10").
bool tag_at_or_below(const char *tag, const char *anc) {
  if (std::strcmp(anc, ".") == 0) return true;
  const size_t n = std::strlen(anc);
  return std::strncmp(tag, anc, n) == 0 && (tag[n] == '\0' || tag[n] == '.');
}

dart_domain_locality_t *dom_find(dart_domain_locality_t *d, const char *tag) {
  if (std::strcmp(d->domain_tag, tag) == 0) return d;
  for (int i = 0; i < d->num_domains; ++i)
    if (dart_domain_locality_t *f = dom_find(d->children[i], tag)) return f;
  return nullptr;
}

void dom_collect(dart_domain_locality_t *d, dart_locality_scope_t scope,
                 std::vector<dart_domain_locality_t *> *out) {
  if (d->scope == scope) {
    out->push_back(d);
    return;
  }
  for (int i = 0; i < d->num_domains; ++i) dom_collect(d->children[i], scope, out);
}

// Removes d's children for which drop(child) holds; recurses into the kept ones for which
// descend(child) holds.
template <class Drop, class Descend>
void dom_filter(dart_domain_locality_t *d, Drop drop, Descend descend) {
  int kept = 0;
  for (int i = 0; i < d->num_domains; ++i) {
    dart_domain_locality_t *c = d->children[i];
    if (drop(c)) {
      dom_clear(c);
      std::free(c);
      continue;
    }
    if (descend(c)) dom_filter(c, drop, descend);
    d->children[kept++] = c;
  }
  d->num_domains = kept;
  if (kept == 0) {
    std::free(d->children);
    d->children = nullptr;
  }
}

// dart_domain_select: keep the domains at or below a tag and their ancestors.
void dom_select(dart_domain_locality_t *d, const std::vector<std::string> &tags) {
  auto drop = [&](const dart_domain_locality_t *c) {
    for (const std::string &t : tags)
      if (tag_at_or_below(c->domain_tag, t.c_str()) || tag_at_or_below(t.c_str(), c->domain_tag))
        return false;
    return true;
  };
  auto descend = [&](const dart_domain_locality_t *c) {  // not wholly selected
    for (const std::string &t : tags)
      if (tag_at_or_below(c->domain_tag, t.c_str())) return false;
    return true;
  };
  bool whole = false;
  for (const std::string &t : tags) whole = whole || tag_at_or_below(d->domain_tag, t.c_str());
  if (!whole) dom_filter(d, drop, descend);
  dom_refresh_up(d);
}

// dart_domain_exclude: drop the domains at or below a tag.
void dom_exclude(dart_domain_locality_t *d, const std::vector<std::string> &tags) {
  auto drop = [&](const dart_domain_locality_t *c) {
    for (const std::string &t : tags)
      if (tag_at_or_below(c->domain_tag, t.c_str())) return true;
    return false;
  };
  dom_filter(d, drop, [](const dart_domain_locality_t *) { return true; });
  dom_refresh_up(d);
}

// ---------------------------------------------------------------------------
// the teams' trees
// ---------------------------------------------------------------------------

// Roots of the teams' trees: owned by DART, refused by dart_domain_destroy.
std::mutex g_roots_mutex;
std::unordered_set<const dart_domain_locality_t *> g_roots;

bool in_team_tree(const dart_domain_locality_t *d) {
  std::lock_guard<std::mutex> lock(g_roots_mutex);
  return g_roots.count(dom_root(d)) != 0;
}

}  // namespace

struct TeamLocality {
  dart_domain_locality_t *root = nullptr;
  std::vector<dart_unit_locality_t> units;  // by team unit
};

void locality_team_free(Team *t) {
  if (t->locality == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_roots_mutex);
    g_roots.erase(t->locality->root);
  }
  if (t->locality->root != nullptr) {
    dom_clear(t->locality->root);
    std::free(t->locality->root);
  }
  delete t->locality;
  t->locality = nullptr;
}

namespace {

dart_domain_locality_t *child(dart_domain_locality_t *d, dart_locality_scope_t scope, int gindex,
                              const char *host) {
  dart_domain_locality_t *c = dom_new();
  if (c == nullptr) return nullptr;
  c->scope = scope;
  c->global_index = gindex;
  std::snprintf(c->host, sizeof c->host, "%s", host);
  auto **grown = static_cast<dart_domain_locality_t **>(
      std::realloc(d->children, sizeof(dart_domain_locality_t *) * (size_t)(d->num_domains + 1)));
  if (grown == nullptr) {
    std::free(c);
    return nullptr;
  }
  d->children = grown;
  d->children[d->num_domains++] = c;
  return c;
}

void set_tags(dart_domain_locality_t *d) {
  for (int i = 0; i < d->num_domains; ++i) {
    dart_domain_locality_t *c = d->children[i];
    const std::string tag = (std::strcmp(d->domain_tag, ".") == 0 ? std::string()
                                                                  : std::string(d->domain_tag)) +
                            "." + std::to_string(i);
    std::snprintf(c->domain_tag, sizeof c->domain_tag, "%s", tag.c_str());
    set_tags(c);
  }
}

// Cores of node n available to its units: the machine's cores, shared among the nodes
// on the machine in proportion to their units (an emulated node gets its share).
int node_cores(int n) {
  int node_units = 0, machine_units = 0, cores = 1;
  const char *host = nullptr;
  for (int u = 0; u < g->size; ++u)
    if (g->node_of[u] == n) {
      ++node_units;
      host = g->hw[u].host;
      cores = g->hw[u].cores;
    }
  for (int u = 0; host && u < g->size; ++u) machine_units += std::strcmp(g->hw[u].host, host) == 0;
  if (machine_units == 0) return cores;
  return std::max(1, (int)((long)cores * node_units / machine_units));
}

// Builds t's tree and unit localities from the units' hardware (local, deterministic).
TeamLocality *build(const Team *t) {
  std::unique_ptr<TeamLocality> tl(new TeamLocality());
  dart_domain_locality_t *root = dom_new();
  if (root == nullptr) return nullptr;
  tl->root = root;
  root->scope = DART_LOCALITY_SCOPE_GLOBAL;
  root->global_index = 0;
  root->team = t->id;
  std::snprintf(root->domain_tag, sizeof root->domain_tag, ".");
  // team units ordered by (node, NUMA, core, global id)
  std::vector<int> order(t->size);
  for (int u = 0; u < t->size; ++u) order[u] = u;
  auto key = [&](int u) {
    const int gu = t->global[u];
    return std::make_tuple(g->node_of[gu], g->hw[gu].numa, g->hw[gu].core, gu);
  };
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  std::vector<dart_domain_locality_t *> core_of(t->size, nullptr);
  dart_domain_locality_t *node = nullptr, *module = nullptr, *numa = nullptr, *core = nullptr;
  for (int u : order) {
    const int gu = t->global[u];
    const UnitHw &h = g->hw[gu];
    const int n = g->node_of[gu];
    const char *host = g->node_host[n].c_str();
    if (node == nullptr || node->global_index != n) {
      if ((node = child(root, DART_LOCALITY_SCOPE_NODE, n, host)) == nullptr) return nullptr;
      node->node_id = n;
      node->num_nodes = 1;
      if ((module = child(node, DART_LOCALITY_SCOPE_MODULE, 0, host)) == nullptr) return nullptr;
      numa = core = nullptr;
    }
    if (numa == nullptr || numa->global_index != h.numa) {
      if ((numa = child(module, DART_LOCALITY_SCOPE_NUMA, h.numa, host)) == nullptr) return nullptr;
      core = nullptr;
    }
    if (core == nullptr || core->global_index != h.core) {
      if ((core = child(numa, DART_LOCALITY_SCOPE_CORE, h.core, host)) == nullptr) return nullptr;
      core->num_cores = 1;
    }
    auto *grown = static_cast<dart_global_unit_t *>(
        std::realloc(core->unit_ids, sizeof(dart_global_unit_t) * (size_t)(core->num_units + 1)));
    if (grown == nullptr) return nullptr;
    core->unit_ids = grown;
    core->unit_ids[core->num_units++] = dart_global_unit_t{gu};
    core_of[u] = core;
  }
  // Node ids of everything below a node, then tags and the derived fields.
  for (int i = 0; i < root->num_domains; ++i) {
    dart_domain_locality_t *nd = root->children[i];
    std::vector<dart_domain_locality_t *> below;
    for (dart_locality_scope_t s :
         {DART_LOCALITY_SCOPE_MODULE, DART_LOCALITY_SCOPE_NUMA, DART_LOCALITY_SCOPE_CORE})
      dom_collect(nd, s, &below);
    for (dart_domain_locality_t *b : below) {
      b->node_id = nd->node_id;
      b->num_nodes = 1;
    }
  }
  set_tags(root);
  dom_refresh(root);
  tl->units.resize((size_t)t->size);
  for (int u = 0; u < t->size; ++u) {
    const int gu = t->global[u];
    const UnitHw &h = g->hw[gu];
    dart_unit_locality_t &ul = tl->units[u];
    ul = dart_unit_locality_t{};
    ul.unit.id = u;
    ul.team = t->id;
    dart_hwinfo_t &w = ul.hwinfo;
    std::snprintf(w.host, sizeof w.host, "%s", g->node_host[g->node_of[gu]].c_str());
    w.num_cores = node_cores(g->node_of[gu]);
    w.num_numa = h.numas;
    w.numa_id = h.numa;
    w.num_sockets = h.sockets;
    w.core_id = h.core;
    w.cpu_id = h.cpu;
    w.min_cpu_mhz = h.min_mhz;
    w.max_cpu_mhz = h.max_mhz;
    for (int l = 0; l < DART_LOCALITY_MAX_CACHE_LEVELS; ++l) {
      w.cache_sizes[l] = l < kCacheLevels ? h.cache_size[l] : -1;
      w.cache_line_sizes[l] = l < kCacheLevels ? h.cache_line[l] : -1;
      w.cache_ids[l] = l < kCacheLevels ? h.cache_id[l] : -1;
    }
    w.min_threads = h.min_threads;
    w.max_threads = h.max_threads;
    w.max_shmem_mbps = -1;
    w.system_memory_bytes = h.mem_mib;
    w.numa_memory_bytes = h.numa_mem_mib;
    for (auto &sp : w.scopes) sp = dart_locality_scope_pos_t{DART_LOCALITY_SCOPE_UNDEFINED, -1};
    w.scopes[0] = dart_locality_scope_pos_t{DART_LOCALITY_SCOPE_CORE, h.core};
    w.scopes[1] = dart_locality_scope_pos_t{DART_LOCALITY_SCOPE_NUMA, h.numa};
    w.num_scopes = 2;
    std::snprintf(ul.domain_tag, sizeof ul.domain_tag, "%s", core_of[u]->domain_tag);
  }
  {
    std::lock_guard<std::mutex> lock(g_roots_mutex);
    g_roots.insert(root);
  }
  return tl.release();
}

// The team's locality, built at the first use. Thread-safe.
dart_ret_t team_locality(dart_team_t team, const char *fn, TeamLocality **out) {
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(team, fn, &t));
  std::lock_guard<std::mutex> lock(g->locality_mutex);
  if (t->locality == nullptr) {
    t->locality = build(t);
    if (t->locality == nullptr)
      return fail(DART_ERR_NOMEM, fn, "out of memory building the locality of team %d", (int)team);
  }
  *out = t->locality;
  return DART_OK;
}

dart_ret_t check_domain(const dart_domain_locality_t *d, const char *fn, const char *what) {
  if (d == nullptr) return fail(DART_ERR_INVAL, fn, "%s is NULL", what);
  return DART_OK;
}

dart_ret_t read_tags(int n, const char **tags, const char *fn, std::vector<std::string> *out) {
  if (n < 0) return fail(DART_ERR_INVAL, fn, "the number of tags (%d) is negative", n);
  if (n > 0 && tags == nullptr) return fail(DART_ERR_INVAL, fn, "the tags are NULL");
  for (int i = 0; i < n; ++i) {
    if (tags[i] == nullptr) return fail(DART_ERR_INVAL, fn, "tag %d is NULL", i);
    out->emplace_back(tags[i]);
  }
  return DART_OK;
}

}  // namespace
}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_team_locality_init(dart_team_t team) {
  TeamLocality *tl = nullptr;
  return team_locality(team, "dart_team_locality_init", &tl);
}

dart_ret_t dart_team_locality_finalize(dart_team_t team) {
  const char *fn = "dart_team_locality_finalize";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(team, fn, &t));
  std::lock_guard<std::mutex> lock(g->locality_mutex);
  locality_team_free(t);
  return DART_OK;
}

dart_ret_t dart_domain_team_locality(dart_team_t team, const char *domain_tag,
                                     dart_domain_locality_t **team_domain_out) {
  const char *fn = "dart_domain_team_locality";
  null_out(team_domain_out, nullptr);
  if (team_domain_out == nullptr) return fail(DART_ERR_INVAL, fn, "team_domain_out is NULL");
  if (domain_tag == nullptr) return fail(DART_ERR_INVAL, fn, "domain_tag is NULL");
  TeamLocality *tl = nullptr;
  DART_TRY(team_locality(team, fn, &tl));
  dart_domain_locality_t *d = dom_find(tl->root, domain_tag);
  if (d == nullptr)
    return fail(DART_ERR_NOTFOUND, fn, "team %d has no domain '%s'", (int)team, domain_tag);
  *team_domain_out = d;
  return DART_OK;
}

dart_ret_t dart_unit_locality(dart_team_t team, dart_team_unit_t unit, dart_unit_locality_t **loc) {
  const char *fn = "dart_unit_locality";
  null_out(loc, nullptr);
  if (loc == nullptr) return fail(DART_ERR_INVAL, fn, "loc is NULL");
  TeamLocality *tl = nullptr;
  DART_TRY(team_locality(team, fn, &tl));
  if (unit.id < 0 || unit.id >= (int)tl->units.size())
    return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d) of team %d", unit.id,
                (int)tl->units.size(), (int)team);
  *loc = &tl->units[(size_t)unit.id];
  return DART_OK;
}

dart_ret_t dart_domain_create(dart_domain_locality_t **domain_out) {
  const char *fn = "dart_domain_create";
  null_out(domain_out, nullptr);
  if (domain_out == nullptr) return fail(DART_ERR_INVAL, fn, "domain_out is NULL");
  dart_domain_locality_t *d = dom_new();
  if (d == nullptr) return fail(DART_ERR_NOMEM, fn, "out of memory");
  *domain_out = d;
  return DART_OK;
}

dart_ret_t dart_domain_clone(const dart_domain_locality_t *domain_in,
                             dart_domain_locality_t **domain_out) {
  const char *fn = "dart_domain_clone";
  null_out(domain_out, nullptr);
  if (domain_out == nullptr) return fail(DART_ERR_INVAL, fn, "domain_out is NULL");
  DART_TRY(check_domain(domain_in, fn, "domain_in"));
  auto *d = static_cast<dart_domain_locality_t *>(std::malloc(sizeof(dart_domain_locality_t)));
  if (d == nullptr || !dom_copy(d, domain_in, nullptr)) {
    if (d != nullptr) {
      dom_clear(d);
      std::free(d);
    }
    return fail(DART_ERR_NOMEM, fn, "out of memory");
  }
  *domain_out = d;
  return DART_OK;
}

dart_ret_t dart_domain_destroy(dart_domain_locality_t *domain) {
  const char *fn = "dart_domain_destroy";
  DART_TRY(check_domain(domain, fn, "domain"));
  if (in_team_tree(domain))
    return fail(DART_ERR_INVAL, fn,
                "domain '%s' belongs to team %d's tree, which DART owns "
                "(dart_team_locality_finalize releases it)",
                domain->domain_tag, (int)domain->team);
  if (domain->parent != nullptr)
    return fail(DART_ERR_INVAL, fn, "domain '%s' is a subdomain; destroy the root of its tree",
                domain->domain_tag);
  dom_clear(domain);
  std::free(domain);
  return DART_OK;
}

dart_ret_t dart_domain_assign(dart_domain_locality_t *domain_lhs,
                              const dart_domain_locality_t *domain_rhs) {
  const char *fn = "dart_domain_assign";
  DART_TRY(check_domain(domain_lhs, fn, "domain_lhs"));
  DART_TRY(check_domain(domain_rhs, fn, "domain_rhs"));
  if (domain_lhs == domain_rhs) return DART_OK;
  if (in_team_tree(domain_lhs))
    return fail(DART_ERR_INVAL, fn, "domain_lhs belongs to a team's tree, which DART owns");
  dart_domain_locality_t copy;
  if (!dom_copy(&copy, domain_rhs, domain_lhs->parent)) {
    dom_clear(&copy);
    return fail(DART_ERR_NOMEM, fn, "out of memory");
  }
  dom_clear(domain_lhs);
  *domain_lhs = copy;
  for (int i = 0; i < domain_lhs->num_domains; ++i) domain_lhs->children[i]->parent = domain_lhs;
  if (domain_lhs->parent != nullptr) dom_refresh_up(domain_lhs->parent);
  return DART_OK;
}

dart_ret_t dart_domain_find(const dart_domain_locality_t *domain_in, const char *domain_tag,
                            dart_domain_locality_t **subdomain_out) {
  const char *fn = "dart_domain_find";
  null_out(subdomain_out, nullptr);
  if (subdomain_out == nullptr) return fail(DART_ERR_INVAL, fn, "subdomain_out is NULL");
  DART_TRY(check_domain(domain_in, fn, "domain_in"));
  if (domain_tag == nullptr) return fail(DART_ERR_INVAL, fn, "domain_tag is NULL");
  dart_domain_locality_t *d = dom_find(const_cast<dart_domain_locality_t *>(domain_in), domain_tag);
  if (d == nullptr)
    return fail(DART_ERR_NOTFOUND, fn, "no domain '%s' at or below '%s'", domain_tag,
                domain_in->domain_tag);
  *subdomain_out = d;
  return DART_OK;
}

dart_ret_t dart_domain_select(dart_domain_locality_t *domain_in, int num_subdomain_tags,
                              const char **subdomain_tags) {
  const char *fn = "dart_domain_select";
  DART_TRY(check_domain(domain_in, fn, "domain_in"));
  std::vector<std::string> tags;
  DART_TRY(read_tags(num_subdomain_tags, subdomain_tags, fn, &tags));
  dom_select(domain_in, tags);
  return DART_OK;
}

dart_ret_t dart_domain_exclude(dart_domain_locality_t *domain_in, int num_subdomain_tags,
                               const char **subdomain_tags) {
  const char *fn = "dart_domain_exclude";
  DART_TRY(check_domain(domain_in, fn, "domain_in"));
  std::vector<std::string> tags;
  DART_TRY(read_tags(num_subdomain_tags, subdomain_tags, fn, &tags));
  dom_exclude(domain_in, tags);
  return DART_OK;
}

dart_ret_t dart_domain_add_subdomain(dart_domain_locality_t *domain,
                                     dart_domain_locality_t *subdomain, int subdomain_rel_id) {
  const char *fn = "dart_domain_add_subdomain";
  DART_TRY(check_domain(domain, fn, "domain"));
  DART_TRY(check_domain(subdomain, fn, "subdomain"));
  if (subdomain->parent != nullptr || in_team_tree(subdomain))
    return fail(DART_ERR_INVAL, fn,
                "subdomain '%s' belongs to a tree already (use "
                "dart_domain_move_subdomain)",
                subdomain->domain_tag);
  for (const dart_domain_locality_t *p = domain; p != nullptr; p = p->parent)
    if (p == subdomain) return fail(DART_ERR_INVAL, fn, "subdomain is an ancestor of domain");
  auto **grown = static_cast<dart_domain_locality_t **>(std::realloc(
      domain->children, sizeof(dart_domain_locality_t *) * (size_t)(domain->num_domains + 1)));
  if (grown == nullptr) return fail(DART_ERR_NOMEM, fn, "out of memory");
  domain->children = grown;
  const int at = (subdomain_rel_id < 0 || subdomain_rel_id > domain->num_domains)
                     ? domain->num_domains
                     : subdomain_rel_id;
  for (int i = domain->num_domains; i > at; --i) domain->children[i] = domain->children[i - 1];
  domain->children[at] = subdomain;
  ++domain->num_domains;
  subdomain->parent = domain;
  dom_refresh_up(domain);
  return DART_OK;
}

dart_ret_t dart_domain_move_subdomain(dart_domain_locality_t *domain,
                                      dart_domain_locality_t *new_parent_domain,
                                      int new_domain_rel_id) {
  const char *fn = "dart_domain_move_subdomain";
  DART_TRY(check_domain(domain, fn, "domain"));
  DART_TRY(check_domain(new_parent_domain, fn, "new_parent_domain"));
  dart_domain_locality_t *old = domain->parent;
  if (old == nullptr)
    return fail(DART_ERR_INVAL, fn, "domain '%s' has no parent", domain->domain_tag);
  if (dom_root(domain) != dom_root(new_parent_domain))
    return fail(DART_ERR_INVAL, fn, "new_parent_domain is not in domain's tree");
  for (const dart_domain_locality_t *p = new_parent_domain; p != nullptr; p = p->parent)
    if (p == domain) return fail(DART_ERR_INVAL, fn, "new_parent_domain lies below domain");
  int at = 0;
  while (at < old->num_domains && old->children[at] != domain) ++at;
  for (int i = at; i + 1 < old->num_domains; ++i) old->children[i] = old->children[i + 1];
  if (--old->num_domains == 0) {
    std::free(old->children);
    old->children = nullptr;
  }
  domain->parent = nullptr;
  dom_refresh_up(old);
  return dart_domain_add_subdomain(new_parent_domain, domain, new_domain_rel_id);
}

dart_ret_t dart_domain_scope_domains(const dart_domain_locality_t *domain_in,
                                     dart_locality_scope_t scope, int *num_domains_out,
                                     dart_domain_locality_t ***domains_out) {
  const char *fn = "dart_domain_scope_domains";
  null_out(domains_out, nullptr);
  if (num_domains_out == nullptr || domains_out == nullptr)
    return fail(DART_ERR_INVAL, fn, "num_domains_out or domains_out is NULL");
  *num_domains_out = 0;
  DART_TRY(check_domain(domain_in, fn, "domain_in"));
  std::vector<dart_domain_locality_t *> found;
  dom_collect(const_cast<dart_domain_locality_t *>(domain_in), scope, &found);
  if (found.empty())
    return fail(DART_ERR_NOTFOUND, fn, "no domain of scope %d at or below '%s'", (int)scope,
                domain_in->domain_tag);
  auto **arr = static_cast<dart_domain_locality_t **>(
      std::malloc(sizeof(dart_domain_locality_t *) * found.size()));
  if (arr == nullptr) return fail(DART_ERR_NOMEM, fn, "out of memory");
  std::copy(found.begin(), found.end(), arr);
  *num_domains_out = (int)found.size();
  *domains_out = arr;
  return DART_OK;
}

dart_ret_t dart_domain_scope_tags(const dart_domain_locality_t *domain_in,
                                  dart_locality_scope_t scope, int *num_domains_out,
                                  char ***domain_tags_out) {
  const char *fn = "dart_domain_scope_tags";
  null_out(domain_tags_out, nullptr);
  int n = 0;
  dart_domain_locality_t **found = nullptr;
  if (domain_tags_out == nullptr) return fail(DART_ERR_INVAL, fn, "domain_tags_out is NULL");
  DART_TRY(dart_domain_scope_domains(domain_in, scope, &n, &found));
  auto **tags = static_cast<char **>(std::calloc((size_t)n, sizeof(char *)));
  for (int i = 0; tags != nullptr && i < n; ++i) {
    tags[i] = strdup(found[i]->domain_tag);
    if (tags[i] == nullptr) {
      for (int j = 0; j < i; ++j) std::free(tags[j]);
      std::free(tags);
      tags = nullptr;
    }
  }
  std::free(found);
  if (tags == nullptr) return fail(DART_ERR_NOMEM, fn, "out of memory");
  *num_domains_out = n;
  *domain_tags_out = tags;
  return DART_OK;
}

dart_ret_t dart_domain_split_scope(const dart_domain_locality_t *domain_in,
                                   dart_locality_scope_t scope, int num_parts,
                                   dart_domain_locality_t *split_domain_out) {
  const char *fn = "dart_domain_split_scope";
  DART_TRY(check_domain(domain_in, fn, "domain_in"));
  if (split_domain_out == nullptr) return fail(DART_ERR_INVAL, fn, "split_domain_out is NULL");
  std::vector<dart_domain_locality_t *> found;
  dom_collect(const_cast<dart_domain_locality_t *>(domain_in), scope, &found);
  const int c = (int)found.size();
  if (num_parts < 1 || num_parts > c)
    return fail(DART_ERR_INVAL, fn,
                "num_parts %d: '%s' has %d domains of scope %d, so 1 to %d "
                "parts",
                num_parts, domain_in->domain_tag, c, (int)scope, c);
  // Contiguous parts of the scope's domains, balanced: the first c % num_parts parts get
  // one domain more.
  int first = 0;
  for (int p = 0; p < num_parts; ++p) {
    const int len = c / num_parts + (p < c % num_parts ? 1 : 0);
    std::vector<std::string> tags;
    for (int i = first; i < first + len; ++i) tags.emplace_back(found[i]->domain_tag);
    first += len;
    dart_domain_locality_t *out = &split_domain_out[p];
    if (!dom_copy(out, domain_in, nullptr)) {
      for (int q = 0; q <= p; ++q) dom_clear(&split_domain_out[q]);
      return fail(DART_ERR_NOMEM, fn, "out of memory");
    }
    dom_select(out, tags);
  }
  return DART_OK;
}

dart_ret_t dart_domain_group(dart_domain_locality_t *domain_in, int num_group_subdomains,
                             const char **group_subdomain_tags, char *group_domain_tag_out) {
  const char *fn = "dart_domain_group";
  DART_TRY(check_domain(domain_in, fn, "domain_in"));
  if (group_domain_tag_out == nullptr)
    return fail(DART_ERR_INVAL, fn, "group_domain_tag_out is NULL");
  group_domain_tag_out[0] = '\0';
  std::vector<std::string> tags;
  DART_TRY(read_tags(num_group_subdomains, group_subdomain_tags, fn, &tags));
  if (tags.empty()) return fail(DART_ERR_INVAL, fn, "no domains to group");
  std::vector<dart_domain_locality_t *> members;
  for (const std::string &t : tags) {
    dart_domain_locality_t *d = dom_find(domain_in, t.c_str());
    if (d == nullptr)
      return fail(DART_ERR_NOTFOUND, fn, "no domain '%s' at or below '%s'", t.c_str(),
                  domain_in->domain_tag);
    if (d == domain_in) return fail(DART_ERR_INVAL, fn, "cannot group '%s' itself", t.c_str());
    members.push_back(d);
  }
  for (size_t i = 0; i < members.size(); ++i)
    for (size_t j = 0; j < members.size(); ++j)
      if (i != j && tag_at_or_below(members[i]->domain_tag, members[j]->domain_tag))
        return fail(DART_ERR_INVAL, fn,
                    "'%s' lies at or below '%s': a group holds disjoint "
                    "domains",
                    members[i]->domain_tag, members[j]->domain_tag);
  // The lowest common ancestor of the members (their parent for one member).
  dart_domain_locality_t *lca = members[0]->parent;
  auto contains = [](const dart_domain_locality_t *anc, const dart_domain_locality_t *d) {
    for (; d != nullptr; d = d->parent)
      if (d == anc) return true;
    return false;
  };
  while (lca != nullptr &&
         !std::all_of(members.begin(), members.end(),
                      [&](const dart_domain_locality_t *m) { return contains(lca, m); }))
    lca = lca->parent;
  if (lca == nullptr) return fail(DART_ERR_INVAL, fn, "the domains have no common ancestor");
  // Its tag: one past the largest last index among the ancestor's children, so that no
  // existing tag changes.
  int last = -1;
  for (int i = 0; i < lca->num_domains; ++i) {
    const char *dot = std::strrchr(lca->children[i]->domain_tag, '.');
    if (dot != nullptr) last = std::max(last, std::atoi(dot + 1));
  }
  char tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  const int len = std::strcmp(lca->domain_tag, ".") == 0
                      ? std::snprintf(tag, sizeof tag, ".%d", last + 1)
                      : std::snprintf(tag, sizeof tag, "%s.%d", lca->domain_tag, last + 1);
  if (len < 0 || len >= (int)sizeof tag)
    return fail(DART_ERR_INVAL, fn, "the group's tag would be longer than %d characters",
                DART_LOCALITY_DOMAIN_TAG_MAX_SIZE - 1);
  dart_domain_locality_t *group = child(lca, DART_LOCALITY_SCOPE_GROUP, lca->num_domains, "");
  if (group == nullptr) return fail(DART_ERR_NOMEM, fn, "out of memory");
  std::snprintf(group->domain_tag, sizeof group->domain_tag, "%s", tag);
  // The members move under the group (in tree order), keeping their tags.
  std::sort(members.begin(), members.end(),
            [](const dart_domain_locality_t *a, const dart_domain_locality_t *b) {
              return std::strcmp(a->domain_tag, b->domain_tag) < 0;
            });
  group->children = static_cast<dart_domain_locality_t **>(
      std::malloc(sizeof(dart_domain_locality_t *) * members.size()));
  if (group->children == nullptr) return fail(DART_ERR_NOMEM, fn, "out of memory");
  for (dart_domain_locality_t *m : members) {
    dart_domain_locality_t *p = m->parent;
    int at = 0;
    while (at < p->num_domains && p->children[at] != m) ++at;
    for (int i = at; i + 1 < p->num_domains; ++i) p->children[i] = p->children[i + 1];
    --p->num_domains;
    group->children[group->num_domains++] = m;
    m->parent = group;
  }
  dom_refresh_up(lca);
  std::snprintf(group_domain_tag_out, DART_LOCALITY_DOMAIN_TAG_MAX_SIZE, "%s", tag);
  return DART_OK;
}

dart_ret_t dart_group_locality_split(const dart_group_t group, dart_domain_locality_t *domain,
                                     dart_locality_scope_t scope, size_t num_groups, size_t *nout,
                                     dart_group_t *gout) {
  const char *fn = "dart_group_locality_split";
  for (size_t i = 0; gout != nullptr && i < num_groups; ++i) gout[i] = DART_GROUP_NULL;
  DART_TRY(check_init(fn));
  if (nout == nullptr || gout == nullptr) return fail(DART_ERR_INVAL, fn, "nout or gout is NULL");
  if (num_groups == 0) return fail(DART_ERR_INVAL, fn, "num_groups must be at least 1");
  DART_TRY(check_domain(domain, fn, "domain"));
  size_t gsize = 0;
  DART_TRY(dart_group_size(group, &gsize));
  std::vector<dart_global_unit_t> members(gsize);
  DART_TRY(dart_group_getmembers(group, members.data()));
  std::vector<dart_domain_locality_t *> found;
  dom_collect(domain, scope, &found);
  if (found.empty())
    return fail(DART_ERR_NOTFOUND, fn, "no domain of scope %d at or below '%s'", (int)scope,
                domain->domain_tag);
  // Contiguous parts of the scope's domains, balanced as dart_domain_split_scope's; each
  // group holds the members of `group` in its part.
  const size_t c = found.size(), parts = std::min(num_groups, c);
  size_t first = 0;
  for (size_t p = 0; p < parts; ++p) {
    const size_t len = c / parts + (p < c % parts ? 1 : 0);
    dart_ret_t rc = dart_group_create(&gout[p]);
    for (size_t i = first; rc == DART_OK && i < first + len; ++i)
      for (int k = 0; rc == DART_OK && k < found[i]->num_units; ++k) {
        const dart_global_unit_t u = found[i]->unit_ids[k];
        if (std::any_of(members.begin(), members.end(),
                        [&](dart_global_unit_t m) { return m.id == u.id; }))
          rc = dart_group_addmember(gout[p], u);
      }
    if (rc != DART_OK) {
      for (size_t q = 0; q <= p; ++q)
        if (gout[q] != DART_GROUP_NULL) dart_group_destroy(&gout[q]);
      return rc;
    }
    first += len;
  }
  *nout = parts;
  return DART_OK;
}

// ---- DART-MPI extension: a team split by locality in one call ----

dart_ret_t dart_team_locality_split(dart_team_t team, dart_locality_scope_t scope, size_t n,
                                    dart_team_t *newteam) {
  const char *fn = "dart_team_locality_split";
  null_out(newteam, DART_TEAM_NULL);
  DART_TRY(check_init(fn));
  if (newteam == nullptr) return fail(DART_ERR_INVAL, fn, "newteam is NULL");
  if (n == 0) return fail(DART_ERR_INVAL, fn, "n must be at least 1");
  dart_domain_locality_t *root = nullptr;
  DART_TRY(dart_domain_team_locality(team, ".", &root));
  dart_group_t all = DART_GROUP_NULL;
  DART_TRY(dart_team_get_group(team, &all));
  std::vector<dart_group_t> parts(n, DART_GROUP_NULL);
  size_t nparts = 0;
  dart_ret_t rc = dart_group_locality_split(all, root, scope, n, &nparts, parts.data());
  dart_group_destroy(&all);
  if (rc != DART_OK) return rc;  // the same on every unit: the tree is the same everywhere
  // One team per part, in order, collectively over `team`; this unit is in exactly one.
  std::vector<dart_team_t> made;
  for (size_t p = 0; p < nparts && rc == DART_OK; ++p) {
    dart_team_t t = DART_TEAM_NULL;
    rc = dart_team_create(team, parts[p], &t);
    if (rc == DART_OK && t != DART_TEAM_NULL) made.push_back(t);
  }
  for (dart_group_t &gr : parts)
    if (gr != DART_GROUP_NULL) dart_group_destroy(&gr);
  if (rc != DART_OK) {  // all or nothing: the teams made before the failure go again
    for (dart_team_t &t : made) dart_team_destroy(&t);
    return rc;
  }
  *newteam = made.empty() ? DART_TEAM_NULL : made.front();
  return DART_OK;
}

// ---- dart_config.h ----

void dart_config(dart_config_t **config_out) {
  static dart_config_t config = {0};
  if (config_out != nullptr) *config_out = &config;
}

}  // extern "C"
