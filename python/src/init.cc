// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: dart.init / dart.exit (and MPI's initialization by dartpy), runtime
// queries and build facts.
#include "core.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace dartpy {

uint64_t g_generation = 0;

bool is_initialized() { return dart_initialized(); }

namespace {

bool g_mpi_started = false;  // this module called MPI_Init_thread
// dartpy's own duplicate of the units' communicator (DART_TEAM_ALL's; MPI_COMM_WORLD also
// holds any progress processes) for the exit check (exit_or_abort): its barrier can match
// no collective of DART or of the program.
MPI_Comm g_exit_comm = MPI_COMM_NULL;

// The MPI thread level of a name (the names are the core's: dart_mpi_thread_level_name).
int thread_level_from(py::handle h) {
  if (h.is_none()) return MPI_THREAD_SERIALIZED;
  std::string s = py::str(h);
  for (int level :
       {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE})
    if (s == dart_mpi_thread_level_name(level)) return level;
  throw py::value_error(
      "dartpy.init: argument 'thread_level' must be 'single', 'funneled', "
      "'serialized' or 'multiple', not '" +
      s + "'");
}

// Whether DART_PROGRESS_PER_NODE asks for progress processes (set, and not 0). Read here
// only because it decides, before dart_init, who starts MPI: dart_init refuses progress
// processes in an MPI started before it. The core reads and checks the value.
bool progress_requested() {
  const char *v = std::getenv("DART_PROGRESS_PER_NODE");
  return v && *v && std::strcmp(v, "0") != 0;
}

// Initializes MPI here when nobody did, so that dart.exit() never finalizes it and
// dart.init()/dart.exit() can cycle; MPI_Finalize runs at interpreter exit. With progress
// processes dart_init_thread starts MPI itself (MULTIPLE requested; DART refuses an MPI
// started before it), so dart.exit() finalizes MPI and init cannot cycle. Whether DART
// is already initialized or MPI already finalized is dart_init's to report.
int init_impl(bool thread_multiple, py::handle thread_level) {
  const char *fn = thread_multiple ? "dart_init_thread" : "dart_init";
  int requested = thread_multiple ? MPI_THREAD_MULTIPLE : thread_level_from(thread_level);
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  dart_ret_t rc = DART_OK;
  int mrc = MPI_SUCCESS;
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  {
    Nogil ng;
    const bool dart_starts_mpi = !inited && !finalized && progress_requested();
    if (!inited && !finalized && !dart_starts_mpi) {
      int provided = 0;
      mrc = MPI_Init_thread(nullptr, nullptr, requested, &provided);
      if (mrc == MPI_SUCCESS) g_mpi_started = true;
    }
    dart_thread_support_level_t started = DART_THREAD_SINGLE;
    if (mrc == MPI_SUCCESS)
      rc = thread_multiple   ? dart_init_thread(nullptr, nullptr, &level)
           : dart_starts_mpi ? dart_init_thread(nullptr, nullptr, &started)
                             : dart_init(nullptr, nullptr);
    MPI_Comm units = MPI_COMM_NULL;
    if (rc == DART_OK && mrc == MPI_SUCCESS && g_exit_comm == MPI_COMM_NULL &&
        dart_team_comm(DART_TEAM_ALL, &units) == DART_OK)
      MPI_Comm_dup(units, &g_exit_comm);  // collective over the units, like dart_init
  }
  if (mrc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    MPI_Error_string(mrc, text, &len);
    raise_dart(DART_ERR_OTHER, fn, (std::string("MPI_Init_thread failed: ") + text).c_str());
  }
  check(rc, fn);
  // Concurrent calls from several threads only where the runtime says it supports them.
  g_serialize = !(thread_multiple && level == DART_THREAD_MULTIPLE);
  ++g_generation;
  records_start_cycle();
  return (int)level;
}

void exit_impl(bool check_views) {
  if (check_views && dart_initialized()) {  // (not initialized: dart_exit reports it)
    long mine = live_views();
    if (mine > 0) {
      collect_garbage();
      mine = live_views();
    }
    long any = views_anywhere(DART_TEAM_ALL, mine, "dartpy.exit");
    if (any > 0) {
      throw py::buffer_error(
          "dartpy.exit: " +
          (mine > 0 ? std::to_string(mine) + " NumPy view(s) of global memory are still "
                                             "alive on this unit"
                    : std::string("NumPy views of global memory are still alive on "
                                  "another unit")) +
          "; delete them (del view) before dart.exit(), which frees all global memory");
    }
  }
  direct_cache_invalidate();
  dart_ret_t rc;
  {
    Nogil ng;
    if (g_exit_comm != MPI_COMM_NULL && dart_initialized()) MPI_Comm_free(&g_exit_comm);
    rc = dart_exit();
  }
  // Only now: non-blocking put/get to other nodes complete in dart_exit (its windows are
  // unlocked there), so their NumPy buffers must live until it returns.
  pending_clear_all();
  records_drop_all();
  check(rc, "dart_exit");
}

// At interpreter exit without dart.exit() (sys.exit(), an exception the hook did not
// end the job for, the end of the script): a collective dart_exit would hang if another
// unit is elsewhere (in a collective, or in dart.exit()). So the units first meet in a
// barrier of their own communicator, waited for at most `wait` seconds: if every unit
// arrives, they end DART together; otherwise this unit aborts the job (non-zero status).
void exit_or_abort(double wait) {
  int done = 0;
  if (g_exit_comm != MPI_COMM_NULL) {
    py::gil_scoped_release rel;
    MPI_Request req;
    if (MPI_Ibarrier(g_exit_comm, &req) == MPI_SUCCESS) {
      const double until = MPI_Wtime() + wait;
      while (!done && MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
             MPI_Wtime() < until) {
        struct timespec ts{0, 2000000};  // 2 ms: leave the core to the other units
        nanosleep(&ts, nullptr);
      }
    }
  }
  if (done) {
    exit_impl(false);
    return;
  }
  dart_global_unit_t me{-1};
  size_t n = 0;
  dart_myid(&me);
  dart_size(&n);
  py::module_ sys = py::module_::import("sys");
  sys.attr("stdout").attr("flush")();
  sys.attr("stderr").attr("write")(
      "dartpy: unit " + std::to_string(me.id) + " of " + std::to_string(n) +
      " is exiting without dart.exit() (sys.exit() or the end of the script) and the other "
      "units did not exit with it within " +
      std::to_string((int)wait) + " s: aborting all units (dart_abort)\n");
  sys.attr("stderr").attr("flush")();
  dart_abort(1);
}

void finalize_mpi() {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (g_mpi_started && inited && !finalized) {
    py::gil_scoped_release rel;
    MPI_Finalize();
  }
}

}  // namespace

