// SPDX-License-Identifier: BSD-3-Clause
// Team locks: an MCS queue lock (PGAS'14) over MPI-3 atomics on 32-bit words.
//
// Each lock owns a 2-int segment per unit: word 0 is the queue tail (used on the lock's
// tail unit only), word 1 is the unit's "next" link. The tail of lock k of a team lives
// on unit k mod size, so many locks do not all load unit 0. The hand-over to the next
// unit is an MPI message on a communicator private to the lock, so it can never be
// received by a user's dart_recv (DART 3.2 used tag 0 of the team communicator).
// 32-bit words keep compare-and-swap away from Open MPI's 64-bit CAS crash.
//
// Threads (DART 3.2: a lock is held by a thread of a unit): the MCS queue has one node
// per unit, so the threads of one unit first take the lock's unit-local mutex, held from
// acquire to release; the thread holding it is the one that uses the unit's queue node.
// So two threads of one unit exclude each other exactly as two units do, and only the
// thread that acquired the lock may release it.
#include "internal.h"

#include <algorithm>
#include <cstdio>
#include <thread>

struct dart_lock_struct {
  int index = 0;  // creation order on its team
  dart_team_t teamid = DART_TEAM_NULL;
  dart::detail::Team *team = nullptr;
  dart::detail::Segment *seg = nullptr;
  int tail_unit = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  std::mutex local;                      // the threads of this unit: one at a time in the queue
  std::atomic<std::thread::id> owner{};  // the thread holding the lock, id() if none
  bool held_here() const { return owner.load(std::memory_order_relaxed) != std::thread::id(); }
  bool held_by_me() const {
    return owner.load(std::memory_order_relaxed) == std::this_thread::get_id();
  }
};

using namespace dart::detail;

namespace {

constexpr MPI_Aint kTail = 0;
constexpr MPI_Aint kNext = sizeof(int);
constexpr int kHandoverTag = 1;

std::mutex g_locks_mutex;
std::unordered_set<const dart_lock_struct *> g_locks;

dart_ret_t check_lock(dart_lock_t lock, const char *fn) {
  DART_TRY(check_init(fn));
  if (lock == DART_LOCK_NULL) return fail(DART_ERR_INVAL, fn, "lock is DART_LOCK_NULL");
  {
    std::lock_guard<std::mutex> guard(g_locks_mutex);
    if (!g_locks.count(lock))
      return fail(DART_ERR_INVAL, fn, "not a live lock (destroyed, or never initialized)");
  }
  if (lock->teamid < 0 || g->teams.get((size_t)lock->teamid) != lock->team)
    return fail(DART_ERR_NOTFOUND, fn, "the lock's team %d was destroyed", (int)lock->teamid);
  return DART_OK;
}

// Single-node teams: every unit reaches every lock word by load/store, so the lock uses
// CPU atomics on the shared segment for ALL its accesses (never mixed with MPI atomics on
// the same words), and the hand-over is a flag store. This needs no MPI progress at the
// peers, which matters when units outnumber cores.
int *words(const dart_lock_struct *l, int unit) {
  return reinterpret_cast<int *>(l->seg->direct[unit]);
}
constexpr int kTailW = 0, kNextW = 1, kFlagW = 2;

// Spin politely: let MPI progress (peers' RMA on this unit's memory), then pause.
void pause_spin(const dart_lock_struct *l, Backoff *b) {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, l->comm, &flag, MPI_STATUS_IGNORE);
  b->pause();
}

bool shm_lock(const dart_lock_struct *l) { return l->team->single_node; }

void shm_prepare(const dart_lock_struct *l) {
  int *my = words(l, l->team->myid);
  __atomic_store_n(&my[kNextW], -1, __ATOMIC_RELAXED);
  __atomic_store_n(&my[kFlagW], 0, __ATOMIC_RELEASE);
}

void shm_acquire(const dart_lock_struct *l) {
  int me = l->team->myid;
  shm_prepare(l);
  int pred = __atomic_exchange_n(&words(l, l->tail_unit)[kTailW], me, __ATOMIC_ACQ_REL);
  if (pred == -1) return;
  __atomic_store_n(&words(l, pred)[kNextW], me, __ATOMIC_RELEASE);
  int *flag = &words(l, me)[kFlagW];
  Backoff b;
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) pause_spin(l, &b);
}

