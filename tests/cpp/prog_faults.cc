// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 2 3 4 UPN none 1 TIMEOUT 600 LABELS faults
//
// All-or-nothing collective creations (docs/error-contract.md): a local failure on ONE
// unit, injected by the test-only fault hook DART_FAULT=<site>:<unit>[:<first>[:<count>]]
// or caused by a bad argument on that unit only, fails the collective on EVERY unit with
// a message naming the failing unit, hangs nobody, leaks nothing (repeated many times:
// no growth of this process's memory mappings; communicators would run out under MPICH
// after 2048), and the runtime stays usable (an allocation with put/get afterwards).
//
// The program initializes MPI itself and cycles dart_init/dart_exit, one cycle per case
// with DART_FAULT set before dart_init (the hook reads it there, config.cc). With
// progress processes (DART_PROGRESS_PER_NODE) DART refuses an MPI started before it: the
// program checks that refusal instead.
#include "prog_common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

int g_rank = -1, g_size = 0;
double g_start = 0;

// Lines of /proc/self/maps: every shared-memory window maps a file, so a leaked window
// shows up here.
long mappings() {
  std::ifstream f("/proc/self/maps");
  std::string line;
  long n = 0;
  while (std::getline(f, line)) ++n;
  return n;
}

bool contains(const char *text, const std::string &part) {
  return std::strstr(text, part.c_str()) != nullptr;
}

// One dart_init/dart_exit cycle with DART_FAULT=spec (empty: no fault).
void with_fault(const std::string &spec, const std::function<void()> &body) {
  if (spec.empty())
    unsetenv("DART_FAULT");
  else
    setenv("DART_FAULT", spec.c_str(), 1);
  if (g_rank == 0) {  // progress, for a timeout's log
    std::printf("case DART_FAULT=%s (%.1f s)\n", spec.c_str(), MPI_Wtime() - g_start);
    std::fflush(stdout);
  }
  CHECK_OK(dart_init(nullptr, nullptr));
  body();
  CHECK_OK(dart_exit());
  unsetenv("DART_FAULT");
}

// The failure as seen on each unit: the victim reports its own injected fault, the
// others name the victim (team unit `victim_in_team` of `team`).
void check_failed(dart_ret_t rc, int victim_global, int victim_in_team, const char *fn,
                  const char *what) {
  CHECK(rc != DART_OK);
  const char *d = dart_error_detail();
  CHECK(contains(d, fn));
  if (g_rank == victim_global) {
    CHECK(contains(d, "fault injected by DART_FAULT"));
  } else {
    CHECK(contains(d, "another unit failed: unit " + std::to_string(victim_in_team) + " of team"));
    CHECK(contains(d, "(global unit " + std::to_string(victim_global) + ")"));
  }
  if (rc == DART_OK) std::fprintf(stderr, "[rank %d] %s unexpectedly succeeded\n", g_rank, what);
}

