// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: dartpy.Team (a team id with methods), the dart_team_* functions (the
// methods are the same functions) and the mpi4py communicator bridge.
#include "core.h"

#include <type_traits>

namespace dartpy {

namespace {

// MPI handles as Python ints, the way mpi4py's Comm.fromhandle()/.handle spell them:
// Open MPI's are pointers, MPICH's 32-bit integers.
template <typename C>
C comm_from_bits(unsigned long long v) {
  if constexpr (std::is_pointer<C>::value) {
    return reinterpret_cast<C>((uintptr_t)v);
  } else {
    return (C)(int)(unsigned)(v & 0xffffffffULL);
  }
}

template <typename C>
unsigned long long comm_to_bits(C c) {
  if constexpr (std::is_pointer<C>::value) {
    return (unsigned long long)reinterpret_cast<uintptr_t>(c);
  } else {
    return (unsigned long long)(long long)(int)c;  // sign-extended, as mpi4py's .handle
  }
}

MPI_Comm comm_from_int(py::handle h) {
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  unsigned long long v = (unsigned long long)PyLong_AsUnsignedLongLongMask(i.ptr());
  return comm_from_bits<MPI_Comm>(v);
}

py::int_ comm_to_int(MPI_Comm c) { return py::int_(comm_to_bits<MPI_Comm>(c)); }

py::object comm_handle_of(py::handle comm) {
  if (PyIndex_Check(comm.ptr())) return py::reinterpret_borrow<py::object>(comm);
  if (py::hasattr(comm, "handle")) return comm.attr("handle");
  throw py::type_error(
      "argument 'comm' must be an mpi4py communicator or an int MPI handle, "
      "not " +
      tname(comm));
}

MPI_Comm team_comm_handle(py::handle t) {
  MPI_Comm c = MPI_COMM_NULL;
  check(dart_team_comm(team_arg(t), &c), "dart_team_comm");
  return c;
}

py::object team_comm(py::handle t) {
  MPI_Comm c = team_comm_handle(t);
  py::object mpi;
  try {
    mpi = py::module_::import("mpi4py.MPI");
  } catch (py::error_already_set &) {
    throw py::import_error(
        "dartpy: team.comm needs mpi4py (pip install mpi4py, built "
        "against the same MPI: MPICC=... pip install --no-binary=mpi4py "
        "mpi4py)");
  }
  return mpi.attr("Comm").attr("fromhandle")(comm_to_int(c));
}

// dart_team_create over parent with group g (DART_GROUP_NULL: not a member). A local
// argument error (in `local`) is passed on as a group the core rejects, so every unit of
// the parent fails in the same call (the core agrees on success) and nobody hangs; this
// unit then raises its own error, the others the core's.
Team create(dart_team_t parent, dart_group_t g, Deferred &local) {
  if (local) g = dead_group();
  dart_team_t nt = DART_TEAM_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_create(parent, g, &nt);
  }
  local.rethrow();
  check(rc, "dart_team_create");
  return Team{nt};
}

// dart_team_create_from_comm over parent: the team keeps comm's rank order. A local
// argument error (in `local`) makes this unit pass a NULL output, which the core refuses
// on every unit of the parent in the same call (nobody hangs); this unit then raises its
// own error, the others the core's.
Team team_from_comm(py::handle comm, py::handle parent_h) {
  dart_team_t parent = team_arg(parent_h);
  MPI_Comm c = MPI_COMM_NULL;
  Deferred local;
  local.run([&] {
    if (!comm.is_none()) c = comm_from_int(comm_handle_of(comm));
  });
  dart_team_t nt = DART_TEAM_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_create_from_comm(parent, local ? MPI_COMM_NULL : c, local ? nullptr : &nt);
  }
  local.rethrow();
  check(rc, "dart_team_create_from_comm");
  return Team{nt};
}

