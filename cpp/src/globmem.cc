// SPDX-License-Identifier: BSD-3-Clause
// Global memory: the per-unit pool (dart_memalloc), collective aligned allocations,
// registration of user memory, and global pointer helpers.
//
// Window policy (docs/design.md): every allocation is MPI_Win_allocate_shared memory on
// the team's node communicator (direct load/store for same-node units). When the team
// spans more than one node the same memory is also exposed with MPI_Win_create on the
// team communicator for MPI RMA; a team inside one node uses the shared window for both.
// Each window gets one MPI_Win_lock_all epoch for its whole life.
#include "internal.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <unordered_set>

namespace dart {
namespace detail {

// ---------------------------------------------------------------------------
// translation cache (internal.h, lookup)
// ---------------------------------------------------------------------------
SeqSlot<Xlate> g_xlate[1u << kXlateBits];

void xlate_fill(const dart_gptr_t &gp, uint64_t epoch, const Segment *seg, int unit) {
  const uint64_t key = xlate_key(gp);
  xlate_slot(key).write(Xlate{key, epoch, seg->direct[unit], seg->size_of(unit), seg->pad_of(unit),
                              const_cast<Segment *>(seg), seg->rank_of(unit)});
}

Segment::~Segment() { xlate_forget(); }

// ---------------------------------------------------------------------------
// alignment of collective segments
// ---------------------------------------------------------------------------
namespace {
constexpr size_t kAlign = 64;
}  // namespace

// ---------------------------------------------------------------------------
// segments
// ---------------------------------------------------------------------------
namespace {

dart_ret_t set_window_errhandler(MPI_Win w, const char *fn) {
  return mpi_check(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN), fn, "MPI_Win_set_errhandler");
}

void store_segment(Team *t, Segment *s) { t->set_segment(s->segid, s); }

// Next free segment id of a team; deterministic, so every member computes the same one.
// Ids cycle through 1..32767 and skip live ones: a freed id is reused only after all
// others have been handed out, so a stale gptr is detected for a long time.
dart_ret_t next_segid(Team *t, bool registered, int16_t *out, const char *fn) {
  int16_t &next = registered ? t->next_reg : t->next_alloc;
  for (int tries = 0; tries < 32767; ++tries) {
    int16_t id = next;
    next = (int16_t)(next == 32767 ? 1 : next + 1);
    int16_t segid = registered ? (int16_t)-id : id;
    // A registration retired here but not yet freed keeps its id on every unit.
    const bool pending = registered &&
                         std::any_of(t->regs.begin(), t->regs.end(),
                                     [&](const Segment *s) { return s->segid == segid; });
    if (t->segment(segid) == nullptr && !pending) {
      *out = segid;
      return DART_OK;
    }
  }
  return fail(DART_ERR_NOMEM, fn, "team %d has 32767 live %s segments", (int)t->id,
              registered ? "registered" : "allocated");
}

}  // namespace

dart_ret_t alloc_bytes(size_t nelem, dart_datatype_t dtype, size_t *nbytes, const char *fn) {
  const Datatype *dt;
  DART_TRY(check_type(dtype, fn, "dtype", &dt));
  if (dt->kind == Datatype::Strided || dt->kind == Datatype::Indexed)
    return fail(DART_ERR_INVAL, fn, "dtype must be a basic or custom type, not strided/indexed");
  if (dt->elem_size != 0 && nelem > SIZE_MAX / dt->elem_size)
    return fail(DART_ERR_INVAL, fn, "nelem %zu * element size %zu overflows", nelem, dt->elem_size);
  *nbytes = nelem * dt->elem_size;
  return DART_OK;
}

dart_ret_t segment_new_id(Team *t, int16_t *segid, const char *fn) {
  return next_segid(t, false, segid, fn);
}

int create_window(void *base, MPI_Aint size, Team *t, MPI_Win *win, bool dynamic) {
  // base == nullptr && dynamic: MPI_Win_create_dynamic (the team's registrations).
  auto create = [&] {
    return dynamic ? MPI_Win_create_dynamic(MPI_INFO_NULL, t->comm, win)
                   : MPI_Win_create(base, size, 1, MPI_INFO_NULL, t->comm, win);
  };
  if (g->progress != nullptr) {  // every window creation under the progress processes' lock
    int rc = MPI_SUCCESS;
    progress_locked(t->comm, [&] { rc = create(); }, "MPI_Win_create");
    return rc;
  }
  if (g->machine_lock == nullptr)  // no quirk ompi-rdma-shared-file
    return create();
  // Quirk ompi-rdma-shared-file (quirks.h): while osc/rdma creates a window's file, no
  // other team on this machine may create one. The lock word holds the token of the team
  // creating: each unit takes it or finds its own team's token there, the team agrees
  // that every unit holds it (one reduction), creates the window and releases it; the
  // file is unlinked inside MPI_Win_create before any unit returns. A team that holds
  // only some machines' words releases them and retries after a random pause, so teams
  // spanning several machines cannot deadlock.
  // The token is the team id + 1 and the global id of the team's unit 0: ids are never
  // reused, but the disjoint teams of one dart_team_create (a split by colour) share
  // theirs, and with the id alone a unit of one such team took the other's word for its
  // own team's (both created at once: MPI_ERR_WIN, issue 34). A unit is in at most one
  // team of an id, so the pair names one team.
  int64_t *word = g->machine_lock;
  const int64_t token = ((int64_t)t->id + 1) << 32 | (int64_t)(uint32_t)t->global[0];
  auto release = [&] {
    int64_t expected = token;
    __atomic_compare_exchange_n(word, &expected, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  };
  unsigned seed = (unsigned)g->myid * 2654435761u + (unsigned)token;
  for (unsigned attempt = 0;; ++attempt) {
    int64_t expected = 0;
    const bool got = __atomic_compare_exchange_n(word, &expected, token, false, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE) ||
                     expected == token;
    int mine = got ? 1 : 0, all = 0;
    int rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, t->comm);
    if (rc == MPI_SUCCESS && all) rc = create();
    if (got) release();
    if (rc != MPI_SUCCESS || all) return rc;
    seed = seed * 1103515245u + 12345u;
    Backoff b;
    for (unsigned i = 0, n = 1 + (seed >> 16) % (attempt < 8 ? attempt + 1 : 8); i < n; ++i)
      b.pause();
  }
}

// The windows of a shared allocation without progress processes: shared memory on the
// node communicator, and for a team spanning nodes MPI_Win_create over it.
static void shared_windows(Team *t, Segment *s, size_t padded, Agreement *a, const char *fn) {
  const size_t nbytes = s->local_size;
  // Every unit passes the same info (made at dart_init), also one that has failed
  // already: MPICH computes the layout from the node leader's info, and a unit whose info
  // differs maps past the end of the shared file (SIGBUS on its first store).
  char *base = nullptr;
  // Every unit's part starts 64-byte aligned (quirk shared-part-alignment, quirks.h): MPI
  // does not promise it; Open MPI's osc sm hands out parts that start 8 bytes past a page
  // boundary. So each part is allocated
  // with kAlign bytes of slack and DART's part starts at the first aligned address in
  // it. Shared mappings are page aligned, so every process computes the same pad for a
  // part from its own mapping; `pads` turns DART offsets into displacements of the
  // shared window where it is the RMA window too (single-node teams).
  // A unit that has failed already still takes part in every collective, with 0 bytes.
  int rc = MPI_Win_allocate_shared(a->ok() ? (MPI_Aint)padded : 0, 1, g->shm_info[0], t->node_comm,
                                   &base, &s->shm_win);
  if (rc != MPI_SUCCESS) {
    s->shm_win = MPI_WIN_NULL;
    dart_ret_t r = mpi_fail(rc, fn, "MPI_Win_allocate_shared");
    if (r == DART_ERR_NOMEM)
      r = fail(DART_ERR_NOMEM, fn, "cannot allocate %zu bytes of shared memory per unit", nbytes);
    a->step(r);
  } else if (fault(FaultSite::WinAllocateShared)) {
    a->step(fault_fail(FaultSite::WinAllocateShared, fn, "MPI_Win_allocate_shared"));
  }
  a->expect(Agreement::ShmWin, s->shm_win != MPI_WIN_NULL);
  if (s->shm_win != MPI_WIN_NULL) a->step(set_window_errhandler(s->shm_win, fn));
  auto align = [](char *p) {
    return reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(p) + kAlign - 1) / kAlign *
                                    kAlign);
  };
  s->direct.assign(t->size, nullptr);
  std::vector<uint64_t> pads(t->size, 0);
  bool padded_any = false;
  if (a->ok()) {
    s->local_base = align(base);
    for (int u = 0; u < t->size && a->ok(); ++u) {
      if (t->node_rank[u] < 0) continue;
      MPI_Aint sz = 0;
      int du = 0;
      char *p = nullptr;
      rc = MPI_Win_shared_query(s->shm_win, t->node_rank[u], &sz, &du, &p);
      if (rc != MPI_SUCCESS)
        a->step(mpi_fail(rc, fn, "MPI_Win_shared_query"));
      else if (fault(FaultSite::WinSharedQuery))
        a->step(fault_fail(FaultSite::WinSharedQuery, fn, "MPI_Win_shared_query"));
      s->direct[u] = align(p);
      pads[u] = (uint64_t)(s->direct[u] - p);
      padded_any = padded_any || pads[u] != 0;
    }
    s->direct[t->myid] = s->local_base;
  }
  if (t->single_node && padded_any) s->pads = std::move(pads);
  s->cpu_atomics = t->single_node;
  if (t->single_node) {
    s->win = s->shm_win;
  } else {
    const bool mine = a->ok();
    rc = create_window(mine ? s->local_base : nullptr, mine ? (MPI_Aint)nbytes : 0, t, &s->win,
                       false);
    if (rc != MPI_SUCCESS) {
      s->win = MPI_WIN_NULL;
      a->step(mpi_fail(rc, fn, "MPI_Win_create"));
    } else if (fault(FaultSite::WinCreate)) {
      a->step(fault_fail(FaultSite::WinCreate, fn, "MPI_Win_create"));
    }
    a->expect(Agreement::Win, s->win != MPI_WIN_NULL);
    if (s->win != MPI_WIN_NULL) a->step(set_window_errhandler(s->win, fn));
  }
}

