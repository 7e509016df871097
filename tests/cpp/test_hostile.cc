// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 UPN none 1 2 TIMEOUT 300 LABELS hostile ENV DART_POOL_SIZE=65536
//
// Hostile input: a bounded random-call test. With a fixed seed, a few thousand calls throw
// invalid and boundary arguments at every C entry point of the public headers (null and
// garbage gptrs, freed segments, huge counts, negative ids, destroyed teams/types/groups/
// locks/operations, type mismatches, zero sizes). Each call must return DART_OK or a DART
// error code with a detail message, never crash or hang (the ctest timeout), and after
// every round valid operations must still work. The calls per category are printed
// (docs/error-contract.md, "Hostile input", gives the numbers of a real run).
//
// Every unit draws from the same generator in the same order, so every unit makes the same
// calls with the same arguments. That is what makes collectives safe: a bad argument to a
// collective is the same on every unit, and every defect drawn for one is one that DART
// detects on every member before any communication; the units then check that they all
// got the same return code. Left out on purpose (docs/error-contract.md): arguments that
// only the root reads (scatter's sendbuf, gather's and reduce's recvbuf), counts larger
// than the caller's buffers (DART cannot know a local buffer's size), and garbage handle
// pointers (handles are not registered; groups, locks, types and operations are).
// DART_POOL_SIZE=64 KiB bounds the largest memory a garbage gptr can name, so the local
// buffer below is larger than any transfer DART can accept.
#include "dart_test.h"

#include <climits>
#include <cstdio>
#include <map>
#include <random>

using namespace dtest;

namespace {

constexpr uint64_t kSeed = 0x13A57113;  // fixed: every run makes the same calls
constexpr int kRounds = 30;
constexpr int kCallsPerRound = 100;      // random calls between two validity checks
constexpr size_t kSegLongs = 256;        // the live collective segment: 2 KiB per unit
constexpr size_t kLocalBytes = 1 << 20;  // > 2 x the largest segment (the pool, 64 KiB)

struct Tally {
  long calls = 0, ok = 0, failed = 0;
};
std::map<std::string, Tally> g_tally;

bool is_dart_code(dart_ret_t rc) {
  switch (rc) {
    case DART_OK:
    case DART_ERR_INVAL:
    case DART_ERR_NOTFOUND:
    case DART_ERR_NOTINIT:
    case DART_ERR_NOMEM:
    case DART_ERR_OTHER: return true;
    default: return false;
  }
}

enum class Want { Any, Ok, Fail };

// Records one call: a DART code; a failure carries a detail message.
void note(const char *cat, const char *call, dart_ret_t rc, Want want = Want::Any) {
  Tally &t = g_tally[cat];
  ++t.calls;
  EXPECT_TRUE(is_dart_code(rc)) << call << " returned " << (int)rc;
  if (rc == DART_OK) {
    ++t.ok;
    EXPECT_NE(want, Want::Fail) << call << " accepted a bad argument";
  } else {
    ++t.failed;
    EXPECT_NE(want, Want::Ok) << call << ": " << code_name(rc) << ": " << dart_error_detail();
    const char *d = dart_error_detail();
    EXPECT_TRUE(d != nullptr && *d != '\0') << call << " failed without a detail message";
  }
}

// A collective: every member must have got the same code.
void note_coll(const char *cat, const char *call, dart_ret_t rc, Want want) {
  note(cat, call, rc, want);
  int mine = (int)rc, lo = 0, hi = 0;
  MPI_Comm all = MPI_COMM_NULL;
  dart_team_comm(DART_TEAM_ALL, &all);
  MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, all);
  MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, all);
  EXPECT_EQ(lo, hi) << call << ": the units disagree on the result";
}

struct Rng {
  std::mt19937_64 gen{kSeed};
  size_t below(size_t n) { return (size_t)(gen() % n); }
  template <typename T, size_t N>
  T pick(const T (&a)[N]) {
    return a[below(N)];
  }
  bool coin() { return gen() & 1; }
};

// Everything the calls aim at: live objects and stale ones (destroyed or freed).
struct Env {
  int n = 0, me = 0;
  dart_gptr_t seg = DART_GPTR_NULL;    // live collective segment (unit 0)
  dart_gptr_t freed = DART_GPTR_NULL;  // freed collective segment
  dart_gptr_t reg = DART_GPTR_NULL;    // live registered segment
  dart_gptr_t local = DART_GPTR_NULL;  // live dart_memalloc memory of this unit
  dart_gptr_t local_freed = DART_GPTR_NULL;
  long regmem[64] = {};
  dart_team_t team = DART_TEAM_NULL;       // live clone of DART_TEAM_ALL
  dart_team_t dead_team = DART_TEAM_NULL;  // destroyed
  dart_datatype_t strided = 0, unord = 0, overlap = 0, custom = 0, dead_type = 0;
  dart_operation_t user_op = 0, dead_op = 0;
  dart_group_t group = DART_GROUP_NULL, dead_group = DART_GROUP_NULL;
  dart_lock_t lock = DART_LOCK_NULL, dead_lock = DART_LOCK_NULL;
  char *buf = nullptr;  // kLocalBytes, the local side of every transfer
};

// Sum of longs, wrapping (the random calls feed it arbitrary bits).
void sum_longs(const void *in, void *inout, size_t len, void *) {
  const long *a = static_cast<const long *>(in);
  long *b = static_cast<long *>(inout);
  for (size_t i = 0; i < len; ++i) b[i] = (long)((unsigned long)b[i] + (unsigned long)a[i]);
}

