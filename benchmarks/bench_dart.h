/* SPDX-License-Identifier: BSD-3-Clause */
// The harness (bench_common.h) plus what the benchmarks of DART itself share.
#pragma once

#include <dash/dart/if/dart.h>

#include "bench_common.h"

// Abort the whole job (never hang the peer) when a DART call fails.
#define BENCH_DART_CHECK(call)                                                                    \
  do {                                                                                            \
    dart_ret_t bench_ret_ = (call);                                                               \
    if (bench_ret_ != DART_OK) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s failed: %d (%s: %s)\n", __FILE__, __LINE__, #call,          \
                   static_cast<int>(bench_ret_), dart_strerror(bench_ret_), dart_error_detail()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                               \
    }                                                                                             \
  } while (0)

#include <dash/dart/if/dart_ext.h>
#include <dash/dart/if/dart_mpi.h>

namespace bench {

// Progress processes per node of this run (0: off).
inline int progress_per_node() {
  int32_t k = 0;
  return dart_progress_per_node(&k) == DART_OK ? (int)k : 0;
}

// A program started for progress processes (--progress) must run with them: a run that
// does not is a failure (exit 1), not a skip, so the rows cannot silently disappear.
inline void require_progress(const char *prog) {
  if (progress_per_node() > 0) return;
  std::printf("%s: progress processes requested but not running (dart_config_string: %s)\n", prog,
              dart_config_string());
  std::fflush(stdout);
  dart_abort(1);
}

// dart_init (or dart_init_thread) returned rc: say so (with --progress a refusal is a
// SKIP: the core says why it runs no progress processes), end MPI if it was started;
// returns the exit status for main (0 for a skip).
inline int init_failed(const char *prog, dart_ret_t rc) {
  std::printf("%s: dart_init failed: %s: %s\n", prog, dart_strerror(rc), dart_error_detail());
  std::fflush(stdout);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
  return 1;
}

// The units' communicator (DART_TEAM_ALL): MPI_COMM_WORLD also holds the progress
// processes when they run, so no benchmark uses it after dart_init.
inline MPI_Comm units_comm() {
  MPI_Comm c = MPI_COMM_NULL;
  BENCH_DART_CHECK(dart_team_comm(DART_TEAM_ALL, &c));
  return c;
}

}  // namespace bench
