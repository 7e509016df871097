// dartpy._core: shared declarations of the pybind11 binding of DART-MPI.
//
// The binding calls the public C API only (dash/dart/if/*.h, dart_mpi.h for the MPI
// communicator bridge) and MPI itself for initialization and handle conversion.
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
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace dartpy {

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

// dartpy.DartError (a RuntimeError with .code and .detail); created at module import.
extern py::object g_dart_error;

// Raises DartError for a failed DART call: the message names the call, the code's text
// and dart_error_detail() of this thread. The GIL must be held.
[[noreturn]] void raise_dart(dart_ret_t rc, const char *call);
[[noreturn]] void raise_dart_msg(dart_ret_t rc, const std::string &msg);

inline void check(dart_ret_t rc, const char *call) {
  if (rc != DART_OK) raise_dart(rc, call);
}

// ---------------------------------------------------------------------------------------
// Serialization of DART calls and GIL release
// ---------------------------------------------------------------------------------------

// Unless the runtime granted DART_THREAD_MULTIPLE (dart.init_thread()), every DART call
// that changes runtime state or communicates runs with this mutex held, so Python threads
// never enter the core concurrently (MPI is initialized with MPI_THREAD_SERIALIZED by
// default). Read-only queries skip it.
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

// Short section that keeps the GIL (cheap, non-blocking calls).
struct Locked {
  std::unique_lock<std::mutex> lock{core_mutex(), std::defer_lock};
  Locked() {
    if (g_serialize) lock.lock();
  }
};

// ---------------------------------------------------------------------------------------
// dtypes
// ---------------------------------------------------------------------------------------

// One slot per supported element kind (NumPy dtypes that are the same on this platform,
// e.g. int64 'l' and longlong 'q', share a slot).
enum Slot : int8_t {
  S_NONE = -1,
  S_BOOL, S_I8, S_U8, S_I16, S_U16, S_I32, S_U32, S_I64, S_U64,
  S_F16, S_F32, S_F64, S_LD, S_C64, S_C128, S_CLD,
  S_COUNT
};

struct SlotInfo {
  const char *name;        // NumPy dtype name
  size_t itemsize;         // bytes of one NumPy element
  dart_datatype_t xfer;    // DART type moving the bytes (put/get/collectives)
  size_t mult;             // DART elements per NumPy element (2 for complex)
  dart_datatype_t arith;   // DART type for reductions/atomics, UNDEFINED if none
};

extern SlotInfo g_slots[S_COUNT];
extern py::object g_slot_dtype[S_COUNT];  // numpy.dtype objects

// Slot of a NumPy type number, S_NONE if unsupported.
int slot_of_typenum(int type_num);
// Slot of anything numpy.dtype() accepts; TypeError naming `arg` if unsupported.
int slot_of_dtype(py::handle dtype_like, const char *fn, const char *arg);
std::string slot_name(int slot);

// ---------------------------------------------------------------------------------------
// Global pointers
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

// ---------------------------------------------------------------------------------------
// Per-segment bookkeeping (allocation dtype, live NumPy views, pending buffers)
// ---------------------------------------------------------------------------------------

struct SegRecord {
  int16_t team = 0, seg = 0;
  int slot = S_NONE;
  size_t nelem = 0;          // elements per unit (the allocating call's nelem)
  bool pool = false;         // a dart_memalloc block (seg 0)
  bool collective = false;   // freed by a collective call (team_memfree/deregister)
  uint64_t pool_offset = 0;
  long views = 0;            // live NumPy views (their _ViewOwner objects)
  bool freed = false;
  uint64_t generation = 0;
  py::object keep;           // registered memory: the array that backs it
};

uint32_t seg_key(int16_t team, int16_t seg);
std::shared_ptr<SegRecord> find_record(int16_t team, int16_t seg, int unit, uint64_t offset);

// Slot to use for a transfer on gptr: its own, else the allocation's, else S_NONE.
int gptr_slot(const Gptr &gp);

// Current init/exit cycle (0 before the first dart.init); bumps at every init.
extern uint64_t g_generation;
bool is_initialized();

// Drops references to buffers of non-blocking put/get once their target is flushed.
void pending_add(const dart_gptr_t &g, py::handle buf);
void pending_flush(const dart_gptr_t &g, bool all_units);
void pending_clear_segment(int16_t team, int16_t seg);
// dart_team_destroy frees every segment of the team: raise on every unit of the team
// while views of any of them live anywhere (before), forget their records (after).
void team_segments_check_views(dart_team_t team, const char *fn);
void team_segments_forget(dart_team_t team);
void pending_clear_all();
// Forgets the derived datatypes cached for NumPy layouts (at dart.exit).
void type_cache_clear();
// Forgets which (team, segment, unit) targets are load/store reachable (at every free,
// team destruction and exit).
void direct_cache_invalidate();

// ---------------------------------------------------------------------------------------
// NumPy buffers
// ---------------------------------------------------------------------------------------

// A NumPy array (or buffer) described for DART: address, element count in DART elements,
// DART type of its layout (basic, or a cached strided/indexed type) and its slot.
struct Buffer {
  char *ptr = nullptr;
  size_t nelem = 0;           // DART elements (NumPy elements * mult)
  size_t size = 0;            // NumPy elements
  dart_datatype_t type = DART_TYPE_UNDEFINED;
  int slot = S_NONE;
  bool contiguous = true;
  py::object obj;             // the array (keeps it alive where needed)
};

// Describes `obj` (a NumPy array or an object with the buffer protocol). writable: the
// call writes into it. contiguous_only: collectives (C-contiguous required).
// TypeError/ValueError name `arg` and the function `fn`.
Buffer describe(py::handle obj, bool writable, bool contiguous_only, const char *fn,
                const char *arg);

// DART type of the global side: the slot's basic type, or a strided type when stride > 0.
dart_datatype_t remote_type(int slot, size_t stride, size_t blocklen, size_t nelem,
                            const char *fn);

// Checks that the array's slot matches the gptr's (TypeError otherwise); returns the slot.
int match_slot(const Gptr &gp, const Buffer &b, const char *fn, const char *arg);

// A team argument: a dartpy.Team or an int team id (anything with __index__).
inline dart_team_t team_arg(py::handle h) {
  if (!PyIndex_Check(h.ptr()))
    throw py::type_error("argument 'team' must be a dartpy.Team or an int team id, not " +
                         std::string(py::str(py::type::handle_of(h).attr("__name__"))));
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  long v = i.cast<long>();
  if (v < -32768 || v > 32767) throw py::value_error("argument 'team': team id out of range");
  return (dart_team_t)v;
}

// Binding registration, one per source file.
void bind_module(py::module_ &m);
void bind_rma(py::module_ &m);
void bind_coll(py::module_ &m);

}  // namespace dartpy
