/* SPDX-License-Identifier: BSD-3-Clause */
// prog_progress.h -- what the progress-process programs (prog_progress_*.cc, run with
// DART_PROGRESS_PER_NODE) share: the units' communicator, a check that progress processes
// really run, per-unit words in node shared memory that other units read WITHOUT any MPI
// or DART call (so a unit's state is visible while it computes), and a compute loop.
#ifndef DART_PROG_PROGRESS_H_INCLUDED
#define DART_PROG_PROGRESS_H_INCLUDED

#include "prog_common.h"

#include <dash/dart/if/dart_ext.h>
#include <dash/dart/if/dart_mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace prog {

// With DART_PROGRESS_PER_NODE=k > 0 set, progress processes must exist: MPI_COMM_WORLD
// then holds more processes than DART has units, and dart_progress_per_node() says k. A
// runtime without progress processes (or one that ignores the variable) fails here,
// clearly, on every unit alike. Returns whether the program's body makes sense (true also
// when no progress processes were asked for).
inline bool progress_running(const char *name) {
  const int k = progress_per_node();
  if (k <= 0) {
    return true;
  }
  int world = 0;
  size_t units = 0;
  int32_t served = -1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  dart_size(&units);
  dart_progress_per_node(&served);
  const bool ok = static_cast<size_t>(world) > units && served == k;
  dart_global_unit_t me{-1};
  dart_myid(&me);
  if (!ok) ++failures();
  if (!ok && me.id == 0) {
    std::fprintf(stderr,
                 "%s: DART_PROGRESS_PER_NODE=%d is set but no progress process runs: "
                 "MPI_COMM_WORLD has %d processes for %zu units, dart_progress_per_node() "
                 "says %d\n",
                 name, k, world, units, static_cast<int>(served));
    std::fflush(stderr);
  }
  return ok;
}

// The units' communicator (never MPI_COMM_WORLD, which holds the progress processes).
inline MPI_Comm units_comm() {
  MPI_Comm c = MPI_COMM_NULL;
  CHECK_OK(dart_team_comm(DART_TEAM_ALL, &c));
  return c;
}

// kWords 64-bit words per unit in one MPI_Win_allocate_shared window over the units of
// this machine (emulated nodes are one real machine, so every unit is in it). Loads and
// stores are atomic builtins: no MPI call, so a unit reads another's words while that one
// computes. Collective over the units (create and destroy).
class SharedWords {
 public:
  static constexpr int kWords = 8;

  // Returns false (on every unit alike) when the units are not all on one machine.
  bool create(MPI_Comm units) {
    int n = 0;
    MPI_Comm_size(units, &n);
    MPI_Comm_split_type(units, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm_);
    int shm_size = 0;
    MPI_Comm_size(shm_, &shm_size);
    int all = shm_size == n ? 1 : 0, everywhere = 0;
    MPI_Allreduce(&all, &everywhere, 1, MPI_INT, MPI_MIN, units);
    if (!everywhere) {
      ++failures();
      std::fprintf(stderr,
                   "SharedWords: the units are not all on one machine (the test "
                   "needs shared memory between the computing unit and the others)\n");
      MPI_Comm_free(&shm_);
      return false;
    }
    uint64_t *mine = nullptr;
    MPI_Win_allocate_shared(kWords * sizeof(uint64_t), sizeof(uint64_t), MPI_INFO_NULL, shm_, &mine,
                            &win_);
    for (int w = 0; w < kWords; ++w) mine[w] = 0;
    base_ = new uint64_t *[n];
    for (int u = 0; u < n; ++u) {
      MPI_Aint size = 0;
      int disp = 0;
      // The split keeps the units' order (key 0): shared rank u is unit u.
      MPI_Win_shared_query(win_, u, &size, &disp, &base_[u]);
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    MPI_Win_sync(win_);
    MPI_Barrier(shm_);
    MPI_Win_sync(win_);
    return true;
  }

  void destroy() {
    if (win_ == MPI_WIN_NULL) return;
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
    MPI_Comm_free(&shm_);
    delete[] base_;
    base_ = nullptr;
  }

  uint64_t load(int unit, int word) const {
    return __atomic_load_n(&base_[unit][word], __ATOMIC_ACQUIRE);
  }
  void store(int unit, int word, uint64_t v) {
    __atomic_store_n(&base_[unit][word], v, __ATOMIC_RELEASE);
  }

  // Waits (sleeping, no DART call) until unit's word reaches at least `v`; false after
  // `limit_s` seconds (a safety net against a hang, not a measurement). With `drive` set,
  // an MPI_Iprobe on it between naps lets MPI progress RMA that targets the waiting
  // process (for a runtime without progress processes); without it, no MPI call.
  bool wait_at_least(int unit, int word, uint64_t v, double limit_s = 120.0,
                     MPI_Comm drive = MPI_COMM_NULL) const {
    const auto t0 = std::chrono::steady_clock::now();
    while (load(unit, word) < v) {
      const timespec ts{0, 200 * 1000};
      nanosleep(&ts, nullptr);
      if (drive != MPI_COMM_NULL) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, drive, &flag, MPI_STATUS_IGNORE);
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit_s)
        return false;
    }
    return true;
  }

 private:
  MPI_Comm shm_ = MPI_COMM_NULL;
  MPI_Win win_ = MPI_WIN_NULL;
  uint64_t **base_ = nullptr;
};

// The start of both programs: unit 0 works against the last unit (`target`), the others
// look on. dart_init starts MPI (with progress processes an MPI started before would be
// refused; a progress process never returns from it). `ok` is false, on every unit
// alike and with a failure counted, when progress processes were asked for but do not
// run, when fewer than 2 units run, or when the shared words cannot be made.
struct Start {
  MPI_Comm units = MPI_COMM_NULL;
  int me = -1, n = 0, target = -1;
  bool same_node = false;  // unit 0 and the target
  bool ok = false;
  SharedWords sw;
};

inline void start(Start *s, const char *name, int *argc, char ***argv) {
  if (dart_init(argc, argv) != DART_OK) {
    std::fprintf(stderr, "%s: dart_init failed: %s\n", name, dart_error_detail());
    std::exit(1);
  }
  s->units = units_comm();
  dart_global_unit_t me{-1};
  size_t n = 0;
  CHECK_OK(dart_myid(&me));
  CHECK_OK(dart_size(&n));
  s->me = me.id;
  s->n = static_cast<int>(n);
  s->target = s->n - 1;
  s->ok = progress_running(name);
  if (s->n < 2) {
    if (s->me == 0) std::fprintf(stderr, "%s: needs at least 2 units\n", name);
    ++failures();
    s->ok = false;
  }
  if (!s->ok) return;
  int32_t node0 = -1, node_t = -1;
  CHECK_OK(dart_unit_node(dart_global_unit_t{0}, &node0));
  CHECK_OK(dart_unit_node(dart_global_unit_t{s->target}, &node_t));
  s->same_node = node0 == node_t;
  if (s->me == 0) {
    std::printf("%s: unit 0 (node %d) against unit %d (node %d)\n", name, node0, s->target, node_t);
    std::fflush(stdout);
  }
  s->ok = s->sw.create(s->units);
}

// One step of pure computation (no call into DART, MPI or the kernel), kept from being
// optimized away by the volatile sink.
inline void compute_step() {
  static volatile double sink = 0;
  double x = sink + 1.0;
  for (int i = 0; i < 20000; ++i) x = x * 0.999999 + 1e-9 * i;
  sink = x;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace prog

#endif  // DART_PROG_PROGRESS_H_INCLUDED
