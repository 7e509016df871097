/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_synchronization.h -- team-wide mutual exclusion locks.
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible).
 * A lock is a FIFO queue lock (MCS) over MPI-3 atomics: units acquire it in
 * the order their requests reach the queue tail. Locks are not recursive.
 */
#ifndef DART_SYNCHRONIZATION_H_INCLUDED
#define DART_SYNCHRONIZATION_H_INCLUDED

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle of a team lock. */
typedef struct dart_lock_struct * dart_lock_t;

/** The lock handle that refers to no lock. */
#define DART_LOCK_NULL ((dart_lock_t)NULL)

/** Create a lock usable by the members of `teamid` in *lock. Collective
 *  over the team. */
dart_ret_t dart_team_lock_init(
  dart_team_t          teamid,
  dart_lock_t        * lock) DART_NOTHROW;

/** Destroy a lock made by dart_team_lock_init and set *lock to
 *  DART_LOCK_NULL (DART_LOCK_NULL itself is accepted and ignored).
 *  Collective over the lock's team; the lock must not be held. */
dart_ret_t dart_team_lock_destroy(
  dart_lock_t        * lock) DART_NOTHROW;

/** Block until the calling unit holds the lock. Acquiring a lock the unit
 *  already holds is an error (DART_ERR_INVAL). Local call. */
dart_ret_t dart_lock_acquire(
  dart_lock_t          lock) DART_NOTHROW;

/** Take the lock only if it is free right now: *result = 1 if the calling
 *  unit now holds it, else 0. Never blocks. Local call. */
dart_ret_t dart_lock_try_acquire(
  dart_lock_t          lock,
  int32_t            * result) DART_NOTHROW;

/** Release a lock held by the calling unit and hand it to the next waiting
 *  unit, if any. Memory updates made while holding the lock and completed
 *  with dart_flush are visible to the next holder. Local call. */
dart_ret_t dart_lock_release(
  dart_lock_t          lock) DART_NOTHROW;

/** Whether `lock` refers to a live, initialized lock (false for
 *  DART_LOCK_NULL). Local call. */
bool dart_lock_initialized(
  struct dart_lock_struct const * lock) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_SYNCHRONIZATION_H_INCLUDED */
