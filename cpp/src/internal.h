/* SPDX-License-Identifier: BSD-3-Clause */
// Internal state of the DART-MPI core. Not installed; bindings never include it.
//
// The MPI policy (which window, which epoch, which flush) lives here and in the .cc
// files of this folder only.
#ifndef DART_MPI_INTERNAL_H
#define DART_MPI_INTERNAL_H

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_mpi.h>
#include <mpi.h>

#include "error.h"
#include "fault.h"
#include "locality.h"
#include "pool.h"
#include "quirks.h"

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct dart_handle_struct;

namespace dart {
namespace detail {

// ---------------------------------------------------------------------------
// errors (error.h: fail, mpi_fail, DART_TRY): the check of MPI return codes
// ---------------------------------------------------------------------------

inline dart_ret_t mpi_check(int rc, const char *fn, const char *what) {
  return DART_LIKELY(rc == MPI_SUCCESS) ? DART_OK : mpi_fail(rc, fn, what);
}

#define DART_MPI(call, fn) DART_TRY(::dart::detail::mpi_check((call), (fn), #call))

// ---------------------------------------------------------------------------
// configuration: the one place that reads DART_* environment variables
// ---------------------------------------------------------------------------

struct Config {
  enum class Wait { Auto, Yield, Sleep };
  int units_per_node = 0;              // DART_UNITS_PER_NODE, 0 = off
  Wait wait = Wait::Auto;              // DART_WAIT
  size_t pool_size = 16u << 20;        // DART_POOL_SIZE, bytes
  size_t transfer_chunk = 0x7fffffff;  // DART_TRANSFER_CHUNK, elements per MPI call
  // DART_FAULT (tests only): the site that fails (-1 = hook off), on which global unit,
  // and which passes of that site after dart_init (first, 1-based, and how many; 0 = all).
  int fault_site = -1;
  int fault_unit = -1;
  long fault_first = 1, fault_count = 1;
  // DART_TEST_WIN_SEPARATE=1 (test-only, docs/design.md "Memory model"): every window is
  // treated as MPI_WIN_SEPARATE, so the separate model's MPI_Win_sync path is tested.
  bool force_separate = false;
  // DART_TEST_NO_HWLOC=1 (test-only, docs/design.md "Locality"): the locality API reads
  // the hardware from sysfs even where hwloc is built in, so that a test compares both.
  bool no_hwloc = false;
  // DART_PROGRESS_PER_NODE: progress processes per (emulated) node, 0 = none
  // (progress.cc); DART_PROGRESS_THRESHOLD: the smallest non-blocking transfer, in
  // bytes, that a progress process carries out for its unit. Default 64 KiB: the measured
  // crossover (docs/design.md, "Progress", the threshold).
  int progress_per_node = 0;
  size_t progress_threshold = 64 << 10;
};
dart_ret_t read_config(Config *cfg, const char *fn);

// ---------------------------------------------------------------------------
// the first line: what every call reads before anything else
// ---------------------------------------------------------------------------
// The state and the epochs of the two caches below (valid datatypes, translations) in
// one cache line, so that a call made after a computation swept the caches waits for one
// line here, not three. The epochs outlive init/exit cycles (no cache entry survives into
// the next one). Hidden: the library reads it PC-relative, without a load from the GOT
// first.
struct State;
struct alignas(64) Hot {
  State *state = nullptr;                // nullptr when not initialized
  std::atomic<uint64_t> types_epoch{1};  // g_valid_types (datatype.cc)
  std::atomic<uint64_t> xlate_epoch{1};  // g_xlate (globmem.cc)
};
extern Hot g_hot __attribute__((visibility("hidden")));
// The state by its short name (the compiler reads g_hot.state directly).
inline State *&g = g_hot.state;

// ---------------------------------------------------------------------------
// lock-free caches
// ---------------------------------------------------------------------------
// A slot of a direct-mapped cache that every thread reads without a lock: a seqlock
// around a trivially copyable value held as atomic words (seq is odd while a writer
// stores them; a reader that sees it odd or changed treats the slot as a miss). A
// writer that meets another one skips: a cache may drop a fill.
template <class V>
class alignas(64) SeqSlot {
 public:
  static_assert(std::is_trivially_copyable<V>::value, "a slot holds plain words");
  __attribute__((always_inline)) bool read(V *out) const {
    const uint32_t s = seq_.load(std::memory_order_acquire);
    uint64_t w[kWords];
#pragma GCC unroll 8
    for (size_t i = 0; i < kWords; ++i) w[i] = words_[i].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (DART_UNLIKELY((s & 1u) || seq_.load(std::memory_order_relaxed) != s)) return false;
    std::memcpy(out, w, sizeof(V));
    return true;
  }
  void write(const V &v) {
    uint32_t s = seq_.load(std::memory_order_relaxed);
    if ((s & 1u) || !seq_.compare_exchange_strong(s, s + 1, std::memory_order_relaxed)) return;
    std::atomic_thread_fence(std::memory_order_release);  // the odd seq before the words
    uint64_t w[kWords] = {};
    std::memcpy(w, &v, sizeof(V));
    for (size_t i = 0; i < kWords; ++i) words_[i].store(w[i], std::memory_order_relaxed);
    seq_.store(s + 2, std::memory_order_release);
  }

