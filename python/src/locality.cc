// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the locality queries (dart_locality.h): where a unit runs, the domains of a
// scope (nodes, NUMA domains, cores) with their units, and a team split by locality.
#include "core.h"

#include <dash/dart/if/dart_locality.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace dartpy {

namespace {

// A scope: a DART_LOCALITY_SCOPE_* value or its name ("node", "numa", ...).
dart_locality_scope_t scope_arg(py::handle h, const char *fn) {
  static const std::pair<const char *, dart_locality_scope_t> names[] = {
      {"global", DART_LOCALITY_SCOPE_GLOBAL}, {"group", DART_LOCALITY_SCOPE_GROUP},
      {"node", DART_LOCALITY_SCOPE_NODE},     {"module", DART_LOCALITY_SCOPE_MODULE},
      {"numa", DART_LOCALITY_SCOPE_NUMA},     {"core", DART_LOCALITY_SCOPE_CORE}};
  if (py::isinstance<py::str>(h)) {
    const std::string s = h.cast<std::string>();
    for (const auto &n : names)
      if (s == n.first) return n.second;
    throw py::value_error(std::string(fn) +
                          ": argument 'scope' must be one of 'global', "
                          "'group', 'node', 'module', 'numa', 'core' or a LOCALITY_SCOPE_* "
                          "constant, not '" +
                          s + "'");
  }
  if (!PyIndex_Check(h.ptr()) || py::isinstance<py::bool_>(h))
    throw py::type_error(std::string(fn) + ": argument 'scope' must be a str or an int, not " +
                         tname(h));
  return (dart_locality_scope_t)h.cast<int>();
}

const char *scope_name(dart_locality_scope_t s) {
  switch (s) {
    case DART_LOCALITY_SCOPE_GLOBAL: return "global";
    case DART_LOCALITY_SCOPE_GROUP: return "group";
    case DART_LOCALITY_SCOPE_NETWORK: return "network";
    case DART_LOCALITY_SCOPE_NODE: return "node";
    case DART_LOCALITY_SCOPE_MODULE: return "module";
    case DART_LOCALITY_SCOPE_NUMA: return "numa";
    case DART_LOCALITY_SCOPE_UNIT: return "unit";
    case DART_LOCALITY_SCOPE_PACKAGE: return "package";
    case DART_LOCALITY_SCOPE_UNCORE: return "uncore";
    case DART_LOCALITY_SCOPE_CACHE: return "cache";
    case DART_LOCALITY_SCOPE_CORE: return "core";
    case DART_LOCALITY_SCOPE_CPU: return "cpu";
    default: return "undefined";
  }
}

py::list ints(const int *v, int n) {
  py::list l;
  for (int i = 0; i < n; ++i) l.append(v[i]);
  return l;
}

// dart.unit_locality(unit, team=TEAM_ALL): a dict of dart_unit_locality_t.
py::dict unit_locality(int unit, py::handle team_h) {
  const dart_team_t team = team_arg(team_h);
  dart_unit_locality_t *loc = nullptr;
  check(dart_unit_locality(team, dart_team_unit_t{unit}, &loc), "dart_unit_locality");
  dart_global_unit_t gu{};
  check(dart_team_unit_l2g(team, dart_team_unit_t{unit}, &gu), "dart_team_unit_l2g");
  int32_t node = -1;
  check(dart_unit_node(gu, &node), "dart_unit_node");
  const dart_hwinfo_t &h = loc->hwinfo;
  py::dict d;
  d["unit"] = loc->unit.id;
  d["global_unit"] = gu.id;
  d["team"] = (int)loc->team;
  d["node"] = node;
  d["host"] = std::string(h.host);
  d["domain_tag"] = std::string(loc->domain_tag);
  d["num_cores"] = h.num_cores;
  d["num_numa"] = h.num_numa;
  d["numa_id"] = h.numa_id;
  d["num_sockets"] = h.num_sockets;
  d["core_id"] = h.core_id;
  d["cpu_id"] = h.cpu_id;
  d["min_threads"] = h.min_threads;
  d["max_threads"] = h.max_threads;
  d["min_cpu_mhz"] = h.min_cpu_mhz;
  d["max_cpu_mhz"] = h.max_cpu_mhz;
  d["cache_sizes"] = ints(h.cache_sizes, 3);
  d["cache_line_sizes"] = ints(h.cache_line_sizes, 3);
  d["system_memory_mib"] = h.system_memory_bytes;
  d["numa_memory_mib"] = h.numa_memory_bytes;
  return d;
}

py::dict domain_dict(const dart_domain_locality_t *d) {
  py::dict r;
  r["tag"] = std::string(d->domain_tag);
  r["scope"] = std::string(scope_name(d->scope));
  r["host"] = std::string(d->host);
  r["node"] = d->node_id;
  r["index"] = d->global_index;
  r["num_cores"] = d->num_cores;
  py::list units;
  for (int i = 0; i < d->num_units; ++i) units.append(d->unit_ids[i].id);
  r["units"] = units;
  return r;
}

// dart.locality_domains(scope, team=TEAM_ALL): the domains of a scope in the team's tree.
py::list locality_domains(py::handle scope_h, py::handle team_h) {
  const char *fn = "dart_domain_scope_domains";
  const dart_locality_scope_t scope = scope_arg(scope_h, fn);
  const dart_team_t team = team_arg(team_h);
  dart_domain_locality_t *root = nullptr;
  check(dart_domain_team_locality(team, ".", &root), "dart_domain_team_locality");
  int n = 0;
  dart_domain_locality_t **found = nullptr;
  const dart_ret_t rc = dart_domain_scope_domains(root, scope, &n, &found);
  py::list out;
  if (rc == DART_ERR_NOTFOUND) return out;  // no domain of that scope: an empty list
  check(rc, fn);
  for (int i = 0; i < n; ++i) out.append(domain_dict(found[i]));
  std::free(found);
  return out;
}

// dart.team_locality_split(team, scope, n): collective; the calling unit's new team.
Team team_locality_split(py::handle team_h, py::handle scope_h, long n) {
  const char *fn = "dart_team_locality_split";
  const dart_locality_scope_t scope = scope_arg(scope_h, fn);
  if (n < 1) throw py::value_error(std::string(fn) + ": argument 'n' must be at least 1");
  const dart_team_t team = team_arg(team_h);
  dart_team_t nt = DART_TEAM_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_locality_split(team, scope, (size_t)n, &nt);
  }
  check(rc, fn);
  return Team{nt};
}

}  // namespace

