// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 UPN none ARGS mpi_init TIMEOUT 120 LABELS progress NO_FAKE_HOSTS
//
// Progress processes are refused where they would show up in the application's
// MPI_COMM_WORLD (issue 14): dart_init and dart_init_thread with DART_PROGRESS_PER_NODE=1
// return DART_ERR_INVAL with a message naming the variable
//   mpi_init   (under mpiexec) when the application initialized MPI before dart_init;
//              without the variable dart_init then works, and MPI stays the
//              application's (it finalizes it)
//   singleton, singleton_thread  (no mpiexec; registered in tests/cpp/CMakeLists.txt) in
//              a singleton run: dart_init, dart_init_thread
// The program sets the variable itself (setenv before dart_init, where config.cc reads it).
#include "prog_common.h"

#include <dash/dart/if/dart_mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr const char *kName = "prog_progress_refuse";

void check_refused(dart_ret_t rc, const char *call) {
  CHECK_RC(DART_ERR_INVAL, rc);
  const char *d = dart_error_detail();
  const bool named = d && std::strstr(d, "DART_PROGRESS_PER_NODE");
  if (!named)
    std::fprintf(stderr, "%s: %s: the message does not name DART_PROGRESS_PER_NODE: \"%s\"\n",
                 kName, call, d ? d : "(null)");
  CHECK(named);
  CHECK(!dart_initialized());
  if (rc == DART_ERR_INVAL && named) {
    std::printf("%s: %s refused: \"%s\"\n", kName, call, d);
    std::fflush(stdout);
  }
}

// dart_init (`init`) and/or dart_init_thread (`init_thread`) with the variable set.
void refuse(int *argc, char ***argv, bool init, bool init_thread) {
  setenv("DART_PROGRESS_PER_NODE", "1", 1);
  if (init) check_refused(dart_init(argc, argv), "dart_init");
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  if (init_thread) check_refused(dart_init_thread(argc, argv, &level), "dart_init_thread");
  unsetenv("DART_PROGRESS_PER_NODE");
}

}  // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "mpi_init") {
    prog::init_mpi(&argc, &argv);
    refuse(&argc, &argv, true, true);
    // Without the variable DART runs inside the application's MPI as always.
    CHECK_OK(dart_init(&argc, &argv));
    size_t n = 0;
    int world = 0;
    CHECK_OK(dart_size(&n));
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    CHECK(n == static_cast<size_t>(world));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_exit());
    int fin = 0;
    MPI_Finalized(&fin);
    CHECK(!fin);  // DART did not start MPI, so it must not finalize it
    const int rc = prog::finish(kName);
    MPI_Finalize();
    return rc;
  }
  if (mode == "singleton" || mode == "singleton_thread") {
    if (std::getenv("PMI_RANK") || std::getenv("OMPI_COMM_WORLD_RANK")) {
      std::fprintf(stderr, "%s singleton: run without mpiexec\n", kName);
      return 2;
    }
    // One call per process: a refused dart_init that started MPI finalizes it again, and
    // MPI cannot be initialized twice in one process.
    refuse(&argc, &argv, mode == "singleton", mode == "singleton_thread");
    if (dart_initialized()) dart_exit();  // a runtime that did not refuse
    // Whether a refused dart_init left MPI initialized is the runtime's business; end it
    // if so, so that the process exits cleanly.
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Finalize();
    const int rc = prog::failures() ? 1 : 0;
    std::printf("%s: %s\n", kName, rc ? "FAILED" : "PASSED");
    return rc;
  }
  std::fprintf(stderr, "usage: %s mpi_init|singleton|singleton_thread\n", kName);
  return 2;
}
