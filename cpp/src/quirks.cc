// SPDX-License-Identifier: BSD-3-Clause
// MPI quirks (quirks.h): the table, library detection and the description of the set.
#include "quirks.h"

#include <mpi.h>

#include <cstdio>
#include <cstring>

namespace dart {
namespace detail {

namespace {

// Indexed by Quirk. Version ranges: the releases where the defect is known (Open MPI
// 4.1.4, Debian 12's, shows the first two) up to the first release known to behave.
// Open MPI 5 replaced osc/rdma's btl path; unverified there, so the range ends at 5.0.
const QuirkInfo kQuirks[(unsigned)Quirk::kCount] = {
    {"ompi-rdma-cas64-self",
     "Open MPI",
     {0, 0, 0},
     {5, 0, 0},
     "64-bit MPI_Compare_and_swap to oneself on an osc/rdma window crashes; DART flushes "
     "and uses a CPU compare-and-swap"},
    {"ompi-rdma-logical-ops",
     "Open MPI",
     {0, 0, 0},
     {5, 0, 0},
     "MPI_LAND/LOR/LXOR on 4- and 8-byte integers are wrong in osc/rdma atomics; DART "
     "runs them as a compare-and-swap loop"},
    {"single-process-no-window",
     "",
     {0, 0, 0},
     {0, 0, 0},
     "Open MPI cannot create a window over one process; registered memory of one-unit "
     "teams has no window"},
    {"shared-part-alignment",
     "",
     {0, 0, 0},
     {0, 0, 0},
     "shared-window parts need not be 64-byte aligned (Open MPI osc/sm: page + 8); DART "
     "pads each part (on every MPI)"},
    {"ompi-rdma-shared-file",
     "Open MPI",
     {0, 0, 0},
     {5, 0, 0},
     "osc/rdma names a window's shared-memory file after the communicator's context id, "
     "which sibling teams share; DART serializes MPI_Win_create per machine"},
    {"win-create-base-alignment",
     "",
     {0, 0, 0},
     {0, 0, 0},
     "RMA on an MPI_Win_create window with a base not 16-byte aligned lands up to 15 bytes "
     "too low (MPICH 4.0.2 ch4:ucx); DART aligns the progress processes' windows down "
     "(registered memory is attached to a dynamic window instead) (on every MPI)"},
    {"mpich-flush-local-threads",
     "MPICH",
     {4, 0, 0},
     {0, 0, 0},
     "with MPI_THREAD_MULTIPLE, MPI_Win_flush_local(_all) can return before a get has "
     "delivered its data while other threads use the window (4.0.2 ch4:ucx); DART's local "
     "flushes are MPI_Win_flush(_all) then"},
};

int compare(const int a[3], const int b[3]) {
  for (int i = 0; i < 3; ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

bool is_zero(const int v[3]) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }

}  // namespace

const QuirkInfo &quirk_info(Quirk q) { return kQuirks[(unsigned)q]; }

MpiLibrary detect_mpi_library() {
  MpiLibrary lib;
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) text[0] = '\0';
  std::string first(text);
  for (char &c : first)
    if (c == '\t') c = ' ';
  size_t nl = first.find_first_of("\n,");
  if (nl != std::string::npos) first.resize(nl);
  lib.text = first;
  // "Open MPI v4.1.4, package: ..." / "MPICH Version: 4.0.2 ..." (MPICH derivatives
  // such as Intel MPI name themselves first and are not MPICH for the quirks).
  const char *v = nullptr;
  if (std::strncmp(text, "Open MPI", 8) == 0) {
    lib.name = "Open MPI";
    v = std::strchr(text, 'v');
    if (v) ++v;
  } else if (std::strncmp(text, "MPICH", 5) == 0) {
    lib.name = "MPICH";
    v = std::strpbrk(text + 5, "0123456789");
  } else {
    lib.name = first.substr(0, first.find(' '));
  }
  if (v) std::sscanf(v, "%d.%d.%d", &lib.version[0], &lib.version[1], &lib.version[2]);
  return lib;
}

unsigned quirks_for(const MpiLibrary &lib) {
  unsigned set = 0;
  for (unsigned q = 0; q < (unsigned)Quirk::kCount; ++q) {
    const QuirkInfo &i = kQuirks[q];
    if (i.library[0] != '\0' && lib.name != i.library) continue;
    if (compare(lib.version, i.since) < 0) continue;
    if (!is_zero(i.until) && compare(lib.version, i.until) >= 0) continue;
    set |= 1u << q;
  }
  return set;
}

std::string quirks_describe(unsigned set) {
  std::string out;
  for (unsigned q = 0; q < (unsigned)Quirk::kCount; ++q) {
    if (!(set & (1u << q))) continue;
    const QuirkInfo &i = kQuirks[q];
    char range[96];
    if (i.library[0] == '\0') {
      std::snprintf(range, sizeof range, "every MPI");
    } else if (is_zero(i.until)) {
      std::snprintf(range, sizeof range, "%s >= %d.%d.%d", i.library, i.since[0], i.since[1],
                    i.since[2]);
    } else {
      std::snprintf(range, sizeof range, "%s < %d.%d.%d", i.library, i.until[0], i.until[1],
                    i.until[2]);
    }
    out += std::string(i.name) + " (" + range + "): " + i.what + "\n";
  }
  return out;
}

}  // namespace detail
}  // namespace dart