void bind_locality(py::module_ &m) {
  m.attr("LOCALITY_SCOPE_GLOBAL") = (int)DART_LOCALITY_SCOPE_GLOBAL;
  m.attr("LOCALITY_SCOPE_GROUP") = (int)DART_LOCALITY_SCOPE_GROUP;
  m.attr("LOCALITY_SCOPE_NODE") = (int)DART_LOCALITY_SCOPE_NODE;
  m.attr("LOCALITY_SCOPE_MODULE") = (int)DART_LOCALITY_SCOPE_MODULE;
  m.attr("LOCALITY_SCOPE_NUMA") = (int)DART_LOCALITY_SCOPE_NUMA;
  m.attr("LOCALITY_SCOPE_CORE") = (int)DART_LOCALITY_SCOPE_CORE;
  m.def("unit_locality", &unit_locality, py::arg("unit"), py::arg("team") = Team{DART_TEAM_ALL},
        "Where team unit `unit` runs (local): a dict with its node, host, NUMA domain, "
        "core, cpu, the cores of its node, caches, memory and its domain tag.");
  m.def("locality_domains", &locality_domains, py::arg("scope"),
        py::arg("team") = Team{DART_TEAM_ALL},
        "The team's domains of a scope ('node', 'numa', 'core', ...), in tree order (local): "
        "a list of dicts with tag, host, node, index, num_cores and units (global ids).");
  m.def("team_locality_split", &team_locality_split, py::arg("team"), py::arg("scope"),
        py::arg("n"),
        "Collective over team: split it into min(n, #domains of scope) teams of whole "
        "domains (e.g. one per node); returns the calling unit's team.");
}

}  // namespace dartpy
