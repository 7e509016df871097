/* SPDX-License-Identifier: BSD-3-Clause */
// dartpy._core: shared declarations of the pybind11 binding of DART-MPI.
//
// The binding calls the public C API only (dash/dart/if/*.h, dart_mpi.h for the MPI
// communicator bridge) and MPI itself for initialization and handle conversion. One
// source file per object, as in mpi4py: errors.cc, types.cc (dtypes, constants, array
// layouts), init.cc, gptr.cc, memory.cc, rma.cc, handle.cc, atomics.cc, coll.cc, ops.cc,
// group.cc, team.cc, lock.cc, notify.cc, array.cc; module.cc registers them.
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_mpi.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace dartpy {

// ---------------------------------------------------------------------------------------
// Errors (errors.cc)
// ---------------------------------------------------------------------------------------

// dartpy.DartError (python/dartpy/_errors.py), looked up at module import.
extern py::object g_dart_error;

// The one way a DART error reaches Python: raises DartError(message, code, detail) for a
// call `fn` that returned rc. detail is dart_error_detail() of this thread unless given
// (only for failures outside DART, e.g. of MPI_Init_thread). The GIL must be held.
[[noreturn]] void raise_dart(dart_ret_t rc, const char *fn, const char *detail = nullptr);
// The same for a failed file call on `path`: the exception class follows the file
// system's errno (dart_error_errno() unless given: FileNotFoundError, PermissionError,
// ... subclasses of DartError) or, for DART_ERR_INVAL, a malformed file
// (dartpy._errors.file_error).
[[noreturn]] void raise_file_error(dart_ret_t rc, const char *fn, const std::string &path,
                                   const char *detail = nullptr, int errnum = -1);

inline void check(dart_ret_t rc, const char *fn) {
  if (rc != DART_OK) raise_dart(rc, fn);
}

// A local argument error of a collective call whose core function agrees on failure over
// the team (dart_team_create, dart_allgatherv): the error is caught, the caller passes
// the core an argument it rejects (so every unit fails together), and rethrow() raises
// the caught error on this unit after the collective returned.
struct Deferred {
  std::exception_ptr error;
  template <typename F>
  void run(F &&f) {
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
  }
  explicit operator bool() const { return (bool)error; }
  void rethrow() {
    if (error) std::rethrow_exception(error);
  }
};

inline std::string tname(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

// An item of a list argument as an object of a bound class: TypeError naming the
// argument and the class otherwise (None too: pybind11 casts it to a null pointer).
template <typename T>
T *list_item(py::handle item, const char *fn, const char *arg, const char *cls) {
  T *p = nullptr;
  try {
    p = item.cast<T *>();
  } catch (py::cast_error &) {
  }
  if (p == nullptr)
    throw py::type_error(std::string(fn) + ": argument '" + arg + "' must hold " + cls +
                         " objects, not " + tname(item));
  return p;
}

// ---------------------------------------------------------------------------------------
// Serialization of DART calls and GIL release (errors.cc)
// ---------------------------------------------------------------------------------------

// Unless the runtime granted DART_THREAD_MULTIPLE (dart.init_thread()), every DART call
// that changes runtime state, communicates or calls MPI (creating or freeing an MPI
// datatype or operation included) runs with this mutex held, so Python threads never
// enter the core or MPI concurrently (MPI is initialized with MPI_THREAD_SERIALIZED by
// default). Read-only queries skip it. No thread ever waits for the mutex while holding
// the GIL: the holder may need the GIL (a collective calling a Python reduction op).
std::mutex &core_mutex();
extern bool g_serialize;

// Blocking section: releases the GIL first, then takes the core mutex (the order matters:
// a thread waiting for the mutex never holds the GIL).
struct Nogil {
  py::gil_scoped_release release;
  std::unique_lock<std::mutex> lock{core_mutex(), std::defer_lock};
  Nogil() {
    if (g_serialize) lock.lock();
  }
};

// Short section (cheap, non-blocking calls) that keeps the GIL when the mutex is free;
// when it is taken, the GIL is released while waiting for it and taken again after (so
// the section runs with both). Needs the GIL on entry.
struct Locked {
  std::unique_lock<std::mutex> lock{core_mutex(), std::defer_lock};
  Locked() {
    if (!g_serialize || lock.try_lock()) return;
    py::gil_scoped_release release;
    lock.lock();
  }
};

// Transfers that are copies (small, same node) keep the GIL: releasing it costs more
// than the copy. Runs f() with the GIL when `copy` is true and the mutex is free at once,
// else in a Nogil section (f is a DART call returning dart_ret_t).
constexpr size_t kDirectNoGilBytes = 64 * 1024;
template <typename F>
dart_ret_t copy_or_blocking(bool copy, F &&f) {
  if (copy) {
    std::unique_lock<std::mutex> lk(core_mutex(), std::defer_lock);
    if (!g_serialize || lk.try_lock()) return f();
  }
  Nogil ng;
  return f();
}

// ---------------------------------------------------------------------------------------
// dtypes (types.cc)
// ---------------------------------------------------------------------------------------

// A slot is one element kind: a DART basic type (from DART_BASIC_TYPE_LIST, one per
// distinct NumPy dtype) or a NumPy dtype moved as a basic type (bool, uint8, complex, ...).
// NumPy dtypes that are the same on this platform (int64 'l' and longlong 'q') share one.
constexpr int S_NONE = -1;
constexpr int kMaxSlots = 32;

struct SlotInfo {
  std::string name;       // NumPy dtype name
  size_t itemsize;        // bytes of one NumPy element
  dart_datatype_t xfer;   // DART type moving the bytes (put/get/collectives)
  size_t mult;            // DART elements per NumPy element (2 for complex)
  dart_datatype_t arith;  // DART type for reductions/atomics, UNDEFINED if none
  bool minmax;            // MIN/MAX allowed (not for uint8 on DART's signed byte)
};

extern SlotInfo g_slots[kMaxSlots];
extern py::object g_slot_dtype[kMaxSlots];  // numpy.dtype objects

void init_slots();
// Slot of a NumPy type number, S_NONE if unsupported.
int slot_of_typenum(int type_num);
// Slot of anything numpy.dtype() accepts; TypeError naming `arg` if unsupported.
int slot_of_dtype(py::handle dtype_like, const char *fn, const char *arg);
std::string slot_name(int slot);
// The first slot moved as `mult` elements of `xfer` (the basic type's own before bool,
// uint8, ...: the dtype a DART point type stands for), S_NONE if none.
int slot_of_point(dart_datatype_t xfer, size_t mult);
// The DART arithmetic type of a slot for op (TypeError if it has none).
dart_datatype_t arith_type(int slot, dart_operation_t op, const char *fn);

// ---------------------------------------------------------------------------------------
// Global pointers (gptr.cc)
// ---------------------------------------------------------------------------------------

// A global pointer plus the element dtype it was allocated with (S_NONE: untyped).
struct Gptr {
  dart_gptr_t g = DART_GPTR_NULL;
  int8_t slot = S_NONE;
};

struct GptrFields {
  int32_t unit = -1, flags = 0;
  int16_t segid = 0, teamid = DART_TEAM_NULL;
  uint64_t offset = 0;
};
GptrFields fields(const dart_gptr_t &g);
Gptr make_gptr(const dart_gptr_t &g, int slot);

// ---------------------------------------------------------------------------------------
// Per-segment bookkeeping: allocation dtype, live NumPy views (memory.cc), pending
// buffers of non-blocking transfers (rma.cc)
// ---------------------------------------------------------------------------------------

struct SegRecord {
  int16_t team = 0, seg = 0;
  int slot = S_NONE;
  size_t nelem = 0;         // elements per unit (the allocating call's nelem)
  bool pool = false;        // a dart_memalloc block (seg 0)
  bool collective = false;  // freed by a collective call (team_memfree/deregister)
  uint64_t pool_offset = 0;
  long views = 0;  // live NumPy views (their _ViewOwner objects)
  bool freed = false;
  uint64_t generation = 0;
  py::object keep;  // registered memory: the array that backs it
};

uint32_t seg_key(int16_t team, int16_t seg);
std::shared_ptr<SegRecord> find_record(int16_t team, int16_t seg, int unit, uint64_t offset);

// Slot to use for a transfer on gptr: its own, else the allocation's, else S_NONE.
int gptr_slot(const Gptr &gp);

// Current init/exit cycle (0 before the first dart.init); bumps at every init.
extern uint64_t g_generation;
bool is_initialized();

// memory.cc: records of this cycle.
void records_start_cycle();
void records_drop_all();
long live_views();
void collect_garbage();
// Collective over team: the largest number of live views on any of its units.
long views_anywhere(dart_team_t team, long mine, const char *fn);
// dart_team_destroy frees every segment of the team: raise on every unit of the team
// while views of any of them live anywhere (before), forget their records (after).
void team_segments_check_views(dart_team_t team, const char *fn);
void team_segments_forget(dart_team_t team);

// Collective memory that a binding object allocated through the core (a dart.Array's
// blocks): its record (so that views, dart.exit() and team_destroy see it), zero-copy
// views of it, the collective view check before its free (BufferError on every unit of
// the team while views live on any) and the end of the record after the free.
std::shared_ptr<SegRecord> segment_record(const dart_gptr_t &g, int slot, size_t nelem);
py::array segment_view(const std::shared_ptr<SegRecord> &rec, void *addr,
                       const std::vector<py::ssize_t> &shape,
                       const std::vector<py::ssize_t> &strides, int slot);
void segment_check_views(dart_team_t team, SegRecord *rec, const char *fn);
void segment_forget(int16_t team, int16_t seg);

// rma.cc: buffers of non-blocking put/get, dropped once their target is flushed.
void pending_add(const dart_gptr_t &g, py::handle buf);
void pending_flush(const dart_gptr_t &g, bool all_units);
void pending_clear_segment(int16_t team, int16_t seg);
void pending_clear_all();
// Forgets which (team, segment, unit) targets are load/store reachable (at every free,
// team destruction and exit).
void direct_cache_invalidate();

// ---------------------------------------------------------------------------------------
// NumPy buffers and their layouts (types.cc)
// ---------------------------------------------------------------------------------------

// A NumPy array (or buffer) described for DART: address, element count in DART elements,
// DART type of its layout (basic, or a strided/indexed type of the core's layout engine,
// which `release` hands back) and its slot.
struct Buffer {
  char *ptr = nullptr;
  size_t nelem = 0;  // DART elements (NumPy elements * mult)
  size_t size = 0;   // NumPy elements
  dart_datatype_t type = DART_TYPE_UNDEFINED;
  int slot = S_NONE;
  bool contiguous = true;
  py::object obj;  // the array (keeps it alive where needed)
};

// Describes `obj` (a NumPy array or an object with the buffer protocol). writable: the
// call writes into it. contiguous_only: collectives (C-contiguous required).
// TypeError/ValueError name `arg` and the function `fn`. A non-contiguous layout holds a
// type of the core's layout cache: hand it back with layout_release after the transfer.
Buffer describe(py::handle obj, bool writable, bool contiguous_only, const char *fn,
                const char *arg);

// DART type of the global side: the slot's basic type, or (stride > 0) a layout of
// nelem / mult / blocklen blocks of blocklen elements, stride elements apart.
dart_datatype_t remote_type(int slot, size_t stride, size_t blocklen, size_t nelem, const char *fn);

// Hands a type from describe/remote_type back to the core (basic types: no-op).
void layout_release(dart_datatype_t type);

// Owns the layout types of one transfer; releases them when the transfer was started.
struct LayoutTypes {
  dart_datatype_t local = DART_TYPE_UNDEFINED, remote = DART_TYPE_UNDEFINED;
  LayoutTypes() = default;
  LayoutTypes(const LayoutTypes &) = delete;
  LayoutTypes &operator=(const LayoutTypes &) = delete;
  ~LayoutTypes() {
    layout_release(local);
    layout_release(remote);
  }
};

// Checks that the array's slot matches the gptr's (TypeError otherwise); returns the slot.
int match_slot(const Gptr &gp, const Buffer &b, const char *fn, const char *arg);

// ---------------------------------------------------------------------------------------
// Teams, groups, user operations (team.cc, group.cc, ops.cc)
// ---------------------------------------------------------------------------------------

// A team argument: a dartpy.Team or an int team id (anything with __index__).
inline dart_team_t team_arg(py::handle h) {
  if (!PyIndex_Check(h.ptr()))
    throw py::type_error("argument 'team' must be a dartpy.Team or an int team id, not " +
                         tname(h));
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  long v = i.cast<long>();
  if (v < -32768 || v > 32767) throw py::value_error("argument 'team': team id out of range");
  return (dart_team_t)v;
}

// A team id with methods. Value semantics (like the C dart_team_t): collecting a Team
// never destroys the team; use team_destroy / Team.destroy / a with block.
struct Team {
  dart_team_t id = DART_TEAM_NULL;
};

// A DART group; destroyed explicitly or when collected.
struct Group {
  dart_group_t g = DART_GROUP_NULL;
  uint64_t generation = 0;
  Group() = default;
  Group(const Group &) = delete;
  Group &operator=(const Group &) = delete;
  ~Group();
  bool live() const;
  // The handle for a DART call: a destroyed group (or one of an earlier dart.init cycle)
  // is a handle the core recognizes as not live, so its error reaches the caller.
  dart_group_t get() const;
};
// A handle that is never a live group (the core rejects it as "not a live group").
dart_group_t dead_group();
std::unique_ptr<Group> wrap_group(dart_group_t g);

// Operation argument: a predefined OP_* value or a user operation (Op). *user: the
// binding's record of a user operation (nullptr for predefined ones).
struct UserOp {
  dart_operation_t op = DART_OP_UNDEFINED;
  py::object fn;
  int slot = S_NONE;
  uint64_t generation = 0;
  py::object error;  // exception raised by fn during the last collective
};
dart_operation_t op_arg(py::handle op, const char *fn, UserOp **user);
// Raises the exception a user operation's function raised during the last call, if any.
void user_op_reraise(UserOp *user);

// Shared between files: Team.barrier is dart_barrier (coll.cc); a put/get handle
// (handle.cc) holding `keep` until completion.
void barrier(py::handle team);
py::object make_handle(dart_handle_t h, const dart_gptr_t &target, py::object keep);

// ---------------------------------------------------------------------------------------
// Registration, one per source file (called by module.cc in this order)
// ---------------------------------------------------------------------------------------

void bind_errors(py::module_ &m);
void bind_types(py::module_ &m);
void bind_init(py::module_ &m);
void bind_gptr(py::module_ &m);
void bind_memory(py::module_ &m);
void bind_rma(py::module_ &m);
void bind_handle(py::module_ &m);
void bind_atomics(py::module_ &m);
void bind_group(py::module_ &m);
void bind_team(py::module_ &m);
void bind_locality(py::module_ &m);
void bind_lock(py::module_ &m);
void bind_ops(py::module_ &m);
void bind_coll(py::module_ &m);
void bind_notify(py::module_ &m);
void bind_array(py::module_ &m);
void bind_array_reduce(py::module_ &m);
void bind_h5(py::module_ &m);

// array.cc, for the files of other formats (h5.cc): a new dartpy.Array from a core call
// that creates it from a spec (read(named, spec, &array); named is false after an
// argument error of this unit, kept in arg_error and raised after the collective call),
// the decomposition arguments parsed as Array.load parses them; `what` names the Python
// call (dartpy.Array.<what>) and core_fn the core's. And the core's array behind a
// dartpy.Array (TypeError for another object, DartError once it was freed).
using ArrayReader = std::function<dart_ret_t(bool, const dart_array_spec_t *, dart_array_t *)>;
py::object array_read(const char *what, const char *core_fn, const ArrayReader &read,
                      Deferred &arg_error, py::handle dtype, py::handle team, py::handle halo,
                      py::handle boundary, py::handle stencil, py::handle procs, py::handle blocks,
                      py::handle exchange);
dart_array_t array_handle(py::handle array, const char *fn);

}  // namespace dartpy
