/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_config.h -- the runtime's configuration descriptor (DART 3.2).
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible). The
 * configuration DART-MPI reads from its environment is described by
 * dart_config_string() (dart_ext.h).
 */
#ifndef DART__IF__CONFIG_H__
#define DART__IF__CONFIG_H__

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Set *config_out to the process's configuration descriptor (one static object,
 *  valid for the life of the program; callers may change its fields, which
 *  DART-MPI does not read: it writes no log). Any time, also before dart_init. */
void dart_config(
  dart_config_t ** config_out) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__IF__CONFIG_H__ */