Segment *segment_create_shared(Team *t, size_t nbytes, int16_t segid, Agreement *a,
                               const char *fn) {
  Segment *s = new Segment();
  s->team = t;
  s->segid = segid;
  s->local_size = nbytes;
  const size_t padded = (nbytes + kAlign - 1) / kAlign * kAlign + kAlign;
  if (padded < nbytes) a->step(fail(DART_ERR_INVAL, fn, "size %zu overflows", nbytes));
  if (t->served()) {  // progress processes map it and expose it (progress.cc)
    progress_segment_create(t, s, a->ok() ? padded : 0, a, fn);
    a->expect(Agreement::ShmWin, s->shm_win != MPI_WIN_NULL);
    a->expect(Agreement::Win, s->win != MPI_WIN_NULL);
  } else {
    shared_windows(t, s, padded, a, fn);
  }
  // The epochs (local calls): a window is locked only if its unit has succeeded so far;
  // segment_discard unlocks what was locked.
  auto lock_all = [&](MPI_Win w, bool *locked) {
    if (!a->ok() || w == MPI_WIN_NULL) return;
    if (int lrc = MPI_Win_lock_all(MPI_MODE_NOCHECK, w); lrc != MPI_SUCCESS)
      return a->step(mpi_fail(lrc, fn, "MPI_Win_lock_all"));
    *locked = true;
    if (fault(FaultSite::WinLockAll))
      a->step(fault_fail(FaultSite::WinLockAll, fn, "MPI_Win_lock_all"));
  };
  if (s->win != s->shm_win) lock_all(s->win, &s->locked_win);
  lock_all(s->shm_win, &s->locked_shm);
  return s;
}

