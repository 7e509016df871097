// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: dartpy.Gptr (a DART global pointer with the element dtype of its
// allocation) and the dart_gptr_* functions.
#include "core.h"

namespace dartpy {

GptrFields fields(const dart_gptr_t &g) {
  GptrFields f;
  dart_gptr_fields(&g, &f.unit, &f.flags, &f.segid, &f.teamid, &f.offset);  // g is never NULL
  return f;
}

Gptr make_gptr(const dart_gptr_t &g, int slot) {
  Gptr r;
  r.g = g;
  r.slot = (int8_t)slot;
  return r;
}

namespace {

// A field value that does not fit DART's global pointer is an argument error: ValueError
// with the core's reason.
dart_gptr_t gptr_make(int32_t unit, int32_t flags, int16_t segid, int16_t teamid, uint64_t offset,
                      const char *fn) {
  dart_gptr_t g = DART_GPTR_NULL;
  if (dart_gptr_make(unit, flags, segid, teamid, offset, &g) != DART_OK)
    throw py::value_error(std::string(fn) + ": " + dart_error_detail());
  return g;
}

Gptr gptr_new(int32_t unit, int16_t segid, int16_t teamid, uint64_t offset, int32_t flags,
              py::handle dtype) {
  Gptr r;
  r.g = gptr_make(unit, flags, segid, teamid, offset, "dartpy.Gptr");
  r.slot = (int8_t)(dtype.is_none() ? S_NONE : slot_of_dtype(dtype, "dartpy.Gptr", "dtype"));
  return r;
}

Gptr gptr_setunit(const Gptr &g, int unit) {
  GptrFields f = fields(g.g);
  Gptr r = g;
  r.g = gptr_make(unit, f.flags, f.segid, f.teamid, f.offset, "dartpy.gptr_setunit");
  return r;
}

Gptr gptr_incaddr(const Gptr &g, int64_t offs) {
  Gptr r = g;
  check(dart_gptr_incaddr(&r.g, offs), "dart_gptr_incaddr");
  return r;
}

Gptr gptr_offset_elems(const Gptr &gp, py::ssize_t k) {
  if (gp.slot == S_NONE)
    throw py::type_error(
        "dartpy.Gptr: element arithmetic needs a typed gptr (this one has "
        "no dtype; use gptr.astype(dtype) or dart.gptr_incaddr for bytes)");
  return gptr_incaddr(gp, (int64_t)k * (int64_t)g_slots[gp.slot].itemsize);
}

py::tuple gptr_key(const Gptr &gp) {
  GptrFields f = fields(gp.g);
  return py::make_tuple(f.unit, f.segid, f.teamid, f.offset);
}

bool gptr_equal(const Gptr &a, const Gptr &b) {
  return gptr_key(a).equal(gptr_key(b)) && a.slot == b.slot;
}

std::string gptr_repr(const Gptr &gp) {
  GptrFields f = fields(gp.g);
  return "Gptr(unit=" + std::to_string(f.unit) + ", segid=" + std::to_string(f.segid) +
         ", teamid=" + std::to_string(f.teamid) + ", offset=" + std::to_string(f.offset) +
         ", flags=" + std::to_string(f.flags) +
         (gp.slot == S_NONE ? std::string(", dtype=None)")
                            : ", dtype=" + g_slots[gp.slot].name + ")");
}

}  // namespace

void bind_gptr(py::module_ &m) {
  py::class_<Gptr>(m, "Gptr", R"(A DART global pointer (value type).

Fields: unit (team-relative), segid, teamid, flags, offset (bytes) and the element
dtype of the allocation (None if untyped). ``g + k`` moves by k elements.)")
      .def(py::init(&gptr_new), py::arg("unit"), py::arg("segid"), py::arg("teamid"),
           py::arg("offset") = 0, py::arg("flags") = 0, py::arg("dtype") = py::none())
      .def_property_readonly("unit", [](const Gptr &g) { return fields(g.g).unit; })
      .def_property_readonly("unitid", [](const Gptr &g) { return fields(g.g).unit; })
      .def_property_readonly("segid", [](const Gptr &g) { return fields(g.g).segid; })
      .def_property_readonly("teamid", [](const Gptr &g) { return fields(g.g).teamid; })
      .def_property_readonly("flags", [](const Gptr &g) { return fields(g.g).flags; })
      .def_property_readonly("offset", [](const Gptr &g) { return fields(g.g).offset; })
      .def_property_readonly("dtype",
                             [](const Gptr &g) -> py::object {
                               return g.slot == S_NONE ? py::object(py::none())
                                                       : g_slot_dtype[g.slot];
                             })
      .def_property_readonly(
          "itemsize",
          [](const Gptr &g) -> size_t { return g.slot == S_NONE ? 1 : g_slots[g.slot].itemsize; })
      .def_property_readonly("is_null",
                             [](const Gptr &g) {
                               GptrFields f = fields(g.g);
                               return f.unit < 0 && f.segid == 0 && f.teamid == DART_TEAM_NULL &&
                                      f.offset == 0;
                             })
      .def("setunit", &gptr_setunit, py::arg("unit"),
           "Copy pointing to the same offset at another (team-relative) unit.")
      .def(
          "astype",
          [](const Gptr &g, py::handle dtype) {
            Gptr r = g;
            r.slot = (int8_t)(dtype.is_none() ? S_NONE
                                              : slot_of_dtype(dtype, "Gptr.astype", "dtype"));
            return r;
          },
          py::arg("dtype"), "Copy with another element dtype (None: untyped).")
      .def("__add__", [](const Gptr &g, py::ssize_t k) { return gptr_offset_elems(g, k); })
      .def("__radd__", [](const Gptr &g, py::ssize_t k) { return gptr_offset_elems(g, k); })
      .def("__sub__", [](const Gptr &g, py::ssize_t k) { return gptr_offset_elems(g, -k); })
      .def("__eq__",
           [](const Gptr &a, py::handle b) -> py::object {
             if (!py::isinstance<Gptr>(b))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(gptr_equal(a, b.cast<const Gptr &>()));
           })
      .def("__ne__",
           [](const Gptr &a, py::handle b) -> py::object {
             if (!py::isinstance<Gptr>(b))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(!gptr_equal(a, b.cast<const Gptr &>()));
           })
      .def("__hash__", [](const Gptr &g) { return py::hash(gptr_key(g)); })
      .def("__repr__", &gptr_repr)
      .def("__copy__", [](const Gptr &g) { return g; })
      .def("__deepcopy__", [](const Gptr &g, py::handle) { return g; })
      .def(py::pickle(
          [](const Gptr &g) {
            GptrFields f = fields(g.g);
            return py::make_tuple(f.unit, f.segid, f.teamid, f.offset, f.flags,
                                  g.slot == S_NONE ? py::object(py::none())
                                                   : py::object(py::str(g_slots[g.slot].name)));
          },
          [](py::tuple t) {
            if (t.size() != 6) throw py::value_error("Gptr: bad pickle state");
            return gptr_new(t[0].cast<int32_t>(), t[1].cast<int16_t>(), t[2].cast<int16_t>(),
                            t[3].cast<uint64_t>(), t[4].cast<int32_t>(), t[5]);
          }));
  m.attr("GPTR_NULL") = Gptr{};

  m.def(
      "gptr_getaddr",
      [](const Gptr &g) {
        void *a = nullptr;
        check(dart_gptr_getaddr(g.g, &a), "dart_gptr_getaddr");
        return (uintptr_t)a;
      },
      py::arg("gptr"), "Address of the calling unit's own memory behind gptr (an int).");
  m.def(
      "gptr_getaddr_node",
      [](const Gptr &g) {
        void *a = nullptr;
        check(dart_gptr_getaddr_node(g.g, &a), "dart_gptr_getaddr_node");
        return (uintptr_t)a;
      },
      py::arg("gptr"), "Load/store address (an int) of memory on this node.");
  m.def(
      "gptr_setaddr",
      [](const Gptr &g, uintptr_t addr) {
        Gptr r = g;
        check(dart_gptr_setaddr(&r.g, (void *)addr), "dart_gptr_setaddr");
        return r;
      },
      py::arg("gptr"), py::arg("addr"), "Copy of gptr pointing at the local address addr.");
  m.def("gptr_incaddr", &gptr_incaddr, py::arg("gptr"), py::arg("offs"),
        "Copy of gptr moved by offs BYTES.");
  m.def("gptr_setunit", &gptr_setunit, py::arg("gptr"), py::arg("unit"),
        R"doc(A copy of ``gptr`` that points to the same offset in ``unit``'s part.

A :class:`Gptr` is immutable, so the result is a new pointer; ``gptr.setunit(unit)`` is
the same.

Parameters
----------
gptr : Gptr
unit : int
    The unit id in ``gptr``'s team.

Returns
-------
Gptr

Examples
--------
>>> g = dart.team_memalloc_aligned(dart.TEAM_ALL, 8, np.float64)
>>> right = dart.gptr_setunit(g, (dart.myid() + 1) % dart.size())
)doc");
  m.def(
      "gptr_getflags",
      [](const Gptr &g) {
        uint16_t fl = 0;
        check(dart_gptr_getflags(g.g, &fl), "dart_gptr_getflags");
        return fl;
      },
      py::arg("gptr"),
      R"doc(The flags field of a global pointer.

Parameters
----------
gptr : Gptr

Returns
-------
int
    The 8 flag bits of the pointer (the low 8 bits of its segment's flags).
)doc");
  m.def(
      "gptr_setflags",
      [](const Gptr &g, uint16_t fl) {
        Gptr r = g;
        check(dart_gptr_setflags(&r.g, fl), "dart_gptr_setflags");
        return r;
      },
      py::arg("gptr"), py::arg("flags"),
      R"doc(A copy of ``gptr`` with its flags field set (a :class:`Gptr` is immutable).

Parameters
----------
gptr : Gptr
flags : int
    The new flags (8 bits).

Returns
-------
Gptr
)doc");
  m.def(
      "gptr_segment_size",
      [](const Gptr &g) {
        size_t n = 0;
        check(dart_gptr_segment_size(g.g, &n), "dart_gptr_segment_size");
        return n;
      },
      py::arg("gptr"), "Bytes the segment holds at gptr's unit.");
}

}  // namespace dartpy
