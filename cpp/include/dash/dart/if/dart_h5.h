/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file dart_h5.h
 * HDF5 files of distributed arrays (parallel HDF5 over MPI-IO).
 *
 * A dart_h5_t is an HDF5 file opened by every unit of a team. Arrays are written to and
 * read from datasets of it with collective hyperslab transfers, one hyperslab per unit:
 * the unit's interior block, without ghosts. A dataset's shape is the array's C-order
 * global shape, so h5py's `f["T"][i, j]` is the point a C or Python user wrote as
 * (i, j). Point types: the DART basic types as HDF5 little-endian integers and IEEE
 * floats (long double as the native type), two float/double/long double components as
 * h5py's complex compound {r, i}. Each dimension of a dataset is a netCDF-4 dimension
 * scale ("dim_0", "dim_1", ... unless named), so xarray.open_dataset reads the file.
 *
 * Every call is collective over the file's team; every unit passes the same arguments
 * and gets the same code and message. A build without parallel HDF5 (CMake option
 * DART_ENABLE_HDF5) has these calls too; they fail with DART_ERR_INVAL
 * "built without HDF5".
 *
 * All or nothing: a file opened with "w" is written to a temporary file in the target's
 * folder, which replaces the target at dart_h5_close only if every call on it succeeded
 * (an existing file stays as it was otherwise). With "a" the target is changed in place;
 * a failed call is reported on every unit, and a failed append is undone (the dataset
 * shrinks back to its complete steps), but HDF5 1.10 has no journal: a unit killed while
 * it writes can leave the file unreadable (keep a copy, or write with "w").
 */
#ifndef DART_H5_H_INCLUDED
#define DART_H5_H_INCLUDED

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_array.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An open HDF5 file (opaque). */
typedef struct dart_h5_file *dart_h5_t;
#define DART_H5_NULL ((dart_h5_t)0)

/** The type of a string attribute in dart_h5_set_attr / dart_h5_get_attr. */
#define DART_H5_STRING ((dart_datatype_t)-1)

/** 1 if this build has parallel HDF5 (the calls below work), else 0. Local. */
int dart_h5_available(void);

/**
 * Collective over `team`: open the HDF5 file `path`. mode "w": create (or replace, at
 * close) the file; "a": open an existing file to add datasets, attributes and steps;
 * "r": read only. Refused on every unit: a missing file ("a", "r"), a file that is not
 * HDF5, a missing or unwritable folder ("w"), a mode other than these three.
 */
dart_ret_t dart_h5_open(const char *path, const char *mode, dart_team_t team, dart_h5_t *file);

/**
 * Collective: close the file and set *file to DART_H5_NULL (also when it fails). For
 * "w", the temporary file replaces the target now, unless a call on the file failed:
 * then the temporary file is removed, the target is untouched, and the first failure is
 * returned again.
 */
dart_ret_t dart_h5_close(dart_h5_t *file);

/**
 * Collective: write the array as the new dataset `name` ("T", or "group/T" in an existing
 * group). Refused: a name that exists, a point type HDF5 files of DART cannot hold
 * (components other than 1, or 2 of a floating type).
 */
dart_ret_t dart_array_write_h5(dart_h5_t file, const char *name, dart_array_t array);

/** dart_array_write_h5 with the names of the dataset's dimensions (ndim names, C order;
 *  NULL: "dim_0", "dim_1", ...). A dimension of that name that exists must have the same
 *  extent (it is shared, as in netCDF). */
dart_ret_t dart_array_write_h5_dims(dart_h5_t file, const char *name, dart_array_t array,
                                    const char *const *dims);

/**
 * Collective over spec->team (the file's team): create an array from the dataset `name`
 * and read every unit's interior; ghosts are zero. As dart_array_load: spec->ndim 0 takes
 * the dataset's rank (else it must equal it), spec->shape is ignored, spec->dtype
 * DART_TYPE_UNDEFINED takes the dataset's type (else it must be the same: an integer of
 * the same size and sign, a float of the same size, complex of the same size), any unit
 * count and grid. Refused on every unit: a missing dataset, a type DART cannot hold,
 * and every error of dart_array_create (a shape the grid cannot split, ...).
 */
dart_ret_t dart_array_read_h5(dart_h5_t file, const char *name, const dart_array_spec_t *spec,
                              dart_array_t *array);

/**
 * Collective: append the array as one step of the time series `name`: a dataset of rank
 * ndim + 1 whose leading dimension is unlimited and chunked (one chunk per step). The
 * first call creates it; later calls need the same shape and type. dims: ndim + 1 names
 * (the first for the steps) or NULL ("time", "dim_0", ...), used when it is created.
 */
dart_ret_t dart_array_append_h5(dart_h5_t file, const char *name, dart_array_t array);
dart_ret_t dart_array_append_h5_dims(dart_h5_t file, const char *name, dart_array_t array,
                                     const char *const *dims);

/**
 * Collective: read step `step` of the dataset `name` (index along its leading dimension;
 * negative counts from the end, -1 the last) as an array of rank ndim - 1, as
 * dart_array_read_h5 does. Refused: a step outside the dataset, a dataset of rank 1.
 */
dart_ret_t dart_array_read_h5_step(dart_h5_t file, const char *name, int64_t step,
                                   const dart_array_spec_t *spec, dart_array_t *array);

/** Collective: the number of steps of `name` (its leading extent), its rank, its shape
 *  (rank entries; shape may be NULL) and its point type (NULL to skip). */
dart_ret_t dart_h5_dataset_info(dart_h5_t file, const char *name, int32_t *ndim,
                                int64_t *shape, dart_datatype_t *dtype, int32_t *components);

/**
 * Collective: set the attribute `key` of `object` ("" or "/" for the file, else a dataset
 * or group name), replacing one of the same name. type: a DART basic type with `count`
 * values at `value` (a scalar for count 1, else a 1-d attribute), or DART_H5_STRING with
 * the NUL-terminated text `value` (count is ignored).
 */
dart_ret_t dart_h5_set_attr(dart_h5_t file, const char *object, const char *key,
                            dart_datatype_t type, int64_t count, const void *value);

/** Collective: the type (a DART basic type, or DART_H5_STRING) and count (values, or
 *  bytes of a string without its NUL) of an attribute. Refused: a missing one, a type
 *  DART has no basic type for. */
dart_ret_t dart_h5_attr_info(dart_h5_t file, const char *object, const char *key,
                             dart_datatype_t *type, int64_t *count);

/**
 * Collective: read the attribute `key` of `object` into `value`, which holds `capacity`
 * values of `type` (for DART_H5_STRING: capacity bytes, the text NUL-terminated, so
 * capacity must exceed its length). Numbers convert between the basic types as HDF5
 * converts (C casts); a string read as a number and a number read as a string are
 * refused, as is an attribute of more values than `capacity`. *count (may be NULL): the
 * values (bytes) read.
 */
dart_ret_t dart_h5_get_attr(dart_h5_t file, const char *object, const char *key,
                            dart_datatype_t type, int64_t capacity, void *value,
                            int64_t *count);

/** Collective: the names of the datasets at the file's root, separated by '\n', into buf
 *  (capacity bytes, NUL-terminated; DART_ERR_INVAL when too small). */
dart_ret_t dart_h5_list(dart_h5_t file, char *buf, int64_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_H5_H_INCLUDED */