void segment_store(Segment *s) {
  segment_note_model(s);
  store_segment(s->team, s);
}

void segment_discard(Segment *s, const Agreement &a) {
  if (s->registered) {  // a failed registration: its memory leaves the team's window
    registration_detach(s, "segment_discard");
    delete s;
    return;
  }
  if (!s->ranks.empty() || (s->team->served() && !s->registered)) {
    progress_segment_free(s, a.held_by_all(Agreement::Win) && a.held_by_all(Agreement::ShmWin),
                          "segment_discard");
    delete s;
    return;
  }
  // Same order on every unit (the RMA window, then the shared one): collective frees.
  if (s->win != MPI_WIN_NULL && s->win != s->shm_win) {
    if (s->locked_win) MPI_Win_unlock_all(s->win);
    if (a.held_by_all(Agreement::Win)) MPI_Win_free(&s->win);
  }
  if (s->shm_win != MPI_WIN_NULL) {
    if (s->locked_shm) MPI_Win_unlock_all(s->shm_win);
    if (a.held_by_all(Agreement::ShmWin)) MPI_Win_free(&s->shm_win);
  }
  delete s;
}

dart_ret_t segment_alloc_shared(Team *t, size_t nbytes, int16_t segid, Segment **out,
                                const char *fn, dart_ret_t local) {
  Agreement a;
  a.step(local);
  a.size(nbytes);
  Segment *s = segment_create_shared(t, nbytes, segid, &a, fn);
  if (dart_ret_t rc = a.agree(t->comm, t, fn); rc != DART_OK) {
    segment_discard(s, a);
    return rc;
  }
  if (!a.same_size()) {
    // Per-unit sizes (DASH's irregular patterns; units with 0 bytes): every access is
    // bounded by its target's size, so every unit learns every size. The equal case
    // above needed no message of its own (the agreement compared the sizes).
    Agreement b;
    std::vector<uint64_t> all((size_t)t->size);
    const uint64_t mine = nbytes;
    b.step(mpi_check(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, t->comm),
                     fn, "MPI_Allgather"));
    if (dart_ret_t rc = b.agree(t->comm, t, fn); rc != DART_OK) {
      segment_discard(s, a);
      return rc;
    }
    s->sizes.assign(all.begin(), all.end());
    s->aligned = false;
  }
  segment_store(s);
  *out = s;
  return DART_OK;
}

// ---------------------------------------------------------------------------
// memory model (docs/design.md, "Memory model")
// ---------------------------------------------------------------------------
namespace {
std::mutex g_separate_mutex;
std::vector<Segment *> g_separate;  // live segments with a separate-model window
std::atomic<int> g_nseparate{0};

bool win_separate(MPI_Win w) {
  if (w == MPI_WIN_NULL) return false;
  int *model = nullptr, flag = 0;
  MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag);
  return flag && model && *model == MPI_WIN_SEPARATE;
}
}  // namespace

void segment_note_model(Segment *s) {
  s->separate = g->cfg.force_separate || win_separate(s->win) || win_separate(s->shm_win);
  if (!s->separate) return;
  std::lock_guard<std::mutex> lock(g_separate_mutex);
  g_separate.push_back(s);
  g_nseparate.store((int)g_separate.size(), std::memory_order_release);
}

void sync_separate_segments() {
  if (DART_LIKELY(g_nseparate.load(std::memory_order_acquire) == 0)) return;
  std::lock_guard<std::mutex> lock(g_separate_mutex);
  for (const Segment *s : g_separate) segment_sync(s);
}

