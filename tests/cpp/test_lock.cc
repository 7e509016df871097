// SPDX-License-Identifier: BSD-3-Clause
// Team locks (MCS queue locks): init/destroy on DART_TEAM_ALL and sub-teams,
// dart_lock_initialized, mutual exclusion of a read-modify-write by put/get, FIFO
// hand-over order, dart_lock_try_acquire, 64 locks at once, bad inputs, and user
// messages (tag 1) interleaved with hand-overs.
#include "dart_test.h"

#include <dash/dart/if/dart_synchronization.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <sched.h>

using namespace dtest;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Wait `ms` milliseconds while letting MPI progress (MPICH completes RMA targeting this
// unit only while it is inside MPI) and giving the core away.
void poll_ms(double ms) {
  const double end = now() + ms / 1000.0;
  while (now() < end) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Locked read-modify-write of an int at `g` with blocking get and put.
void locked_increment(dart_lock_t lock, dart_gptr_t g) {
  DART_EXPECT_OK(dart_lock_acquire(lock));
  int v = -1;
  DART_EXPECT_OK(dart_get_blocking(&v, g, 1, DART_TYPE_INT, DART_TYPE_INT));
  ++v;
  DART_EXPECT_OK(dart_put_blocking(g, &v, 1, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_OK(dart_lock_release(lock));
}

// One int per unit of `team`, zeroed, barrier. Collective over the team.
dart_gptr_t zeroed_ints(dart_team_t team, size_t count) {
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(team, count, DART_TYPE_INT, &g));
  dart_team_unit_t tme{-1};
  dart_team_myid(team, &tme);
  dart_gptr_t mine = g;
  dart_gptr_setunit(&mine, tme);
  int *p = nullptr;
  DART_EXPECT_OK(dart_gptr_getaddr(mine, reinterpret_cast<void **>(&p)));
  if (p) std::fill(p, p + count, 0);
  DART_EXPECT_OK(dart_barrier(team));
  return g;
}

dart_gptr_t at(dart_gptr_t g, int unit, size_t index) {
  dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(unit));
  dart_gptr_incaddr(&g, (int64_t)(index * sizeof(int)));
  return g;
}

}  // namespace

TEST(Lock, InitDestroyTeamAll) {
  const int n = nunits();
  EXPECT_FALSE(dart_lock_initialized(DART_LOCK_NULL));
  dart_lock_t lock = DART_LOCK_NULL;
  DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  EXPECT_NE(lock, DART_LOCK_NULL);
  EXPECT_TRUE(dart_lock_initialized(lock));
  // Mutual exclusion: K locked increments per unit on one int at the last unit.
  const int K = 50;
  dart_gptr_t g = zeroed_ints(DART_TEAM_ALL, 1);
  for (int i = 0; i < K; ++i) locked_increment(lock, at(g, n - 1, 0));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  int v = -1;
  DART_EXPECT_OK(dart_get_blocking(&v, at(g, n - 1, 0), 1, DART_TYPE_INT, DART_TYPE_INT));
  EXPECT_EQ(v, K * n);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
  dart_lock_t copy = lock;
  DART_EXPECT_OK(dart_team_lock_destroy(&lock));
  EXPECT_EQ(lock, DART_LOCK_NULL);
  EXPECT_FALSE(dart_lock_initialized(copy));
  EXPECT_FALSE(dart_lock_initialized(lock));
  // Destroying DART_LOCK_NULL again is accepted and ignored.
  DART_EXPECT_OK(dart_team_lock_destroy(&lock));
  // Several init/destroy cycles (tails move over the units).
  for (int i = 0; i < 2 * n + 1; ++i) {
    dart_lock_t l = DART_LOCK_NULL;
    DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
    DART_EXPECT_OK(dart_lock_acquire(l));
    DART_EXPECT_OK(dart_lock_release(l));
    DART_EXPECT_OK(dart_team_lock_destroy(&l));
  }
}

// Locks on sub-teams: even units; all units but unit 0 (n >= 2); the last unit alone.
TEST(Lock, SubTeams) {
  const int n = nunits(), me = myid();
  std::vector<std::vector<int>> teams;
  {
    std::vector<int> even;
    for (int u = 0; u < n; u += 2) even.push_back(u);
    teams.push_back(even);
    if (n >= 2) {
      std::vector<int> rest;
      for (int u = 1; u < n; ++u) rest.push_back(u);
      teams.push_back(rest);
    }
    teams.push_back({n - 1});
  }
  for (const auto &members : teams) {
    const bool member = std::find(members.begin(), members.end(), me) != members.end();
    dart_team_t team = make_team(members);
    EXPECT_EQ(team != DART_TEAM_NULL, member);
    if (member && team != DART_TEAM_NULL) {
      const int tn = (int)members.size();
      dart_lock_t lock = DART_LOCK_NULL;
      DART_EXPECT_OK(dart_team_lock_init(team, &lock));
      EXPECT_TRUE(dart_lock_initialized(lock));
      dart_gptr_t g = zeroed_ints(team, 2);
      const int K = 40;
      for (int i = 0; i < K; ++i) {
        locked_increment(lock, at(g, 0, 1));
        locked_increment(lock, at(g, tn - 1, 0));
      }
      DART_EXPECT_OK(dart_barrier(team));
      int a = -1, b = -1;
      DART_EXPECT_OK(dart_get_blocking(&a, at(g, 0, 1), 1, DART_TYPE_INT, DART_TYPE_INT));
      DART_EXPECT_OK(dart_get_blocking(&b, at(g, tn - 1, 0), 1, DART_TYPE_INT, DART_TYPE_INT));
      EXPECT_EQ(a, K * tn) << "team of " << tn;
      EXPECT_EQ(b, K * tn) << "team of " << tn;
      DART_EXPECT_OK(dart_barrier(team));
      DART_EXPECT_OK(dart_team_memfree(g));
      DART_EXPECT_OK(dart_team_lock_destroy(&lock));
      EXPECT_EQ(lock, DART_LOCK_NULL);
    }
    drop_team(team);
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// FIFO: unit 0 holds the lock; units 1..n-1 start acquiring in that order (unit k starts
// after a token from unit k-1 and a further pause); unit 0 keeps the lock until unit n-1
// has started plus a pause. Each holder appends its id to a log on unit 0; the log must
// read 0, 1, ..., n-1. Repeated with the tail on every unit (a new lock each round).
TEST(Lock, FifoHandOverOrder) {
  const int n = nunits(), me = myid();
  const double kPauseMs = 60;
  for (int round = 0; round < n; ++round) {
    dart_lock_t lock = DART_LOCK_NULL;
    DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
    dart_gptr_t g = zeroed_ints(DART_TEAM_ALL, 1 + n);  // [0] = count, [1..n] = log
    const int tag = 7;
    if (me == 0) {
      DART_EXPECT_OK(dart_lock_acquire(lock));
      if (n > 1) {
        int token = 0;
        DART_EXPECT_OK(dart_send(&token, 1, DART_TYPE_INT, tag, DART_GLOBAL_UNIT_ID(1)));
        DART_EXPECT_OK(dart_recv(&token, 1, DART_TYPE_INT, tag, DART_GLOBAL_UNIT_ID(n - 1)));
        poll_ms(4 * kPauseMs);  // unit n-1 enqueues meanwhile
      }
    } else {
      int token = -1;
      DART_EXPECT_OK(dart_recv(&token, 1, DART_TYPE_INT, tag, DART_GLOBAL_UNIT_ID(me - 1)));
      poll_ms(kPauseMs);  // unit me-1 had kPauseMs to enqueue
      int to = me + 1 < n ? me + 1 : 0;
      token = me;
      DART_EXPECT_OK(dart_send(&token, 1, DART_TYPE_INT, tag, DART_GLOBAL_UNIT_ID(to)));
      DART_EXPECT_OK(dart_lock_acquire(lock));
    }
    // Holding the lock: append my id.
    int count = -1;
    DART_EXPECT_OK(dart_get_blocking(&count, at(g, 0, 0), 1, DART_TYPE_INT, DART_TYPE_INT));
    if (count >= 0 && count < n) {
      DART_EXPECT_OK(dart_put_blocking(at(g, 0, 1 + count), &me, 1, DART_TYPE_INT, DART_TYPE_INT));
    }
    ++count;
    DART_EXPECT_OK(dart_put_blocking(at(g, 0, 0), &count, 1, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_OK(dart_lock_release(lock));
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    std::vector<int> log(1 + n, -1);
    DART_EXPECT_OK(dart_get_blocking(log.data(), at(g, 0, 0), 1 + n, DART_TYPE_INT, DART_TYPE_INT));
    std::vector<int> want(1 + n);
    want[0] = n;
    for (int i = 0; i < n; ++i) want[1 + i] = i;
    EXPECT_EQ(log, want) << "round " << round << ": [count, holders in hand-over order]";
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    DART_EXPECT_OK(dart_team_memfree(g));
    DART_EXPECT_OK(dart_team_lock_destroy(&lock));
  }
}

TEST(Lock, TryAcquire) {
  const int n = nunits(), me = myid();
  dart_lock_t lock = DART_LOCK_NULL;
  DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  int32_t got = -1;
  // Unit 0 takes the free lock with try_acquire.
  if (me == 0) {
    DART_EXPECT_OK(dart_lock_try_acquire(lock, &got));
    EXPECT_EQ(got, 1) << "try_acquire of a free lock";
    // Own lock again: not recursive.
    int32_t again = -1;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_try_acquire(lock, &again));
    EXPECT_EQ(again, -1) << "output written on failure";
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  // Everybody else fails to take it, without blocking, several times.
  if (me != 0) {
    for (int i = 0; i < 5; ++i) {
      got = -1;
      double t0 = now();
      DART_EXPECT_OK(dart_lock_try_acquire(lock, &got));
      EXPECT_LT(now() - t0, 5.0) << "try_acquire blocked";
      EXPECT_EQ(got, 0) << "try_acquire of a lock held by unit 0";
    }
    // Release of a lock that this unit does not hold (held by someone else).
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_release(lock));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) {
    DART_EXPECT_OK(dart_lock_release(lock));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  // In turn: each unit takes the now free lock with try_acquire and releases it.
  for (int u = 0; u < n; ++u) {
    if (me == u) {
      got = -1;
      DART_EXPECT_OK(dart_lock_try_acquire(lock, &got));
      EXPECT_EQ(got, 1) << "unit " << u << ": try_acquire of a free lock";
      if (got == 1) {
        DART_EXPECT_OK(dart_lock_release(lock));
      }
    }
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  }
  // Mixed with blocking acquire: everybody spins on try_acquire until it wins, then
  // increments a counter; exact result.
  dart_gptr_t g = zeroed_ints(DART_TEAM_ALL, 1);
  const int K = 20;
  for (int i = 0; i < K; ++i) {
    if ((i + me) % 2 == 0) {
      int32_t r = 0;
      long tries = 0;
      while (r == 0) {
        if (tries++ > 0) sched_yield();
        if (!expect_ok(dart_lock_try_acquire(lock, &r), "dart_lock_try_acquire")) break;
      }
      if (r == 1) {
        int v = -1;
        DART_EXPECT_OK(dart_get_blocking(&v, at(g, 0, 0), 1, DART_TYPE_INT, DART_TYPE_INT));
        ++v;
        DART_EXPECT_OK(dart_put_blocking(at(g, 0, 0), &v, 1, DART_TYPE_INT, DART_TYPE_INT));
        DART_EXPECT_OK(dart_lock_release(lock));
      }
    } else {
      locked_increment(lock, at(g, 0, 0));
    }
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  int v = -1;
  DART_EXPECT_OK(dart_get_blocking(&v, at(g, 0, 0), 1, DART_TYPE_INT, DART_TYPE_INT));
  EXPECT_EQ(v, K * n);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
  DART_EXPECT_OK(dart_team_lock_destroy(&lock));
}

// 64 locks on one team protect 64 counters (counter c on unit c mod n); every unit takes
// every lock R times, each unit in another order.
TEST(Lock, SixtyFourLocks) {
  const int n = nunits(), me = myid();
  const int L = 64, R = 3;
  std::vector<dart_lock_t> locks(L, DART_LOCK_NULL);
  for (int c = 0; c < L; ++c) DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &locks[c]));
  dart_gptr_t g = zeroed_ints(DART_TEAM_ALL, L);
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < L; ++j) {
      // (2 me + 1) is odd, so j -> (j (2 me + 1) + 7 me + r) mod 64 is a permutation.
      int c = (j * (2 * me + 1) + 7 * me + r) % L;
      if (locks[c] != DART_LOCK_NULL) locked_increment(locks[c], at(g, c % n, c));
    }
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  int bad = 0;
  for (int c = 0; c < L; ++c) {
    int v = -1;
    DART_EXPECT_OK(dart_get_blocking(&v, at(g, c % n, c), 1, DART_TYPE_INT, DART_TYPE_INT));
    if (v != R * n && bad++ < 5)
      ADD_FAILURE() << "counter " << c << " = " << v << ", want " << R * n;
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
  // Destroy in reverse order of creation.
  for (int c = L - 1; c >= 0; --c) DART_EXPECT_OK(dart_team_lock_destroy(&locks[c]));
}

TEST(Lock, BadInputs) {
  const int me = myid();
  int32_t got = -1;
  // NULL / invalid arguments.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_lock_init(DART_TEAM_ALL, nullptr));
  dart_lock_t lock = DART_LOCK_NULL;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_lock_init(DART_TEAM_NULL, &lock));
  EXPECT_EQ(lock, DART_LOCK_NULL);
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_lock_init((dart_team_t)30000, &lock));
  EXPECT_EQ(lock, DART_LOCK_NULL);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_acquire(DART_LOCK_NULL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_release(DART_LOCK_NULL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_try_acquire(DART_LOCK_NULL, &got));
  EXPECT_EQ(got, -1);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_lock_destroy(nullptr));
  DART_EXPECT_OK(dart_team_lock_destroy(&lock));  // DART_LOCK_NULL: accepted, ignored

  DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_try_acquire(lock, nullptr));
  // Release without acquire.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_release(lock));
  // Acquire twice (not recursive); the lock stays held and usable.
  DART_EXPECT_OK(dart_lock_acquire(lock));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_acquire(lock));
  DART_EXPECT_OK(dart_lock_release(lock));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_release(lock));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));

  // Destroy while held by unit 0: DART_ERR_INVAL on every unit (no hang), then fine.
  if (me == 0) {
    DART_EXPECT_OK(dart_lock_acquire(lock));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_lock_destroy(&lock));
  EXPECT_NE(lock, DART_LOCK_NULL) << "handle cleared by a failed destroy";
  EXPECT_TRUE(dart_lock_initialized(lock));
  if (me == 0) {
    DART_EXPECT_OK(dart_lock_release(lock));
  }
  // The lock still works after the failed destroy.
  DART_EXPECT_OK(dart_lock_acquire(lock));
  DART_EXPECT_OK(dart_lock_release(lock));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));

  // Destroy; then the stale copy is refused everywhere (the registry knows it is gone).
  dart_lock_t stale = lock;
  DART_EXPECT_OK(dart_team_lock_destroy(&lock));
  EXPECT_EQ(lock, DART_LOCK_NULL);
  DART_EXPECT_OK(dart_team_lock_destroy(&lock));  // second destroy: NULL handle, ignored
  EXPECT_FALSE(dart_lock_initialized(stale));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_acquire(stale));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_release(stale));
  got = -1;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_lock_try_acquire(stale, &got));
  EXPECT_EQ(got, -1);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_lock_destroy(&stale));
  EXPECT_NE(stale, DART_LOCK_NULL) << "failed destroy cleared the handle";
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));

  // Lock of a destroyed team: DART_ERR_NOTFOUND.
  std::vector<int> all;
  for (int u = 0; u < nunits(); ++u) all.push_back(u);
  dart_team_t team = make_team(all);
  EXPECT_NE(team, DART_TEAM_NULL);
  dart_lock_t tl = DART_LOCK_NULL;
  if (team != DART_TEAM_NULL) {
    DART_EXPECT_OK(dart_team_lock_init(team, &tl));
    DART_EXPECT_OK(dart_lock_acquire(tl));
    DART_EXPECT_OK(dart_lock_release(tl));
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    dart_team_t doomed = team;
    DART_EXPECT_OK(dart_team_destroy(&doomed));
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_lock_acquire(tl));
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_lock_release(tl));
    got = -1;
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_lock_try_acquire(tl, &got));
    EXPECT_EQ(got, -1);
    dart_lock_t tl2 = tl;
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_team_lock_destroy(&tl2));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// User messages with tag 1 (the tag DART 3.2 used for lock hand-overs on the team
// communicator) interleaved with contended lock cycles: no message is lost or swallowed,
// no hand-over goes astray.
TEST(Lock, UserMessagesDuringHandOver) {
  const int n = nunits(), me = myid();
  dart_lock_t lock = DART_LOCK_NULL;
  DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  dart_gptr_t g = zeroed_ints(DART_TEAM_ALL, 1);
  const int K = 30;
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  int bad = 0;
  for (int i = 0; i < K; ++i) {
    locked_increment(lock, at(g, 0, 0));
    // Payloads are never 0 or 1 (hand-over tokens are small ints).
    int out[2] = {1000 + i, 100 + me}, in[2] = {-1, -1};
    // Even units send first, odd units receive first: safe for any ring size without
    // relying on MPI buffering (a standard send to oneself may block: n == 1 uses
    // dart_sendrecv).
    if (n == 1) {
      locked_increment(lock, at(g, 0, 0));
      DART_EXPECT_OK(dart_sendrecv(out, 2, DART_TYPE_INT, 1, DART_GLOBAL_UNIT_ID(right), in, 2,
                                   DART_TYPE_INT, 1, DART_GLOBAL_UNIT_ID(left)));
    } else if (me % 2 == 0) {
      DART_EXPECT_OK(dart_send(out, 2, DART_TYPE_INT, 1, DART_GLOBAL_UNIT_ID(right)));
      locked_increment(lock, at(g, 0, 0));
      DART_EXPECT_OK(dart_recv(in, 2, DART_TYPE_INT, 1, DART_GLOBAL_UNIT_ID(left)));
    } else {
      DART_EXPECT_OK(dart_recv(in, 2, DART_TYPE_INT, 1, DART_GLOBAL_UNIT_ID(left)));
      locked_increment(lock, at(g, 0, 0));
      DART_EXPECT_OK(dart_send(out, 2, DART_TYPE_INT, 1, DART_GLOBAL_UNIT_ID(right)));
    }
    if ((in[0] != 1000 + i || in[1] != 100 + left) && bad++ < 3)
      ADD_FAILURE() << "round " << i << ": got {" << in[0] << ", " << in[1] << "} from unit "
                    << left;
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  int v = -1;
  DART_EXPECT_OK(dart_get_blocking(&v, at(g, 0, 0), 1, DART_TYPE_INT, DART_TYPE_INT));
  EXPECT_EQ(v, 2 * K * n);
  // No stray message with tag 1 is left for this unit.
  MPI_Comm comm;
  dart_team_comm(DART_TEAM_ALL, &comm);
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
  EXPECT_FALSE(flag) << "an unexpected message is pending on the team communicator";
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
  DART_EXPECT_OK(dart_team_lock_destroy(&lock));
}
