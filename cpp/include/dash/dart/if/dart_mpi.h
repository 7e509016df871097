/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_mpi.h -- DART-MPI extension: bridge between DART teams and MPI communicators.
 * Includes <mpi.h>; include it only from code compiled with the MPI compiler wrappers.
 */
#ifndef DART_MPI_H_INCLUDED
#define DART_MPI_H_INCLUDED

#include <mpi.h>
#include <dash/dart/if/dart.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The communicator of a team (ranks == team-relative unit ids). Owned by DART: do not
 * free it; it is valid until the team is destroyed or dart_exit. Local call.
 * Error handler: MPI_ERRORS_RETURN (DART owns it).
 */
dart_ret_t dart_team_comm(dart_team_t team, MPI_Comm *comm);

/**
 * Collective over `parent` (every unit of it calls): a new team whose units are the
 * processes of `comm`, in the order of their ranks: team unit id == rank in comm, and the
 * team's communicator (dart_team_comm) is congruent with comm (MPI_Comm_compare). A unit
 * outside the new team passes MPI_COMM_NULL and gets DART_TEAM_NULL; disjoint
 * communicators (the colours of one MPI_Comm_split) make one team each in one call.
 * Every process of comm must be a unit of `parent`; an intercommunicator is refused.
 * A bad argument on one unit fails the call on every unit of parent. DART keeps no
 * reference to comm (the team has a communicator of its own).
 */
dart_ret_t dart_team_create_from_comm(dart_team_t parent, MPI_Comm comm, dart_team_t *newteam);

/**
 * The name of an MPI thread level: "single", "funneled", "serialized", "multiple", or
 * "unknown". Needs neither DART nor MPI to be initialized.
 */
const char *dart_mpi_thread_level_name(int mpi_thread_level);

#ifdef __cplusplus
}
#endif

#endif /* DART_MPI_H_INCLUDED */