// The local end of a segment: no lookup finds it any more (translations dropped, table
// entry gone), its pending dense-span gets are unpacked, it leaves the separate-model
// list. Its windows stay.
static dart_ret_t segment_close(Segment *s, const char *fn) {
  xlate_forget();  // before its memory goes
  s->team->set_segment(s->segid, nullptr);
  if (s->separate) {
    std::lock_guard<std::mutex> lock(g_separate_mutex);
    g_separate.erase(std::find(g_separate.begin(), g_separate.end(), s));
    g_nseparate.store((int)g_separate.size(), std::memory_order_release);
    s->separate = false;
  }
  return span_unpacks_release(s, fn);  // gets still to be unpacked
}

// This unit's memory of a registration leaves the team's dynamic window: this unit's RMA
// on the window completes first (MPI_Win_flush_all), then MPI_Win_detach (local). After
// it the memory is the user's alone, and MPI holds nothing of it (with MPI_Win_create
// over user memory the window, and an RMA library's registration of the pages, outlived
// a deregistration until every unit had deregistered: memory freed and mapped again at
// the same address was then read through the stale registration).
dart_ret_t registration_detach(Segment *s, const char *fn) {
  if (!s->attached) return DART_OK;
  s->attached = false;
  dart_ret_t rc = mpi_check(MPI_Win_flush_all(s->win), fn, "MPI_Win_flush_all");
  if (dart_ret_t r = mpi_check(MPI_Win_detach(s->win, s->local_base), fn, "MPI_Win_detach");
      rc == DART_OK)
    rc = r;
  if (rc == DART_OK) --s->team->reg_attached;
  return rc;
}

dart_ret_t segment_free(Segment *s, const char *fn) {
  // Every step runs even after a failure (the segment goes away either way); the first
  // failure is the result.
  dart_ret_t rc = s->retired ? DART_OK : segment_close(s, fn);
  auto step = [&](int mpi_rc, const char *what) {
    dart_ret_t r = mpi_check(mpi_rc, fn, what);
    if (rc == DART_OK) rc = r;
  };
  if (s->registered) {  // leaves the team's list of registrations
    auto &regs = s->team->regs;
    regs.erase(std::find(regs.begin(), regs.end(), s));
    if (!s->retired) {
      if (dart_ret_t r = registration_detach(s, fn); rc == DART_OK) rc = r;
    }
    delete s;  // the window is the team's (freed with the team)
    return rc;
  }
  if (!s->ranks.empty()) {
    if (dart_ret_t r = progress_segment_free(s, true, fn); rc == DART_OK) rc = r;
  } else if (s->win != MPI_WIN_NULL && s->win != s->shm_win) {
    if (s->locked_win) step(MPI_Win_unlock_all(s->win), "MPI_Win_unlock_all");
    step(MPI_Win_free(&s->win), "MPI_Win_free");
  }
  if (s->shm_win != MPI_WIN_NULL) {
    if (s->locked_shm) step(MPI_Win_unlock_all(s->shm_win), "MPI_Win_unlock_all");
    step(MPI_Win_free(&s->shm_win), "MPI_Win_free");
  }
  delete s;
  return rc;
}

dart_ret_t registrations_free(Team *t, const char *fn) {
  dart_ret_t rc = DART_OK;
  while (!t->regs.empty()) {
    dart_ret_t r = segment_free(t->regs.front(), fn);
    if (rc == DART_OK) rc = r;
  }
  if (t->reg_win != MPI_WIN_NULL) {  // the team's dynamic window (collective)
    if (t->reg_win_locked) {
      t->reg_win_locked = false;
      if (dart_ret_t r = mpi_check(MPI_Win_unlock_all(t->reg_win), fn, "MPI_Win_unlock_all");
          rc == DART_OK)
        rc = r;
    }
    if (dart_ret_t r = mpi_check(MPI_Win_free(&t->reg_win), fn, "MPI_Win_free"); rc == DART_OK)
      rc = r;
    t->reg_win = MPI_WIN_NULL;
  }
  return rc;
}

