/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_array.h -- distributed N-dimensional arrays with ghost layers (a DART-MPI
 * extension in the style of DART 3.2: every call returns dart_ret_t, and a failed call
 * leaves a detail message in dart_error_detail()).
 *
 * A dart_array_t is a global array of `ndim` (1..DART_ARRAY_MAX_DIMS) dimensions of one
 * DART basic type over a team, block-distributed on a Cartesian process grid. Every unit
 * stores its block contiguously WITH its ghost layers in DART global memory (one
 * collective allocation), so its local part is a plain C-order array and its neighbours
 * address its ghosts and its interior directly. dart_array_update_halo fills every unit's
 * ghosts from its neighbours' interiors, synchronizing with neighbours only.
 *
 * Conventions (the same in every language of DART-MPI):
 *  - Dimensions are listed in C order (the last varies fastest). The Fortran module
 *    reverses every per-dimension list, so that u[i, j] in C and Python is u(j, i) there.
 *  - Indices are global and 0-based; ranges are half-open [lo, hi).
 *  - The team-relative unit at grid coordinates (c0, c1, ..) is
 *    (c0 * procs[1] + c1) * procs[2] + ..  (row-major over the grid).
 *  - A point is `components` consecutive elements of `dtype` (1; 2 for complex numbers).
 *    Extents, strides and indices count points, never elements or bytes.
 *
 * Collective calls (create, destroy, the halo updates, gather, scatter, copy, the
 * reductions, save, load) are made by every unit of the array's team, one thread of each
 * unit at a time and in the same order, as every collective of DART. The halo updates
 * synchronize neighbours only: a unit that never calls an update its neighbours call
 * leaves them waiting, as a missing barrier would. Region get/put and the queries are
 * local calls; several threads may make them at once (DART_THREAD_MULTIPLE).
 *
 * Design and cost: docs/design.md, "Distributed arrays".
 */
#ifndef DART_ARRAY_H_INCLUDED
#define DART_ARRAY_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_globmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The largest number of dimensions of a dart_array_t. */
#define DART_ARRAY_MAX_DIMS 4

/** Boundary of a dimension. NONE: the ghosts beyond the global boundary belong to the
 *  program (boundary conditions) and the library never writes them. PERIODIC: they are
 *  filled from the other end (with one process in the dimension, from the unit itself). */
typedef enum {
  DART_ARRAY_BOUNDARY_NONE = 0,
  DART_ARRAY_BOUNDARY_PERIODIC = 1
} dart_array_boundary_t;

/** Which ghost regions an update fills. STAR: the faces, i.e. the regions that differ
 *  from the block in one dimension only; ghost points of edges and corners are never
 *  written. BOX: all 3^ndim - 1 neighbour regions, edges and corners included. */
typedef enum {
  DART_STENCIL_STAR = 0,
  DART_STENCIL_BOX = 1
} dart_array_stencil_t;

/** How an update moves the ghosts (results are identical; the cost differs).
 *  GET: each unit gets its ghosts from its neighbours' interiors after they signalled
 *  "ready", then signals "done" to them. NOTIFY: each unit signals "free" to the units that
 *  fill its ghosts; they push their faces into them with notified puts (dart_notify.h).
 *  AUTO: the measured default (docs/design.md, "Distributed arrays"). */
typedef enum {
  DART_ARRAY_EXCHANGE_AUTO = 0,
  DART_ARRAY_EXCHANGE_GET = 1,
  DART_ARRAY_EXCHANGE_NOTIFY = 2
} dart_array_exchange_t;

/**
 * What to create. Fill it with dart_array_spec_init, then set the fields. Every unit of
 * the team passes the same spec (except nothing: the team-relative ids follow from it).
 */
