// SPDX-License-Identifier: BSD-3-Clause
// dart_init / dart_exit, unit ids, node locality, configuration queries.
#include "internal.h"

#include <cstring>

#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace dart {
namespace detail {

Hot g_hot;

namespace {

// Node index of every global unit: MPI's shared-memory split, refined by
// DART_UNITS_PER_NODE (each run of k consecutive units is one node).
dart_ret_t compute_nodes(State *s, const char *fn) {
  MPI_Comm shm = MPI_COMM_NULL, node = MPI_COMM_NULL;
  DART_MPI(MPI_Comm_split_type(s->world, MPI_COMM_TYPE_SHARED, s->myid, MPI_INFO_NULL, &shm), fn);
  // More processes on this machine than cores we may run on: waits sleep (Backoff).
  int machine_procs = 1;
  if (int src = MPI_Comm_size(shm, &machine_procs); src != MPI_SUCCESS) {
    MPI_Comm_free(&shm);
    return mpi_fail(src, fn, "MPI_Comm_size");
  }
  const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  s->oversubscribed = s->cfg.wait == Config::Wait::Sleep ||
                      (s->cfg.wait == Config::Wait::Auto && machine_procs > ncpu);
  dart_ret_t rc = DART_OK;
  if (s->cfg.units_per_node > 0) {
    rc = mpi_check(MPI_Comm_split(shm, s->myid / s->cfg.units_per_node, s->myid, &node), fn,
                   "MPI_Comm_split");
  } else {
    node = shm;
  }
  int leader = s->myid;
  if (rc == DART_OK)
    rc = mpi_check(MPI_Allreduce(&s->myid, &leader, 1, MPI_INT, MPI_MIN, node), fn,
                   "MPI_Allreduce");
  std::vector<int> leaders(s->size);
  if (rc == DART_OK)
    rc = mpi_check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, s->world), fn,
                   "MPI_Allgather");
  if (node != shm && node != MPI_COMM_NULL) MPI_Comm_free(&node);
  if (shm != MPI_COMM_NULL) MPI_Comm_free(&shm);
  DART_TRY(rc);
  std::vector<int> distinct(leaders);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  s->nnodes = (int)distinct.size();
  s->node_of.resize(s->size);
  for (int u = 0; u < s->size; ++u)
    s->node_of[u] = (int)(std::lower_bound(distinct.begin(), distinct.end(), leaders[u]) -
                          distinct.begin());
  return DART_OK;
}

const char *thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
  }
}

void build_config_string(State *s) {
  const std::string &first = s->mpi.text;
  std::string progress = "off";
  if (s->progress != nullptr)
    progress = std::to_string(s->cfg.progress_per_node) +
               " process(es) per node (DART_PROGRESS_PER_NODE), non-blocking transfers of >= " +
               std::to_string(s->cfg.progress_threshold) + " bytes offloaded";
  char buf[1536];
  std::snprintf(
      buf, sizeof buf,
      "DART-MPI %s; MPI: %s; thread level: %s; units: %d; nodes: %d%s; "
      "windows: MPI_Win_allocate_shared per node + MPI_Win_create per team "
      "(only when a team spans nodes), one lock_all epoch each; memory model: %s; "
      "pool: %zu bytes per unit; waits: %s; progress: %s",
      dart_mpi_version(), first.c_str(), thread_level_name(s->thread_level), s->size, s->nnodes,
      s->cfg.units_per_node > 0
          ? (" (DART_UNITS_PER_NODE=" + std::to_string(s->cfg.units_per_node) + ")").c_str()
          : "",
      s->cfg.force_separate ? "separate (DART_TEST_WIN_SEPARATE)"
      : s->teams.get(DART_TEAM_ALL)->segment(DART_SEGMENT_LOCAL)->separate ? "separate"
                                                                           : "unified",
      s->cfg.pool_size, s->oversubscribed ? "sleep (more processes than cores)" : "yield",
      progress.c_str());
  s->config_string = buf;
}

