// SPDX-License-Identifier: BSD-3-Clause
// Notified access (dart_notify.h): counter blocks, put_notify (flush-free, blocking and
// handle forms), dart_notify after many plain puts, waits and tests, SET and ADD, a token
// chain through all units, many counters at once, strided data, and the bad inputs.
#include "dart_test.h"

#include <dash/dart/if/dart_notify.h>

using namespace dtest;

namespace {

// Counter i of unit u in the block `base`.
dart_gptr_t counter_of(dart_gptr_t base, int u, size_t i) {
  dart_gptr_setunit(&base, DART_TEAM_UNIT_ID(u));
  dart_gptr_incaddr(&base, (int64_t)(i * sizeof(uint64_t)));
  return base;
}

// Element i of unit u's part of a collective allocation of int64 words.
dart_gptr_t elem_of(dart_gptr_t base, int u, size_t i) {
  dart_gptr_setunit(&base, DART_TEAM_UNIT_ID(u));
  dart_gptr_incaddr(&base, (int64_t)(i * sizeof(int64_t)));
  return base;
}

int64_t *local_words(dart_gptr_t base) {
  dart_gptr_setunit(&base, DART_TEAM_UNIT_ID(myid()));
  void *p = nullptr;
  dart_gptr_getaddr(base, &p);
  return static_cast<int64_t *>(p);
}

}  // namespace

TEST(Notify, AllocZeroedAndFree) {
  const int n = nunits(), me = myid();
  dart_gptr_t cnt = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 16, &cnt));
  bool zero = true;
  for (int u = 0; u < n; ++u) {
    for (size_t i = 0; i < 16; ++i) {
      uint64_t v = 1;
      DART_EXPECT_OK(dart_notify_get(counter_of(cnt, u, i), &v));
      zero = zero && v == 0;
    }
  }
  EXPECT_TRUE(zero) << "unit " << me;
  // A wait for 0 returns at once; a test for 1 on an untouched counter reports 0.
  DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, 3), 0));
  int32_t flag = -1;
  DART_EXPECT_OK(dart_notify_test(counter_of(cnt, me, 3), 1, &flag));
  EXPECT_EQ(flag, 0);
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify_free(counter_of(cnt, 0, 5)));  // any counter of the block
}

// A token passes 0 -> 1 -> ... -> n-1 -> 0 for several laps; each hop is one put_notify.
TEST(Notify, TokenChain) {
  const int n = nunits(), me = myid();
  const int laps = 20;
  dart_gptr_t cnt, buf;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 1, &cnt));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG, &buf));
  const int next = (me + 1) % n;
  int64_t *mine = local_words(buf);
  bool ok = true;
  for (int lap = 0; lap < laps && ok; ++lap) {
    int64_t token = 0;  // unit 0 starts the first lap
    if (!(me == 0 && lap == 0)) {
      ok = dart_notify_wait(counter_of(cnt, me, 0), 1) == DART_OK;
      token = *mine;
      ok = ok && token == (int64_t)lap * n + me;
    }
    long long out = token + 1;
    ok = ok &&
         dart_put_notify(elem_of(buf, next, 0), &out, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG,
                         counter_of(cnt, next, 0), 1, DART_NOTIFY_ADD) == DART_OK;
  }
  // The last lap's token returns to unit 0.
  if (ok && me == 0) {
    ok = dart_notify_wait(counter_of(cnt, 0, 0), 1) == DART_OK && *mine == (int64_t)laps * n;
  }
  EXPECT_TRUE(ok) << "unit " << me << ": " << dart_error_detail();
  EXPECT_TRUE(all_true(ok));
  uint64_t left = 99;
  DART_EXPECT_OK(dart_notify_get(counter_of(cnt, me, 0), &left));
  EXPECT_EQ(left, 0u);
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

// Every unit puts 8 words to every unit, each notifying its own counter at the target
// with ADD; the target waits on each counter for n notifications.
TEST(Notify, ManyCountersAdd) {
  const int n = nunits(), me = myid();
  const size_t kc = 64;
  dart_gptr_t cnt, buf;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, kc, &cnt));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, kc * n, DART_TYPE_LONGLONG, &buf));
  for (size_t i = 0; i < kc; ++i) {
    for (int k = 0; k < n; ++k) {
      const int u = (me + k) % n;
      long long v = (long long)me * 1000 + (long long)i;
      DART_EXPECT_OK(dart_put_notify(elem_of(buf, u, i * n + me), &v, 1, DART_TYPE_LONGLONG,
                                     DART_TYPE_LONGLONG, counter_of(cnt, u, i), 1,
                                     DART_NOTIFY_ADD));
    }
  }
  bool ok = true;
  const int64_t *mine = local_words(buf);
  for (size_t i = kc; i-- > 0;) {
    DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, i), (uint64_t)n));
    for (int src = 0; src < n; ++src)
      ok = ok && mine[i * n + src] == (int64_t)src * 1000 + (int64_t)i;
  }
  EXPECT_TRUE(ok) << "unit " << me;
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