void setup(Env &e) {
  e.n = nunits();
  e.me = myid();
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kSegLongs, DART_TYPE_LONG, &e.seg));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_LONG, &e.freed));
  DART_EXPECT_OK(dart_team_memfree(e.freed));
  DART_EXPECT_OK(dart_team_memregister(DART_TEAM_ALL, 64, DART_TYPE_LONG, e.regmem, &e.reg));
  DART_EXPECT_OK(dart_memalloc(64, DART_TYPE_LONG, &e.local));
  DART_EXPECT_OK(dart_memalloc(8, DART_TYPE_LONG, &e.local_freed));
  DART_EXPECT_OK(dart_memfree(e.local_freed));
  DART_EXPECT_OK(dart_team_clone(DART_TEAM_ALL, &e.team));
  DART_EXPECT_OK(dart_team_clone(DART_TEAM_ALL, &e.dead_team));
  dart_team_t t = e.dead_team;
  DART_EXPECT_OK(dart_team_destroy(&t));
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_LONG, 4, 2, &e.strided));
  const size_t ubl[3] = {1, 2, 1}, uoff[3] = {5, 0, 3};
  DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_LONG, 3, ubl, uoff, &e.unord));
  const size_t obl[2] = {3, 2}, ooff[2] = {0, 1};
  DART_EXPECT_OK(dart_type_create_indexed(DART_TYPE_LONG, 2, obl, ooff, &e.overlap));
  DART_EXPECT_OK(dart_type_create_custom(24, &e.custom));
  DART_EXPECT_OK(dart_type_create_custom(8, &e.dead_type));
  dart_datatype_t dt = e.dead_type;
  DART_EXPECT_OK(dart_type_destroy(&dt));
  DART_EXPECT_OK(dart_op_create(&sum_longs, nullptr, true, DART_TYPE_LONG, false, &e.user_op));
  DART_EXPECT_OK(dart_op_create(&sum_longs, nullptr, true, DART_TYPE_LONG, false, &e.dead_op));
  dart_operation_t o = e.dead_op;
  DART_EXPECT_OK(dart_op_destroy(&o));
  DART_EXPECT_OK(dart_group_create(&e.group));
  DART_EXPECT_OK(dart_group_addmember(e.group, DART_GLOBAL_UNIT_ID(0)));
  DART_EXPECT_OK(dart_group_create(&e.dead_group));
  dart_group_t gg = e.dead_group;
  DART_EXPECT_OK(dart_group_destroy(&gg));
  // The live lock is on the clone team: no garbage gptr aims at that team's segments.
  DART_EXPECT_OK(dart_team_lock_init(e.team, &e.lock));
  DART_EXPECT_OK(dart_team_lock_init(DART_TEAM_ALL, &e.dead_lock));
  dart_lock_t l = e.dead_lock;
  DART_EXPECT_OK(dart_team_lock_destroy(&l));
  e.buf = static_cast<char *>(std::calloc(kLocalBytes, 1));
}

void teardown(Env &e) {
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
  DART_EXPECT_OK(dart_team_lock_destroy(&e.lock));
  DART_EXPECT_OK(dart_group_destroy(&e.group));
  DART_EXPECT_OK(dart_op_destroy(&e.user_op));
  DART_EXPECT_OK(dart_type_destroy(&e.custom));
  DART_EXPECT_OK(dart_type_destroy(&e.overlap));
  DART_EXPECT_OK(dart_type_destroy(&e.unord));
  DART_EXPECT_OK(dart_type_destroy(&e.strided));
  DART_EXPECT_OK(dart_team_destroy(&e.team));
  DART_EXPECT_OK(dart_memfree(e.local));
  DART_EXPECT_OK(dart_team_memderegister(e.reg));
  DART_EXPECT_OK(dart_team_memfree(e.seg));
  std::free(e.buf);
}

// ---- argument generators (every unit draws the same values) -------------------------
dart_gptr_t with_unit(dart_gptr_t g, int u) {
  dart_gptr_t out = g;
  int32_t unit, flags;
  int16_t segid, teamid;
  uint64_t off;
  dart_gptr_fields(&g, &unit, &flags, &segid, &teamid, &off);
  if (dart_gptr_make(u, flags, segid, teamid, off, &out) != DART_OK) out.unitid = u;
  return out;
}

dart_gptr_t with_offset(dart_gptr_t g, uint64_t off) {
  g.addr_or_offs.offset = off;
  return g;
}

dart_gptr_t gptr(Rng &r, const Env &e) {
  const int units[] = {0, 1, -1, e.n, e.n + 1, (1 << 23) - 1, -(1 << 23)};
  const uint64_t offs[] = {0,
                           8,
                           kSegLongs * 8 - 8,
                           kSegLongs * 8,
                           kSegLongs * 8 + 8,
                           UINT64_MAX,
                           UINT64_MAX - 7,
                           uint64_t(1) << 63,
                           65536,
                           65528};
  switch (r.below(12)) {
    case 0: return DART_GPTR_NULL;
    case 1: {  // 16 random bytes
      dart_gptr_t g;
      uint64_t w[2] = {r.gen(), r.gen()};
      std::memcpy(&g, w, sizeof g);
      return g;
    }
    case 2: return with_unit(e.seg, r.pick(units));
    case 3: return with_offset(with_unit(e.seg, (int)r.below(2)), r.pick(offs));
    case 4: return with_unit(e.freed, (int)r.below(2));
    case 5: return e.local_freed;
    case 6: {
      dart_gptr_t g = e.seg;
      g.teamid = e.dead_team;
      return g;
    }
    case 7: {
      dart_gptr_t g = e.seg;
      g.teamid = (int16_t)-(1 + (int)r.below(32768));
      return g;
    }
    case 8: {
      dart_gptr_t g = e.seg;
      g.segid = (int16_t)r.gen();
      return g;
    }
    case 9: return with_offset(with_unit(e.reg, (int)r.below(2)), r.pick(offs));
    case 10: return with_offset(e.local, r.pick(offs));
    default:  // a valid place: the operation may succeed
      return with_offset(with_unit(e.seg, (int)r.below(2)), 8 * r.below(kSegLongs));
  }
}

