/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_ext.h -- DART-MPI extensions to the DART 3.2 interface.
 *
 * Nothing here changes the meaning of a DART 3.2 function; every symbol is new.
 * Included by dart.h; needs no MPI header (see dart_mpi.h for the MPI bridge).
 */
#ifndef DART_EXT_H_INCLUDED
#define DART_EXT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_tables.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---------------------------------------------------------- */

/** Short, static description of a return code ("invalid argument", ...). Never NULL. */
const char *dart_strerror(dart_ret_t ret);

/**
 * The detail message of the most recent failed DART call on the calling thread
 * (names the function, the bad argument and, for MPI failures, the MPI error text).
 * Empty string if no call has failed on this thread yet. Never NULL; valid until the
 * next DART call on this thread.
 */
const char *dart_error_detail(void);

/**
 * The errno behind the most recent failed DART call on the calling thread when the file
 * system refused it (ENOENT, EACCES, EISDIR, ENOSPC, EFBIG, ...: the array files), else 0.
 * A collective call that failed on another unit for such a reason gives that unit's errno
 * on every unit (its message names the unit). Local call.
 */
int dart_error_errno(void);

/* ---- global pointer fields without bitfields (for bindings) ---------- */

/**
 * Read all fields of a global pointer. Any output may be NULL (not wanted).
 * unitid is sign-extended from its 24 bits; flags is the 8-bit gptr copy.
 */
dart_ret_t dart_gptr_fields(const dart_gptr_t *gptr, int32_t *unitid, int32_t *flags,
                            int16_t *segid, int16_t *teamid, uint64_t *offset);

/** Build a global pointer from its fields. DART_ERR_INVAL if unitid does not fit in 24 bits
 *  or flags not in 8 bits. */
dart_ret_t dart_gptr_make(int32_t unitid, int32_t flags, int16_t segid, int16_t teamid,
                          uint64_t offset, dart_gptr_t *gptr);

/**
 * Direct load/store address of the memory a global pointer references, for the calling
 * unit AND for every unit on the same node (through the MPI-3 shared-memory window).
 * DART_ERR_INVAL (with a detail message) if the target unit is on another node or the
 * segment is not shared-memory capable (registered memory); *addr is then untouched.
 * dart_gptr_getaddr keeps its DART 3.2 meaning (only the calling unit's own memory).
 */
dart_ret_t dart_gptr_getaddr_node(dart_gptr_t gptr, void **addr);

/** Number of bytes the segment of gptr holds at gptr's unit (registered memory may differ
 *  per unit). */
dart_ret_t dart_gptr_segment_size(dart_gptr_t gptr, size_t *nbytes);

/* ---- array layouts as datatypes ------------------------------------- */

/**
 * The DART datatype of an N-dimensional array layout: the elements of
 * extents[0] x ... x extents[ndim-1] of the basic type `elem`, dimension 0 varying
 * fastest (Fortran order; a C-order caller passes its shape and strides reversed), element
 * (i0, i1, ...) at element offset i0*strides[0] + i1*strides[1] + ... from the first one.
 * Strides are in elements of `elem` (a complex number is two elements: pass an innermost
 * dimension of extent 2 and stride 1).
 *
 * Dimensions of extent 1 are dropped and dimensions that continue each other are merged,
 * so the result is the simplest description: `elem` itself for contiguous memory, one
 * strided type when the elements form equal blocks at a uniform stride (a halo column, a
 * face of a 3D block), an indexed type otherwise (a 3D sub-block). *nelem receives the
 * number of `elem` elements (the nelem argument of the transfer).
 *
 * The type belongs to the core, which caches it (keyed by the collapsed layout, so a halo
 * exchange builds its types once): use it for transfers, then hand it back with
 * dart_type_layout_release. A cached type is never freed while a caller holds it; when
 * every cache slot is held, the call builds an uncached type that the release frees
 * (operations already started with it complete normally). A layout that no DART datatype
 * describes (zero or negative strides, elements whose memory order does not follow the
 * index order, offsets that do not fit MPI's int) is DART_ERR_INVAL with the reason in
 * dart_error_detail(). Thread-safe; local call.
 */
dart_ret_t dart_type_from_layout(dart_datatype_t elem, int ndim, const size_t *extents,
                                 const ptrdiff_t *strides, dart_datatype_t *type,
                                 size_t *nelem);

/** Hand back a type from dart_type_from_layout. A basic type is a no-op. */
dart_ret_t dart_type_layout_release(dart_datatype_t type);

/** Entries in the layout cache and how many of them a caller holds now (for tests). */
dart_ret_t dart_type_layout_cache_stats(size_t *entries, size_t *held);

/* ---- locality -------------------------------------------------------- */

/** Number of nodes the runtime sees (with DART_UNITS_PER_NODE node emulation applied). */
dart_ret_t dart_node_count(size_t *nnodes);

/** Node index (0..nnodes-1, ordered by the lowest unit of each node) of a global unit. */
dart_ret_t dart_unit_node(dart_global_unit_t unit, int32_t *node);

/** Progress processes per node (DART_PROGRESS_PER_NODE) of this run; 0 when none run. */
dart_ret_t dart_progress_per_node(int32_t *k);

/** DART_UNITS_PER_NODE emulation factor in force, 0 when emulation is off. */
dart_ret_t dart_units_per_node_emulation(int32_t *k);

/**
 * Describe the runtime configuration in one line: MPI library, thread level, window
 * kinds, pool size. The string is static and valid until dart_exit.
 */
const char *dart_config_string(void);

/**
 * The workarounds for defects of the MPI library in use that are in force, one line each:
 * "name (MPI versions it applies to): what DART does instead". Empty before dart_init.
 * Valid until dart_exit.
 */
const char *dart_mpi_quirks(void);

/* ---- version --------------------------------------------------------- */

/** Version of this library as "major.minor.patch". */
const char *dart_mpi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* DART_EXT_H_INCLUDED */
