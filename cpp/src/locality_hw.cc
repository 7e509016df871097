// SPDX-License-Identifier: BSD-3-Clause
// The hardware of this process as the locality API reports it (locality.cc), and its
// exchange at dart_init: one allgather of every unit's UnitHw (locality.h), from which
// the nodes' names follow. The facts come from hwloc where it is built in
// (DART_HAVE_HWLOC) and from Linux's sysfs otherwise (or with DART_TEST_NO_HWLOC=1): the
// same facts on Linux, where both read the kernel's topology. docs/design.md, "Locality".
#include "internal.h"

#include <dash/dart/if/dart_locality.h>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#if DART_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace dart {
namespace detail {

// ---------------------------------------------------------------------------
// this process's hardware
// ---------------------------------------------------------------------------
namespace {

// The machine as one process sees it, probed once per process (it does not change).
struct Machine {
  int cores = -1, numas = -1, sockets = -1, min_threads = -1, max_threads = -1;
  int min_mhz = -1, max_mhz = -1, mem_mib = -1;
  struct Cpu {
    int core = -1, numa = -1;
    int cache_size[kCacheLevels] = {-1, -1, -1}, cache_line[kCacheLevels] = {-1, -1, -1};
    int cache_id[kCacheLevels] = {-1, -1, -1};
  };
  std::map<int, Cpu> cpus;          // OS cpu index -> its core, NUMA domain, caches
  std::map<int, int> numa_mem_mib;  // NUMA OS index -> its memory
};

std::string read_line(const std::string &path) {
  std::ifstream f(path);
  std::string s;
  if (f) std::getline(f, s);
  return s;
}

int read_int(const std::string &path, int fallback = -1) {
  const std::string s = read_line(path);
  char *end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  return (end == s.c_str()) ? fallback : (int)v;
}

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}
std::vector<int> parse_list(const std::string &s) {
  std::vector<int> out;
  const char *p = s.c_str();
  while (*p) {
    char *end = nullptr;
    const long a = std::strtol(p, &end, 10);
    if (end == p) break;
    long b = a;
    p = end;
    if (*p == '-') {
      b = std::strtol(p + 1, &end, 10);
      p = end;
    }
    for (long v = a; v <= b && v - a < 65536; ++v) out.push_back((int)v);
    if (*p == ',') ++p;
  }
  return out;
}

// "32K" -> 32768
int parse_size(const std::string &s) {
  char *end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str()) return -1;
  long mult = 1;
  if (*end == 'K') mult = 1024;
  if (*end == 'M') mult = 1024 * 1024;
  if (*end == 'G') mult = 1024L * 1024 * 1024;
  return v * mult > INT_MAX ? INT_MAX : (int)(v * mult);
}

// What neither hwloc nor the topology files say: the clock and the memory.
void probe_common(Machine *m) {
  const std::string cpu = "/sys/devices/system/cpu/cpu0/cpufreq/";
  const int lo = read_int(cpu + "cpuinfo_min_freq"), hi = read_int(cpu + "cpuinfo_max_freq");
  if (lo > 0 && hi > 0) {
    m->min_mhz = lo / 1000;
    m->max_mhz = hi / 1000;
  } else {  // a virtual machine: the current clock of the first cpu
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
      if (line.compare(0, 7, "cpu MHz") == 0) {
        const size_t colon = line.find(':');
        if (colon != std::string::npos)
          m->min_mhz = m->max_mhz = (int)std::atof(line.c_str() + colon + 1);
        break;
      }
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) m->mem_mib = (int)std::min<long>(INT_MAX, pages / (1048576 / page));
}

