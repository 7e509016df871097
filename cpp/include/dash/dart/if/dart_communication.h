/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_communication.h -- one-sided (RMA), atomic, collective and two-sided
 * communication.
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible).
 *
 * Completion terms used below:
 *  - local completion: the local buffer may be reused (put, accumulate) or
 *    holds the data (get);
 *  - remote completion: the data has arrived at the target and is visible
 *    to every unit that reads it afterwards (by RMA or, on the owner, by a
 *    load after a barrier or other synchronization).
 *
 * Transfers take a source and a destination data type; they must have the
 * same basic type, and nelem counts elements of the basic type (a strided or
 * indexed type on one side scatters/gathers them). No value conversion is
 * performed.
 */
#ifndef DART__COMMUNICATION_H_
#define DART__COMMUNICATION_H_

#include <stddef.h>
#include <stdint.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_globmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Collective operations: every member of `team` must call them, in the     */
/* same order. Roots are team-relative unit ids.                            */
/* ------------------------------------------------------------------------ */

/** Block until every member of `team` has entered the barrier.
 *  Collective. */
dart_ret_t dart_barrier(
  dart_team_t          team) DART_NOTHROW;

/** Copy nelem elements of dtype from `buf` on unit `root` into `buf` on
 *  every other member. Collective. */