// Quirk ompi-rdma-shared-file (quirks.h): one lock word per machine, in a shared window
// over MPI's shared-memory communicator (globmem.cc, create_window).
dart_ret_t machine_lock_init(State *s, const char *fn) {
  MPI_Comm shm = MPI_COMM_NULL;
  DART_MPI(MPI_Comm_split_type(s->world, MPI_COMM_TYPE_SHARED, s->myid, MPI_INFO_NULL, &shm), fn);
  int rank = 0;
  char *base = nullptr;
  int rc = MPI_Comm_rank(shm, &rank);
  if (rc == MPI_SUCCESS)
    rc = MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)sizeof(int64_t) : 0, 1, MPI_INFO_NULL, shm,
                                 &base, &s->machine_lock_win);
  if (rc == MPI_SUCCESS) {
    MPI_Aint sz = 0;
    int du = 0;
    int64_t *word = nullptr;
    rc = MPI_Win_shared_query(s->machine_lock_win, 0, &sz, &du, &word);
    if (rc == MPI_SUCCESS && rank == 0) __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    if (rc == MPI_SUCCESS) rc = MPI_Barrier(shm);
    s->machine_lock = word;
  }
  MPI_Comm_free(&shm);
  return mpi_check(rc, fn, "the machine lock of quirk ompi-rdma-shared-file");
}

// Frees everything; every step runs, the first failure is returned.
dart_ret_t teardown(State *s, const char *fn) {
  dart_ret_t rc = DART_OK;
  auto keep_first = [&](dart_ret_t r) {
    if (rc == DART_OK) rc = r;
  };
  locks_finalize();
  allocators_finalize();
  // Teams in descending id order: a global order, so collective frees cannot deadlock.
  s->teams.for_each_desc([&](size_t, Team *t) { keep_first(destroy_team(t, fn)); });
  if (s->machine_lock_win != MPI_WIN_NULL) {
    s->machine_lock = nullptr;
    keep_first(mpi_check(MPI_Win_free(&s->machine_lock_win), fn, "MPI_Win_free"));
  }
  keep_first(progress_stop(s, fn));  // after the teams: their frees involve the progress processes
  if (s->p2p != MPI_COMM_NULL) keep_first(mpi_check(MPI_Comm_free(&s->p2p), fn, "MPI_Comm_free"));
  if (s->world != MPI_COMM_NULL)
    keep_first(mpi_check(MPI_Comm_free(&s->world), fn, "MPI_Comm_free"));
  if (s->world_group != MPI_GROUP_NULL)
    keep_first(mpi_check(MPI_Group_free(&s->world_group), fn, "MPI_Group_free"));
  for (MPI_Info &info : s->shm_info)
    if (info != MPI_INFO_NULL) keep_first(mpi_check(MPI_Info_free(&info), fn, "MPI_Info_free"));
  layouts_finalize();
  types_finalize();
  handles_finalize();
  return rc;
}