Team team_create(py::handle parent_h, py::handle group) {
  dart_team_t parent = team_arg(parent_h);
  dart_group_t g = DART_GROUP_NULL;
  Deferred local;
  local.run([&] {
    if (group.is_none()) return;
    if (!py::isinstance<Group>(group))
      throw py::type_error(
          "dart_team_create: argument 'group' must be a dartpy.Group or "
          "None, not " +
          tname(group));
    g = group.cast<const Group &>().get();
  });
  return create(parent, g, local);
}

void team_destroy(py::handle t) {
  dart_team_t id = team_arg(t);
  const dart_team_t destroyed = id;
  team_segments_check_views(id, "dart_team_destroy");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_destroy(&id);
  }
  direct_cache_invalidate();
  check(rc, "dart_team_destroy");
  team_segments_forget(destroyed);
}

Team team_clone(py::handle t) {
  dart_team_t id = team_arg(t), nt = DART_TEAM_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_clone(id, &nt);
  }
  check(rc, "dart_team_clone");
  return Team{nt};
}

size_t team_size(py::handle t) {
  size_t n = 0;
  check(dart_team_size(team_arg(t), &n), "dart_team_size");
  return n;
}

int team_myid(py::handle t) {
  dart_team_unit_t u;
  check(dart_team_myid(team_arg(t), &u), "dart_team_myid");
  return u.id;
}

int unit_l2g(py::handle t, int unit) {
  dart_global_unit_t g;
  check(dart_team_unit_l2g(team_arg(t), dart_team_unit_t{unit}, &g), "dart_team_unit_l2g");
  return g.id;
}

int unit_g2l(py::handle t, int unit) {
  dart_team_unit_t l;
  check(dart_team_unit_g2l(team_arg(t), dart_global_unit_t{unit}, &l), "dart_team_unit_g2l");
  return l.id;
}

std::unique_ptr<Group> team_get_group(py::handle t) {
  dart_group_t g = DART_GROUP_NULL;
  check(dart_team_get_group(team_arg(t), &g), "dart_team_get_group");
  return wrap_group(g);
}

}  // namespace

