/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dart_util.h -- small portability macros shared by the DART public headers.
 *
 * DART-MPI implementation of the DART 3.2 interface (source compatible).
 */
#ifndef DART_UTIL_H_
#define DART_UTIL_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Attributes are spelled the GNU way where the compiler understands them
 * (GCC, Clang, Intel, NVHPC) and vanish elsewhere. */
#if defined(__GNUC__) || defined(__clang__)
#  define DART_MAYBE_UNUSED __attribute__((unused))
#  define DART_NORETURN     __attribute__((noreturn))
#else
#  define DART_MAYBE_UNUSED
#  define DART_NORETURN
#endif

/** Declares that a function never throws a C++ exception (no effect in C). */
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#  define DART_NOTHROW __attribute__((nothrow))
#else
#  define DART_NOTHROW
#endif

/** Header-defined helper: internal linkage, inline, no warning if unused. */
#define DART_INLINE static inline DART_MAYBE_UNUSED

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_UTIL_H_ */
