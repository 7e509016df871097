// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: NumPy dtypes as DART types (from the X-macro lists of dart_tables.h), the
// constants exported to Python, NumPy layouts as DART datatypes (through the core's layout
// engine, dart_type_from_layout) and the datatype functions of the C API.
#include "core.h"

#include <dash/dart/if/dart_tables.h>

namespace dartpy {

SlotInfo g_slots[kMaxSlots];
py::object g_slot_dtype[kMaxSlots];

namespace {

using npy = py::detail::npy_api;

int g_nslots = 0;
int g_slot_of_typenum[64];

int type_num(py::handle dtype) { return py::detail::array_descriptor_proxy(dtype.ptr())->type_num; }

// Adds the NumPy dtype of type character `ch` moved as `mult` elements of `xfer`, or
// makes its type number an alias of an earlier slot of the same dtype (same kind and
// width on this platform, e.g. 'q' of 'l').
void add_slot(char ch, dart_datatype_t xfer, size_t mult, dart_datatype_t arith, bool minmax) {
  py::object d = py::module_::import("numpy").attr("dtype")(std::string(1, ch));
  int num = type_num(d);
  int s = 0;
  while (s < g_nslots && !g_slot_dtype[s].equal(d)) ++s;
  if (s == g_nslots) {
    if (g_nslots == kMaxSlots) throw std::logic_error("dartpy: too many dtype slots");
    g_slots[s] = SlotInfo{
        py::str(d.attr("name")), d.attr("itemsize").cast<size_t>(), xfer, mult, arith, minmax};
    g_slot_dtype[s] = d;
    ++g_nslots;
  }
  if (num >= 0 && num < 64 && g_slot_of_typenum[num] == S_NONE) g_slot_of_typenum[num] = s;
}

// ---- array layouts ---------------------------------------------------------------------

// The core's type for a layout. One it cannot describe is a ValueError naming the
// argument, with the core's reason (and, for an array, the way out); any other failure
// is a DartError.
dart_datatype_t from_layout(dart_datatype_t elem, const std::vector<size_t> &ext,
                            const std::vector<ptrdiff_t> &str, const char *fn, const char *arg,
                            bool array) {
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  size_t n = 0;
  dart_ret_t rc;
  {
    Locked l;  // may build a type (MPI calls)
    rc = dart_type_from_layout(elem, (int)ext.size(), ext.data(), str.data(), &t, &n);
  }
  if (rc == DART_OK) return t;
  if (rc != DART_ERR_INVAL) raise_dart(rc, fn);
  throw py::value_error(std::string(fn) + ": argument '" + arg + "': " + dart_error_detail() +
                        (array ? "; pass numpy.ascontiguousarray(...) instead" : ""));
}

}  // namespace

void init_slots() {
  for (int &v : g_slot_of_typenum) v = S_NONE;
  g_nslots = 0;
  // Every DART basic type, with its NumPy type character (dart_tables.h).
#define DARTPY_BASIC_SLOT(name, ctype, mpi, mpi_arith, is_int, npchar, fkind, ftype) \
  add_slot(npchar, DART_TYPE_##name, 1, DART_TYPE_##name, true);
  DART_BASIC_TYPE_LIST(DARTPY_BASIC_SLOT)
#undef DARTPY_BASIC_SLOT
  // NumPy dtypes that are no DART basic type, moved as one of the same width (without
  // arithmetic where DART has none for them; uint8 arithmetic is the signed byte's, so
  // MIN/MAX would compare wrongly).
  add_slot('?', DART_TYPE_BYTE, 1, DART_TYPE_UNDEFINED, false);         // bool
  add_slot('B', DART_TYPE_BYTE, 1, DART_TYPE_BYTE, false);              // uint8
  add_slot('H', DART_TYPE_SHORT, 1, DART_TYPE_UNDEFINED, false);        // uint16
  add_slot('e', DART_TYPE_SHORT, 1, DART_TYPE_UNDEFINED, false);        // float16
  add_slot('F', DART_TYPE_FLOAT, 2, DART_TYPE_UNDEFINED, false);        // complex64
  add_slot('D', DART_TYPE_DOUBLE, 2, DART_TYPE_UNDEFINED, false);       // complex128
  add_slot('G', DART_TYPE_LONG_DOUBLE, 2, DART_TYPE_UNDEFINED, false);  // clongdouble
}

int slot_of_typenum(int num) { return (num >= 0 && num < 64) ? g_slot_of_typenum[num] : S_NONE; }

std::string slot_name(int slot) { return slot >= 0 ? g_slots[slot].name : "untyped"; }

int slot_of_point(dart_datatype_t xfer, size_t mult) {
  for (int s = 0; s < g_nslots; ++s)
    if (g_slots[s].xfer == xfer && g_slots[s].mult == mult) return s;
  return S_NONE;
}

int slot_of_dtype(py::handle dtype_like, const char *fn, const char *arg) {
  py::object d;
  try {
    d = py::module_::import("numpy").attr("dtype")(dtype_like);
  } catch (py::error_already_set &) {
    throw py::type_error(std::string(fn) + ": argument '" + arg +
                         "' is not a NumPy dtype: " + std::string(py::repr(dtype_like)));
  }
  auto *p = py::detail::array_descriptor_proxy(d.ptr());
  int s = slot_of_typenum(p->type_num);
  if (s == S_NONE)
    throw py::type_error(std::string(fn) + ": argument '" + arg + "': dtype " +
                         std::string(py::str(d)) +
                         " is not supported (use a NumPy bool, "
                         "integer, floating or complex dtype)");
  if (p->byteorder == '>')
    throw py::type_error(std::string(fn) + ": argument '" + arg +
                         "': non-native byte order is not supported");
  return s;
}

dart_datatype_t arith_type(int slot, dart_operation_t op, const char *fn) {
  const SlotInfo &si = g_slots[slot];
  if (si.arith == DART_TYPE_UNDEFINED)
    throw py::type_error(std::string(fn) + ": dtype " + si.name +
                         " has no DART arithmetic type (use an integer or floating dtype)");
  if (!si.minmax && (op == DART_OP_MIN || op == DART_OP_MAX || op == DART_OP_MINMAX))
    throw py::type_error(std::string(fn) + ": MIN/MAX on " + si.name +
                         " is not supported "
                         "(DART's byte type is signed); use uint16 or wider");
  return si.arith;
}

// ---------------------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------------------

Buffer describe(py::handle obj, bool writable, bool contiguous_only, const char *fn,
                const char *arg) {
  Buffer b;
  auto &api = npy::get();
  if (api.PyArray_Check_(obj.ptr())) {
    b.obj = py::reinterpret_borrow<py::object>(obj);
  } else if (PyObject_CheckBuffer(obj.ptr()) && !PyUnicode_Check(obj.ptr())) {
    b.obj = py::module_::import("numpy").attr("asarray")(obj);  // zero-copy
  } else {
    throw py::type_error(std::string(fn) + ": argument '" + arg + "' must be a NumPy array, not " +
                         tname(obj));
  }
  auto *p = py::detail::array_proxy(b.obj.ptr());
  auto *d = py::detail::array_descriptor_proxy(p->descr);
  b.slot = slot_of_typenum(d->type_num);
  if (b.slot == S_NONE)
    throw py::type_error(std::string(fn) + ": argument '" + arg + "': dtype " +
                         std::string(py::str(b.obj.attr("dtype"))) + " is not supported");
  if (d->byteorder == '>')
    throw py::type_error(std::string(fn) + ": argument '" + arg +
                         "': non-native byte order is not supported");
  if (writable && !(p->flags & npy::NPY_ARRAY_WRITEABLE_))
    throw py::value_error(std::string(fn) + ": argument '" + arg + "' is read-only");
  size_t size = 1;
  for (int i = 0; i < p->nd; ++i) size *= (size_t)p->dimensions[i];
  const SlotInfo &si = g_slots[b.slot];
  b.ptr = p->data;
  b.size = size;
  b.nelem = size * si.mult;
  b.type = si.xfer;
  if (size <= 1 || (p->flags & npy::NPY_ARRAY_C_CONTIGUOUS_)) return b;
  if (contiguous_only)
    throw py::value_error(std::string(fn) + ": argument '" + arg +
                          "' must be C-contiguous (collectives move contiguous buffers)");
  // The core's layout engine takes dimension 0 as the fastest: NumPy's shape and strides
  // reversed, strides in DART elements; a complex element is an innermost dimension of 2.
  const py::ssize_t elem = (py::ssize_t)(si.itemsize / si.mult);
  std::vector<size_t> ext;
  std::vector<ptrdiff_t> str;
  if (si.mult > 1) {
    ext.push_back(si.mult);
    str.push_back(1);
  }
  for (int i = p->nd; i-- > 0;) {
    // NumPy allows byte strides; DART counts elements (a dimension of extent 1 is
    // dropped by the engine, whatever its stride)
    if (p->dimensions[i] > 1 && p->strides[i] % elem != 0)
      throw py::value_error(std::string(fn) + ": argument '" + arg +
                            "': strides are not a "
                            "multiple of the item size; pass numpy.ascontiguousarray(...) "
                            "instead");
    ext.push_back((size_t)p->dimensions[i]);
    str.push_back((ptrdiff_t)(p->strides[i] / elem));
  }
  b.type = from_layout(si.xfer, ext, str, fn, arg, true);
  b.contiguous = b.type == si.xfer;
  return b;
}

dart_datatype_t remote_type(int slot, size_t stride, size_t blocklen, size_t nelem,
                            const char *fn) {
  const SlotInfo &si = g_slots[slot];
  if (stride == 0) return si.xfer;
  if (blocklen == 0)
    throw py::value_error(std::string(fn) + ": argument 'remote_blocklen' must be >= 1");
  if ((nelem / si.mult) % blocklen != 0)
    throw py::value_error(std::string(fn) +
                          ": the array's size is not a multiple of "
                          "remote_blocklen");
  // Two dimensions: blocks of blocklen elements, stride elements apart.
  std::vector<size_t> ext{blocklen * si.mult, nelem / si.mult / blocklen};
  std::vector<ptrdiff_t> str{1, (ptrdiff_t)(stride * si.mult)};
  return from_layout(si.xfer, ext, str, fn, "remote_stride", false);
}

void layout_release(dart_datatype_t type) {
  if (type < DART_TYPE_LAST) return;
  Locked l;                        // may free an evicted type (MPI calls)
  dart_type_layout_release(type);  // cannot fail for its types
}

int match_slot(const Gptr &gp, const Buffer &b, const char *fn, const char *arg) {
  int s = gptr_slot(gp);
  if (s == S_NONE || s == b.slot) return b.slot;
  throw py::type_error(std::string(fn) + ": argument '" + arg + "' has dtype " + slot_name(b.slot) +
                       " but the global memory holds " + slot_name(s));
}

// ---------------------------------------------------------------------------------------
// registration: constants, datatypes
// ---------------------------------------------------------------------------------------

void bind_types(py::module_ &m) {
  init_slots();

  // Return codes, basic types and operations: the lists of dart_tables.h.
#define DARTPY_RETURN_CODE(name, value) m.attr(#name) = (int)DART_##name;
  DART_RETURN_CODE_LIST(DARTPY_RETURN_CODE)
#undef DARTPY_RETURN_CODE
  m.attr("TYPE_UNDEFINED") = (intptr_t)DART_TYPE_UNDEFINED;
#define DARTPY_TYPE_CONSTANT(name, ...) m.attr("TYPE_" #name) = (intptr_t)DART_TYPE_##name;
  DART_BASIC_TYPE_LIST(DARTPY_TYPE_CONSTANT)
#undef DARTPY_TYPE_CONSTANT
  m.attr("OP_UNDEFINED") = (intptr_t)DART_OP_UNDEFINED;
#define DARTPY_OP_CONSTANT(name, mpi, flags) m.attr("OP_" #name) = (intptr_t)DART_OP_##name;
  DART_OPERATION_LIST(DARTPY_OP_CONSTANT)
#undef DARTPY_OP_CONSTANT
  m.attr("UNDEFINED_UNIT_ID") = (int)DART_UNDEFINED_UNIT_ID;
  m.attr("SEGMENT_LOCAL") = (int)DART_SEGMENT_LOCAL;
  m.attr("THREAD_SINGLE") = (int)DART_THREAD_SINGLE;
  m.attr("THREAD_MULTIPLE") = (int)DART_THREAD_MULTIPLE;

  // ---- datatypes (mirror of the C API; transfers derive their types themselves) ----
  m.def(
      "type_create_strided",
      [](intptr_t base, size_t stride, size_t blocklen) {
        dart_datatype_t t = DART_TYPE_UNDEFINED;
        dart_ret_t rc;
        {
          Locked l;  // MPI calls (here and in the other type functions)
          rc = dart_type_create_strided(base, stride, blocklen, &t);
        }
        check(rc, "dart_type_create_strided");
        return (intptr_t)t;
      },
      py::arg("basetype"), py::arg("stride"), py::arg("blocklen"),
      R"doc(A DART strided type: blocks of ``blocklen`` elements every ``stride`` elements.

Parameters
----------
basetype : int
    A ``TYPE_*`` basic type.
stride : int
    Distance between block starts, in elements.
blocklen : int
    Elements per block (at most ``stride``).

Returns
-------
int
    The type id; free it with :func:`type_destroy`.
)doc");
  m.def(
      "type_create_indexed",
      [](intptr_t base, std::vector<size_t> bl, std::vector<size_t> off) {
        if (bl.size() != off.size())
          throw py::value_error(
              "dartpy.type_create_indexed: 'blocklen' and 'offset' differ in "
              "length");
        dart_datatype_t t = DART_TYPE_UNDEFINED;
        dart_ret_t rc;
        {
          Locked l;
          rc = dart_type_create_indexed(base, bl.size(), bl.data(), off.data(), &t);
        }
        check(rc, "dart_type_create_indexed");
        return (intptr_t)t;
      },
      py::arg("basetype"), py::arg("blocklen"), py::arg("offset"),
      R"doc(A DART indexed type: blocks of ``basetype`` at the given offsets.

Transfers derive their types from the NumPy arrays; this is for completeness with C.

Parameters
----------
basetype : int
    A ``TYPE_*`` basic type.
blocklen : sequence of int
    Elements of each block.
offset : sequence of int
    Offset (elements) of each block.

Returns
-------
int
    The type id; free it with :func:`type_destroy`.

Raises
------
DartError
    For sequences of different lengths or a type that is no basic type.
)doc");
  m.def(
      "type_create_custom",
      [](size_t nbytes) {
        dart_datatype_t t = DART_TYPE_UNDEFINED;
        dart_ret_t rc;
        {
          Locked l;
          rc = dart_type_create_custom(nbytes, &t);
        }
        check(rc, "dart_type_create_custom");
        return (intptr_t)t;
      },
      py::arg("num_bytes"),
      R"doc(A DART type of ``num_bytes`` opaque bytes (transfers only).

Parameters
----------
num_bytes : int

Returns
-------
int
    The type id; free it with :func:`type_destroy`.
)doc");
  m.def(
      "type_destroy",
      [](intptr_t t) {
        dart_datatype_t d = t;
        dart_ret_t rc;
        {
          Locked l;
          rc = dart_type_destroy(&d);
        }
        check(rc, "dart_type_destroy");
      },
      py::arg("dtype"),
      R"doc(Free a type made by one of the ``type_create_*`` functions.

Parameters
----------
dtype : int
    The type id.

Raises
------
DartError
    For a basic type or a type already freed.
)doc");

  // ---- for tests ----
  m.def(
      "_layout_type",
      [](py::handle a) -> py::tuple {
        Buffer b = describe(a, false, false, "dartpy._layout_type", "array");
        LayoutTypes hold;
        hold.local = b.type;
        return py::make_tuple(b.type < DART_TYPE_LAST ? "basic" : "derived", (intptr_t)b.type,
                              b.nelem);
      },
      py::arg("array"),
      "How a NumPy layout is described to DART (for tests): "
      "('basic'|'derived', DART type, DART elements).");
  m.def(
      "_type_cache_size",
      []() {
        size_t entries = 0, held = 0;
        check(dart_type_layout_cache_stats(&entries, &held), "dart_type_layout_cache_stats");
        return py::make_tuple(entries, held);
      },
      "The core's layout cache: (entries, held).");
}

}  // namespace dartpy