bool shm_try_acquire(const dart_lock_struct *l) {
  int me = l->team->myid, expected = -1;
  shm_prepare(l);
  return __atomic_compare_exchange_n(&words(l, l->tail_unit)[kTailW], &expected, me, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void shm_release(const dart_lock_struct *l) {
  int me = l->team->myid, expected = me;
  if (__atomic_compare_exchange_n(&words(l, l->tail_unit)[kTailW], &expected, -1, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;  // nobody queued behind me
  int *next = &words(l, me)[kNextW];
  int succ;
  Backoff b;
  while ((succ = __atomic_load_n(next, __ATOMIC_ACQUIRE)) == -1) pause_spin(l, &b);
  __atomic_store_n(&words(l, succ)[kFlagW], 1, __ATOMIC_RELEASE);
}

// The lock words of `unit` in the segment's window: its rank there and displacement (with
// progress processes, those of the process exposing the unit's memory; Segment::ranks).
int word_rank(const dart_lock_struct *l, int unit) { return l->seg->rank_of(unit); }
MPI_Aint word_disp(const dart_lock_struct *l, int unit, MPI_Aint disp) {
  return (MPI_Aint)l->seg->pad_of(unit) + disp;
}

dart_ret_t flush(const dart_lock_struct *l, int unit, const char *fn) {
  return mpi_check(MPI_Win_flush(word_rank(l, unit), l->seg->win), fn, "MPI_Win_flush");
}

// Compare-and-swap on one lock word, complete when it returns. MPI has no request-based
// CAS, so when oversubscribed (Backoff) a request-based no-op on the same word follows
// it and is waited for with backoff: atomics of one origin on one location are applied
// in order (MPI's default accumulate ordering), so once the no-op's result is here the
// CAS is done at the target and the flush does not busy-poll for it.
dart_ret_t cas_word(const dart_lock_struct *l, const int *value, const int *compare, int *result,
                    int target, MPI_Aint disp, const char *fn) {
  MPI_Win win = l->seg->win;
  const int rank = word_rank(l, target);
  disp = word_disp(l, target, disp);
  DART_MPI(MPI_Compare_and_swap(value, compare, result, MPI_INT, rank, disp, win), fn);
  if (g->oversubscribed) {
    int dummy = 0, seen = 0;
    MPI_Request req;
    DART_MPI(MPI_Rget_accumulate(&dummy, 1, MPI_INT, &seen, 1, MPI_INT, rank, disp, 1, MPI_INT,
                                 MPI_NO_OP, win, &req),
             fn);
    DART_TRY(wait_backoff(&req, fn));
  }
  return flush(l, target, fn);
}

dart_ret_t word_op(const dart_lock_struct *l, const int *value, int *result, int target,
                   MPI_Aint disp, MPI_Op op, const char *fn);

// Resets my "next" link to -1 before I enter the queue.
dart_ret_t reset_next(dart_lock_struct *l, const char *fn) {
  int minus1 = -1, old = 0;
  int me = l->team->myid;
  return word_op(l, &minus1, &old, me, kNext, MPI_REPLACE, fn);
}

// An atomic on one lock word, complete at the target when it returns. Oversubscribed
// (Backoff), it is a request-based MPI_Rget_accumulate whose completion (the old value
// arrived) is waited for with backoff, instead of a flush that busy-polls: under MPICH
// the target unit must run MPI progress for the operation to complete, and a busy-polling
// origin keeps it off the core.
dart_ret_t word_op(const dart_lock_struct *l, const int *value, int *result, int target,
                   MPI_Aint disp, MPI_Op op, const char *fn) {
  MPI_Win win = l->seg->win;
  const int rank = word_rank(l, target);
  disp = word_disp(l, target, disp);
  if (!g->oversubscribed) {
    DART_MPI(MPI_Fetch_and_op(value, result, MPI_INT, rank, disp, op, win), fn);
    return mpi_check(MPI_Win_flush(rank, win), fn, "MPI_Win_flush");
  }
  int dummy = 0;
  MPI_Request req;
  DART_MPI(MPI_Rget_accumulate(value ? value : &dummy, 1, MPI_INT, result, 1, MPI_INT, rank, disp,
                               1, MPI_INT, op, win, &req),
           fn);
  return wait_backoff(&req, fn);
}

// The unit's MCS queue operations; the caller holds the lock's unit-local mutex.
dart_ret_t mcs_acquire(dart_lock_struct *lock, const char *fn) {
  if (shm_lock(lock)) {
    shm_acquire(lock);
    return DART_OK;
  }
  int me = lock->team->myid;
  DART_TRY(reset_next(lock, fn));
  int pred = -1;
  DART_TRY(word_op(lock, &me, &pred, lock->tail_unit, kTail, MPI_REPLACE, fn));
  if (pred != -1) {
    // This unit is in the queue now: returning an error would leave its predecessor
    // waiting for a link and the lock stuck on every unit, so a failure from here on
    // ends the job with its message.
    auto queued = [&](dart_ret_t rc) {
      if (rc == DART_OK) return;
      std::fprintf(stderr, "DART unit %d: dart_lock_acquire failed while queued: %s\n", g->myid,
                   dart_error_detail());
      dart_abort(rc);
    };
    // Link behind the predecessor, then block until it hands the lock over. Blocking in
    // MPI_Recv keeps MPI progressing (MPICH completes our peers' atomics meanwhile).
    int old_link = 0;
    queued(word_op(lock, &me, &old_link, pred, kNext, MPI_REPLACE, fn));
    int token = 0;
    MPI_Request req;
    queued(mpi_check(MPI_Irecv(&token, 1, MPI_INT, pred, kHandoverTag, lock->comm, &req), fn,
                     "MPI_Irecv"));
    queued(wait_backoff(&req, fn));
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return DART_OK;
}

dart_ret_t mcs_try_acquire(dart_lock_struct *lock, bool *got, const char *fn) {
  if (shm_lock(lock)) {
    *got = shm_try_acquire(lock);
    return DART_OK;
  }
  int me = lock->team->myid, empty = -1, old = -2;
  DART_TRY(reset_next(lock, fn));
  DART_TRY(cas_word(lock, &me, &empty, &old, lock->tail_unit, kTail, fn));
  *got = old == -1;
  if (*got) std::atomic_thread_fence(std::memory_order_seq_cst);
  return DART_OK;
}

dart_ret_t mcs_release(dart_lock_struct *lock, const char *fn) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (shm_lock(lock)) {
    shm_release(lock);
    return DART_OK;
  }
  int me = lock->team->myid, empty = -1, cur = -2;
  // My link first (my own memory: no round trip to another unit). A successor that has
  // linked itself behind me gets the lock at once, and the tail is left alone (the MCS
  // release); only without one do I try to swing the tail back to -1.
  int next = -1;
  DART_TRY(word_op(lock, nullptr, &next, me, kNext, MPI_NO_OP, fn));
  if (next == -1) {
    DART_TRY(cas_word(lock, &empty, &me, &cur, lock->tail_unit, kTail, fn));
    if (cur != me) {
      // A successor swapped itself into the tail; wait until it has linked itself behind
      // me (a short window), reading my link atomically. Every iteration is an MPI call,
      // so MPI keeps progressing.
      Backoff b;
      while (next == -1) {
        DART_TRY(word_op(lock, nullptr, &next, me, kNext, MPI_NO_OP, fn));
        if (next == -1) b.pause();
      }
    }
  }
  if (next != -1) {
    int token = 1;
    DART_MPI(MPI_Send(&token, 1, MPI_INT, next, kHandoverTag, lock->comm), fn);
  }
  return DART_OK;
}
}  // namespace

namespace dart {
namespace detail {
void locks_finalize() {
  std::vector<dart_lock_struct *> live;
  {
    std::lock_guard<std::mutex> guard(g_locks_mutex);
    for (const dart_lock_struct *l : g_locks) live.push_back(const_cast<dart_lock_struct *>(l));
    g_locks.clear();
  }
  // Same order on every unit: by team, then creation order.
  std::sort(live.begin(), live.end(), [](const dart_lock_struct *a, const dart_lock_struct *b) {
    return a->teamid != b->teamid ? a->teamid < b->teamid : a->index < b->index;
  });
  for (dart_lock_struct *l : live) {
    MPI_Comm_free(&l->comm);
    delete l;
  }
}
}  // namespace detail
}  // namespace dart

extern "C" {

dart_ret_t dart_team_lock_init(dart_team_t teamid, dart_lock_t *lock) {
  const char *fn = "dart_team_lock_init";
  null_out(lock, DART_LOCK_NULL);
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  std::unique_ptr<dart_lock_struct> l(new dart_lock_struct());
  l->teamid = teamid;
  l->team = t;
  l->index = t->lock_counter++;
  l->tail_unit = l->index % t->size;
  // All-or-nothing (Agreement): every step runs on every unit, a failure anywhere frees
  // the lock's communicator and segment on every unit, after one reduction.
  Agreement a;
  if (lock == nullptr) a.step(fail(DART_ERR_INVAL, fn, "lock is NULL"));
  if (int drc = MPI_Comm_dup(t->comm, &l->comm); drc != MPI_SUCCESS) {
    l->comm = MPI_COMM_NULL;
    a.step(mpi_fail(drc, fn, "MPI_Comm_dup"));
  } else if (fault(FaultSite::CommDup)) {
    a.step(fault_fail(FaultSite::CommDup, fn, "MPI_Comm_dup"));
  }
  a.expect(Agreement::Comm, l->comm != MPI_COMM_NULL);
  if (l->comm != MPI_COMM_NULL)
    a.step(mpi_check(MPI_Comm_set_errhandler(l->comm, MPI_ERRORS_RETURN), fn,
                     "MPI_Comm_set_errhandler"));
  int16_t segid = 0;
  if (a.ok()) a.step(segment_new_id(t, &segid, fn));
  l->seg = segment_create_shared(t, 3 * sizeof(int), segid, &a, fn);
  if (a.ok()) {
    int *w = reinterpret_cast<int *>(l->seg->local_base);
    w[0] = -1;  // tail: empty queue
    w[1] = -1;  // next: none
    w[2] = 0;   // hand-over flag (single-node locks)
    a.step(mpi_check(MPI_Win_sync(l->seg->win), fn, "MPI_Win_sync"));
    if (a.ok() && l->seg->shm_win != l->seg->win)
      a.step(mpi_check(MPI_Win_sync(l->seg->shm_win), fn, "MPI_Win_sync"));
  }
  // The agreement also orders every unit's word initialization before any use.
  if (dart_ret_t rc = a.agree(t->comm, t, fn); rc != DART_OK) {
    segment_discard(l->seg, a);
    if (l->comm != MPI_COMM_NULL && a.held_by_all(Agreement::Comm)) MPI_Comm_free(&l->comm);
    return rc;
  }
  segment_store(l->seg);
  {
    std::lock_guard<std::mutex> guard(g_locks_mutex);
    g_locks.insert(l.get());
  }
  *lock = l.release();
  return DART_OK;
}

dart_ret_t dart_team_lock_destroy(dart_lock_t *lock) {
  const char *fn = "dart_team_lock_destroy";
  DART_TRY(check_init(fn));
  if (lock == nullptr) return fail(DART_ERR_INVAL, fn, "lock is NULL");
  if (*lock == DART_LOCK_NULL) return DART_OK;
  DART_TRY(check_lock(*lock, fn));
  dart_lock_struct *l = *lock;
  // Collective: agree first, so a unit that still holds the lock fails everywhere.
  int bad = l->held_here() ? 1 : 0, any = 0;
  DART_MPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, l->comm), fn);
  if (any)
    return fail(DART_ERR_INVAL, fn, "the lock is still held (by %s)",
                bad ? "this unit" : "another unit");
  {
    std::lock_guard<std::mutex> guard(g_locks_mutex);
    g_locks.erase(l);
  }
  dart_ret_t rc = segment_free(l->seg, fn);
  MPI_Comm_free(&l->comm);
  delete l;
  *lock = DART_LOCK_NULL;
  return rc;
}

dart_ret_t dart_lock_acquire(dart_lock_t lock) {
  const char *fn = "dart_lock_acquire";
  DART_TRY(check_lock(lock, fn));
  if (lock->held_by_me())
    return fail(DART_ERR_INVAL, fn, "this thread already holds the lock (not recursive)");
  lock->local.lock();  // other threads of this unit: wait here, off the MPI queue
  dart_ret_t rc = mcs_acquire(lock, fn);
  if (rc != DART_OK) {
    lock->local.unlock();
    return rc;
  }
  lock->owner.store(std::this_thread::get_id(), std::memory_order_relaxed);
  return DART_OK;
}

dart_ret_t dart_lock_try_acquire(dart_lock_t lock, int32_t *result) {
  const char *fn = "dart_lock_try_acquire";
  DART_TRY(check_lock(lock, fn));
  if (result == nullptr) return fail(DART_ERR_INVAL, fn, "result is NULL");
  if (lock->held_by_me())
    return fail(DART_ERR_INVAL, fn, "this thread already holds the lock (not recursive)");
  *result = 0;
  if (!lock->local.try_lock()) return DART_OK;  // another thread of this unit has it
  bool got = false;
  dart_ret_t rc = mcs_try_acquire(lock, &got, fn);
  if (rc != DART_OK || !got) {
    lock->local.unlock();
    return rc;
  }
  lock->owner.store(std::this_thread::get_id(), std::memory_order_relaxed);
  *result = 1;
  return DART_OK;
}

dart_ret_t dart_lock_release(dart_lock_t lock) {
  const char *fn = "dart_lock_release";
  DART_TRY(check_lock(lock, fn));
  DART_TRY(progress_drain(fn));
  if (!lock->held_by_me())
    return fail(DART_ERR_INVAL, fn,
                lock->held_here() ? "the lock is held by another thread of this unit (only "
                                    "the thread that acquired it releases it)"
                                  : "this unit does not hold the lock");
  dart_ret_t rc = mcs_release(lock, fn);
  lock->owner.store(std::thread::id(), std::memory_order_relaxed);
  lock->local.unlock();
  return rc;
}

bool dart_lock_initialized(struct dart_lock_struct const *lock) {
  if (lock == nullptr || g == nullptr) return false;
  std::lock_guard<std::mutex> guard(g_locks_mutex);
  return g_locks.count(lock) != 0;
}

}  // extern "C"
