/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart.h -- the DART interface: include this one header.
 *
 * DART-MPI: an MPI-3 implementation of the DART 3.2 interface of the DASH
 * project. Programs written for DART 3.2 (#include <dash/dart/if/dart.h>)
 * compile unchanged against these headers. Terms in brief:
 *  - unit: one process of the job; ids are 0-based;
 *  - group: a local, sorted set of global unit ids;
 *  - team: a set of units formed collectively from a group, with its own
 *    0-based unit ids; DART_TEAM_ALL holds every unit;
 *  - global pointer: 16-byte reference to memory of any unit (dart_globmem.h).
 * Calls are local unless their documentation says "Collective".
 */
#ifndef DART__DART_H_
#define DART__DART_H_

/* Version of the DART interface implemented (as DART 3.2 defines it). */
#define DART_VERSION_STR     "3.2.0"
#define DART_BUILD_STR       (__DATE__ " " __TIME__)

/* Version of this library (DARTMPI_VERSION_MAJOR/_MINOR/_PATCH, DARTMPI_VERSION_STR),
 * generated from the source tree's VERSION file. DART-MPI extension. */
#include <dash/dart/if/dart_version.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Nothing is declared here directly; every included header carries its own
 * extern "C" block. */
#ifdef __cplusplus
} /* extern "C" */
#endif

/* Same order as DART 3.2's dart.h. */
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_config.h>
#include <dash/dart/if/dart_initialization.h>
#include <dash/dart/if/dart_team_group.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_communication.h>
#include <dash/dart/if/dart_synchronization.h>
/* DART 3.2's locality API (its dart.h leaves it out; DART-MPI includes it here). */
#include <dash/dart/if/dart_locality.h>

/* DART-MPI extensions (error text, gptr accessors, locality queries, notified access,
 * distributed arrays with ghost layers). */
#include <dash/dart/if/dart_ext.h>
#include <dash/dart/if/dart_notify.h>
#include <dash/dart/if/dart_array.h>
#include <dash/dart/if/dart_h5.h>

#endif /* DART__DART_H_ */
