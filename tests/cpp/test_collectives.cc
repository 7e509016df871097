// SPDX-License-Identifier: BSD-3-Clause
// Collectives (on DART_TEAM_ALL, a sub-team and a one-unit team), two-sided messages,
// user-defined reduction operations, and bad inputs.
#include "dart_test.h"

#include <cmath>
#include <functional>
#include <numeric>

using namespace dtest;

namespace {

// Runs body(team, my team id, team size) on DART_TEAM_ALL, on the upper half of the
// units and on a one-unit team {n-1}; units outside a team skip it. Collective.
void on_teams(const std::function<void(dart_team_t, int, int)> &body) {
  const int n = nunits();
  std::vector<int> upper, last = {n - 1};
  for (int u = n / 2; u < n; ++u) upper.push_back(u);
  dart_team_t tu = make_team(upper), tl = make_team(last);
  for (dart_team_t t : {DART_TEAM_ALL, tu, tl}) {
    if (t == DART_TEAM_NULL) continue;
    dart_team_unit_t me{-1};
    size_t sz = 0;
    dart_team_myid(t, &me);
    dart_team_size(t, &sz);
    SCOPED_TRACE(::testing::Message() << "team " << t << " size " << sz);
    body(t, me.id, (int)sz);
  }
  drop_team(tl);
  drop_team(tu);
  dart_barrier(DART_TEAM_ALL);
}

}  // namespace

TEST(Collectives, Barrier) {
  on_teams([](dart_team_t t, int, int) {
    for (int i = 0; i < 5; ++i) DART_EXPECT_OK(dart_barrier(t));
  });
}

TEST(Collectives, Bcast) {
  on_teams([](dart_team_t t, int me, int sz) {
    for (int root = 0; root < sz; ++root) {
      std::vector<long> buf(100, -1);
      if (me == root)
        for (int i = 0; i < 100; ++i) buf[i] = root * 1000 + i;
      DART_EXPECT_OK(dart_bcast(buf.data(), 100, DART_TYPE_LONG, DART_TEAM_UNIT_ID(root), t));
      for (int i = 0; i < 100; ++i)
        if (buf[i] != root * 1000 + i) {
          ADD_FAILURE() << "root " << root << " elem " << i;
          break;
        }
    }
    int x = 5;
    DART_EXPECT_OK(dart_bcast(&x, 0, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), t));
    EXPECT_EQ(x, 5);
  });
}

TEST(Collectives, ScatterGather) {
  on_teams([](dart_team_t t, int me, int sz) {
    const int root = sz - 1;
    const int K = 3;
    std::vector<double> all(K * sz), part(K, -1);
    if (me == root)
      for (int i = 0; i < K * sz; ++i) all[i] = i * 1.5;
    DART_EXPECT_OK(
        dart_scatter(all.data(), part.data(), K, DART_TYPE_DOUBLE, DART_TEAM_UNIT_ID(root), t));
    for (int i = 0; i < K; ++i) EXPECT_EQ(part[i], (me * K + i) * 1.5);
    for (int i = 0; i < K; ++i) part[i] = me * 100 + i;
    std::vector<double> got(K * sz, -1);
    DART_EXPECT_OK(
        dart_gather(part.data(), got.data(), K, DART_TYPE_DOUBLE, DART_TEAM_UNIT_ID(0), t));
    for (int u = 0; me == 0 && u < sz; ++u)
      for (int i = 0; i < K; ++i) EXPECT_EQ(got[u * K + i], u * 100 + i);
  });
}

TEST(Collectives, AllgatherAndAllgatherv) {
  on_teams([](dart_team_t t, int me, int sz) {
    std::vector<int> got(2 * sz, -1);
    int mine[2] = {me, -me};
    DART_EXPECT_OK(dart_allgather(mine, got.data(), 2, DART_TYPE_INT, t));
    for (int u = 0; u < sz; ++u) {
      EXPECT_EQ(got[2 * u], u);
      EXPECT_EQ(got[2 * u + 1], -u);
    }
    // allgatherv: unit u contributes u+1 elements, placed in reverse unit order with
    // a gap of one element between contributions.
    std::vector<size_t> counts(sz), displs(sz);
    size_t pos = 0;
    for (int u = sz - 1; u >= 0; --u) {
      counts[u] = u + 1;
      displs[u] = pos;
      pos += counts[u] + 1;
    }
    std::vector<short> send(me + 1), recv(pos, -1);
    for (int i = 0; i <= me; ++i) send[i] = (short)(me * 10 + i);
    DART_EXPECT_OK(dart_allgatherv(send.data(), me + 1, DART_TYPE_SHORT, recv.data(), counts.data(),
                                   displs.data(), t));
    for (int u = 0; u < sz; ++u) {
      for (int i = 0; i <= u; ++i) EXPECT_EQ(recv[displs[u] + i], u * 10 + i) << "unit " << u;
      EXPECT_EQ(recv[displs[u] + u + 1], -1) << "gap overwritten after unit " << u;
    }
  });
}

