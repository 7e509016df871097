// SPDX-License-Identifier: BSD-3-Clause
// One-sided communication: put/get in their flush-based, blocking and handle forms.
//
// Same-node targets (shared-memory segments) are copied with load/store at once, so every
// form completes before it returns and a handle is DART_HANDLE_NULL. Other targets use
// MPI_Put/MPI_Get inside the window's lock_all epoch; completion is MPI_Win_flush
// (remote) or MPI_Win_flush_local (local). Handles record (window, target) only: no MPI
// request is created, so initiation costs what MPI_Put costs.
#include "internal.h"

#include <sched.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace dart {
namespace detail {
namespace {

struct Xfer {
  Target t;
  const Datatype *local;
  const Datatype *remote;
  size_t nelem;
};

// Validates a transfer and resolves its target. `local_t` describes the local buffer,
// `remote_t` the memory behind gptr; `put`: the remote side is written.
inline dart_ret_t prepare(const dart_gptr_t &gp, const void *buf, size_t nelem,
                          dart_datatype_t local_t, dart_datatype_t remote_t, bool put,
                          const char *fn, Xfer *x) {
  DART_TRY(check_init(fn));
  DART_TRY(check_type(local_t, fn, "local datatype", &x->local));
  DART_TRY(check_type(remote_t, fn, "remote datatype", &x->remote));
  if (DART_UNLIKELY(x->local->base != x->remote->base ||
                    x->local->elem_size != x->remote->elem_size))
    return fail(DART_ERR_INVAL, fn, "src_type and dst_type have different base types");
  if (DART_UNLIKELY(x->local->kind >= Datatype::Strided || x->remote->kind >= Datatype::Strided)) {
    DART_TRY(check_type_count(*x->local, nelem, fn));
    DART_TRY(check_type_count(*x->remote, nelem, fn));
    // Two elements written to one place: MPI leaves the result undefined; DART refuses.
    if ((put ? x->remote : x->local)->overlapping)
      return fail(DART_ERR_INVAL, fn,
                  "dst_type has overlapping blocks (allowed only in "
                  "src_type: a destination element would be written twice)");
  }
  if (DART_UNLIKELY(buf == nullptr && nelem > 0))
    return fail(DART_ERR_INVAL, fn, "local buffer is NULL");
  if (DART_UNLIKELY(x->remote->elem_size != 0 && nelem > SIZE_MAX / 2 / x->remote->elem_size))
    return fail(DART_ERR_INVAL, fn, "nelem %zu is too large", nelem);
  x->nelem = nelem;
  return resolve(gp, type_extent_bytes(*x->remote, nelem), fn, &x->t);
}

struct ChunkCtx {
  const Xfer *x;
  char *local;
  bool put;
  const char *fn;
};

dart_ret_t rma_chunk(void *c, size_t loff, size_t roff, size_t n) {
  const ChunkCtx *k = static_cast<const ChunkCtx *>(c);
  int lc, rc;
  MPI_Datatype lm, rm;
  DART_TRY(mpi_layout(*k->x->local, n, &lc, &lm, k->fn));
  if (dart_ret_t r = mpi_layout(*k->x->remote, n, &rc, &rm, k->fn); r != DART_OK) {
    mpi_layout_done(*k->x->local, n);
    return r;
  }
  const Target &t = k->x->t;
  const int mrc = k->put ? MPI_Put(k->local + loff, lc, lm, t.rank, (MPI_Aint)(t.disp + roff), rc,
                                   rm, t.win)
                         : MPI_Get(k->local + loff, lc, lm, t.rank, (MPI_Aint)(t.disp + roff), rc,
                                   rm, t.win);
  // Issued: the types may be freed now (MPI keeps what a started operation needs).
  mpi_layout_done(*k->x->local, n);
  mpi_layout_done(*k->x->remote, n);
  return mpi_check(mrc, k->fn, k->put ? "MPI_Put" : "MPI_Get");
}

// Whether nelem elements of t are one contiguous run (a basic type, one block of a
// strided type, a one-block pattern), and the element offset where it starts.
inline bool one_run(const Datatype &t, size_t nelem, size_t *first) {
  switch (t.kind) {
    case Datatype::Basic: *first = 0; return true;
    case Datatype::Strided: *first = 0; return nelem <= t.blocklen;
    case Datatype::Indexed:
      if (t.nblocks != 1 || nelem > t.pattern_elems) return false;
      *first = t.block(0).off;
      return true;
    default: return false;
  }
}

// Starts the MPI operations of a remote transfer (no completion). When both sides are
// one contiguous run, MPI gets the element type and a count, not the derived types:
// MPICH 4.0 (ch4:ucx) costs 0.1-0.2 us more per call for an indexed type of one block
// than for MPI_DOUBLE with a count (a 2 KiB face, docs/design.md "Datatypes").
inline dart_ret_t rma_start(const Xfer &x, const void *local, bool put, const char *fn) {
  if (x.nelem == 0) return DART_OK;
  size_t lf = 0, rf = 0;
  if (DART_LIKELY(x.nelem <= g->cfg.transfer_chunk && one_run(*x.local, x.nelem, &lf) &&
                  one_run(*x.remote, x.nelem, &rf))) {
    const int n = (int)x.nelem;
    const MPI_Datatype mt = x.local->mpi_elem;  // the same element on both sides (prepare)
    char *l = static_cast<char *>(const_cast<void *>(local)) + lf * x.local->elem_size;
    const MPI_Aint d = (MPI_Aint)(x.t.disp + rf * x.remote->elem_size);
    if (put) {
      DART_MPI(MPI_Put(l, n, mt, x.t.rank, d, n, mt, x.t.win), fn);
    } else {
      DART_MPI(MPI_Get(l, n, mt, x.t.rank, d, n, mt, x.t.win), fn);
    }
    return DART_OK;
  }
  ChunkCtx c{&x, static_cast<char *>(const_cast<void *>(local)), put, fn};
  return for_each_chunk(*x.local, *x.remote, x.nelem, &rma_chunk, &c);
}

// Load/store into window memory: a separate-model window is synced after the stores and
// before the loads (segment_sync, a no-op in the unified model).
inline void fast_copy(const Fast &f, void *local, bool put) {
  if (put) {
    copy_bytes(f.direct, local, f.bytes);
    std::atomic_thread_fence(std::memory_order_release);
    segment_sync(f.seg);
  } else {
    segment_sync(f.seg);
    std::atomic_thread_fence(std::memory_order_acquire);
    copy_bytes(local, f.direct, f.bytes);
  }
}

inline int fast_rma(const Fast &f, void *local, bool put) {
  return put ? MPI_Put(local, f.count, f.type, f.rank, f.disp, f.count, f.type, f.win)
             : MPI_Get(local, f.count, f.type, f.rank, f.disp, f.count, f.type, f.win);
}

inline void direct_put(const Xfer &x, const void *src) {
  if (x.nelem == 0) return;
  layout_copy(x.t.direct, *x.remote, static_cast<const char *>(src), *x.local, x.nelem);
  std::atomic_thread_fence(std::memory_order_release);
  segment_sync(x.t.seg);
}

inline void direct_get(const Xfer &x, void *dst) {
  if (x.nelem == 0) return;
  segment_sync(x.t.seg);
  std::atomic_thread_fence(std::memory_order_acquire);
  layout_copy(static_cast<char *>(dst), *x.local, x.t.direct, *x.remote, x.nelem);
}

// A blocking get on an oversubscribed machine (Backoff): MPI_Rget, then the request is
// polled with backoff instead of a busy-polling flush, so that the target unit (which
// MPICH needs inside MPI for the get to complete) gets the core.
dart_ret_t rget_backoff(const Fast &f, void *dest, const char *fn) {
  MPI_Request req;
  DART_MPI(MPI_Rget(dest, f.count, f.type, f.rank, f.disp, f.count, f.type, f.win, &req), fn);
  return wait_backoff(&req, fn);
}

// A blocking get whose remote layout is dense (the span from its first to its last
// element at most 5/4 of the bytes it moves, and at most kDenseSpanMax bytes) fetches the
// span with one contiguous MPI_Get into a per-thread scratch buffer and unpacks it here:
// one transfer instead of one per block. Open MPI 4.1's osc rdma moves a derived type
// block by block (one CMA system call each between ranks of one machine: a 32 x 256 B
// face 46 us against 3.7 us this way); between nodes, one RDMA read instead of one per
// block (a layout of one block is one transfer already).
// A get that completes later (dart_get, dart_get_handle) does the same into a buffer of
// its own and is unpacked by a run list made now (the types may be destroyed before the
// completion). Its completion is a flush of the target or of the whole window, or the
// handle's wait or test, on any thread: so the buffer is registered with the segment
// (Segment::unpacks), every flush unpacks the ones it covers, a handle's completion
// unpacks its own, and a state word makes sure exactly one of them copies and that the
// other one returns only after the copy.
constexpr size_t kDenseSpanMax = 1u << 20;

// The bytes of x's remote layout from its first element to its end when the layout is
// dense (0 when not), and that first element.
inline size_t dense_span(const Xfer &x, size_t *first) {
  const Datatype &r = *x.remote;
  // One block is one MPI transfer already (the unresized pattern): no scratch copy.
  if (r.kind == Datatype::Strided
          ? x.nelem <= r.blocklen
          : r.kind != Datatype::Indexed || (r.nblocks == 1 && x.nelem <= r.pattern_elems))
    return 0;
  *first = r.kind == Datatype::Indexed ? r.pattern_first : 0;
  const size_t bytes = x.nelem * r.elem_size;  // no overflow: checked by prepare
  const size_t span = type_extent_bytes(r, x.nelem) - *first * r.elem_size;
  return span <= kDenseSpanMax && span <= bytes + bytes / 4 ? span : 0;
}

// The MPI side of a dense-span get: `span` bytes from x's first remote element on.
inline Fast span_target(const Xfer &x, size_t span, size_t first) {
  Fast f;
  static_cast<Target &>(f) = x.t;
  f.disp += first * x.remote->elem_size;
  f.count = (int)span;  // <= kDenseSpanMax
  f.bytes = span;
  f.type = MPI_BYTE;
  return f;
}

dart_ret_t dense_span_get(const Xfer &x, void *dst, size_t span, size_t first, const char *fn) {
  thread_local std::vector<char> scratch;
  if (scratch.size() < span) scratch.resize(span);
  const Fast f = span_target(x, span, first);
  if (DART_UNLIKELY(g->oversubscribed)) {
    DART_TRY(rget_backoff(f, scratch.data(), fn));
  } else {
    DART_MPI(fast_rma(f, scratch.data(), false), fn);
    DART_MPI(win_flush_local(f.rank, f.win), fn);
  }
  layout_copy(static_cast<char *>(dst), *x.local, scratch.data(), *x.remote, x.nelem, first);
  return DART_OK;
}

}  // namespace

struct SpanUnpack {
  std::vector<char> span;
  char *dst = nullptr;
  std::vector<CopyRun> runs;
  int rank = -1;              // the target's rank in the window
  uint64_t seq = 0;           // its registration (Segment::unpack_seq)
  std::atomic<int> state{0};  // 0: pending, 1: being unpacked, 2: unpacked
  std::atomic<int> refs{1};   // the segment's list, and the handle if there is one
};

namespace {

// Unpacks u once: the first caller copies, a later one waits until the copy is done.
void unpack_once(SpanUnpack *u) {
  int expected = 0;
  if (u->state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    for (const CopyRun &r : u->runs) std::memcpy(u->dst + r.dst, u->span.data() + r.src, r.len);
    // The buffers go now; the record itself may wait in its segment's list until the
    // next flush or registration there.
    std::vector<char>().swap(u->span);
    std::vector<CopyRun>().swap(u->runs);
    u->state.store(2, std::memory_order_release);
    return;
  }
  while (u->state.load(std::memory_order_acquire) != 2) sched_yield();
}

void unref(SpanUnpack *u) {
  if (u->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete u;
}

dart_handle_struct *handle_alloc(MPI_Win win, int rank);

// With seg->unpack_mutex held: drops the records already unpacked and, after a flush
// (flushed), unpacks and drops those it covers: registered before `mark`, to window rank
// `rank` (-1: every rank).
void sweep_unpacks(Segment *seg, bool flushed, int rank, uint64_t mark) {
  auto &v = seg->unpacks;
  size_t keep = 0;
  for (SpanUnpack *u : v) {
    const bool covered = flushed && u->seq <= mark && (rank < 0 || u->rank == rank);
    if (covered) unpack_once(u);
    if (covered || u->state.load(std::memory_order_acquire) == 2) {
      unref(u);
    } else {
      v[keep++] = u;
    }
  }
  v.resize(keep);
  seg->unpack_pending.store(keep, std::memory_order_release);
}

// A dense-span get that completes at a flush (handle == nullptr) or with a handle.
dart_ret_t dense_span_get_later(const Xfer &x, void *dst, size_t span, size_t first,
                                dart_handle_t *handle, const char *fn) {
  std::unique_ptr<SpanUnpack> u(new SpanUnpack());
  u->span.resize(span);
  u->dst = static_cast<char *>(dst);
  layout_runs(*x.local, *x.remote, x.nelem, first, &u->runs);
  const Fast f = span_target(x, span, first);
  u->rank = f.rank;
  DART_MPI(fast_rma(f, u->span.data(), false), fn);
  SpanUnpack *p = u.release();
  if (handle != nullptr) {
    p->refs.store(2, std::memory_order_relaxed);
    *handle = handle_alloc(f.win, f.rank);
    (*handle)->unpack = p;
  }
  Segment *seg = x.t.seg;
  std::lock_guard<std::mutex> lock(seg->unpack_mutex);
  auto &v = seg->unpacks;
  if (v.size() >= seg->unpack_prune_at) {
    // Records their handles unpacked go (a flush drops them too). Pruning when the list
    // has doubled keeps a registration O(1) on average.
    sweep_unpacks(seg, false, -1, 0);
    seg->unpack_prune_at = std::max<size_t>(64, 2 * v.size());
  }
  p->seq = seg->unpack_seq.load(std::memory_order_relaxed) + 1;
  v.push_back(p);
  seg->unpack_pending.store(v.size(), std::memory_order_release);
  seg->unpack_seq.store(p->seq, std::memory_order_release);  // after the get was issued
  return DART_OK;
}

// ---- handle pool ----
// Each thread keeps its own free list (no lock on the hot path); beyond kThreadHandles
// free records, and when the thread ends, they go to the shared list under a mutex.
constexpr int kThreadHandles = 256;
std::mutex g_handle_mutex;
dart_handle_struct *g_handle_free = nullptr;

struct ThreadHandles {
  dart_handle_struct *free = nullptr;
  int count = 0;
  ~ThreadHandles() {
    if (free == nullptr) return;
    dart_handle_struct *last = free;
    while (last->next_free) last = last->next_free;
    std::lock_guard<std::mutex> lock(g_handle_mutex);
    last->next_free = g_handle_free;
    g_handle_free = free;
  }
};
thread_local ThreadHandles t_handles;

dart_handle_struct *handle_alloc(MPI_Win win, int rank) {
  dart_handle_struct *h = t_handles.free;
  if (h) {
    t_handles.free = h->next_free;
    --t_handles.count;
  } else {
    {
      std::lock_guard<std::mutex> lock(g_handle_mutex);
      h = g_handle_free;
      if (h) g_handle_free = h->next_free;
    }
    if (!h) h = new dart_handle_struct();
  }
  h->win = win;
  h->rank = rank;
  h->next_free = nullptr;
  h->notify = false;
  h->offload_seq = 0;
  h->unpack = nullptr;
  return h;
}

void handle_release(dart_handle_struct *h) {
  if (h->unpack != nullptr) {  // unpacked by the completion, or left to a flush
    unref(h->unpack);
    h->unpack = nullptr;
  }
  if (t_handles.count < kThreadHandles) {
    h->next_free = t_handles.free;
    t_handles.free = h;
    ++t_handles.count;
    return;
  }
  std::lock_guard<std::mutex> lock(g_handle_mutex);
  h->next_free = g_handle_free;
  g_handle_free = h;
}

// Completes one handle (remote or local completion) and releases it.
dart_ret_t complete(dart_handle_t *hp, bool local_only, const char *fn) {
  dart_handle_struct *h = *hp;
  if (h == DART_HANDLE_NULL) return DART_OK;
  if (h->offload_seq != 0) {  // carried out by the progress process
    dart_ret_t orc = progress_wait(h->offload_seq, fn);
    handle_release(h);
    *hp = DART_HANDLE_NULL;
    return orc;
  }
  if (h->notify) local_only = false;  // the counter update needs the put complete at the target
  int rc = local_only ? win_flush_local(h->rank, h->win) : MPI_Win_flush(h->rank, h->win);
  dart_ret_t nrc = (rc == MPI_SUCCESS && h->notify) ? notify_handle_complete(*h, fn) : DART_OK;
  if (rc == MPI_SUCCESS && h->unpack != nullptr) unpack_once(h->unpack);
  handle_release(h);
  *hp = DART_HANDLE_NULL;
  if (rc != MPI_SUCCESS)
    return mpi_fail(rc, fn, local_only ? "MPI_Win_flush_local" : "MPI_Win_flush");
  return nrc;
}

dart_ret_t complete_all(dart_handle_t handles[], size_t n, bool local_only, const char *fn) {
  DART_TRY(check_init(fn));
  if (handles == nullptr && n > 0) return fail(DART_ERR_INVAL, fn, "handles is NULL");
  dart_ret_t rc = DART_OK;
  MPI_Win last_win = MPI_WIN_NULL;
  int last_rank = -1;
  for (size_t i = 0; i < n; ++i) {
    dart_handle_struct *h = handles[i];
    if (h == DART_HANDLE_NULL) continue;
    if (h->win == last_win && h->rank == last_rank && !h->notify &&
        !h->offload_seq) {  // flushed just now
      if (h->unpack != nullptr) unpack_once(h->unpack);
      handle_release(h);
      handles[i] = DART_HANDLE_NULL;
      continue;
    }
    const MPI_Win win = h->win;
    const int rank = h->rank;
    dart_ret_t r = complete(&handles[i], local_only, fn);  // releases h
    // A failed flush completed nothing: the next handle to that target flushes again.
    last_win = r == DART_OK ? win : MPI_WIN_NULL;
    last_rank = rank;
    if (rc == DART_OK) rc = r;
  }
  return rc;
}

// Whether every offloaded transfer among the handles is complete (testall).
bool offloads_done(const dart_handle_t handles[], size_t n) {
  if (g == nullptr || g->progress == nullptr || handles == nullptr) return true;
  for (size_t i = 0; i < n; ++i)
    if (handles[i] != DART_HANDLE_NULL && handles[i]->offload_seq != 0 &&
        !progress_done(handles[i]->offload_seq))
      return false;
  return true;
}

enum class FlushKind { One, All, Local, LocalAll };

dart_ret_t flush_impl(const dart_gptr_t &gp, FlushKind kind, const char *fn) {
  Target t;
  DART_TRY(resolve(gp, 0, fn, &t));
  DART_TRY(progress_drain(fn));  // transfers offloaded to the progress process
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // Same-node put/get are complete already, but atomics to the same target went through
  // MPI on this window (docs/design.md, "Atomics"): the flush completes them. Registered
  // memory of a one-unit team has no window: everything on it completes at once.
  if (t.win == MPI_WIN_NULL) return DART_OK;
  const uint64_t mark = span_unpacks_mark(t.seg);
  switch (kind) {
    case FlushKind::One: DART_MPI(MPI_Win_flush(t.rank, t.win), fn); break;
    case FlushKind::Local: DART_MPI(win_flush_local(t.rank, t.win), fn); break;
    case FlushKind::All: DART_MPI(MPI_Win_flush_all(t.win), fn); break;
    case FlushKind::LocalAll: DART_MPI(win_flush_local_all(t.win), fn); break;
  }
  segment_sync(t.seg);  // separate model: completed RMA on own memory becomes loadable
  span_unpacks_flushed(t.seg, kind == FlushKind::One || kind == FlushKind::Local ? t.rank : -1,
                       mark);
  return DART_OK;
}

// The six put/get entry points: Put or get; complete at a flush (dart_put/dart_get),
// blocking (remote completion for a put, data arrived for a get), or handle-based.
// `local_t` describes buf, `remote_t` the memory behind gptr.
enum class Mode { AtFlush, Blocking, Handle };

template <bool Put, Mode M>
__attribute__((noinline)) dart_ret_t transfer_general(const dart_gptr_t &gptr, void *buf,
                                                      size_t nelem, dart_datatype_t local_t,
                                                      dart_datatype_t remote_t,
                                                      dart_handle_t *handle, const char *fn) {
  if (M == Mode::Handle && handle == nullptr) return fail(DART_ERR_INVAL, fn, "handle is NULL");
  if (M == Mode::Handle) *handle = DART_HANDLE_NULL;  // every error path below leaves it so
  // Progress processes: a blocking transfer first completes the offloaded ones.
  if (M == Mode::Blocking) DART_TRY(progress_drain(fn));
  Fast f;
  if (fast_target<false>(gptr, buf, nelem, local_t, remote_t, &f)) {
    if (M != Mode::Blocking && DART_UNLIKELY(g->progress != nullptr) &&
        progress_offload_wanted(f.bytes)) {
      if (!f.direct) {
        f.count = (int)nelem;
        f.type = basic_mpi_type(local_t);
      }
      if (uint64_t seq = progress_offload(Put, buf, f, f.bytes); seq != 0) {
        if (M == Mode::Handle) {
          *handle = handle_alloc(MPI_WIN_NULL, -1);
          (*handle)->offload_seq = seq;
        }
        return DART_OK;
      }
    }
    if (f.direct) {  // same node: done now
      fast_copy(f, buf, Put);
      if (M == Mode::Handle) *handle = DART_HANDLE_NULL;
      return DART_OK;
    }
    if (M == Mode::Blocking && !Put && DART_UNLIKELY(g->oversubscribed))
      return rget_backoff(f, buf, fn);
    DART_MPI(fast_rma(f, buf, Put), fn);
    if (M == Mode::Blocking) {
      DART_MPI(Put ? MPI_Win_flush(f.rank, f.win) : win_flush_local(f.rank, f.win), fn);
    } else if (M == Mode::Handle) {
      *handle = handle_alloc(f.win, f.rank);
    }
    return DART_OK;
  }
  Xfer x;
  DART_TRY(prepare(gptr, buf, nelem, local_t, remote_t, Put, fn, &x));
  if (x.t.direct || x.nelem == 0) {  // nothing moves for nelem == 0: no MPI call
    if (Put) {
      direct_put(x, buf);
    } else {
      direct_get(x, buf);
    }
    if (M == Mode::Handle) *handle = DART_HANDLE_NULL;
    return DART_OK;
  }
  if (!Put) {
    size_t first = 0;
    if (const size_t span = dense_span(x, &first))
      return M == Mode::Blocking ? dense_span_get(x, buf, span, first, fn)
                                 : dense_span_get_later(x, buf, span, first, handle, fn);
  }
  DART_TRY(rma_start(x, buf, Put, fn));
  if (M == Mode::Blocking) {
    DART_MPI(Put ? MPI_Win_flush(x.t.rank, x.t.win) : win_flush_local(x.t.rank, x.t.win), fn);
  } else if (M == Mode::Handle) {
    *handle = handle_alloc(x.t.win, x.t.rank);
  }
  return DART_OK;
}

// What each entry point inlines: a same-node transfer of one basic type whose translation
// is cached (no progress processes) costs the argument checks, the cache line and the
// copy, without a call and without the frame of the general path. Everything else, and
// every error, goes to transfer_general, which checks again from the start.
template <bool Put, Mode M>
__attribute__((always_inline)) inline dart_ret_t transfer(const dart_gptr_t &gptr, void *buf,
                                                          size_t nelem, dart_datatype_t local_t,
                                                          dart_datatype_t remote_t,
                                                          dart_handle_t *handle, const char *fn) {
  Fast f;
  if ((M != Mode::Handle || handle != nullptr) &&
      (f.bytes = fast_bytes(buf, nelem, local_t, remote_t)) != 0 &&
      DART_LIKELY(g->progress == nullptr) && xlate_hit(gptr, f.bytes, &f) && f.direct != nullptr) {
    fast_copy(f, buf, Put);
    if (M == Mode::Handle) *handle = DART_HANDLE_NULL;
    return DART_OK;
  }
  return transfer_general<Put, M>(gptr, buf, nelem, local_t, remote_t, handle, fn);
}

}  // namespace

dart_ret_t put_blocking_as(const dart_gptr_t &gptr, const void *src, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type, const char *fn) {
  return transfer<true, Mode::Blocking>(gptr, const_cast<void *>(src), nelem, src_type, dst_type,
                                        nullptr, fn);
}

dart_ret_t put_handle_as(const dart_gptr_t &gptr, const void *src, size_t nelem,
                         dart_datatype_t src_type, dart_datatype_t dst_type, dart_handle_t *handle,
                         const char *fn) {
  return transfer<true, Mode::Handle>(gptr, const_cast<void *>(src), nelem, src_type, dst_type,
                                      handle, fn);
}

void span_unpacks_flushed_slow(Segment *seg, int rank, uint64_t mark) {
  std::lock_guard<std::mutex> lock(seg->unpack_mutex);
  sweep_unpacks(seg, true, rank, mark);
}

dart_ret_t span_unpacks_release(Segment *seg, const char *fn) {
  if (seg->unpack_pending.load(std::memory_order_acquire) == 0) return DART_OK;
  // The gets are complete at the origin after a local flush of the window; a failed one
  // delivered nothing to unpack.
  const int rc = win_flush_local_all(seg->win);
  std::lock_guard<std::mutex> lock(seg->unpack_mutex);
  for (SpanUnpack *u : seg->unpacks) {
    if (rc == MPI_SUCCESS) unpack_once(u);
    unref(u);
  }
  seg->unpacks.clear();
  seg->unpack_pending.store(0, std::memory_order_release);
  return rc == MPI_SUCCESS ? DART_OK : mpi_fail(rc, fn, "MPI_Win_flush_local_all");
}

void handles_finalize() {
  // The calling thread's list too; other threads' lists stay theirs (plain memory).
  while (t_handles.free) {
    dart_handle_struct *h = t_handles.free;
    t_handles.free = h->next_free;
    delete h;
  }
  t_handles.count = 0;
  std::lock_guard<std::mutex> lock(g_handle_mutex);
  while (g_handle_free) {
    dart_handle_struct *h = g_handle_free;
    g_handle_free = h->next_free;
    delete h;
  }
}

}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_put(dart_gptr_t gptr, const void *src, size_t nelem, dart_datatype_t src_type,
                    dart_datatype_t dst_type) {
  return transfer<true, Mode::AtFlush>(gptr, const_cast<void *>(src), nelem, src_type, dst_type,
                                       nullptr, "dart_put");
}

dart_ret_t dart_get(void *dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,
                    dart_datatype_t dst_type) {
  return transfer<false, Mode::AtFlush>(gptr, dest, nelem, dst_type, src_type, nullptr, "dart_get");
}

dart_ret_t dart_put_blocking(dart_gptr_t gptr, const void *src, size_t nelem,
                             dart_datatype_t src_type, dart_datatype_t dst_type) {
  return transfer<true, Mode::Blocking>(gptr, const_cast<void *>(src), nelem, src_type, dst_type,
                                        nullptr, "dart_put_blocking");
}

dart_ret_t dart_get_blocking(void *dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,
                             dart_datatype_t dst_type) {
  return transfer<false, Mode::Blocking>(gptr, dest, nelem, dst_type, src_type, nullptr,
                                         "dart_get_blocking");
}

dart_ret_t dart_put_handle(dart_gptr_t gptr, const void *src, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_handle_t *handle) {
  return transfer<true, Mode::Handle>(gptr, const_cast<void *>(src), nelem, src_type, dst_type,
                                      handle, "dart_put_handle");
}

dart_ret_t dart_get_handle(void *dest, dart_gptr_t gptr, size_t nelem, dart_datatype_t src_type,
                           dart_datatype_t dst_type, dart_handle_t *handle) {
  return transfer<false, Mode::Handle>(gptr, dest, nelem, dst_type, src_type, handle,
                                       "dart_get_handle");
}

dart_ret_t dart_wait(dart_handle_t *handle) {
  const char *fn = "dart_wait";
  DART_TRY(check_init(fn));
  if (handle == nullptr) return fail(DART_ERR_INVAL, fn, "handle is NULL");
  return complete(handle, false, fn);
}

dart_ret_t dart_wait_local(dart_handle_t *handle) {
  const char *fn = "dart_wait_local";
  DART_TRY(check_init(fn));
  if (handle == nullptr) return fail(DART_ERR_INVAL, fn, "handle is NULL");
  return complete(handle, true, fn);
}

dart_ret_t dart_waitall(dart_handle_t handles[], size_t n) {
  return complete_all(handles, n, false, "dart_waitall");
}

dart_ret_t dart_waitall_local(dart_handle_t handles[], size_t n) {
  return complete_all(handles, n, true, "dart_waitall_local");
}

// A test completes the operation (flush) and reports it finished: MPI offers no way to
// ask whether a flush would block, and the flush of a started operation is bounded.
dart_ret_t dart_test(dart_handle_t *handleptr, int32_t *is_finished) {
  const char *fn = "dart_test";
  DART_TRY(check_init(fn));
  if (handleptr == nullptr) return fail(DART_ERR_INVAL, fn, "handle is NULL");
  if (is_finished == nullptr) return fail(DART_ERR_INVAL, fn, "is_finished is NULL");
  if (*handleptr != DART_HANDLE_NULL && (*handleptr)->offload_seq != 0 &&
      !progress_done((*handleptr)->offload_seq)) {
    *is_finished = 0;  // the progress process has not completed it yet
    return DART_OK;
  }
  DART_TRY(complete(handleptr, false, fn));
  *is_finished = 1;
  return DART_OK;
}

dart_ret_t dart_test_local(dart_handle_t *handle, int32_t *result) {
  const char *fn = "dart_test_local";
  DART_TRY(check_init(fn));
  if (handle == nullptr) return fail(DART_ERR_INVAL, fn, "handle is NULL");
  if (result == nullptr) return fail(DART_ERR_INVAL, fn, "result is NULL");
  if (*handle != DART_HANDLE_NULL && (*handle)->offload_seq != 0 &&
      !progress_done((*handle)->offload_seq)) {
    *result = 0;
    return DART_OK;
  }
  DART_TRY(complete(handle, true, fn));
  *result = 1;
  return DART_OK;
}

dart_ret_t dart_testall(dart_handle_t handles[], size_t n, int32_t *is_finished) {
  const char *fn = "dart_testall";
  if (is_finished == nullptr) {
    DART_TRY(check_init(fn));
    return fail(DART_ERR_INVAL, fn, "is_finished is NULL");
  }
  if (!offloads_done(handles, n)) {
    *is_finished = 0;
    return DART_OK;
  }
  DART_TRY(complete_all(handles, n, false, fn));
  *is_finished = 1;
  return DART_OK;
}

dart_ret_t dart_testall_local(dart_handle_t handles[], size_t n, int32_t *result) {
  const char *fn = "dart_testall_local";
  if (result == nullptr) {
    DART_TRY(check_init(fn));
    return fail(DART_ERR_INVAL, fn, "result is NULL");
  }
  if (!offloads_done(handles, n)) {
    *result = 0;
    return DART_OK;
  }
  DART_TRY(complete_all(handles, n, true, fn));
  *result = 1;
  return DART_OK;
}

dart_ret_t dart_handle_free(dart_handle_t *handle) {
  const char *fn = "dart_handle_free";
  DART_TRY(check_init(fn));
  if (handle == nullptr) return fail(DART_ERR_INVAL, fn, "handle is NULL");
  if (*handle != DART_HANDLE_NULL && (*handle)->notify)
    return complete(handle, false, fn);  // a put_notify's counter update is never dropped
  if (*handle != DART_HANDLE_NULL) {
    handle_release(*handle);  // the operation completes at the next flush of its target
    *handle = DART_HANDLE_NULL;
  }
  return DART_OK;
}

dart_ret_t dart_flush(dart_gptr_t gptr) { return flush_impl(gptr, FlushKind::One, "dart_flush"); }
dart_ret_t dart_flush_all(dart_gptr_t gptr) {
  return flush_impl(gptr, FlushKind::All, "dart_flush_all");
}
dart_ret_t dart_flush_local(dart_gptr_t gptr) {
  return flush_impl(gptr, FlushKind::Local, "dart_flush_local");
}
dart_ret_t dart_flush_local_all(dart_gptr_t gptr) {
  return flush_impl(gptr, FlushKind::LocalAll, "dart_flush_local_all");
}

}  // extern "C"