void bind_init(py::module_ &m) {
  m.attr("VERSION") = DART_VERSION_STR;
  m.attr("__version__") = DARTPY_VERSION;

  m.def("_init", &init_impl, py::arg("thread_multiple"), py::arg("thread_level"));
  m.def("_exit", &exit_impl, py::arg("check_views") = true);
  m.def("_finalize_mpi", &finalize_mpi);
  m.def("_exit_or_abort", &exit_or_abort, py::arg("wait"));
  m.def("_mpi_started_here", []() { return g_mpi_started; });
  m.def("_live_views", []() { return live_views(); });
  m.def("_generation", []() { return g_generation; });
  m.def(
      "initialized", []() { return (bool)dart_initialized(); },
      "True between dartpy.init() and dartpy.exit().");
  m.def(
      "abort",
      [](int code) {
        py::module_::import("sys").attr("stdout").attr("flush")();
        py::module_::import("sys").attr("stderr").attr("flush")();
        dart_abort(code);
      },
      py::arg("errorcode") = 1, "Abort all units of the job (MPI_Abort) with errorcode.");
  m.def(
      "myid",
      []() {
        dart_global_unit_t u;
        check(dart_myid(&u), "dart_myid");
        return u.id;
      },
      "Global id (0-based) of the calling unit.");
  m.def(
      "size",
      []() {
        size_t n = 0;
        check(dart_size(&n), "dart_size");
        return n;
      },
      "Number of units in DART_TEAM_ALL.");
  m.def(
      "config_string", []() { return std::string(dart_config_string()); },
      R"doc(The runtime's configuration as one line of text.

Names the MPI, the window kinds, node emulation and progress settings in force; the
same text ``python -m dartpy --info`` prints. Needs no initialization.

Returns
-------
str
)doc");
  m.def(
      "mpi_quirks",
      []() {
        py::list out;
        std::string all = dart_mpi_quirks();
        for (size_t pos = 0; pos < all.size();) {
          size_t end = all.find('\n', pos);
          if (end == std::string::npos) end = all.size();
          if (end > pos) out.append(all.substr(pos, end - pos));
          pos = end + 1;
        }
        return out;
      },
      "The workarounds for defects of this MPI library that DART applies, one line each "
      "(dart_mpi_quirks; empty before init).");
  m.def(
      "mpi_version", []() { return std::string(dart_mpi_version()); },
      "Version of the DART-MPI library (dart_mpi_version).");
  m.def(
      "node_count",
      []() {
        size_t n = 0;
        check(dart_node_count(&n), "dart_node_count");
        return n;
      },
      R"doc(The number of nodes the job's units run on.

With node emulation (``DART_UNITS_PER_NODE``) an emulated node counts as a node.

Returns
-------
int
)doc");
  m.def(
      "unit_node",
      [](int unit) {
        int32_t node = -1;
        check(dart_unit_node(dart_global_unit_t{unit}, &node), "dart_unit_node");
        return node;
      },
      py::arg("unit"),
      R"doc(The node (0-based) that global unit ``unit`` runs on.

Parameters
----------
unit : int
    Global unit id.

Returns
-------
int
)doc");
  m.def(
      "units_per_node_emulation",
      []() {
        int32_t k = 0;
        check(dart_units_per_node_emulation(&k), "dart_units_per_node_emulation");
        return k;
      },
      R"doc(Units per emulated node (``DART_UNITS_PER_NODE``; 0: no emulation).

Node emulation splits one machine into nodes of this many units, so that the paths
between nodes run on one host (tests, benchmarks).

Returns
-------
int
)doc");
  m.def(
      "progress_per_node",
      []() {
        int32_t k = 0;
        check(dart_progress_per_node(&k), "dart_progress_per_node");
        return k;
      },
      R"doc(The number of progress processes per node (``DART_PROGRESS_PER_NODE``; 0: none).

Progress processes (ICPADS 2016) are MPI processes that are no units: they drive
transfers between nodes. See the user guide, "Progress processes".

Returns
-------
int
)doc");
  m.def(
      "mpi_info",
      []() {
        py::dict d;
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int len = 0;
        MPI_Get_library_version(lib, &len);
        int ver = 0, sub = 0;
        MPI_Get_version(&ver, &sub);
        d["library_version"] = std::string(lib, (size_t)std::max(len, 0));
        d["standard"] = std::to_string(ver) + "." + std::to_string(sub);
        int inited = 0, finalized = 0;
        MPI_Initialized(&inited);
        MPI_Finalized(&finalized);
        d["initialized"] = (bool)inited;
        d["finalized"] = (bool)finalized;
        if (inited && !finalized) {
          int level = 0;
          MPI_Query_thread(&level);
          d["thread_level"] = dart_mpi_thread_level_name(level);
        } else {
          d["thread_level"] = py::none();
        }
        d["started_by_dartpy"] = g_mpi_started;
        return d;
      },
      "MPI library version string, standard version and thread level.");
  m.def(
      "build_info",
      []() {
        py::dict d;
        d["mpi_flavor"] = DARTPY_MPI_FLAVOR;
        d["mpicc"] = DARTPY_MPICC;
        d["mpiexec"] = DARTPY_MPIEXEC;
        d["version"] = DARTPY_VERSION;
        d["dart_interface"] = DART_VERSION_STR;
        return d;
      },
      "How this extension was built: MPI flavor, MPI compiler wrapper and launcher.");
}

}  // namespace dartpy