namespace {

// dart_team_memderegister: local, as in DART 3.2: the memory leaves the team's dynamic
// window (registration_detach), so units may deregister in any order and free their
// memory at once. The segment is closed here; its entry stays in Team::regs (its id
// taken) until every unit has retired it (free_retired, at the team's next
// registration) or the team goes.
dart_ret_t segment_retire(Segment *s, const char *fn) {
  dart_ret_t rc = segment_close(s, fn);
  if (dart_ret_t r = registration_detach(s, fn); rc == DART_OK) rc = r;
  s->retired = true;
  return rc;
}

// Drops the entries of t->regs that every unit has retired, giving their ids back: bit i
// of `all` is set when regs[i] is retired on every unit (the registration's allgather).
// Local: their memory left the team's window at each unit's deregistration.
dart_ret_t free_retired(Team *t, const std::vector<unsigned long long> &all, const char *fn) {
  std::vector<Segment *> gone;
  for (size_t i = 0; i < t->regs.size(); ++i)
    if ((all[i / 64] >> (i % 64)) & 1u) gone.push_back(t->regs[i]);
  dart_ret_t rc = DART_OK;
  for (Segment *s : gone)
    if (dart_ret_t r = segment_free(s, fn); rc == DART_OK) rc = r;
  return rc;
}

// The team's dynamic window for its registrations (collective over the team), with its
// one lock_all epoch. On failure t->reg_win stays MPI_WIN_NULL on this unit.
dart_ret_t team_reg_window(Team *t, const char *fn) {
  MPI_Win w = MPI_WIN_NULL;
  if (int rc = create_window(nullptr, 0, t, &w, true); rc != MPI_SUCCESS)
    return mpi_fail(rc, fn, "MPI_Win_create_dynamic");
  dart_ret_t rc = set_window_errhandler(w, fn);
  if (rc == DART_OK) rc = mpi_check(MPI_Win_lock_all(MPI_MODE_NOCHECK, w), fn, "MPI_Win_lock_all");
  t->reg_win = w;  // also after a failed step: the registration's agreement frees it
  t->reg_win_locked = rc == DART_OK;
  if (rc == DART_OK && fault(FaultSite::WinLockAll))
    rc = fault_fail(FaultSite::WinLockAll, fn, "MPI_Win_lock_all");
  return rc;
}

dart_ret_t register_memory(dart_team_t teamid, size_t nelem, dart_datatype_t dtype, void *addr,
                           dart_gptr_t *gptr, bool aligned, const char *fn) {
  null_out(gptr, DART_GPTR_NULL);
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  // All-or-nothing (Agreement): a bad argument or failed step on one unit still takes part
  // in the collectives (0 bytes) and then fails on every unit.
  Agreement a;
  size_t nbytes = 0;
  if (gptr == nullptr) a.step(fail(DART_ERR_INVAL, fn, "gptr is NULL"));
  if (a.ok()) a.step(alloc_bytes(nelem, dtype, &nbytes, fn));
  if (a.ok() && addr == nullptr && nbytes > 0) a.step(fail(DART_ERR_INVAL, fn, "addr is NULL"));
  if (!a.ok()) nbytes = 0;
  // The memory goes into the team's dynamic window (one per team, made at its first
  // registration, collectively: every unit sees the same first registration), where a
  // target's displacement is its address (MPI_Get_address), gathered with the sizes into
  // Segment::pads. docs/design.md, "Windows": why a dynamic window.
  // A unit that has failed sends kFailed as its size, so the others' size check skips
  // it (and the agreement below names it).
  // The same message carries which earlier registrations this unit has retired (one bit
  // per entry of t->regs, the same list everywhere): those retired on every unit give
  // their ids back now, whatever the order of the deregistrations.
  constexpr unsigned long long kFailed = ~0ull;
  const bool windowed = t->size > 1;
  const bool new_win = windowed && t->reg_win == MPI_WIN_NULL;
  if (new_win) a.step(team_reg_window(t, fn));
  a.expect(Agreement::Win, !windowed || t->reg_win != MPI_WIN_NULL);
  MPI_Aint where = 0;
  if (a.ok()) a.step(mpi_check(MPI_Get_address(addr, &where), fn, "MPI_Get_address"));
  const unsigned long long mine = a.ok() ? nbytes : kFailed;
  const size_t words = (t->regs.size() + 63) / 64, per = 2 + words;
  std::vector<unsigned long long> all(per * (size_t)t->size), sizes(t->size), mine2(per, 0);
  mine2[0] = mine;
  mine2[1] = (unsigned long long)where;
  for (size_t i = 0; i < t->regs.size(); ++i)
    if (t->regs[i]->retired) mine2[2 + i / 64] |= 1ull << (i % 64);
  DART_MPI(MPI_Allgather(mine2.data(), (int)per, MPI_UNSIGNED_LONG_LONG, all.data(), (int)per,
                         MPI_UNSIGNED_LONG_LONG, t->comm),
           fn);
  std::vector<uint64_t> pads(t->size);
  std::vector<unsigned long long> everywhere(words, ~0ull);
  for (int u = 0; u < t->size; ++u) {
    sizes[u] = all[per * (size_t)u];
    pads[u] = all[per * (size_t)u + 1];
    for (size_t w = 0; w < words; ++w) everywhere[w] &= all[per * (size_t)u + 2 + w];
  }
  if (words > 0) a.step(free_retired(t, everywhere, fn));
  if (aligned && a.ok()) {
    for (int u = 0; u < t->size && a.ok(); ++u)
      if (sizes[u] != mine && sizes[u] != kFailed)
        a.step(fail(DART_ERR_INVAL, fn,
                    "aligned registration needs the same size on every unit (unit %d: %llu "
                    "bytes, unit %d: %llu bytes)",
                    t->myid, mine, u, sizes[u]));
  }
  for (auto &sz : sizes)
    if (sz == kFailed) sz = 0;
  int16_t segid = 0;
  if (a.ok()) a.step(next_segid(t, true, &segid, fn));
  std::unique_ptr<Segment> s(new Segment());
  s->team = t;
  s->segid = segid;
  s->registered = true;
  s->aligned = aligned;
  s->local_base = static_cast<char *>(addr);
  s->local_size = nbytes;
  if (!aligned) s->sizes.assign(sizes.begin(), sizes.end());
  s->direct.assign(t->size, nullptr);
  s->direct[t->myid] = s->local_base;  // own memory: plain load/store
  // A team of one unit needs no window: its only unit reaches the memory by load/store
  // (and atomics under a process-local mutex, atomic.cc). This is also the workaround of
  // quirk single-process-no-window (quirks.h): Open MPI cannot create a window over a
  // one-process communicator at all.
  if (windowed && t->reg_win != MPI_WIN_NULL) {
    s->win = t->reg_win;
    s->pads = std::move(pads);
    if (a.ok() && nbytes > 0) {
      int rc = MPI_Win_attach(s->win, addr, (MPI_Aint)nbytes);
      if (rc != MPI_SUCCESS) {
        dart_ret_t r = mpi_fail(rc, fn, "MPI_Win_attach");
#ifdef OMPI_MAJOR_VERSION
        r = fail(r, fn,
                 "MPI_Win_attach failed (MPI error code %d) with %d registrations of "
                 "team %d attached on this unit: Open MPI's osc rdma attaches at most "
                 "osc_rdma_max_attach regions per window (set OMPI_MCA_osc_rdma_max_attach "
                 "before MPI starts)",
                 rc, t->reg_attached.load(), (int)t->id);
#endif
        a.step(r);
      } else {
        s->attached = true;
        ++t->reg_attached;
        if (fault(FaultSite::WinCreate))
          a.step(fault_fail(FaultSite::WinCreate, fn, "MPI_Win_attach"));
      }
    }
  }
  if (dart_ret_t rc = a.agree(t->comm, t, fn); rc != DART_OK) {
    segment_discard(s.release(), a);
    // A team window made here goes again, so that the next registration makes it anew
    // on every unit: freed collectively where every unit has it, else dropped by the
    // units that have it (it cannot be freed without the others).
    if (new_win && t->reg_win != MPI_WIN_NULL) {
      if (a.held_by_all(Agreement::Win)) {
        if (t->reg_win_locked) MPI_Win_unlock_all(t->reg_win);
        MPI_Win_free(&t->reg_win);
      }
      t->reg_win = MPI_WIN_NULL;
      t->reg_win_locked = false;
    }
    return rc;
  }
  segment_note_model(s.get());
  store_segment(t, s.get());
  t->regs.push_back(s.release());
  dart_gptr_t gp = DART_GPTR_NULL;
  gp.unitid = 0;
  gp.flags = 0;
  gp.segid = segid;
  gp.teamid = teamid;
  gp.addr_or_offs.offset = 0;
  *gptr = gp;
  return DART_OK;
}

// The segment a gptr names, through the one lookup (internal.h) with the error contract;
// the offset is not checked here (the callers that use it check it themselves).
dart_ret_t gptr_segment(const dart_gptr_t &gp, const char *fn, Team **team, Segment **seg) {
  dart_gptr_t at0 = gp;
  at0.addr_or_offs.offset = 0;
  Target t{};
  DART_TRY(resolve(at0, 0, fn, &t));
  *seg = t.seg;
  *team = t.seg->team;
  return DART_OK;
}

}  // namespace
}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_memalloc(size_t nelem, dart_datatype_t dtype, dart_gptr_t *gptr) {
  const char *fn = "dart_memalloc";
  null_out(gptr, DART_GPTR_NULL);
  DART_TRY(check_init(fn));
  if (gptr == nullptr) return fail(DART_ERR_INVAL, fn, "gptr is NULL");
  size_t nbytes = 0;
  DART_TRY(alloc_bytes(nelem, dtype, &nbytes, fn));
  size_t off;
  size_t free_bytes;
  if (fault(FaultSite::Memalloc)) return fault_fail(FaultSite::Memalloc, fn, "the pool allocation");
  {
    std::lock_guard<std::mutex> lock(g->pool_mutex);
    off = g->pool.allocate(nbytes);
    free_bytes = g->pool.free_bytes();
  }
  if (off == SIZE_MAX)
    return fail(DART_ERR_NOMEM, fn,
                "the dart_memalloc pool of unit %d is exhausted: %zu bytes requested, %zu of "
                "%zu bytes free (in fragments); raise DART_POOL_SIZE (e.g. "
                "DART_POOL_SIZE=256M) or use dart_team_memalloc_aligned",
                g->myid, nbytes, free_bytes, g->cfg.pool_size);
  dart_gptr_t gp = DART_GPTR_NULL;
  gp.unitid = g->myid;
  gp.flags = 0;
  gp.segid = DART_SEGMENT_LOCAL;
  gp.teamid = DART_TEAM_ALL;
  gp.addr_or_offs.offset = off;
  *gptr = gp;
  return DART_OK;
}

