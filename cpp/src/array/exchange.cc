// SPDX-License-Identifier: BSD-3-Clause
// The halo update of a distributed array: its ghost regions and the two protocols.
//
// Directions. A ghost region of a unit R lies next to its block in direction
// delta = (delta_0, .., delta_{n-1}), each -1, 0 or +1, not all 0: below the block where
// delta_d = -1, alongside it where 0, above it where +1. It is filled from the interior of
// the unit S = R + delta (wrapped where periodic), the region's source. Each region has
// an index, dir = sum_d (delta_d + 1) * 3^(n-1-d), and the same index names it at both
// ends: R receives region dir from S, S serves region dir to R = S - delta. A unit
// receives at most one region and serves at most one region per direction, also when it
// is its own neighbour or meets one neighbour in two directions (periodic, two processes).
//
// Flags. Every unit has 2 * 3^n flags per array, 64-bit words a cache line apart (a
// collective allocation, zeroed at creation): kind 0 at index dir says "region dir may
// now be read from here" (GET: the source is ready) or "region dir has arrived here"
// (NOTIFY: the source pushed it); kind 1 at index dir says "the receiver of region dir
// is done with my interior" (GET) or "the receiver's ghosts of region dir are free"
// (NOTIFY). A signal writes the writer's update count (its epoch, the same on every
// unit: every unit counts the updates of the array) with a put; the owner waits until
// its flag holds at least its own epoch, reading its own memory with plain loads. Each
// flag has one writer (the unit at the other end of region dir), so no read-modify-write
// is needed anywhere: a counter taken by an MPI atomic made a unit wait inside
// MPI_Accumulate for a late neighbour under Open MPI (issue 34), and an MPI atomic needs
// the target's progress on MPICH between nodes. A flag runs at most one epoch ahead of
// its owner (its next write needs the owner's next update). Hazards: the flags are 8
// bytes aligned to their own cache line, written whole (one put of one 8-byte element;
// on one node DART's put is a copy, which writes aligned 8 bytes with one store on the
// 64-bit targets DART builds for), so a load never sees half a value; a writer writes a
// flag's word only, never a neighbour's.
//
// GET:    begin: signal ready (kind 0) to every receiver I serve; start the gets whose
//                ready has arrived.
//         end:   complete the started gets, signalling done (kind 1) to each one's
//                source as it completes; start the remaining gets as their readies
//                arrive (whichever comes first), each completed and signalled before the
//                next wait; then wait for done from every receiver.
// NOTIFY: begin: signal free (kind 1) to every source; push the regions whose free has
//                arrived (a notified put: data, then kind 0 at the receiver).
//         end:   complete the started pushes (which sends their arrivals); push the
//                remaining regions as their frees arrive, each completed before the next
//                wait; then wait for every region's arrival (kind 0).
// No unit waits for a signal that depends on its own later step, so neither deadlocks;
// the only units that wait for each other are neighbours, and no unit holds back what
// it owes one neighbour while it waits for another (move_all), so a late unit delays
// its neighbours only, not their neighbours (issue 34's chain).
#include "array.h"

#include <mpi.h>

#include <dash/dart/if/dart_mpi.h>

#include <algorithm>
#include <atomic>
#include <ctime>

#include <sched.h>

