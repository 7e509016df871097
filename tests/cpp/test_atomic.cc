// SPDX-License-Identifier: BSD-3-Clause
// Atomics: dart_fetch_and_op, dart_compare_and_swap, dart_accumulate(_blocking_local).
//
// Contended counters (fetch-and-add permutation, CAS election, mixed fetch-and-op /
// accumulate hammer), array accumulates into every unit, every operation with every basic
// type MPI allows, on collective, non-collective (pool) and registered memory; bad inputs.
//
// compare-and-swap here uses 32-bit (and narrower) words only: Open MPI's osc rdma
// segfaults on 64-bit MPI_Compare_and_swap to self on MPI_Win_create windows; the 64-bit
// case has its own program (prog_cas_width.cc) so that a crash there is reported as one
// failing test instead of taking this whole executable down.
#include "dart_test.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

using namespace dtest;

namespace {

enum class Mem { Collective, Pool, Registered };
const char *mem_name(Mem m) {
  return m == Mem::Collective ? "collective"
         : m == Mem::Pool     ? "pool (dart_memalloc)"
                              : "registered";
}
const Mem kAllMem[] = {Mem::Collective, Mem::Pool, Mem::Registered};

// `bytes` of global memory per unit (Collective, Registered) or on unit `owner` only
// (Pool: dart_memalloc on the owner, gptr shared by dart_bcast). Collective.
struct Area {
  Mem kind = Mem::Collective;
  int owner = 0;  // Pool: the allocating unit
  dart_gptr_t base = DART_GPTR_NULL;
  std::vector<char> user;       // registered memory
  std::vector<dart_gptr_t> at;  // per global unit: start of its part (Pool: owner only)

  Area(Mem k, size_t bytes, int pool_owner = 0) : kind(k), owner(pool_owner) {
    const int n = nunits();
    at.assign(n, DART_GPTR_NULL);
    if (kind == Mem::Pool) {
      if (myid() == owner) {
        DART_EXPECT_OK(dart_memalloc(bytes, DART_TYPE_BYTE, &base));
      }
      base = bcast_gptr(base, owner);
      at[owner] = base;
      return;
    }
    if (kind == Mem::Collective) {
      DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &base));
    } else {
      user.assign(bytes, 0);
      DART_EXPECT_OK(
          dart_team_memregister_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, user.data(), &base));
    }
    for (int u = 0; u < n; ++u) {
      at[u] = base;
      dart_gptr_setunit(&at[u], DART_TEAM_UNIT_ID(u));
    }
  }
  // Collective.
  ~Area() {
    dart_barrier(DART_TEAM_ALL);
    if (kind == Mem::Collective) {
      DART_EXPECT_OK(dart_team_memfree(base));
    } else if (kind == Mem::Registered) {
      DART_EXPECT_OK(dart_team_memderegister(base));
    } else if (myid() == owner) {
      DART_EXPECT_OK(dart_memfree(base));
    }
    dart_barrier(DART_TEAM_ALL);
  }
  // gptr of element `index` (of `elem` bytes) in unit u's part.
  dart_gptr_t elem(int u, size_t index, size_t elem_size) const {
    dart_gptr_t g = at[u];
    dart_gptr_incaddr(&g, (int64_t)(index * elem_size));
    return g;
  }
};