dart_datatype_t dtype(Rng &r, const Env &e) {
  const dart_datatype_t t[] = {DART_TYPE_LONG, DART_TYPE_LONG,     DART_TYPE_INT,
                               DART_TYPE_BYTE, DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE,
                               e.custom,       e.strided,          e.unord,
                               e.overlap,      e.dead_type,        DART_TYPE_UNDEFINED,
                               DART_TYPE_LAST, (dart_datatype_t)-1};
  if (r.below(16) == 0) return (dart_datatype_t)r.gen();  // garbage handle
  return r.pick(t);
}

size_t count(Rng &r) {
  const size_t c[] = {0,
                      1,
                      2,
                      3,
                      4,
                      6,
                      10,
                      64,
                      255,
                      256,
                      257,
                      4096,
                      65536,
                      (size_t)INT_MAX,
                      (size_t)INT_MAX + 1,
                      SIZE_MAX / 16,
                      SIZE_MAX};
  return r.pick(c);
}

// Counts that DART refuses in a collective whatever the buffers (> INT_MAX chunks).
size_t huge(Rng &r) {
  const size_t c[] = {SIZE_MAX, SIZE_MAX / 2, size_t(1) << 62};
  return r.pick(c);
}

dart_operation_t op(Rng &r, const Env &e) {
  if (r.below(8) == 0) {
    const dart_operation_t o[] = {e.user_op, e.dead_op, DART_OP_LAST, (dart_operation_t)-3,
                                  (dart_operation_t)r.gen()};
    return r.pick(o);
  }
  return (dart_operation_t)r.below(DART_OP_LAST + 1);
}

dart_team_t bad_team(Rng &r, const Env &e) {
  const dart_team_t t[] = {DART_TEAM_NULL, e.dead_team, (dart_team_t)-2, (dart_team_t)32767,
                           (dart_team_t)(1000 + r.below(20000))};
  return r.pick(t);
}

void *buf_or_null(Rng &r, const Env &e) { return r.below(6) == 0 ? nullptr : e.buf; }

// ---- one random call per category ---------------------------------------------------
void gptr_call(Rng &r, Env &e) {
  dart_gptr_t g = gptr(r, e);
  void *addr = nullptr;
  switch (r.below(8)) {
    case 0:
      note("gptr", "dart_gptr_getaddr", dart_gptr_getaddr(g, r.coin() ? &addr : nullptr));
      break;
    case 1:
      note("gptr", "dart_gptr_setaddr",
           dart_gptr_setaddr(r.coin() ? &g : nullptr, r.coin() ? (void *)e.buf : (void *)e.regmem));
      break;
    case 2: {
      uint16_t f = 0;
      note("gptr", "dart_gptr_getflags", dart_gptr_getflags(g, r.coin() ? &f : nullptr));
      break;
    }
    case 3:
      note("gptr", "dart_gptr_setflags",
           dart_gptr_setflags(r.coin() ? &g : nullptr, (uint16_t)r.gen()));
      break;
    case 4: {
      int32_t u, f;
      int16_t s, t;
      uint64_t o;
      note("gptr", "dart_gptr_fields",
           dart_gptr_fields(r.coin() ? &g : nullptr, &u, &f, &s, &t, &o));
      break;
    }
    case 5: {
      dart_gptr_t out;
      note("gptr", "dart_gptr_make",
           dart_gptr_make((int32_t)r.gen(), (int32_t)r.gen(), (int16_t)r.gen(), (int16_t)r.gen(),
                          r.gen(), r.coin() ? &out : nullptr));
      break;
    }
    case 6:
      note("gptr", "dart_gptr_getaddr_node", dart_gptr_getaddr_node(g, r.coin() ? &addr : nullptr));
      break;
    default: {
      size_t nb = 0;
      note("gptr", "dart_gptr_segment_size", dart_gptr_segment_size(g, r.coin() ? &nb : nullptr));
    }
  }
}