namespace dart {
namespace array {

namespace {

constexpr size_t kFlagStride = 64;  // bytes between two flags: one cache line each

int ndirs(int ndim) {
  int n = 1;
  for (int d = 0; d < ndim; ++d) n *= 3;
  return n;
}

size_t flag_index(int ndim, int kind, int dir) {
  return (size_t)kind * (size_t)ndirs(ndim) + (size_t)dir;
}

}  // namespace

size_t exchange_flag_bytes(int ndim) { return 2 * (size_t)ndirs(ndim) * kFlagStride; }

namespace {

// The direction vector of index dir.
Dims delta_of(int ndim, int dir) {
  Dims delta{};
  for (int d = ndim - 1; d >= 0; --d) {
    delta[d] = dir % 3 - 1;
    dir /= 3;
  }
  return delta;
}

// The boxes of the region between receiver coordinates r and source coordinates s in
// direction delta: extents, the ghost box's start in the receiver's block and the source
// box's start in the source's block (both blocks with ghosts, C order).
struct Boxes {
  Index ext{}, ghost_start{}, source_start{};
};

Boxes boxes(const Decomp &dc, const Dims &r, const Dims &s, const Dims &delta) {
  Boxes b;
  for (int d = 0; d < dc.ndim; ++d) {
    const int64_t lo = dc.halo_lo[d], er = dc.extent(d, r[d]), es = dc.extent(d, s[d]);
    switch (delta[d]) {
      case -1:  // the source's top halo_lo points -> the receiver's lower ghosts
        b.ext[d] = lo;
        b.ghost_start[d] = 0;
        b.source_start[d] = lo + es - lo;
        break;
      case 0:  // the same grid coordinate: the whole interior extent
        b.ext[d] = er;
        b.ghost_start[d] = lo;
        b.source_start[d] = lo;
        break;
      default:  // the source's first halo_hi points -> the receiver's upper ghosts
        b.ext[d] = dc.halo_hi[d];
        b.ghost_start[d] = lo + er;
        b.source_start[d] = lo;
        break;
    }
  }
  return b;
}

// Whether region delta exists for the stencil and has points (every side it lies on has
// a width).
bool region_exists(const Decomp &dc, const Dims &delta) {
  int moved = 0;
  for (int d = 0; d < dc.ndim; ++d) {
    if (delta[d] == 0) continue;
    ++moved;
    if ((delta[d] < 0 ? dc.halo_lo[d] : dc.halo_hi[d]) == 0) return false;
  }
  return moved == 1 || (moved > 1 && dc.stencil == DART_STENCIL_BOX);
}

// The neighbour of coordinates c in direction sign * delta; false past a boundary.
bool neighbour(const Decomp &dc, const Dims &c, const Dims &delta, int sign, Dims *out) {
  for (int d = 0; d < dc.ndim; ++d) {
    const int n = dc.step(d, c[d], sign * delta[d]);
    if (n < 0) return false;
    (*out)[d] = n;
  }
  return true;
}

dart_gptr_t flag_of(const dart_array_struct *a, int unit, int kind, int dir) {
  dart_gptr_t g = a->flags;
  g.unitid = unit;  // the same flag block, another unit (dart_gptr_setunit)
  g.addr_or_offs.offset = (uint64_t)(flag_index(a->dc.ndim, kind, dir) * kFlagStride);
  return g;
}

// Whether this unit's flag says the signal of this update has come.
bool flag_set(const dart_array_struct *a, const uint64_t *flag) {
  return __atomic_load_n(flag, __ATOMIC_ACQUIRE) >= a->epoch;
}

// One pause of a wait for flags: MPI progress first (a put from another node may need
// this unit inside MPI to land, MPICH's active messages), then the core away. After a
// while it sleeps, so that on an oversubscribed machine the units that have work run.
void pause(const dart_array_struct *a, unsigned *polls) {
  MPI_Comm comm = MPI_COMM_NULL;
  if (dart_team_comm(a->team, &comm) == DART_OK) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
  }
  if (++*polls < 1024) {
    sched_yield();
  } else {
    struct timespec ts = {0, 20 * 1000};
    nanosleep(&ts, nullptr);
  }
}

// Waits until this unit's flag says the signal of this update has come.
void wait_flag(const dart_array_struct *a, const uint64_t *flag) {
  unsigned polls = 0;
  while (!flag_set(a, flag)) pause(a, &polls);
}

// Sends a signal: a put of this update's epoch into the peer's flag, after every load and
// store of this unit before it (a fence: a peer that sees the flag and then reads or
// writes this unit's memory sees them done). The put's completion waits for the end of
// the update (complete_signals): a completion waits for a late peer on some MPIs, and the
// unit would serve its other neighbours only after that (issue 34's chain).
dart_ret_t signal(dart_array_struct *a, const dart_gptr_t &flag, const char *fn) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  dart_handle_t h = DART_HANDLE_NULL;
  DART_ARRAY_TRY(dart_put_handle(flag, &a->epoch, 1, DART_TYPE_ULONGLONG, DART_TYPE_ULONGLONG, &h),
                 fn);
  if (h != DART_HANDLE_NULL) a->signals.push_back(h);
  return DART_OK;
}

// Completes the signals of this update. By now each went to a neighbour that has
// answered it or is waiting for it, so none waits for a unit that is not a neighbour.
dart_ret_t complete_signals(dart_array_struct *a, const char *fn) {
  if (a->signals.empty()) return DART_OK;
  const dart_ret_t rc = dart_waitall(a->signals.data(), a->signals.size());
  a->signals.clear();
  DART_ARRAY_TRY(rc, fn);
  return DART_OK;
}

// Starts the transfer of region k of `side` (recv: a get, send: a put; its arrival is
// signalled once it is complete, complete_started).
dart_ret_t start(dart_array_struct *a, std::vector<Region> &side, size_t k, const char *fn) {
  Region &r = side[k];
  char *local = static_cast<char *>(a->local) + r.local_off * (int64_t)a->point_size;
  dart_handle_t h = DART_HANDLE_NULL;
  if (&side == &a->recv)
    DART_ARRAY_TRY(dart_get_handle(local, r.remote, r.nelem, r.remote_type, r.local_type, &h), fn);
  else
    DART_ARRAY_TRY(dart_put_handle(r.remote, local, r.nelem, r.local_type, r.remote_type, &h), fn);
  a->handles[k] = h;
  a->started[k] = 1;
  return DART_OK;
}

// The side whose regions this unit transfers.
std::vector<Region> &moving_side(dart_array_struct *a) {
  return a->exchange == DART_ARRAY_EXCHANGE_GET ? a->recv : a->send;
}

// Starts every region of the moving side whose go-ahead has arrived.
dart_ret_t start_ready(dart_array_struct *a, const char *fn) {
  std::vector<Region> &side = moving_side(a);
  const int kind = a->exchange == DART_ARRAY_EXCHANGE_GET ? 0 : 1;
  for (size_t k = 0; k < side.size(); ++k)
    if (!a->started[k] && flag_set(a, side[k].own_flag[kind])) DART_TRY(start(a, side, k, fn));
  return DART_OK;
}

// Completes every started region of the moving side not yet completed, and sends what
// its completion owes: the done signal to the source (GET), the arrival to the receiver
// after the data is complete there (NOTIFY).
dart_ret_t complete_started(dart_array_struct *a, const char *fn) {
  std::vector<Region> &side = moving_side(a);
  const bool get = a->exchange == DART_ARRAY_EXCHANGE_GET;
  for (size_t k = 0; k < side.size(); ++k) {
    if (a->started[k] != 1) continue;
    DART_ARRAY_TRY(dart_wait(&a->handles[k]), fn);
    DART_TRY(signal(a, side[k].peer_flag[get ? 1 : 0], fn));
    a->started[k] = 2;
  }
  return DART_OK;
}

// Moves every region of the moving side: starts each as its go-ahead arrives and
// completes it before it waits for another one. A unit never holds back what one
// neighbour may have (its data, its done signal) until another neighbour's go-ahead
// comes: waiting for the regions in a fixed order, or completing them all together,
// made every unit of a chain wait for the slowest unit of the chain (issue 34).
dart_ret_t move_all(dart_array_struct *a, const char *fn) {
  unsigned polls = 0;
  for (;;) {
    DART_TRY(start_ready(a, fn));
    DART_TRY(complete_started(a, fn));
    if (std::all_of(a->started.begin(), a->started.end(), [](char c) { return c == 2; }))
      return DART_OK;
    pause(a, &polls);
  }
}

}  // namespace

