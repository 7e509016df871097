/* SPDX-License-Identifier: BSD-3-Clause */
// Distributed arrays with ghost layers (dart_array.h): the layer above the runtime.
//
// Written against the public DART calls only (allocation, layout types, handles, notified
// access, collectives) plus the error reporting of error.h; it never reads the runtime's
// state. Files:
//   decomp.cc    the spec: checks, the process grid, the blocks, its description
//   exchange.cc  the ghost regions of a unit and the two update protocols
//   region.cc    get/put of global regions, gather, scatter
//   agree.cc     the all-or-nothing agreement of the collective calls
//   io.cc        .npy files: the header, collective save and load with MPI-IO
//   reduce.cc    the reductions: sum, min, max, norms, dot, in a fixed order
//   h5.cc        HDF5 files (dart_h5.h) through parallel HDF5
//   files.cc     what both formats share: target checks, temporary file, rename (files.h)
//   array.cc     the C API: creation, destruction, copy, queries, updates, regions
#ifndef DART_ARRAY_IMPL_H
#define DART_ARRAY_IMPL_H

#include <dash/dart/if/dart.h>

#include "../error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dart {
namespace array {

using detail::fail;
using detail::last_errno;
using detail::mpi_fail;
using detail::with_errno;

constexpr int kMaxDims = DART_ARRAY_MAX_DIMS;
using Index = std::array<int64_t, kMaxDims>;
using Dims = std::array<int32_t, kMaxDims>;

// Size in bytes of a DART basic type, 0 for anything else (dart_tables.h is the list).
size_t basic_type_size(dart_datatype_t t);
// "DART_TYPE_DOUBLE", or "type 17" for what is not a basic type.
std::string basic_type_name(dart_datatype_t t);

// The decomposition of an array: a pure function of its spec and the team's size, so
// every unit computes every unit's block and neighbours without communication.
struct Decomp {
  int ndim = 0;
  int nunits = 0;
  Index shape{};
  Dims procs{};
  Dims halo_lo{}, halo_hi{};
  Dims periodic{};  // 1 where the boundary is DART_ARRAY_BOUNDARY_PERIODIC
  int stencil = DART_STENCIL_STAR;
  // starts[d][c]: the first global index of grid coordinate c of dimension d; starts[d]
  // has procs[d] + 1 entries, the last is shape[d].
  std::array<std::vector<int64_t>, kMaxDims> starts;

  int64_t start(int d, int c) const { return starts[d][(size_t)c]; }
  int64_t extent(int d, int c) const { return starts[d][(size_t)c + 1] - starts[d][(size_t)c]; }
  // Team-relative unit at grid coordinates (row-major); coordinates of a unit.
  int unit_at(const Dims &coords) const;
  Dims coords_of(int unit) const;
  // The grid coordinate next to c in dimension d in direction step (-1, 0, 1): wrapped
  // where periodic, -1 past a non-periodic boundary.
  int step(int d, int c, int dir) const;
  // The points of a unit's block with its ghosts (C order), per dimension and in all.
  Index local_shape(const Dims &coords) const;
  int64_t local_points(const Dims &coords) const;
  // The grid coordinate of dimension d holding global index i (0 <= i < shape[d]).
  int coord_of_index(int d, int64_t i) const;
};

// Fills the 0 entries of procs (ndim of them) for n units by MPI_Dims_create's rule;
// false if the given entries do not divide n.
bool choose_grid(int ndim, int n, Dims *procs);

// The checks of dart_array_spec_check, and the decomposition when they pass (DART_OK, or
// DART_ERR_INVAL / DART_ERR_NOTFOUND with the detail message set for `fn`).
dart_ret_t decomp_build(const dart_array_spec_t &spec, const char *fn, Decomp *out);

// A canonical one-line description of a spec ("shape [64, 64], DART_TYPE_DOUBLE, ..."),
// for the message that names two units whose specs differ, and its 64-bit hash.
std::string spec_describe(const dart_array_spec_t &spec);
uint64_t spec_hash(const dart_array_spec_t &spec);
// The failure of a spec whose caller refused its own argument (spec.refusal set).
dart_ret_t refused(const dart_array_spec_t &spec, const char *fn);

// Point strides of a C-order block of `block` points per dimension.
Index c_strides(int ndim, const Index &block);
// The DART datatype of a box of points: extents `ext` (C order) at point strides
// `strides`, `components` elements of `elem` per point. Held from the layout cache
// (dart_type_layout_release gives it back); *nelem is the transfer's element count.
dart_ret_t box_type(dart_datatype_t elem, int components, int ndim, const Index &ext,
                    const Index &strides, dart_datatype_t *type, size_t *nelem, const char *fn);
// Point offset of `at` (C order) in a C-order block of `block` points per dimension.
int64_t box_offset(int ndim, const Index &at, const Index &block);

// One ghost region of the exchange, seen from one of its two ends.
struct Region {
  int dir = 0;             // index of the receiver's direction (see exchange.cc), 0..3^ndim-1
  int peer = 0;            // the team unit at the other end
  int64_t local_off = 0;   // point offset of this end's box in this unit's block
  int64_t remote_off = 0;  // point offset of the peer's box in the peer's block
  dart_datatype_t local_type = DART_TYPE_UNDEFINED, remote_type = DART_TYPE_UNDEFINED;
  size_t nelem = 0;
  dart_gptr_t remote{};           // the peer's box (after allocation)
  dart_gptr_t peer_flag[2]{};     // the peer's flags for this region (kinds 0, 1; exchange.cc)
  const uint64_t *own_flag[2]{};  // this unit's flags for this region
};

}  // namespace array
}  // namespace dart

