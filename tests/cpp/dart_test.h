/* SPDX-License-Identifier: BSD-3-Clause */
// dart_test.h -- helpers shared by the C++ tests of DART-MPI (GoogleTest under mpiexec).
//
// Rules for every test (STYLE.md, "Tests of an MPI program"):
//  - EXPECT_* (and the DART_EXPECT_* macros below) until after a test's last collective;
//    an ASSERT_* that returns early on one unit hangs the others.
//  - Parts that need more than one unit are skipped with a plain `if` that is the same on
//    every unit (never GTEST_SKIP on some units only).
//  - Collective checks that must agree across units use all_true().
#ifndef DART_TEST_H_INCLUDED
#define DART_TEST_H_INCLUDED

#include <gtest/gtest.h>
#include <mpi.h>

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace dtest {

// Global id of the calling unit (-1 if DART is not initialized).
inline int myid() {
  dart_global_unit_t u;
  if (dart_myid(&u) != DART_OK) return -1;
  return u.id;
}

// Number of units in DART_TEAM_ALL (0 if DART is not initialized).
inline int nunits() {
  size_t n = 0;
  if (dart_size(&n) != DART_OK) return 0;
  return static_cast<int>(n);
}

// Human-readable name of a return code: "DART_ERR_INVAL (2: invalid argument)".
inline std::string code_name(dart_ret_t rc) {
  const char *name = "unknown";
  switch (rc) {
    case DART_OK: name = "DART_OK"; break;
    case DART_PENDING: name = "DART_PENDING"; break;
    case DART_ERR_INVAL: name = "DART_ERR_INVAL"; break;
    case DART_ERR_NOTFOUND: name = "DART_ERR_NOTFOUND"; break;
    case DART_ERR_NOTINIT: name = "DART_ERR_NOTINIT"; break;
    case DART_ERR_NOMEM: name = "DART_ERR_NOMEM"; break;
    case DART_ERR_OTHER: name = "DART_ERR_OTHER"; break;
  }
  std::ostringstream os;
  os << name << " (" << static_cast<int>(rc) << ": " << dart_strerror(rc) << ")";
  return os.str();
}

// gtest predicate: `call_text` returned `actual`, `expected` was wanted. The failure
// message carries dart_strerror, dart_error_detail() and the unit id.
inline ::testing::AssertionResult code_is(const char *call_text, dart_ret_t expected,
                                          dart_ret_t actual) {
  if (actual == expected) return ::testing::AssertionSuccess();
  const char *detail = dart_error_detail();
  return ::testing::AssertionFailure()
         << "[unit " << myid() << "] " << call_text << "\n  returned " << code_name(actual)
         << "\n  expected " << code_name(expected) << "\n  dart_error_detail(): \""
         << (detail ? detail : "(NULL)") << "\"";
}

// All units of DART_TEAM_ALL (or of `team`, on its members) agree that `v` holds.
// Collective over the team: every member must call it.
inline bool all_true(bool v, dart_team_t team = DART_TEAM_ALL) {
  MPI_Comm comm;
  if (dart_team_comm(team, &comm) != DART_OK) return false;
  int in = v ? 1 : 0, out = 0;
  if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, comm) != MPI_SUCCESS) return false;
  return out != 0;
}

// Sum of an integer over DART_TEAM_ALL. Collective.
inline long long sum_all(long long v, dart_team_t team = DART_TEAM_ALL) {
  MPI_Comm comm;
  if (dart_team_comm(team, &comm) != DART_OK) return -1;
  long long out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return out;
}

// DART_UNITS_PER_NODE as the runtime sees it (0 = no node emulation).
inline int units_per_node() {
  int32_t k = 0;
  if (dart_units_per_node_emulation(&k) != DART_OK) return -1;
  return k;
}