void onesided_call(Rng &r, Env &e) {
  dart_gptr_t g = gptr(r, e);
  size_t n = count(r);
  dart_datatype_t a = dtype(r, e), b = r.below(3) ? a : dtype(r, e);
  void *p = buf_or_null(r, e);
  dart_handle_t h = DART_HANDLE_NULL;
  const bool with_h = r.below(4) != 0;
  switch (r.below(10)) {
    case 0: note("onesided", "dart_put", dart_put(g, p, n, a, b)); break;
    case 1: note("onesided", "dart_get", dart_get(p, g, n, a, b)); break;
    case 2: note("onesided", "dart_put_blocking", dart_put_blocking(g, p, n, a, b)); break;
    case 3: note("onesided", "dart_get_blocking", dart_get_blocking(p, g, n, a, b)); break;
    case 4:
      note("onesided", "dart_put_handle", dart_put_handle(g, p, n, a, b, with_h ? &h : nullptr));
      break;
    case 5:
      note("onesided", "dart_get_handle", dart_get_handle(p, g, n, a, b, with_h ? &h : nullptr));
      break;
    case 6: note("onesided", "dart_flush", dart_flush(g)); break;
    case 7: note("onesided", "dart_flush_all", dart_flush_all(g)); break;
    case 8: note("onesided", "dart_flush_local", dart_flush_local(g)); break;
    default: note("onesided", "dart_flush_local_all", dart_flush_local_all(g)); break;
  }
  // Handle completion: the handle just made (or NULL) and NULL arrays and outputs.
  int32_t fin = 0;
  dart_handle_t hs[2] = {h, DART_HANDLE_NULL};
  switch (r.below(9)) {
    case 0: note("handles", "dart_wait", dart_wait(r.coin() ? &hs[0] : nullptr)); break;
    case 1: note("handles", "dart_wait_local", dart_wait_local(r.coin() ? &hs[0] : nullptr)); break;
    case 2:
      note("handles", "dart_waitall", dart_waitall(r.coin() ? hs : nullptr, r.below(3)));
      break;
    case 3:
      note("handles", "dart_waitall_local",
           dart_waitall_local(r.coin() ? hs : nullptr, r.below(3)));
      break;
    case 4: note("handles", "dart_test", dart_test(&hs[0], r.coin() ? &fin : nullptr)); break;
    case 5:
      note("handles", "dart_test_local", dart_test_local(r.coin() ? &hs[0] : nullptr, &fin));
      break;
    case 6: note("handles", "dart_testall", dart_testall(hs, 2, r.coin() ? &fin : nullptr)); break;
    case 7:
      note("handles", "dart_testall_local", dart_testall_local(r.coin() ? hs : nullptr, 2, &fin));
      break;
    default:
      note("handles", "dart_handle_free", dart_handle_free(r.coin() ? &hs[0] : nullptr));
      break;
  }
  // Whatever happened above, the handle is completed before its buffer is reused.
  if (hs[0] != DART_HANDLE_NULL) {
    EXPECT_EQ(dart_wait(&hs[0]), DART_OK);
  }
}

void atomic_call(Rng &r, Env &e) {
  dart_gptr_t g = gptr(r, e);
  dart_datatype_t t = dtype(r, e);
  dart_operation_t o = op(r, e);
  const void *v = buf_or_null(r, e);
  void *res = buf_or_null(r, e);
  switch (r.below(4)) {
    case 0: note("atomics", "dart_accumulate", dart_accumulate(g, v, count(r), t, o)); break;
    case 1:
      note("atomics", "dart_accumulate_blocking_local",
           dart_accumulate_blocking_local(g, v, count(r), t, o));
      break;
    case 2: note("atomics", "dart_fetch_and_op", dart_fetch_and_op(g, v, res, t, o)); break;
    default:
      note("atomics", "dart_compare_and_swap",
           dart_compare_and_swap(g, v, buf_or_null(r, e), res, t));
      break;
  }
  EXPECT_EQ(dart_flush_all(e.seg), DART_OK);
}

void type_call(Rng &r, Env &e) {
  dart_datatype_t out = DART_TYPE_UNDEFINED;
  dart_datatype_t base = dtype(r, e);
  const size_t sizes[] = {0, 1, 2, 3, 8, (size_t)INT_MAX, (size_t)INT_MAX + 1, SIZE_MAX};
  switch (r.below(8)) {
    case 0:
      note("types", "dart_type_create_strided",
           dart_type_create_strided(base, r.pick(sizes), r.pick(sizes), r.coin() ? &out : nullptr));
      break;
    case 1: {
      size_t k = r.below(4);
      size_t bl[3], off[3];
      for (size_t i = 0; i < 3; ++i) bl[i] = r.pick(sizes), off[i] = r.pick(sizes);
      note("types", "dart_type_create_indexed",
           dart_type_create_indexed(base, k, r.coin() ? bl : nullptr, r.coin() ? off : nullptr,
                                    r.coin() ? &out : nullptr));
      break;
    }
    case 2:
      note("types", "dart_type_create_custom",
           dart_type_create_custom(r.pick(sizes), r.coin() ? &out : nullptr));
      break;
    case 3: {  // destroy: a basic, a dead, a garbage type, or NULL
      dart_datatype_t t = base == e.custom || base == e.strided || base == e.unord ||
                                  base == e.overlap
                              ? e.dead_type
                              : base;
      note("types", "dart_type_destroy", dart_type_destroy(r.coin() ? &t : nullptr), Want::Fail);
      break;
    }
    case 4: {
      int nd = (int)r.below(5) - 1;
      size_t ext[3] = {r.pick(sizes), r.pick(sizes), 4};
      ptrdiff_t str[3] = {(ptrdiff_t)r.gen(), -1, 0};
      size_t ne = 0;
      note("types", "dart_type_from_layout",
           dart_type_from_layout(base, nd, r.coin() ? ext : nullptr, r.coin() ? str : nullptr,
                                 r.coin() ? &out : nullptr, &ne));
      break;
    }
    case 5: note("types", "dart_type_layout_release", dart_type_layout_release(base)); break;
    case 6: {
      dart_operation_t made = DART_OP_UNDEFINED;
      note("types", "dart_op_create",
           dart_op_create(r.coin() ? &sum_longs : nullptr, nullptr, r.coin(), base, false,
                          r.coin() ? &made : nullptr));
      if (made != DART_OP_UNDEFINED)
        note("types", "dart_op_destroy", dart_op_destroy(&made), Want::Ok);
      break;
    }
    default: {
      dart_operation_t o = op(r, e);
      if (o == e.user_op) o = e.dead_op;
      note("types", "dart_op_destroy", dart_op_destroy(r.coin() ? &o : nullptr), Want::Fail);
    }
  }
  if (out != DART_TYPE_UNDEFINED) {  // a type was made: give it back the way it was made
    if (dart_type_layout_release(out) != DART_OK) dart_type_destroy(&out);
  }
}