namespace {

template <typename T>
void check_int_ops(dart_team_t t, int me, int sz) {
  const dart_datatype_t dt = dart_type_of<T>::value;
  // Values: element 0 = me+1, element 1 = bit (me % 8), element 2 = me%2 (logical).
  T in[3] = {T(me + 1), T(1u << (me % 8)), T(me % 2)};
  T out[3];
  auto run = [&](dart_operation_t op) {
    for (T &o : out) o = T(99);
    DART_EXPECT_OK(dart_allreduce(in, out, 3, dt, op, t));
  };
  T sum = 0, prod = 1, bor = 0, bxor = 0, band = T(~T(0));
  bool lor = false, land = true, lxor = false;
  for (int u = 0; u < sz; ++u) {
    sum = T(sum + T(u + 1));
    prod = T(prod * T(u + 1));
    bor = T(bor | T(1u << (u % 8)));
    bxor = T(bxor ^ T(1u << (u % 8)));
    band = T(band & T(1u << (u % 8)));
    lor = lor || (u % 2);
    land = land && (u % 2);
    lxor = lxor != bool(u % 2);
  }
  run(DART_OP_SUM);
  EXPECT_EQ(out[0], sum) << "SUM type " << dt;
  run(DART_OP_PROD);
  EXPECT_EQ(out[0], prod) << "PROD type " << dt;
  run(DART_OP_MIN);
  EXPECT_EQ(out[0], T(1)) << "MIN type " << dt;
  run(DART_OP_MAX);
  EXPECT_EQ(out[0], T(sz)) << "MAX type " << dt;
  run(DART_OP_BOR);
  EXPECT_EQ(out[1], bor) << "BOR type " << dt;
  run(DART_OP_BXOR);
  EXPECT_EQ(out[1], bxor) << "BXOR type " << dt;
  run(DART_OP_BAND);
  EXPECT_EQ(out[1], band) << "BAND type " << dt;
  run(DART_OP_LOR);
  EXPECT_EQ(out[2] != 0, lor) << "LOR type " << dt;
  run(DART_OP_LAND);
  EXPECT_EQ(out[2] != 0, land) << "LAND type " << dt;
  run(DART_OP_LXOR);
  EXPECT_EQ(out[2] != 0, lxor) << "LXOR type " << dt;
  // MINMAX on (min, max) pairs.
  T mm[2] = {T(me + 3), T(me + 3)}, mo[2] = {0, 0};
  DART_EXPECT_OK(dart_allreduce(mm, mo, 2, dt, DART_OP_MINMAX, t));
  EXPECT_EQ(mo[DART_OP_MINMAX_MIN], T(3));
  EXPECT_EQ(mo[DART_OP_MINMAX_MAX], T(sz + 2));
  // reduce to the last unit.
  for (T &o : out) o = T(99);
  DART_EXPECT_OK(dart_reduce(in, out, 1, dt, DART_OP_SUM, DART_TEAM_UNIT_ID(sz - 1), t));
  if (me == sz - 1) {
    EXPECT_EQ(out[0], sum);
  }
}

template <typename T>
void check_float_ops(dart_team_t t, int me, int sz) {
  const dart_datatype_t dt = dart_type_of<T>::value;
  T in[2] = {T(me + 0.5), T(-(me + 1))}, out[2] = {0, 0};
  T sum = 0, prod = 1;
  for (int u = 0; u < sz; ++u) {
    sum += T(u + 0.5);
    prod *= T(u + 0.5);
  }
  DART_EXPECT_OK(dart_allreduce(in, out, 2, dt, DART_OP_SUM, t));
  EXPECT_EQ(out[0], sum) << "SUM type " << dt;
  DART_EXPECT_OK(dart_allreduce(in, out, 2, dt, DART_OP_PROD, t));
  EXPECT_EQ(out[0], prod) << "PROD type " << dt;
  DART_EXPECT_OK(dart_allreduce(in, out, 2, dt, DART_OP_MIN, t));
  EXPECT_EQ(out[0], T(0.5));
  EXPECT_EQ(out[1], T(-sz));
  DART_EXPECT_OK(dart_allreduce(in, out, 2, dt, DART_OP_MAX, t));
  EXPECT_EQ(out[0], T(sz - 0.5));
  EXPECT_EQ(out[1], T(-1));
  T mm[2] = {T(me), T(me)}, mo[2] = {-1, -1};
  DART_EXPECT_OK(dart_allreduce(mm, mo, 2, dt, DART_OP_MINMAX, t));
  EXPECT_EQ(mo[DART_OP_MINMAX_MIN], T(0));
  EXPECT_EQ(mo[DART_OP_MINMAX_MAX], T(sz - 1));
  out[0] = -7;
  DART_EXPECT_OK(dart_reduce(in, out, 1, dt, DART_OP_MAX, DART_TEAM_UNIT_ID(0), t));
  if (me == 0) {
    EXPECT_EQ(out[0], T(sz - 0.5));
  }
}

}  // namespace