// An allocation on `team` works end to end: every unit puts its id to its right
// neighbour and reads it back from its own part.
void allocation_works(dart_team_t team) {
  dart_team_unit_t me{-1};
  size_t n = 0;
  CHECK_OK(dart_team_myid(team, &me));
  CHECK_OK(dart_team_size(team, &n));
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK_OK(dart_team_memalloc_aligned(team, 4, DART_TYPE_INT, &g));
  if (n == 0) return;
  dart_gptr_t right = g;
  CHECK_OK(dart_gptr_setunit(&right, DART_TEAM_UNIT_ID((me.id + 1) % (int)n)));
  int v = 1000 + me.id, got = -1;
  CHECK_OK(dart_put_blocking(right, &v, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK_OK(dart_barrier(team));
  dart_gptr_t mine = g;
  CHECK_OK(dart_gptr_setunit(&mine, me));
  CHECK_OK(dart_get_blocking(&got, mine, 1, DART_TYPE_INT, DART_TYPE_INT));
  CHECK(got == 1000 + (me.id + (int)n - 1) % (int)n);
  CHECK_OK(dart_barrier(team));
  CHECK_OK(dart_team_memfree(g));
}

// The loops: kRepeat failing creations each; the mapping count may not grow by one per
// creation between the end of the warm-up and the end of the loop (a leaked window maps
// one file each).
constexpr int kRepeat = 12, kWarmup = 2;

void loop_checking_mappings(const std::function<void()> &one) {
  long after_warmup = 0;
  for (int i = 0; i < kRepeat; ++i) {
    one();
    if (i + 1 == kWarmup) after_warmup = mappings();
  }
  const long growth = mappings() - after_warmup;
  CHECK(growth < kRepeat - kWarmup);
  if (growth >= kRepeat - kWarmup)
    std::fprintf(stderr, "[rank %d] %ld new mappings over %d failed creations\n", g_rank, growth,
                 kRepeat - kWarmup);
}

// --- dart_team_memalloc_aligned, one site at a time -------------------------------
void alloc_fault(const char *site, int victim, bool site_reached) {
  const std::string spec = std::string(site) + ":" + std::to_string(victim) +
                           ":1:" + std::to_string(kRepeat);
  with_fault(spec, [&] {
    loop_checking_mappings([&] {
      dart_gptr_t g = DART_GPTR_NULL;
      dart_ret_t rc = dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_INT, &g);
      if (site_reached) {
        check_failed(rc, victim, victim, "dart_team_memalloc_aligned", site);
        CHECK(DART_GPTR_ISNULL(g));
      } else {  // e.g. win_create on a team inside one node: no such step, no failure
        CHECK_OK(rc);
        if (rc == DART_OK) CHECK_OK(dart_team_memfree(g));
      }
    });
    allocation_works(DART_TEAM_ALL);  // the fault's passes are used up: it works again
  });
}

// --- dart_team_memregister(_aligned) ------------------------------------------------
void register_cases(int victim, bool multi_node) {
  (void)multi_node;
  // A NULL address on one unit only.
  with_fault("", [&] {
    std::vector<int> mem(8, 0);
    for (int aligned = 0; aligned < 2; ++aligned) {
      for (int i = 0; i < kRepeat / 2; ++i) {
        dart_gptr_t g = DART_GPTR_NULL;
        void *addr = g_rank == victim ? nullptr : mem.data();
        dart_ret_t rc = aligned ? dart_team_memregister_aligned(DART_TEAM_ALL, 8, DART_TYPE_INT,
                                                                addr, &g)
                                : dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_INT, addr, &g);
        CHECK(rc == DART_ERR_INVAL || g_rank != victim);
        CHECK(rc != DART_OK);
        if (g_rank != victim)
          CHECK(contains(dart_error_detail(),
                         "another unit failed: unit " + std::to_string(victim) + " of team 0"));
        else
          CHECK(contains(dart_error_detail(), "addr is NULL"));
      }
    }
    // ... and a registration that works afterwards
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK_OK(dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_INT, mem.data(), &g));
    int v = 7, got = 0;
    dart_gptr_t other = g;
    CHECK_OK(dart_gptr_setunit(&other, DART_TEAM_UNIT_ID((g_rank + 1) % g_size)));
    CHECK_OK(dart_put_blocking(other, &v, 1, DART_TYPE_INT, DART_TYPE_INT));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK(mem[0] == 7);
    CHECK_OK(dart_get_blocking(&got, other, 1, DART_TYPE_INT, DART_TYPE_INT));
    CHECK(got == 7);
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_memderegister(g));
  });
  // The team's dynamic window failing on one unit at its first registration (its epoch;
  // the window goes again, so every registration makes it anew), and the attach of a
  // registration (site win_create).
  for (const char *site : {"win_create", "win_lock_all"}) {
    with_fault(
        std::string(site) + ":" + std::to_string(victim) + ":1:" + std::to_string(kRepeat), [&] {
          std::vector<int> mem(8, 0);
          for (int i = 0; i < kRepeat; ++i) {
            dart_gptr_t g = DART_GPTR_NULL;
            dart_ret_t rc = dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_INT, mem.data(), &g);
            check_failed(rc, victim, victim, "dart_team_memregister", site);
          }
          dart_gptr_t g = DART_GPTR_NULL;
          CHECK_OK(dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_INT, mem.data(), &g));
          CHECK_OK(dart_team_memderegister(g));
        });
  }
}