void group_call(Rng &r, Env &e) {
  const dart_group_t gs[] = {e.group, e.dead_group, DART_GROUP_NULL,
                             reinterpret_cast<dart_group_t>(uintptr_t(r.gen() | 1))};
  dart_group_t g = r.pick(gs), g2 = r.pick(gs), out = DART_GROUP_NULL;
  const int units[] = {0, 1, -1, e.n, 1 << 20, INT_MIN};
  dart_global_unit_t u = DART_GLOBAL_UNIT_ID(r.pick(units));
  size_t sz;
  int32_t ism;
  dart_global_unit_t members[8];
  dart_group_t parts[8];
  switch (r.below(11)) {
    case 0:
      note("groups", "dart_group_clone", dart_group_clone(g, r.coin() ? &out : nullptr));
      break;
    case 1:
      note("groups", "dart_group_union", dart_group_union(g, g2, r.coin() ? &out : nullptr));
      break;
    case 2: note("groups", "dart_group_intersect", dart_group_intersect(g, g2, &out)); break;
    case 3: note("groups", "dart_group_addmember", dart_group_addmember(g, u)); break;
    case 4: note("groups", "dart_group_delmember", dart_group_delmember(g, u)); break;
    case 5:
      note("groups", "dart_group_ismember", dart_group_ismember(g, u, r.coin() ? &ism : nullptr));
      break;
    case 6: note("groups", "dart_group_size", dart_group_size(g, r.coin() ? &sz : nullptr)); break;
    case 7:  // only after asking for the size: the output holds every member
      if (g == e.group && dart_group_size(g, &sz) == DART_OK && sz > 8) break;
      note("groups", "dart_group_getmembers",
           dart_group_getmembers(g, r.coin() ? members : nullptr));
      break;
    case 8: {
      size_t nout = 0;
      note("groups", "dart_group_split",
           dart_group_split(g, r.below(9), r.coin() ? &nout : nullptr, r.coin() ? parts : nullptr));
      for (size_t i = 0; i < nout && i < 8; ++i) dart_group_destroy(&parts[i]);
      break;
    }
    case 9: {
      dart_group_t d = g == e.group ? e.dead_group : g;
      note("groups", "dart_group_destroy", dart_group_destroy(r.coin() ? &d : nullptr), Want::Fail);
      break;
    }
    default: note("groups", "dart_group_create", dart_group_create(nullptr), Want::Fail);
  }
  if (out != DART_GROUP_NULL) dart_group_destroy(&out);
  // Keep the live group small: at most the two units.
  if (dart_group_size(e.group, &sz) == DART_OK && sz > 2) {
    for (int i = 2; i <= e.n + 1; ++i) dart_group_delmember(e.group, DART_GLOBAL_UNIT_ID(i));
  }
}

void team_local_call(Rng &r, Env &e) {
  const dart_team_t teams[] = {DART_TEAM_ALL, e.team, bad_team(r, e), bad_team(r, e)};
  dart_team_t t = r.pick(teams);
  const int units[] = {0, 1, -1, e.n, 1 << 20, INT_MIN};
  int u = r.pick(units);
  dart_team_unit_t tu;
  dart_global_unit_t gu;
  size_t sz;
  int32_t k;
  dart_group_t grp = DART_GROUP_NULL;
  MPI_Comm comm;
  switch (r.below(10)) {
    case 0: note("teams", "dart_team_myid", dart_team_myid(t, r.coin() ? &tu : nullptr)); break;
    case 1: note("teams", "dart_team_size", dart_team_size(t, r.coin() ? &sz : nullptr)); break;
    case 2:
      note("teams", "dart_team_unit_l2g",
           dart_team_unit_l2g(t, DART_TEAM_UNIT_ID(u), r.coin() ? &gu : nullptr));
      break;
    case 3:
      note("teams", "dart_team_unit_g2l",
           dart_team_unit_g2l(t, DART_GLOBAL_UNIT_ID(u), r.coin() ? &tu : nullptr));
      break;
    case 4:
      note("teams", "dart_team_get_group", dart_team_get_group(t, r.coin() ? &grp : nullptr));
      break;
    case 5: note("teams", "dart_team_comm", dart_team_comm(t, r.coin() ? &comm : nullptr)); break;
    case 6:
      note("teams", "dart_unit_node",
           dart_unit_node(DART_GLOBAL_UNIT_ID(u), r.coin() ? &k : nullptr));
      break;
    case 7:
      note("teams", "dart_myid/dart_size", r.coin() ? dart_myid(nullptr) : dart_size(nullptr),
           Want::Fail);
      break;
    case 8: note("teams", "dart_node_count", dart_node_count(r.coin() ? &sz : nullptr)); break;
    default: {
      dart_thread_support_level_t lvl;
      note("teams", "dart_init/dart_init_thread (already initialized)",
           r.coin() ? dart_init(nullptr, nullptr) : dart_init_thread(nullptr, nullptr, &lvl),
           Want::Fail);
    }
  }
  if (grp != DART_GROUP_NULL) dart_group_destroy(&grp);
}

