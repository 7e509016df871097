// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the binding's one argument layer. Every function that takes a shape,
// an int, a per-dimension list or a keyword from Python parses it here, so that
// dart.Array, the allocations (dart.zeros, Allocation), dart.view and the notify blocks
// accept the same things and say the same when they refuse one. The dtypes are types.cc's
// (slot_of_dtype), the teams core.h's (team_arg). `fn` names the caller in messages.
#ifndef DARTPY_ARGS_H
#define DARTPY_ARGS_H

#include "core.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dartpy {
namespace args {

bool is_str(py::handle h);
// An int but no bool (NumPy treats a bool index as a mask), or an object with __index__
// that is no sequence (NumPy integer scalars; NumPy arrays have __index__ too).
bool is_int(py::handle h);
bool is_seq(py::handle h);

// An int within [lo, hi]: TypeError for anything else, ValueError out of range.
int64_t as_int(py::handle h, const char *fn, const std::string &what, int64_t lo, int64_t hi);
int32_t as_int32(py::handle h, const char *fn, const std::string &what);
// The items of a sequence (not a str, not an int): TypeError naming `forms` otherwise.
std::vector<py::object> as_list(py::handle h, const char *fn, const std::string &what,
                                const char *forms);
// One per-dimension value: the same for every dimension (`scalar`), or a sequence of nd.
std::vector<py::object> per_dim(py::handle h, const char *fn, int nd, const char *arg, bool scalar,
                                const char *forms);
// The index of the str among names: TypeError for no str, ValueError listing names.
int keyword(py::handle h, const char *fn, const std::string &what, const char *const *names, int n);
// A shape: an int or a sequence of ints (NumPy ints and integer arrays too, never bools),
// with 1..max_dims entries (max_dims 0: any number) each >= min_extent (INT64_MIN: no
// check, e.g. dart.Array's, whose extents the core checks). The items are named
// "argument 'shape[k]'".
std::vector<int64_t> shape(py::handle h, const char *fn, int max_dims, int64_t min_extent);

// Binds _core._shape (the parser of the allocations' shapes, dartpy/__init__.py).
void bind(py::module_ &m);

}  // namespace args
}  // namespace dartpy

#endif  // DARTPY_ARGS_H