void bind_team(py::module_ &m) {
  py::class_<Team>(m, "Team", R"(A DART team (value type around the team id).

Usable wherever a team id is expected (it has __index__); TEAM_ALL is Team(0). Destroying
is explicit and collective: team_destroy(team), team.destroy() or a with block.)")
      .def(py::init([](int id) { return Team{(dart_team_t)id}; }), py::arg("id"))
      .def_property_readonly("id", [](const Team &t) { return (int)t.id; })
      .def("__index__", [](const Team &t) { return (int)t.id; })
      .def("__int__", [](const Team &t) { return (int)t.id; })
      .def("__bool__", [](const Team &t) { return t.id != DART_TEAM_NULL; })
      .def("__eq__",
           [](const Team &t, py::handle o) -> py::object {
             if (py::isinstance<Team>(o)) return py::bool_(o.cast<const Team &>().id == t.id);
             if (PyLong_Check(o.ptr())) return py::bool_(o.cast<long>() == t.id);
             return py::reinterpret_borrow<py::object>(Py_NotImplemented);
           })
      .def("__hash__", [](const Team &t) { return py::hash(py::int_((int)t.id)); })
      .def("__repr__",
           [](const Team &t) {
             if (t.id == DART_TEAM_ALL) return std::string("dartpy.TEAM_ALL");
             if (t.id == DART_TEAM_NULL) return std::string("dartpy.TEAM_NULL");
             return "dartpy.Team(" + std::to_string(t.id) + ")";
           })
      .def("__reduce__",
           [](const Team &t) {
             return py::make_tuple(py::module_::import("dartpy").attr("Team"),
                                   py::make_tuple((int)t.id));
           })
      .def_property_readonly("size", &team_size)
      .def_property_readonly("myid", &team_myid)
      .def_property_readonly("group", &team_get_group)
      .def_property_readonly("comm", &team_comm,
                             "The team's communicator as an mpi4py.MPI.Comm (owned by DART: "
                             "do not free it).")
      .def("unit_l2g", &unit_l2g, py::arg("unit"))
      .def("unit_g2l", &unit_g2l, py::arg("unit"))
      .def("clone", &team_clone)
      .def("destroy", &team_destroy)
      .def("barrier", &barrier)
      .def("__enter__", [](const Team &t) { return t; })
      .def("__exit__", [](py::handle t, py::handle exc_type, py::handle, py::handle) {
        // While an exception unwinds on this unit the others are elsewhere: a collective
        // destroy would hang them, so the team is left to dart.exit() and the exception
        // goes on (to the abort hook when several units run).
        dart_team_t id = team_arg(t);
        if (exc_type.is_none() && id != DART_TEAM_NULL && id != DART_TEAM_ALL) team_destroy(t);
        return false;
      });
  m.attr("TEAM_ALL") = Team{DART_TEAM_ALL};
  m.attr("TEAM_NULL") = Team{DART_TEAM_NULL};

  m.def("team_create", &team_create, py::arg("team"), py::arg("group"),
        "Collective over `team`: a new team of the group's units; TEAM_NULL on units "
        "outside the group (they may pass None).");
  m.def("team_destroy", &team_destroy, py::arg("team"),
        R"doc(Destroy ``team`` (collective over it).

Parameters
----------
team : Team or int
    Not ``TEAM_ALL``.

Raises
------
DartError
    For ``TEAM_ALL`` or a team that is not (or no longer) a team of this unit.
)doc");
  m.def("team_clone", &team_clone, py::arg("team"),
        R"doc(A new team with the units of ``team`` (collective over ``team``).

Parameters
----------
team : Team or int

Returns
-------
Team
    Destroy it with :func:`team_destroy` or use it in a ``with`` block.
)doc");
  m.def("team_myid", &team_myid, py::arg("team"),
        R"doc(This unit's id in ``team`` (0-based).

Parameters
----------
team : Team or int

Returns
-------
int
)doc");
  m.def("team_size", &team_size, py::arg("team"),
        R"doc(The number of units in ``team``.

Parameters
----------
team : Team or int

Returns
-------
int
)doc");
  m.def("team_get_group", &team_get_group, py::arg("team"),
        R"doc(A new group with the global unit ids of ``team``'s units.

Parameters
----------
team : Team or int

Returns
-------
Group
)doc");
  m.def("team_unit_l2g", &unit_l2g, py::arg("team"), py::arg("unit"),
        R"doc(The global unit id of ``team``'s unit ``unit``.

Parameters
----------
team : Team or int
unit : int
    Team unit id.

Returns
-------
int

Raises
------
DartError
    For a unit id out of ``[0, team_size(team))``.
)doc");
  m.def("team_unit_g2l", &unit_g2l, py::arg("team"), py::arg("unit"),
        R"doc(The team unit id of global unit ``unit``.

Parameters
----------
team : Team or int
unit : int
    Global unit id.

Returns
-------
int
    The id in ``team``.

Raises
------
DartError
    If ``unit`` is not in ``team``.
)doc");
  m.def("team_comm", &team_comm, py::arg("team"),
        "The team's MPI communicator as an mpi4py.MPI.Comm.");
  m.def(
      "_team_comm_handle", [](py::handle t) { return comm_to_int(team_comm_handle(t)); },
      py::arg("team"));
  m.def("team_from_comm", &team_from_comm, py::arg("comm"), py::arg("parent") = Team{DART_TEAM_ALL},
        "Collective over `parent`: a team of the processes of an mpi4py communicator, in "
        "the order of their ranks (team.myid == comm.Get_rank(), team.comm congruent with "
        "comm); units not in any such communicator pass None or COMM_NULL.");
}

}  // namespace dartpy