dart_ret_t dart_memfree(dart_gptr_t gptr) {
  const char *fn = "dart_memfree";
  DART_TRY(check_init(fn));
  DART_TRY(progress_drain(fn));
  if (gptr.teamid != DART_TEAM_ALL || gptr.segid != DART_SEGMENT_LOCAL)
    return fail(DART_ERR_INVAL, fn, "gptr (team %d, segment %d) was not returned by dart_memalloc",
                (int)gptr.teamid, (int)gptr.segid);
  if (gptr.unitid < 0 || gptr.unitid >= g->size)
    return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d)", (int)gptr.unitid, g->size);
  if (gptr.unitid != g->myid)
    return fail(DART_ERR_NOTFOUND, fn,
                "gptr belongs to unit %d: it is no allocation of this unit (%d); only the "
                "allocating unit may free it",
                (int)gptr.unitid, g->myid);
  bool ok;
  {
    std::lock_guard<std::mutex> lock(g->pool_mutex);
    ok = g->pool.release((size_t)gptr.addr_or_offs.offset);
  }
  if (!ok)
    return fail(DART_ERR_NOTFOUND, fn,
                "offset %llu is not a live dart_memalloc allocation (already freed?)",
                (unsigned long long)gptr.addr_or_offs.offset);
  return DART_OK;
}