 private:
  static constexpr size_t kWords = (sizeof(V) + 7) / 8;
  std::atomic<uint32_t> seq_{0};
  std::atomic<uint64_t> words_[kWords] = {};
};

// ---------------------------------------------------------------------------
// datatypes
// ---------------------------------------------------------------------------
// One block of an indexed pattern: `len` elements at element offset `off`.
struct Block {
  size_t off, len;
};

// The first cache line of a Datatype: everything a transfer reads to check and walk the
// type, so that a call whose caches a computation swept out waits for one line per type,
// not two or three (docs/design.md, "Datatypes"). owns_elem and layout_owned, which no
// transfer reads, only fill bytes that would otherwise be padding.
struct alignas(64) DatatypeHead {
  enum Kind : uint8_t { Basic, Strided, Indexed, Custom } kind = Basic;
  bool overlapping = false;   // Indexed: some blocks share elements (then the type cannot
                              // be the destination of a transfer)
  bool owns_elem = false;     // mpi_elem is this type's own (custom types, types over them)
  bool layout_owned = false;  // built by the layout cache (layout.cc): not for dart_type_destroy
  uint32_t nblocks = 0;       // Indexed: blocks in the pattern (at most INT_MAX)
  dart_datatype_t base = DART_TYPE_UNDEFINED;  // basic element type (BYTE for custom)
  size_t elem_size = 0;                        // bytes of one element as counted by nelem
  // Strided: blocks of `blocklen` elements whose starts are `stride` elements apart.
  size_t stride = 0, blocklen = 0;
  // Indexed: one pattern of `nblocks` blocks (in any order), repeated every
  // `pattern_extent` elements (the end of the furthest block); nelem must be a multiple
  // of pattern_elems.
  size_t pattern_elems = 0, pattern_extent = 0;
  std::unique_ptr<Block[]> blocks;
  // Block j of the indexed pattern. The block of a one-block pattern (a face that is one
  // run) is read from this line: it ends at pattern_extent and holds pattern_elems
  // elements, so a cold call does not wait for the array behind `blocks` too.
  Block block(size_t j) const {
    return nblocks == 1 ? Block{pattern_extent - pattern_elems, pattern_elems} : blocks[j];
  }
};
static_assert(sizeof(DatatypeHead) == 64, "a Datatype's transfer fields fill one cache line");

struct Datatype : DatatypeHead {
  size_t pattern_first = 0;  // the smallest block offset: the first element the type touches
  MPI_Datatype mpi_elem = MPI_DATATYPE_NULL;     // MPI type of one element
  MPI_Datatype mpi_pattern = MPI_DATATYPE_NULL;  // indexed pattern, resized to extent
  // The same pattern not resized, for one repetition: MPICH 4.0.2 (ch4:ucx) takes a slow
  // path for a resized type (a one-run 2 KiB get: 1.9 us against 0.64 us unresized).
  MPI_Datatype mpi_pattern_once = MPI_DATATYPE_NULL;
  // Cache of committed MPI vector types for strided transfers, keyed by block count.
  // `users`: threads between mpi_layout and mpi_layout_done with the entry (issuing
  // their MPI calls); the bound evicts only entries nobody uses.
  struct CachedVector {
    MPI_Datatype type;
    int users;
  };
  std::unordered_map<size_t, CachedVector> vector_cache;
  std::mutex cache_mutex;
};

// The basic types (dart_tables.h) in the order of their values.
#define DART_X_CHECK_TYPE_(name, ...) name##_index_,
namespace basic_order_ {
enum { UNDEFINED_index_, DART_BASIC_TYPE_LIST(DART_X_CHECK_TYPE_) LAST_index_ };
#define DART_X_ASSERT_TYPE_(name, ...)                              \
  static_assert(DART_TYPE_##name == (dart_datatype_t)name##_index_, \
                "dart_tables.h lists DART_TYPE_" #name " out of order");
DART_BASIC_TYPE_LIST(DART_X_ASSERT_TYPE_)
#undef DART_X_ASSERT_TYPE_
static_assert(DART_TYPE_LAST == (dart_datatype_t)LAST_index_,
              "dart_tables.h and DART_TYPE_LAST disagree on the number of basic types");
}  // namespace basic_order_
#undef DART_X_CHECK_TYPE_

// Element sizes of the basic types, indexed by dart_datatype_t (0 = undefined).
#define DART_X_SIZE_(name, ctype, ...) sizeof(ctype),
constexpr size_t kBasicSize[(size_t)DART_TYPE_LAST] = {0, DART_BASIC_TYPE_LIST(DART_X_SIZE_)};
#undef DART_X_SIZE_
inline bool is_basic(dart_datatype_t t) { return t > DART_TYPE_UNDEFINED && t < DART_TYPE_LAST; }
// Integer basic types (bitwise and logical operations in atomics).
#define DART_X_INTEGER_(name, ctype, mx, ma, integer, ...) integer != 0,
constexpr bool kBasicInteger[(size_t)DART_TYPE_LAST] = {false,
                                                        DART_BASIC_TYPE_LIST(DART_X_INTEGER_)};
#undef DART_X_INTEGER_

// MPI type of a basic DART type for transfers (t must be basic).
inline MPI_Datatype basic_mpi_type(dart_datatype_t t) {
#define DART_X_MPI_(name, ctype, mpi_xfer, ...) \
  case DART_TYPE_##name: return mpi_xfer;
  switch (t) {
    DART_BASIC_TYPE_LIST(DART_X_MPI_)
    default: return MPI_DATATYPE_NULL;
  }
#undef DART_X_MPI_
}

// MPI type of a basic DART type in arithmetic: atomics and reductions (MPI_BYTE allows
// no arithmetic, so DART_TYPE_BYTE is a signed char there).
inline MPI_Datatype basic_mpi_arith_type(dart_datatype_t t) {
#define DART_X_MPI_(name, ctype, mpi_xfer, mpi_arith, ...) \
  case DART_TYPE_##name: return mpi_arith;
  switch (t) {
    DART_BASIC_TYPE_LIST(DART_X_MPI_)
    default: return MPI_DATATYPE_NULL;
  }
#undef DART_X_MPI_
}

// Calls f(static_cast<C type *>(nullptr)) for a basic type t; f((void *)nullptr) if t is
// not basic.
template <typename F>
decltype(auto) with_basic_ctype(dart_datatype_t t, F &&f) {
#define DART_X_CTYPE_(name, ctype, ...) \
  case DART_TYPE_##name: return f(static_cast<ctype *>(nullptr));
  switch (t) {
    DART_BASIC_TYPE_LIST(DART_X_CTYPE_)
    default: return f(static_cast<void *>(nullptr));
  }
#undef DART_X_CTYPE_
}

// ---------------------------------------------------------------------------
// predefined operations (dart_tables.h)
// ---------------------------------------------------------------------------
#define DART_X_CHECK_OP_(name, ...) name##_index_,
namespace op_order_ {
enum { UNDEFINED_index_, DART_OPERATION_LIST(DART_X_CHECK_OP_) LAST_index_ };
#define DART_X_ASSERT_OP_(name, ...)                               \
  static_assert(DART_OP_##name == (dart_operation_t)name##_index_, \
                "dart_tables.h lists DART_OP_" #name " out of order");
DART_OPERATION_LIST(DART_X_ASSERT_OP_)
#undef DART_X_ASSERT_OP_
static_assert(DART_OP_LAST == (dart_operation_t)LAST_index_,
              "dart_tables.h and DART_OP_LAST disagree on the number of operations");
}  // namespace op_order_
#undef DART_X_CHECK_OP_

// DART_OPF_* flags of a predefined operation, 0 for anything else.
inline unsigned op_flags(dart_operation_t op) {
#define DART_X_FLAGS_(name, mpi_op, flags) flags,
  static constexpr unsigned kFlags[(size_t)DART_OP_LAST] = {0, DART_OPERATION_LIST(DART_X_FLAGS_)};
#undef DART_X_FLAGS_
  return (op > DART_OP_UNDEFINED && op < DART_OP_LAST) ? kFlags[op] : 0u;
}

// The MPI operation of a predefined operation (MPI_OP_NULL for MINMAX and non-predefined).
inline MPI_Op op_mpi(dart_operation_t op) {
#define DART_X_MPIOP_(name, mpi_op, flags) \
  case DART_OP_##name: return mpi_op;
  switch (op) {
    DART_OPERATION_LIST(DART_X_MPIOP_)
    default: return MPI_OP_NULL;
  }
#undef DART_X_MPIOP_
}

// Return codes: dart_tables.h agrees with dart_ret_t.
#define DART_X_ASSERT_RC_(name, value) \
  static_assert(DART_##name == value, "dart_tables.h: DART_" #name " differs from dart_ret_t");
DART_RETURN_CODE_LIST(DART_X_ASSERT_RC_)
#undef DART_X_ASSERT_RC_

// Returns the descriptor of a valid datatype (basic or live derived), else nullptr.
const Datatype *lookup_type(dart_datatype_t t);
// The descriptors of the basic types, indexed by dart_datatype_t (set by types_init).
extern Datatype g_basic[(size_t)DART_TYPE_LAST];
// Derived types found live recently, so that a transfer with derived types validates
// them without the mutex and the hash lookup of the live set (two of them cost a
// same-node face get more than its walk). Every removal from the live set advances the
// epoch (under the mutex, before the type is freed); an entry counts only in its epoch.
struct ValidType {
  const Datatype *type;
  uint64_t epoch;
};
constexpr unsigned kValidTypeBits = 6;
extern SeqSlot<ValidType> g_valid_types[1u << kValidTypeBits] __attribute__((visibility("hidden")));
inline SeqSlot<ValidType> &valid_type_slot(const Datatype *d) {
  return g_valid_types[((uintptr_t)d * 0x9E3779B97F4A7C15ull) >> (64 - kValidTypeBits)];
}
// Whether d was found live in this epoch (the cache's answer; false says only "not known").
inline bool type_known_valid(const Datatype *d, uint64_t epoch) {
  ValidType v;
  return valid_type_slot(d).read(&v) && v.type == d && v.epoch == epoch;
}
// Derived types (the cache above, then a lookup under a mutex), or the error of an
// invalid type.
dart_ret_t check_type_slow(dart_datatype_t t, const char *fn, const char *what,
                           const Datatype **out);
// The descriptor of a valid datatype, or DART_ERR_INVAL naming `what`.
inline dart_ret_t check_type(dart_datatype_t t, const char *fn, const char *what,
                             const Datatype **out) {
  if (DART_LIKELY(is_basic(t))) {
    *out = &g_basic[t];
    return DART_OK;
  }
  const Datatype *d = reinterpret_cast<const Datatype *>(t);
  if (DART_LIKELY(type_known_valid(d, g_hot.types_epoch.load(std::memory_order_acquire)))) {
    *out = d;
    return DART_OK;
  }
  return check_type_slow(t, fn, what, out);
}
dart_ret_t types_init(const char *fn);
void types_finalize();
// The layout cache (layout.cc) owns the types it builds: dart_type_destroy refuses them.
void type_mark_layout(dart_datatype_t t);
void type_destroy_layout(dart_datatype_t t);
void layouts_finalize();

// The element count a transfer's nelem must be a multiple of.
inline size_t granularity(const DatatypeHead &t) {
  switch (t.kind) {
    case Datatype::Strided: return t.blocklen;
    case Datatype::Indexed: return t.pattern_elems;
    default: return 1;
  }
}
// Bytes spanned by nelem elements of t; SIZE_MAX when that overflows (so every bounds
// check against a segment fails instead of wrapping around). Inline, as the next
// function: the transfer calls read no code lines elsewhere for them (after a computation
// swept the caches, each costs a wait).
inline size_t type_extent_bytes(const DatatypeHead &t, size_t nelem) {
  if (nelem == 0) return 0;
  size_t elems = nelem, bytes = 0;
  switch (t.kind) {
    case Datatype::Strided:  // (nblocks - 1) * stride + blocklen elements
      if (__builtin_mul_overflow(nelem / t.blocklen - 1, t.stride, &elems) ||
          __builtin_add_overflow(elems, t.blocklen, &elems))
        return SIZE_MAX;
      break;
    case Datatype::Indexed:
      if (nelem == t.pattern_elems) {  // one pattern (the common case): no division
        elems = t.pattern_extent;
      } else if (__builtin_mul_overflow(nelem / t.pattern_elems, t.pattern_extent, &elems)) {
        return SIZE_MAX;
      }
      break;
    default: break;
  }
  return __builtin_mul_overflow(elems, t.elem_size, &bytes) ? SIZE_MAX : bytes;
}
dart_ret_t type_count_error(const Datatype &t, size_t nelem, const char *fn)
    __attribute__((cold, noinline));
// Validates that nelem elements fit the type's block pattern.
inline dart_ret_t check_type_count(const Datatype &t, size_t nelem, const char *fn) {
  const size_t gr = granularity(t);
  if (DART_UNLIKELY(nelem != gr && nelem % gr != 0)) return type_count_error(t, nelem, fn);
  return DART_OK;
}
// memcpy with the common one-element sizes inlined (a call to libc's memcpy costs as
// much as the rest of an 8-byte same-node transfer, or as a float64 run of a face).
inline void copy_bytes(void *dst, const void *src, size_t n) {
  switch (n) {
    case 8: std::memcpy(dst, src, 8); break;
    case 4: std::memcpy(dst, src, 4); break;
    case 16: std::memcpy(dst, src, 16); break;
    default: std::memcpy(dst, src, n);
  }
}
// Copies nelem elements between two layouts (direct load/store path). src_first: the
// element of st's layout that src points at (its elements before it are not read).
void layout_copy(char *dst, const Datatype &dt, const char *src, const Datatype &st, size_t nelem,
                 size_t src_first = 0);
// The same copy as a list of byte runs (dst offset, src offset, length; runs contiguous
// on both sides merged), for a copy that happens after the types may be gone.
struct CopyRun {
  size_t dst, src, len;
};
void layout_runs(const Datatype &dt, const Datatype &st, size_t nelem, size_t src_first,
                 std::vector<CopyRun> *runs);
// An MPI (count, datatype) pair describing nelem elements of t, built or taken from
// the type's cache; fails if the count does not fit an int. After a success, the caller
// issues its MPI calls with the type and then calls mpi_layout_done(t, nelem).
dart_ret_t mpi_layout(const Datatype &t, size_t nelem, int *count, MPI_Datatype *mt,
                      const char *fn);
void mpi_layout_done(const Datatype &t, size_t nelem);

// Calls f(ctx, byte offset in layout a, byte offset in layout b, n elements) for
// consecutive pieces of at most DART_TRANSFER_CHUNK elements (rounded to whole blocks).
dart_ret_t for_each_chunk(const Datatype &a, const Datatype &b, size_t nelem,
                          dart_ret_t (*f)(void *, size_t, size_t, size_t), void *ctx);
// User-defined operation: DART_ERR_NOTFOUND if op is not a live one.
dart_ret_t user_op_lookup(dart_operation_t op, MPI_Op *mop, MPI_Datatype *mtype,
                          dart_datatype_t *dtype);
// DART_OP_MINMAX on pairs of a basic type.
MPI_Op minmax_op(dart_datatype_t t, MPI_Datatype *pair);

// ---------------------------------------------------------------------------
// teams and segments
// ---------------------------------------------------------------------------
struct Team;

// An id -> object table for ids 0..32767 (team ids, segment ids) whose storage never
// moves, so that put/get on any thread read it without a lock while a collective call
// on another thread adds or removes entries (docs/design.md, "Threads"): 128 chunks of
// 256 slots, a chunk allocated at its first use and kept until the table goes. A read
// is two dependent loads (chunk, slot), as a std::vector's was (data, element). Writers
// are serialized by the caller (a team's collective calls are made one at a time).
template <typename T>
class StableTable {
 public:
  static constexpr size_t kCapacity = 32768;
  StableTable() {
    for (auto &c : chunks_) c.store(nullptr, std::memory_order_relaxed);
  }
  StableTable(const StableTable &) = delete;
  StableTable &operator=(const StableTable &) = delete;
  ~StableTable() {
    for (auto &c : chunks_) delete c.load(std::memory_order_relaxed);
  }
  // i < kCapacity (a non-negative int16 or the complement of a negative one).
  __attribute__((always_inline)) T *get(size_t i) const {
    const Chunk *c = chunks_[i >> kBits].load(std::memory_order_acquire);
    return DART_LIKELY(c != nullptr) ? c->slot[i & (kChunk - 1)].load(std::memory_order_acquire)
                                     : nullptr;
  }
  void set(size_t i, T *v) {
    Chunk *c = chunks_[i >> kBits].load(std::memory_order_relaxed);
    if (c == nullptr) {
      if (v == nullptr) return;
      c = new Chunk();
      for (auto &s : c->slot) s.store(nullptr, std::memory_order_relaxed);
      chunks_[i >> kBits].store(c, std::memory_order_release);
    }
    c->slot[i & (kChunk - 1)].store(v, std::memory_order_release);
  }
  // Calls f(i, entry) for every non-null entry, highest id first; chunks never used are
  // skipped whole, so a walk costs the chunks in use, not the capacity.
  template <typename F>
  void for_each_desc(F &&f) const {
    for (size_t c = kCapacity / kChunk; c-- > 0;) {
      const Chunk *ch = chunks_[c].load(std::memory_order_acquire);
      if (ch == nullptr) continue;
      for (size_t j = kChunk; j-- > 0;)
        if (T *v = ch->slot[j].load(std::memory_order_acquire)) f((c << kBits) | j, v);
    }
  }

 private:
  static constexpr size_t kBits = 8, kChunk = size_t(1) << kBits;
  struct Chunk {
    std::atomic<T *> slot[kChunk];
  };
  std::atomic<Chunk *> chunks_[kCapacity / kChunk];
};

struct SpanUnpack;  // a dense-span get still to be unpacked (onesided.cc)

struct Segment {
  Team *team = nullptr;
  int16_t segid = 0;
  bool registered = false;  // user memory (dart_team_memregister*)
  // Same size on every unit: one size for all (local_size), no per-unit table, so the
  // common case costs O(1) per segment. Else `sizes` holds every unit's (a collective
  // allocation of per-unit sizes, a registration).
  bool aligned = true;
  // Shared memory of a team inside one node: every unit reaches every part by load/store,
  // and atomics are CPU atomic instructions (atomic.cc), never MPI atomics.
  bool cpu_atomics = false;
  bool counters = false;  // a counter block of dart_notify_alloc (notify.cc)
  // A registration this unit deregistered (dart_team_memderegister is local): out of the
  // lookup table and detached from the team's window; its id stays taken until every
  // unit has retired it (Team::regs).
  bool retired = false;
  bool attached = false;           // a registration: this unit's memory is attached to `win`
  std::atomic<uint16_t> flags{0};  // dart_gptr_setflags may run on any thread
  bool locked_shm = false, locked_win = false;  // epochs opened (for a failed creation)
  MPI_Win shm_win = MPI_WIN_NULL;               // shared window on the team's node communicator
  MPI_Win win = MPI_WIN_NULL;  // RMA window on the team communicator (may be shm_win)
  char *local_base = nullptr;
  size_t local_size = 0;
  std::vector<char *> direct;  // per team unit: load/store base, nullptr if not reachable
  std::vector<size_t> sizes;   // per team unit, only when !aligned (bounds of accesses)
  // Per team unit: window displacement of DART offset 0, when `win` is the shared window
  // and MPI's parts were not 64-byte aligned, or for registered memory the part's address
  // (the team's dynamic window; globmem.cc); empty means all 0.
  std::vector<uint64_t> pads;
  // A window of the segment has MPI_WIN_SEPARATE memory (or DART_TEST_WIN_SEPARATE):
  // load/store and RMA meet only through MPI_Win_sync (segment_sync).
  bool separate = false;
  // Progress processes (progress.cc): a segment of a team spanning nodes is exposed by
  // the progress processes of its nodes; `win` is then their window, `ranks` gives for
  // each team unit the rank (in it) of the progress process exposing that unit's part,
  // and `pads` that part's displacement there. Empty: the unit's own rank.
  std::vector<int> ranks;
  int pkey = 0;  // its name for the progress processes (Team::progress_segments at creation)
  // Dense-span gets that complete at a flush or with a handle (onesided.cc): the span
  // arrives in a buffer and is unpacked by whichever comes first, a flush of this
  // segment's window that covers the get or the handle's completion; segment_free
  // completes the rest. `unpacks` is guarded by unpack_mutex; unpack_seq counts the
  // registrations, unpack_pending is unpacks.size() for a check without the mutex.
  std::mutex unpack_mutex;
  std::vector<SpanUnpack *> unpacks;
  size_t unpack_prune_at = 64;  // a registration drops the unpacked records at this size
  std::atomic<uint64_t> unpack_seq{0};
  std::atomic<size_t> unpack_pending{0};
  ~Segment();  // drops the translation cache (xlate_forget)
  size_t size_of(int unit) const { return aligned ? local_size : sizes[unit]; }
  uint64_t pad_of(int unit) const { return pads.empty() ? 0 : pads[unit]; }
  int rank_of(int unit) const { return ranks.empty() ? unit : ranks[unit]; }
};

struct Team {
  dart_team_t id = DART_TEAM_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm node_comm = MPI_COMM_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  int myid = -1, size = 0;
  int node_size = 0;
  bool single_node = false;
  std::vector<int> global;     // team unit -> global unit
  std::vector<int> node_rank;  // team unit -> rank in node_comm, -1 if other node
  std::unordered_map<int, int> g2l;
  // Segment tables indexed by segid (positive: allocations, negative: registrations);
  // their storage never moves (StableTable), so lookups need no lock.
  StableTable<Segment> alloc_segs;  // index segid
  StableTable<Segment> reg_segs;    // index ~segid (-1 -> 0, -32768 -> 32767)
  int16_t next_alloc = 1, next_reg = 1;
  // Registrations whose ids are not free yet, in creation order: the same list on every
  // unit (they are created collectively), live or retired here. Units deregister locally
  // in any order; the ids every unit has retired come free at the team's next
  // registration (and the rest when the team goes).
  std::vector<Segment *> regs;
  // The team's dynamic window of its registrations (MPI_Win_create_dynamic at the first
  // registration of a team of several units, one lock_all epoch; freed with the team),
  // and how many of this unit's registrations are attached to it.
  MPI_Win reg_win = MPI_WIN_NULL;
  bool reg_win_locked = false;
  std::atomic<int> reg_attached{0};  // deregistrations are local: any thread
  int lock_counter = 0;              // locks created on this team (spreads their tails)
  // Progress processes, a team spanning nodes (progress.cc): the team's units (ranks
  // 0..size-1, team order) plus the progress processes of its nodes, and its split by
  // node (this node's units, then this node's progress processes).
  MPI_Comm comm_p = MPI_COMM_NULL, node_comm_p = MPI_COMM_NULL;
  std::vector<int> served_rank;  // team unit -> comm_p rank of the process exposing its memory
  // Served segments created so far: the name of the next one for the progress processes
  // (the same on every unit, also when a unit's segment id is not, after a local failure).
  int progress_segments = 0;
  bool served() const { return comm_p != MPI_COMM_NULL; }
  // The team's locality tree and unit localities (locality.cc), built at the first query.
  struct TeamLocality *locality = nullptr;
  ~Team();  // drops the translation cache (xlate_forget) and the locality

  Segment *segment(int16_t segid) const {
    return segid >= 0 ? alloc_segs.get((size_t)segid) : reg_segs.get((size_t)(uint16_t)~segid);
  }
  void set_segment(int16_t segid, Segment *s) {
    if (segid >= 0)
      alloc_segs.set((size_t)segid, s);
    else
      reg_segs.set((size_t)(uint16_t)~segid, s);
  }
};

// ---------------------------------------------------------------------------
// global runtime state (one per dart_init/dart_exit cycle)
// ---------------------------------------------------------------------------
// Its first line holds what the transfer calls read of it (with cfg.transfer_chunk).
struct alignas(64) State {
  // Progress processes (progress.cc); nullptr when DART_PROGRESS_PER_NODE is 0.
  struct Progress *progress = nullptr;
  unsigned quirks = 0;  // the MPI quirks in force, a bit set over Quirk
  // More processes on this machine than cores (or DART_WAIT=sleep): see Backoff.
  bool oversubscribed = false;
  Config cfg;
  bool mpi_started_by_dart = false;
  int thread_level = MPI_THREAD_SINGLE;
  MPI_Comm world = MPI_COMM_NULL;  // dup of MPI_COMM_WORLD, MPI_ERRORS_RETURN
  MPI_Comm p2p = MPI_COMM_NULL;    // dup for dart_send/recv (user tags)
  MPI_Group world_group = MPI_GROUP_NULL;
  // The info of every MPI_Win_allocate_shared of the units: made once at dart_init, so
  // that every unit of a node passes the same one (MPICH takes the layout from the node
  // leader's info; a unit with another maps past the end of the file). [0]:
  // alloc_shared_noncontig=true (DART's own windows), [1]: =false (windows a progress
  // process shares: one contiguous segment it can address).
  MPI_Info shm_info[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  int myid = -1, size = 0;
  std::vector<int> node_of;  // global unit -> node index
  int nnodes = 0;
  // Locality (locality_hw.cc): every unit's hardware, the name of every node (its host,
  // "#i" appended when a machine holds several nodes), a lock for the teams' trees.
  std::vector<UnitHw> hw;
  std::vector<std::string> node_host;
  std::mutex locality_mutex;
  StableTable<Team> teams;  // indexed by team id; nullptr = none/destroyed
  int next_team_id = 1;     // next candidate team id (agreed by MAX)
  PoolAllocator pool;
  std::mutex pool_mutex;
  std::string config_string;
  MpiLibrary mpi;             // the MPI library and its version (quirks.h)
  std::string quirks_string;  // dart_mpi_quirks()
  // Quirk ompi-rdma-shared-file: a lock word shared by the units of this machine (a
  // shared window on MPI's shared-memory communicator; globmem.cc, create_window).
  MPI_Win machine_lock_win = MPI_WIN_NULL;
  int64_t *machine_lock = nullptr;
  int fault_site = -1;                // cfg.fault_site once dart_init has succeeded
  std::atomic<long> fault_passes{0};  // passes of the DART_FAULT site since then
};

// Whether a workaround of quirks.h is in force.
inline bool quirk(Quirk q) { return (g->quirks >> (unsigned)q) & 1u; }

// Local completion of RMA at one target / at every target of a window: MPI's local
// flushes, or the remote ones where quirk mpich-flush-local-threads is in force.
inline int win_flush_local(int rank, MPI_Win w) {
  return quirk(Quirk::MpichFlushLocalThreads) ? MPI_Win_flush(rank, w)
                                              : MPI_Win_flush_local(rank, w);
}
inline int win_flush_local_all(MPI_Win w) {
  return quirk(Quirk::MpichFlushLocalThreads) ? MPI_Win_flush_all(w) : MPI_Win_flush_local_all(w);
}

// The pause between two polls of a wait loop (lock hand-over, successor link). The first
// polls only yield the core. When processes outnumber cores (2-core machines running 4
// units), the later pauses sleep instead: a yielding waiter stays runnable and keeps
// the unit it waits for (the lock holder, or the target of its RMA under MPICH, which
// needs the target to enter MPI) off the CPU for a whole time slice.
class Backoff {
 public:
  void pause();  // yields, or sleeps 20 us once next_sleeps()
  // Counts a poll; whether its pause should sleep (for a wait that sleeps on its own
  // terms, e.g. a futex, instead of pause()).
  bool next_sleeps();

 private:
  unsigned polls_ = 0;
};

// Completes a request by polling MPI_Test with Backoff pauses (each test also drives MPI
// progress): DART's wait for lock hand-overs, and for barriers and blocking gets when
// processes outnumber cores.
dart_ret_t wait_backoff(MPI_Request *req, const char *fn);

// The fault hook (fault.h) on the core's paths: off, it costs one predictable branch,
// and every site is on a cold path (collective creation).
inline bool fault(FaultSite site) { return DART_UNLIKELY(g->fault_site >= 0) && fault_fires(site); }

// All-or-nothing collective creation (allocation, registration, team create, lock init).
// Every unit runs every collective step of the creation even after a local failure (with
// empty arguments), records its local result and the collectively created objects it
// holds, and then all agree once (one MPI_Allreduce): on success everywhere the creation
// stands; otherwise every unit releases what it created and returns an error. An object
// is freed collectively only if every unit holds it (MPI frees are collective over its
// members: freeing one that some unit lacks would hang); one missing somewhere is left
// to MPI_Finalize.
class Agreement {
 public:
  // Objects whose release is collective (bits of held/held_by_all).
  enum : unsigned { ShmWin = 1u, Win = 2u, Comm = 4u, NodeComm = 8u, kObjects = 4 };
  // Records a local step's result; the first failure is kept (its detail message too).
  void step(dart_ret_t rc) {
    if (rc_ == DART_OK) rc_ = rc;
  }
  bool ok() const { return rc_ == DART_OK; }
  dart_ret_t rc() const { return rc_; }
  // This unit should hold object `bit`; `held` says whether it does.
  void expect(unsigned bit, bool held) {
    if (!held) missing_ |= bit;
  }
  // The size this unit gives the object (a collective allocation's bytes): agree() also
  // tells whether every unit gave the same (same_size()), in the same reduction.
  void size(uint64_t nbytes) { size_ = nbytes; }
  // Collective over comm. DART_OK on every unit if every unit succeeded. Otherwise the
  // failing units return their own error; the others return the error code of the first
  // failing unit with the message "another unit failed: unit U of team T (global unit
  // G): <its detail message>". An MPI failure of the agreement itself is returned
  // as is (the MPI library is broken: nothing is released).
  dart_ret_t agree(MPI_Comm comm, const Team *team, const char *fn);
  // After agree(): whether every unit holds object `bit` (then it may be freed).
  bool held_by_all(unsigned bit) const { return !(missing_all_ & bit); }
  // After a successful agree(): whether every unit gave the same size().
  bool same_size() const { return same_size_; }

 private:
  dart_ret_t rc_ = DART_OK;
  unsigned missing_ = 0, missing_all_ = 0;
  uint64_t size_ = 0;
  bool same_size_ = true;
};

inline dart_ret_t check_init(const char *fn) {
  if (DART_LIKELY(g != nullptr)) return DART_OK;
  return fail(DART_ERR_NOTINIT, fn, "DART is not initialized (call dart_init first)");
}

// Team lookup with the error contract: negative/NULL -> INVAL, unknown -> NOTFOUND.
inline dart_ret_t get_team(dart_team_t id, const char *fn, Team **out) {
  if (DART_UNLIKELY(id < 0)) return fail(DART_ERR_INVAL, fn, "invalid team id %d", (int)id);
  Team *t = g->teams.get((size_t)id);  // id is an int16: always inside the table
  if (DART_UNLIKELY(t == nullptr))
    return fail(DART_ERR_NOTFOUND, fn, "team %d does not exist (never created here or destroyed)",
                (int)id);
  *out = t;
  return DART_OK;
}

// Builds the team of comm (collective over comm: its node communicator split), recording
// local failures and the communicators it holds in `a`; the caller agrees, then either
// registers the team (register_team) or releases it (release_team). Never nullptr.
Team *make_team(dart_team_t id, MPI_Comm comm, Agreement *a, const char *fn);
void register_team(Team *t);
// Locality (locality_hw.cc): dart_init's exchange of every unit's hardware (after the nodes
// are known), and the release of a team's tree.
dart_ret_t locality_exchange(State *s, const char *fn);
void locality_team_free(Team *t);
void release_team(Team *t, const Agreement &a);
dart_ret_t destroy_team(Team *t, const char *fn);

// Runs fn between two barriers of comm (a team's) while its rank 0 holds the job-wide
// creation lock of the progress processes (progress.cc): every window creation that
// involves them, and in progress mode every MPI_Win_create, runs inside one.
dart_ret_t progress_locked(MPI_Comm comm, const std::function<void()> &fn, const char *fn_name);

// Segments
// MPI_Win_create (dynamic: MPI_Win_create_dynamic, base and size unused) on a team's
// communicator (collective over it), with the workaround of quirk ompi-rdma-shared-file
// where it applies. Returns the MPI return code.
int create_window(void *base, MPI_Aint size, Team *t, MPI_Win *win, bool dynamic);
dart_ret_t segment_free(Segment *s, const char *fn);
// Frees a team's registrations (live or retired) and its dynamic window: collective over
// the team (destroy_team).
dart_ret_t registrations_free(Team *t, const char *fn);
// A registration's memory leaves the team's dynamic window (globmem.cc), locally.
dart_ret_t registration_detach(Segment *s, const char *fn);
// Memory model: segment_note_model queries MPI_WIN_MODEL of a new segment's windows and
// sets `separate`; segment_sync reconciles the public and private copies of a separate
// segment's windows (after local stores, before local loads); sync_separate_segments
// does it for every separate segment (around barriers). No-ops in the unified model.
void segment_note_model(Segment *s);
inline void segment_sync(const Segment *s) {
  if (DART_LIKELY(!s->separate)) return;
  if (s->win != MPI_WIN_NULL) MPI_Win_sync(s->win);
  if (s->shm_win != MPI_WIN_NULL && s->shm_win != s->win) MPI_Win_sync(s->shm_win);
}
void sync_separate_segments();
// Next free allocation segment id of a team (deterministic on every member).
dart_ret_t segment_new_id(Team *t, int16_t *segid, const char *fn);
// The collective steps of a shared allocation of nbytes per unit (its windows and their
// epochs), recorded in `a`; after a.agree() the caller keeps it (segment_store) or
// releases it (segment_discard). A unit whose earlier steps failed (!a.ok()) still takes
// part, with 0 bytes. Never nullptr.
Segment *segment_create_shared(Team *t, size_t nbytes, int16_t segid, Agreement *a, const char *fn);
void segment_store(Segment *s);
void segment_discard(Segment *s, const Agreement &a);
// segment_create_shared + agreement over the team + store or discard: all-or-nothing.
// `local`: the caller's own checks (a failure there still takes part, then fails on
// every unit). nbytes may differ between units (0 too): the agreement finds out, and
// only then are the sizes gathered (Segment::sizes; equal sizes keep none).
dart_ret_t segment_alloc_shared(Team *t, size_t nbytes, int16_t segid, Segment **out,
                                const char *fn, dart_ret_t local = DART_OK);

// ---------------------------------------------------------------------------
// target lookup: the one path from a global pointer to memory (the hot path)
// ---------------------------------------------------------------------------
// Every one-sided operation, atomic, flush and lock finds its target here: a load/store
// address when the target's part is mapped into this process (same node), and always the
// segment's RMA window with the target's rank and displacement in it.
struct Target {
  char *direct;   // load/store address of the first byte, or nullptr
  MPI_Win win;    // the segment's RMA window (MPI_WIN_NULL: windowless registration)
  int rank;       // rank of the target unit in the window's communicator
  uint64_t disp;  // byte displacement in the window
  Segment *seg;
};

// Why a lookup failed; lookup_error turns it into the DART error and its message.
enum class Miss : uint8_t { None, NotInit, BadTeamId, NoTeam, NoSegment, BadUnit, PastEnd };

// The translation cache: recent translations of (team, segment, unit) to the unit's
// part, so that a lookup reads one cache line instead of walking the tables (state,
// team table, team, segment table, segment, its per-unit arrays: a chain of dependent
// loads that a stencil sweep between two exchanges pushes out of the caches). An entry
// is valid only in the epoch it was filled in: xlate_forget advances the epoch before a
// segment or a team goes away (and so at dart_exit), which drops every entry at once.
// The epoch counter outlives init/exit cycles, so no entry survives into the next one.
struct Xlate {
  uint64_t key, epoch;  // epoch 0: never valid
  char *base;           // load/store base of the unit's part, or nullptr
  uint64_t cap, pad;    // the part's size; Segment::pad_of(unit)
  Segment *seg;
  int rank;  // Segment::rank_of(unit)
};
static_assert(sizeof(Xlate) <= 56, "an entry and its seq fill one cache line");
constexpr unsigned kXlateBits = 6;
extern SeqSlot<Xlate> g_xlate[1u << kXlateBits] __attribute__((visibility("hidden")));
inline void xlate_forget() { g_hot.xlate_epoch.fetch_add(1, std::memory_order_acq_rel); }

// The key of a global pointer: its first word (unit, segment, team) without the flags.
inline uint64_t xlate_key(const dart_gptr_t &gp) {
  static_assert(sizeof(dart_gptr_t) == 16, "a global pointer is two words");
  uint64_t w;
  std::memcpy(&w, &gp, sizeof w);
  return w & ~(uint64_t(0xff) << 24);
}
inline SeqSlot<Xlate> &xlate_slot(uint64_t key) {
  return g_xlate[(key * 0x9E3779B97F4A7C15ull) >> (64 - kXlateBits)];
}

// A hit fills *t and returns true; a miss (or an extent past the end: the tables then
// report it) returns false.
__attribute__((always_inline)) inline bool xlate_hit(const dart_gptr_t &gp, size_t extent,
                                                     Target *t) {
  const uint64_t key = xlate_key(gp);
  Xlate x;
  if (!xlate_slot(key).read(&x) || x.key != key ||
      x.epoch != g_hot.xlate_epoch.load(std::memory_order_acquire))
    return false;
  const uint64_t off = gp.addr_or_offs.offset;
  if (DART_UNLIKELY(off > x.cap || extent > x.cap - off)) return false;
  t->direct = x.base ? x.base + off : nullptr;
  t->seg = x.seg;
  t->win = x.seg->win;  // a load the load/store path does not wait for
  t->rank = x.rank;
  t->disp = off + x.pad;
  return true;
}

// Records a translation found by the tables; `epoch` was read before the walk, so a
// segment freed meanwhile leaves an entry that is never valid. Writers that meet a
// write in progress skip.
void xlate_fill(const dart_gptr_t &gp, uint64_t epoch, const Segment *seg, int unit);

// The walk of the tables behind lookup (the cold path): fills every field of *t and
// records the translation in the cache.
__attribute__((noinline)) inline Miss lookup_tables(const dart_gptr_t &gp, size_t extent,
                                                    Target *t) {
  const uint64_t epoch = g_hot.xlate_epoch.load(std::memory_order_acquire);  // before the walk
  if (DART_UNLIKELY(g == nullptr)) return Miss::NotInit;
  if (DART_UNLIKELY(gp.teamid < 0)) return Miss::BadTeamId;
  const Team *team = g->teams.get((size_t)gp.teamid);  // an int16: inside the table
  if (DART_UNLIKELY(team == nullptr)) return Miss::NoTeam;
  Segment *seg = team->segment(gp.segid);
  if (DART_UNLIKELY(seg == nullptr)) return Miss::NoSegment;
  const int unit = gp.unitid;
  if (DART_UNLIKELY(unit < 0 || unit >= team->size)) return Miss::BadUnit;
  const uint64_t off = gp.addr_or_offs.offset;
  const size_t cap = seg->size_of(unit);
  if (DART_UNLIKELY(off > cap || extent > cap - off)) return Miss::PastEnd;
  char *base = seg->direct[unit];
  t->direct = base ? base + off : nullptr;
  t->seg = seg;
  t->win = seg->win;
  t->rank = seg->rank_of(unit);
  t->disp = off + seg->pad_of(unit);
  xlate_fill(gp, epoch, seg, unit);
  return Miss::None;
}

// The lookup of `extent` bytes at gp: the translation cache, else the tables.
__attribute__((always_inline)) inline Miss lookup(const dart_gptr_t &gp, size_t extent, Target *t) {
  if (DART_LIKELY(xlate_hit(gp, extent, t))) return Miss::None;
  return lookup_tables(gp, extent, t);
}

// The DART error of a failed lookup, with its message (the cold path).
dart_ret_t lookup_error(Miss m, const dart_gptr_t &gp, size_t extent, const char *fn)
    __attribute__((cold, noinline));

// lookup with the error contract: NOTINIT, INVAL (negative team id, unit out of range,
// past the end of the part) or NOTFOUND (unknown team or segment), with a message.
inline dart_ret_t resolve(const dart_gptr_t &gp, size_t extent, const char *fn, Target *t) {
  const Miss m = lookup(gp, extent, t);
  return DART_LIKELY(m == Miss::None) ? DART_OK : lookup_error(m, gp, extent, fn);
}

// The fast path of put/get and atomics: one basic type on both sides and at most
// DART_TRANSFER_CHUNK elements, found by the same lookup (no type descriptors).
// fast_target fills `f` and returns true; false sends the caller down the general path
// (which also reports any error). With WantRma the MPI fields are filled for same-node
// targets too (atomics always go through the window).
struct Fast : Target {
  int count;  // elements
  size_t bytes;
  MPI_Datatype type;
};

// The condition of the fast paths on the arguments (one basic type on both sides, a
// buffer, 1 to DART_TRANSFER_CHUNK elements): the bytes to move, or 0.
__attribute__((always_inline)) inline size_t fast_bytes(const void *local, size_t nelem,
                                                        dart_datatype_t a, dart_datatype_t b) {
  if (!(a == b && is_basic(a) && local != nullptr && nelem > 0 && g != nullptr &&
        nelem <= g->cfg.transfer_chunk))
    return 0;
  return nelem * kBasicSize[a];  // nelem <= INT_MAX: no overflow
}

template <bool WantRma>
__attribute__((always_inline)) inline bool fast_target(const dart_gptr_t &gp, const void *local,
                                                       size_t nelem, dart_datatype_t a,
                                                       dart_datatype_t b, Fast *f) {
  const size_t bytes = fast_bytes(local, nelem, a, b);
  if (bytes == 0 || lookup(gp, bytes, f) != Miss::None) return false;
  f->bytes = bytes;
  if (!WantRma && DART_LIKELY(f->direct != nullptr)) return true;  // load/store needs no more
  if (f->win == MPI_WIN_NULL) return false;
  f->count = (int)nelem;
  f->type = basic_mpi_type(a);
  return true;
}

// ---------------------------------------------------------------------------
// progress processes (progress.cc, docs/design.md "Progress")
// ---------------------------------------------------------------------------
// Called by dart_init after MPI_Init when DART_PROGRESS_PER_NODE > 0: splits the
// processes into units and progress processes. On a unit it sets s->world (the units),
// s->node_of, s->nnodes, s->oversubscribed and s->progress and returns; on a progress
// process it serves until the units call dart_exit, then finalizes MPI and exits the
// process (it never returns, except with an error before serving).
dart_ret_t progress_start(State *s, const char *fn);
// dart_exit on a unit: tells the progress processes, frees what progress_start made.
dart_ret_t progress_stop(State *s, const char *fn);
// Team creation (collective over a team spanning nodes; make_team): creates comm_p and
// node_comm_p with the progress processes of its nodes. Steps recorded in `a`.
void progress_team_create(Team *t, Agreement *a, const char *fn);
void progress_team_free(Team *t);
// The windows of a segment of such a team: shared memory on node_comm_p (the progress
// processes map it), the RMA window on comm_p exposed by them (Segment::ranks, pads).
void progress_segment_create(Team *t, Segment *s, size_t padded, Agreement *a, const char *fn);
dart_ret_t progress_segment_free(Segment *s, bool windows, const char *fn);
// Origin side: whether a non-blocking transfer of `bytes` is given to the progress
// process; offload() hands it over and returns its sequence number (0: not taken).
bool progress_offload_wanted(size_t bytes);
uint64_t progress_offload(bool put, void *local, const Target &t, size_t bytes);
// Whether offloaded transfer `seq` is complete; wait for it; wait for all of this unit's.
bool progress_done(uint64_t seq);
dart_ret_t progress_wait(uint64_t seq, const char *fn);
dart_ret_t progress_drain_slow(const char *fn);
// Blocking calls, flushes, barriers, lock release, memory free and team destroy first
// complete every offloaded transfer of this unit (one load when nothing is pending).
inline dart_ret_t progress_drain(const char *fn) {
  if (DART_LIKELY(g == nullptr || g->progress == nullptr)) return DART_OK;
  return progress_drain_slow(fn);
}

// Handles: a pooled record of an outstanding MPI RMA operation.
void handles_finalize();
// The put of dart_put_blocking / dart_put_handle, with the caller's name in errors
// (notify.cc builds dart_put_notify on them).
dart_ret_t put_blocking_as(const dart_gptr_t &gptr, const void *src, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type, const char *fn);
dart_ret_t put_handle_as(const dart_gptr_t &gptr, const void *src, size_t nelem,
                         dart_datatype_t src_type, dart_datatype_t dst_type, dart_handle_t *handle,
                         const char *fn);
// The counter update a put_notify handle owes once its put is complete (notify.cc).
dart_ret_t notify_handle_complete(const dart_handle_struct &h, const char *fn);
// Releases the locks still alive at dart_exit (their segments go with their teams).
void locks_finalize();
// The same for the allocators of dart_allocator_new (allocator.cc).
void allocators_finalize();
// The bytes of nelem elements of dtype (a basic or custom type), or an error (globmem.cc).
dart_ret_t alloc_bytes(size_t nelem, dart_datatype_t dtype, size_t *nbytes, const char *fn);

// Dense-span gets (onesided.cc). A flush of seg's window that read span_unpacks_mark()
// before it began, and completed the gets to window rank `rank` (-1: every rank), calls
// span_unpacks_flushed: the gets registered before the mark are unpacked now.
inline uint64_t span_unpacks_mark(const Segment *seg) {
  return seg->unpack_seq.load(std::memory_order_acquire);
}
void span_unpacks_flushed_slow(Segment *seg, int rank, uint64_t mark);
inline void span_unpacks_flushed(Segment *seg, int rank, uint64_t mark) {
  if (DART_UNLIKELY(seg->unpack_pending.load(std::memory_order_acquire) != 0))
    span_unpacks_flushed_slow(seg, rank, mark);
}
// segment_free, before the windows go: completes and unpacks every pending one.
dart_ret_t span_unpacks_release(Segment *seg, const char *fn);

}  // namespace detail
}  // namespace dart

// The handle object behind dart_handle_t.
struct dart_handle_struct {
  MPI_Win win;
  int rank;
  dart_handle_struct *next_free;
  // dart_put_notify_handle: the counter update that follows the put's completion.
  bool notify;
  uint64_t notify_value;
  int notify_op;
  dart_gptr_t notify_counter;
  // A transfer carried out by a progress process: its sequence number (0: none).
  uint64_t offload_seq;
  // A dense-span get (onesided.cc): unpacked at the handle's completion unless a flush
  // did it first. nullptr: none.
  dart::detail::SpanUnpack *unpack;
};

#endif  // DART_MPI_INTERNAL_H
