/* SPDX-License-Identifier: BSD-3-Clause */
// prog_common.h -- tiny check helpers for the prog_*.cc programs (own main, no gtest);
// main.cc (the gtest main) starts and ends MPI and DART with them too.
#ifndef DART_PROG_COMMON_H_INCLUDED
#define DART_PROG_COMMON_H_INCLUDED

#include <mpi.h>

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace prog {

inline int &failures() {
  static int f = 0;
  return f;
}

// The caller's id for messages: its DART unit id while DART runs, else its
// MPI_COMM_WORLD rank while MPI runs, else -1.
inline int rank() {
  dart_global_unit_t me{-1};
  if (dart_initialized() && dart_myid(&me) == DART_OK) return me.id;
  int init = 0, fin = 0, r = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// DART_PROGRESS_PER_NODE of this job (0: unset). Read here, before dart_init, because it
// decides how a program may start: with progress processes MPI_COMM_WORLD holds processes
// that are not units, and dart_init refuses an MPI the program started before it.
inline int progress_per_node() {
  const char *v = std::getenv("DART_PROGRESS_PER_NODE");
  return v && *v ? std::atoi(v) : 0;
}

// MPI_Init_thread(MULTIPLE) before DART (the programs test dart_init inside an MPI
// program); a failure ends the program. Returns the MPI_COMM_WORLD rank.
inline int init_mpi(int *argc, char ***argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "MPI_Init_thread failed\n");
    std::exit(1);
  }
  return rank();
}

// Starts MPI and DART, the unit's id or -1 (checked failure). Without progress processes
// the program starts MPI (MULTIPLE) and then calls dart_init (or dart_init_thread with
// `threads`); with them dart_init_thread starts MPI itself at the same level (an MPI
// started before would be refused), and a progress process never returns from it.
inline int init_dart(int *argc, char ***argv, bool threads = false,
                     dart_thread_support_level_t *level = nullptr) {
  dart_thread_support_level_t lvl = DART_THREAD_SINGLE;
  dart_ret_t rc;
  if (progress_per_node() > 0) {
    rc = dart_init_thread(argc, argv, &lvl);
  } else {
    init_mpi(argc, argv);
    rc = threads ? dart_init_thread(argc, argv, &lvl) : dart_init(argc, argv);
  }
  if (level) *level = lvl;
  if (rc != DART_OK) {
    std::fprintf(stderr, "[rank %d] dart_init failed: %d (%s): %s\n", rank(), (int)rc,
                 dart_strerror(rc), dart_error_detail());
    int init = 0;
    MPI_Initialized(&init);
    if (init) MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
  }
  return rank();
}

inline void check(bool ok, const char *what, const char *file, int line) {
  if (ok) return;
  ++failures();
  std::fprintf(stderr, "[rank %d] CHECK FAILED %s:%d: %s (last dart_error_detail: \"%s\")\n",
               rank(), file, line, what, dart_error_detail());
  std::fflush(stderr);
}

inline void check_rc(dart_ret_t expected, dart_ret_t got, const char *what, const char *file,
                     int line) {
  if (expected == got) return;
  ++failures();
  std::fprintf(
      stderr,
      "[rank %d] CHECK FAILED %s:%d: %s returned %d (%s), expected %d (%s); detail: \"%s\"\n",
      rank(), file, line, what, (int)got, dart_strerror(got), (int)expected,
      dart_strerror(expected), dart_error_detail());
  std::fflush(stderr);
}

// The processes a program's own collectives run over: DART_TEAM_ALL's communicator while
// DART runs (MPI_COMM_WORLD also holds the progress processes), else MPI_COMM_WORLD.
inline MPI_Comm comm() {
  MPI_Comm c = MPI_COMM_WORLD;
  if (dart_initialized() && dart_team_comm(DART_TEAM_ALL, &c) != DART_OK) c = MPI_COMM_WORLD;
  return c;
}

// Reduce the failure count over comm() (MPI must be initialized): exit code.
inline int finish(const char *name) {
  int local = failures() ? 1 : 0, global = local;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, comm());
  if (rank() == 0) std::printf("%s: %s\n", name, global ? "FAILED" : "PASSED");
  return global;
}

// The end of a program started by init_dart: agree on the result while DART still runs
// (dart_exit finalizes MPI when DART started it), dart_exit, MPI_Finalize if MPI still
// runs. Exit code.
inline int end(const char *name) {
  int r = finish(name);
  check_rc(DART_OK, dart_exit(), "dart_exit()", __FILE__, __LINE__);
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin) MPI_Finalize();
  return r || failures() ? 1 : 0;
}

// For the programs that run MPI themselves around DART (dart_init/dart_exit cycles in one
// MPI lifetime): with progress processes DART refuses an MPI started before dart_init.
// Checks that refusal (DART_ERR_INVAL naming DART_PROGRESS_PER_NODE, DART not
// initialized) on every process, agrees over MPI_COMM_WORLD (no process became a progress
// process) and finalizes MPI. Exit code. MPI must be initialized.
inline int check_progress_refused(const char *name, int *argc, char ***argv) {
  check_rc(DART_ERR_INVAL, dart_init(argc, argv), "dart_init", __FILE__, __LINE__);
  check(std::strstr(dart_error_detail(), "DART_PROGRESS_PER_NODE") != nullptr,
        "the detail names DART_PROGRESS_PER_NODE", __FILE__, __LINE__);
  dart_thread_support_level_t lvl = DART_THREAD_SINGLE;
  check_rc(DART_ERR_INVAL, dart_init_thread(argc, argv, &lvl), "dart_init_thread", __FILE__,
           __LINE__);
  check(!dart_initialized(), "!dart_initialized()", __FILE__, __LINE__);
  int r = finish(name);
  MPI_Finalize();
  return r;
}

}  // namespace prog

#define CHECK(cond) ::prog::check((cond), #cond, __FILE__, __LINE__)
#define CHECK_RC(expected, call) ::prog::check_rc((expected), (call), #call, __FILE__, __LINE__)
#define CHECK_OK(call) CHECK_RC(DART_OK, call)

#endif  // DART_PROG_COMMON_H_INCLUDED