// Whether this machine runs more MPI processes than it has cores (the CI's 3- and
// 4-unit jobs on 2 cores, and 2 units with progress processes). Loops that exist to repeat an
// operation many times run fewer rounds there: every round costs a context switch, and the property
// they check holds or breaks in the first rounds as well.
inline bool oversubscribed() {
  // By host name, not MPI_COMM_TYPE_SHARED: the fakehosts jobs tell MPI of two hosts.
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  const long long mine = (long long)std::hash<std::string>()(name);
  // The units' communicator: progress processes (DART_PROGRESS_PER_NODE) are in
  // MPI_COMM_WORLD but never run test code.
  MPI_Comm units = MPI_COMM_NULL;
  if (dart_team_comm(DART_TEAM_ALL, &units) != DART_OK) return false;
  int size = 0;
  MPI_Comm_size(units, &size);
  std::vector<long long> all(size);
  if (MPI_Allgather(&mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, units) != MPI_SUCCESS)
    return false;
  long procs = std::count(all.begin(), all.end(), mine);
  // Progress processes (DART_PROGRESS_PER_NODE=k, k per node of this host) poll all the
  // time: they load the cores as units do.
  int32_t k = 0;
  if (dart_progress_per_node(&k) == DART_OK && k > 0) {
    std::vector<int> nodes;
    for (int u = 0; u < size; ++u) {
      int32_t node = -1;
      if (all[u] == mine && dart_unit_node(DART_GLOBAL_UNIT_ID(u), &node) == DART_OK &&
          std::find(nodes.begin(), nodes.end(), node) == nodes.end())
        nodes.push_back(node);
    }
    procs += (long)k * (long)nodes.size();
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 && procs > (long)cores;
}

// Node index of a global unit (-1 on error).
inline int node_of(int unit) {
  int32_t node = -1;
  if (dart_unit_node(DART_GLOBAL_UNIT_ID(unit), &node) != DART_OK) return -1;
  return node;
}

// Collective over `parent`: build a team from the global unit ids in `members` (sorted
// or not). Members get the new team id, the other units DART_TEAM_NULL.
inline dart_team_t make_team(const std::vector<int> &members, dart_team_t parent = DART_TEAM_ALL) {
  dart_group_t grp = DART_GROUP_NULL;
  dart_team_t team = DART_TEAM_NULL;
  dart_group_create(&grp);
  for (int u : members) dart_group_addmember(grp, DART_GLOBAL_UNIT_ID(u));
  dart_ret_t rc = dart_team_create(parent, grp, &team);
  dart_group_destroy(&grp);
  return rc == DART_OK ? team : DART_TEAM_NULL;
}

// Collective over the team's members; no-op for DART_TEAM_NULL / DART_TEAM_ALL.
inline void drop_team(dart_team_t team) {
  if (team != DART_TEAM_NULL && team != DART_TEAM_ALL) dart_team_destroy(&team);
}

// A gptr with fields set directly (through the accessor, no bitfield code in tests).
inline dart_gptr_t gptr_of(int32_t unit, int16_t segid, int16_t teamid, uint64_t offset) {
  dart_gptr_t g = DART_GPTR_NULL;
  dart_gptr_make(unit, 0, segid, teamid, offset, &g);
  return g;
}

// Share a gptr made on unit `root` with every unit of DART_TEAM_ALL. Collective.
inline dart_gptr_t bcast_gptr(dart_gptr_t g, int root) {
  dart_bcast(&g, sizeof(g), DART_TYPE_BYTE, DART_TEAM_UNIT_ID(root), DART_TEAM_ALL);
  return g;
}

// All units' gptrs (index = global unit id). Collective.
inline std::vector<dart_gptr_t> allgather_gptr(dart_gptr_t g) {
  std::vector<dart_gptr_t> all(static_cast<size_t>(nunits()));
  dart_allgather(&g, all.data(), sizeof(g), DART_TYPE_BYTE, DART_TEAM_ALL);
  return all;
}

// Basic type -> DART datatype.
template <typename T>
struct dart_type_of;
#define DART_TEST_TYPE(T, D)                    \
  template <>                                   \
  struct dart_type_of<T> {                      \
    static constexpr dart_datatype_t value = D; \
  }
DART_TEST_TYPE(char, DART_TYPE_BYTE);
DART_TEST_TYPE(short, DART_TYPE_SHORT);
DART_TEST_TYPE(int, DART_TYPE_INT);
DART_TEST_TYPE(unsigned int, DART_TYPE_UINT);
DART_TEST_TYPE(long, DART_TYPE_LONG);
DART_TEST_TYPE(unsigned long, DART_TYPE_ULONG);
DART_TEST_TYPE(long long, DART_TYPE_LONGLONG);
DART_TEST_TYPE(unsigned long long, DART_TYPE_ULONGLONG);
DART_TEST_TYPE(float, DART_TYPE_FLOAT);
DART_TEST_TYPE(double, DART_TYPE_DOUBLE);
DART_TEST_TYPE(long double, DART_TYPE_LONG_DOUBLE);
#undef DART_TEST_TYPE

}  // namespace dtest

// EXPECT that a DART call returns DART_OK; on failure print strerror + detail + unit.
#define DART_EXPECT_OK(call) EXPECT_TRUE(::dtest::code_is(#call, DART_OK, (call)))
// EXPECT that a DART call returns `expected`.
#define DART_EXPECT_CODE(expected, call) EXPECT_TRUE(::dtest::code_is(#call, (expected), (call)))
// EXPECT a failure with `expected` AND a non-empty dart_error_detail().
#define DART_EXPECT_FAIL(expected, call)                                                  \
  do {                                                                                    \
    EXPECT_TRUE(::dtest::code_is(#call, (expected), (call)));                             \
    EXPECT_NE(std::string(), std::string(dart_error_detail() ? dart_error_detail() : "")) \
        << "no dart_error_detail() after " #call;                                         \
  } while (0)
// ASSERT variants: only after a test's last collective (or in tests without any).
#define DART_ASSERT_OK(call) ASSERT_TRUE(::dtest::code_is(#call, DART_OK, (call)))
#define DART_ASSERT_CODE(expected, call) ASSERT_TRUE(::dtest::code_is(#call, (expected), (call)))

// Function-style spelling for the same checks (usable inside helper lambdas).
namespace dtest {
inline bool expect_code(dart_ret_t expected, dart_ret_t actual, const char *what = "call") {
  auto r = code_is(what, expected, actual);
  EXPECT_TRUE(r);
  return static_cast<bool>(r);
}
inline bool expect_ok(dart_ret_t actual, const char *what = "call") {
  return expect_code(DART_OK, actual, what);
}
}  // namespace dtest

#endif  // DART_TEST_H_INCLUDED
