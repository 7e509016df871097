// SPDX-License-Identifier: BSD-3-Clause
// One-sided communication: put/get with every completion call, blocking and handle
// variants, to self and to every other unit, for every basic type, on collective,
// non-collective (pool) and registered memory; bad gptrs.
#include "dart_test.h"

#include <cmath>

using namespace dtest;

namespace {

// Kinds of memory a test runs on. Every kind gives, on every unit, a vector of gptrs
// (index: global unit) to a part of `bytes` bytes owned by that unit.
enum class Mem { Collective, Pool, Registered };
const char *mem_name(Mem m) {
  return m == Mem::Collective ? "collective" : m == Mem::Pool ? "pool" : "registered";
}

struct Parts {
  Mem kind;
  std::vector<dart_gptr_t> at;  // per global unit
  dart_gptr_t base = DART_GPTR_NULL;
  std::vector<char> user;  // registered memory
  char *local = nullptr;   // my part
};

// Collective.
void make_parts(Parts &p, Mem kind, size_t bytes) {
  const int n = nunits(), me = myid();
  p.kind = kind;
  p.at.assign(n, DART_GPTR_NULL);
  if (kind == Mem::Collective || kind == Mem::Registered) {
    if (kind == Mem::Collective) {
      DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &p.base));
    } else {
      p.user.assign(bytes + 1, 0);
      DART_EXPECT_OK(dart_team_memregister_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE,
                                                   p.user.data(), &p.base));
    }
    for (int u = 0; u < n; ++u) {
      p.at[u] = p.base;
      dart_gptr_setunit(&p.at[u], DART_TEAM_UNIT_ID(u));
    }
  } else {
    DART_EXPECT_OK(dart_memalloc(bytes, DART_TYPE_BYTE, &p.base));
    p.at = allgather_gptr(p.base);  // the gptr travels to the other units
  }
  dart_gptr_getaddr(p.at[me], reinterpret_cast<void **>(&p.local));
  EXPECT_NE(p.local, nullptr) << mem_name(kind);
}

// Collective.
void free_parts(Parts &p) {
  dart_barrier(DART_TEAM_ALL);
  if (p.kind == Mem::Collective)
    DART_EXPECT_OK(dart_team_memfree(p.base));
  else if (p.kind == Mem::Registered)
    DART_EXPECT_OK(dart_team_memderegister(p.base));
  else
    DART_EXPECT_OK(dart_memfree(p.base));
}

dart_gptr_t at_elem(dart_gptr_t g, size_t index, size_t elem_size) {
  dart_gptr_incaddr(&g, (int64_t)(index * elem_size));
  return g;
}

template <typename T>
T value(int writer, int target, size_t i) {
  return static_cast<T>((writer * 7 + target * 3 + (int)i) % 100 + 1);
}

const Mem kAllMem[] = {Mem::Collective, Mem::Pool, Mem::Registered};

// All-to-all with every unit writing its slot of M elements in every unit's part, with
// dart_put + dart_flush, then reading every slot back with dart_get + dart_flush_local.
const size_t kM = 17;
template <typename T>
void all_to_all_put_get(Parts &p) {
  const int n = nunits(), me = myid();
  const dart_datatype_t dt = dart_type_of<T>::value;
  const size_t M = kM;
  const Mem kind = p.kind;
  std::vector<T> src(M * n);
  for (int u = 0; u < n; ++u)
    for (size_t i = 0; i < M; ++i) src[u * M + i] = value<T>(me, u, i);
  for (int k = 0; k < n; ++k) {
    int u = (me + k) % n;  // start with self, then the others
    DART_EXPECT_OK(dart_put(at_elem(p.at[u], me * M, sizeof(T)), &src[u * M], M, dt, dt));
    DART_EXPECT_OK(dart_flush(p.at[u]));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  const T *mine = reinterpret_cast<const T *>(p.local);
  if (mine) {
    int bad = 0;
    for (int w = 0; w < n; ++w)
      for (size_t i = 0; i < M; ++i)
        if (mine[w * M + i] != value<T>(w, me, i) && bad++ < 3)
          ADD_FAILURE() << mem_name(kind) << " type " << dt << ": from unit " << w << " elem " << i;
  }
  // Read back my slot in every unit's part.
  std::vector<T> back(M * n, T(0));
  for (int u = 0; u < n; ++u)
    DART_EXPECT_OK(dart_get(&back[u * M], at_elem(p.at[u], me * M, sizeof(T)), M, dt, dt));
  for (int u = 0; u < n; ++u) DART_EXPECT_OK(dart_flush_local(p.at[u]));
  EXPECT_TRUE(back == src) << mem_name(kind) << " type " << dt;
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));  // the next type reuses the memory
}

}  // namespace