// The array (opaque in dart_array.h).
struct dart_array_struct {
  dart_array_spec_t spec{};     // as created (blocks copied into `blocks`)
  std::vector<int64_t> blocks;  // the given blocks, empty for the default
  dart::array::Decomp dc;
  dart_datatype_t dtype = DART_TYPE_UNDEFINED;
  int components = 1;
  size_t elem_size = 0;   // bytes of one element of dtype
  size_t point_size = 0;  // bytes of one point
  dart_team_t team = DART_TEAM_NULL;
  int myid = 0;
  dart::array::Dims coords{};
  dart::array::Index lo{}, hi{}, local_shape{};
  int exchange = DART_ARRAY_EXCHANGE_GET;
  dart_gptr_t mem = DART_GPTR_NULL;    // unit 0's block
  dart_gptr_t flags = DART_GPTR_NULL;  // unit 0's flag block (exchange.cc)
  uint64_t *own_flags = nullptr;       // this unit's flag block
  uint64_t epoch = 0;                  // updates begun; the value the signals write
  void *local = nullptr;
  size_t block_bytes = 0;  // bytes of this unit's block (ghosts included)

  // The exchange: the regions this unit fills (its ghosts) and serves (its interior).
  std::vector<dart::array::Region> recv, send;
  bool in_flight = false;
  std::vector<dart_handle_t> handles;
  std::vector<char> started;  // per region of the side that transfers: 0 waiting, 1 moving, 2 done
  std::vector<dart_handle_t> signals;  // signals sent, completed at the end of the update
};

namespace dart {
namespace array {

// The text of a detail message without its leading "fn: " (agree.cc).
std::string without_fn(const std::string &detail, const char *fn);

// exchange.cc: the regions of this unit (types held, offsets set) and, after the
// allocation, their global pointers; the update protocols; the release of the types.
dart_ret_t exchange_plan(dart_array_struct *a, const char *fn);
dart_ret_t exchange_bind(dart_array_struct *a);
void exchange_release(dart_array_struct *a);
dart_ret_t exchange_begin(dart_array_struct *a, const char *fn);
dart_ret_t exchange_end(dart_array_struct *a, const char *fn);
// The bytes of one unit's flag block (two kinds per direction, a cache line each).
size_t exchange_flag_bytes(int ndim);

// array.cc: the collective creation of dart_array_create (fn names the caller in the
// messages); zero_interior false leaves the interior as the allocation gives it (the
// caller fills it: dart_array_load) and zeroes only the ghosts (zero_ghosts).
dart_ret_t array_create(const dart_array_spec_t *spec, dart_array_t *array, const char *fn,
                        bool zero_interior);
void zero_ghosts(dart_array_struct *a);

// region.cc: one-sided transfer of the global region [lo, hi) to or from buf.
dart_ret_t region_transfer(dart_array_struct *a, const Index &lo, const Index &hi, void *buf,
                           const Index &buf_strides, bool put, const char *fn);

// agree.cc: collective over `team`, all or nothing. Every unit brings the result of its
// local steps and a key that must be the same everywhere (a hash of its arguments).
// DART_OK on every unit if all succeeded with equal keys. Otherwise every unit fails: a
// unit that failed keeps its own error; the others get its code with "another unit
// failed: unit U of team T: <its message>"; with equal results but different keys, every
// unit gets DART_ERR_INVAL naming unit 0's and the first differing unit's arguments
// (describe() gives a unit's). `uniform`: every unit, the failing one too, gets the first
// failing unit's code with "failed on unit U of team T: <its message>" (one outcome, one
// message everywhere: the array files).
dart_ret_t agree(dart_team_t team, dart_ret_t local, uint64_t key,
                 const std::function<std::string()> &describe, const char *fn,
                 bool uniform = false);

// A DART call's failure as the failure of an array call `fn`: the detail message becomes
// "fn: <the call's detail>"; returns rc.
dart_ret_t rethrow(dart_ret_t rc, const char *fn);
#define DART_ARRAY_TRY(expr, fn)                           \
  do {                                                     \
    dart_ret_t dart_array_rc_ = (expr);                    \
    if (DART_UNLIKELY(dart_array_rc_ != DART_OK))          \
      return ::dart::array::rethrow(dart_array_rc_, (fn)); \
  } while (0)

}  // namespace array
}  // namespace dart

#endif  // DART_ARRAY_IMPL_H
