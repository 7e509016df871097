// The harness (bench_common.h) plus what the benchmarks of DART itself share.
#pragma once

#include <dash/dart/if/dart.h>

#include "bench_common.h"

// Abort the whole job (never hang the peer) when a DART call fails.
#define BENCH_DART_CHECK(call)                                                         \
  do {                                                                                 \
    dart_ret_t bench_ret_ = (call);                                                    \
    if (bench_ret_ != DART_OK) {                                                       \
      std::fprintf(stderr, "%s:%d: %s failed: %d (%s: %s)\n", __FILE__, __LINE__,     \
                   #call, static_cast<int>(bench_ret_), dart_strerror(bench_ret_),     \
                   dart_error_detail());                                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                    \
    }                                                                                  \
  } while (0)

#include <dash/dart/if/dart_ext.h>
#include <dash/dart/if/dart_mpi.h>

namespace bench {

// Progress processes per node of this run (0: off), read from dart_config_string()
// ("progress: k per node" / "progress: off": the first number after "progress" within
// its item); 0 as well from a core that has no progress processes.
inline int progress_per_node() {
  const char *s = std::strstr(dart_config_string(), "progress");
  if (!s) return 0;
  while (*s && *s != ';' && !(*s >= '0' && *s <= '9')) ++s;
  return *s >= '0' && *s <= '9' ? std::atoi(s) : 0;
}

// A program started for progress processes (--progress) that runs without them: every
// process says why, ends DART and exits 0 with no rows; benchmarks/run reports the skip.
inline void skip_without_progress(const char *prog) {
  if (progress_per_node() > 0) return;
  dart_global_unit_t me;
  dart_myid(&me);
  if (me.id == 0)
    std::printf("%s: SKIP: progress processes requested but not running (dart_config_string: "
              "%s)\n", prog, dart_config_string());
  std::fflush(stdout);
  dart_exit();
  std::exit(0);
}

// dart_init (or dart_init_thread) returned rc: say so (with --progress a refusal is a
// SKIP: the core says why it runs no progress processes), end MPI if it was started;
// returns the exit status for main (0 for a skip).
inline int init_failed(const char *prog, dart_ret_t rc, bool progress) {
  std::printf("%s: %sdart_init failed: %s: %s\n", prog, progress ? "SKIP: " : "",
              dart_strerror(rc), dart_error_detail());
  std::fflush(stdout);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
  return progress ? 0 : 1;
}

// The units' communicator (DART_TEAM_ALL): MPI_COMM_WORLD also holds the progress
// processes when they run, so no benchmark uses it after dart_init.
inline MPI_Comm units_comm() {
  MPI_Comm c = MPI_COMM_NULL;
  BENCH_DART_CHECK(dart_team_comm(DART_TEAM_ALL, &c));
  return c;
}

}  // namespace bench