typedef struct dart_array_spec {
  dart_datatype_t dtype;     /**< a DART basic type (DART_TYPE_DOUBLE, ...) */
  /** NULL: default blocks (n / p points per block, the first n % p blocks one more).
   *  Else sum(procs) extents: the block extents of grid coordinates 0..procs[0]-1 of
   *  dimension 0, then those of dimension 1, ...; each >= 1, summing to shape[d]. Needs
   *  every procs[d] given. The memory is read during dart_array_create only. */
  const int64_t *blocks;
  int64_t shape[DART_ARRAY_MAX_DIMS];   /**< global extents, C order, each >= 1 */
  int32_t ndim;                         /**< 1..DART_ARRAY_MAX_DIMS */
  int32_t components;                   /**< elements of dtype per point, >= 1 */
  /** Process grid: procs[d] units along dimension d; 0 = chosen. The chosen entries
   *  split what the given ones leave, balanced and non-increasing as MPI_Dims_create:
   *  the prime factors, largest first, each to the chosen entry that is smallest so far. */
  int32_t procs[DART_ARRAY_MAX_DIMS];
  int32_t halo_lo[DART_ARRAY_MAX_DIMS]; /**< ghost width below the block, >= 0 */
  int32_t halo_hi[DART_ARRAY_MAX_DIMS]; /**< ghost width above the block, >= 0 */
  int32_t boundary[DART_ARRAY_MAX_DIMS]; /**< dart_array_boundary_t per dimension */
  int32_t stencil;                      /**< dart_array_stencil_t */
  int32_t exchange;                     /**< dart_array_exchange_t */
  dart_team_t team;                     /**< the team the array is distributed over */
  /** NULL (dart_array_spec_init's), or why this unit's caller refused its own argument
   *  (a binding that cannot translate it: "argument 'halo' must be ..."). The creation
   *  (or load) then fails on every unit of the team, with DART_ERR_INVAL and "refused by
   *  the binding: <reason>" here and naming this unit on the others, so that no unit waits
   *  and no field has to carry an invalid value. Read during the call only. */
  const char *refusal;
} dart_array_spec_t;

/** Everything a unit knows about an array (dart_array_get_info). Per-dimension fields
 *  are valid for d < ndim (and 0 beyond). */
typedef struct dart_array_info {
  dart_datatype_t dtype;
  /** The memory of the whole array: unit 0's block (ghosts included) of one collective
   *  allocation of the team; dart_gptr_setunit gives any unit's block. */
  dart_gptr_t gptr;
  void *local;          /**< this unit's block with ghosts: the point lo - halo_lo */
  int64_t shape[DART_ARRAY_MAX_DIMS];
  int64_t lo[DART_ARRAY_MAX_DIMS];      /**< this unit's block: global [lo, hi) */
  int64_t hi[DART_ARRAY_MAX_DIMS];
  int64_t local_shape[DART_ARRAY_MAX_DIMS]; /**< hi - lo + halo_lo + halo_hi */
  int32_t ndim;
  int32_t components;
  int32_t procs[DART_ARRAY_MAX_DIMS];
  int32_t coords[DART_ARRAY_MAX_DIMS];  /**< this unit's grid coordinates */
  int32_t halo_lo[DART_ARRAY_MAX_DIMS];
  int32_t halo_hi[DART_ARRAY_MAX_DIMS];
  int32_t boundary[DART_ARRAY_MAX_DIMS];
  int32_t stencil;
  int32_t exchange;     /**< the exchange in use: GET or NOTIFY, never AUTO */
  int32_t myid;         /**< this unit's id in the team */
  int32_t nunits;       /**< units in the team (the product of procs) */
  dart_team_t team;
} dart_array_info_t;

/** An array (opaque). DART_ARRAY_NULL is no array. */
typedef struct dart_array_struct *dart_array_t;
#define DART_ARRAY_NULL ((dart_array_t)0)

/** Defaults: ndim 0 (to be set), dtype DART_TYPE_UNDEFINED (to be set), components 1,
 *  team DART_TEAM_ALL, chosen grid and default blocks, no ghosts, boundary NONE, stencil
 *  STAR, exchange AUTO. Local; needs no dart_init. */
dart_ret_t dart_array_spec_init(dart_array_spec_t *spec);

/**
 * The process grid dart_array_create chooses: fills the 0 entries of procs (ndim entries,
 * 1 <= ndim <= DART_ARRAY_MAX_DIMS) for `nunits` units, keeping the given ones, as
 * MPI_Dims_create does (the prime factors of what the given entries leave, largest first,
 * each to the chosen entry that is smallest so far; the chosen entries non-increasing).
 * DART_ERR_INVAL if the given entries do not divide nunits (procs is then untouched).
 * Local; needs no dart_init.
 */
