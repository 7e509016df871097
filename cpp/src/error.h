/* SPDX-License-Identifier: BSD-3-Clause */
// Error reporting of the core and of the layers above it (cpp/src/array): the per-thread
// detail message behind dart_error_detail(), the translation of MPI return codes and the
// early-return macro. Needs no MPI header.
#ifndef DART_MPI_ERROR_H
#define DART_MPI_ERROR_H

#include <dash/dart/if/dart.h>

#define DART_LIKELY(x) __builtin_expect(!!(x), 1)
#define DART_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace dart {
namespace detail {

// Records "fn: <formatted message>" as the calling thread's detail and returns code.
dart_ret_t fail(dart_ret_t code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

// The file system's errno behind the calling thread's last failure (0: none).
// fail() clears it; with_errno(fail(...), e) records one. dart_error_errno() reads it.
dart_ret_t with_errno(dart_ret_t code, int errnum);
int last_errno();

// Translates a failed MPI return code (not MPI_SUCCESS): records the MPI error string
// (with `what`, the MPI call) and returns DART_ERR_NOMEM or DART_ERR_OTHER.
dart_ret_t mpi_fail(int mpi_rc, const char *fn, const char *what) __attribute__((cold));

// DART 3.2: an output that is an object (a handle, the gptr of an allocation or
// registration, a team, group, lock, datatype, operation, array, allocator, locality
// domain) holds its null value on every error path. Calls that return one set it first.
template <class T, class U>
inline void null_out(T *out, U null_value) {
  if (out != nullptr) *out = null_value;
}

// Evaluate an expression yielding dart_ret_t; return it from the caller unless DART_OK.
#define DART_TRY(expr)                                               \
  do {                                                               \
    dart_ret_t dart_try_rc_ = (expr);                                \
    if (DART_UNLIKELY(dart_try_rc_ != DART_OK)) return dart_try_rc_; \
  } while (0)

}  // namespace detail
}  // namespace dart

#endif  // DART_MPI_ERROR_H