// The owner of `g` sets one element to `v` atomically (accumulate REPLACE + flush); then
// every unit passes a barrier. Collective.
template <typename T>
void atomic_init(dart_gptr_t g, int owner, T v) {
  if (myid() == owner) {
    DART_EXPECT_OK(dart_accumulate(g, &v, 1, dart_type_of<T>::value, DART_OP_REPLACE));
    DART_EXPECT_OK(dart_flush(g));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

template <typename T>
T atomic_read(dart_gptr_t g) {
  T r{};
  DART_EXPECT_OK(dart_fetch_and_op(g, nullptr, &r, dart_type_of<T>::value, DART_OP_NO_OP));
  return r;
}

// Targets for the contended tests: unit 0 and (if different) the last unit.
std::vector<int> counter_units() {
  std::vector<int> t{0};
  if (nunits() > 1) t.push_back(nunits() - 1);
  return t;
}

}  // namespace

// Every unit adds `inc` once to one counter: the fetched values are a permutation of
// {0, inc, ..., (n-1)*inc}, and the final value is n*inc.
TEST(Atomic, FetchAndAddPermutation) {
  const int n = nunits();
  const long inc = 3;
  for (Mem m : kAllMem) {
    for (int target : counter_units()) {
      Area a(m, 64, target);
      dart_gptr_t c = a.elem(target, 1, sizeof(long));
      atomic_init<long>(c, target, 0);
      long fetched = -1;
      DART_EXPECT_OK(dart_fetch_and_op(c, &inc, &fetched, DART_TYPE_LONG, DART_OP_SUM));
      std::vector<long> all(n, -2);
      DART_EXPECT_OK(dart_allgather(&fetched, all.data(), 1, DART_TYPE_LONG, DART_TEAM_ALL));
      std::sort(all.begin(), all.end());
      std::vector<long> want(n);
      for (int i = 0; i < n; ++i) want[i] = i * inc;
      EXPECT_EQ(all, want) << mem_name(m) << ", counter on unit " << target;
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      EXPECT_EQ(atomic_read<long>(c), n * inc) << mem_name(m) << ", counter on unit " << target;
    }
  }
}

// Election: every unit tries CAS(-1 -> myid) on one int; exactly one wins and every unit
// reads the winner's id afterwards.
TEST(Atomic, CompareAndSwapElection) {
  const int n = nunits(), me = myid();
  for (Mem m : kAllMem) {
    for (int target : counter_units()) {
      Area a(m, 64, target);
      dart_gptr_t c = a.elem(target, 3, sizeof(int));
      atomic_init<int>(c, target, -1);
      int value = me, compare = -1, old = -7;
      DART_EXPECT_OK(dart_compare_and_swap(c, &value, &compare, &old, DART_TYPE_INT));
      const bool won = (old == -1);
      if (!won) {
        EXPECT_TRUE(old >= 0 && old < n) << "previous value " << old;
      }
      EXPECT_EQ(sum_all(won ? 1 : 0), 1) << mem_name(m) << ", on unit " << target;
      // The winner tells who it is; everybody must agree with what memory says.
      int winner = won ? me : -1, max_winner = -1;
      MPI_Comm comm;
      dart_team_comm(DART_TEAM_ALL, &comm);
      MPI_Allreduce(&winner, &max_winner, 1, MPI_INT, MPI_MAX, comm);
      if (!won) {
        EXPECT_EQ(old, max_winner) << "a loser saw another value than the winner's id";
      }
      EXPECT_EQ(atomic_read<int>(c), max_winner) << mem_name(m);
      // A second round with the wrong expected value changes nothing.
      compare = -1;
      value = 1000 + me;
      DART_EXPECT_OK(dart_compare_and_swap(c, &value, &compare, &old, DART_TYPE_INT));
      EXPECT_EQ(old, max_winner);
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      EXPECT_EQ(atomic_read<int>(c), max_winner) << mem_name(m);
      // Swap from the winner's id to a new value: again exactly one unit succeeds.
      compare = max_winner;
      value = 2000 + me;
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      DART_EXPECT_OK(dart_compare_and_swap(c, &value, &compare, &old, DART_TYPE_INT));
      EXPECT_EQ(sum_all(old == max_winner ? 1 : 0), 1);
    }
  }
}

// Narrow CAS widths (8, 16 and 32 bits, signed and unsigned), uncontended, to self and to
// the right neighbour.
template <typename T>
void cas_width(const Area &a, int target, size_t slot) {
  const dart_datatype_t dt = dart_type_of<T>::value;
  dart_gptr_t c = a.elem(target, slot, 8);
  T init = T(5), v = T(9), wrong = T(6), old = T(0);
  DART_EXPECT_OK(dart_accumulate(c, &init, 1, dt, DART_OP_REPLACE));
  DART_EXPECT_OK(dart_flush(c));
  DART_EXPECT_OK(dart_compare_and_swap(c, &v, &wrong, &old, dt));
  EXPECT_EQ(old, init) << "type " << dt;
  EXPECT_EQ(atomic_read<T>(c), init) << "type " << dt << ": swapped although compare differed";
  DART_EXPECT_OK(dart_compare_and_swap(c, &v, &init, &old, dt));
  EXPECT_EQ(old, init) << "type " << dt;
  EXPECT_EQ(atomic_read<T>(c), v) << "type " << dt;
}

TEST(Atomic, CompareAndSwapNarrowTypes) {
  const int n = nunits(), me = myid();
  for (Mem m : {Mem::Collective, Mem::Registered}) {
    Area a(m, 8 * 8 * n);
    for (int target : {me, (me + 1) % n}) {
      // Slots: 4 per writer; target == me uses slots [0,4), the neighbour [4,8) of 8*n.
      size_t base = (size_t)me * 8 + (target == me ? 0 : 4);
      cas_width<char>(a, target, base + 0);
      cas_width<short>(a, target, base + 1);
      cas_width<int>(a, target, base + 2);
      cas_width<unsigned int>(a, target, base + 3);
      if (n == 1) break;
    }
  }
}

// Array accumulate (SUM) of int and double arrays from every unit into every unit's part;
// once with dart_accumulate + dart_flush_all, once with dart_accumulate_blocking_local +
// dart_flush. Doubles are multiples of 1/4 (exact sums).
TEST(Atomic, AccumulateArraysIntoEveryUnit) {
  const int n = nunits(), me = myid();
  const size_t M = 257;
  for (Mem m : kAllMem) {
    if (m == Mem::Pool) continue;  // needs one part per unit: covered below by the counter tests
    for (int variant = 0; variant < 2; ++variant) {
      Area ai(m, M * sizeof(int));
      Area ad(m, M * sizeof(double));
      {  // zero my parts atomically
        std::vector<int> zi(M, 0);
        std::vector<double> zd(M, 0.0);
        DART_EXPECT_OK(dart_accumulate(ai.at[me], zi.data(), M, DART_TYPE_INT, DART_OP_REPLACE));
        DART_EXPECT_OK(dart_accumulate(ad.at[me], zd.data(), M, DART_TYPE_DOUBLE, DART_OP_REPLACE));
        DART_EXPECT_OK(dart_flush(ai.at[me]));
        DART_EXPECT_OK(dart_flush(ad.at[me]));
      }
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      std::vector<int> vi(M);
      std::vector<double> vd(M);
      for (size_t i = 0; i < M; ++i) {
        vi[i] = (me + 1) * (int)(i + 1);
        vd[i] = (me + 1) * 0.25 * (double)(i + 1);
      }
      for (int k = 0; k < n; ++k) {
        int u = (me + k) % n;
        if (variant == 0) {
          DART_EXPECT_OK(dart_accumulate(ai.at[u], vi.data(), M, DART_TYPE_INT, DART_OP_SUM));
          DART_EXPECT_OK(dart_accumulate(ad.at[u], vd.data(), M, DART_TYPE_DOUBLE, DART_OP_SUM));
        } else {
          DART_EXPECT_OK(
              dart_accumulate_blocking_local(ai.at[u], vi.data(), M, DART_TYPE_INT, DART_OP_SUM));
          DART_EXPECT_OK(dart_accumulate_blocking_local(ad.at[u], vd.data(), M, DART_TYPE_DOUBLE,
                                                        DART_OP_SUM));
          // Local completion: the source may be scribbled on now.
          std::fill(vi.begin(), vi.end(), -999);
          std::fill(vd.begin(), vd.end(), -999.0);
          for (size_t i = 0; i < M; ++i) {
            vi[i] = (me + 1) * (int)(i + 1);
            vd[i] = (me + 1) * 0.25 * (double)(i + 1);
          }
          DART_EXPECT_OK(dart_flush(ai.at[u]));
          DART_EXPECT_OK(dart_flush(ad.at[u]));
        }
      }
      if (variant == 0) {
        DART_EXPECT_OK(dart_flush_all(ai.base));
        DART_EXPECT_OK(dart_flush_all(ad.base));
      }
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      const long tri = (long)n * (n + 1) / 2;  // sum of (w+1) over writers
      int *li = nullptr;
      double *ld = nullptr;
      dart_gptr_getaddr(ai.at[me], reinterpret_cast<void **>(&li));
      dart_gptr_getaddr(ad.at[me], reinterpret_cast<void **>(&ld));
      EXPECT_NE(li, nullptr);
      EXPECT_NE(ld, nullptr);
      int bad = 0;
      for (size_t i = 0; li && ld && i < M; ++i) {
        if (li[i] != tri * (long)(i + 1) && bad++ < 3)
          ADD_FAILURE() << mem_name(m) << " variant " << variant << " int[" << i << "] = " << li[i]
                        << ", want " << tri * (long)(i + 1);
        if (ld[i] != tri * 0.25 * (double)(i + 1) && bad++ < 3)
          ADD_FAILURE() << mem_name(m) << " variant " << variant << " double[" << i
                        << "] = " << ld[i];
      }
      // And read one remote element atomically.
      const int r = (me + 1) % n;
      EXPECT_EQ(atomic_read<int>(ai.elem(r, M - 1, sizeof(int))), (int)(tri * (long)M));
      EXPECT_EQ(atomic_read<double>(ad.elem(r, 5, sizeof(double))), tri * 0.25 * 6);
    }
  }
}

namespace {

// a (op) b for the integer and floating-point test values.
template <typename T>
T apply(dart_operation_t op, T a, T b) {
  switch (op) {
    case DART_OP_MIN: return std::min(a, b);
    case DART_OP_MAX: return std::max(a, b);
    case DART_OP_SUM: return T(a + b);
    case DART_OP_PROD: return T(a * b);
    case DART_OP_REPLACE: return b;
    case DART_OP_NO_OP: return a;
    default: break;
  }
  if constexpr (std::is_integral<T>::value) {
    switch (op) {
      case DART_OP_BAND: return T(a & b);
      case DART_OP_BOR: return T(a | b);
      case DART_OP_BXOR: return T(a ^ b);
      case DART_OP_LAND: return T((a != 0) && (b != 0));
      case DART_OP_LOR: return T((a != 0) || (b != 0));
      case DART_OP_LXOR: return T((a != 0) != (b != 0));
      default: break;
    }
  }
  ADD_FAILURE() << "apply: op " << op;
  return a;
}

// Test values (a at the target, b the operand) per op, all exact in every type.
template <typename T>
void values_for(dart_operation_t op, T *a, T *b) {
  if constexpr (std::is_integral<T>::value) {
    switch (op) {
      case DART_OP_BAND:
      case DART_OP_BOR:
      case DART_OP_BXOR:
        *a = T(0x5C);
        *b = T(0x3A);
        return;
      case DART_OP_LAND:
        *a = T(2);
        *b = T(0);
        return;
      case DART_OP_LOR:
        *a = T(0);
        *b = T(3);
        return;
      case DART_OP_LXOR:
        *a = T(2);
        *b = T(3);
        return;
      default:
        *a = T(5);
        *b = T(3);
        return;  // MIN MAX SUM PROD REPLACE NO_OP
    }
  } else {
    *a = T(1.5);
    *b = T(2.25);
  }
}

const dart_operation_t kIntOps[] = {DART_OP_MIN,  DART_OP_MAX,  DART_OP_SUM,     DART_OP_PROD,
                                    DART_OP_BAND, DART_OP_BOR,  DART_OP_BXOR,    DART_OP_LAND,
                                    DART_OP_LOR,  DART_OP_LXOR, DART_OP_REPLACE, DART_OP_NO_OP};
const dart_operation_t kFloatOps[] = {DART_OP_MIN,  DART_OP_MAX,     DART_OP_SUM,
                                      DART_OP_PROD, DART_OP_REPLACE, DART_OP_NO_OP};
const dart_operation_t kBitOps[] = {DART_OP_BAND, DART_OP_BOR, DART_OP_BXOR,
                                    DART_OP_LAND, DART_OP_LOR, DART_OP_LXOR};

// Every op with type T on one element (my own slot, uncontended) at `target`:
// fetch_and_op returns the old value and leaves (a op b); accumulate leaves (a op b).
template <typename T>
void every_op(dart_gptr_t g, const char *where) {
  const dart_datatype_t dt = dart_type_of<T>::value;
  auto ops_of = [](std::vector<dart_operation_t> &v) {
    if (std::is_integral<T>::value)
      v.assign(std::begin(kIntOps), std::end(kIntOps));
    else
      v.assign(std::begin(kFloatOps), std::end(kFloatOps));
  };
  std::vector<dart_operation_t> ops;
  ops_of(ops);
  for (dart_operation_t op : ops) {
    T a{}, b{};
    values_for<T>(op, &a, &b);
    const T want = apply<T>(op, a, b);
    // fetch_and_op
    T old = T(-1), res = T(-1);
    DART_EXPECT_OK(dart_fetch_and_op(g, &a, &old, dt, DART_OP_REPLACE));
    DART_EXPECT_OK(dart_fetch_and_op(g, &b, &old, dt, op));
    EXPECT_EQ(old, a) << where << " fetch_and_op type " << dt << " op " << op;
    DART_EXPECT_OK(dart_fetch_and_op(g, nullptr, &res, dt, DART_OP_NO_OP));
    EXPECT_EQ(res, want) << where << " fetch_and_op type " << dt << " op " << op;
    // accumulate (NO_OP is not allowed there)
    if (op == DART_OP_NO_OP) continue;
    DART_EXPECT_OK(dart_accumulate(g, &a, 1, dt, DART_OP_REPLACE));
    DART_EXPECT_OK(dart_accumulate(g, &b, 1, dt, op));
    DART_EXPECT_OK(dart_flush(g));
    DART_EXPECT_OK(dart_fetch_and_op(g, nullptr, &res, dt, DART_OP_NO_OP));
    EXPECT_EQ(res, want) << where << " accumulate type " << dt << " op " << op;
  }
  // Bitwise and logical ops on floating-point types are refused, and nothing changes.
  if (!std::is_integral<T>::value) {
    T one = T(1), keep = T(42), res = T(-1);
    DART_EXPECT_OK(dart_fetch_and_op(g, &keep, &res, dt, DART_OP_REPLACE));
    for (dart_operation_t op : kBitOps) {
      res = T(-1);
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_fetch_and_op(g, &one, &res, dt, op));
      EXPECT_EQ(res, T(-1)) << "result written on failure";
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(g, &one, 1, dt, op));
    }
    DART_EXPECT_OK(dart_flush(g));
    DART_EXPECT_OK(dart_fetch_and_op(g, nullptr, &res, dt, DART_OP_NO_OP));
    EXPECT_EQ(res, keep) << where << " type " << dt;
  }
}

}  // namespace