dart_ret_t dart_array_dims_create(int32_t nunits, int32_t ndim, int32_t *procs);

/**
 * Checks a spec on the calling unit alone, as dart_array_create would before it talks to
 * the team: DART_OK, or DART_ERR_INVAL with the reason (or DART_ERR_NOTFOUND for an
 * unknown team). Local. A binding calls it after a failed create to tell "my argument was
 * bad" from "another unit's was".
 */
dart_ret_t dart_array_spec_check(const dart_array_spec_t *spec);

/**
 * Collective over spec->team: create the array. All or nothing: the specs are compared
 * across the team, and a bad or different spec, or a failed allocation, on any unit fails
 * the call on every unit (nothing is left allocated, *array is DART_ARRAY_NULL):
 *  - the unit whose own spec is bad returns DART_ERR_INVAL naming the argument;
 *  - a unit whose spec differs from unit 0's returns DART_ERR_INVAL naming both;
 *  - every other unit returns the same code, its message naming the unit that failed
 *    ("another unit failed: unit U of team T ...").
 * A ghost width larger than the extent of the block that fills that ghost region (a
 * neighbour's; the wrapped one when periodic; the unit's own when it is its own
 * neighbour) is an error. On success every unit's block, ghosts included, is zero.
 */
dart_ret_t dart_array_create(const dart_array_spec_t *spec, dart_array_t *array);

/**
 * Collective: free the array and its memory; *array becomes DART_ARRAY_NULL. An update
 * begun and not ended on this unit is ended first. DART_ERR_INVAL for DART_ARRAY_NULL.
 */
dart_ret_t dart_array_destroy(dart_array_t *array);

/** Collective over src's team: *dst = a new array with src's spec whose every block
 *  (ghosts included) holds a copy of src's, every block copied on return (it ends with a
 *  barrier of the team). All or nothing as dart_array_create. */
dart_ret_t dart_array_copy(dart_array_t src, dart_array_t *dst);

/** Local: fills *info. */
dart_ret_t dart_array_get_info(dart_array_t array, dart_array_info_t *info);

/** Local: this unit's block with ghosts (the point lo - halo_lo, C order, local_shape). */
dart_ret_t dart_array_local(dart_array_t array, void **base);

/** Local: the block [lo, hi) of team unit `unit` (any unit, not only neighbours). */
dart_ret_t dart_array_block(dart_array_t array, int32_t unit, int64_t *lo, int64_t *hi);

/** Local: the team unit that owns global point `index` (ndim indices, 0 <= index < shape). */
dart_ret_t dart_array_owner(dart_array_t array, const int64_t *index, int32_t *unit);

/**
 * Collective, neighbours only: fill this unit's ghosts. On return they hold the
 * neighbours' interior values as of the neighbours' calls, and the unit may write its
 * interior and its ghosts (no neighbour still reads or writes them).
 * = dart_array_update_halo_begin + dart_array_update_halo_end.
 */
dart_ret_t dart_array_update_halo(dart_array_t array);

/**
 * Split phase. Between begin and end the unit may read its interior and must not write
 * it, nor touch its ghosts; after end the same holds as after dart_array_update_halo.
 * Several arrays may have updates in flight at once. A second begin before end, or an
 * end without begin, is DART_ERR_INVAL.
 */
dart_ret_t dart_array_update_halo_begin(dart_array_t array);
dart_ret_t dart_array_update_halo_end(dart_array_t array);

/**
 * Local, one-sided: read (get) or write (put) the global region [lo, hi) (ndim each;
 * 0 <= lo <= hi <= shape) of the owners' interiors, whoever owns it: each owner's part is
 * one strided transfer. buf holds the region in C order with point strides buf_strides
 * (ndim entries, each > 0; NULL: contiguous). Blocking: get returns with the data in buf;
 * put returns with the data complete at the owners (buf may be reused). Concurrent
 * writes by the owners are the program's to order (a barrier, an update).
 */
dart_ret_t dart_array_get(dart_array_t array, const int64_t *lo, const int64_t *hi, void *buf,
                          const int64_t *buf_strides);
