/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ftest_constants_c.c -- the C side of ftest_constants: the values of the named constants
 * as the C headers define them (the #defines and enums of dart_types.h,
 * dart_team_group.h and dart_array.h, never the generated Fortran file), found by name.
 *
 * The entries of the lists of dart_tables.h are also reachable by position, so that the
 * Fortran test, which expands the same lists, can ask for the name of its n-th entry; and
 * the offsets and sizes of the fields of the structs of dart_array.h, which the module
 * mirrors.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_tables.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  const char *name;
  int64_t offset, size;
} field_t;

#define FIELD(type, f) {#f, (int64_t)offsetof(type, f), (int64_t)sizeof(((type *)0)->f)}

/* The structs of dart_array.h that the Fortran module mirrors with bind(C) types
 * (dart_c_binding.F90): entry 0 is the struct (its size), then every field in order. */
static const field_t array_spec_fields[] = {
    {"dart_array_spec_t", 0, (int64_t)sizeof(dart_array_spec_t)},
    FIELD(dart_array_spec_t, dtype),
    FIELD(dart_array_spec_t, blocks),
    FIELD(dart_array_spec_t, shape),
    FIELD(dart_array_spec_t, ndim),
    FIELD(dart_array_spec_t, components),
    FIELD(dart_array_spec_t, procs),
    FIELD(dart_array_spec_t, halo_lo),
    FIELD(dart_array_spec_t, halo_hi),
    FIELD(dart_array_spec_t, boundary),
    FIELD(dart_array_spec_t, stencil),
    FIELD(dart_array_spec_t, exchange),
    FIELD(dart_array_spec_t, team),
};
static const field_t array_info_fields[] = {
    {"dart_array_info_t", 0, (int64_t)sizeof(dart_array_info_t)},
    FIELD(dart_array_info_t, dtype),
    FIELD(dart_array_info_t, gptr),
    FIELD(dart_array_info_t, local),
    FIELD(dart_array_info_t, shape),
    FIELD(dart_array_info_t, lo),
    FIELD(dart_array_info_t, hi),
    FIELD(dart_array_info_t, local_shape),
    FIELD(dart_array_info_t, ndim),
    FIELD(dart_array_info_t, components),
    FIELD(dart_array_info_t, procs),
    FIELD(dart_array_info_t, coords),
    FIELD(dart_array_info_t, halo_lo),
    FIELD(dart_array_info_t, halo_hi),
    FIELD(dart_array_info_t, boundary),
    FIELD(dart_array_info_t, stencil),
    FIELD(dart_array_info_t, exchange),
    FIELD(dart_array_info_t, myid),
    FIELD(dart_array_info_t, nunits),
    FIELD(dart_array_info_t, team),
};

typedef struct {
  const char *name;
  int64_t value;
  int64_t size; /* basic types: sizeof the C type; 0 otherwise */
  int integer;  /* basic types: the integer column */
} named_t;

