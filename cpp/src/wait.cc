// SPDX-License-Identifier: BSD-3-Clause
// Backoff: the pause of DART's own wait loops (docs/design.md, "Locks").
#include "internal.h"

#include <sched.h>
#include <time.h>

namespace dart {
namespace detail {

bool Backoff::next_sleeps() {
  // Polls while the wait is young only give the core away; an older wait on an
  // oversubscribed machine sleeps, so the unit that has the work runs.
  constexpr unsigned kYieldPolls = 16;
  return ++polls_ > kYieldPolls && g != nullptr && g->oversubscribed;
}

void Backoff::pause() {
  if (!next_sleeps()) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, 20 * 1000};
  nanosleep(&ts, nullptr);
}

dart_ret_t wait_backoff(MPI_Request *req, const char *fn) {
  int done = 0;
  Backoff b;
  for (;;) {
    DART_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE), fn);
    if (done) return DART_OK;
    b.pause();
  }
}

}  // namespace detail
}  // namespace dart