// Under DART_TEST_WIN_SEPARATE=1 (the .winsep runs) every window takes the separate
// memory model's path; the configuration string says which model is in force.
TEST(OneSided, MemoryModelInConfig) {
  const std::string cfg = dart_config_string();
  const char *forced = std::getenv("DART_TEST_WIN_SEPARATE");
  if (forced != nullptr && std::string(forced) == "1") {
    EXPECT_NE(cfg.find("memory model: separate (DART_TEST_WIN_SEPARATE)"), std::string::npos)
        << cfg;
  } else {
    EXPECT_NE(cfg.find("memory model: "), std::string::npos) << cfg;
  }
}

TEST(OneSided, AllToAllEveryBasicType) {
  for (Mem m : kAllMem) {
    Parts p;
    make_parts(p, m, sizeof(long double) * kM * nunits());
    all_to_all_put_get<char>(p);
    all_to_all_put_get<short>(p);
    all_to_all_put_get<int>(p);
    all_to_all_put_get<unsigned int>(p);
    all_to_all_put_get<long>(p);
    all_to_all_put_get<unsigned long>(p);
    all_to_all_put_get<long long>(p);
    all_to_all_put_get<unsigned long long>(p);
    all_to_all_put_get<float>(p);
    all_to_all_put_get<double>(p);
    all_to_all_put_get<long double>(p);
    free_parts(p);
  }
}

// Ring: put to the right neighbour, completed by each completion call in turn.
TEST(OneSided, RingWithEveryCompletionCall) {
  const int n = nunits(), me = myid();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t N = 1000;
  for (Mem kind : kAllMem) {
    Parts p;
    make_parts(p, kind, N * sizeof(int));
    int *mine = reinterpret_cast<int *>(p.local);
    for (int variant = 0; variant < 9; ++variant) {
      std::vector<int> src(N);
      for (size_t i = 0; i < N; ++i) src[i] = variant * 100000 + me * 1000 + (int)i;
      dart_gptr_t dst = p.at[right];
      dart_handle_t h = DART_HANDLE_NULL;
      int32_t done = 0;
      switch (variant) {
        case 0:
          DART_EXPECT_OK(dart_put(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT));
          DART_EXPECT_OK(dart_flush(dst));
          break;
        case 1:
          DART_EXPECT_OK(dart_put(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT));
          DART_EXPECT_OK(dart_flush_all(dst));
          break;
        case 2:  // local completion, then remote
          DART_EXPECT_OK(dart_put(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT));
          DART_EXPECT_OK(dart_flush_local(dst));
          DART_EXPECT_OK(dart_flush_local_all(dst));
          DART_EXPECT_OK(dart_flush(dst));
          break;
        case 3:
          DART_EXPECT_OK(dart_put_blocking(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT));
          break;
        case 4:
          DART_EXPECT_OK(dart_put_handle(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT, &h));
          DART_EXPECT_OK(dart_wait(&h));
          EXPECT_EQ(h, DART_HANDLE_NULL);
          break;
        case 5:
          DART_EXPECT_OK(dart_put_handle(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT, &h));
          for (int spin = 0; spin < 100000000 && !done; ++spin)
            DART_EXPECT_OK(dart_test(&h, &done));
          EXPECT_EQ(done, 1);
          EXPECT_EQ(h, DART_HANDLE_NULL);
          break;
        case 6:  // local completion of a handle, remote completion by flush
          DART_EXPECT_OK(dart_put_handle(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT, &h));
          DART_EXPECT_OK(dart_wait_local(&h));
          EXPECT_EQ(h, DART_HANDLE_NULL);
          DART_EXPECT_OK(dart_flush(dst));
          break;
        case 7:
          DART_EXPECT_OK(dart_put_handle(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT, &h));
          for (int spin = 0; spin < 100000000 && !done; ++spin)
            DART_EXPECT_OK(dart_test_local(&h, &done));
          EXPECT_EQ(done, 1);
          DART_EXPECT_OK(dart_flush(dst));
          break;
        case 8:  // freed handle: completed by the next flush
          DART_EXPECT_OK(dart_put_handle(dst, src.data(), N, DART_TYPE_INT, DART_TYPE_INT, &h));
          DART_EXPECT_OK(dart_handle_free(&h));
          EXPECT_EQ(h, DART_HANDLE_NULL);
          DART_EXPECT_OK(dart_flush(dst));
          break;
      }
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      if (mine) {
        int bad = 0;
        for (size_t i = 0; i < N; ++i)
          if (mine[i] != variant * 100000 + left * 1000 + (int)i && bad++ < 2)
            ADD_FAILURE() << mem_name(kind) << " variant " << variant << " elem " << i << ": "
                          << mine[i];
      }
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    }
    free_parts(p);
  }
}