dart_ret_t dart_array_put(dart_array_t array, const int64_t *lo, const int64_t *hi,
                          const void *buf, const int64_t *buf_strides);

/**
 * Collective: the whole global array (C order, contiguous, shape points) into buf on team
 * unit root; buf is not touched elsewhere (may be NULL there). Starts and ends with a
 * synchronization of the team, so it reads every unit's interior as of its call.
 */
dart_ret_t dart_array_gather(dart_array_t array, void *buf, int32_t root);

/** Collective: root's buf (the whole array, C order, contiguous) into every unit's
 *  interior; ghosts are not touched. On return every unit's interior holds its part. */
dart_ret_t dart_array_scatter(dart_array_t array, const void *buf, int32_t root);

/* ---- reductions: collective, in a fixed order --------------------------- */

/** The norms of dart_array_norm. */
typedef enum {
  DART_ARRAY_NORM_1 = 1,   /**< the sum of the points' magnitudes */
  DART_ARRAY_NORM_2 = 2,   /**< the root of the sum of their squares */
  DART_ARRAY_NORM_INF = 3  /**< the largest magnitude */
} dart_array_norm_t;

/**
 * Collective over the array's team: the reduction `op` (DART_OP_SUM, DART_OP_MIN or
 * DART_OP_MAX) of the interior points of every unit (never the ghosts), the same bits on
 * every unit.
 *
 * A point of `components` elements gives `components` results, one per component (a
 * complex number, a floating type with 2 components, gives its sum (re, im)). The result
 * type (dart_array_reduce_type tells it):
 *  - DART_OP_SUM: int64_t for DART_TYPE_BYTE, SHORT, INT, LONG and LONGLONG (two's
 *    complement wrap-around, as NumPy's int64); uint64_t for UINT, ULONG and ULONGLONG
 *    (modulo 2^64); float for FLOAT (accumulated in double, rounded once at the end);
 *    double for DOUBLE; long double for LONG_DOUBLE.
 *  - DART_OP_MIN, DART_OP_MAX: the element type; a NaN anywhere gives NaN (the first met
 *    in the order below), as NumPy's min and max. Refused for complex numbers (no order).
 *
 * The order is fixed, so the result does not depend on MPI's reduction order and is the
 * same in every language for the same array and unit count: each unit reduces its
 * block's interior in C index order (the last index fastest; the components of a point
 * separately), starting from its first value, into a partial of the accumulator type
 * (uint64_t bits for the integers, double for FLOAT, the element type otherwise); the
 * partials are all-gathered over the team; every unit combines them in team-unit order
 * (0, 1, ...) and rounds once to the result type.
 *
 * `result` receives `components` values of the result type, written only on success.
 * DART_ERR_INVAL for DART_ARRAY_NULL (at once: no team to tell), a NULL result, another
 * operation, MIN or MAX of complex numbers; a unit with a bad argument still takes part
 * in the call's one exchange, so that every unit fails (the others with "another unit
 * failed: unit U ..."), as when units pass different operations. Reads this unit's
 * interior as of the call: order it after other units' puts into it (a barrier).
 */
dart_ret_t dart_array_reduce(dart_array_t array, dart_operation_t op, void *result);

/**
 * Local: the type and number of the values dart_array_reduce writes for `op`:
 * DART_TYPE_LONGLONG (int64_t), DART_TYPE_ULONGLONG (uint64_t) or the array's type, and
 * the array's components. The same refusals as dart_array_reduce. dart_array_dot writes
 * the type of DART_OP_SUM, one value (two for complex numbers); dart_array_norm one
 * double.
 */
dart_ret_t dart_array_reduce_type(dart_array_t array, dart_operation_t op,
                                  dart_datatype_t *type, int32_t *count);

/**
 * Collective over the array's team: a norm of the interior points, as one double on
 * every unit (the same bits), computed in double. A point's magnitude is |x| for one
 * component, |z| = hypot(re, im) for a complex number, the Euclidean length
 * sqrt(x_0^2 + x_1^2 + ...) for other points of several components (a vector field).
 * NORM_1: the sum of the magnitudes; NORM_2: the square root of the sum of the squared
 * magnitudes (x^2, re^2 + im^2, x_0^2 + x_1^2 + ...; no scaling: a sum beyond the range
 * of double overflows to inf, as NumPy's norm does); NORM_INF: the largest magnitude.
 * NaN propagates. The order and the errors are those of dart_array_reduce (an unknown
 * kind is DART_ERR_INVAL).
 */