// SET stores the value: the consumer waits for exactly that count and the wait leaves 0.
TEST(Notify, SetAndTest) {
  const int n = nunits(), me = myid();
  dart_gptr_t cnt, buf;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 2, &cnt));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONGLONG, &buf));
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  long long data[4] = {me, me + 1, me + 2, me + 3};
  DART_EXPECT_OK(dart_put_notify(elem_of(buf, next, 0), data, 4, DART_TYPE_LONGLONG,
                                 DART_TYPE_LONGLONG, counter_of(cnt, next, 0), 7, DART_NOTIFY_SET));
  int32_t flag = 0;
  while (flag == 0) {
    if (dart_notify_test(counter_of(cnt, me, 0), 7, &flag) != DART_OK) break;
  }
  EXPECT_EQ(flag, 1);
  const int64_t *mine = local_words(buf);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(mine[i], prev + i);
  uint64_t v = 1;
  DART_EXPECT_OK(dart_notify_get(counter_of(cnt, me, 0), &v));
  EXPECT_EQ(v, 0u);
  // SET twice before the wait: the last value counts.
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify(counter_of(cnt, next, 1), 3, DART_NOTIFY_SET));
  DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, 1), 3));
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

// dart_notify after many flush-free puts to many units (collective and pool memory):
// when the target sees the counter, all of them are there.
TEST(Notify, NotifyAfterManyPuts) {
  const int n = nunits(), me = myid();
  const size_t per = 256;
  dart_gptr_t cnt, buf, pool;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 1, &cnt));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, per * n, DART_TYPE_LONGLONG, &buf));
  DART_EXPECT_OK(dart_memalloc(n, DART_TYPE_LONGLONG, &pool));
  std::vector<dart_gptr_t> pools = allgather_gptr(pool);
  std::vector<long long> src(per);
  for (size_t i = 0; i < per; ++i) src[i] = (long long)me * 100000 + (long long)i;
  for (int k = 0; k < n; ++k) {
    const int u = (me + k) % n;
    for (size_t i = 0; i < per; i += 32)  // many small puts
      DART_EXPECT_OK(dart_put(elem_of(buf, u, me * per + i), &src[i], 32, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
    long long tag = 42 + me;
    dart_gptr_t pg = pools[u];
    dart_gptr_incaddr(&pg, (int64_t)(me * sizeof(long long)));
    DART_EXPECT_OK(dart_put(pg, &tag, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  }
  for (int k = 0; k < n; ++k)
    DART_EXPECT_OK(dart_notify(counter_of(cnt, (me + k) % n, 0), 1, DART_NOTIFY_ADD));
  DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, 0), (uint64_t)n));
  bool ok = true;
  const int64_t *mine = local_words(buf);
  for (int s = 0; s < n; ++s)
    for (size_t i = 0; i < per; ++i)
      ok = ok && mine[s * per + i] == (int64_t)s * 100000 + (int64_t)i;
  void *pp = nullptr;
  dart_gptr_getaddr(pool, &pp);
  for (int s = 0; s < n; ++s) ok = ok && static_cast<long long *>(pp)[s] == 42 + s;
  EXPECT_TRUE(ok) << "unit " << me;
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_memfree(pool));
  DART_EXPECT_OK(dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

// Handles: three put_notify handles to the same target completed by one dart_waitall
// (each still notifies), one by dart_test, one released by dart_handle_free.
TEST(Notify, PutNotifyHandle) {
  const int n = nunits(), me = myid();
  dart_gptr_t cnt, buf;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 1, &cnt));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 5, DART_TYPE_LONGLONG, &buf));
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  long long v[5] = {10LL * me, 10LL * me + 1, 10LL * me + 2, 10LL * me + 3, 10LL * me + 4};
  dart_gptr_t c = counter_of(cnt, next, 0);
  dart_handle_t h[3];
  for (int i = 0; i < 3; ++i)
    DART_EXPECT_OK(dart_put_notify_handle(elem_of(buf, next, i), &v[i], 1, DART_TYPE_LONGLONG,
                                          DART_TYPE_LONGLONG, c, 1, DART_NOTIFY_ADD, &h[i]));
  DART_EXPECT_OK(dart_waitall(h, 3));
  dart_handle_t t = DART_HANDLE_NULL;
  DART_EXPECT_OK(dart_put_notify_handle(elem_of(buf, next, 3), &v[3], 1, DART_TYPE_LONGLONG,
                                        DART_TYPE_LONGLONG, c, 1, DART_NOTIFY_ADD, &t));
  int32_t fin = 0;
  DART_EXPECT_OK(dart_test(&t, &fin));
  EXPECT_EQ(fin, 1);
  dart_handle_t f = DART_HANDLE_NULL;
  DART_EXPECT_OK(dart_put_notify_handle(elem_of(buf, next, 4), &v[4], 1, DART_TYPE_LONGLONG,
                                        DART_TYPE_LONGLONG, c, 1, DART_NOTIFY_ADD, &f));
  DART_EXPECT_OK(dart_handle_free(&f));
  DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, 0), 5));
  const int64_t *mine = local_words(buf);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(mine[i], 10LL * prev + i) << "unit " << me;
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

