// SPDX-License-Identifier: BSD-3-Clause
// dart_init / dart_exit cycles inside one MPI lifetime: the program initializes MPI
// itself, DART must neither finalize it nor leave state behind; calls outside a
// DART lifetime return DART_ERR_NOTINIT. With progress processes (DART_PROGRESS_PER_NODE)
// DART refuses an MPI started before it: the program checks that refusal instead.
#include "prog_common.h"

#include <string>
#include <vector>

namespace {

dart_gptr_t gptr_sentinel() {
  dart_gptr_t g = DART_GPTR_NULL;
  dart_gptr_make(7, 0, 7, 7, 7, &g);
  return g;
}

dart_gptr_t m_gptr() {  // a gptr of a segment that would exist after an init
  dart_gptr_t g = DART_GPTR_NULL;
  dart_gptr_make(0, 0, 1, DART_TEAM_ALL, 0, &g);
  return g;
}

void calls_outside_lifetime() {
  CHECK(!dart_initialized());
  dart_global_unit_t me{-5};
  size_t n = 77;
  CHECK_RC(DART_ERR_NOTINIT, dart_myid(&me));
  CHECK_RC(DART_ERR_NOTINIT, dart_size(&n));
  CHECK(me.id == -5 && n == 77);
  CHECK_RC(DART_ERR_NOTINIT, dart_barrier(DART_TEAM_ALL));
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK_RC(DART_ERR_NOTINIT, dart_memalloc(4, DART_TYPE_INT, &g));
  CHECK_RC(DART_ERR_NOTINIT, dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &g));
  CHECK(DART_GPTR_ISNULL(g));
  int x = 1;
  CHECK_RC(DART_ERR_NOTINIT, dart_put_blocking(g, &x, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_RC(DART_ERR_NOTINIT, dart_bcast(&x, 1, DART_TYPE_INT, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  dart_group_t grp = DART_GROUP_NULL;
  CHECK_RC(DART_ERR_NOTINIT, dart_group_create(&grp));
  dart_team_t t = DART_TEAM_NULL;
  CHECK_RC(DART_ERR_NOTINIT, dart_team_clone(DART_TEAM_ALL, &t));
  dart_datatype_t dt = DART_TYPE_UNDEFINED;
  CHECK_RC(DART_ERR_NOTINIT, dart_type_create_custom(8, &dt));
  size_t nn = 0;
  CHECK_RC(DART_ERR_NOTINIT, dart_node_count(&nn));
  CHECK_RC(DART_ERR_NOTINIT, dart_exit());
  // Issue 30 (DART 3.2): object outputs are null after every failure, NOTINIT too
  // (each starts as a non-null sentinel).
  dart_gptr_t gs = gptr_sentinel();
  CHECK_RC(DART_ERR_NOTINIT, dart_memalloc(4, DART_TYPE_INT, &gs));
  CHECK(DART_GPTR_ISNULL(gs));
  gs = gptr_sentinel();
  CHECK_RC(DART_ERR_NOTINIT, dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &gs));
  CHECK(DART_GPTR_ISNULL(gs));
  gs = gptr_sentinel();
  CHECK_RC(DART_ERR_NOTINIT, dart_team_memregister(DART_TEAM_ALL, 1, DART_TYPE_INT, &x, &gs));
  CHECK(DART_GPTR_ISNULL(gs));
  gs = gptr_sentinel();
  CHECK_RC(DART_ERR_NOTINIT,
           dart_team_memregister_aligned(DART_TEAM_ALL, 1, DART_TYPE_INT, &x, &gs));
  CHECK(DART_GPTR_ISNULL(gs));
  gs = gptr_sentinel();
  CHECK_RC(DART_ERR_NOTINIT, dart_notify_alloc(DART_TEAM_ALL, 1, &gs));
  CHECK(DART_GPTR_ISNULL(gs));
  dart_handle_t h = reinterpret_cast<dart_handle_t>(0x1);
  CHECK_RC(DART_ERR_NOTINIT, dart_put_handle(m_gptr(), &x, 1, DART_TYPE_INT, DART_TYPE_INT, &h));
  CHECK(h == DART_HANDLE_NULL);
  h = reinterpret_cast<dart_handle_t>(0x1);
  CHECK_RC(DART_ERR_NOTINIT, dart_get_handle(&x, m_gptr(), 1, DART_TYPE_INT, DART_TYPE_INT, &h));
  CHECK(h == DART_HANDLE_NULL);
  h = reinterpret_cast<dart_handle_t>(0x1);
  CHECK(dart_put_notify_handle(m_gptr(), &x, 1, DART_TYPE_INT, DART_TYPE_INT, m_gptr(), 1,
                               DART_NOTIFY_ADD, &h) != DART_OK);
  CHECK(h == DART_HANDLE_NULL);
  grp = reinterpret_cast<dart_group_t>(0x1);
  CHECK_RC(DART_ERR_NOTINIT, dart_group_create(&grp));
  CHECK(grp == DART_GROUP_NULL);
  grp = reinterpret_cast<dart_group_t>(0x1);
  CHECK_RC(DART_ERR_NOTINIT, dart_team_get_group(DART_TEAM_ALL, &grp));
  CHECK(grp == DART_GROUP_NULL);
  t = 12345;
  CHECK_RC(DART_ERR_NOTINIT, dart_team_clone(DART_TEAM_ALL, &t));
  CHECK(t == DART_TEAM_NULL);
  t = 12345;
  CHECK_RC(DART_ERR_NOTINIT, dart_team_create(DART_TEAM_ALL, DART_GROUP_NULL, &t));
  CHECK(t == DART_TEAM_NULL);
  dart_lock_t lk = reinterpret_cast<dart_lock_t>(0x1);
  CHECK_RC(DART_ERR_NOTINIT, dart_team_lock_init(DART_TEAM_ALL, &lk));
  CHECK(lk == DART_LOCK_NULL);
  const size_t one = 1, zero = 0;
  dt = (dart_datatype_t)0x1234;
  CHECK_RC(DART_ERR_NOTINIT, dart_type_create_custom(8, &dt));
  CHECK(dt == DART_TYPE_UNDEFINED);
  dt = (dart_datatype_t)0x1234;
  CHECK_RC(DART_ERR_NOTINIT, dart_type_create_strided(DART_TYPE_INT, 2, 1, &dt));
  CHECK(dt == DART_TYPE_UNDEFINED);
  dt = (dart_datatype_t)0x1234;
  CHECK_RC(DART_ERR_NOTINIT, dart_type_create_indexed(DART_TYPE_INT, 1, &one, &zero, &dt));
  CHECK(dt == DART_TYPE_UNDEFINED);
  dt = (dart_datatype_t)0x1234;
  const ptrdiff_t st = 1;
  size_t ne = 0;
  CHECK_RC(DART_ERR_NOTINIT, dart_type_from_layout(DART_TYPE_INT, 1, &one, &st, &dt, &ne));
  CHECK(dt == DART_TYPE_UNDEFINED);
  dart_operation_t op = (dart_operation_t)0x1234;
  CHECK_RC(DART_ERR_NOTINIT, dart_op_create([](const void *, void *, size_t, void *) {}, nullptr,
                                            true, DART_TYPE_INT, false, &op));
  CHECK(op == DART_OP_UNDEFINED);
  // Allowed at any time.
  CHECK(dart_strerror(DART_ERR_NOTINIT) != nullptr);
  CHECK(std::strlen(dart_error_detail()) > 0);
  CHECK(dart_mpi_version() != nullptr);
  dart_gptr_t m = DART_GPTR_NULL;
  CHECK_OK(dart_gptr_make(1, 0, 2, 3, 4, &m));
  int32_t u = -1;
  CHECK_OK(dart_gptr_fields(&m, &u, nullptr, nullptr, nullptr, nullptr));
  CHECK(u == 1);
}

void little_work(int cycle) {
  dart_global_unit_t me{-1};
  size_t n = 0;
  CHECK_OK(dart_myid(&me));
  CHECK_OK(dart_size(&n));
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT, &g));
  const int right = (me.id + 1) % (int)n, left = (me.id + (int)n - 1) % (int)n;
  dart_gptr_t q = g;
  dart_gptr_setunit(&q, DART_TEAM_UNIT_ID(right));
  int v = cycle * 100 + me.id;
  CHECK_OK(dart_put_blocking(q, &v, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  dart_gptr_t mine = g;
  dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me.id));
  int *p = nullptr;
  CHECK_OK(dart_gptr_getaddr(mine, reinterpret_cast<void **>(&p)));
  CHECK(p && *p == cycle * 100 + left);
  // A team and a pool allocation, left for dart_exit to clean up every other cycle.
  dart_team_t t = DART_TEAM_NULL;
  CHECK_OK(dart_team_clone(DART_TEAM_ALL, &t));
  dart_gptr_t pg = DART_GPTR_NULL;
  CHECK_OK(dart_memalloc(16, DART_TYPE_BYTE, &pg));
  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  if (cycle % 2 == 0) {
    CHECK_OK(dart_memfree(pg));
    CHECK_OK(dart_team_destroy(&t));
    CHECK_OK(dart_team_memfree(g));
  }
}

// A malformed DART_* variable makes dart_init fail with DART_ERR_INVAL and a detail
// naming the variable, on every unit (the values are the same everywhere), and leaves
// DART uninitialized; the next dart_init with the variable restored works.
void malformed_environment(int *argc, char ***argv) {
  const char *cases[][2] = {{"DART_WAIT", "spin"},
                            {"DART_POOL_SIZE", "12X"},
                            {"DART_UNITS_PER_NODE", "0"},
                            {"DART_TRANSFER_CHUNK", "-5"}};
  for (auto &c : cases) {
    const char *old = std::getenv(c[0]);
    std::string saved = old ? old : "";
    setenv(c[0], c[1], 1);
    CHECK_RC(DART_ERR_INVAL, dart_init(argc, argv));
    CHECK(std::strstr(dart_error_detail(), c[0]) != nullptr);
    CHECK(!dart_initialized());
    if (old)
      setenv(c[0], saved.c_str(), 1);
    else
      unsetenv(c[0]);
  }
  CHECK_OK(dart_init(argc, argv));
  CHECK_OK(dart_exit());
}

}  // namespace

