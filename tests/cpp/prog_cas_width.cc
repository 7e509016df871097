// SPDX-License-Identifier: BSD-3-Clause
// dart_compare_and_swap with 32-bit (DART_TYPE_INT, _UINT) and 64-bit (DART_TYPE_LONG,
// _ULONG, _LONGLONG, _ULONGLONG) words, to self and to every other unit, on collective
// memory; plus a contended 64-bit election on unit 0. A program of its own because Open
// MPI's osc rdma has segfaulted on 64-bit MPI_Compare_and_swap to self (see
// docs/mpi-notes.md): a crash must show up as this one failing test.
//
// Before the CAS phases, 64-bit fetch_and_op and accumulate to self and to the others run
// first, so that a CAS crash does not hide whether those work. Each phase announces itself
// on stderr, so a crash log says where it happened.
#include "prog_common.h"

#include <cstdint>
#include <vector>

namespace {

int me = -1, n = 0;
dart_gptr_t g = DART_GPTR_NULL;  // 8 slots of 8 bytes per writer, in every unit's part
const int kSlotsPerWriter = 8;

dart_gptr_t slot(int target, int writer, int s) {
  dart_gptr_t x = g;
  dart_gptr_setunit(&x, DART_TEAM_UNIT_ID(target));
  dart_gptr_incaddr(&x, (int64_t)(8 * (writer * kSlotsPerWriter + s)));
  return x;
}

void phase(const char *what) {
  std::fprintf(stderr, "[rank %d] %s\n", me, what);
  std::fflush(stderr);
}

template <typename T>
T read(dart_gptr_t x, dart_datatype_t dt) {
  T r = 0;
  CHECK_OK(dart_fetch_and_op(x, nullptr, &r, dt, DART_OP_NO_OP));
  return r;
}

template <typename T>
void set(dart_gptr_t x, dart_datatype_t dt, T v) {
  CHECK_OK(dart_accumulate(x, &v, 1, dt, DART_OP_REPLACE));
  CHECK_OK(dart_flush(x));
}

// Values that need all the bits of a 64-bit word (high and low halves differ).
template <typename T>
T big(int k) {
  if (sizeof(T) == 8) return (T)((0x0123456789ABCDEFULL + (uint64_t)k * 0x100000001ULL));
  return (T)(0x12345678u + (unsigned)k);
}

template <typename T>
void cas_one(int target, int s, dart_datatype_t dt) {
  dart_gptr_t x = slot(target, me, s);
  const T init = big<T>(1), v = big<T>(2), wrong = big<T>(3);
  T old = 0;
  set<T>(x, dt, init);
  CHECK_OK(dart_compare_and_swap(x, &v, &wrong, &old, dt));
  CHECK(old == init);
  CHECK(read<T>(x, dt) == init);
  CHECK_OK(dart_compare_and_swap(x, &v, &init, &old, dt));
  CHECK(old == init);
  CHECK(read<T>(x, dt) == v);
}

template <typename T>
void fao_acc_one(int target, int s, dart_datatype_t dt) {
  dart_gptr_t x = slot(target, me, s);
  const T init = big<T>(1), inc = (T)((T)1 << (sizeof(T) * 8 - 8));  // high byte
  T old = 0;
  set<T>(x, dt, init);
  CHECK_OK(dart_fetch_and_op(x, &inc, &old, dt, DART_OP_SUM));
  CHECK(old == init);
  CHECK_OK(dart_accumulate(x, &inc, 1, dt, DART_OP_SUM));
  CHECK_OK(dart_flush(x));
  CHECK(read<T>(x, dt) == (T)(init + inc + inc));
  T r = big<T>(5);
  CHECK_OK(dart_fetch_and_op(x, &r, &old, dt, DART_OP_REPLACE));
  CHECK(old == (T)(init + inc + inc));
  CHECK(read<T>(x, dt) == r);
}

}  // namespace

int main(int argc, char **argv) {
  prog::init_dart(&argc, &argv);
  dart_global_unit_t u{-1};
  size_t nu = 0;
  dart_myid(&u);
  dart_size(&nu);
  me = u.id;
  n = (int)nu;
  if (me == 0) {
    const char *cfg = dart_config_string();
    std::printf("config: %s\n", cfg ? cfg : "(null)");
    std::fflush(stdout);
  }
  CHECK_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, 8 * kSlotsPerWriter * n + 8, DART_TYPE_BYTE, &g));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  // Targets: self first, then every other unit.
  phase("64-bit fetch_and_op / accumulate, self then others");
  for (int k = 0; k < n; ++k) {
    int t = (me + k) % n;
    fao_acc_one<long>(t, 0, DART_TYPE_LONG);
    fao_acc_one<unsigned long long>(t, 1, DART_TYPE_ULONGLONG);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  phase("32-bit compare_and_swap, self then others");
  for (int k = 0; k < n; ++k) {
    int t = (me + k) % n;
    cas_one<int>(t, 2, DART_TYPE_INT);
    cas_one<unsigned int>(t, 3, DART_TYPE_UINT);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  phase("64-bit compare_and_swap to self");
  cas_one<long>(me, 4, DART_TYPE_LONG);
  cas_one<unsigned long>(me, 5, DART_TYPE_ULONG);
  cas_one<long long>(me, 6, DART_TYPE_LONGLONG);
  cas_one<unsigned long long>(me, 7, DART_TYPE_ULONGLONG);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  phase("64-bit compare_and_swap to the other units");
  for (int k = 1; k < n; ++k) {
    int t = (me + k) % n;
    cas_one<long>(t, 4, DART_TYPE_LONG);
    cas_one<unsigned long>(t, 5, DART_TYPE_ULONG);
    cas_one<long long>(t, 6, DART_TYPE_LONGLONG);
    cas_one<unsigned long long>(t, 7, DART_TYPE_ULONGLONG);
  }
  CHECK_OK(dart_barrier(DART_TEAM_ALL));

  // Contended 64-bit election on one word on unit 0 (after every slot above).
  phase("contended 64-bit election on unit 0");
  dart_gptr_t e = g;
  dart_gptr_setunit(&e, DART_TEAM_UNIT_ID(0));
  dart_gptr_incaddr(&e, (int64_t)(8 * kSlotsPerWriter * n));
  if (me == 0) set<long long>(e, DART_TYPE_LONGLONG, -1LL);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  long long mine = big<long long>(10 + me), none = -1LL, old = 0;
  CHECK_OK(dart_compare_and_swap(e, &mine, &none, &old, DART_TYPE_LONGLONG));
  int won = old == -1LL ? 1 : 0, winners = 0;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, prog::comm());
  CHECK(winners == 1);
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  long long final_v = read<long long>(e, DART_TYPE_LONGLONG);
  CHECK(final_v >= big<long long>(10) && final_v < big<long long>(10 + n));
  if (!won) CHECK(old == final_v);

  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(g));
  return prog::end("prog_cas_width");
}
