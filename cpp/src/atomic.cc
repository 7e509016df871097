// SPDX-License-Identifier: BSD-3-Clause
// Atomics: CPU atomic instructions on the shared memory of teams inside one node, and
// MPI_Accumulate / MPI_Fetch_and_op / MPI_Compare_and_swap everywhere else.
//
// The rule (docs/design.md, "Atomics"): atomics are atomic only with respect to atomics
// that take the same path. The path is a property of the location, never of the caller:
// a segment of a team inside one node (Segment::cpu_atomics) uses CPU instructions for
// every naturally aligned location of a 1-, 2-, 4- or 8-byte type, from every unit; all
// other locations (teams spanning nodes, registered memory, long double, unaligned
// offsets) go through the segment's one RMA window, for same-node targets too, never
// through load/store. A location that is updated atomically concurrently must be read
// with dart_fetch_and_op(DART_OP_NO_OP) and written with dart_accumulate(DART_OP_REPLACE),
// not with put/get, until a synchronization (a flush by the writer and a barrier or lock
// hand-over) separates the phases.
#include "internal.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>

using namespace dart::detail;

namespace {

// MPI type for atomics: MPI_BYTE allows no arithmetic, so bytes are signed chars.
MPI_Datatype atomic_type(const Datatype &t) { return basic_mpi_arith_type(t.base); }

// The MPI operation of a DART operation in an atomic on dtype (dart_tables.h says which
// operations atomics accept and which need an integer type).
dart_ret_t atomic_op(dart_operation_t op, dart_datatype_t dtype, bool fetching, MPI_Op *mop,
                     const char *fn) {
  const unsigned flags = op_flags(op);
  if (!(flags & DART_OPF_ATOMIC))
    return fail(DART_ERR_INVAL, fn,
                "operation %ld is not allowed in atomics (MPI accepts only predefined "
                "operations other than MINMAX)",
                (long)op);
  if ((flags & DART_OPF_FETCH) && !fetching)
    return fail(DART_ERR_INVAL, fn, "DART_OP_NO_OP is only valid for dart_fetch_and_op");
  if ((flags & DART_OPF_INTEGER) && !kBasicInteger[dtype])
    return fail(DART_ERR_INVAL, fn,
                "operation %ld is not defined for this datatype (bitwise and logical "
                "operations need an integer type)",
                (long)op);
  *mop = op_mpi(op);
  return DART_OK;
}

// Validates an atomic on nelem elements and resolves its target window.
dart_ret_t prepare_atomic(const dart_gptr_t &gp, size_t nelem, dart_datatype_t dtype,
                          const char *fn, const Datatype **t, Target *tg) {
  DART_TRY(check_init(fn));
  DART_TRY(check_type(dtype, fn, "dtype", t));
  if ((*t)->kind != Datatype::Basic)
    return fail(DART_ERR_INVAL, fn, "atomics need a basic datatype");
  if (nelem > SIZE_MAX / 2 / (*t)->elem_size)
    return fail(DART_ERR_INVAL, fn, "nelem %zu is too large", nelem);
  return resolve(gp, nelem * (*t)->elem_size, fn, tg);
}

// A window that is not the shared-memory one (teams spanning nodes, registered memory):
// Open MPI serves it with osc/rdma, the component of the ompi-rdma-* quirks.
bool rdma_window(const Target &tg) { return tg.win != tg.seg->shm_win; }

// Quirk ompi-rdma-cas64-self applies: a 64-bit compare-and-swap to the caller itself
// through an rdma window (see cas_one).
bool cas64_self_quirk(const Target &tg, size_t size) {
  return size == 8 && quirk(Quirk::OmpiRdmaCas64Self) && rdma_window(tg) &&
         tg.rank == tg.seg->team->myid;
}

// Registered memory of a one-unit team has no MPI window (globmem.cc): only this process
// reaches it, so its atomics are plain read-modify-writes under one process-wide mutex
// (atomic with respect to each other from any thread). fetched: old values or nullptr.
std::mutex g_windowless_mutex;

dart_ret_t windowless_op(const Target &tg, const Datatype &t, const void *values, size_t nelem,
                         dart_operation_t op, MPI_Op mop, void *fetched, const char *fn) {
  if (nelem == 0) return DART_OK;
  std::lock_guard<std::mutex> lock(g_windowless_mutex);
  char *dst = tg.direct;
  if (fetched) std::memcpy(fetched, dst, nelem * t.elem_size);
  if (op == DART_OP_NO_OP) return DART_OK;
  if (op == DART_OP_REPLACE) {
    std::memcpy(dst, values, nelem * t.elem_size);
    return DART_OK;
  }
  const char *v = static_cast<const char *>(values);
  for (size_t done = 0; done < nelem;) {  // MPI_Reduce_local counts are ints
    size_t n = std::min<size_t>(nelem - done, INT_MAX);
    DART_MPI(MPI_Reduce_local(v + done * t.elem_size, dst + done * t.elem_size, (int)n,
                              atomic_type(t), mop),
             fn);
    done += n;
  }
  return DART_OK;
}

dart_ret_t windowless_cas(const Target &tg, size_t size, const void *value, const void *compare,
                          void *result) {
  std::lock_guard<std::mutex> lock(g_windowless_mutex);
  std::memcpy(result, tg.direct, size);
  if (std::memcmp(tg.direct, compare, size) == 0) std::memcpy(tg.direct, value, size);
  return DART_OK;
}

// CPU atomics (Segment::cpu_atomics). Every unit of the team maps every part, so an
// atomic instruction on the target address is atomic with respect to every other unit's.
// Operations without an instruction of their own (MIN, MAX, PROD, the logical ones and
// everything on floating point) are a compare-and-swap loop on the element's bits, which
// computes exactly what MPI's reduction computes (one operation on two values).
template <typename T>
T cpu_apply(dart_operation_t op, T old, T v) {
  switch (op) {
    case DART_OP_MIN: return v < old ? v : old;
    case DART_OP_MAX: return v > old ? v : old;
    case DART_OP_SUM: return (T)(old + v);
    case DART_OP_PROD: return (T)(old * v);
    case DART_OP_LAND: return (T)((old != 0) && (v != 0));
    case DART_OP_LOR: return (T)((old != 0) || (v != 0));
    case DART_OP_LXOR: return (T)((old != 0) != (v != 0));
    default: return v;  // REPLACE (NO_OP never gets here)
  }
}

template <typename T, typename W>
inline T cpu_cas_loop(dart_operation_t op, W *p, T v) {
  W seen = __atomic_load_n(p, __ATOMIC_RELAXED);
  for (;;) {
    T old, next;
    std::memcpy(&old, &seen, sizeof(T));
    next = cpu_apply<T>(op, old, v);
    W want;
    std::memcpy(&want, &next, sizeof(T));
    if (__atomic_compare_exchange_n(p, &seen, want, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return old;
  }
}

// One element; the operation was validated for T (atomic_op / fast_op).
template <typename T>
inline T cpu_one(dart_operation_t op, char *dst, T v) {
  using W = typename std::conditional<
      sizeof(T) == 1, uint8_t,
      typename std::conditional<
          sizeof(T) == 2, uint16_t,
          typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type>::type>::type;
  static_assert(sizeof(W) == sizeof(T), "no atomic instruction of this width");
  W *w = reinterpret_cast<W *>(dst);
  T old;
  if (op == DART_OP_NO_OP || op == DART_OP_REPLACE) {
    W bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    W was = op == DART_OP_NO_OP ? __atomic_load_n(w, __ATOMIC_SEQ_CST)
                                : __atomic_exchange_n(w, bits, __ATOMIC_SEQ_CST);
    std::memcpy(&old, &was, sizeof(T));
    return old;
  }
  if constexpr (std::is_integral<T>::value) {
    T *p = reinterpret_cast<T *>(dst);
    switch (op) {
      case DART_OP_SUM: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
      case DART_OP_BAND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
      case DART_OP_BOR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
      case DART_OP_BXOR: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
      default: break;
    }
  }
  return cpu_cas_loop<T, W>(op, w, v);
}

template <typename T>
bool cpu_run(dart_operation_t op, char *dst, const void *values, size_t nelem, void *fetched) {
  if (reinterpret_cast<uintptr_t>(dst) % sizeof(T) != 0) return false;  // MPI path
  const T *v = static_cast<const T *>(values);
  T *out = static_cast<T *>(fetched);
  for (size_t i = 0; i < nelem; ++i) {
    T in = op == DART_OP_NO_OP ? T() : v[i];
    T old = cpu_one<T>(op, dst + i * sizeof(T), in);
    if (out) out[i] = old;
  }
  return true;
}

// Performs the atomic with CPU instructions if the location takes that path (see the rule
// at the top); false: it takes the MPI path. values may be NULL only for NO_OP.
bool cpu_atomic(dart_datatype_t t, dart_operation_t op, char *dst, const void *values, size_t nelem,
                void *fetched) {
  return with_basic_ctype(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_void_v<T>) {
      return false;
    } else if constexpr (sizeof(T) > 8) {
      return false;  // long double: no instruction of its width; MPI path
    } else {
      return cpu_run<T>(op, dst, values, nelem, fetched);
    }
  });
}

template <typename W>
bool cpu_cas_run(char *dst, const void *value, const void *compare, void *result) {
  if (reinterpret_cast<uintptr_t>(dst) % sizeof(W) != 0) return false;
  W expected, desired;
  std::memcpy(&expected, compare, sizeof(W));
  std::memcpy(&desired, value, sizeof(W));
  __atomic_compare_exchange_n(reinterpret_cast<W *>(dst), &expected, desired, false,
                              __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  std::memcpy(result, &expected, sizeof(W));  // the old value either way
  return true;
}

bool cpu_cas(size_t size, char *dst, const void *value, const void *compare, void *result) {
  switch (size) {
    case 1: return cpu_cas_run<uint8_t>(dst, value, compare, result);
    case 2: return cpu_cas_run<uint16_t>(dst, value, compare, result);
    case 4: return cpu_cas_run<uint32_t>(dst, value, compare, result);
    case 8: return cpu_cas_run<uint64_t>(dst, value, compare, result);
    default: return false;
  }
}

// One compare-and-swap of `size` bytes at tg.disp + off, completed at the target.
dart_ret_t cas_one(const Target &tg, size_t off, size_t size, MPI_Datatype mt, const void *value,
                   const void *compare, void *result, const char *fn) {
  if (DART_UNLIKELY(cas64_self_quirk(tg, size) && tg.direct != nullptr)) {
    // Quirk ompi-rdma-cas64-self (quirks.h). Other processes' atomics on
    // this word are executed here, at the target, by vader with CPU atomic instructions,
    // so the calling unit performs its own compare-and-swap with the same kind of
    // instruction: atomic with respect to those. Pending operations to self complete
    // first (docs/design.md, "Atomics").
    DART_MPI(MPI_Win_flush(tg.rank, tg.win), fn);
    uint64_t expected, desired;
    std::memcpy(&expected, compare, 8);
    std::memcpy(&desired, value, 8);
    __atomic_compare_exchange_n(reinterpret_cast<uint64_t *>(tg.direct + off), &expected, desired,
                                false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    std::memcpy(result, &expected, 8);  // the old value either way
    return DART_OK;
  }
  DART_MPI(
      MPI_Compare_and_swap(value, compare, result, mt, tg.rank, (MPI_Aint)(tg.disp + off), tg.win),
      fn);
  DART_MPI(MPI_Win_flush(tg.rank, tg.win), fn);
  return DART_OK;
}

// Quirk ompi-rdma-logical-ops (quirks.h): MPI_LAND, MPI_LOR and MPI_LXOR on 4- and 8-byte
// integers on such windows are a compare-and-swap loop.
bool logical_op(dart_operation_t op) { return (op_flags(op) & DART_OPF_LOGICAL) != 0; }

template <typename W>
W logical_apply(dart_operation_t op, W a, W b) {
  bool x = a != 0, y = b != 0;
  return (W)(op == DART_OP_LAND ? (x && y) : op == DART_OP_LOR ? (x || y) : (x != y));
}

template <typename W>
dart_ret_t logical_emulated(const Target &tg, MPI_Datatype mt, const W *values, size_t nelem,
                            dart_operation_t op, W *fetched, const char *fn) {
  for (size_t i = 0; i < nelem; ++i) {
    const size_t off = i * sizeof(W);
    W old = 0;
    DART_MPI(
        MPI_Fetch_and_op(nullptr, &old, mt, tg.rank, (MPI_Aint)(tg.disp + off), MPI_NO_OP, tg.win),
        fn);
    DART_MPI(MPI_Win_flush(tg.rank, tg.win), fn);
    for (;;) {
      W want = logical_apply<W>(op, old, values[i]), seen = 0;
      DART_TRY(cas_one(tg, off, sizeof(W), mt, &want, &old, &seen, fn));
      if (seen == old) break;
      old = seen;
    }
    if (fetched) fetched[i] = old;
  }
  return DART_OK;
}

dart_ret_t logical_dispatch(const Target &tg, const Datatype &t, const void *values, size_t nelem,
                            dart_operation_t op, void *fetched, const char *fn) {
  MPI_Datatype mt = atomic_type(t);
  if (t.elem_size == 4)
    return logical_emulated<uint32_t>(tg, mt, static_cast<const uint32_t *>(values), nelem, op,
                                      static_cast<uint32_t *>(fetched), fn);
  return logical_emulated<uint64_t>(tg, mt, static_cast<const uint64_t *>(values), nelem, op,
                                    static_cast<uint64_t *>(fetched), fn);
}

bool needs_logical_emulation(const Target &tg, const Datatype &t, dart_operation_t op) {
  return DART_UNLIKELY(logical_op(op) && quirk(Quirk::OmpiRdmaLogicalOps) && rdma_window(tg) &&
                       (t.elem_size == 4 || t.elem_size == 8));
}

// The MPI operation of a DART operation on the fast path of atomics (a basic type, see
// fast_target). false sends the call down the general path, which reports the errors and
// handles NO_OP outside fetch_and_op and the logical operations (Open MPI).
inline bool fast_op(dart_operation_t op, dart_datatype_t t, bool fetching, MPI_Op *mop) {
  const unsigned flags = op_flags(op);
  if (!(flags & DART_OPF_ATOMIC) || (flags & DART_OPF_LOGICAL)) return false;
  if ((flags & DART_OPF_FETCH) && !fetching) return false;
  if ((flags & DART_OPF_INTEGER) && !kBasicInteger[t]) return false;
  *mop = op_mpi(op);
  return true;
}

dart_ret_t accumulate(dart_gptr_t gptr, const void *values, size_t nelem, dart_datatype_t dtype,
                      dart_operation_t op, bool local_completion, const char *fn) {
  Fast f;
  MPI_Op fop;
  if (fast_target<true>(gptr, values, nelem, dtype, dtype, &f) && fast_op(op, dtype, false, &fop)) {
    if (f.seg->cpu_atomics && f.direct != nullptr &&
        cpu_atomic(dtype, op, f.direct, values, nelem, nullptr))
      return DART_OK;
    const MPI_Datatype mt = basic_mpi_arith_type(dtype);
    DART_MPI(MPI_Accumulate(values, f.count, mt, f.rank, f.disp, f.count, mt, fop, f.win), fn);
    if (local_completion) DART_MPI(win_flush_local(f.rank, f.win), fn);
    return DART_OK;
  }
  const Datatype *t = nullptr;
  Target tg;
  DART_TRY(prepare_atomic(gptr, nelem, dtype, fn, &t, &tg));
  MPI_Op mop;
  DART_TRY(atomic_op(op, dtype, false, &mop, fn));
  if (values == nullptr && nelem > 0) return fail(DART_ERR_INVAL, fn, "values is NULL");
  if (nelem == 0) return DART_OK;
  if (tg.seg->cpu_atomics && tg.direct != nullptr &&
      cpu_atomic(dtype, op, tg.direct, values, nelem, nullptr))
    return DART_OK;
  if (tg.win == MPI_WIN_NULL) return windowless_op(tg, *t, values, nelem, op, mop, nullptr, fn);
  if (needs_logical_emulation(tg, *t, op))
    return logical_dispatch(tg, *t, values, nelem, op, nullptr, fn);
  MPI_Datatype mt = atomic_type(*t);
  const char *v = static_cast<const char *>(values);
  size_t chunk = g->cfg.transfer_chunk;
  for (size_t done = 0; done < nelem;) {
    size_t n = std::min(chunk, nelem - done);
    DART_MPI(MPI_Accumulate(v + done * t->elem_size, (int)n, mt, tg.rank,
                            (MPI_Aint)(tg.disp + done * t->elem_size), (int)n, mt, mop, tg.win),
             fn);
    done += n;
  }
  if (local_completion) DART_MPI(win_flush_local(tg.rank, tg.win), fn);
  return DART_OK;
}

}  // namespace

extern "C" {

dart_ret_t dart_accumulate(dart_gptr_t gptr, const void *values, size_t nelem,
                           dart_datatype_t dtype, dart_operation_t op) {
  return accumulate(gptr, values, nelem, dtype, op, false, "dart_accumulate");
}

dart_ret_t dart_accumulate_blocking_local(dart_gptr_t gptr, const void *values, size_t nelem,
                                          dart_datatype_t dtype, dart_operation_t op) {
  return accumulate(gptr, values, nelem, dtype, op, true, "dart_accumulate_blocking_local");
}

dart_ret_t dart_fetch_and_op(dart_gptr_t gptr, const void *value, void *result,
                             dart_datatype_t dtype, dart_operation_t op) {
  const char *fn = "dart_fetch_and_op";
  DART_TRY(progress_drain(fn));
  Fast f;
  MPI_Op fop;
  if ((value != nullptr || op == DART_OP_NO_OP) &&
      fast_target<true>(gptr, result, 1, dtype, dtype, &f) && fast_op(op, dtype, true, &fop)) {
    if (f.seg->cpu_atomics && f.direct != nullptr &&
        cpu_atomic(dtype, op, f.direct, value, 1, result))
      return DART_OK;
    DART_MPI(
        MPI_Fetch_and_op(value, result, basic_mpi_arith_type(dtype), f.rank, f.disp, fop, f.win),
        fn);
    DART_MPI(MPI_Win_flush(f.rank, f.win), fn);
    return DART_OK;
  }
  const Datatype *t = nullptr;
  Target tg;
  DART_TRY(prepare_atomic(gptr, 1, dtype, fn, &t, &tg));
  MPI_Op mop;
  DART_TRY(atomic_op(op, dtype, true, &mop, fn));
  if (result == nullptr) return fail(DART_ERR_INVAL, fn, "result is NULL");
  if (value == nullptr && op != DART_OP_NO_OP) return fail(DART_ERR_INVAL, fn, "value is NULL");
  if (tg.seg->cpu_atomics && tg.direct != nullptr &&
      cpu_atomic(dtype, op, tg.direct, value, 1, result))
    return DART_OK;
  if (tg.win == MPI_WIN_NULL) return windowless_op(tg, *t, value, 1, op, mop, result, fn);
  if (needs_logical_emulation(tg, *t, op))
    return logical_dispatch(tg, *t, value, 1, op, result, fn);
  DART_MPI(
      MPI_Fetch_and_op(value, result, atomic_type(*t), tg.rank, (MPI_Aint)tg.disp, mop, tg.win),
      fn);
  DART_MPI(MPI_Win_flush(tg.rank, tg.win), fn);
  return DART_OK;
}

dart_ret_t dart_compare_and_swap(dart_gptr_t gptr, const void *value, const void *compare,
                                 void *result, dart_datatype_t dtype) {
  const char *fn = "dart_compare_and_swap";
  DART_TRY(progress_drain(fn));
  Fast f;
  // Quirk ompi-rdma-cas64-self: a 64-bit compare-and-swap to oneself on an rdma window
  // takes the general path (cas_one).
  if (value != nullptr && compare != nullptr && dtype <= DART_TYPE_ULONGLONG &&
      fast_target<true>(gptr, result, 1, dtype, dtype, &f) && !cas64_self_quirk(f, f.bytes)) {
    if (f.seg->cpu_atomics && f.direct != nullptr &&
        cpu_cas(f.bytes, f.direct, value, compare, result))
      return DART_OK;
    DART_MPI(MPI_Compare_and_swap(value, compare, result, basic_mpi_arith_type(dtype), f.rank,
                                  f.disp, f.win),
             fn);
    DART_MPI(MPI_Win_flush(f.rank, f.win), fn);
    return DART_OK;
  }
  const Datatype *t = nullptr;
  Target tg;
  DART_TRY(prepare_atomic(gptr, 1, dtype, fn, &t, &tg));
  if (!kBasicInteger[dtype])
    return fail(DART_ERR_INVAL, fn, "compare-and-swap needs an integer datatype (MPI rule)");
  if (value == nullptr || compare == nullptr || result == nullptr)
    return fail(DART_ERR_INVAL, fn, "value, compare and result must not be NULL");
  // (CPU-atomic segments never get here with valid arguments: the fast path takes them.)
  if (tg.win == MPI_WIN_NULL) return windowless_cas(tg, t->elem_size, value, compare, result);
  return cas_one(tg, 0, t->elem_size, atomic_type(*t), value, compare, result, fn);
}

}  // extern "C"
