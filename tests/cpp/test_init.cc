// SPDX-License-Identifier: BSD-3-Clause
// Initialization state, unit ids, error strings, version, configuration and node
// locality (DART_UNITS_PER_NODE emulation).
#include "dart_test.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <set>

using namespace dtest;

TEST(Init, InitializedAndIds) {
  EXPECT_TRUE(dart_initialized());
  dart_global_unit_t me{-7};
  size_t n = 0;
  DART_EXPECT_OK(dart_myid(&me));
  DART_EXPECT_OK(dart_size(&n));
  // The units' communicator (MPI_COMM_WORLD also holds any progress processes).
  MPI_Comm all = MPI_COMM_NULL;
  DART_EXPECT_OK(dart_team_comm(DART_TEAM_ALL, &all));
  int rank = -1, size = -1;
  MPI_Comm_rank(all, &rank);
  MPI_Comm_size(all, &size);
  EXPECT_EQ(me.id, rank);
  EXPECT_EQ(n, static_cast<size_t>(size));
  EXPECT_GE(n, 1u);
  EXPECT_LE(n, 64u);
  // DART_TEAM_ALL agrees.
  dart_team_unit_t tme{-7};
  size_t tn = 0;
  DART_EXPECT_OK(dart_team_myid(DART_TEAM_ALL, &tme));
  DART_EXPECT_OK(dart_team_size(DART_TEAM_ALL, &tn));
  EXPECT_EQ(tme.id, me.id);
  EXPECT_EQ(tn, n);
}

TEST(Init, NullOutputs) {
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_myid(nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_size(nullptr));
}

TEST(Init, InitWhileInitialized) {
  int argc = 0;
  char **argv = nullptr;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_init(&argc, &argv));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_init(nullptr, nullptr));
  // The output is filled with a byte pattern that is no enumerator and compared byte by
  // byte: loading it as the enum would be undefined behaviour (UBSan reports it).
  union {
    dart_thread_support_level_t lvl;
    unsigned char bytes[sizeof(dart_thread_support_level_t)];
  } out, pattern;
  std::memset(pattern.bytes, 0xA5, sizeof pattern.bytes);
  out = pattern;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_init_thread(nullptr, nullptr, &out.lvl));
  EXPECT_EQ(std::memcmp(out.bytes, pattern.bytes, sizeof out.bytes), 0)
      << "output written on failure";
  // Still fully usable afterwards.
  EXPECT_TRUE(dart_initialized());
  DART_EXPECT_OK(dart_barrier(DART_TEAM_ALL));
}

TEST(Init, StrerrorEveryCode) {
  const dart_ret_t codes[] = {DART_OK,          DART_PENDING,   DART_ERR_INVAL, DART_ERR_NOTFOUND,
                              DART_ERR_NOTINIT, DART_ERR_NOMEM, DART_ERR_OTHER};
  std::set<std::string> seen;
  for (dart_ret_t c : codes) {
    const char *s = dart_strerror(c);
    ASSERT_NE(s, nullptr) << "code " << (int)c;
    EXPECT_GT(std::strlen(s), 0u) << "code " << (int)c;
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), sizeof(codes) / sizeof(codes[0])) << "two codes share a text";
  // Unknown codes still give a text.
  for (int c : {-1, 6, 42, 998, 1000, 123456}) {
    const char *s = dart_strerror(static_cast<dart_ret_t>(c));
    ASSERT_NE(s, nullptr) << "code " << c;
    EXPECT_GT(std::strlen(s), 0u) << "code " << c;
  }
}

TEST(Init, ErrorDetailAfterFailure) {
  size_t sz = 12345;
  EXPECT_EQ(dart_team_size(static_cast<dart_team_t>(-5), &sz), DART_ERR_INVAL);
  EXPECT_EQ(sz, 12345u);
  const char *d = dart_error_detail();
  ASSERT_NE(d, nullptr);
  EXPECT_GT(std::strlen(d), 0u);
  EXPECT_NE(std::string(d).find("dart_team_size"), std::string::npos)
      << "detail should name the function: " << d;
  // A second, different failure replaces the detail.
  EXPECT_EQ(dart_myid(nullptr), DART_ERR_INVAL);
  std::string d2 = dart_error_detail();
  EXPECT_NE(d2.find("dart_myid"), std::string::npos) << d2;
}

TEST(Init, Versions) {
  EXPECT_STREQ(DART_VERSION_STR, "3.2.0");
  const char *v = dart_mpi_version();
  ASSERT_NE(v, nullptr);
  EXPECT_STREQ(v, DARTMPI_VERSION_STR);
  // "major.minor.patch"
  int dots = 0;
  for (const char *p = v; *p; ++p) {
    if (*p == '.')
      ++dots;
    else
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(*p))) << v;
  }
  EXPECT_EQ(dots, 2) << v;
}

TEST(Init, ConfigString) {
  const char *c = dart_config_string();
  ASSERT_NE(c, nullptr);
  EXPECT_GT(std::strlen(c), 0u);
  EXPECT_EQ(std::strchr(c, '\n'), nullptr) << "one line expected: " << c;
}

TEST(Init, UnitsPerNodeEmulation) {
  int32_t k = -1;
  DART_EXPECT_OK(dart_units_per_node_emulation(&k));
  const char *env = std::getenv("DART_UNITS_PER_NODE");
  if (env && *env)
    EXPECT_EQ(k, std::atoi(env));
  else
    EXPECT_EQ(k, 0);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_units_per_node_emulation(nullptr));
}