void lock_call(Rng &r, Env &e) {
  const dart_lock_t ls[] = {e.dead_lock, DART_LOCK_NULL,
                            reinterpret_cast<dart_lock_t>(uintptr_t(r.gen() | 1))};
  dart_lock_t l = r.pick(ls);
  int32_t got = 0;
  switch (r.below(5)) {
    case 0: note("locks", "dart_lock_acquire", dart_lock_acquire(l), Want::Fail); break;
    case 1:
      note("locks", "dart_lock_try_acquire", dart_lock_try_acquire(l, r.coin() ? &got : nullptr),
           Want::Fail);
      break;
    case 2:
      note("locks", "dart_lock_release", dart_lock_release(r.coin() ? l : e.lock), Want::Fail);
      break;
    case 3:
      note("locks", "dart_lock_try_acquire", dart_lock_try_acquire(e.lock, nullptr), Want::Fail);
      break;
    default: {
      dart_lock_t d = l == DART_LOCK_NULL ? e.dead_lock : l;
      note("locks", "dart_team_lock_destroy", dart_team_lock_destroy(r.coin() ? &d : nullptr),
           Want::Fail);
    }
  }
}

// Local memory: the per-unit pool (dart_memalloc/dart_memfree) and registrations.
void memory_local_call(Rng &r, Env &e) {
  dart_gptr_t g = DART_GPTR_NULL;
  switch (r.below(4)) {
    case 0: {  // sizes from zero to far beyond the 64 KiB pool, any type
      const size_t sizes[] = {0, 1, 7, 4096, 8192, 65536, size_t(1) << 40, SIZE_MAX / 8, SIZE_MAX};
      note("memory", "dart_memalloc",
           dart_memalloc(r.pick(sizes), dtype(r, e), r.below(8) ? &g : nullptr));
      if (!DART_GPTR_ISNULL(g)) note("memory", "dart_memfree", dart_memfree(g), Want::Ok);
      break;
    }
    case 1: {  // never a live allocation of this unit: the stale, foreign or garbage ones
      dart_gptr_t b = gptr(r, e);
      // (A stale pool gptr may name a later allocation: pool offsets are reused.)
      if (b.segid == DART_SEGMENT_LOCAL && b.teamid == DART_TEAM_ALL) b = e.freed;
      note("memory", "dart_memfree", dart_memfree(b), Want::Fail);
      break;
    }
    case 2: {
      dart_gptr_t b = gptr(r, e);
      if (b.segid == e.reg.segid && b.teamid == e.reg.teamid) b = e.freed;
      note("memory", "dart_team_memderegister", dart_team_memderegister(b), Want::Fail);
      break;
    }
    default: {  // the pool's memory in odd pieces, freed in another order
      dart_gptr_t a = DART_GPTR_NULL, b = DART_GPTR_NULL;
      note("memory", "dart_memalloc", dart_memalloc(1 + r.below(100), DART_TYPE_BYTE, &a),
           Want::Ok);
      note("memory", "dart_memalloc", dart_memalloc(r.below(3), DART_TYPE_LONG_DOUBLE, &b),
           Want::Ok);
      note("memory", "dart_memfree", dart_memfree(with_offset(a, a.addr_or_offs.offset + 1)),
           Want::Fail);
      note("memory", "dart_memfree", dart_memfree(a), Want::Ok);
      note("memory", "dart_memfree", dart_memfree(a), Want::Fail);
      note("memory", "dart_memfree", dart_memfree(b), Want::Ok);
    }
  }
}

void p2p_call(Rng &r, Env &e) {
  // Only calls that DART refuses before any message moves (a valid send would block).
  const int units[] = {-1, e.n, 1 << 20, INT_MIN};
  dart_global_unit_t u = DART_GLOBAL_UNIT_ID(r.pick(units));
  dart_datatype_t t = dtype(r, e);
  size_t n = count(r);
  int tag = (int)r.gen();
  switch (r.below(3)) {
    case 0: note("p2p", "dart_send", dart_send(buf_or_null(r, e), n, t, tag, u), Want::Fail); break;
    case 1: note("p2p", "dart_recv", dart_recv(buf_or_null(r, e), n, t, tag, u), Want::Fail); break;
    default:
      note("p2p", "dart_sendrecv",
           dart_sendrecv(e.buf, n, t, tag, u, e.buf, n, t, tag, DART_GLOBAL_UNIT_ID(e.me)),
           Want::Fail);
  }
}