// --- dart_team_create / dart_team_clone --------------------------------------------
// At 2 units 1100 failed creations: two leaked communicators each would exhaust MPICH's
// 2048 context ids. More units run the same code a few times (a loaded 2-core machine
// runs 4 units slowly).
int team_repeat() { return g_size == 2 ? 1100 : 10; }

void team_fault(const char *site, int victim) {
  const std::string spec = std::string(site) + ":" + std::to_string(victim) +
                           ":1:" + std::to_string(team_repeat());
  with_fault(spec, [&] {
    dart_group_t all = DART_GROUP_NULL;
    CHECK_OK(dart_group_create(&all));
    for (int u = 0; u < g_size; ++u) CHECK_OK(dart_group_addmember(all, DART_GLOBAL_UNIT_ID(u)));
    for (int i = 0; i < team_repeat(); ++i) {
      dart_team_t t = DART_TEAM_NULL;
      dart_ret_t rc = (i % 2) ? dart_team_clone(DART_TEAM_ALL, &t)
                              : dart_team_create(DART_TEAM_ALL, all, &t);
      check_failed(rc, victim, victim, (i % 2) ? "dart_team_clone" : "dart_team_create", site);
      CHECK(t == DART_TEAM_NULL);
    }
    dart_team_t t = DART_TEAM_NULL;
    CHECK_OK(dart_team_create(DART_TEAM_ALL, all, &t));
    CHECK(t != DART_TEAM_NULL);
    // The failed creations registered nothing: the id before the new one is unknown.
    size_t n = 0;
    CHECK_RC(DART_ERR_NOTFOUND, dart_team_size((dart_team_t)(t - 1), &n));
    allocation_works(t);
    CHECK_OK(dart_team_destroy(&t));
    CHECK_OK(dart_group_destroy(&all));
  });
}

// --- dart_team_lock_init ------------------------------------------------------------
void lock_fault(const char *site, int victim) {
  const std::string spec = std::string(site) + ":" + std::to_string(victim) +
                           ":1:" + std::to_string(kRepeat);
  with_fault(spec, [&] {
    loop_checking_mappings([&] {
      dart_lock_t l = DART_LOCK_NULL;
      dart_ret_t rc = dart_team_lock_init(DART_TEAM_ALL, &l);
      check_failed(rc, victim, victim, "dart_team_lock_init", site);
      CHECK(l == DART_LOCK_NULL);
    });
    dart_lock_t l = DART_LOCK_NULL;
    CHECK_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
    CHECK_OK(dart_lock_acquire(l));
    CHECK_OK(dart_lock_release(l));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_lock_destroy(&l));
    allocation_works(DART_TEAM_ALL);
  });
}

// --- dart_memalloc: local, not collective -------------------------------------------
void memalloc_fault(int victim) {
  with_fault("memalloc:" + std::to_string(victim), [&] {
    dart_gptr_t g = DART_GPTR_NULL;
    dart_ret_t rc = dart_memalloc(4, DART_TYPE_INT, &g);
    if (g_rank == victim) {
      CHECK_RC(DART_ERR_NOMEM, rc);
      CHECK(contains(dart_error_detail(), "fault injected"));
      rc = dart_memalloc(4, DART_TYPE_INT, &g);  // only the first pass fails
    }
    CHECK_OK(rc);
    CHECK_OK(dart_memfree(g));
  });
}