TEST(Init, NodeLocality) {
  const int n = nunits();
  const int k = units_per_node();
  size_t nnodes = 0;
  DART_EXPECT_OK(dart_node_count(&nnodes));
  EXPECT_GE(nnodes, 1u);
  EXPECT_LE(nnodes, static_cast<size_t>(n));

  std::vector<int> node(n, -1);
  for (int u = 0; u < n; ++u) {
    int32_t nd = -99;
    DART_EXPECT_OK(dart_unit_node(DART_GLOBAL_UNIT_ID(u), &nd));
    node[u] = nd;
    EXPECT_GE(nd, 0);
    EXPECT_LT(nd, static_cast<int32_t>(nnodes));
  }
  // Nodes are numbered by their lowest unit: first appearances are 0, 1, 2, ...
  int next = 0;
  for (int u = 0; u < n; ++u) {
    if (node[u] == next)
      ++next;
    else
      EXPECT_LT(node[u], next) << "unit " << u << " on node " << node[u];
  }
  EXPECT_EQ(static_cast<size_t>(next), nnodes);

  // The real node structure, from MPI: leader (lowest world rank) of my shared comm.
  MPI_Comm all = MPI_COMM_NULL, shm;
  DART_EXPECT_OK(dart_team_comm(DART_TEAM_ALL, &all));
  MPI_Comm_split_type(all, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
  int leader = myid();
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shm);
  MPI_Comm_free(&shm);
  std::vector<int> leaders(n);
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, all);

  if (k > 0) {
    // Emulation: u and v share a node iff u/k == v/k (all ranks are on one real host
    // in these runs, so the real split does not cut finer).
    bool one_host = true;
    for (int u = 0; u < n; ++u) one_host = one_host && leaders[u] == leaders[0];
    if (one_host) {
      EXPECT_EQ(nnodes, static_cast<size_t>((n + k - 1) / k));
    }
    for (int u = 0; u < n; ++u)
      for (int v = 0; v < n; ++v) {
        bool same_real = leaders[u] == leaders[v];
        EXPECT_EQ(node[u] == node[v], same_real && (u / k == v / k))
            << "units " << u << "," << v << " k=" << k;
      }
  } else {
    for (int u = 0; u < n; ++u)
      for (int v = 0; v < n; ++v)
        EXPECT_EQ(node[u] == node[v], leaders[u] == leaders[v]) << "units " << u << "," << v;
  }

  // Bad inputs: outputs untouched.
  int32_t nd = -42;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_unit_node(DART_GLOBAL_UNIT_ID(n), &nd));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_unit_node(DART_GLOBAL_UNIT_ID(-1), &nd));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_unit_node(DART_GLOBAL_UNIT_ID(-1000), &nd));
  EXPECT_EQ(nd, -42);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_unit_node(DART_GLOBAL_UNIT_ID(0), nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_node_count(nullptr));
}

TEST(Init, ThreadLevelQueriedFromMpi) {
  int provided = -1;
  MPI_Query_thread(&provided);
  EXPECT_GE(provided, MPI_THREAD_SINGLE);
  int flag = 0;
  MPI_Initialized(&flag);
  EXPECT_TRUE(flag);
}

// The MPI quirks in force follow the library's own version string: the Open MPI osc/rdma
// workarounds apply to Open MPI before 5.0 only, the generic ones everywhere.
TEST(Init, ThreadLevelNames) {
  EXPECT_STREQ(dart_mpi_thread_level_name(MPI_THREAD_SINGLE), "single");
  EXPECT_STREQ(dart_mpi_thread_level_name(MPI_THREAD_FUNNELED), "funneled");
  EXPECT_STREQ(dart_mpi_thread_level_name(MPI_THREAD_SERIALIZED), "serialized");
  EXPECT_STREQ(dart_mpi_thread_level_name(MPI_THREAD_MULTIPLE), "multiple");
  EXPECT_STREQ(dart_mpi_thread_level_name(-12345), "unknown");
}

TEST(Init, MpiQuirksFollowTheLibraryVersion) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(lib, &len);
  int major = 0;
  const bool ompi = std::sscanf(lib, "Open MPI v%d", &major) == 1;
  const std::string quirks = dart_mpi_quirks();
  const bool rdma_quirks = ompi && major < 5;
  EXPECT_EQ(quirks.find("ompi-rdma-cas64-self (Open MPI < 5.0.0)") != std::string::npos,
            rdma_quirks)
      << quirks;
  EXPECT_EQ(quirks.find("ompi-rdma-logical-ops") != std::string::npos, rdma_quirks) << quirks;
  EXPECT_EQ(quirks.find("ompi-rdma-shared-file (Open MPI < 5.0.0)") != std::string::npos,
            rdma_quirks)
      << quirks;
  EXPECT_NE(quirks.find("shared-part-alignment (every MPI)"), std::string::npos) << quirks;
  EXPECT_NE(quirks.find("single-process-no-window (every MPI)"), std::string::npos) << quirks;
  // The thread race of MPICH's local flushes matters only with threads.
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  const bool mpich = std::strncmp(lib, "MPICH", 5) == 0;
  EXPECT_EQ(quirks.find("mpich-flush-local-threads (MPICH >= 4.0.0)") != std::string::npos,
            mpich && level == MPI_THREAD_MULTIPLE)
      << quirks;
}