dart_ret_t exchange_plan(dart_array_struct *a, const char *fn) {
  const Decomp &dc = a->dc;
  const Index mine = a->local_shape;
  for (int dir = 0; dir < ndirs(dc.ndim); ++dir) {
    const Dims delta = delta_of(dc.ndim, dir);
    if (!region_exists(dc, delta)) continue;
    // Received: my ghosts of direction delta, from S = me + delta.
    Dims s{}, r{};
    if (neighbour(dc, a->coords, delta, +1, &s)) {
      const Boxes b = boxes(dc, a->coords, s, delta);
      Region g;
      g.dir = dir;
      g.peer = dc.unit_at(s);
      g.local_off = box_offset(dc.ndim, b.ghost_start, mine);
      const Index theirs = dc.local_shape(s);
      g.remote_off = box_offset(dc.ndim, b.source_start, theirs);
      a->recv.push_back(g);  // owns its types from here on (exchange_release)
      Region &x = a->recv.back();
      DART_TRY(box_type(a->dtype, a->components, dc.ndim, b.ext, c_strides(dc.ndim, mine),
                        &x.local_type, &x.nelem, fn));
      DART_TRY(box_type(a->dtype, a->components, dc.ndim, b.ext, c_strides(dc.ndim, theirs),
                        &x.remote_type, &x.nelem, fn));
    }
    // Served: my interior for the ghosts of direction delta of R = me - delta.
    if (neighbour(dc, a->coords, delta, -1, &r)) {
      const Boxes b = boxes(dc, r, a->coords, delta);
      Region g;
      g.dir = dir;
      g.peer = dc.unit_at(r);
      g.local_off = box_offset(dc.ndim, b.source_start, mine);
      const Index theirs = dc.local_shape(r);
      g.remote_off = box_offset(dc.ndim, b.ghost_start, theirs);
      a->send.push_back(g);
      Region &x = a->send.back();
      DART_TRY(box_type(a->dtype, a->components, dc.ndim, b.ext, c_strides(dc.ndim, mine),
                        &x.local_type, &x.nelem, fn));
      DART_TRY(box_type(a->dtype, a->components, dc.ndim, b.ext, c_strides(dc.ndim, theirs),
                        &x.remote_type, &x.nelem, fn));
    }
  }
  const size_t moving = moving_side(a).size();
  a->handles.assign(moving, DART_HANDLE_NULL);
  a->started.assign(moving, 0);
  return DART_OK;
}

