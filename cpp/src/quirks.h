/* SPDX-License-Identifier: BSD-3-Clause */
// MPI quirks: every workaround for a defect or limit of an MPI library, in one place.
//
// Each quirk has a name, the MPI library and version range it applies to (queried at
// dart_init from MPI_Get_library_version), what goes wrong without it and what DART does
// instead. The code that works around a quirk asks quirk(Quirk::X) and names it in a
// comment; dart_mpi_quirks() (dart_ext.h) lists the quirks in force, and so does
// `python -m dartpy --info`. docs/mpi-notes.md has the probes.
#ifndef DART_MPI_QUIRKS_H
#define DART_MPI_QUIRKS_H

#include <string>

namespace dart {
namespace detail {

enum class Quirk : unsigned {
  // Open MPI's osc/rdma (behind MPI_Win_create windows) segfaults in a 64-bit
  // MPI_Compare_and_swap whose target is the calling process (btl/vader has no endpoint
  // for self). DART: flush, then a CPU cmpxchg on the word (atomic.cc, cas_one).
  OmpiRdmaCas64Self,
  // Open MPI's osc/rdma computes MPI_LAND, MPI_LOR and MPI_LXOR wrongly on 4- and 8-byte
  // integers (the fetched value is 0, the target keeps its value). DART: a
  // compare-and-swap loop for those operations on such windows (atomic.cc).
  OmpiRdmaLogicalOps,
  // Open MPI cannot create a window over a communicator of one process (MPI_ERR_WIN).
  // DART: registered memory of a one-unit team has no window (load/store, atomics under a
  // process mutex; globmem.cc, atomic.cc). Harmless elsewhere, so applied on every MPI.
  SingleProcessNoWindow,
  // Open MPI's osc/sm hands out shared-window parts that start 8 bytes past a page
  // boundary; MPI promises no alignment. DART: every part is allocated with 64 bytes of
  // slack and starts at its first 64-byte boundary (globmem.cc). Applied on every MPI.
  SharedPartAlignment,
  // Open MPI 4.1's osc/rdma names the shared-memory file of an MPI_Win_create window
  // after the context id of its communicator (open-mpi/ompi issue 9492), and disjoint
  // teams of the same history get the same id: two teams creating windows at the same
  // time on one machine collide (MPI_ERR_WIN, or two windows on one file). DART: window
  // creations take a per-machine lock word, acquired for a whole team at once or retried
  // (globmem.cc, create_window).
  OmpiRdmaSharedFile,
  // MPICH 4.0.2 (ch4:ucx, Debian 12's): RMA on an MPI_Win_create window whose base is not
  // 16-byte aligned reaches the base rounded down to 16 bytes (a put at displacement 0
  // writes up to 15 bytes before the window; a get reads them). DART: the window of the
  // progress processes over a node's parts starts at the 16-byte boundary at or below the
  // first (progress.cc). Registered memory, once exposed the same way, is attached to a
  // dynamic window now (globmem.cc), where a displacement is an address; its regression
  // test (GlobMem.RegisteredMemoryAtEveryAlignmentIsAccessedExactly) still runs. Harmless
  // elsewhere, so applied on every MPI.
  WinCreateBaseAlignment,
  // MPICH 4.0.2 (ch4:ucx, Debian 12's) under MPI_THREAD_MULTIPLE: MPI_Win_flush_local and
  // MPI_Win_flush_local_all can return before an MPI_Get of the calling thread has
  // delivered its data while other threads issue and flush RMA on the window (a get
  // after put + flush read the old buffer in 2-8% of loaded runs of a 4-thread probe;
  // MPI_Win_flush and MPI_Win_flush_all never did; one thread never did). DART: with
  // DART_THREAD_MULTIPLE its local flushes are the remote ones (win_flush_local,
  // internal.h); a get's local completion is its completion anyway. Cleared at dart_init
  // when the thread level is lower.
  MpichFlushLocalThreads,
  kCount
};

struct QuirkInfo {
  const char *name;
  const char *library;  // "Open MPI", "MPICH" or "" (every MPI)
  int since[3];         // first version affected (inclusive)
  int until[3];         // first version fixed (exclusive); {0,0,0}: not fixed
  const char *what;
};

// The MPI library in use, parsed from MPI_Get_library_version.
struct MpiLibrary {
  std::string name;  // "Open MPI", "MPICH" or the first word of the version string
  int version[3] = {0, 0, 0};
  std::string text;  // first line of the version string
};

MpiLibrary detect_mpi_library();
// The quirks of `lib`, as a bit set over Quirk.
unsigned quirks_for(const MpiLibrary &lib);
// One line per quirk in force: "name (library range): what".
std::string quirks_describe(unsigned set);
const QuirkInfo &quirk_info(Quirk q);

}  // namespace detail
}  // namespace dart

#endif  // DART_MPI_QUIRKS_H
