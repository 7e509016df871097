// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 1 2 UPN none 1 TIMEOUT 120 NO_PROGRESS NO_FAKE_HOSTS
// The locality API gives the same answers from hwloc as from Linux's sysfs (issue 30:
// "the same results without it"): two DART lifetimes in one MPI lifetime, the first with
// the build's source (hwloc where built in), the second with DART_TEST_NO_HWLOC=1 (sysfs),
// and every unit's locality and the tree's tags compared. NO_PROGRESS: the program
// starts MPI itself, which progress processes refuse.
#include "prog_common.h"

#include <dash/dart/if/dart_locality.h>

#include <sched.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace {

// Everything the locality API says about DART_TEAM_ALL, as text.
std::string describe() {
  std::ostringstream os;
  size_t n = 0;
  CHECK_OK(dart_size(&n));
  for (size_t u = 0; u < n; ++u) {
    dart_unit_locality_t *l = nullptr;
    CHECK_OK(dart_unit_locality(DART_TEAM_ALL, DART_TEAM_UNIT_ID((int)u), &l));
    if (l == nullptr) return "";
    const dart_hwinfo_t &h = l->hwinfo;
    os << "unit " << u << " host " << h.host << " tag " << l->domain_tag << " cores " << h.num_cores
       << " numa " << h.num_numa << "/" << h.numa_id << " sockets " << h.num_sockets << " core "
       << h.core_id << " cpu " << h.cpu_id << " threads " << h.min_threads << "-" << h.max_threads
       << " mhz " << h.min_cpu_mhz << "-" << h.max_cpu_mhz << " mem " << h.system_memory_bytes
       << " caches";
    for (int c = 0; c < 3; ++c)
      os << " " << h.cache_sizes[c] << "/" << h.cache_line_sizes[c] << "/" << h.cache_ids[c];
    os << "\n";
  }
  dart_domain_locality_t *root = nullptr;
  CHECK_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  for (dart_locality_scope_t s :
       {DART_LOCALITY_SCOPE_NODE, DART_LOCALITY_SCOPE_NUMA, DART_LOCALITY_SCOPE_CORE}) {
    int k = 0;
    char **tags = nullptr;
    CHECK_OK(dart_domain_scope_tags(root, s, &k, &tags));
    os << "scope " << (int)s << ":";
    for (int i = 0; i < k; ++i) {
      dart_domain_locality_t *d = nullptr;
      CHECK_OK(dart_domain_find(root, tags[i], &d));
      os << " " << tags[i] << "[" << (d ? d->global_index : -9) << "," << (d ? d->num_units : -9)
         << "]";
      std::free(tags[i]);
    }
    std::free(tags);
    os << "\n";
  }
  return os.str();
}

}  // namespace

int main(int argc, char **argv) {
  prog::init_mpi(&argc, &argv);
  // The probe reads the cpu the unit runs on at dart_init: pin the process to the cpu it
  // is on, so that both passes see the same one.
  cpu_set_t before, here;
  sched_getaffinity(0, sizeof before, &before);
  CPU_ZERO(&here);
  CPU_SET(sched_getcpu(), &here);
  sched_setaffinity(0, sizeof here, &here);
  std::string first, second;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) setenv("DART_TEST_NO_HWLOC", "1", 1);
    CHECK_OK(dart_init(&argc, &argv));
    (pass == 0 ? first : second) = describe();
    CHECK_OK(dart_exit());
  }
  sched_setaffinity(0, sizeof before, &before);
  if (first != second) {
    std::fprintf(stderr, "[rank %d] hwloc and sysfs differ:\n--- hwloc\n%s--- sysfs\n%s",
                 prog::rank(), first.c_str(), second.c_str());
    CHECK(first == second);
  }
  const int rc = prog::finish("prog_locality_sources");
  MPI_Finalize();
  return rc;
}
