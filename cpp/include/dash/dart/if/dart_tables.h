/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_tables.h -- the one list of DART's basic types, predefined operations and return
 * codes, as X-macros. DART-MPI extension (included by dart_ext.h).
 *
 * Everything that maps these constants to something else is generated from the lists
 * below: the core's MPI types and MPI operations (cpp/src), the CPU-atomics dispatch, the
 * NumPy dtype map of dartpy and the named constants and C kinds of the Fortran module
 * (generated at build time by cmake/DartTables.cmake). To add a basic type or an
 * operation, add its #define to dart_types.h (the DART 3.2 API) and its line here; the
 * core's static_asserts fail until both agree, and tests/python/test_constants.py and
 * tests/fortran/ftest_constants.F90 check every binding's value against the C header.
 *
 * The lists are only macros: a column that names an MPI or Fortran symbol is expanded
 * only where that symbol exists, so this header needs neither <mpi.h> nor Fortran.
 */
#ifndef DART_TABLES_H_INCLUDED
#define DART_TABLES_H_INCLUDED

/*
 * Basic types, in the order of their values (DART_TYPE_BYTE = 1 ... DART_TYPE_LAST - 1):
 *   X(name, C type, MPI type for transfers, MPI type for arithmetic, integer (0/1),
 *     NumPy type character, Fortran ISO_C_BINDING kind, Fortran intrinsic type)
 * MPI_BYTE allows no arithmetic, hence the signed char for atomics and reductions on
 * DART_TYPE_BYTE. Fortran has no unsigned integers: the unsigned types map to the signed
 * kind of the same size.
 */
#define DART_BASIC_TYPE_LIST(X)                                                         \
  X(BYTE, signed char, MPI_BYTE, MPI_SIGNED_CHAR, 1, 'b', c_signed_char, integer)         \
  X(SHORT, short, MPI_SHORT, MPI_SHORT, 1, 'h', c_short, integer)                         \
  X(INT, int, MPI_INT, MPI_INT, 1, 'i', c_int, integer)                                   \
  X(UINT, unsigned int, MPI_UNSIGNED, MPI_UNSIGNED, 1, 'I', c_int, integer)               \
  X(LONG, long, MPI_LONG, MPI_LONG, 1, 'l', c_long, integer)                              \
  X(ULONG, unsigned long, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG, 1, 'L', c_long, integer)  \
  X(LONGLONG, long long, MPI_LONG_LONG, MPI_LONG_LONG, 1, 'q', c_long_long, integer)      \
  X(ULONGLONG, unsigned long long, MPI_UNSIGNED_LONG_LONG, MPI_UNSIGNED_LONG_LONG, 1,    \
    'Q', c_long_long, integer)                                                            \
  X(FLOAT, float, MPI_FLOAT, MPI_FLOAT, 0, 'f', c_float, real)                            \
  X(DOUBLE, double, MPI_DOUBLE, MPI_DOUBLE, 0, 'd', c_double, real)                       \
  X(LONG_DOUBLE, long double, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, 0, 'g', c_long_double,   \
    real)

/* Where a predefined operation may be used (the third column of the operation list). */
#define DART_OPF_REDUCE 1   /* dart_reduce, dart_allreduce */
#define DART_OPF_ATOMIC 2   /* dart_accumulate, dart_fetch_and_op */
#define DART_OPF_FETCH 4    /* dart_fetch_and_op only */
#define DART_OPF_INTEGER 8  /* atomics: integer types only */
#define DART_OPF_LOGICAL 16 /* logical: MPI osc quirks apply (cpp/src/quirks.h) */

/*
 * Predefined operations, in the order of their values (DART_OP_MIN = 1 ...
 * DART_OP_LAST - 1):
 *   X(name, MPI operation (MPI_OP_NULL: none, computed by DART), DART_OPF_* flags)
 */
#define DART_OPERATION_LIST(X)                                                          \
  X(MIN, MPI_MIN, DART_OPF_REDUCE | DART_OPF_ATOMIC)                                    \
  X(MAX, MPI_MAX, DART_OPF_REDUCE | DART_OPF_ATOMIC)                                    \
  X(MINMAX, MPI_OP_NULL, DART_OPF_REDUCE)                                               \
  X(SUM, MPI_SUM, DART_OPF_REDUCE | DART_OPF_ATOMIC)                                    \
  X(PROD, MPI_PROD, DART_OPF_REDUCE | DART_OPF_ATOMIC)                                  \
  X(BAND, MPI_BAND, DART_OPF_REDUCE | DART_OPF_ATOMIC | DART_OPF_INTEGER)               \
  X(LAND, MPI_LAND, DART_OPF_REDUCE | DART_OPF_ATOMIC | DART_OPF_INTEGER | DART_OPF_LOGICAL) \
  X(BOR, MPI_BOR, DART_OPF_REDUCE | DART_OPF_ATOMIC | DART_OPF_INTEGER)                 \
  X(LOR, MPI_LOR, DART_OPF_REDUCE | DART_OPF_ATOMIC | DART_OPF_INTEGER | DART_OPF_LOGICAL) \
  X(BXOR, MPI_BXOR, DART_OPF_REDUCE | DART_OPF_ATOMIC | DART_OPF_INTEGER)               \
  X(LXOR, MPI_LXOR, DART_OPF_REDUCE | DART_OPF_ATOMIC | DART_OPF_INTEGER | DART_OPF_LOGICAL) \
  X(REPLACE, MPI_REPLACE, DART_OPF_ATOMIC)                                              \
  X(NO_OP, MPI_NO_OP, DART_OPF_ATOMIC | DART_OPF_FETCH)

/*
 * Return codes: X(name, value). The names are those of dart_ret_t (DART_OK,
 * DART_ERR_INVAL, ...) without the DART_ prefix.
 */
#define DART_RETURN_CODE_LIST(X) \
  X(OK, 0)                       \
  X(PENDING, 1)                  \
  X(ERR_INVAL, 2)                \
  X(ERR_NOTFOUND, 3)             \
  X(ERR_NOTINIT, 4)              \
  X(ERR_NOMEM, 5)                \
  X(ERR_OTHER, 999)

/*
 * Operations of notified access (dart_notify.h): name, value. The C enum
 * dart_notify_op_t, dartpy's NOTIFY_* and the Fortran DART_NOTIFY_* constants are
 * generated from this list.
 */
#define DART_NOTIFY_OP_LIST(X) \
  X(SET, 0)                    \
  X(ADD, 1)

#endif /* DART_TABLES_H_INCLUDED */