dart_ret_t dart_team_memalloc_aligned(dart_team_t teamid, size_t nelem, dart_datatype_t dtype,
                                      dart_gptr_t *gptr) {
  const char *fn = "dart_team_memalloc_aligned";
  null_out(gptr, DART_GPTR_NULL);
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(teamid, fn, &t));
  // A bad argument on one unit fails on every unit (segment_alloc_shared agrees).
  dart_ret_t local = gptr == nullptr ? fail(DART_ERR_INVAL, fn, "gptr is NULL") : DART_OK;
  size_t nbytes = 0;
  if (local == DART_OK) local = alloc_bytes(nelem, dtype, &nbytes, fn);
  int16_t segid = 0;
  if (local == DART_OK) local = next_segid(t, false, &segid, fn);
  Segment *s = nullptr;
  DART_TRY(segment_alloc_shared(t, local == DART_OK ? nbytes : 0, segid, &s, fn, local));
  dart_gptr_t gp = DART_GPTR_NULL;
  gp.unitid = 0;
  gp.flags = 0;
  gp.segid = segid;
  gp.teamid = teamid;
  gp.addr_or_offs.offset = 0;
  *gptr = gp;
  return DART_OK;
}

dart_ret_t dart_team_memfree(dart_gptr_t gptr) {
  const char *fn = "dart_team_memfree";
  DART_TRY(check_init(fn));
  DART_TRY(progress_drain(fn));
  Team *t = nullptr;
  DART_TRY(get_team(gptr.teamid, fn, &t));
  if (gptr.segid == DART_SEGMENT_LOCAL)
    return fail(DART_ERR_INVAL, fn, "segment 0 is the dart_memalloc pool; use dart_memfree");
  if (gptr.segid < 0)
    return fail(DART_ERR_INVAL, fn, "segment %d is registered memory; use dart_team_memderegister",
                (int)gptr.segid);
  Segment *s = t->segment(gptr.segid);
  if (s == nullptr)
    return fail(DART_ERR_NOTFOUND, fn, "segment %d of team %d does not exist (already freed?)",
                (int)gptr.segid, (int)gptr.teamid);
  if (s->counters)
    return fail(DART_ERR_INVAL, fn, "segment %d is a counter block; use dart_notify_free",
                (int)gptr.segid);
  return segment_free(s, fn);
}

dart_ret_t dart_team_memregister_aligned(dart_team_t teamid, size_t nelem, dart_datatype_t dtype,
                                         void *addr, dart_gptr_t *gptr) {
  return register_memory(teamid, nelem, dtype, addr, gptr, true, "dart_team_memregister_aligned");
}

dart_ret_t dart_team_memregister(dart_team_t teamid, size_t nlelem, dart_datatype_t dtype,
                                 void *addr, dart_gptr_t *gptr) {
  return register_memory(teamid, nlelem, dtype, addr, gptr, false, "dart_team_memregister");
}

dart_ret_t dart_team_memderegister(dart_gptr_t gptr) {
  const char *fn = "dart_team_memderegister";
  DART_TRY(check_init(fn));
  Team *t = nullptr;
  DART_TRY(get_team(gptr.teamid, fn, &t));
  if (gptr.segid >= 0)
    return fail(DART_ERR_INVAL, fn, "segment %d is not registered memory", (int)gptr.segid);
  Segment *s = t->segment(gptr.segid);
  if (s == nullptr)
    return fail(DART_ERR_NOTFOUND, fn,
                "segment %d of team %d does not exist (already deregistered?)", (int)gptr.segid,
                (int)gptr.teamid);
  DART_TRY(progress_drain(fn));
  return segment_retire(s, fn);
}

dart_ret_t dart_gptr_getaddr(const dart_gptr_t gptr, void **addr) {
  const char *fn = "dart_gptr_getaddr";
  if (addr == nullptr) return fail(DART_ERR_INVAL, fn, "addr is NULL");
  Team *t = nullptr;
  Segment *s = nullptr;
  DART_TRY(gptr_segment(gptr, fn, &t, &s));
  if (gptr.unitid != t->myid) {  // DART 3.2: only the calling unit's own memory
    *addr = nullptr;
    return DART_OK;
  }
  if (gptr.addr_or_offs.offset > s->local_size)
    return fail(DART_ERR_INVAL, fn, "offset %llu is past the end of the %zu-byte segment",
                (unsigned long long)gptr.addr_or_offs.offset, s->local_size);
  *addr = s->local_base + gptr.addr_or_offs.offset;
  return DART_OK;
}

