/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_initialization.h -- starting and stopping the DART runtime.
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible).
 * Apart from dart_init, dart_init_thread and dart_initialized, no DART call
 * may be made before dart_init or after dart_exit (they return
 * DART_ERR_NOTINIT).
 */
#ifndef DART_INITIALIZATION_H_INCLUDED
#define DART_INITIALIZATION_H_INCLUDED

#include <stdbool.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Start the runtime; collective over all processes of the job.
 * Initializes MPI if nobody has done so yet (otherwise uses the running MPI,
 * e.g. one started by mpi4py or a host code). argc/argv may be NULL.
 * dart_init/dart_exit may be repeated any number of times in one process.
 * Calling it while DART is initialized returns DART_ERR_INVAL.
 */
dart_ret_t dart_init(
  int    * argc,
  char *** argv) DART_NOTHROW;

/**
 * Like dart_init, but also asks for thread support; *thread_safety receives
 * the level actually provided (DART_THREAD_MULTIPLE only if MPI provides
 * MPI_THREAD_MULTIPLE). Collective over all processes of the job.
 */
dart_ret_t dart_init_thread(
  int                         * argc,
  char                      *** argv,
  dart_thread_support_level_t * thread_safety) DART_NOTHROW;

/**
 * Shut the runtime down; collective over all units. Frees every team,
 * segment, lock and handle still alive. Finalizes MPI only if dart_init
 * started it.
 */
dart_ret_t dart_exit(void) DART_NOTHROW;

/** Whether DART is currently initialized (between dart_init and dart_exit).
 *  Local call; may be called at any time. */
bool dart_initialized(void) DART_NOTHROW;

/**
 * Terminate the whole job at once (MPI_Abort) with `errorcode` as exit
 * status, without any cleanup. Local call; never returns.
 */
DART_NORETURN
void dart_abort(int errorcode) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_INITIALIZATION_H_INCLUDED */
