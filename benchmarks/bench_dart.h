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
