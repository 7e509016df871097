// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: dartpy.Group (a local, sorted set of global unit ids) and the
// dart_group_* functions (the module functions are the methods under their C names).
#include "core.h"

namespace dartpy {

namespace {
// Its address is never a live group: the core answers "not a live group" for it.
char g_dead_group_tag;
}  // namespace

dart_group_t dead_group() { return reinterpret_cast<dart_group_t>(&g_dead_group_tag); }

bool Group::live() const {
  return g != DART_GROUP_NULL && generation == g_generation && is_initialized();
}

dart_group_t Group::get() const { return live() ? g : dead_group(); }

Group::~Group() {
  if (live()) {
    dart_ret_t rc = dart_group_destroy(&g);
    if (rc != DART_OK) {
      try {
        raise_dart(rc, "dart_group_destroy");
      } catch (py::error_already_set &e) {
        e.discard_as_unraisable("dartpy.Group.__del__");
      }
    }
  }
}

std::unique_ptr<Group> wrap_group(dart_group_t g) {
  auto r = std::make_unique<Group>();
  r->g = g;
  r->generation = g_generation;
  return r;
}

namespace {

std::unique_ptr<Group> group_create() {
  dart_group_t g = DART_GROUP_NULL;
  check(dart_group_create(&g), "dart_group_create");
  return wrap_group(g);
}

void group_destroy(Group &g) {
  // A group of an earlier cycle was freed by dart_exit; a destroyed one is the core's
  // to report.
  if (g.g != DART_GROUP_NULL && g.generation != g_generation) {
    g.g = DART_GROUP_NULL;
    return;
  }
  dart_group_t h = g.get();
  check(dart_group_destroy(&h), "dart_group_destroy");
  g.g = DART_GROUP_NULL;
}

std::unique_ptr<Group> group_clone(const Group &g) {
  dart_group_t out = DART_GROUP_NULL;
  check(dart_group_clone(g.get(), &out), "dart_group_clone");
  return wrap_group(out);
}

std::unique_ptr<Group> group_union(const Group &a, const Group &b) {
  dart_group_t out = DART_GROUP_NULL;
  check(dart_group_union(a.get(), b.get(), &out), "dart_group_union");
  return wrap_group(out);
}

std::unique_ptr<Group> group_intersect(const Group &a, const Group &b) {
  dart_group_t out = DART_GROUP_NULL;
  check(dart_group_intersect(a.get(), b.get(), &out), "dart_group_intersect");
  return wrap_group(out);
}

void group_addmember(Group &g, int u) {
  check(dart_group_addmember(g.get(), dart_global_unit_t{u}), "dart_group_addmember");
}

void group_delmember(Group &g, int u) {
  check(dart_group_delmember(g.get(), dart_global_unit_t{u}), "dart_group_delmember");
}

bool group_ismember(const Group &g, int u) {
  int32_t r = 0;
  check(dart_group_ismember(g.get(), dart_global_unit_t{u}, &r), "dart_group_ismember");
  return r != 0;
}

size_t group_size(const Group &g) {
  size_t n = 0;
  check(dart_group_size(g.get(), &n), "dart_group_size");
  return n;
}

std::vector<int> group_members(const Group &g) {
  size_t n = group_size(g);
  std::vector<dart_global_unit_t> u(n);
  if (n) check(dart_group_getmembers(g.get(), u.data()), "dart_group_getmembers");
  std::vector<int> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = u[i].id;
  return out;
}

py::list group_split(const Group &g, size_t n) {
  std::vector<dart_group_t> out(n, DART_GROUP_NULL);
  size_t nout = 0;
  // dart_group_split creates the groups it returns (entries past nout: NULL); n == 0 is
  // the core's to reject.
  dart_ret_t rc = dart_group_split(g.get(), n, &nout, n ? out.data() : nullptr);
  py::list res;
  for (size_t i = 0; rc == DART_OK && i < nout; ++i) res.append(py::cast(wrap_group(out[i])));
  check(rc, "dart_group_split");
  return res;
}

std::string group_repr(const Group &g) {
  if (!g.live()) return "<dartpy.Group (destroyed)>";
  std::string s = "<dartpy.Group [";
  auto mem = group_members(g);
  for (size_t i = 0; i < mem.size(); ++i) s += (i ? ", " : "") + std::to_string(mem[i]);
  return s + "]>";
}

}  // namespace

void bind_group(py::module_ &m) {
  py::class_<Group>(m, "Group", "A DART group: a sorted set of global unit ids (local object).")
      .def(py::init(&group_create))
      .def("addmember", &group_addmember, py::arg("unit"))
      .def("delmember", &group_delmember, py::arg("unit"))
      .def("ismember", &group_ismember, py::arg("unit"))
      .def("__contains__", &group_ismember)
      .def("size", &group_size)
      .def("__len__", &group_size)
      .def("getmembers", &group_members)
      .def_property_readonly("members", &group_members)
      .def("clone", &group_clone)
      .def("union", &group_union)
      .def("intersect", &group_intersect)
      .def("__or__", &group_union)
      .def("__and__", &group_intersect)
      .def("split", &group_split, py::arg("n"))
      .def("destroy", &group_destroy)
      .def("__repr__", &group_repr);
  m.def("group_create", &group_create,
        R"doc(A new, empty group (``Group()`` is the same).

Groups are local objects: sets of global unit ids from which :func:`team_create` makes
teams. They support ``|``, ``&``, ``in`` and ``len``.

Returns
-------
Group

Examples
--------
>>> g = dart.group_create()
>>> for u in range(0, dart.size(), 2):
...     dart.group_addmember(g, u)
)doc");
  m.def("group_destroy", &group_destroy, py::arg("group"),
        R"doc(Free ``group``; any later use of it raises :class:`DartError`.

Parameters
----------
group : Group
)doc");
  m.def("group_clone", &group_clone, py::arg("group"),
        R"doc(A new group with the members of ``group``.

Parameters
----------
group : Group

Returns
-------
Group
)doc");
  m.def("group_union", &group_union, py::arg("g1"), py::arg("g2"),
        R"doc(A new group with the units of ``g1`` and of ``g2`` (``g1 | g2``).

Parameters
----------
g1, g2 : Group

Returns
-------
Group
)doc");
  m.def("group_intersect", &group_intersect, py::arg("g1"), py::arg("g2"),
        R"doc(A new group with the units that are in both ``g1`` and ``g2`` (``g1 & g2``).

Parameters
----------
g1, g2 : Group

Returns
-------
Group
)doc");
  m.def("group_addmember", &group_addmember, py::arg("group"), py::arg("unit"),
        R"doc(Add the global unit ``unit`` to ``group`` (in place).

Parameters
----------
group : Group
unit : int
    Global unit id.

Raises
------
DartError
    For a unit id out of range or a destroyed group.
)doc");
  m.def("group_delmember", &group_delmember, py::arg("group"), py::arg("unit"),
        R"doc(Remove the global unit ``unit`` from ``group`` (in place).

Parameters
----------
group : Group
unit : int
    Global unit id.

Raises
------
DartError
    For a unit id out of range or a destroyed group.
)doc");
  m.def("group_ismember", &group_ismember, py::arg("group"), py::arg("unit"),
        R"doc(Whether the global unit ``unit`` is in ``group`` (``unit in group``).

Parameters
----------
group : Group
unit : int
    Global unit id.

Returns
-------
bool
)doc");
  m.def("group_size", &group_size, py::arg("group"),
        R"doc(The number of units in ``group`` (``len(group)``).

Parameters
----------
group : Group

Returns
-------
int
)doc");
  m.def("group_getmembers", &group_members, py::arg("group"),
        R"doc(The global unit ids of ``group``, ascending.

Parameters
----------
group : Group

Returns
-------
list of int
)doc");
  m.def("group_split", &group_split, py::arg("group"), py::arg("n"),
        R"doc(Split ``group`` into at most ``n`` nearly equal groups of consecutive members.

Parameters
----------
group : Group
n : int
    The number of parts wanted (positive).

Returns
-------
list of Group
    The parts, in member order; fewer than ``n`` if the group has fewer members.

Raises
------
DartError
    For ``n`` < 1 or a destroyed group.
)doc");
}

}  // namespace dartpy