// A collective with exactly one defect (or none), the same on every unit.
void collective_call(Rng &r, Env &e) {
  enum Defect { None, Team, Type, Root, NullBuf, Huge, Op, NDefects };
  const int which = (int)r.below(14);
  Defect d = (Defect)r.below(NDefects);
  const bool has_root = which <= 3 || (which >= 6 && which <= 8);
  const bool has_op = which >= 3 && which <= 6;
  if (d == Root && !has_root) d = Team;
  if (d == Op && !has_op) d = Type;
  dart_team_t team = d == Team ? bad_team(r, e) : (r.coin() ? DART_TEAM_ALL : e.team);
  const dart_datatype_t bad_types[] = {e.strided,           e.unord,        e.dead_type,
                                       DART_TYPE_UNDEFINED, DART_TYPE_LAST, (dart_datatype_t)-5};
  const dart_datatype_t good_types[] = {DART_TYPE_LONG, DART_TYPE_INT, DART_TYPE_BYTE,
                                        DART_TYPE_DOUBLE};
  dart_datatype_t t = d == Type ? r.pick(bad_types) : r.pick(good_types);
  if (which >= 3 && which <= 5 && d != Type && r.coin()) t = DART_TYPE_LONG;  // for user_op
  const int bad_roots[] = {-1, e.n, 1 << 20};
  dart_team_unit_t root = DART_TEAM_UNIT_ID(d == Root ? r.pick(bad_roots) : (int)r.below(e.n));
  size_t n = d == Huge ? huge(r) : r.below(17);  // 16 elements of 16 bytes fit every buffer
  char *sb = e.buf, *rb = e.buf + kLocalBytes / 2;
  if (d == NullBuf) {
    if (n == 0) n = 1;
    // A buffer that every unit reads (scatter's sendbuf is read at the root only).
    if (which == 1)
      rb = nullptr;
    else
      sb = nullptr;
  }
  // A huge count to a reduction would be reduced in chunks from the (small) buffers:
  // DART refuses it only together with a NULL buffer.
  if (d == Huge && has_op) sb = nullptr;
  const dart_operation_t bad_ops[] = {DART_OP_UNDEFINED, DART_OP_LAST, DART_OP_REPLACE,
                                      DART_OP_NO_OP,     e.dead_op,    (dart_operation_t)-9};
  dart_operation_t o = d == Op ? r.pick(bad_ops)
                               : (t == DART_TYPE_LONG && r.coin() ? e.user_op : DART_OP_SUM);
  const Want want = d == None ? Want::Ok : Want::Fail;
  size_t counts[4] = {n, n, n, n}, displs[4] = {0, n, 2 * n, 3 * n};
  switch (which) {
    case 0: note_coll("collectives", "dart_bcast", dart_bcast(sb, n, t, root, team), want); break;
    case 1:
      note_coll("collectives", "dart_scatter", dart_scatter(sb, rb, n, t, root, team), want);
      break;
    case 2:
      note_coll("collectives", "dart_gather", dart_gather(sb, rb, n, t, root, team), want);
      break;
    case 3:
      note_coll("collectives", "dart_reduce", dart_reduce(sb, rb, n, t, o, root, team), want);
      break;
    case 4:
      note_coll("collectives", "dart_allreduce", dart_allreduce(sb, rb, n, t, o, team), want);
      break;
    case 5:
      note_coll("collectives", "dart_allreduce (in place)", dart_allreduce(sb, sb, n, t, o, team),
                want);
      break;
    case 6:
      note_coll("collectives", "dart_reduce (in place)", dart_reduce(sb, sb, n, t, o, root, team),
                want);
      break;
    case 7: note_coll("collectives", "dart_bcast", dart_bcast(sb, n, t, root, team), want); break;
    case 8:
      note_coll("collectives", "dart_gather", dart_gather(sb, rb, n, t, root, team), want);
      break;
    case 9:
      note_coll("collectives", "dart_allgather", dart_allgather(sb, rb, n, t, team), want);
      break;
    case 10:
      note_coll("collectives", "dart_alltoall", dart_alltoall(sb, rb, n, t, team), want);
      break;
    case 11:
      if (d == Huge) {  // allgatherv's counts are arrays: a NULL one instead
        note_coll("collectives", "dart_allgatherv",
                  dart_allgatherv(sb, n, t, rb, nullptr, displs, team), Want::Fail);
      } else {
        note_coll("collectives", "dart_allgatherv",
                  dart_allgatherv(sb, n, t, rb, counts, displs, team), want);
      }
      break;
    case 12:
      note_coll("collectives", "dart_barrier", dart_barrier(d == None ? team : bad_team(r, e)),
                d == None ? Want::Ok : Want::Fail);
      break;
    default: {  // collective memory management with one DART-detected defect
      dart_gptr_t g = DART_GPTR_NULL;
      switch (r.below(8)) {
        case 0:
          note_coll("memory", "dart_team_memalloc_aligned",
                    dart_team_memalloc_aligned(bad_team(r, e), 4, DART_TYPE_LONG, &g), Want::Fail);
          break;
        case 1:
          note_coll("memory", "dart_team_memalloc_aligned",
                    dart_team_memalloc_aligned(DART_TEAM_ALL, SIZE_MAX / 4, DART_TYPE_LONG, &g),
                    Want::Fail);
          break;
        case 2:
          note_coll("memory", "dart_team_memalloc_aligned",
                    dart_team_memalloc_aligned(DART_TEAM_ALL, 4, r.pick(bad_types), &g),
                    Want::Fail);
          break;
        case 3:
          note_coll("memory", "dart_team_memalloc_aligned",
                    dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONG, nullptr),
                    Want::Fail);
          break;
        case 4: {
          dart_gptr_t dead = e.seg;
          dead.teamid = e.dead_team;
          const dart_gptr_t bad[] = {e.freed, DART_GPTR_NULL, dead, e.local_freed};
          note_coll("memory", "dart_team_memfree", dart_team_memfree(r.pick(bad)), Want::Fail);
          break;
        }
        case 5:
          note_coll("memory", "dart_team_memregister",
                    dart_team_memregister(r.coin() ? bad_team(r, e) : DART_TEAM_ALL, 8,
                                          DART_TYPE_LONG, nullptr, &g),
                    Want::Fail);
          break;
        case 6:  // sizes that differ between the units: the contract says it fails on every unit
          note_coll("memory", "dart_team_memregister_aligned (sizes differ)",
                    dart_team_memregister_aligned(DART_TEAM_ALL, 8 + (size_t)e.me, DART_TYPE_LONG,
                                                  e.buf, &g),
                    Want::Fail);
          break;
        default: {
          dart_team_t nt = DART_TEAM_NULL;
          switch (r.below(4)) {
            case 0:
              note_coll("teams", "dart_team_create", dart_team_create(bad_team(r, e), e.group, &nt),
                        Want::Fail);
              break;
            case 1:
              note_coll("teams", "dart_team_create",
                        dart_team_create(DART_TEAM_ALL, e.dead_group, &nt), Want::Fail);
              break;
            case 2:
              note_coll("teams", "dart_team_clone", dart_team_clone(bad_team(r, e), &nt),
                        Want::Fail);
              break;
            default: {
              dart_team_t bt = bad_team(r, e);
              note_coll("teams", "dart_team_destroy", dart_team_destroy(r.coin() ? &bt : nullptr),
                        Want::Fail);
            }
          }
          if (nt != DART_TEAM_NULL) dart_team_destroy(&nt);
        }
      }
      if (!DART_GPTR_ISNULL(g)) g.segid < 0 ? dart_team_memderegister(g) : dart_team_memfree(g);
    }
  }
}