// A strided source (every other element) and a counter on a third unit: the notified
// unit sees the data of a put to another unit.
TEST(Notify, StridedAndThirdPartyCounter) {
  const int n = nunits(), me = myid();
  dart_gptr_t cnt, buf;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 1, &cnt));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_LONGLONG, &buf));
  dart_datatype_t every_other = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_type_create_strided(DART_TYPE_LONGLONG, 2, 1, &every_other));
  long long src[16];
  for (int i = 0; i < 16; ++i) src[i] = (i % 2 == 0) ? 100LL * me + i / 2 : -1;
  const int next = (me + 1) % n, third = (me + 2) % n;
  // Data to next, counter of `third`; `third` then checks the data of unit next.
  DART_EXPECT_OK(dart_put_notify(elem_of(buf, next, 0), src, 8, every_other, DART_TYPE_LONGLONG,
                                 counter_of(cnt, third, 0), 1, DART_NOTIFY_ADD));
  DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, 0), 1));
  // Unit me was notified by unit me-2, whose data went to unit me-1.
  const int writer = (me + 2 * n - 2) % n, holder = (writer + 1) % n;
  long long got[8] = {0};
  DART_EXPECT_OK(
      dart_get_blocking(got, elem_of(buf, holder, 0), 8, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], 100LL * writer + i) << "unit " << me;
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_type_destroy(&every_other));
  DART_EXPECT_OK(dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

TEST(Notify, BadInputs) {
  const int n = nunits(), me = myid();
  dart_gptr_t cnt, buf;
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 2, &cnt));
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_LONGLONG, &buf));
  long long v = 1;
  uint64_t got = 0;
  int32_t flag = 0;
  const dart_gptr_t own = counter_of(cnt, me, 0);
  const dart_gptr_t data = elem_of(buf, me, 0);
  // Not a counter: ordinary memory.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_notify(data, &v, 1, DART_TYPE_LONGLONG,
                                                   DART_TYPE_LONGLONG, data, 1, DART_NOTIFY_ADD));
  EXPECT_NE(std::string(dart_error_detail()).find("not a notification counter"), std::string::npos)
      << dart_error_detail();
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify(data, 1, DART_NOTIFY_ADD));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_wait(data, 1));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_test(data, 1, &flag));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_get(data, &got));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_free(buf));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_team_memfree(cnt));  // counters: dart_notify_free
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_get(DART_GPTR_NULL, &got));
  // Another unit's counter in a wait or test (with one unit: a unit out of range).
  const dart_gptr_t other = counter_of(cnt, (me + 1) % n, 0);
  if (n > 1) {
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_wait(other, 1));
    EXPECT_NE(std::string(dart_error_detail()).find("own"), std::string::npos)
        << dart_error_detail();
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_test(other, 1, &flag));
  }
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_wait(counter_of(cnt, n, 0), 1));
  // Bad op, misaligned and past-the-end counters, NULL outputs.
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify(own, 1, (dart_notify_op_t)7));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_put_notify(data, &v, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG, own, 1,
                                   (dart_notify_op_t)-1));
  dart_gptr_t odd = own;
  dart_gptr_incaddr(&odd, 4);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify(odd, 1, DART_NOTIFY_ADD));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_signal(odd, 1, DART_NOTIFY_ADD));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_signal(own, 1, (dart_notify_op_t)3));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_signal(data, 1, DART_NOTIFY_ADD));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_get(counter_of(cnt, me, 2), &got));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_get(own, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_test(own, 1, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_put_notify_handle(data, &v, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG, own,
                                          1, DART_NOTIFY_ADD, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_put_notify(data, nullptr, 1, DART_TYPE_LONGLONG,
                                                   DART_TYPE_LONGLONG, own, 1, DART_NOTIFY_ADD));
  // A refused allocation nulls its output (a scratch one: cnt stays live).
  dart_gptr_t refused = own;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_alloc(DART_TEAM_ALL, 0, &refused));
  EXPECT_TRUE(DART_GPTR_ISNULL(refused));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_notify_alloc(DART_TEAM_ALL, 1, nullptr));
  // Nothing above touched the counters.
  DART_EXPECT_OK(dart_notify_get(own, &got));
  EXPECT_EQ(got, 0u);
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify_free(cnt));
  // A freed block.
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_notify_wait(own, 1));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_notify(own, 1, DART_NOTIFY_ADD));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_notify_signal(own, 1, DART_NOTIFY_ADD));
  DART_EXPECT_FAIL(DART_ERR_NOTFOUND, dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

// dart_notify_signal as a "ready" signal: each unit stores into its own memory, signals
// its right neighbour, which then gets the words (by load/store or RMA) after its wait;
// then "done" back, so the next round's stores never race the reads. Many rounds.
TEST(Notify, SignalOrdersOwnStores) {
  const int n = nunits(), me = myid();
  const int rounds = oversubscribed() ? 20 : 200;
  dart_gptr_t buf = DART_GPTR_NULL, cnt = DART_GPTR_NULL;
  DART_EXPECT_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_LONGLONG, &buf));
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 2, &cnt));
  int64_t *mine = local_words(buf);
  const int left = (me + n - 1) % n, right = (me + 1) % n;
  long bad = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 64; ++i) mine[i] = (int64_t)r * 1000 + me * 64 + i;
    DART_EXPECT_OK(dart_notify_signal(counter_of(cnt, right, 0), 1, DART_NOTIFY_ADD));  // ready
    DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, 0), 1));  // the left one is ready
    int64_t got[64];
    DART_EXPECT_OK(
        dart_get_blocking(got, elem_of(buf, left, 0), 64, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
    for (int i = 0; i < 64; ++i) bad += got[i] != (int64_t)r * 1000 + left * 64 + i;
    DART_EXPECT_OK(dart_notify_signal(counter_of(cnt, left, 1), 1, DART_NOTIFY_ADD));  // done
    DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, me, 1), 1));  // the right one has read
  }
  EXPECT_EQ(bad, 0);
  dart_barrier(DART_TEAM_ALL);
  DART_EXPECT_OK(dart_notify_free(cnt));
  DART_EXPECT_OK(dart_team_memfree(buf));
}

