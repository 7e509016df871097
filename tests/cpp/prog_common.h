// prog_common.h -- tiny check helpers for the prog_*.cc programs (own main, no gtest).
#ifndef DART_PROG_COMMON_H_INCLUDED
#define DART_PROG_COMMON_H_INCLUDED

#include <mpi.h>

#include <dash/dart/if/dart.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace prog {

inline int &failures() {
  static int f = 0;
  return f;
}

inline int world_rank() {
  int init = 0, fin = 0, r = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// MPI_Init_thread(MULTIPLE) before DART (the programs test dart_init inside an MPI
// program); a failure ends the program. Returns the MPI_COMM_WORLD rank.
inline int init_mpi(int *argc, char ***argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "MPI_Init_thread failed\n");
    std::exit(1);
  }
  return world_rank();
}

inline void check(bool ok, const char *what, const char *file, int line) {
  if (ok) return;
  ++failures();
  std::fprintf(stderr, "[rank %d] CHECK FAILED %s:%d: %s (last dart_error_detail: \"%s\")\n",
               world_rank(), file, line, what, dart_error_detail());
  std::fflush(stderr);
}

inline void check_rc(dart_ret_t expected, dart_ret_t got, const char *what, const char *file,
                     int line) {
  if (expected == got) return;
  ++failures();
  std::fprintf(stderr,
               "[rank %d] CHECK FAILED %s:%d: %s returned %d (%s), expected %d (%s); detail: \"%s\"\n",
               world_rank(), file, line, what, (int)got, dart_strerror(got), (int)expected,
               dart_strerror(expected), dart_error_detail());
  std::fflush(stderr);
}

// Reduce the failure count over MPI_COMM_WORLD (MPI must be initialized): exit code.
inline int finish(const char *name) {
  int local = failures() ? 1 : 0, global = local;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank() == 0)
    std::printf("%s: %s\n", name, global ? "FAILED" : "PASSED");
  return global;
}

}  // namespace prog

#define CHECK(cond) ::prog::check((cond), #cond, __FILE__, __LINE__)
#define CHECK_RC(expected, call) ::prog::check_rc((expected), (call), #call, __FILE__, __LINE__)
#define CHECK_OK(call) CHECK_RC(DART_OK, call)

#endif  // DART_PROG_COMMON_H_INCLUDED