// Valid operations after a round: a ring put/get on the live segment, an allreduce with
// the user operation, a lock round trip, a zero-size allocation. All must work.
void check_still_works(Env &e, int round) {
  const int right = (e.me + 1) % e.n, left = (e.me + e.n - 1) % e.n;
  long v = round * 1000 + e.me, got = -1;
  dart_gptr_t rg = with_unit(e.seg, right), mine = with_unit(e.seg, e.me);
  // Complete whatever the random calls left outstanding (puts complete at a flush).
  note("valid", "dart_flush_all", dart_flush_all(e.seg), Want::Ok);
  note("valid", "dart_flush_all", dart_flush_all(e.reg), Want::Ok);
  note("valid", "dart_flush_all", dart_flush_all(e.local), Want::Ok);
  note("valid", "dart_barrier", dart_barrier(DART_TEAM_ALL), Want::Ok);
  note("valid", "dart_put_blocking", dart_put_blocking(rg, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG),
       Want::Ok);
  note("valid", "dart_barrier", dart_barrier(DART_TEAM_ALL), Want::Ok);
  note("valid", "dart_get_blocking",
       dart_get_blocking(&got, mine, 1, DART_TYPE_LONG, DART_TYPE_LONG), Want::Ok);
  EXPECT_EQ(got, round * 1000 + left) << "round " << round;
  long one = 1, sum = 0;
  note("valid", "dart_allreduce", dart_allreduce(&one, &sum, 1, DART_TYPE_LONG, e.user_op, e.team),
       Want::Ok);
  EXPECT_EQ(sum, e.n);
  note("valid", "dart_lock_acquire", dart_lock_acquire(e.lock), Want::Ok);
  note("valid", "dart_lock_release", dart_lock_release(e.lock), Want::Ok);
  dart_gptr_t z = DART_GPTR_NULL;
  note("valid", "dart_team_memalloc_aligned (0 elements)",
       dart_team_memalloc_aligned(e.team, 0, DART_TYPE_LONG, &z), Want::Ok);
  note("valid", "dart_team_memfree", dart_team_memfree(z), Want::Ok);
  note("valid", "dart_barrier", dart_barrier(DART_TEAM_ALL), Want::Ok);
}

}  // namespace

TEST(Hostile, RandomCallsEveryEntryPoint) {
  if (nunits() < 2) return;  // registered at 2 units
  Env e;
  setup(e);
  Rng r;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kCallsPerRound; ++i) {
      switch (r.below(11)) {
        case 0: gptr_call(r, e); break;
        case 10: memory_local_call(r, e); break;
        case 1:
        case 2: onesided_call(r, e); break;
        case 3: atomic_call(r, e); break;
        case 4: type_call(r, e); break;
        case 5: group_call(r, e); break;
        case 6: team_local_call(r, e); break;
        case 7: lock_call(r, e); break;
        case 8: p2p_call(r, e); break;
        default: collective_call(r, e); break;
      }
    }
    check_still_works(e, round);
    if (!all_true(!::testing::Test::HasFailure())) break;  // stop together
  }
  teardown(e);
  long total = 0, ok = 0, failed = 0;
  if (e.me == 0)
    std::printf("hostile calls per category (seed %#llx):\n", (unsigned long long)kSeed);
  for (const auto &kv : g_tally) {
    total += kv.second.calls, ok += kv.second.ok, failed += kv.second.failed;
    if (e.me == 0)
      std::printf("  %-12s %6ld calls: %6ld OK, %6ld errors\n", kv.first.c_str(), kv.second.calls,
                  kv.second.ok, kv.second.failed);
  }
  if (e.me == 0)
    std::printf("  %-12s %6ld calls: %6ld OK, %6ld errors\n", "total", total, ok, failed);
  EXPECT_GT(total, 3000);
}
