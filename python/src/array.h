// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the Python object of a dartpy.Array (array.cc binds its class; reduce.cc
// its collective reductions).
#ifndef DARTPY_ARRAY_H
#define DARTPY_ARRAY_H

#include "core.h"

#include <dash/dart/if/dart_array.h>

#include <memory>
#include <string>

namespace dartpy {

struct Array {
  dart_array_t a = DART_ARRAY_NULL;
  dart_array_info_t info{};
  int slot = S_NONE;
  uint64_t generation = 0;
  std::shared_ptr<SegRecord> rec;  // the blocks' segment (views, exit, team_destroy)
  bool node_local = false;         // every unit's block is on this node: small regions are copies
  bool freed = false;              // by free()

  Array() = default;
  Array(const Array &) = delete;
  Array &operator=(const Array &) = delete;

  // dart.exit() and team_destroy free the memory under a live dart_array_t: the record
  // says so. The core's struct is then left alone (its collective destroy cannot run).
  bool live() const {
    return a != DART_ARRAY_NULL && !freed && rec && !rec->freed && generation == g_generation &&
           is_initialized();
  }
  void need(const char *fn) const {
    if (live()) return;
    if (!is_initialized())
      raise_dart(DART_ERR_NOTINIT, fn, "DART is not initialized (dart.init())");
    raise_dart(DART_ERR_INVAL, fn,
               "this dartpy.Array was freed (by free(), dart.exit() or the destruction of "
               "its team)");
  }
  int nd() const { return info.ndim; }
  size_t itemsize() const { return g_slots[slot].itemsize; }
  py::dtype dtype() const { return py::dtype::from_args(g_slot_dtype[slot]); }

  ~Array() {
    if (!live()) return;
    std::string msg = "dartpy.Array of team " + std::to_string(info.team) +
                      " was garbage-collected without free(); its memory stays allocated "
                      "until dart.exit() (collective frees are never made by the garbage "
                      "collector)";
    if (PyErr_WarnEx(PyExc_ResourceWarning, msg.c_str(), 1) < 0) PyErr_WriteUnraisable(nullptr);
  }
};

}  // namespace dartpy

#endif  // DARTPY_ARRAY_H