#define FTESTC_TYPE(n, ctype, mpi, mpi_op, isint, npchar, fkind, ftype) \
  {"DART_TYPE_" #n, (int64_t)DART_TYPE_##n, (int64_t)sizeof(ctype), isint},
#define FTESTC_OP(n, mpi_op, flags) {"DART_OP_" #n, (int64_t)DART_OP_##n, 0, 0},
#define FTESTC_CODE(n, value) {"DART_" #n, (int64_t)DART_##n, 0, 0},

static const named_t types[] = {DART_BASIC_TYPE_LIST(FTESTC_TYPE)};
static const named_t ops[] = {DART_OPERATION_LIST(FTESTC_OP)};
static const named_t codes[] = {DART_RETURN_CODE_LIST(FTESTC_CODE)};

/* The constants that are not list entries. */
static const named_t others[] = {
    {"DART_TYPE_UNDEFINED", (int64_t)DART_TYPE_UNDEFINED, 0, 0},
    {"DART_TYPE_LAST", (int64_t)DART_TYPE_LAST, 0, 0},
    {"DART_TYPE_SIZET", (int64_t)DART_TYPE_SIZET, 0, 0},
    {"DART_OP_UNDEFINED", (int64_t)DART_OP_UNDEFINED, 0, 0},
    {"DART_OP_LAST", (int64_t)DART_OP_LAST, 0, 0},
    {"DART_OP_MINMAX_MIN", (int64_t)DART_OP_MINMAX_MIN, 0, 0},
    {"DART_OP_MINMAX_MAX", (int64_t)DART_OP_MINMAX_MAX, 0, 0},
    {"DART_EXIT_SUCCESS", (int64_t)DART_EXIT_SUCCESS, 0, 0},
    {"DART_EXIT_ABORT", (int64_t)DART_EXIT_ABORT, 0, 0},
    {"DART_EXIT_ASSERT", (int64_t)DART_EXIT_ASSERT, 0, 0},
    {"DART_THREAD_SINGLE", (int64_t)DART_THREAD_SINGLE, 0, 0},
    {"DART_THREAD_MULTIPLE", (int64_t)DART_THREAD_MULTIPLE, 0, 0},
    {"DART_NOTIFY_SET", (int64_t)DART_NOTIFY_SET, 0, 0},
    {"DART_NOTIFY_ADD", (int64_t)DART_NOTIFY_ADD, 0, 0},
    {"DART_TEAM_ALL", (int64_t)DART_TEAM_ALL, 0, 0},
    {"DART_TEAM_NULL", (int64_t)DART_TEAM_NULL, 0, 0},
    {"DART_UNDEFINED_TEAM_ID", (int64_t)DART_UNDEFINED_TEAM_ID, 0, 0},
    {"DART_UNDEFINED_UNIT_ID", (int64_t)DART_UNDEFINED_UNIT_ID, 0, 0},
    {"DART_ARRAY_MAX_DIMS", (int64_t)DART_ARRAY_MAX_DIMS, 0, 0},
    {"DART_STENCIL_STAR", (int64_t)DART_STENCIL_STAR, 0, 0},
    {"DART_STENCIL_BOX", (int64_t)DART_STENCIL_BOX, 0, 0},
    {"DART_ARRAY_EXCHANGE_AUTO", (int64_t)DART_ARRAY_EXCHANGE_AUTO, 0, 0},
    {"DART_ARRAY_EXCHANGE_GET", (int64_t)DART_ARRAY_EXCHANGE_GET, 0, 0},
    {"DART_ARRAY_EXCHANGE_NOTIFY", (int64_t)DART_ARRAY_EXCHANGE_NOTIFY, 0, 0},
    {"DART_ARRAY_BOUNDARY_NONE", (int64_t)DART_ARRAY_BOUNDARY_NONE, 0, 0},
    {"DART_ARRAY_BOUNDARY_PERIODIC", (int64_t)DART_ARRAY_BOUNDARY_PERIODIC, 0, 0},
    {"DART_ARRAY_NORM_1", (int64_t)DART_ARRAY_NORM_1, 0, 0},
    {"DART_ARRAY_NORM_2", (int64_t)DART_ARRAY_NORM_2, 0, 0},
    {"DART_ARRAY_NORM_INF", (int64_t)DART_ARRAY_NORM_INF, 0, 0},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const named_t *list_entry(int list, int index) {
  const named_t *t = NULL;
  size_t n = 0;
  switch (list) {
    case 1: t = types, n = COUNT(types); break;
    case 2: t = ops, n = COUNT(ops); break;
    case 3: t = codes, n = COUNT(codes); break;
    default: return NULL;
  }
  return (index >= 1 && (size_t)index <= n) ? &t[index - 1] : NULL;
}

/* Name of entry `index` (1-based) of list 1 (types), 2 (operations) or 3 (return codes);
 * NULL past the end. */
const char *ftestc_list_name(int list, int index) {
  const named_t *e = list_entry(list, index);
  return e ? e->name : NULL;
}

/* The C value of the constant `name` (len characters): 1 if the name is known. */
int ftestc_value(const char *name, int len, int64_t *value) {
  const named_t *all[] = {types, ops, codes, others};
  const size_t counts[] = {COUNT(types), COUNT(ops), COUNT(codes), COUNT(others)};
  for (size_t a = 0; a < 4; ++a)
    for (size_t i = 0; i < counts[a]; ++i)
      if (strlen(all[a][i].name) == (size_t)len && memcmp(all[a][i].name, name, len) == 0) {
        *value = all[a][i].value;
        return 1;
      }
  return 0;
}

/* Field `index` of struct `which` (1: dart_array_spec_t, 2: dart_array_info_t; index 0:
 * the struct itself): its name, offset and size; NULL past the end. */
const char *ftestc_array_field(int which, int index, int64_t *offset, int64_t *size) {
  if (which != 1 && which != 2) return NULL;
  const field_t *t = which == 1 ? array_spec_fields : array_info_fields;
  const size_t n = which == 1 ? COUNT(array_spec_fields) : COUNT(array_info_fields);
  if (index < 0 || (size_t)index >= n) return NULL;
  *offset = t[index].offset;
  *size = t[index].size;
  return t[index].name;
}

/* sizeof the C type of basic type `type` and whether it is an integer type: 1 if `type`
 * is a basic type. */
int ftestc_type_info(int64_t type, int64_t *size, int *integer) {
  for (size_t i = 0; i < COUNT(types); ++i)
    if (types[i].value == type) {
      *size = types[i].size;
      *integer = types[i].integer;
      return 1;
    }
  return 0;
}