TEST(Collectives, ReduceAllreduceEveryOp) {
  on_teams([](dart_team_t t, int me, int sz) {
    check_int_ops<char>(t, me, sz);
    check_int_ops<short>(t, me, sz);
    check_int_ops<int>(t, me, sz);
    check_int_ops<unsigned int>(t, me, sz);
    check_int_ops<long>(t, me, sz);
    check_int_ops<unsigned long>(t, me, sz);
    check_int_ops<long long>(t, me, sz);
    check_int_ops<unsigned long long>(t, me, sz);
    check_float_ops<float>(t, me, sz);
    check_float_ops<double>(t, me, sz);
    check_float_ops<long double>(t, me, sz);
  });
}

TEST(Collectives, Alltoall) {
  on_teams([](dart_team_t t, int me, int sz) {
    const int K = 2;
    std::vector<int> send(K * sz), recv(K * sz, -1);
    for (int u = 0; u < sz; ++u)
      for (int i = 0; i < K; ++i) send[u * K + i] = me * 100 + u * 10 + i;
    DART_EXPECT_OK(dart_alltoall(send.data(), recv.data(), K, DART_TYPE_INT, t));
    for (int u = 0; u < sz; ++u)
      for (int i = 0; i < K; ++i) EXPECT_EQ(recv[u * K + i], u * 100 + me * 10 + i);
  });
}

TEST(Collectives, ZeroElements) {
  on_teams([](dart_team_t t, int, int) {
    int a = 1, b = 2;
    DART_EXPECT_OK(dart_scatter(nullptr, nullptr, 0, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), t));
    DART_EXPECT_OK(dart_gather(nullptr, nullptr, 0, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), t));
    DART_EXPECT_OK(dart_allgather(&a, &b, 0, DART_TYPE_INT, t));
    DART_EXPECT_OK(dart_allreduce(&a, &b, 0, DART_TYPE_INT, DART_OP_SUM, t));
    DART_EXPECT_OK(dart_alltoall(&a, &b, 0, DART_TYPE_INT, t));
    EXPECT_EQ(b, 2);
  });
}

// ---------------------------------------------------------------------------
// two-sided
// ---------------------------------------------------------------------------