TEST(Atomic, EveryOpEveryBasicType) {
  const int n = nunits(), me = myid();
  const size_t kSlot = 16, kSlots = 11;  // 16-byte slots fit long double; 11 types
  for (Mem m : kAllMem) {
    // Targets: self and (n > 1) the right neighbour; writer me uses its own slots.
    //  collective/registered: slots [(2 me + t) kSlots, ...) of the target's part;
    //  pool: every unit dart_memalloc's 2 kSlots slots, [0, kSlots) for itself and
    //  [kSlots, 2 kSlots) for its left neighbour (gptrs gathered).
    Area *ar = nullptr;
    dart_gptr_t mine = DART_GPTR_NULL;
    std::vector<dart_gptr_t> pool;
    if (m == Mem::Pool) {
      DART_EXPECT_OK(dart_memalloc(kSlot * kSlots * 2, DART_TYPE_BYTE, &mine));
      pool = allgather_gptr(mine);
    } else {
      ar = new Area(m, kSlot * kSlots * 2 * n);
    }
    for (int t = 0; t < (n > 1 ? 2 : 1); ++t) {
      const int target = t == 0 ? me : (me + 1) % n;
      const std::string where = std::string(mem_name(m)) + (t == 0 ? ", self:" : ", neighbour:");
      dart_gptr_t g = m == Mem::Pool ? pool[target] : ar->at[target];
      dart_gptr_incaddr(&g, (int64_t)(kSlot * kSlots * (m == Mem::Pool ? t : 2 * me + t)));
      size_t s = 0;
      auto slot = [&]() {
        dart_gptr_t x = g;
        dart_gptr_incaddr(&x, (int64_t)(kSlot * s++));
        return x;
      };
      const char *w = where.c_str();
      every_op<char>(slot(), w);
      every_op<short>(slot(), w);
      every_op<int>(slot(), w);
      every_op<unsigned int>(slot(), w);
      every_op<long>(slot(), w);
      every_op<unsigned long>(slot(), w);
      every_op<long long>(slot(), w);
      every_op<unsigned long long>(slot(), w);
      every_op<float>(slot(), w);
      every_op<double>(slot(), w);
      every_op<long double>(slot(), w);
    }
    if (m == Mem::Pool) {
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      DART_EXPECT_OK(dart_memfree(mine));
    } else {
      delete ar;
    }
  }
}

