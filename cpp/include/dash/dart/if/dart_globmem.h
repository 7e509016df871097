/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_globmem.h -- global pointers and global memory allocation.
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible).
 *
 * A global pointer names one byte in the partitioned global address space:
 * a segment (segid) of a team (teamid), the unit owning that part (unitid,
 * relative to teamid) and a byte offset into that unit's part. It is a plain
 * 16-byte value that may be copied, sent to other units and compared.
 *
 * Two kinds of memory exist:
 *  - local allocations (dart_memalloc): segid DART_SEGMENT_LOCAL, teamid
 *    DART_TEAM_ALL, unitid = global id of the allocating unit; taken from a
 *    per-unit pool whose size is set by the DART_POOL_SIZE environment
 *    variable;
 *  - team allocations (dart_team_memalloc_aligned, dart_team_memregister*):
 *    one segment per call, symmetric over the team, so that every member
 *    computes any member's address locally with dart_gptr_setunit.
 */
#ifndef DART_GLOBMEM_H_INCLUDED
#define DART_GLOBMEM_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_team_group.h>   /* DART_TEAM_NULL */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Global pointer (DART 3.2 layout, 16 bytes):
 *
 *   bytes 0-3   unitid (low 24 bits, signed) | flags (high 8 bits)
 *   bytes 4-5   segid
 *   bytes 6-7   teamid
 *   bytes 8-15  offset (or local address, see addr_or_offs)
 *
 * Language bindings that cannot express bitfields use dart_gptr_fields /
 * dart_gptr_make (dart_ext.h) instead of touching the fields.
 */
typedef struct
{
  /** Owning unit, relative to teamid (24-bit signed; -1 in DART_GPTR_NULL). */
  dart_unit_t  unitid : 24;
  /** Low 8 bits of the segment's flags (see dart_gptr_getflags). */
  unsigned int flags  :  8;
  /** Segment id; DART_SEGMENT_LOCAL for dart_memalloc memory. */
  int16_t      segid;
  /** Team the segment belongs to. */
  dart_team_t  teamid;
  /** Byte offset into the owning unit's part of the segment. */
  union
  {
    uint64_t   offset;
    void     * addr;
  } addr_or_offs;
} dart_gptr_t;

#if defined(__cplusplus)
static_assert(sizeof(dart_gptr_t) == 16, "dart_gptr_t must be 16 bytes");
#elif defined(__STDC_VERSION__) && (__STDC_VERSION__ >= 201112L)
_Static_assert(sizeof(dart_gptr_t) == 16, "dart_gptr_t must be 16 bytes");
#else
typedef char dart__gptr_is_16_bytes[(sizeof(dart_gptr_t) == 16) ? 1 : -1];
#endif

/** The null global pointer (an expression of type dart_gptr_t). */
#ifdef __cplusplus
#define DART_GPTR_NULL (dart_gptr_t { -1, 0, 0, DART_TEAM_NULL, { 0 } })
#else
#define DART_GPTR_NULL                                                     \
  ((dart_gptr_t){ .unitid = -1, .flags = 0, .segid = 0,                    \
                  .teamid = DART_TEAM_NULL, .addr_or_offs = { .offset = 0 } })
#endif

/** Non-zero if gptr_ is the null global pointer. */
#define DART_GPTR_ISNULL(gptr_)                                            \
  ((gptr_).unitid < 0 && (gptr_).segid == 0 &&                             \
   (gptr_).teamid == DART_TEAM_NULL &&                                     \
   (gptr_).addr_or_offs.offset == 0)

/** Non-zero if both global pointers name the same location (the flags
 *  are not compared). */
#define DART_GPTR_EQUAL(gptr1_, gptr2_)                                    \
  (((gptr1_).unitid == (gptr2_).unitid) &&                                 \
   ((gptr1_).segid  == (gptr2_).segid)  &&                                 \
   ((gptr1_).teamid == (gptr2_).teamid) &&                                 \
   ((gptr1_).addr_or_offs.offset == (gptr2_).addr_or_offs.offset))

/** Segment id of memory from dart_memalloc. */
#define DART_SEGMENT_LOCAL ((int16_t)0)

/* ------------------------------------------------------------------------ */
/* Global pointer manipulation (all calls are local)                        */
/* ------------------------------------------------------------------------ */

/**
 * Local address of the memory gptr references. When gptr's unit is not the
 * calling unit, *addr is set to NULL and DART_OK is returned (DART 3.2
 * behaviour); dart_gptr_getaddr_node (dart_ext.h) gives same-node units'
 * addresses. Invalid gptrs (unknown team or segment, unit out of range, offset
 * past the end) are DART_ERR_INVAL / DART_ERR_NOTFOUND. Local.
 */
dart_ret_t dart_gptr_getaddr(
  const dart_gptr_t   gptr,
  void             ** addr) DART_NOTHROW;

/**
 * Make gptr reference the local address `addr`, which must lie inside the
 * calling unit's part of gptr's segment (gptr's segment, team and unit stay
 * as they are). Local.
 */
dart_ret_t dart_gptr_setaddr(
  dart_gptr_t       * gptr,
  void              * addr) DART_NOTHROW;

/** Move gptr by `offs` bytes (may be negative) within its unit's part of the
 *  segment. Inline, local, never fails. */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_incaddr(
  dart_gptr_t       * gptr,
  int64_t             offs)
{
  gptr->addr_or_offs.offset += (uint64_t)offs;
  return DART_OK;
}