TEST(TwoSided, SendRecvPairsWithTags) {
  const int n = nunits(), me = myid();
  // Pairs (0,1), (2,3): the even unit sends two tagged messages, the odd one receives
  // them in the opposite order (small messages: eager protocol, no deadlock).
  const int peer = me ^ 1;
  if (peer < n) {
    if (me % 2 == 0) {
      int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
      DART_EXPECT_OK(dart_send(a, 4, DART_TYPE_INT, 5, DART_GLOBAL_UNIT_ID(peer)));
      DART_EXPECT_OK(dart_send(b, 4, DART_TYPE_INT, 6, DART_GLOBAL_UNIT_ID(peer)));
    } else {
      int a[4] = {0}, b[4] = {0};
      DART_EXPECT_OK(dart_recv(b, 4, DART_TYPE_INT, 6, DART_GLOBAL_UNIT_ID(peer)));
      DART_EXPECT_OK(dart_recv(a, 4, DART_TYPE_INT, 5, DART_GLOBAL_UNIT_ID(peer)));
      EXPECT_EQ(a[0], 1);
      EXPECT_EQ(a[3], 4);
      EXPECT_EQ(b[0], 5);
      EXPECT_EQ(b[3], 8);
    }
  }
  // Messages to self through sendrecv.
  double x = 3.25 + me, y = 0;
  DART_EXPECT_OK(dart_sendrecv(&x, 1, DART_TYPE_DOUBLE, 9, DART_GLOBAL_UNIT_ID(me), &y, 1,
                               DART_TYPE_DOUBLE, 9, DART_GLOBAL_UNIT_ID(me)));
  EXPECT_EQ(y, x);
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

TEST(TwoSided, SendrecvRing) {
  const int n = nunits(), me = myid();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t N = 100000;  // large: needs sendrecv to avoid a deadlock
  std::vector<long> s(N), r(N, -1);
  for (size_t i = 0; i < N; ++i) s[i] = me * 1000000L + (long)i;
  DART_EXPECT_OK(dart_sendrecv(s.data(), N, DART_TYPE_LONG, 3, DART_GLOBAL_UNIT_ID(right), r.data(),
                               N, DART_TYPE_LONG, 3, DART_GLOBAL_UNIT_ID(left)));
  for (size_t i = 0; i < N; ++i)
    if (r[i] != left * 1000000L + (long)i) {
      ADD_FAILURE() << "elem " << i;
      break;
    }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

TEST(TwoSided, BadInputs) {
  const int n = nunits();
  int buf[2] = {1, 2};
  for (int bad : {n, -1, n + 100}) {
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_send(buf, 2, DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(bad)));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_recv(buf, 2, DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(bad)));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_sendrecv(buf, 1, DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(bad), buf + 1, 1,
                                   DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(0)));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_sendrecv(buf, 1, DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(0), buf + 1, 1,
                                   DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(bad)));
  }
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_send(nullptr, 2, DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_recv(nullptr, 2, DART_TYPE_INT, 0, DART_GLOBAL_UNIT_ID(0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_send(buf, 2, DART_TYPE_UNDEFINED, 0, DART_GLOBAL_UNIT_ID(0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_recv(buf, 2, DART_TYPE_UNDEFINED, 0, DART_GLOBAL_UNIT_ID(0)));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_send(buf, 2, DART_TYPE_INT, -4, DART_GLOBAL_UNIT_ID(0)));
  EXPECT_EQ(buf[0], 1);
  EXPECT_EQ(buf[1], 2);
}

// ---------------------------------------------------------------------------
// user-defined operations
// ---------------------------------------------------------------------------

namespace {

struct OpData {
  int magic = 0x5eed;
  long calls = 0;
  bool bad_userdata = false;
};

void max_abs(const void *in, void *inout, size_t len, void *ud) {
  OpData *d = static_cast<OpData *>(ud);
  if (d == nullptr || d->magic != 0x5eed) {
    if (d) d->bad_userdata = true;
    return;
  }
  ++d->calls;
  const double *a = static_cast<const double *>(in);
  double *b = static_cast<double *>(inout);
  for (size_t i = 0; i < len; ++i)
    if (std::fabs(a[i]) > std::fabs(b[i])) b[i] = a[i];
}

struct ArgMax {  // 16 bytes, a custom type
  double value;
  int32_t unit;
  int32_t pad;
};

void argmax(const void *in, void *inout, size_t len, void *) {
  const ArgMax *a = static_cast<const ArgMax *>(in);
  ArgMax *b = static_cast<ArgMax *>(inout);
  for (size_t i = 0; i < len; ++i)
    if (a[i].value > b[i].value || (a[i].value == b[i].value && a[i].unit < b[i].unit)) b[i] = a[i];
}

// Non-commutative: keep the left operand (MPI order: invec comes from lower ranks).
void keep_left(const void *in, void *inout, size_t len, void *) {
  std::memcpy(inout, in, len * sizeof(int));
}

}  // namespace

TEST(UserOps, MaxAbsWithUserdata) {
  on_teams([](dart_team_t t, int me, int sz) {
    OpData data;
    dart_operation_t op = DART_OP_UNDEFINED;
    DART_EXPECT_OK(dart_op_create(max_abs, &data, true, DART_TYPE_DOUBLE, false, &op));
    EXPECT_NE(op, DART_OP_UNDEFINED);
    double in[3] = {(me % 2 ? -1.0 : 1.0) * (me + 1), 0.5, -0.25 * me};
    double out[3] = {0, 0, 0};
    DART_EXPECT_OK(dart_allreduce(in, out, 3, DART_TYPE_DOUBLE, op, t));
    EXPECT_EQ(out[0], ((sz - 1) % 2 ? -1.0 : 1.0) * sz);
    EXPECT_EQ(out[1], 0.5);
    EXPECT_EQ(out[2], -0.25 * (sz - 1));
    double r = 0;
    DART_EXPECT_OK(dart_reduce(in, &r, 1, DART_TYPE_DOUBLE, op, DART_TEAM_UNIT_ID(0), t));
    if (me == 0) {
      EXPECT_EQ(r, out[0]);
    }
    EXPECT_FALSE(data.bad_userdata);
    long calls = sum_all(data.calls, t);
    if (sz > 1) {
      EXPECT_GT(calls, 0) << "the user function was never called";
    }
    // Using the op with another type: INVAL (checked locally on every unit).
    int ii = 0, io = 0;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allreduce(&ii, &io, 1, DART_TYPE_INT, op, t));
    dart_operation_t copy = op;
    DART_EXPECT_OK(dart_op_destroy(&op));
    EXPECT_EQ(op, DART_OP_UNDEFINED);
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_op_destroy(&copy));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allreduce(in, out, 1, DART_TYPE_DOUBLE, copy, t));
  });
}