// A bad argument on one unit only: every unit gets the error (none waits in the
// allocation's collectives), and the next allocation works.
TEST(Notify, AllocBadArgumentOnOneUnitFailsEverywhere) {
  dart_global_unit_t me;
  DART_EXPECT_OK(dart_myid(&me));
  dart_gptr_t cnt = DART_GPTR_NULL;
  const size_t n = me.id == 0 ? 0 : 1;  // unit 0 alone asks for zero counters
  EXPECT_NE(dart_notify_alloc(DART_TEAM_ALL, n, &cnt), DART_OK);
  DART_EXPECT_OK(dart_notify_alloc(DART_TEAM_ALL, 1, &cnt));
  DART_EXPECT_OK(dart_notify_free(cnt));
}

// Counters of a sub-team (the even units): team-relative unit ids.
TEST(Notify, SubTeam) {
  const int n = nunits(), me = myid();
  std::vector<int> even;
  for (int u = 0; u < n; u += 2) even.push_back(u);
  dart_team_t team = make_team(even);
  if (team != DART_TEAM_NULL) {
    dart_team_unit_t tme;
    size_t tsize = 0;
    dart_team_myid(team, &tme);
    dart_team_size(team, &tsize);
    dart_gptr_t cnt;
    DART_EXPECT_OK(dart_notify_alloc(team, 1, &cnt));
    const int next = (tme.id + 1) % (int)tsize;
    DART_EXPECT_OK(dart_notify(counter_of(cnt, next, 0), 2, DART_NOTIFY_ADD));
    DART_EXPECT_OK(dart_notify_wait(counter_of(cnt, tme.id, 0), 2));
    dart_barrier(team);
    DART_EXPECT_OK(dart_notify_free(cnt));
  }
  drop_team(team);
  (void)me;
}
