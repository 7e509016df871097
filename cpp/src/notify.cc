// SPDX-License-Identifier: BSD-3-Clause
// Notified access (dart_notify.h): put-with-notification, event posts and waits on
// 64-bit counters in counter blocks of dart_notify_alloc.
//
// A counter block is an ordinary collective segment (globmem.cc) marked `counters`, so
// every counter is found by the one lookup and every other gptr is refused. The counter
// word takes the path of every atomic on its location (docs/design.md, "Atomics"): CPU
// atomic instructions on the shared memory of a single-node team, MPI atomics through the
// segment's window otherwise. This file calls the atomics of atomic.cc
// (dart_accumulate, dart_fetch_and_op, dart_compare_and_swap) for every read-modify-write
// of a counter, so both paths and their MPI workarounds stay in one place.
//
// Order (docs/design.md, "Notified access"): the data first, complete at its target,
// then the counter. MPI orders accumulates only with accumulates to the same location,
// so an MPI_Put followed by an MPI_Accumulate on the counter could overtake; the put is
// flushed (MPI_Win_flush) before the counter update is issued. A same-node put is a copy
// followed by a release fence, and the counter update is a sequentially consistent atomic.
//
// A native MPI_Put_notify would let the MPI library do the two steps in one network
// operation. CMake checks for it (DART_HAVE_MPI_PUT_NOTIFY) but there is no standard
// signature to code against and no MPI on our machines provides it (Debian 12: MPICH
// 4.0.2, Open MPI 4.1.4), so no such path is compiled: an untested path would be a guess.
#include "internal.h"

#include <cstring>