/** Let gptr reference the same offset in the part owned by team unit `unit`
 *  (relative to gptr's team). Inline, local, never fails. */
DART_INLINE DART_NOTHROW
dart_ret_t dart_gptr_setunit(
  dart_gptr_t       * gptr,
  dart_team_unit_t    unit)
{
  gptr->unitid = unit.id;
  return DART_OK;
}

/** Read the (16-bit) flags stored for gptr's segment. Local. */
dart_ret_t dart_gptr_getflags(
  dart_gptr_t         gptr,
  uint16_t          * flags) DART_NOTHROW;

/** Store `flags` for gptr's segment; the low 8 bits are also copied into
 *  gptr->flags. Local. */
dart_ret_t dart_gptr_setflags(
  dart_gptr_t       * gptr,
  uint16_t            flags) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Memory allocation                                                        */
/* ------------------------------------------------------------------------ */

/**
 * Allocate nelem elements of dtype in the calling unit's part of the global
 * address space; *gptr references the first byte and may be handed to other
 * units for RMA. Local (not collective). Returns DART_ERR_NOMEM when the
 * per-unit pool (environment variable DART_POOL_SIZE) is exhausted.
 */
dart_ret_t dart_memalloc(
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_gptr_t       * gptr) DART_NOTHROW;

/** Free memory from dart_memalloc; only the allocating unit may free it.
 *  Local. */
dart_ret_t dart_memfree(
  dart_gptr_t         gptr) DART_NOTHROW;

/**
 * Allocate nelem elements of dtype on every member of `teamid` (memory
 * contents undefined). Each member passes its own nelem: the parts may differ
 * in size (0 allowed), and every access is bounded by its target's part
 * (dart_gptr_segment_size tells any unit's). *gptr references the start of
 * team unit 0's part; dart_gptr_setunit/incaddr reach any other element.
 * Collective over the team, all or nothing. Equal sizes cost no more than
 * before (one size per segment); unequal ones one more exchange.
 */
dart_ret_t dart_team_memalloc_aligned(
  dart_team_t         teamid,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_gptr_t       * gptr) DART_NOTHROW;

/** Free a segment from dart_team_memalloc_aligned. Collective over the
 *  segment's team (gptr may point anywhere into the segment). */
dart_ret_t dart_team_memfree(
  dart_gptr_t         gptr) DART_NOTHROW;

/**
 * Expose user memory `addr` (nelem elements of dtype, the same nelem on
 * every member) as a team segment, like dart_team_memalloc_aligned but
 * without allocating. *gptr references team unit 0's part. Collective.
 */
dart_ret_t dart_team_memregister_aligned(
  dart_team_t         teamid,
  size_t              nelem,
  dart_datatype_t     dtype,
  void              * addr,
  dart_gptr_t       * gptr) DART_NOTHROW;

/**
 * Expose user memory `addr` holding nlelem elements of dtype as a team
 * segment; nlelem may differ between members (0 allowed). *gptr references
 * team unit 0's part. Collective over the team (also frees the windows of the
 * team's earlier registrations that every member has deregistered).
 */
dart_ret_t dart_team_memregister(
  dart_team_t         teamid,
  size_t              nlelem,
  dart_datatype_t     dtype,
  void              * addr,
  dart_gptr_t       * gptr) DART_NOTHROW;

/** Withdraw this unit's part of a segment made by dart_team_memregister
 *  (_aligned); the user memory itself is not freed. Local, as in DART 3.2:
 *  units deregister in any order, none waits for another; the segment's
 *  gptrs fail on this unit from now on (DART_ERR_NOTFOUND), and no unit may
 *  access this unit's memory through it any more. Its window goes at the
 *  team's next registration once every member has deregistered it, or with
 *  the team. */
dart_ret_t dart_team_memderegister(
  dart_gptr_t         gptr) DART_NOTHROW;

/* ------------------------------------------------------------------------ */
/* Allocators (DART 3.2): non-collective allocations from a team's pool      */
/* ------------------------------------------------------------------------ */

/** A pool of global memory on every unit of a team, from which each unit
 *  allocates locally (dart_allocator_alloc) what others may access. */
typedef struct dart_allocator_struct * dart_allocator_t;

/** Collective over `team`: a pool of pool_size bytes on every unit (one
 *  collective allocation; pool_size may differ between units). Allocations are
 *  16-byte aligned and first-fit with coalescing (no rounding of the pool to a
 *  power of two). *new_allocator is NULL after a failure. */
dart_ret_t dart_allocator_new(
  size_t             pool_size,
  dart_team_t        team,
  dart_allocator_t * new_allocator) DART_NOTHROW;

/** Local: nelem elements of dtype from this unit's pool; *gptr references
 *  them (this unit's team-relative id) and may be handed to other units.
 *  DART_ERR_NOMEM (and *gptr = DART_GPTR_NULL) when the pool is exhausted. */
dart_ret_t dart_allocator_alloc(
  size_t             nelem,
  dart_datatype_t    dtype,
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator) DART_NOTHROW;

/** Local: free an allocation of this unit from the allocator; *gptr becomes
 *  DART_GPTR_NULL. */
dart_ret_t dart_allocator_free(
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator) DART_NOTHROW;

/** Collective over the allocator's team: free the pool (allocations still
 *  live go with it); *allocator becomes NULL. */
dart_ret_t dart_allocator_destroy(
  dart_allocator_t * allocator) DART_NOTHROW;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_GLOBMEM_H_INCLUDED */