dart_ret_t dart_gptr_setaddr(dart_gptr_t *gptr, void *addr) {
  const char *fn = "dart_gptr_setaddr";
  if (gptr == nullptr) return fail(DART_ERR_INVAL, fn, "gptr is NULL");
  Team *t = nullptr;
  Segment *s = nullptr;
  DART_TRY(gptr_segment(*gptr, fn, &t, &s));
  char *p = static_cast<char *>(addr);
  if (p < s->local_base || p > s->local_base + s->local_size)
    return fail(DART_ERR_INVAL, fn, "address %p is not inside this unit's part of segment %d", addr,
                (int)gptr->segid);
  gptr->unitid = t->myid;
  gptr->addr_or_offs.offset = (uint64_t)(p - s->local_base);
  return DART_OK;
}

dart_ret_t dart_gptr_getflags(dart_gptr_t gptr, uint16_t *flags) {
  const char *fn = "dart_gptr_getflags";
  if (flags == nullptr) return fail(DART_ERR_INVAL, fn, "flags is NULL");
  Team *t = nullptr;
  Segment *s = nullptr;
  DART_TRY(gptr_segment(gptr, fn, &t, &s));
  *flags = s->flags;
  return DART_OK;
}

dart_ret_t dart_gptr_setflags(dart_gptr_t *gptr, uint16_t flags) {
  const char *fn = "dart_gptr_setflags";
  if (gptr == nullptr) return fail(DART_ERR_INVAL, fn, "gptr is NULL");
  Team *t = nullptr;
  Segment *s = nullptr;
  DART_TRY(gptr_segment(*gptr, fn, &t, &s));
  s->flags = flags;
  gptr->flags = flags & 0xff;
  return DART_OK;
}

// ---- extensions ----

dart_ret_t dart_gptr_fields(const dart_gptr_t *gptr, int32_t *unitid, int32_t *flags,
                            int16_t *segid, int16_t *teamid, uint64_t *offset) {
  if (gptr == nullptr) return fail(DART_ERR_INVAL, "dart_gptr_fields", "gptr is NULL");
  if (unitid) *unitid = gptr->unitid;
  if (flags) *flags = (int32_t)gptr->flags;
  if (segid) *segid = gptr->segid;
  if (teamid) *teamid = gptr->teamid;
  if (offset) *offset = gptr->addr_or_offs.offset;
  return DART_OK;
}

dart_ret_t dart_gptr_make(int32_t unitid, int32_t flags, int16_t segid, int16_t teamid,
                          uint64_t offset, dart_gptr_t *gptr) {
  const char *fn = "dart_gptr_make";
  if (gptr == nullptr) return fail(DART_ERR_INVAL, fn, "gptr is NULL");
  if (unitid < -(1 << 23) || unitid >= (1 << 23))
    return fail(DART_ERR_INVAL, fn, "unitid %d does not fit in 24 bits", unitid);
  if (flags < 0 || flags > 255)
    return fail(DART_ERR_INVAL, fn, "flags %d does not fit in 8 bits", flags);
  dart_gptr_t gp = DART_GPTR_NULL;
  gp.unitid = unitid;
  gp.flags = (unsigned)flags;
  gp.segid = segid;
  gp.teamid = teamid;
  gp.addr_or_offs.offset = offset;
  *gptr = gp;
  return DART_OK;
}

dart_ret_t dart_gptr_getaddr_node(dart_gptr_t gptr, void **addr) {
  const char *fn = "dart_gptr_getaddr_node";
  if (addr == nullptr) return fail(DART_ERR_INVAL, fn, "addr is NULL");
  Team *t = nullptr;
  Segment *s = nullptr;
  DART_TRY(gptr_segment(gptr, fn, &t, &s));
  char *base = s->direct[gptr.unitid];
  if (base == nullptr && s->registered)
    return fail(DART_ERR_INVAL, fn,
                "unit %d's registered memory is not in a shared-memory window; only its owner "
                "can address it directly",
                (int)gptr.unitid);
  if (base == nullptr) {  // both nodes named: what a user debugging placement needs
    const int gu = t->global[gptr.unitid];
    return fail(DART_ERR_INVAL, fn,
                "unit %d of team %d (global unit %d) is on node %d (%s), this unit (global unit "
                "%d) on node %d (%s): memory of another node has no direct load/store path "
                "(use put/get)",
                (int)gptr.unitid, (int)gptr.teamid, gu, g->node_of[gu],
                g->node_host[g->node_of[gu]].c_str(), g->myid, g->node_of[g->myid],
                g->node_host[g->node_of[g->myid]].c_str());
  }
  if (gptr.addr_or_offs.offset > s->size_of(gptr.unitid))
    return fail(DART_ERR_INVAL, fn, "offset %llu is past the end of unit %d's %zu bytes",
                (unsigned long long)gptr.addr_or_offs.offset, (int)gptr.unitid,
                s->size_of(gptr.unitid));
  *addr = base + gptr.addr_or_offs.offset;
  return DART_OK;
}

dart_ret_t dart_gptr_segment_size(dart_gptr_t gptr, size_t *nbytes) {
  const char *fn = "dart_gptr_segment_size";
  if (nbytes == nullptr) return fail(DART_ERR_INVAL, fn, "nbytes is NULL");
  Team *t = nullptr;
  Segment *s = nullptr;
  DART_TRY(gptr_segment(gptr, fn, &t, &s));
  *nbytes = s->size_of(gptr.unitid);
  return DART_OK;
}

}  // extern "C"