// Mixed paths on one counter: 2,000 fetch_and_op(SUM, 1) and 2,000 accumulate(SUM, 1)
// per unit on one long on unit 0 (other-node units with DART_UNITS_PER_NODE set); 500
// each when oversubscribed (16 s of the 4-unit job on 2 cores at 2,000).
TEST(Atomic, MixedFetchAndOpAndAccumulateHammer) {
  const int n = nunits();
  const int K = oversubscribed() ? 500 : 2000;
  Area a(Mem::Collective, 64);
  dart_gptr_t c = a.elem(0, 0, sizeof(long));
  atomic_init<long>(c, 0, 0);
  const long one = 1;
  long prev = -1, fetched = 0;
  bool monotone = true;
  for (int i = 0; i < K; ++i) {
    DART_EXPECT_OK(dart_fetch_and_op(c, &one, &fetched, DART_TYPE_LONG, DART_OP_SUM));
    if (fetched <= prev) monotone = false;  // my own increments are in order
    prev = fetched;
    DART_EXPECT_OK(dart_accumulate(c, &one, 1, DART_TYPE_LONG, DART_OP_SUM));
    if (i % 64 == 63) {
      DART_EXPECT_OK(dart_flush(c));
    }
  }
  DART_EXPECT_OK(dart_flush(c));
  EXPECT_TRUE(monotone) << "fetched values of one unit must increase";
  EXPECT_LT(prev, 2L * K * n);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  EXPECT_EQ(atomic_read<long>(c), 2L * K * n);
}

