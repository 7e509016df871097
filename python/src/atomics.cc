// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: atomic operations on global memory (accumulate, fetch_and_op,
// compare_and_swap).
#include "core.h"

namespace dartpy {

namespace {

using npy = py::detail::npy_api;

// The slot of an atomic: dtype= if given, else the gptr's, else the value's.
int atomic_slot(const Gptr &gp, py::handle value, py::handle dtype, const char *fn) {
  if (!dtype.is_none()) return slot_of_dtype(dtype, fn, "dtype");
  int s = gptr_slot(gp);
  if (s != S_NONE) {
    // NumPy values (arrays and scalars) must match; Python numbers are converted.
    if (py::hasattr(value, "dtype")) {
      int vs = slot_of_dtype(value.attr("dtype"), fn, "value");
      if (vs != s)
        throw py::type_error(std::string(fn) + ": argument 'value' has dtype " + slot_name(vs) +
                             " but the global memory holds " + slot_name(s));
    }
    return s;
  }
  py::object arr = py::module_::import("numpy").attr("asarray")(value);
  auto *p = py::detail::array_proxy(arr.ptr());
  s = slot_of_typenum(py::detail::array_descriptor_proxy(p->descr)->type_num);
  if (s == S_NONE ||
      !(npy::get().PyArray_Check_(value.ptr()) || PyObject_HasAttrString(value.ptr(), "dtype")))
    throw py::type_error(std::string(fn) +
                         ": the gptr carries no dtype; pass dtype= or a "
                         "NumPy value");
  return s;
}

py::array contiguous_of(py::handle value, int slot) {
  return py::module_::import("numpy").attr("ascontiguousarray")(value, g_slot_dtype[slot]);
}

py::array scalar_result(int slot) {
  return py::array(py::dtype::from_args(g_slot_dtype[slot]), std::vector<py::ssize_t>{});
}

void accumulate(const Gptr &gp, py::handle values, py::handle op_h, py::handle dtype,
                bool blocking_local) {
  const char *fn = blocking_local ? "dart_accumulate_blocking_local" : "dart_accumulate";
  UserOp *user = nullptr;
  dart_operation_t op = op_arg(op_h, fn, &user);
  int slot = atomic_slot(gp, values, dtype, fn);
  dart_datatype_t t = arith_type(slot, op, fn);
  py::array v = contiguous_of(values, slot);
  size_t n = (size_t)v.size();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = blocking_local ? dart_accumulate_blocking_local(gp.g, v.data(), n, t, op)
                        : dart_accumulate(gp.g, v.data(), n, t, op);
  }
  check(rc, fn);
  if (!blocking_local) pending_add(gp.g, v);
}

py::object fetch_and_op(const Gptr &gp, py::handle value, py::handle op_h, py::handle dtype) {
  const char *fn = "dart_fetch_and_op";
  UserOp *user = nullptr;
  dart_operation_t op = op_arg(op_h, fn, &user);
  int slot = atomic_slot(gp, value, dtype, fn);
  dart_datatype_t t = arith_type(slot, op, fn);
  py::array v = contiguous_of(value, slot);
  if (v.size() != 1)
    throw py::value_error(std::string(fn) + ": argument 'value' must be a single element");
  py::array res = scalar_result(slot);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_fetch_and_op(gp.g, v.data(), res.mutable_data(), t, op);
  }
  check(rc, fn);
  return res[py::tuple()];
}

py::object compare_and_swap(const Gptr &gp, py::handle value, py::handle compare,
                            py::handle dtype) {
  const char *fn = "dart_compare_and_swap";
  int slot = atomic_slot(gp, value, dtype, fn);
  dart_datatype_t t = arith_type(slot, DART_OP_REPLACE, fn);
  py::array v = contiguous_of(value, slot);
  py::array c = contiguous_of(compare, slot);
  if (v.size() != 1 || c.size() != 1)
    throw py::value_error(std::string(fn) + ": 'value' and 'compare' must be single elements");
  py::array res = scalar_result(slot);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_compare_and_swap(gp.g, v.data(), c.data(), res.mutable_data(), t);
  }
  check(rc, fn);
  return res[py::tuple()];
}

}  // namespace

void bind_atomics(py::module_ &m) {
  m.def(
      "accumulate",
      [](const Gptr &g, py::handle v, py::handle op, py::handle dt) {
        accumulate(g, v, op, dt, false);
      },
      py::arg("gptr"), py::arg("values"), py::arg("op"), py::kw_only(),
      py::arg("dtype") = py::none(), "Atomic element-wise update; complete at dart.flush.");
  m.def(
      "accumulate_blocking_local",
      [](const Gptr &g, py::handle v, py::handle op, py::handle dt) {
        accumulate(g, v, op, dt, true);
      },
      py::arg("gptr"), py::arg("values"), py::arg("op"), py::kw_only(),
      py::arg("dtype") = py::none(),
      R"doc(Atomically combine ``values`` into the memory at ``gptr`` and wait for local completion.

Like :func:`accumulate` (element-wise, atomic per element), but on return ``values`` may be
reused; the result is visible at the target after a flush of ``gptr``.

Parameters
----------
gptr : Gptr
    Where to combine (on any unit).
values : array_like
    The operands, one per element.
op : Op or int
    An ``OP_*`` constant (``OP_SUM``, ``OP_MIN``, ``OP_BAND``, ...).
dtype : numpy.dtype, optional
    The element type, if ``gptr`` carries none.

Raises
------
TypeError
    For complex dtypes, or MIN/MAX on uint8 (DART's byte is signed).
DartError
    For memory out of the target unit's part, or a freed segment.
)doc");
  m.def("fetch_and_op", &fetch_and_op, py::arg("gptr"), py::arg("value"), py::arg("op"),
        py::kw_only(), py::arg("dtype") = py::none(),
        "Atomically apply op with value at gptr; returns the previous value.");
  m.def("compare_and_swap", &compare_and_swap, py::arg("gptr"), py::arg("value"),
        py::arg("compare"), py::kw_only(), py::arg("dtype") = py::none(),
        "Atomically store value at gptr if it equals compare; returns the previous value.");
}

}  // namespace dartpy