dart_ret_t dart_bcast(
  void               * buf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

/** Unit `root` sends block i (nelem elements) of sendbuf to team unit i,
 *  which receives it in recvbuf. Collective. */
dart_ret_t dart_scatter(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

/** Every member sends nelem elements; unit `root` receives them in recvbuf
 *  in team-unit order. Collective. */
dart_ret_t dart_gather(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

/** Like dart_gather, but every member receives the result. Collective. */
dart_ret_t dart_allgather(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_t          team) DART_NOTHROW;

/**
 * Every member sends nsendelem elements; every member receives the
 * contribution of team unit i (nrecvelem[i] elements) at element offset
 * recvdispls[i] of recvbuf. Collective.
 */
dart_ret_t dart_allgatherv(
  const void         * sendbuf,
  size_t               nsendelem,
  dart_datatype_t      dtype,
  void               * recvbuf,
  const size_t       * nrecvelem,
  const size_t       * recvdispls,
  dart_team_t          teamid) DART_NOTHROW;

/** Combine the nelem-element sendbufs of all members element-wise with `op`;
 *  every member receives the result in recvbuf. Collective. */
dart_ret_t dart_allreduce(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_operation_t     op,
  dart_team_t          team) DART_NOTHROW;

/** Like dart_allreduce, but only unit `root` receives the result.
 *  Collective. */
dart_ret_t dart_reduce(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_operation_t     op,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

/** Block i (nelem elements) of every member's sendbuf goes to team unit i,
 *  which stores the block from unit j at block j of recvbuf. Collective. */
dart_ret_t dart_alltoall(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_t          team) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Atomic operations (local calls; atomic with respect to other atomic      */
/* operations on the same element with the same basic type)                 */
/* ------------------------------------------------------------------------ */

/**
 * Atomically combine the nelem elements at gptr with `values` using `op`
 * (target = target op value). Returns at once: `values` may be reused, and
 * the update is visible at the target, only after dart_flush / dart_flush_all
 * (dart_flush_local / _local_all suffice for reusing `values`). Local call.
 */
dart_ret_t dart_accumulate(
  dart_gptr_t          gptr,
  const void         * values,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_operation_t     op) DART_NOTHROW;

/**
 * Like dart_accumulate, but returns only when `values` may be reused (local
 * completion). The update is visible at the target after dart_flush /
 * dart_flush_all. Local call.
 */
dart_ret_t dart_accumulate_blocking_local(
  dart_gptr_t          gptr,
  const void         * values,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_operation_t     op) DART_NOTHROW;

/**
 * Atomically fetch the single element at gptr into *result and replace it
 * by (element op *value); DART_OP_NO_OP reads atomically. Blocking: on
 * return *result is valid, *value may be reused and the update is complete
 * at the target. Local call.
 */
dart_ret_t dart_fetch_and_op(
  dart_gptr_t          gptr,
  const void         * value,
  void               * result,
  dart_datatype_t      dtype,
  dart_operation_t     op) DART_NOTHROW;

/**
 * Atomically: if the single element at gptr equals *compare, replace it by
 * *value. *result receives the element's previous value (so the swap
 * happened iff *result == *compare). Integral types only. Blocking: on
 * return *result is valid and the update is complete at the target.
 * Local call.
 */
dart_ret_t dart_compare_and_swap(
  dart_gptr_t          gptr,
  const void         * value,
  const void         * compare,
  void               * result,
  dart_datatype_t      dtype) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Non-blocking one-sided transfers, completed by a flush (local calls)     */
/* ------------------------------------------------------------------------ */

/**
 * Start copying nelem elements from global memory `gptr` into `dest`.
 * Returns at once; `dest` holds the data only after dart_flush,
 * dart_flush_all, dart_flush_local or dart_flush_local_all on gptr's segment
 * (and the target unit). Local call.
 */
dart_ret_t dart_get(
  void               * dest,
  dart_gptr_t          gptr,
  size_t               nelem,
  dart_datatype_t      src_type,
  dart_datatype_t      dst_type) DART_NOTHROW;

/**
 * Start copying nelem elements from `src` to global memory `gptr`.
 * Returns at once: `src` may be reused after dart_flush_local(_all) or
 * dart_flush(_all); the data is visible at the target after dart_flush or
 * dart_flush_all. Local call.
 */
dart_ret_t dart_put(
  dart_gptr_t          gptr,
  const void         * src,
  size_t               nelem,
  dart_datatype_t      src_type,
  dart_datatype_t      dst_type) DART_NOTHROW;

/** Complete (locally and remotely) every pending put, get and accumulate of
 *  the calling unit on gptr's segment towards gptr's unit. Local call. */
dart_ret_t dart_flush(
  dart_gptr_t          gptr) DART_NOTHROW;

/** Like dart_flush, towards every unit of gptr's segment. Local call. */
dart_ret_t dart_flush_all(
  dart_gptr_t          gptr) DART_NOTHROW;

/** Complete locally (buffers reusable / filled, no visibility guarantee at
 *  the target) the calling unit's pending operations on gptr's segment
 *  towards gptr's unit. Local call. */
dart_ret_t dart_flush_local(
  dart_gptr_t          gptr) DART_NOTHROW;

/** Like dart_flush_local, towards every unit of gptr's segment.
 *  Local call. */
dart_ret_t dart_flush_local_all(
  dart_gptr_t          gptr) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Non-blocking one-sided transfers with handles (local calls)              */
/* ------------------------------------------------------------------------ */

/** Handle of one operation started by dart_get_handle / dart_put_handle. */
typedef struct dart_handle_struct * dart_handle_t;

/** The handle of no (or an already completed) operation. */
#define DART_HANDLE_NULL ((dart_handle_t)NULL)

/**
 * Start copying nelem elements from `gptr` into `dest`; *handle tracks the
 * transfer. `dest` holds the data once dart_wait(_local) / dart_waitall(_local)
 * returned or dart_test(_local) / dart_testall(_local) reported completion
 * (a flush on the segment completes it too). Local call.
 */
dart_ret_t dart_get_handle(
  void               * dest,
  dart_gptr_t          gptr,
  size_t               nelem,
  dart_datatype_t      src_type,
  dart_datatype_t      dst_type,
  dart_handle_t      * handle) DART_NOTHROW;

/**
 * Start copying nelem elements from `src` to `gptr`; *handle tracks the
 * transfer. `src` may be reused after dart_wait_local / dart_test_local (or
 * their _all forms) report completion; the data is visible at the target
 * after dart_wait / dart_waitall / successful dart_test / dart_testall (or a
 * dart_flush on the segment). Local call.
 */
dart_ret_t dart_put_handle(
  dart_gptr_t          gptr,
  const void         * src,
  size_t               nelem,
  dart_datatype_t      src_type,
  dart_datatype_t      dst_type,
  dart_handle_t      * handle) DART_NOTHROW;

/** Block until the operation of *handle is complete locally and remotely,
 *  release the handle and set *handle to DART_HANDLE_NULL (a null handle
 *  returns at once). Local call. */
dart_ret_t dart_wait(
  dart_handle_t      * handle) DART_NOTHROW;

/** dart_wait for handles[0 .. n-1]; every handle is set to
 *  DART_HANDLE_NULL. Local call. */
dart_ret_t dart_waitall(
  dart_handle_t        handles[],
  size_t               n) DART_NOTHROW;

/** Block until the operation of *handle is complete locally (put: buffer
 *  reusable; get: data arrived); then release the handle and set *handle to
 *  DART_HANDLE_NULL. A put still needs a dart_flush to be visible at the
 *  target. Local call. */
dart_ret_t dart_wait_local(
  dart_handle_t      * handle) DART_NOTHROW;

/** dart_wait_local for handles[0 .. n-1]. Local call. */
dart_ret_t dart_waitall_local(
  dart_handle_t        handles[],
  size_t               n) DART_NOTHROW;

/** Non-blocking check for local completion: *result = 1 if complete (handle
 *  released, *handle = DART_HANDLE_NULL), else 0. Local call. */
dart_ret_t dart_test_local(
  dart_handle_t      * handle,
  int32_t            * result) DART_NOTHROW;

/** Non-blocking check for local and remote completion: *is_finished = 1 if
 *  complete (handle released, *handle = DART_HANDLE_NULL), else 0.
 *  Local call. */
dart_ret_t dart_test(
  dart_handle_t      * handleptr,
  int32_t            * is_finished) DART_NOTHROW;

/** dart_test_local for handles[0 .. n-1]: *result = 1 only if all are
 *  complete (then all are released). Local call. */
dart_ret_t dart_testall_local(
  dart_handle_t        handles[],
  size_t               n,
  int32_t            * result) DART_NOTHROW;

/** dart_test for handles[0 .. n-1]: *is_finished = 1 only if all are
 *  complete (then all are released). Local call. */
dart_ret_t dart_testall(
  dart_handle_t        handles[],
  size_t               n,
  int32_t            * is_finished) DART_NOTHROW;

/** Release *handle without waiting and set it to DART_HANDLE_NULL; the
 *  operation still completes, at the latest with the next dart_flush on its
 *  segment. Local call. */
dart_ret_t dart_handle_free(
  dart_handle_t      * handle) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Blocking one-sided transfers (local calls)                               */
/* ------------------------------------------------------------------------ */

/** Copy nelem elements from `gptr` into `dest`; returns when `dest` holds
 *  the data. Local call. */
dart_ret_t dart_get_blocking(
  void               * dest,
  dart_gptr_t          gptr,
  size_t               nelem,
  dart_datatype_t      src_type,
  dart_datatype_t      dst_type) DART_NOTHROW;

/** Copy nelem elements from `src` to `gptr`; returns when `src` may be
 *  reused and the data is visible at the target (remote completion).
 *  Local call. */
dart_ret_t dart_put_blocking(
  dart_gptr_t          gptr,
  const void         * src,
  size_t               nelem,
  dart_datatype_t      src_type,
  dart_datatype_t      dst_type) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Blocking two-sided communication (unit ids are global)                   */
/* ------------------------------------------------------------------------ */

/** Send nelem elements of dtype to global unit `unit` with message `tag`;
 *  returns when sendbuf may be reused. Pairs with dart_recv. */
dart_ret_t dart_send(
  const void         * sendbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/** Receive nelem elements of dtype with message `tag` from global unit
 *  `unit`; returns when recvbuf holds them. Pairs with dart_send. */
dart_ret_t dart_recv(
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/** Send to `dest` and receive from `src` in one call, without deadlock
 *  among units exchanging with each other; returns when both are done. */
dart_ret_t dart_sendrecv(
  const void         * sendbuf,
  size_t               send_nelem,
  dart_datatype_t      send_dtype,
  int                  send_tag,
  dart_global_unit_t   dest,
  void               * recvbuf,
  size_t               recv_nelem,
  dart_datatype_t      recv_dtype,
  int                  recv_tag,
  dart_global_unit_t   src) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__COMMUNICATION_H_ */