int main(int argc, char **argv) {
  prog::init_mpi(&argc, &argv);
  if (prog::progress_per_node() > 0) {
    calls_outside_lifetime();
    return prog::check_progress_refused("prog_init_cycles", &argc, &argv);
  }

  calls_outside_lifetime();  // before the first dart_init
  const int cycles = 20;
  for (int c = 0; c < cycles; ++c) {
    dart_ret_t rc = (c % 2) ? dart_init(&argc, &argv) : [&] {
      dart_thread_support_level_t lvl = DART_THREAD_SINGLE;
      dart_ret_t r = dart_init_thread(&argc, &argv, &lvl);
      CHECK(lvl == DART_THREAD_SINGLE || lvl == DART_THREAD_MULTIPLE);
      return r;
    }();
    CHECK_OK(rc);
    if (rc != DART_OK) break;
    CHECK(dart_initialized());
    CHECK_RC(DART_ERR_INVAL, dart_init(&argc, &argv));
    little_work(c);
    CHECK_OK(dart_exit());
    CHECK(!dart_initialized());
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    CHECK(init && !fin);  // DART must not finalize an MPI it did not start
    if (!init || fin) return 1;
  }
  malformed_environment(&argc, &argv);
  calls_outside_lifetime();  // after the last dart_exit
  int r = prog::finish("prog_init_cycles");
  MPI_Finalize();
  return r;
}
