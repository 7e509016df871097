/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_notify.h -- notified access: a put whose arrival a counter at the target reports,
 * and waits on such counters (a DART-MPI extension in the style of DART 3.2).
 *
 * Counters are 64-bit unsigned words in blocks allocated collectively with
 * dart_notify_alloc; they are touched only by the functions of this header. When the
 * waiting unit sees its counter reach a value, the data of the notified put
 * (dart_put_notify) or of all the notifier's earlier puts (dart_notify) is visible in
 * its memory. This is OpenSHMEM's shmem_put_signal / shmem_signal_wait_until, GASPI's
 * gaspi_write_notify / gaspi_notify_waitsome and Fortran 2018's event post / event wait.
 *
 * Included by dart.h; needs no MPI header. Design and cost: docs/design.md,
 * "Notified access".
 */
#ifndef DART_NOTIFY_H_INCLUDED
#define DART_NOTIFY_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_tables.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How a notification changes the counter (values from DART_NOTIFY_OP_LIST, dart_tables.h):
 *  DART_NOTIFY_SET stores the value, DART_NOTIFY_ADD adds it (atomically with respect to
 *  every other notification and wait on the counter). */
#define DART_X_NOTIFY_OP_(name, value) DART_NOTIFY_##name = value,
typedef enum { DART_NOTIFY_OP_LIST(DART_X_NOTIFY_OP_) } dart_notify_op_t;
#undef DART_X_NOTIFY_OP_

/**
 * Collective over `team`: allocate `n` counters (zeroed uint64_t) on every unit of the
 * team. *base is the first counter of unit 0; the counter i of unit u is *base with
 * dart_gptr_setunit(u) and offset i * 8 (dart_gptr_incaddr). Every unit passes the same n
 * (n > 0). The counters are zero on every unit before any unit returns.
 */
dart_ret_t dart_notify_alloc(dart_team_t team, size_t n, dart_gptr_t *base);

/** Collective: free a counter block of dart_notify_alloc (any counter of it may be
 *  passed). DART_ERR_INVAL for memory that is not a counter block. */
dart_ret_t dart_notify_free(dart_gptr_t base);

/**
 * Put nelem elements from src to dst (as dart_put_blocking), then update `counter` (on
 * any unit) with `value` and `op`. On return the data is complete at the target, the
 * counter update is complete too and src may be reused. A unit that sees the counter
 * change sees the data.
 */
dart_ret_t dart_put_notify(dart_gptr_t dst, const void *src, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_gptr_t counter, uint64_t value, dart_notify_op_t op);

/**
 * dart_put_notify as a handle: the put starts; dart_wait, dart_test, dart_waitall,
 * dart_testall (and their _local forms, which complete such a handle fully) complete
 * the put and then update the counter. dart_handle_free completes it too (the counter
 * update is never lost). Same-node targets complete at once: *handle is
 * DART_HANDLE_NULL.
 */
dart_ret_t dart_put_notify_handle(dart_gptr_t dst, const void *src, size_t nelem,
                                  dart_datatype_t src_type, dart_datatype_t dst_type,
                                  dart_gptr_t counter, uint64_t value, dart_notify_op_t op,
                                  dart_handle_t *handle);

/**
 * Update `counter` with `value` and `op` after all earlier puts of the calling unit (on
 * every segment) are complete at their targets: an event post. Complete on return.
 */
dart_ret_t dart_notify(dart_gptr_t counter, uint64_t value, dart_notify_op_t op);

/**
 * Update `counter` with `value` and `op` as a signal that carries no data: the calling
 * unit's own loads and stores of DART memory made before the call are ordered before the
 * update (a unit that sees the counter change and then reads that memory, by load or by
 * get, sees the stores; a unit that then writes memory the caller read cannot change
 * what it read), but earlier puts are NOT completed (dart_notify does that, at the cost
 * of a flush of every window). "My block is ready to be read", "I am done reading
 * yours", "your ghosts may be written". Complete on return.
 */
dart_ret_t dart_notify_signal(dart_gptr_t counter, uint64_t value, dart_notify_op_t op);

/**
 * Wait until the calling unit's own `counter` is at least until_count, then subtract
 * until_count from it (atomically with respect to concurrent notifications). The data
 * of the notifications counted is then visible. Drives MPI progress while it waits.
 * DART_ERR_INVAL for another unit's counter.
 */
dart_ret_t dart_notify_wait(dart_gptr_t counter, uint64_t until_count);

/** One poll of dart_notify_wait: *flag = 1 (and until_count subtracted) if the calling
 *  unit's counter is at least until_count, else *flag = 0 and the counter is untouched. */
dart_ret_t dart_notify_test(dart_gptr_t counter, uint64_t until_count, int32_t *flag);

/** The current value of a counter (of any unit), read atomically. */
dart_ret_t dart_notify_get(dart_gptr_t counter, uint64_t *value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_NOTIFY_H_INCLUDED */