// Linux's sysfs: the kernel's topology (cpuN/topology, nodeN/cpulist, cpuN/cache).
void probe_sysfs(Machine *m) {
  const std::string root = "/sys/devices/system/cpu/";
  std::vector<int> online = parse_list(read_line(root + "online"));
  if (online.empty())
    for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); ++c) online.push_back((int)c);
  // Cores: distinct (package, core id) pairs, numbered in that order (hwloc's order).
  std::map<std::pair<int, int>, int> core_index;
  std::map<std::pair<int, int>, int> threads;
  std::set<int> packages;
  for (int c : online) {
    const std::string t = root + "cpu" + std::to_string(c) + "/topology/";
    const int pkg = read_int(t + "physical_package_id", 0), core = read_int(t + "core_id", c);
    core_index.emplace(std::make_pair(pkg, core), 0);
    ++threads[{pkg, core}];
    packages.insert(pkg);
  }
  int next = 0;
  for (auto &kv : core_index) kv.second = next++;
  m->cores = (int)core_index.size();
  m->sockets = (int)packages.size();
  for (const auto &kv : threads) {
    m->min_threads = m->min_threads < 0 ? kv.second : std::min(m->min_threads, kv.second);
    m->max_threads = std::max(m->max_threads, kv.second);
  }
  for (int c : online) {
    const std::string base = root + "cpu" + std::to_string(c) + "/";
    Machine::Cpu &cpu = m->cpus[c];
    cpu.core = core_index[{read_int(base + "topology/physical_package_id", 0),
                           read_int(base + "topology/core_id", c)}];
    for (int i = 0; i < 8; ++i) {  // cache/indexI: level, type, size, line, id
      const std::string ix = base + "cache/index" + std::to_string(i) + "/";
      const int level = read_int(ix + "level");
      if (level < 0) break;
      if (level < 1 || level > kCacheLevels || read_line(ix + "type") == "Instruction") continue;
      cpu.cache_size[level - 1] = parse_size(read_line(ix + "size"));
      cpu.cache_line[level - 1] = read_int(ix + "coherency_line_size");
      cpu.cache_id[level - 1] = read_int(ix + "id");
    }
  }
  // NUMA domains: nodeN/cpulist; a machine without the folder is one domain.
  const std::string nodes = "/sys/devices/system/node/";
  std::vector<int> numas = parse_list(read_line(nodes + "online"));
  for (int n : numas) {
    for (int c : parse_list(read_line(nodes + "node" + std::to_string(n) + "/cpulist")))
      if (m->cpus.count(c)) m->cpus[c].numa = n;
    std::ifstream f(nodes + "node" + std::to_string(n) + "/meminfo");
    std::string line;
    while (std::getline(f, line)) {
      const size_t at = line.find("MemTotal:");
      if (at != std::string::npos) {
        m->numa_mem_mib[n] = (int)(std::atol(line.c_str() + at + 9) / 1024);
        break;
      }
    }
  }
  m->numas = numas.empty() ? 1 : (int)numas.size();
  for (auto &kv : m->cpus)
    if (kv.second.numa < 0) kv.second.numa = numas.empty() ? 0 : numas.front();
}

#if DART_HAVE_HWLOC
// hwloc: the same facts from its topology (cores in its logical order, NUMA by OS index).
bool probe_hwloc(Machine *m) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return false;
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return false;
  }
  m->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  m->sockets = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
  m->numas = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  for (int i = 0; i < m->cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)i);
    const int pus = hwloc_bitmap_weight(core->cpuset);
    m->min_threads = m->min_threads < 0 ? pus : std::min(m->min_threads, pus);
    m->max_threads = std::max(m->max_threads, pus);
  }
  const int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  for (int i = 0; i < npu; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
    Machine::Cpu &cpu = m->cpus[(int)pu->os_index];
    if (hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu))
      cpu.core = (int)core->logical_index;
    for (int n = 0; n < hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE); ++n) {
      hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)n);
      if (hwloc_bitmap_isset(numa->cpuset, pu->os_index)) cpu.numa = (int)numa->os_index;
    }
    if (cpu.numa < 0) cpu.numa = 0;
    const hwloc_obj_type_t levels[kCacheLevels] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                                   HWLOC_OBJ_L3CACHE};
    for (int l = 0; l < kCacheLevels; ++l)
      if (hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(topo, levels[l], pu)) {
        cpu.cache_size[l] = (int)std::min<hwloc_uint64_t>(INT_MAX, c->attr->cache.size);
        cpu.cache_line[l] = (int)c->attr->cache.linesize;
        cpu.cache_id[l] = (int)c->logical_index;
      }
  }
  for (int n = 0; n < hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE); ++n) {
    hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)n);
    m->numa_mem_mib[(int)numa->os_index] = (int)(numa->attr->numanode.local_memory >> 20);
  }
  hwloc_topology_destroy(topo);
  return m->cores > 0 && !m->cpus.empty();
}
#endif

