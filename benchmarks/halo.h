/* SPDX-License-Identifier: BSD-3-Clause */
// The halo benchmark (bench_halo): one stencil, several halo-exchange implementations.
//
// The geometry is shared: every unit owns an n^ndim block (weak scaling) of a global
// grid decomposed over a dims_create process grid (heat_common.h), stored with a halo of
// width 1 per decomposed dimension as ext[0] x ext[1] x ext[2] float64 (3D: n+2 each;
// 2D: n+2, n+2, 1). Two such buffers alternate (read t, write 1-t). A Face is one
// neighbour: which unit, and as lists of contiguous runs (absolute element offsets in a
// block) the peer's layer that fills my halo (`src`), my halo (`dst`) and my own layer
// the peer reads (`own`). The three are boxes of one shape in one block layout, so their
// lists have the same run lengths in the same order.
//
// An implementation is an Exchange (owns both buffers; sync waits until the neighbours
// have written buffer t, where the implementation needs that wait; start/finish fill the
// halo of buffer t) registered under a name with HALO_REGISTER in its own halo_*.cc file, e.g.
//   HALO_REGISTER(my_impl, "my-impl", 50, [](const halo::Geometry &g, bool nb) {
//     return std::unique_ptr<halo::Exchange>(new MyExchange(g, nb)); });
// registers "my-impl" (blocking: start does everything, finish nothing) and "my-impl-nb"
// (start initiates, finish completes; the interior update runs in between);
// HALO_REGISTER_MODES(id, name, order, halo::kBlocking or halo::kNonblocking, factory)
// registers one of the two (kNonblocking alone: the name is used as is). The order
// number sorts the table; "dart" (0) runs first and is the reference every other
// implementation's final field must equal byte for byte. Mark the halo-exchange code with
// `// halo-loc: begin` / `// halo-loc: end` comments: benchmarks/run counts the lines
// between the markers (non-blank, non-comment) for the lines-of-code table.
#pragma once

#include "bench_dart.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace halo {

struct Run {
  long off, len;  // element offset in a block, number of contiguous elements
};

struct Face {
  int peer = -1;
  int dim = 0, side = 0;  // the neighbour is at coords[dim] + side
  std::vector<Run> src, dst, own;
  long count() const {
    long c = 0;
    for (const Run &r : dst) c += r.len;
    return c;
  }
};

struct Geometry {
  int ndim = 3, n = 32, rank = 0, nunits = 1;
  int dims[3] = {1, 1, 1}, coords[3] = {0, 0, 0};
  long ext[3] = {1, 1, 1};    // local extents including the halo
  long N[3] = {1, 1, 1};      // global grid points per dimension
  long start[3] = {0, 0, 0};  // global index of my first interior point
  std::vector<Face> faces;
  MPI_Comm world = MPI_COMM_NULL;  // the units (DART_TEAM_ALL), owned by DART
  MPI_Comm node = MPI_COMM_NULL;   // the units of my (possibly emulated) node
  long size() const { return ext[0] * ext[1] * ext[2]; }
  long at(long a, long b, long c) const { return (a * ext[1] + b) * ext[2] + c; }
};

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual double *field(int t) = 0;  // my block of buffer t (t = 0, 1)
  // The synchronisation before the transfers (a barrier); none where the transfers
  // themselves synchronise (messages, notifications). bench_halo times it apart.
  virtual void sync(int) {}
  virtual void start(int t) = 0;
  virtual void finish(int t) = 0;
};

using Factory = std::function<std::unique_ptr<Exchange>(const Geometry &, bool nb)>;

constexpr int kBlocking = 1, kNonblocking = 2;

struct Impl {
  std::string name;
  int order;
  Factory make;
  int modes;  // kBlocking | kNonblocking
};

inline std::vector<Impl> &registry() {
  static std::vector<Impl> r;
  return r;
}

struct Register {
  Register(const char *name, int order, Factory f, int modes = kBlocking | kNonblocking) {
    registry().push_back({name, order, std::move(f), modes});
  }
};

#define HALO_REGISTER(id, name, order, factory) \
  static const ::halo::Register halo_register_##id(name, order, factory)
#define HALO_REGISTER_MODES(id, name, order, modes, factory) \
  static const ::halo::Register halo_register_##id(name, order, factory, modes)

// MPI_Type_indexed of float64 over runs (absolute offsets): one face, count 1.
inline MPI_Datatype mpi_type(const std::vector<Run> &runs) {
  std::vector<int> len, off;
  for (const Run &r : runs) {
    len.push_back(static_cast<int>(r.len));
    off.push_back(static_cast<int>(r.off));
  }
  MPI_Datatype t;
  BENCH_MPI_CHECK(
      MPI_Type_indexed(static_cast<int>(runs.size()), len.data(), off.data(), MPI_DOUBLE, &t));
  BENCH_MPI_CHECK(MPI_Type_commit(&t));
  return t;
}

// The DART indexed type of float64 over runs (absolute offsets): one face, count 1.
inline dart_datatype_t dart_type(const std::vector<Run> &runs) {
  std::vector<size_t> len, off;
  for (const Run &r : runs) len.push_back(r.len), off.push_back(r.off);
  dart_datatype_t t;
  BENCH_DART_CHECK(
      dart_type_create_indexed(DART_TYPE_DOUBLE, runs.size(), len.data(), off.data(), &t));
  return t;
}

}  // namespace halo
