/*
 * ftest_constants_c.c -- the C side of ftest_constants: the values of the named constants
 * as the C headers define them (the #defines and enums of dart_types.h and
 * dart_team_group.h, never the generated Fortran file), found by name.
 *
 * The entries of the lists of dart_tables.h are also reachable by position, so that the
 * Fortran test, which expands the same lists, can ask for the name of its n-th entry.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_tables.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