dart_ret_t do_init(int *argc, char ***argv, int requested, const char *fn) {
  if (g != nullptr) return fail(DART_ERR_INVAL, fn, "DART is already initialized");
  std::unique_ptr<State> s(new State());
  DART_TRY(read_config(&s->cfg, fn));

  int initialized = 0, finalized = 0;
  DART_MPI(MPI_Initialized(&initialized), fn);
  DART_MPI(MPI_Finalized(&finalized), fn);
  if (finalized)
    return fail(DART_ERR_OTHER, fn,
                "MPI is already finalized (a previous dart_exit finalized the MPI it had "
                "started); to cycle dart_init/dart_exit, initialize MPI before the first "
                "dart_init");
  if (!initialized) {
#ifdef OMPI_MAJOR_VERSION
    // Registrations are attached to a dynamic window per team (globmem.cc); Open MPI's osc
    // rdma takes 64 attachments per window by default and refuses more. Raised unless the
    // user chose (the variable is read at MPI_Init; docs/mpi-notes.md).
    setenv("OMPI_MCA_osc_rdma_max_attach", "1024", 0);
#endif
    int provided = MPI_THREAD_SINGLE;
    int rc = MPI_Init_thread(argc, argv, requested, &provided);
    if (rc != MPI_SUCCESS) return mpi_fail(rc, fn, "MPI_Init_thread");
    s->mpi_started_by_dart = true;
    s->thread_level = provided;
  } else if (int qrc = MPI_Query_thread(&s->thread_level); qrc != MPI_SUCCESS) {
    return mpi_fail(qrc, fn, "MPI_Query_thread");
  }

  dart_ret_t rc = DART_OK;
  auto step = [&](dart_ret_t r) {
    if (rc == DART_OK) rc = r;
  };
  if (s->cfg.progress_per_node > 0) {
    // Progress processes never come back from here; units get their own world.
    step(progress_start(s.get(), fn));
    if (rc != DART_OK) {
      if (s->mpi_started_by_dart) MPI_Finalize();
      return rc;
    }
  } else {
    step(mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &s->world), fn, "MPI_Comm_dup"));
  }
  if (rc == DART_OK)
    step(mpi_check(MPI_Comm_set_errhandler(s->world, MPI_ERRORS_RETURN), fn,
                   "MPI_Comm_set_errhandler"));
  for (int contiguous = 0; contiguous < 2 && rc == DART_OK; ++contiguous) {
    MPI_Info &info = s->shm_info[contiguous];
    step(mpi_check(MPI_Info_create(&info), fn, "MPI_Info_create"));
    if (rc == DART_OK)
      step(mpi_check(MPI_Info_set(info, "alloc_shared_noncontig", contiguous ? "false" : "true"),
                     fn, "MPI_Info_set"));
  }
  if (rc == DART_OK) step(mpi_check(MPI_Comm_dup(s->world, &s->p2p), fn, "MPI_Comm_dup"));
  if (rc == DART_OK)
    step(mpi_check(MPI_Comm_set_errhandler(s->p2p, MPI_ERRORS_RETURN), fn,
                   "MPI_Comm_set_errhandler"));
  if (rc == DART_OK) step(mpi_check(MPI_Comm_rank(s->world, &s->myid), fn, "MPI_Comm_rank"));
  if (rc == DART_OK) step(mpi_check(MPI_Comm_size(s->world, &s->size), fn, "MPI_Comm_size"));
  if (rc == DART_OK)
    step(mpi_check(MPI_Comm_group(s->world, &s->world_group), fn, "MPI_Comm_group"));
  if (rc == DART_OK) {
    s->mpi = detect_mpi_library();
    s->quirks = quirks_for(s->mpi);
    if (s->thread_level != MPI_THREAD_MULTIPLE)  // a thread race of MPI's local flushes
      s->quirks &= ~(1u << (unsigned)Quirk::MpichFlushLocalThreads);
    s->quirks_string = quirks_describe(s->quirks);
    if (s->progress == nullptr) step(compute_nodes(s.get(), fn));
  }
  if (rc == DART_OK) step(locality_exchange(s.get(), fn));
  if (rc == DART_OK && (s->quirks >> (unsigned)Quirk::OmpiRdmaSharedFile) & 1u)
    step(machine_lock_init(s.get(), fn));
  MPI_Comm all = MPI_COMM_NULL;
  if (rc == DART_OK) step(mpi_check(MPI_Comm_dup(s->world, &all), fn, "MPI_Comm_dup"));
  if (rc == DART_OK) {
    g = s.get();  // make_team and the pool below use the global state
    // All-or-nothing like every team creation: the units agree before the pool.
    Agreement a;
    Team *t = make_team(DART_TEAM_ALL, all, &a, fn);
    step(a.agree(all, t, fn));
    if (rc == DART_OK) {
      register_team(t);
    } else {
      release_team(t, a);
      t = nullptr;
    }
    if (t != nullptr) {
      Segment *pool = nullptr;
      step(segment_alloc_shared(t, g->cfg.pool_size, DART_SEGMENT_LOCAL, &pool, fn));
      if (rc == DART_OK) g->pool.reset(g->cfg.pool_size);
    }
  }
  if (rc == DART_OK) step(types_init(fn));
  if (rc == DART_OK) step(mpi_check(MPI_Barrier(s->world), fn, "MPI_Barrier"));
  if (rc != DART_OK) {
    g = s.get();
    teardown(s.get(), fn);  // the init failure is what is reported
    g = nullptr;
    if (s->mpi_started_by_dart) MPI_Finalize();
    return rc;
  }
  build_config_string(s.get());
  s->fault_site = s->cfg.fault_site;  // the fault hook counts passes from here on
  g = s.release();
  return DART_OK;
}

// The launcher reads a process's stdout and stderr from a pipe (or a socket) and forwards
// them; MPI_Abort makes it kill the job, and what it had not read yet is lost. With
// MPICH's hydra the message a unit wrote just before dart_abort was missing in about one
// run in 50. So wait, at most about 1 s per stream, until the launcher has read all this
// process wrote: FIONREAD of a pipe counts unread bytes on either end, SIOCOUTQ of a
// socket the bytes its peer has not taken. A terminal or a file has nothing to wait for.
void wait_output_read() {
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat st;
    if (fstat(fd, &st) != 0) continue;
    unsigned long req = 0;
    if (S_ISFIFO(st.st_mode))
      req = FIONREAD;
    else if (S_ISSOCK(st.st_mode))
      req = SIOCOUTQ;
    else
      continue;
    for (int i = 0; i < 1000; ++i) {
      int pending = 0;
      if (ioctl(fd, req, &pending) != 0 || pending <= 0) break;
      usleep(1000);
    }
  }
}

}  // namespace
}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_init(int *argc, char ***argv) {
  return do_init(argc, argv, MPI_THREAD_SINGLE, "dart_init");
}