// --- bad arguments on one unit only (no hook) ---------------------------------------
void one_unit_bad_arguments(int victim) {
  with_fault("", [&] {
    int buf[64] = {0};
    const dart_team_unit_t root = DART_TEAM_UNIT_ID(victim);
    // The root's extra buffer: only the root can see it is missing.
    CHECK(dart_scatter(nullptr, buf, 1, DART_TYPE_INT, root, DART_TEAM_ALL) != DART_OK);
    if (g_rank != victim) CHECK(contains(dart_error_detail(), "another unit failed"));
    CHECK(dart_gather(buf, nullptr, 1, DART_TYPE_INT, root, DART_TEAM_ALL) != DART_OK);
    CHECK(dart_reduce(buf, nullptr, 1, DART_TYPE_INT, DART_OP_SUM, root, DART_TEAM_ALL) != DART_OK);
    // NULL gptr, bad type on one unit only.
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_INT,
                                     g_rank == victim ? nullptr : &g) != DART_OK);
    CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4,
                                     g_rank == victim ? DART_TYPE_UNDEFINED : DART_TYPE_INT,
                                     &g) != DART_OK);
    dart_lock_t l = DART_LOCK_NULL;
    CHECK(dart_team_lock_init(DART_TEAM_ALL, g_rank == victim ? nullptr : &l) != DART_OK);
    CHECK(l == DART_LOCK_NULL);
    // The collectives still work.
    for (int u = 0; u < g_size; ++u) buf[u] = u;
    int one = -1;
    CHECK_OK(dart_scatter(buf, &one, 1, DART_TYPE_INT, root, DART_TEAM_ALL));
    CHECK(one == g_rank);
    CHECK_OK(dart_gather(&one, buf, 1, DART_TYPE_INT, root, DART_TEAM_ALL));
    allocation_works(DART_TEAM_ALL);
  });
}

}  // namespace

int main(int argc, char **argv) {
  g_rank = prog::init_mpi(&argc, &argv);
  if (prog::progress_per_node() > 0)
    return prog::check_progress_refused("prog_faults", &argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_start = MPI_Wtime();
  const int last = g_size - 1;
  // Whether DART_TEAM_ALL spans nodes (then allocations also use MPI_Win_create).
  bool multi_node = false;
  with_fault("", [&] {
    size_t nodes = 0;
    CHECK_OK(dart_node_count(&nodes));
    multi_node = nodes > 1;
  });
  // Invalid DART_FAULT values fail dart_init (on every unit alike).
  for (const char *bad : {"nonsense", "win_create", "win_create:x", "win_create:1:0",
                          "win_create:1:1:-1", "win_create:1:1:1:1"}) {
    setenv("DART_FAULT", bad, 1);
    CHECK_RC(DART_ERR_INVAL, dart_init(nullptr, nullptr));
    CHECK(contains(dart_error_detail(), "DART_FAULT"));
  }
  unsetenv("DART_FAULT");

  int cases = 0;
  for (int victim : {last, 0}) {
    alloc_fault("win_allocate_shared", victim, true), ++cases;
    alloc_fault("win_shared_query", victim, true), ++cases;
    alloc_fault("win_create", victim, multi_node), ++cases;
    alloc_fault("win_lock_all", victim, true), ++cases;
  }
  register_cases(last, multi_node), cases += 3;
  team_fault("comm_create", last), ++cases;
  team_fault("comm_split", last), ++cases;
  lock_fault("comm_dup", last), ++cases;
  // Unit 0 fails before the shared window: it still passes the others' info (under MPICH
  // a different info on the node leader made the others' lock words a SIGBUS).
  lock_fault("comm_dup", 0), ++cases;
  lock_fault("win_shared_query", last), ++cases;
  memalloc_fault(last), ++cases;
  one_unit_bad_arguments(last), ++cases;
  if (g_rank == 0) std::printf("prog_faults: %d fault cases\n", cases);
  int rc = prog::finish("prog_faults");
  MPI_Finalize();
  return rc;
}