namespace dart {
namespace detail {
namespace {

constexpr size_t kCounterBytes = sizeof(uint64_t);

#define DART_X_NOTIFY_NAME_(name, value) \
  static_assert(DART_NOTIFY_##name == value, "dart_notify_op_t and dart_tables.h disagree");
DART_NOTIFY_OP_LIST(DART_X_NOTIFY_NAME_)
#undef DART_X_NOTIFY_NAME_

// A validated counter: its target (always with the window fields) and its path.
struct Counter {
  dart_gptr_t gp;
  Target t;
  bool cpu;  // CPU atomics on shared memory; else MPI atomics through t.win
};

dart_ret_t check_counter(const dart_gptr_t &gp, const char *fn, Counter *c) {
  DART_TRY(check_init(fn));
  DART_TRY(resolve(gp, kCounterBytes, fn, &c->t));
  if (DART_UNLIKELY(!c->t.seg->counters))
    return fail(DART_ERR_INVAL, fn,
                "gptr (unit %d, segment %d of team %d) is not a notification counter "
                "(counters come from dart_notify_alloc)",
                (int)gp.unitid, (int)gp.segid, (int)gp.teamid);
  if (DART_UNLIKELY(gp.addr_or_offs.offset % kCounterBytes != 0))
    return fail(DART_ERR_INVAL, fn, "offset %llu is not a counter: counters are %zu bytes apart",
                (unsigned long long)gp.addr_or_offs.offset, kCounterBytes);
  c->gp = gp;
  c->cpu = c->t.seg->cpu_atomics && c->t.direct != nullptr;
  return DART_OK;
}

// The calling unit's own counter (waits and tests subtract from it).
dart_ret_t check_own_counter(const dart_gptr_t &gp, const char *fn, Counter *c) {
  DART_TRY(check_counter(gp, fn, c));
  const int me = c->t.seg->team->myid;
  if (DART_UNLIKELY(gp.unitid != me))
    return fail(DART_ERR_INVAL, fn,
                "counter belongs to unit %d of team %d: a unit waits only on its own "
                "counters (unit %d)",
                (int)gp.unitid, (int)gp.teamid, me);
  return DART_OK;
}

dart_ret_t check_op(dart_notify_op_t op, const char *fn, dart_operation_t *aop) {
  switch (op) {
    case DART_NOTIFY_SET: *aop = DART_OP_REPLACE; return DART_OK;
    case DART_NOTIFY_ADD: *aop = DART_OP_SUM; return DART_OK;
  }
  return fail(DART_ERR_INVAL, fn, "op %d is not DART_NOTIFY_SET or DART_NOTIFY_ADD", (int)op);
}

// The counter update, complete at the target on return (the MPI path flushes, so a
// notification never waits for a later flush of this unit).
dart_ret_t counter_update(const Counter &c, uint64_t value, dart_operation_t aop, const char *fn) {
  unsigned long long v = value;
  DART_TRY(dart_accumulate(c.gp, &v, 1, DART_TYPE_ULONGLONG, aop));
  if (c.cpu) return DART_OK;
  DART_MPI(MPI_Win_flush(c.t.rank, c.t.win), fn);
  return DART_OK;
}

// An atomic read: an acquire load on the CPU path; MPI_Fetch_and_op(MPI_NO_OP) + flush
// on the MPI path, because MPI_Accumulate results are defined for MPI atomics only (and
// under MPICH they are applied by this process's progress engine, which the call drives).
dart_ret_t counter_read(const Counter &c, uint64_t *value) {
  if (c.cpu) {
    *value = __atomic_load_n(reinterpret_cast<const uint64_t *>(c.t.direct), __ATOMIC_ACQUIRE);
    return DART_OK;
  }
  unsigned long long v = 0;
  DART_TRY(dart_fetch_and_op(c.gp, nullptr, &v, DART_TYPE_ULONGLONG, DART_OP_NO_OP));
  *value = v;
  return DART_OK;
}

// If the counter is >= n, subtract n (a compare-and-swap loop, atomic with respect to
// concurrent ADDs and SETs) and set *done.
dart_ret_t counter_take(const Counter &c, uint64_t n, bool *done) {
  uint64_t seen;
  DART_TRY(counter_read(c, &seen));
  *done = false;
  if (n == 0) {
    *done = true;
    return DART_OK;
  }
  while (seen >= n) {
    unsigned long long want = seen - n, expect = seen, old = 0;
    DART_TRY(dart_compare_and_swap(c.gp, &want, &expect, &old, DART_TYPE_ULONGLONG));
    if (old == seen) {
      *done = true;
      std::atomic_thread_fence(std::memory_order_acquire);  // then the data is read
      return DART_OK;
    }
    seen = old;
  }
  return DART_OK;
}

// Completes this unit's outstanding puts on every window it may have written to: the
// windows of all segments of all its teams (dart_flush_all on each). DART keeps no
// record of which windows have operations in flight; a flush of an idle window is cheap.
dart_ret_t flush_all_windows(const char *fn) {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // same-node copies
  dart_ret_t ret = DART_OK;
  auto flush = [&](size_t, Segment *s) {
    if (ret == DART_OK && s->win != MPI_WIN_NULL) {
      const uint64_t mark = span_unpacks_mark(s);
      ret = mpi_check(MPI_Win_flush_all(s->win), fn, "MPI_Win_flush_all");
      if (ret == DART_OK) span_unpacks_flushed(s, -1, mark);
    }
  };
  g->teams.for_each_desc([&](size_t, const Team *t) {
    t->alloc_segs.for_each_desc(flush);
    t->reg_segs.for_each_desc(flush);
  });
  return ret;
}

}  // namespace

dart_ret_t notify_handle_complete(const dart_handle_struct &h, const char *fn) {
  Counter c;
  dart_operation_t aop = DART_OP_SUM;
  DART_TRY(check_counter(h.notify_counter, fn, &c));
  DART_TRY(check_op((dart_notify_op_t)h.notify_op, fn, &aop));
  return counter_update(c, h.notify_value, aop, fn);
}

}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_notify_alloc(dart_team_t team, size_t n, dart_gptr_t *base) {
  const char *fn = "dart_notify_alloc";
  null_out(base, DART_GPTR_NULL);
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(team, fn, &t));
  // A bad argument on one unit fails on every unit: the checks' result goes into the
  // allocation's agreement (segment_alloc_shared), as for dart_team_memalloc_aligned.
  dart_ret_t local = DART_OK;
  if (base == nullptr)
    local = fail(DART_ERR_INVAL, fn, "base is NULL");
  else if (n == 0)
    local = fail(DART_ERR_INVAL, fn, "n must be at least 1");
  else if (n > SIZE_MAX / 2 / kCounterBytes)
    local = fail(DART_ERR_INVAL, fn, "n %zu is too large", n);
  int16_t segid = 0;
  if (local == DART_OK) local = segment_new_id(t, &segid, fn);
  Segment *s = nullptr;
  DART_TRY(segment_alloc_shared(t, local == DART_OK ? n * kCounterBytes : 0, segid, &s, fn, local));
  s->counters = true;
  std::memset(s->local_base, 0, n * kCounterBytes);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // Nobody notifies a counter before its owner zeroed it.
  if (int rc = MPI_Barrier(t->comm); rc != MPI_SUCCESS) {
    segment_free(s, fn);
    return mpi_fail(rc, fn, "MPI_Barrier");
  }
  return dart_gptr_make(0, 0, segid, team, 0, base);  // unit 0's first counter
}

dart_ret_t dart_notify_free(dart_gptr_t base) {
  const char *fn = "dart_notify_free";
  dart_gptr_t at0 = base;
  at0.addr_or_offs.offset = 0;
  Counter c;
  DART_TRY(check_counter(at0, fn, &c));
  return segment_free(c.t.seg, fn);
}

dart_ret_t dart_put_notify(dart_gptr_t dst, const void *src, size_t nelem, dart_datatype_t src_type,
                           dart_datatype_t dst_type, dart_gptr_t counter, uint64_t value,
                           dart_notify_op_t op) {
  const char *fn = "dart_put_notify";
  Counter c;
  dart_operation_t aop = DART_OP_SUM;
  DART_TRY(check_counter(counter, fn, &c));
  DART_TRY(check_op(op, fn, &aop));
  DART_TRY(put_blocking_as(dst, src, nelem, src_type, dst_type, fn));
  return counter_update(c, value, aop, fn);
}

dart_ret_t dart_put_notify_handle(dart_gptr_t dst, const void *src, size_t nelem,
                                  dart_datatype_t src_type, dart_datatype_t dst_type,
                                  dart_gptr_t counter, uint64_t value, dart_notify_op_t op,
                                  dart_handle_t *handle) {
  const char *fn = "dart_put_notify_handle";
  null_out(handle, DART_HANDLE_NULL);
  Counter c;
  dart_operation_t aop = DART_OP_SUM;
  DART_TRY(check_counter(counter, fn, &c));
  DART_TRY(check_op(op, fn, &aop));
  if (handle == nullptr) return fail(DART_ERR_INVAL, fn, "handle is NULL");
  DART_TRY(put_handle_as(dst, src, nelem, src_type, dst_type, handle, fn));
  if (*handle == DART_HANDLE_NULL) return counter_update(c, value, aop, fn);  // copied already
  dart_handle_struct *h = *handle;
  h->notify = true;
  h->notify_counter = counter;
  h->notify_value = value;
  h->notify_op = (int)op;
  return DART_OK;
}

dart_ret_t dart_notify(dart_gptr_t counter, uint64_t value, dart_notify_op_t op) {
  const char *fn = "dart_notify";
  Counter c;
  dart_operation_t aop = DART_OP_SUM;
  DART_TRY(check_counter(counter, fn, &c));
  DART_TRY(check_op(op, fn, &aop));
  DART_TRY(flush_all_windows(fn));
  return counter_update(c, value, aop, fn);
}

dart_ret_t dart_notify_signal(dart_gptr_t counter, uint64_t value, dart_notify_op_t op) {
  const char *fn = "dart_notify_signal";
  Counter c;
  dart_operation_t aop = DART_OP_SUM;
  DART_TRY(check_counter(counter, fn, &c));
  DART_TRY(check_op(op, fn, &aop));
  // The caller's own accesses before the update: a full fence for the same-node path (a
  // reader loads after its acquire of the counter) and, in the separate memory model,
  // the windows' public copies (a reader gets by RMA). Nothing else is flushed.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  sync_separate_segments();
  return counter_update(c, value, aop, fn);
}

dart_ret_t dart_notify_wait(dart_gptr_t counter, uint64_t until_count) {
  const char *fn = "dart_notify_wait";
  Counter c;
  DART_TRY(check_own_counter(counter, fn, &c));
  Backoff b;
  for (;;) {
    bool done = false;
    DART_TRY(counter_take(c, until_count, &done));
    if (done) return DART_OK;
    // The MPI path's read drives MPI progress itself; on the CPU path a probe lets
    // peers' MPI operations on this unit's other memory progress (MPICH needs the
    // target inside MPI, docs/design.md "Progress") while it waits.
    if (c.cpu && g->nnodes > 1) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, g->world, &flag, MPI_STATUS_IGNORE);
    }
    b.pause();
  }
}

dart_ret_t dart_notify_test(dart_gptr_t counter, uint64_t until_count, int32_t *flag) {
  const char *fn = "dart_notify_test";
  Counter c;
  DART_TRY(check_own_counter(counter, fn, &c));
  if (flag == nullptr) return fail(DART_ERR_INVAL, fn, "flag is NULL");
  bool done = false;
  DART_TRY(counter_take(c, until_count, &done));
  *flag = done ? 1 : 0;
  return DART_OK;
}

dart_ret_t dart_notify_get(dart_gptr_t counter, uint64_t *value) {
  const char *fn = "dart_notify_get";
  Counter c;
  DART_TRY(check_counter(counter, fn, &c));
  if (value == nullptr) return fail(DART_ERR_INVAL, fn, "value is NULL");
  return counter_read(c, value);
}

}  // extern "C"