dart_ret_t dart_array_norm(dart_array_t array, dart_array_norm_t kind, double *result);

/**
 * Collective over a's team: the dot product of two arrays of one distribution (a and b
 * may be the same array), the same bits on every unit. Complex numbers: the sum of
 * conj(a_i) * b_i, two values (re, im), as numpy.vdot, BLAS's dotc and Fortran's
 * dot_product; each point's product is (ar*br + ai*bi, ar*bi - ai*br), then added. Other
 * points: the sum over the points and their components of a * b, one value. The result
 * type, the accumulation and the order are those of DART_OP_SUM (dart_array_reduce);
 * the products are formed in the accumulator type (a float's in double, exactly).
 *
 * One distribution: the same team, number of dimensions, shape, point type (dtype and
 * components), process grid and every unit's block (the ghost widths, boundaries,
 * stencil and exchange may differ). Otherwise DART_ERR_INVAL naming what differs, on
 * every unit alike (every unit knows both distributions). The other errors are those of
 * dart_array_reduce (b DART_ARRAY_NULL is DART_ERR_INVAL).
 */
dart_ret_t dart_array_dot(dart_array_t a, dart_array_t b, void *result);

/* ---- files: NumPy .npy, collective, MPI-IO ----------------------------- */

/**
 * Collective: write the whole array to `path` as one NumPy .npy file (format 1.0, or 2.0
 * when the header needs it; C order; the little-endian descr of the dtype, complex for
 * two float/double/long double components; shape = the global shape). Every unit writes
 * its own interior with one collective MPI-IO write through a subarray view; no unit
 * holds more than its block. The bytes are those of np.save of the gathered array
 * (header padding included), whatever the number of units, grid, ghosts or exchange.
 * All or nothing: the data goes to a temporary file in path's folder, which replaces
 * `path` (rename) only after every unit's write succeeded and the file was synced; on
 * any failure the temporary file is removed, an existing `path` is untouched, and every
 * unit returns the same code and message. Every unit passes the same path.
 * DART_ERR_INVAL for a point type .npy cannot describe (components other than 1, or 2
 * of a floating type) or a big-endian host.
 */
dart_ret_t dart_array_save(dart_array_t array, const char *path);

/**
 * Collective over spec->team: create an array from the .npy file `path` and read every
 * unit's interior with one collective MPI-IO read; the ghosts are zero (as after
 * dart_array_create: call dart_array_update_halo to fill them). The decomposition is
 * spec's (any number of units, any grid, blocks, ghosts, boundary, stencil, exchange);
 * the shape and the point type are the file's: spec->ndim 0 takes the file's (else it
 * must equal it; the per-dimension fields are read for the file's dimensions),
 * spec->shape is ignored, spec->dtype DART_TYPE_UNDEFINED takes the file's, else its
 * .npy descr must be the file's (DART_TYPE_LONG and _LONGLONG are both '<i8').
 * Refused on every unit with the same message, before anything is created: not a .npy
 * file, a truncated file, a dtype DART cannot hold or that differs from spec->dtype,
 * fortran_order True, ndim outside 1..DART_ARRAY_MAX_DIMS, an extent 0, and every
 * error of dart_array_create (a shape the grid cannot split, ...).
 */
dart_ret_t dart_array_load(const char *path, const dart_array_spec_t *spec,
                           dart_array_t *array);

/**
 * Local: what the .npy file `path` holds, from its header: ndim, shape (ndim entries of
 * DART_ARRAY_MAX_DIMS), the DART type and components per point (any output may be NULL).
 * The same refusals as dart_array_load (DART_ERR_INVAL with the reason; DART_ERR_OTHER
 * when the file cannot be read).
 */
dart_ret_t dart_array_file_info(const char *path, int32_t *ndim, int64_t *shape,
                                dart_datatype_t *dtype, int32_t *components);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_ARRAY_H_INCLUDED */
