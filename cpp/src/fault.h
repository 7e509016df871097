/* SPDX-License-Identifier: BSD-3-Clause */
// The test-only fault hook (DART_FAULT=<site>:<unit>[:<first>[:<count>]], read by
// config.cc at dart_init; docs/error-contract.md): the sites whose local step it can make
// fail, for the core and the layers above it (cpp/src/array). The MPI call of a site has
// run (its object exists); the hook makes the unit treat it as failed.
#ifndef DART_MPI_FAULT_H
#define DART_MPI_FAULT_H

#include <dash/dart/if/dart.h>

namespace dart {
namespace detail {

#define DART_FAULT_SITE_LIST(X)                                                          \
  X(WinAllocateShared, "win_allocate_shared") /* after MPI_Win_allocate_shared */        \
  X(WinSharedQuery, "win_shared_query")       /* an MPI_Win_shared_query */              \
  X(WinCreate, "win_create")                  /* after MPI_Win_create */                 \
  X(WinLockAll, "win_lock_all")               /* the epoch of a new window */            \
  X(CommCreate, "comm_create")                /* after the new team's MPI_Comm_create */ \
  X(CommSplit, "comm_split")                  /* a team's node communicator split */     \
  X(CommDup, "comm_dup")                      /* a lock's private communicator */        \
  X(Memalloc, "memalloc")                     /* dart_memalloc's pool allocator */       \
  X(FileWrite, "file_write")                  /* an array file's collective write */
#define DART_X_FAULT_ENUM_(name, text) name,
enum class FaultSite : int { DART_FAULT_SITE_LIST(DART_X_FAULT_ENUM_) kCount };
#undef DART_X_FAULT_ENUM_

// Whether the step `site` fails here, now (the hook is armed at the end of dart_init).
// internal.h's fault() checks that the hook is on first; fault_armed_fires() does both,
// for code that does not see the runtime's state.
bool fault_fires(FaultSite site);
bool fault_armed_fires(FaultSite site);
// The error of an injected fault: DART_ERR_OTHER (DART_ERR_NOMEM for Memalloc) with a
// message naming the MPI call `what` and DART_FAULT.
dart_ret_t fault_fail(FaultSite site, const char *fn, const char *what) __attribute__((cold));

}  // namespace detail
}  // namespace dart

#endif  // DART_MPI_FAULT_H