// Gets from the left neighbour with every completion call.
TEST(OneSided, GetWithEveryCompletionCall) {
  const int n = nunits(), me = myid();
  const int left = (me + n - 1) % n;
  const size_t N = 500;
  for (Mem kind : kAllMem) {
    Parts p;
    make_parts(p, kind, N * sizeof(double));
    double *mine = reinterpret_cast<double *>(p.local);
    if (mine)
      for (size_t i = 0; i < N; ++i) mine[i] = me + i * 0.25;
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    dart_gptr_t src = p.at[left];
    for (int variant = 0; variant < 9; ++variant) {
      std::vector<double> got(N, -1.0);
      dart_handle_t h = DART_HANDLE_NULL;
      int32_t done = 0;
      switch (variant) {
        case 0:
          DART_EXPECT_OK(dart_get(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          DART_EXPECT_OK(dart_flush(src));
          break;
        case 1:
          DART_EXPECT_OK(dart_get(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          DART_EXPECT_OK(dart_flush_all(src));
          break;
        case 2:
          DART_EXPECT_OK(dart_get(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          DART_EXPECT_OK(dart_flush_local(src));
          break;
        case 3:
          DART_EXPECT_OK(dart_get(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          DART_EXPECT_OK(dart_flush_local_all(src));
          break;
        case 4:
          DART_EXPECT_OK(dart_get_blocking(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          break;
        case 5:
          DART_EXPECT_OK(
              dart_get_handle(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          DART_EXPECT_OK(dart_wait(&h));
          break;
        case 6:
          DART_EXPECT_OK(
              dart_get_handle(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          DART_EXPECT_OK(dart_wait_local(&h));
          break;
        case 7:
          DART_EXPECT_OK(
              dart_get_handle(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          for (int spin = 0; spin < 100000000 && !done; ++spin)
            DART_EXPECT_OK(dart_test_local(&h, &done));
          EXPECT_EQ(done, 1);
          break;
        case 8:
          DART_EXPECT_OK(
              dart_get_handle(got.data(), src, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          for (int spin = 0; spin < 100000000 && !done; ++spin)
            DART_EXPECT_OK(dart_test(&h, &done));
          EXPECT_EQ(done, 1);
          break;
      }
      EXPECT_EQ(h, DART_HANDLE_NULL);
      int bad = 0;
      for (size_t i = 0; i < N; ++i)
        if (got[i] != left + i * 0.25 && bad++ < 2)
          ADD_FAILURE() << mem_name(kind) << " variant " << variant << " elem " << i << ": "
                        << got[i];
    }
    free_parts(p);
  }
}

// Many handles at once: waitall / testall / waitall_local / testall_local, with
// DART_HANDLE_NULL entries mixed in.
TEST(OneSided, HandleArrays) {
  const int n = nunits(), me = myid();
  const size_t M = 8;
  Parts p;
  make_parts(p, Mem::Collective, M * n * sizeof(long));
  long *mine = reinterpret_cast<long *>(p.local);
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<long> src(M * n);
    for (size_t i = 0; i < src.size(); ++i) src[i] = variant * 1000000L + me * 1000L + (long)i;
    std::vector<dart_handle_t> hs(2 * n + 1, DART_HANDLE_NULL);  // odd entries stay NULL
    for (int u = 0; u < n; ++u)
      DART_EXPECT_OK(dart_put_handle(at_elem(p.at[u], me * M, sizeof(long)), &src[u * M], M,
                                     DART_TYPE_LONG, DART_TYPE_LONG, &hs[2 * u]));
    int32_t done = -7;
    switch (variant) {
      case 0: DART_EXPECT_OK(dart_waitall(hs.data(), hs.size())); break;
      case 1:
        for (int spin = 0; spin < 100000000 && done != 1; ++spin)
          DART_EXPECT_OK(dart_testall(hs.data(), hs.size(), &done));
        EXPECT_EQ(done, 1);
        break;
      case 2:
        DART_EXPECT_OK(dart_waitall_local(hs.data(), hs.size()));
        DART_EXPECT_OK(dart_flush_all(p.base));
        break;
      case 3:
        for (int spin = 0; spin < 100000000 && done != 1; ++spin)
          DART_EXPECT_OK(dart_testall_local(hs.data(), hs.size(), &done));
        EXPECT_EQ(done, 1);
        DART_EXPECT_OK(dart_flush_all(p.base));
        break;
    }
    for (auto h : hs) EXPECT_EQ(h, DART_HANDLE_NULL) << "variant " << variant;
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    if (mine)
      for (int w = 0; w < n; ++w)
        for (size_t i = 0; i < M; ++i)
          if (mine[w * M + i] != variant * 1000000L + w * 1000L + (long)(me * M + i)) {
            ADD_FAILURE() << "variant " << variant << " writer " << w << " elem " << i;
            break;
          }
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  }
  // Empty sets and NULL handles.
  int32_t r = -7;
  DART_EXPECT_OK(dart_testall(nullptr, 0, &r));
  EXPECT_EQ(r, 1);
  r = -7;
  DART_EXPECT_OK(dart_testall_local(nullptr, 0, &r));
  EXPECT_EQ(r, 1);
  dart_handle_t none[3] = {DART_HANDLE_NULL, DART_HANDLE_NULL, DART_HANDLE_NULL};
  r = -7;
  DART_EXPECT_OK(dart_testall(none, 3, &r));
  EXPECT_EQ(r, 1);
  DART_EXPECT_OK(dart_waitall(nullptr, 0));
  DART_EXPECT_OK(dart_waitall_local(nullptr, 0));
  DART_EXPECT_OK(dart_waitall(none, 3));
  DART_EXPECT_OK(dart_waitall_local(none, 3));
  dart_handle_t h = DART_HANDLE_NULL;
  DART_EXPECT_OK(dart_wait(&h));
  DART_EXPECT_OK(dart_wait_local(&h));
  r = -7;
  DART_EXPECT_OK(dart_test(&h, &r));
  EXPECT_EQ(r, 1);
  r = -7;
  DART_EXPECT_OK(dart_test_local(&h, &r));
  EXPECT_EQ(r, 1);
  DART_EXPECT_OK(dart_handle_free(&h));
  free_parts(p);
}

// IJNC 2017, Fig. 2: two consecutive handle puts to the same target and segment, then
// two waits: both values are visible after a barrier.
TEST(OneSided, TwoHandlePutsSameTarget) {
  const int n = nunits(), me = myid();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  for (Mem kind : kAllMem) {
    Parts p;
    make_parts(p, kind, 2 * sizeof(int));
    int *mine = reinterpret_cast<int *>(p.local);
    for (int round = 0; round < 4; ++round) {
      int a = 1000 * round + 10 * me + 1, b = 1000 * round + 10 * me + 2;
      dart_handle_t h1 = DART_HANDLE_NULL, h2 = DART_HANDLE_NULL;
      DART_EXPECT_OK(dart_put_handle(p.at[right], &a, 1, DART_TYPE_INT, DART_TYPE_INT, &h1));
      DART_EXPECT_OK(dart_put_handle(at_elem(p.at[right], 1, sizeof(int)), &b, 1, DART_TYPE_INT,
                                     DART_TYPE_INT, &h2));
      DART_EXPECT_OK(dart_wait(&h1));
      DART_EXPECT_OK(dart_wait(&h2));
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
      if (mine) {
        EXPECT_EQ(mine[0], 1000 * round + 10 * left + 1) << mem_name(kind) << " round " << round;
        EXPECT_EQ(mine[1], 1000 * round + 10 * left + 2) << mem_name(kind) << " round " << round;
      }
      DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    }
    // The same with waits in reverse order and the same element written twice.
    int a = 5, b = 6;
    dart_handle_t h1 = DART_HANDLE_NULL, h2 = DART_HANDLE_NULL;
    DART_EXPECT_OK(dart_put_handle(p.at[right], &a, 1, DART_TYPE_INT, DART_TYPE_INT, &h1));
    DART_EXPECT_OK(dart_wait(&h1));
    DART_EXPECT_OK(dart_put_handle(p.at[right], &b, 1, DART_TYPE_INT, DART_TYPE_INT, &h2));
    DART_EXPECT_OK(dart_wait(&h2));
    DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
    if (mine) {
      EXPECT_EQ(mine[0], 6) << "ordered puts: the later value wins";
    }
    free_parts(p);
  }
}

// A gptr from dart_memalloc sent with dart_send to one unit, which writes through it.
TEST(OneSided, PoolGptrSentPointToPoint) {
  const int n = nunits(), me = myid();
  if (n >= 2) {
    // Unit 0 allocates, sends the gptr to unit n-1; unit n-1 writes, sends an ack.
    dart_gptr_t g = DART_GPTR_NULL;
    if (me == 0) {
      DART_EXPECT_OK(dart_memalloc(4, DART_TYPE_INT, &g));
      int *p = nullptr;
      dart_gptr_getaddr(g, reinterpret_cast<void **>(&p));
      if (p) p[0] = p[1] = p[2] = p[3] = 0;
      DART_EXPECT_OK(dart_send(&g, sizeof g, DART_TYPE_BYTE, 11, DART_GLOBAL_UNIT_ID(n - 1)));
      int ack = 0;
      DART_EXPECT_OK(dart_recv(&ack, 1, DART_TYPE_INT, 12, DART_GLOBAL_UNIT_ID(n - 1)));
      EXPECT_EQ(ack, 1);
      if (p) {
        EXPECT_EQ(p[0], 9);
        EXPECT_EQ(p[3], 12);
      }
      DART_EXPECT_OK(dart_memfree(g));
    } else if (me == n - 1) {
      DART_EXPECT_OK(dart_recv(&g, sizeof g, DART_TYPE_BYTE, 11, DART_GLOBAL_UNIT_ID(0)));
      EXPECT_EQ(g.unitid, 0);
      int v[4] = {9, 10, 11, 12};
      DART_EXPECT_OK(dart_put_blocking(g, v, 4, DART_TYPE_INT, DART_TYPE_INT));
      int ack = 1;
      DART_EXPECT_OK(dart_send(&ack, 1, DART_TYPE_INT, 12, DART_GLOBAL_UNIT_ID(0)));
    }
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Many small outstanding puts before one flush (message ordering/aggregation).
TEST(OneSided, ManySmallPutsOneFlush) {
  const int n = nunits(), me = myid();
  const size_t N = 2000;
  Parts p;
  make_parts(p, Mem::Collective, N * sizeof(int));
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  std::vector<int> src(N);
  for (size_t i = 0; i < N; ++i) src[i] = me * 10000 + (int)i;
  for (size_t i = 0; i < N; ++i)
    DART_EXPECT_OK(
        dart_put(at_elem(p.at[right], i, sizeof(int)), &src[i], 1, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_OK(dart_flush_all(p.base));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  int *mine = reinterpret_cast<int *>(p.local);
  for (size_t i = 0; mine && i < N; ++i)
    if (mine[i] != left * 10000 + (int)i) {
      ADD_FAILURE() << "elem " << i << ": " << mine[i];
      break;
    }
  free_parts(p);
}

// One-sided on a sub-team's segment (team-relative unit ids in gptrs).
TEST(OneSided, SubTeamSegment) {
  const int n = nunits();
  std::vector<int> mem;
  for (int u = n - 1; u >= 0; u -= 2) mem.push_back(u);  // n-1, n-3, ...
  dart_team_t t = make_team(mem);
  if (t != DART_TEAM_NULL) {
    dart_team_unit_t tme{-1};
    size_t ts = 0;
    dart_team_myid(t, &tme);
    dart_team_size(t, &ts);
    dart_gptr_t g = DART_GPTR_NULL;
    DART_EXPECT_OK(dart_team_memalloc_aligned(t, 4, DART_TYPE_INT, &g));
    dart_gptr_t q = g;
    dart_gptr_setunit(&q, DART_TEAM_UNIT_ID((int)((tme.id + 1) % ts)));
    int v[4] = {tme.id, tme.id + 1, tme.id + 2, tme.id + 3};
    DART_EXPECT_OK(dart_put_blocking(q, v, 4, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_OK(dart_barrier(t));
    int got[4] = {-1, -1, -1, -1};
    dart_gptr_t m = g;
    dart_gptr_setunit(&m, tme);
    DART_EXPECT_OK(dart_get_blocking(got, m, 4, DART_TYPE_INT, DART_TYPE_INT));
    const int pred = (int)((tme.id + ts - 1) % ts);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], pred + i);
    // Unit == team size is out of range even if it is a valid global id.
    dart_gptr_t bad = g;
    dart_gptr_setunit(&bad, DART_TEAM_UNIT_ID((int)ts));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(got, bad, 1, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_OK(dart_barrier(t));
    DART_EXPECT_OK(dart_team_memfree(g));
    DART_EXPECT_OK(dart_team_destroy(&t));
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

// Bad gptrs and arguments in every transfer call: nothing moves, buffers untouched, the
// handle DART_HANDLE_NULL (DART 3.2).
TEST(OneSided, BadInputs) {
  const int n = nunits(), me = myid();
  dart_gptr_t g = DART_GPTR_NULL, dead = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_INT, &g));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_INT, &dead));
  DART_EXPECT_OK(dart_team_memfree(dead));
  dart_gptr_t ok = g;
  dart_gptr_setunit(&ok, DART_TEAM_UNIT_ID(me));

  struct Bad {
    const char *what;
    dart_gptr_t gp;
    dart_ret_t code;
  };
  std::vector<Bad> bads;
  bads.push_back({"unknown segid", gptr_of(me, 12345, DART_TEAM_ALL, 0), DART_ERR_NOTFOUND});
  bads.push_back(
      {"unknown negative segid", gptr_of(me, -12345, DART_TEAM_ALL, 0), DART_ERR_NOTFOUND});
  bads.push_back({"freed segid",
                  [&] {
                    dart_gptr_t d = dead;
                    dart_gptr_setunit(&d, DART_TEAM_UNIT_ID(me));
                    return d;
                  }(),
                  DART_ERR_NOTFOUND});
  bads.push_back({"unknown team", gptr_of(0, g.segid, 30123, 0), DART_ERR_NOTFOUND});
  bads.push_back({"team null", gptr_of(0, g.segid, DART_TEAM_NULL, 0), DART_ERR_INVAL});
  bads.push_back({"negative team", gptr_of(0, g.segid, -9, 0), DART_ERR_INVAL});
  bads.push_back({"unit == size", gptr_of(n, g.segid, DART_TEAM_ALL, 0), DART_ERR_INVAL});
  bads.push_back({"unit -1", gptr_of(-1, g.segid, DART_TEAM_ALL, 0), DART_ERR_INVAL});
  bads.push_back({"unit -5000", gptr_of(-5000, g.segid, DART_TEAM_ALL, 0), DART_ERR_INVAL});
  bads.push_back({"offset at end", at_elem(ok, 8, sizeof(int)), DART_ERR_INVAL});
  bads.push_back({"offset straddles end", at_elem(ok, 7, sizeof(int)), DART_ERR_INVAL});  // 2 elems
  bads.push_back({"huge offset", gptr_of(me, g.segid, DART_TEAM_ALL, ~0ULL - 2), DART_ERR_INVAL});
  bads.push_back({"null gptr", DART_GPTR_NULL, DART_ERR_INVAL});
  bads.push_back(
      {"pool: unit == size", gptr_of(n, DART_SEGMENT_LOCAL, DART_TEAM_ALL, 0), DART_ERR_INVAL});

  const int sentinel[2] = {-77, -78};
  for (const Bad &b : bads) {
    SCOPED_TRACE(b.what);
    int buf[2] = {-77, -78};
    dart_handle_t h = reinterpret_cast<dart_handle_t>(0x1);
    DART_EXPECT_FAIL(b.code, dart_put(b.gp, buf, 2, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_FAIL(b.code, dart_get(buf, b.gp, 2, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_FAIL(b.code, dart_put_blocking(b.gp, buf, 2, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_FAIL(b.code, dart_get_blocking(buf, b.gp, 2, DART_TYPE_INT, DART_TYPE_INT));
    DART_EXPECT_FAIL(b.code, dart_put_handle(b.gp, buf, 2, DART_TYPE_INT, DART_TYPE_INT, &h));
    DART_EXPECT_FAIL(b.code, dart_get_handle(buf, b.gp, 2, DART_TYPE_INT, DART_TYPE_INT, &h));
    EXPECT_EQ(h, DART_HANDLE_NULL) << "a failed call leaves its handle null (issue 30)";
    EXPECT_EQ(buf[0], sentinel[0]);
    EXPECT_EQ(buf[1], sentinel[1]);
  }
  // Flushes on bad segments/teams.
  for (const Bad &b : bads) {
    if (b.code != DART_ERR_NOTFOUND) continue;
    SCOPED_TRACE(b.what);
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_flush(b.gp));
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_flush_all(b.gp));
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_flush_local(b.gp));
    DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_flush_local_all(b.gp));
  }
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_flush(gptr_of(n, g.segid, DART_TEAM_ALL, 0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_flush_local(gptr_of(-1, g.segid, DART_TEAM_ALL, 0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_flush_all(DART_GPTR_NULL));

  // NULL buffers, NULL handle outputs, undefined types.
  int buf[2] = {1, 2};
  dart_handle_t h = reinterpret_cast<dart_handle_t>(0x1);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put(ok, nullptr, 2, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get(nullptr, ok, 2, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(ok, nullptr, 2, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(nullptr, ok, 2, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_put_handle(ok, nullptr, 2, DART_TYPE_INT, DART_TYPE_INT, &h));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_get_handle(nullptr, ok, 2, DART_TYPE_INT, DART_TYPE_INT, &h));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_put_handle(ok, buf, 2, DART_TYPE_INT, DART_TYPE_INT, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_get_handle(buf, ok, 2, DART_TYPE_INT, DART_TYPE_INT, nullptr));
  for (dart_datatype_t bt : {DART_TYPE_UNDEFINED, DART_TYPE_LAST, (dart_datatype_t)-3}) {
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put(ok, buf, 2, bt, bt));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get(buf, ok, 2, bt, bt));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(ok, buf, 2, DART_TYPE_INT, bt));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(buf, ok, 2, bt, DART_TYPE_INT));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_handle(ok, buf, 2, bt, bt, &h));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_handle(buf, ok, 2, bt, bt, &h));
  }
  // Different basic types on both sides.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_blocking(ok, buf, 2, DART_TYPE_INT, DART_TYPE_UINT));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_get_blocking(buf, ok, 1, DART_TYPE_LONG, DART_TYPE_DOUBLE));
  EXPECT_EQ(h, DART_HANDLE_NULL) << "a failed handle call leaves its handle null (issue 30)";
  // Handle calls with NULL arguments.
  int32_t r = -7;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_wait(nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_wait_local(nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_test(nullptr, &r));
  dart_handle_t hn = DART_HANDLE_NULL;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_test(&hn, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_test_local(nullptr, &r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_test_local(&hn, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_waitall(nullptr, 2));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_waitall_local(nullptr, 2));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_testall(nullptr, 2, &r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_testall_local(nullptr, 2, &r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_testall(&hn, 1, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_handle_free(nullptr));
  EXPECT_EQ(r, -7);

  // nelem == 0: OK, nothing moves (even with NULL buffers and at the segment's end).
  dart_gptr_t end = at_elem(ok, 8, sizeof(int));
  dart_handle_t h0 = DART_HANDLE_NULL;
  DART_EXPECT_OK(dart_put(ok, nullptr, 0, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_OK(dart_get(nullptr, end, 0, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_OK(dart_put_blocking(end, buf, 0, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_OK(dart_get_blocking(buf, ok, 0, DART_TYPE_INT, DART_TYPE_INT));
  DART_EXPECT_OK(dart_put_handle(ok, buf, 0, DART_TYPE_INT, DART_TYPE_INT, &h0));
  DART_EXPECT_OK(dart_wait(&h0));
  DART_EXPECT_OK(dart_get_handle(buf, ok, 0, DART_TYPE_INT, DART_TYPE_INT, &h0));
  DART_EXPECT_OK(dart_wait(&h0));
  DART_EXPECT_OK(dart_flush_all(g));
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_memfree(g));
}

// Transfers need DART to be initialized; checked in prog_init_cycles.cc.