TEST(UserOps, StructArgmaxWithCustomType) {
  on_teams([](dart_team_t t, int me, int sz) {
    dart_datatype_t at = DART_TYPE_UNDEFINED;
    DART_EXPECT_OK(dart_type_create_custom(sizeof(ArgMax), &at));
    dart_operation_t op = DART_OP_UNDEFINED;
    DART_EXPECT_OK(dart_op_create(argmax, nullptr, true, at, false, &op));
    ArgMax in[2] = {{double(me % 3), me, 0}, {double(-me), me, 0}}, out[2] = {};
    DART_EXPECT_OK(dart_allreduce(in, out, 2, at, op, t));
    // Element 0: max of me%3, first unit reaching it; element 1: unit 0 (value 0).
    int best = 0;
    for (int u = 0; u < sz; ++u)
      if (u % 3 > best % 3) best = u;
    EXPECT_EQ(out[0].value, double(best % 3));
    EXPECT_EQ(out[0].unit, best);
    EXPECT_EQ(out[1].unit, 0);
    DART_EXPECT_OK(dart_op_destroy(&op));
    DART_EXPECT_OK(dart_type_destroy(&at));
  });
}

TEST(UserOps, NonCommutativeKeepsRankOrder) {
  on_teams([](dart_team_t t, int me, int) {
    dart_operation_t op = DART_OP_UNDEFINED;
    DART_EXPECT_OK(dart_op_create(keep_left, nullptr, false, DART_TYPE_INT, false, &op));
    int in[2] = {100 + me, 200 + me}, out[2] = {-1, -1};
    DART_EXPECT_OK(dart_allreduce(in, out, 2, DART_TYPE_INT, op, t));
    EXPECT_EQ(out[0], 100);
    EXPECT_EQ(out[1], 200);
    DART_EXPECT_OK(dart_op_destroy(&op));
  });
}

TEST(UserOps, BadInputs) {
  dart_operation_t op = DART_OP_UNDEFINED;
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_op_create(nullptr, nullptr, true, DART_TYPE_INT, false, &op));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_op_create(keep_left, nullptr, true, DART_TYPE_INT, false, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_op_create(keep_left, nullptr, true, DART_TYPE_UNDEFINED, false, &op));
  EXPECT_EQ(op, DART_OP_UNDEFINED);
  for (dart_operation_t pre : {DART_OP_SUM, DART_OP_MIN, DART_OP_REPLACE}) {
    dart_operation_t p = pre;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_op_destroy(&p));
    EXPECT_EQ(p, pre);
  }
  dart_operation_t u = DART_OP_UNDEFINED;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_op_destroy(&u));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_op_destroy(nullptr));
}

