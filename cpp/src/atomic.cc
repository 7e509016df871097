// Atomics: MPI_Accumulate / MPI_Fetch_and_op / MPI_Compare_and_swap.
//
// The rule (docs/design.md, "Atomics"): MPI makes accumulate operations atomic only
// with respect to other accumulate operations on the same window and basic type. So
// every atomic goes through the segment's one RMA window (`Segment::win`), for same-node
// targets too, never through load/store; a location that is updated atomically
// concurrently must be read with dart_fetch_and_op(DART_OP_NO_OP) and written with
// dart_accumulate(DART_OP_REPLACE), not with put/get, until a synchronization (a flush
// by the writer and a barrier or lock hand-over) separates the phases.
#include "internal.h"

#include <algorithm>
#include <cstring>

using namespace dart::detail;

namespace {

bool is_integer(dart_datatype_t t) { return t >= DART_TYPE_BYTE && t <= DART_TYPE_ULONGLONG; }
bool is_float(dart_datatype_t t) { return t >= DART_TYPE_FLOAT && t <= DART_TYPE_LONG_DOUBLE; }

// MPI type for atomics: MPI_BYTE allows no arithmetic, so bytes are signed chars.
MPI_Datatype atomic_type(const Datatype &t) {
  return t.base == DART_TYPE_BYTE ? MPI_SIGNED_CHAR : t.mpi_elem;
}

dart_ret_t atomic_op(dart_operation_t op, dart_datatype_t dtype, bool fetching, MPI_Op *mop,
                     const char *fn) {
  bool numeric_ok = is_integer(dtype) || is_float(dtype);
  bool ok = true;
  switch (op) {
    case DART_OP_MIN: *mop = MPI_MIN; ok = numeric_ok; break;
    case DART_OP_MAX: *mop = MPI_MAX; ok = numeric_ok; break;
    case DART_OP_SUM: *mop = MPI_SUM; ok = numeric_ok; break;
    case DART_OP_PROD: *mop = MPI_PROD; ok = numeric_ok; break;
    case DART_OP_BAND: *mop = MPI_BAND; ok = is_integer(dtype); break;
    case DART_OP_BOR: *mop = MPI_BOR; ok = is_integer(dtype); break;
    case DART_OP_BXOR: *mop = MPI_BXOR; ok = is_integer(dtype); break;
    case DART_OP_LAND: *mop = MPI_LAND; ok = is_integer(dtype); break;
    case DART_OP_LOR: *mop = MPI_LOR; ok = is_integer(dtype); break;
    case DART_OP_LXOR: *mop = MPI_LXOR; ok = is_integer(dtype); break;
    case DART_OP_REPLACE: *mop = MPI_REPLACE; break;
    case DART_OP_NO_OP:
      *mop = MPI_NO_OP;
      if (!fetching)
        return fail(DART_ERR_INVAL, fn, "DART_OP_NO_OP is only valid for dart_fetch_and_op");
      break;
    default:
      return fail(DART_ERR_INVAL, fn,
                  "operation %ld is not allowed in atomics (MPI accepts only predefined "
                  "operations other than MINMAX)", (long)op);
  }
  if (!ok)
    return fail(DART_ERR_INVAL, fn,
                "operation %ld is not defined for this datatype (bitwise and logical "
                "operations need an integer type)", (long)op);
  return DART_OK;
}

// Validates an atomic on nelem elements and resolves its target window.
dart_ret_t prepare_atomic(const dart_gptr_t &gp, size_t nelem, dart_datatype_t dtype,
                          const char *fn, const Datatype **t, Target *tg) {
  DART_TRY(check_init(fn));
  DART_TRY(check_type(dtype, fn, "dtype", t));
  if ((*t)->kind != Datatype::Basic)
    return fail(DART_ERR_INVAL, fn, "atomics need a basic datatype");
  return resolve(gp, nelem * (*t)->elem_size, fn, tg);
}

dart_ret_t accumulate(dart_gptr_t gptr, const void *values, size_t nelem, dart_datatype_t dtype,
                      dart_operation_t op, bool local_completion, const char *fn) {
  const Datatype *t = nullptr;
  Target tg;
  DART_TRY(prepare_atomic(gptr, nelem, dtype, fn, &t, &tg));
  MPI_Op mop;
  DART_TRY(atomic_op(op, dtype, false, &mop, fn));
  if (values == nullptr && nelem > 0) return fail(DART_ERR_INVAL, fn, "values is NULL");
  MPI_Datatype mt = atomic_type(*t);
  const char *v = static_cast<const char *>(values);
  size_t chunk = g->cfg.transfer_chunk;
  for (size_t done = 0; done < nelem;) {
    size_t n = std::min(chunk, nelem - done);
    DART_MPI(MPI_Accumulate(v + done * t->elem_size, (int)n, mt, tg.rank,
                            (MPI_Aint)(tg.disp + done * t->elem_size), (int)n, mt, mop, tg.win), fn);
    done += n;
  }
  if (local_completion) DART_MPI(MPI_Win_flush_local(tg.rank, tg.win), fn);
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
  const Datatype *t = nullptr;
  Target tg;
  DART_TRY(prepare_atomic(gptr, 1, dtype, fn, &t, &tg));
  MPI_Op mop;
  DART_TRY(atomic_op(op, dtype, true, &mop, fn));
  if (result == nullptr) return fail(DART_ERR_INVAL, fn, "result is NULL");
  if (value == nullptr && op != DART_OP_NO_OP) return fail(DART_ERR_INVAL, fn, "value is NULL");
  DART_MPI(MPI_Fetch_and_op(value, result, atomic_type(*t), tg.rank, (MPI_Aint)tg.disp, mop, tg.win), fn);
  DART_MPI(MPI_Win_flush(tg.rank, tg.win), fn);
  return DART_OK;
}

dart_ret_t dart_compare_and_swap(dart_gptr_t gptr, const void *value, const void *compare,
                                 void *result, dart_datatype_t dtype) {
  const char *fn = "dart_compare_and_swap";
  const Datatype *t = nullptr;
  Target tg;
  DART_TRY(prepare_atomic(gptr, 1, dtype, fn, &t, &tg));
  if (!is_integer(dtype))
    return fail(DART_ERR_INVAL, fn, "compare-and-swap needs an integer datatype (MPI rule)");
  if (value == nullptr || compare == nullptr || result == nullptr)
    return fail(DART_ERR_INVAL, fn, "value, compare and result must not be NULL");
  if (DART_UNLIKELY(g->open_mpi && t->elem_size == 8 && tg.win != tg.seg->shm_win &&
                    tg.rank == tg.seg->team->myid && tg.direct != nullptr)) {
    // Open MPI 4.1's osc rdma (MPI_Win_create windows of teams spanning nodes) crashes
    // in a 64-bit MPI_Compare_and_swap to the calling process itself (btl vader has no
    // endpoint for self). Other processes' atomics on this word are executed here, at
    // the target, by vader with CPU atomic instructions, so the calling unit performs
    // its own compare-and-swap with the same kind of instruction: atomic with respect
    // to those. Pending operations to self are completed first (docs/design.md).
    DART_MPI(MPI_Win_flush(tg.rank, tg.win), fn);
    uint64_t expected;
    std::memcpy(&expected, compare, 8);
    uint64_t desired;
    std::memcpy(&desired, value, 8);
    __atomic_compare_exchange_n(reinterpret_cast<uint64_t *>(tg.direct), &expected, desired,
                                false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    std::memcpy(result, &expected, 8);  // the old value either way
    return DART_OK;
  }
  DART_MPI(MPI_Compare_and_swap(value, compare, result, atomic_type(*t), tg.rank,
                                (MPI_Aint)tg.disp, tg.win), fn);
  DART_MPI(MPI_Win_flush(tg.rank, tg.win), fn);
  return DART_OK;
}

}  // extern "C"