// Counters at offsets that are not multiples of their size: on teams inside one node
// aligned locations use CPU instructions and unaligned ones MPI atomics (atomic.cc); each
// location keeps one path, so the counts stay exact. Offsets 1 (int) and 20 (long), plus
// an aligned neighbour updated in the same loop. 500 rounds, 150 when oversubscribed.
TEST(Atomic, UnalignedAndAlignedCountersNextToEachOther) {
  const int n = nunits();
  const int K = oversubscribed() ? 150 : 500;
  Area a(Mem::Collective, 64);
  dart_gptr_t odd_int = a.elem(0, 1, 1), odd_long = a.elem(0, 20, 1);
  dart_gptr_t even_long = a.elem(0, 32, 1);
  if (myid() == 0) {
    const int zi = 0;
    const long zl = 0;
    DART_EXPECT_OK(dart_accumulate(odd_int, &zi, 1, DART_TYPE_INT, DART_OP_REPLACE));
    DART_EXPECT_OK(dart_accumulate(odd_long, &zl, 1, DART_TYPE_LONG, DART_OP_REPLACE));
    DART_EXPECT_OK(dart_accumulate(even_long, &zl, 1, DART_TYPE_LONG, DART_OP_REPLACE));
    DART_EXPECT_OK(dart_flush_all(odd_int));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  const int one_i = 1;
  const long one_l = 1;
  int got_i = 0;
  for (int i = 0; i < K; ++i) {
    DART_EXPECT_OK(dart_fetch_and_op(odd_int, &one_i, &got_i, DART_TYPE_INT, DART_OP_SUM));
    DART_EXPECT_OK(dart_accumulate(odd_long, &one_l, 1, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_OK(dart_accumulate(even_long, &one_l, 1, DART_TYPE_LONG, DART_OP_SUM));
  }
  DART_EXPECT_OK(dart_flush_all(odd_int));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  int vi = 0;
  long vl = 0, ve = 0;
  DART_EXPECT_OK(dart_fetch_and_op(odd_int, nullptr, &vi, DART_TYPE_INT, DART_OP_NO_OP));
  DART_EXPECT_OK(dart_fetch_and_op(odd_long, nullptr, &vl, DART_TYPE_LONG, DART_OP_NO_OP));
  DART_EXPECT_OK(dart_fetch_and_op(even_long, nullptr, &ve, DART_TYPE_LONG, DART_OP_NO_OP));
  EXPECT_EQ(vi, K * n);
  EXPECT_EQ(vl, (long)K * n);
  EXPECT_EQ(ve, (long)K * n);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Atomics on a sub-team's memory (unit 0 and the odd-numbered units): fetch-and-add
// permutation on the team, counter on the team's last unit.
TEST(Atomic, SubTeamFetchAndAdd) {
  const int n = nunits(), me = myid();
  std::vector<int> members{0};
  for (int u = 1; u < n; u += 2) members.push_back(u);
  const bool member = std::find(members.begin(), members.end(), me) != members.end();
  dart_team_t team = make_team(members);
  EXPECT_EQ(team != DART_TEAM_NULL, member);
  if (member && team != DART_TEAM_NULL) {
    const int tn = (int)members.size();
    dart_gptr_t g = DART_GPTR_NULL;
    DART_EXPECT_OK(dart_team_memalloc_aligned(team, 8, DART_TYPE_LONG, &g));
    dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(tn - 1));
    dart_team_unit_t tme;
    dart_team_myid(team, &tme);
    if (tme.id == tn - 1) {
      long z = 0;
      DART_EXPECT_OK(dart_accumulate(g, &z, 1, DART_TYPE_LONG, DART_OP_REPLACE));
      DART_EXPECT_OK(dart_flush(g));
    }
    DART_EXPECT_OK(dart_barrier(team));
    long inc = 1, got = -1;
    DART_EXPECT_OK(dart_fetch_and_op(g, &inc, &got, DART_TYPE_LONG, DART_OP_SUM));
    std::vector<long> all(tn, -1);
    DART_EXPECT_OK(dart_allgather(&got, all.data(), 1, DART_TYPE_LONG, team));
    std::sort(all.begin(), all.end());
    for (int i = 0; i < tn; ++i) EXPECT_EQ(all[i], i);
    DART_EXPECT_OK(dart_barrier(team));
    EXPECT_EQ(atomic_read<long>(g), tn);
    // Unit == team size is out of range on this team even if the world is larger.
    dart_gptr_t bad = g;
    dart_gptr_setunit(&bad, DART_TEAM_UNIT_ID(tn));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_fetch_and_op(bad, &inc, &got, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_OK(dart_barrier(team));
    DART_EXPECT_OK(dart_team_memfree(g));
  }
  drop_team(team);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

namespace {
void user_sum(const void *in, void *inout, size_t len, void *) {
  for (size_t i = 0; i < len; ++i) static_cast<int *>(inout)[i] += static_cast<const int *>(in)[i];
}
}  // namespace

TEST(Atomic, BadInputs) {
  const int n = nunits(), me = myid();
  dart_gptr_t g = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONG, &g));
  dart_gptr_t mine = g;
  dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me));
  dart_gptr_t right = g;
  dart_gptr_setunit(&right, DART_TEAM_UNIT_ID((me + 1) % n));
  {
    long z[4] = {0, 0, 0, 0};
    DART_EXPECT_OK(dart_accumulate(mine, z, 4, DART_TYPE_LONG, DART_OP_REPLACE));
    DART_EXPECT_OK(dart_flush(mine));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));

  for (dart_gptr_t t : {mine, right}) {
    int iv = 1, ires = -5, icmp = 0;
    long lv = 1, lres = -5;
    double dv = 1.0, dres = -5.0, dcmp = 0.0;
    float fv = 1.0f, fres = -5.0f, fcmp = 0.0f;
    // NO_OP only with fetch_and_op.
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(t, &lv, 1, DART_TYPE_LONG, DART_OP_NO_OP));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_accumulate_blocking_local(t, &lv, 1, DART_TYPE_LONG, DART_OP_NO_OP));
    // Bitwise op on double.
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(t, &dv, 1, DART_TYPE_DOUBLE, DART_OP_BXOR));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_fetch_and_op(t, &dv, &dres, DART_TYPE_DOUBLE, DART_OP_BAND));
    EXPECT_EQ(dres, -5.0);
    // CAS on floating point.
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_compare_and_swap(t, &dv, &dcmp, &dres, DART_TYPE_DOUBLE));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_compare_and_swap(t, &fv, &fcmp, &fres, DART_TYPE_FLOAT));
    EXPECT_EQ(dres, -5.0);
    EXPECT_EQ(fres, -5.0f);
    // MINMAX, UNDEFINED, out-of-range op values.
    for (dart_operation_t op :
         {DART_OP_MINMAX, DART_OP_UNDEFINED, DART_OP_LAST, (dart_operation_t)-1}) {
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(t, &lv, 1, DART_TYPE_LONG, op));
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_fetch_and_op(t, &lv, &lres, DART_TYPE_LONG, op));
    }
    EXPECT_EQ(lres, -5);
    // A user-defined operation.
    dart_operation_t uop = DART_OP_UNDEFINED;
    DART_EXPECT_OK(dart_op_create(user_sum, nullptr, true, DART_TYPE_INT, false, &uop));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(t, &iv, 1, DART_TYPE_INT, uop));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_fetch_and_op(t, &iv, &ires, DART_TYPE_INT, uop));
    EXPECT_EQ(ires, -5);
    DART_EXPECT_OK(dart_op_destroy(&uop));
    // Derived types: strided, indexed, custom; and UNDEFINED / past the last type.
    dart_datatype_t strided = DART_TYPE_UNDEFINED, custom = DART_TYPE_UNDEFINED,
                    indexed = DART_TYPE_UNDEFINED;
    DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &strided));
    DART_EXPECT_OK(dart_type_create_custom(sizeof(int), &custom));
    size_t bl[1] = {1}, off[1] = {0};
    DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_INT, 1, bl, off, &indexed));
    for (dart_datatype_t dt : {strided, custom, indexed, DART_TYPE_UNDEFINED, DART_TYPE_LAST}) {
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(t, &iv, 1, dt, DART_OP_SUM));
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_fetch_and_op(t, &iv, &ires, dt, DART_OP_SUM));
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_compare_and_swap(t, &iv, &icmp, &ires, dt));
    }
    EXPECT_EQ(ires, -5);
    dart_type_destroy(&strided);
    dart_type_destroy(&custom);
    dart_type_destroy(&indexed);
    // NULL buffers.
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(t, nullptr, 1, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_accumulate_blocking_local(t, nullptr, 1, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_OK(dart_accumulate(t, nullptr, 0, DART_TYPE_LONG, DART_OP_SUM));  // nothing
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_fetch_and_op(t, nullptr, &lres, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_fetch_and_op(t, &lv, nullptr, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_fetch_and_op(t, nullptr, nullptr, DART_TYPE_LONG, DART_OP_NO_OP));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_compare_and_swap(t, nullptr, &icmp, &ires, DART_TYPE_INT));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_compare_and_swap(t, &iv, nullptr, &ires, DART_TYPE_INT));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_compare_and_swap(t, &iv, &icmp, nullptr, DART_TYPE_INT));
    EXPECT_EQ(ires, -5);
    // Offset past the end of the unit's part (4 longs): last element ok, one more byte not.
    dart_gptr_t last = t;
    dart_gptr_incaddr(&last, 3 * (int64_t)sizeof(long));
    DART_EXPECT_OK(dart_fetch_and_op(last, nullptr, &lres, DART_TYPE_LONG, DART_OP_NO_OP));
    dart_gptr_t past = last;
    dart_gptr_incaddr(&past, 1);
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_fetch_and_op(past, &lv, &lres, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(past, &lv, 1, DART_TYPE_LONG, DART_OP_SUM));
    dart_gptr_t past_int = last;  // an int at byte 29 of 32 ends one byte past the part
    dart_gptr_incaddr(&past_int, (int64_t)sizeof(long) - (int64_t)sizeof(int) + 1);
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_compare_and_swap(past_int, &iv, &icmp, &ires, DART_TYPE_INT));
    long arr[2] = {1, 1};
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(last, arr, 2, DART_TYPE_LONG, DART_OP_SUM));
    dart_gptr_t far = t;
    dart_gptr_incaddr(&far, 1 << 20);
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(far, &lv, 1, DART_TYPE_LONG, DART_OP_SUM));
  }
  // Unit == team size and unit < 0.
  {
    long lv = 1, lres = -5;
    int iv = 1, icmp = 0, ires = -5;
    dart_gptr_t bad = g;
    dart_gptr_setunit(&bad, DART_TEAM_UNIT_ID(n));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(bad, &lv, 1, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_fetch_and_op(bad, &lv, &lres, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_compare_and_swap(bad, &iv, &icmp, &ires, DART_TYPE_INT));
    int16_t segid = 0, teamid = 0;
    dart_gptr_fields(&g, nullptr, nullptr, &segid, &teamid, nullptr);
    dart_gptr_t neg = gptr_of(-1, segid, teamid, 0);
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_accumulate(neg, &lv, 1, DART_TYPE_LONG, DART_OP_SUM));
    EXPECT_EQ(lres, -5);
    EXPECT_EQ(ires, -5);
  }
  // Nothing above changed memory.
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  EXPECT_EQ(atomic_read<long>(mine), 0) << "a failed atomic modified memory";
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
  // Freed segment: NOTFOUND.
  {
    long lv = 1, lres = -5;
    int iv = 1, icmp = 0, ires = -5;
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                     dart_accumulate(right, &lv, 1, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                     dart_fetch_and_op(right, &lv, &lres, DART_TYPE_LONG, DART_OP_SUM));
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                     dart_compare_and_swap(right, &iv, &icmp, &ires, DART_TYPE_INT));
    EXPECT_EQ(lres, -5);
    EXPECT_EQ(ires, -5);
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}