dart_ret_t exchange_bind(dart_array_struct *a) {
  for (auto *side : {&a->recv, &a->send})
    for (Region &r : *side) {
      r.remote = a->mem;
      r.remote.unitid = r.peer;  // dart_gptr_setunit: the peer's block
      r.remote.addr_or_offs.offset = (uint64_t)(r.remote_off * (int64_t)a->point_size);
      for (int kind = 0; kind < 2; ++kind) {
        r.own_flag[kind] = a->own_flags + flag_index(a->dc.ndim, kind, r.dir) * kFlagStride / 8;
        r.peer_flag[kind] = flag_of(a, r.peer, kind, r.dir);
      }
    }
  return DART_OK;
}

void exchange_release(dart_array_struct *a) {
  for (auto *side : {&a->recv, &a->send})
    for (Region &r : *side) {
      if (r.local_type != DART_TYPE_UNDEFINED) dart_type_layout_release(r.local_type);
      if (r.remote_type != DART_TYPE_UNDEFINED) dart_type_layout_release(r.remote_type);
      r.local_type = r.remote_type = DART_TYPE_UNDEFINED;
    }
  a->recv.clear();
  a->send.clear();
  if (!a->signals.empty()) dart_waitall(a->signals.data(), a->signals.size());  // (failed)
  a->signals.clear();
}

dart_ret_t exchange_begin(dart_array_struct *a, const char *fn) {
  ++a->epoch;
  if (a->exchange == DART_ARRAY_EXCHANGE_GET) {
    for (const Region &s : a->send) DART_TRY(signal(a, s.peer_flag[0], fn));  // ready
  } else {
    for (const Region &r : a->recv) DART_TRY(signal(a, r.peer_flag[1], fn));  // free
  }
  std::fill(a->started.begin(), a->started.end(), 0);
  return start_ready(a, fn);
}

namespace {

dart_ret_t wait_for_neighbours(dart_array_struct *a, const char *fn) {
  DART_TRY(move_all(a, fn));  // GET: the gets and the done signals
  if (a->exchange == DART_ARRAY_EXCHANGE_GET) {
    for (const Region &s : a->send) wait_flag(a, s.own_flag[1]);  // done
  } else {
    for (const Region &r : a->recv) wait_flag(a, r.own_flag[0]);  // arrived
  }
  return DART_OK;
}

}  // namespace

dart_ret_t exchange_end(dart_array_struct *a, const char *fn) {
  const dart_ret_t rc = wait_for_neighbours(a, fn);
  const dart_ret_t src = complete_signals(a, fn);  // also after a failure: none is left
  return rc != DART_OK ? rc : src;
}

}  // namespace array
}  // namespace dart
