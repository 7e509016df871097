// SPDX-License-Identifier: BSD-3-Clause
// progress_abort <mode> <tag>: the abort path with progress processes (issue 14), run by
// tests/python/test_progress.py (not by ctest: the job must fail). The units exchange
// data (so the progress processes have served requests), then the LAST unit fails while
// the others wait in a barrier:
//   dart_abort  it calls dart_abort(3)
//   exit        it exits with status 4 without dart_exit (nor MPI_Finalize)
// The whole job, progress processes included, must end promptly with a non-zero status.
// <tag> is only there so that the test finds this job's processes (pgrep -f <tag>).
#include <dash/dart/if/dart.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3 || (std::strcmp(argv[1], "dart_abort") != 0 && std::strcmp(argv[1], "exit") != 0)) {
    std::fprintf(stderr, "usage: progress_abort dart_abort|exit <tag>\n");
    return 2;
  }
  if (dart_init(&argc, &argv) != DART_OK) {
    std::fprintf(stderr, "progress_abort: dart_init failed: %s\n", dart_error_detail());
    return 1;
  }
  dart_global_unit_t me{-1};
  size_t n = 0;
  dart_myid(&me);
  dart_size(&n);
  constexpr size_t kElems = 1 << 18;  // 2 MiB of longs: above any offload threshold
  dart_gptr_t g = DART_GPTR_NULL;
  if (dart_team_memalloc_aligned(DART_TEAM_ALL, kElems, DART_TYPE_LONG, &g) != DART_OK) {
    std::fprintf(stderr, "progress_abort: allocation failed: %s\n", dart_error_detail());
    dart_abort(1);
  }
  std::vector<long> buf(kElems, me.id);
  dart_gptr_t right = g;
  dart_gptr_setunit(&right, dart_team_unit_t{static_cast<int32_t>((me.id + 1) % n)});
  dart_handle_t h = DART_HANDLE_NULL;
  if (dart_put_handle(right, buf.data(), kElems, DART_TYPE_LONG, DART_TYPE_LONG, &h) != DART_OK ||
      dart_wait(&h) != DART_OK || dart_barrier(DART_TEAM_ALL) != DART_OK) {
    std::fprintf(stderr, "progress_abort: exchange failed: %s\n", dart_error_detail());
    dart_abort(1);
  }
  if (me.id == static_cast<int32_t>(n) - 1) {
    std::fprintf(stderr, "progress_abort: unit %d fails (%s)\n", me.id, argv[1]);
    std::fflush(stderr);
    if (std::strcmp(argv[1], "dart_abort") == 0) dart_abort(3);
    std::exit(4);
  }
  dart_barrier(DART_TEAM_ALL);  // never completes: the last unit is gone
  std::fprintf(stderr, "progress_abort: unit %d passed the barrier\n", me.id);
  dart_exit();
  return 0;
}