dart_ret_t dart_init_thread(int *argc, char ***argv, dart_thread_support_level_t *thread_safety) {
  if (thread_safety == nullptr)
    return fail(DART_ERR_INVAL, "dart_init_thread", "thread_safety is NULL");
  DART_TRY(do_init(argc, argv, MPI_THREAD_MULTIPLE, "dart_init_thread"));
  *thread_safety = g->thread_level == MPI_THREAD_MULTIPLE ? DART_THREAD_MULTIPLE
                                                          : DART_THREAD_SINGLE;
  return DART_OK;
}

dart_ret_t dart_exit(void) {
  const char *fn = "dart_exit";
  DART_TRY(check_init(fn));
  dart_ret_t rc = progress_drain(fn);
  if (dart_ret_t brc = mpi_check(MPI_Barrier(g->world), fn, "MPI_Barrier"); rc == DART_OK) rc = brc;
  State *s = g;
  dart_ret_t trc = teardown(s, fn);
  if (rc == DART_OK) rc = trc;
  g = nullptr;
  bool finalize = s->mpi_started_by_dart;
  delete s;
  if (finalize) {
    int frc = MPI_Finalize();
    if (rc == DART_OK && frc != MPI_SUCCESS)
      rc = fail(DART_ERR_OTHER, fn, "MPI_Finalize failed (MPI error code %d)", frc);
  }
  return rc;
}

bool dart_initialized(void) { return g != nullptr; }

void dart_abort(int errorcode) {
  std::fflush(stdout);
  std::fflush(stderr);
  wait_output_read();
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, errorcode);
  std::_Exit(errorcode);
}

dart_ret_t dart_myid(dart_global_unit_t *myid) {
  DART_TRY(check_init("dart_myid"));
  if (myid == nullptr) return fail(DART_ERR_INVAL, "dart_myid", "myid is NULL");
  myid->id = g->myid;
  return DART_OK;
}

dart_ret_t dart_size(size_t *size) {
  DART_TRY(check_init("dart_size"));
  if (size == nullptr) return fail(DART_ERR_INVAL, "dart_size", "size is NULL");
  *size = (size_t)g->size;
  return DART_OK;
}

// ---- extensions: locality and configuration ----

dart_ret_t dart_node_count(size_t *nnodes) {
  DART_TRY(check_init("dart_node_count"));
  if (nnodes == nullptr) return fail(DART_ERR_INVAL, "dart_node_count", "nnodes is NULL");
  *nnodes = (size_t)g->nnodes;
  return DART_OK;
}

dart_ret_t dart_unit_node(dart_global_unit_t unit, int32_t *node) {
  const char *fn = "dart_unit_node";
  DART_TRY(check_init(fn));
  if (node == nullptr) return fail(DART_ERR_INVAL, fn, "node is NULL");
  if (unit.id < 0 || unit.id >= g->size)
    return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d)", unit.id, g->size);
  *node = g->node_of[unit.id];
  return DART_OK;
}

dart_ret_t dart_progress_per_node(int32_t *k) {
  const char *fn = "dart_progress_per_node";
  DART_TRY(check_init(fn));
  if (k == nullptr) return fail(DART_ERR_INVAL, fn, "k is NULL");
  *k = g->progress != nullptr ? g->cfg.progress_per_node : 0;
  return DART_OK;
}

dart_ret_t dart_units_per_node_emulation(int32_t *k) {
  const char *fn = "dart_units_per_node_emulation";
  DART_TRY(check_init(fn));
  if (k == nullptr) return fail(DART_ERR_INVAL, fn, "k is NULL");
  *k = g->cfg.units_per_node;
  return DART_OK;
}

const char *dart_mpi_quirks(void) { return g != nullptr ? g->quirks_string.c_str() : ""; }

const char *dart_mpi_thread_level_name(int mpi_thread_level) {
  return thread_level_name(mpi_thread_level);
}

const char *dart_config_string(void) {
  return g != nullptr ? g->config_string.c_str() : "DART-MPI (not initialized)";
}

const char *dart_mpi_version(void) { return DARTMPI_VERSION_STR; }

}  // extern "C"
