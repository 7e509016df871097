/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_f_shim.c -- the two helpers of the Fortran module that need C.
 *
 * Part of libdartmpi_f. Calls only the public DART API (dart.h, dart_mpi.h) and MPI's C
 * API; the core's internals are never touched. Neither helper keeps state or writes an
 * error message: failures of DART calls are reported through dart_error_detail().
 *
 *  - dartf_team_comm: dart_team_comm + MPI_Comm_c2f, so that Fortran gets the team's
 *    communicator as an mpi_f08 handle without knowing what a C MPI_Comm is (an int in
 *    MPICH, a pointer in Open MPI); dartf_team_create_from_comm the other way round
 *    (MPI_Comm_f2c).
 *  - dartf_descriptor: reads a Fortran array descriptor (ISO_Fortran_binding.h) into the
 *    form of the core's layout engine, dart_type_from_layout (dart_ext.h): extents and
 *    strides in elements, dimension 0 fastest, a complex element as an innermost
 *    dimension of extent 2 and stride 1.
 */
#include <ISO_Fortran_binding.h>

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_mpi.h>

#include <stddef.h>

int dartf_team_comm(dart_team_t team, MPI_Fint *fcomm) {
  MPI_Comm comm = MPI_COMM_NULL;
  dart_ret_t rc = dart_team_comm(team, &comm);
  if (rc == DART_OK) *fcomm = MPI_Comm_c2f(comm);
  return rc;
}

int dartf_team_create_from_comm(dart_team_t parent, MPI_Fint fcomm, dart_team_t *newteam) {
  return dart_team_create_from_comm(parent, MPI_Comm_f2c(fcomm), newteam);
}

/* The results of dartf_descriptor other than a number of dimensions. */
enum {
  DARTF_DESC_ASSUMED_SIZE = -1, /* an assumed-size array: the last extent is unknown */
  DARTF_DESC_MISALIGNED = -2,   /* a byte stride that is no multiple of the element size */
  DARTF_DESC_TOO_MANY = -3      /* more dimensions than `capacity` */
};

/*
 * The array of descriptor d, whose elements are `parts` DART elements each (2 for
 * complex), as the arguments of dart_type_from_layout: *addr = the first element,
 * extents[] and strides[] (in DART elements) of the returned number of dimensions, at most
 * `capacity`. Returns a negative DARTF_DESC_* value for a descriptor that has no such form.
 */
int dartf_descriptor(const CFI_cdesc_t *d, int parts, void **addr, size_t *extents,
                     ptrdiff_t *strides, int capacity) {
  if (parts < 1 || d->elem_len % (size_t)parts != 0) return DARTF_DESC_MISALIGNED;
  const ptrdiff_t elem = (ptrdiff_t)(d->elem_len / (size_t)parts);
  int nd = 0;
  if (parts > 1) {
    if (capacity < 1) return DARTF_DESC_TOO_MANY;
    extents[0] = (size_t)parts;
    strides[0] = 1;
    nd = 1;
  }
  for (int i = 0; i < d->rank; ++i) {
    if (d->dim[i].extent < 0) return DARTF_DESC_ASSUMED_SIZE;
    if (nd >= capacity) return DARTF_DESC_TOO_MANY;
    /* An extent-1 dimension has no meaningful stride (the layout engine drops it). */
    if (d->dim[i].extent > 1 && d->dim[i].sm % elem != 0) return DARTF_DESC_MISALIGNED;
    extents[nd] = (size_t)d->dim[i].extent;
    strides[nd] = d->dim[i].extent > 1 ? d->dim[i].sm / elem : 1;
    ++nd;
  }
  *addr = d->base_addr;
  return nd;
}