const Machine &machine(bool no_hwloc) {
  static Machine from_hwloc, from_sysfs;
  static std::once_flag hwloc_once, sysfs_once;
#if DART_HAVE_HWLOC
  static bool hwloc_ok = false;
  if (!no_hwloc) {
    std::call_once(hwloc_once, [] {
      hwloc_ok = probe_hwloc(&from_hwloc);
      probe_common(&from_hwloc);
    });
    if (hwloc_ok) return from_hwloc;
  }
#else
  (void)no_hwloc;
  (void)hwloc_once;
  (void)from_hwloc;
#endif
  std::call_once(sysfs_once, [] {
    probe_sysfs(&from_sysfs);
    probe_common(&from_sysfs);
  });
  return from_sysfs;
}

UnitHw probe_unit(const Config &cfg) {
  UnitHw h;
  std::memset(&h, 0, sizeof h);
  gethostname(h.host, sizeof h.host - 1);
  const Machine &m = machine(cfg.no_hwloc);
  h.cpu = sched_getcpu();
  auto it = m.cpus.find(h.cpu);
  const Machine::Cpu cpu = it != m.cpus.end() ? it->second : Machine::Cpu{};
  h.core = cpu.core >= 0 ? cpu.core : std::max(h.cpu, 0);
  h.numa = cpu.numa >= 0 ? cpu.numa : 0;
  h.cores = m.cores > 0 ? m.cores : std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  h.numas = std::max(1, m.numas);
  h.sockets = std::max(1, m.sockets);
  h.min_threads = std::max(1, m.min_threads);
  h.max_threads = std::max(1, m.max_threads);
  h.min_mhz = m.min_mhz;
  h.max_mhz = m.max_mhz;
  for (int l = 0; l < kCacheLevels; ++l) {
    h.cache_size[l] = cpu.cache_size[l];
    h.cache_line[l] = cpu.cache_line[l];
    h.cache_id[l] = cpu.cache_id[l];
  }
  h.mem_mib = m.mem_mib;
  auto nm = m.numa_mem_mib.find(h.numa);
  h.numa_mem_mib = nm != m.numa_mem_mib.end() ? nm->second : m.mem_mib;
  return h;
}

}  // namespace

dart_ret_t locality_exchange(State *s, const char *fn) {
  const UnitHw mine = probe_unit(s->cfg);
  s->hw.resize((size_t)s->size);
  DART_MPI(MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, s->hw.data(), (int)sizeof mine,
                         MPI_BYTE, s->world),
           fn);
  // Node names: the host of the node's units, "#i" for the i-th of several nodes (in node
  // order) on one machine; the suffix survives a long host name (its end is cut instead).
  std::vector<std::string> host(s->nnodes);
  for (int u = s->size - 1; u >= 0; --u) {
    s->hw[u].host[sizeof s->hw[u].host - 1] = '\0';
    host[s->node_of[u]] = s->hw[u].host;
  }
  std::map<std::string, int> per_host;
  for (const std::string &h : host) ++per_host[h];
  std::map<std::string, int> seen;
  s->node_host.assign(host.begin(), host.end());
  for (int n = 0; n < s->nnodes; ++n) {
    if (per_host[host[n]] < 2) continue;
    const std::string suffix = "#" + std::to_string(seen[host[n]]++);
    const size_t room = DART_LOCALITY_HOST_MAX_SIZE - 1 - suffix.size();
    s->node_host[n] = host[n].substr(0, room) + suffix;
  }
  return DART_OK;
}

}  // namespace detail
}  // namespace dart