// ---------------------------------------------------------------------------
// bad inputs of collectives: identical on every unit, so every unit fails, none hangs
// ---------------------------------------------------------------------------

TEST(Collectives, BadInputs) {
  const int n = nunits();
  std::vector<int> a(4 * n, 1), b(4 * n, 2);
  const dart_team_unit_t bad_roots[] = {DART_TEAM_UNIT_ID(n), DART_TEAM_UNIT_ID(-1)};
  for (dart_team_unit_t root : bad_roots) {
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_bcast(a.data(), 1, DART_TYPE_INT, root, DART_TEAM_ALL));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_scatter(a.data(), b.data(), 1, DART_TYPE_INT, root, DART_TEAM_ALL));
    DART_EXPECT_FAIL(DART_ERR_INVAL,
                     dart_gather(a.data(), b.data(), 1, DART_TYPE_INT, root, DART_TEAM_ALL));
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_reduce(a.data(), b.data(), 1, DART_TYPE_INT, DART_OP_SUM,
                                                 root, DART_TEAM_ALL));
  }
  // NULL buffers with nelem > 0 (on every unit).
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_bcast(nullptr, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_allgather(nullptr, b.data(), 1, DART_TYPE_INT, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_allgather(a.data(), nullptr, 1, DART_TYPE_INT, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_allreduce(nullptr, b.data(), 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_allreduce(a.data(), nullptr, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_alltoall(nullptr, b.data(), 1, DART_TYPE_INT, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_gather(nullptr, b.data(), 1, DART_TYPE_INT,
                                               DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  std::vector<size_t> cnt(n, 1), dsp(n);
  for (int u = 0; u < n; ++u) dsp[u] = u;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allgatherv(a.data(), 1, DART_TYPE_INT, b.data(), nullptr,
                                                   dsp.data(), DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allgatherv(a.data(), 1, DART_TYPE_INT, b.data(), cnt.data(),
                                                   nullptr, DART_TEAM_ALL));
  // NULL counts on one unit only: every unit fails, none waits in the collective.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allgatherv(a.data(), 1, DART_TYPE_INT, b.data(),
                                                   myid() == n - 1 ? nullptr : cnt.data(),
                                                   dsp.data(), DART_TEAM_ALL));
  // Undefined types and operations.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_bcast(a.data(), 1, DART_TYPE_UNDEFINED,
                                              DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allreduce(a.data(), b.data(), 1, DART_TYPE_UNDEFINED,
                                                  DART_OP_SUM, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allreduce(a.data(), b.data(), 1, DART_TYPE_INT,
                                                  DART_OP_UNDEFINED, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allreduce(a.data(), b.data(), 1, DART_TYPE_INT,
                                                  DART_OP_LAST, DART_TEAM_ALL));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_allreduce(a.data(), b.data(), 3, DART_TYPE_INT,
                                                  DART_OP_MINMAX, DART_TEAM_ALL));
  // Teams: destroyed -> NOTFOUND, null/negative -> INVAL.
  dart_team_t t = DART_TEAM_NULL;
  DART_EXPECT_OK(dart_team_clone(DART_TEAM_ALL, &t));
  const dart_team_t dead = t;
  DART_EXPECT_OK(dart_team_destroy(&t));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_barrier(dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_bcast(a.data(), 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_scatter(a.data(), b.data(), 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_gather(a.data(), b.data(), 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_allgather(a.data(), b.data(), 1, DART_TYPE_INT, dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_allgatherv(a.data(), 1, DART_TYPE_INT, b.data(),
                                                      cnt.data(), dsp.data(), dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND,
                   dart_allreduce(a.data(), b.data(), 1, DART_TYPE_INT, DART_OP_SUM, dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_reduce(a.data(), b.data(), 1, DART_TYPE_INT, DART_OP_SUM,
                                                  DART_TEAM_UNIT_ID(0), dead));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_alltoall(a.data(), b.data(), 1, DART_TYPE_INT, dead));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_barrier(DART_TEAM_NULL));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_bcast(a.data(), 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), -2));
  // Outputs untouched by all the failures above.
  for (int i = 0; i < 4 * n; ++i) {
    EXPECT_EQ(a[i], 1);
    EXPECT_EQ(b[i], 2);
  }
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}
