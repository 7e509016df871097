// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the collective reductions of a dartpy.Array (dart_array_reduce, _norm,
// _dot), as NumPy scalars of NumPy's result dtype. dartpy/_array_numpy.py calls them for
// the dtypes whose DART type means the same numbers (it reduces bool, uint8, uint16 and
// float16 itself, by the same rules).
#include "array.h"

namespace dartpy {

namespace {

// NumPy's dtype of a sum of `dt` (int64 for signed integers, uint64 for unsigned ones,
// the dtype itself for floating and complex numbers), which is the core's result type.
py::dtype sum_dtype(const py::dtype &dt) {
  const char kind = dt.kind();
  if (kind == 'i') return py::dtype::of<int64_t>();
  if (kind == 'u') return py::dtype::of<uint64_t>();
  return dt;
}

// A one-element result buffer of dtype dt, and its value as a NumPy scalar.
py::array buffer(const py::dtype &dt) {
  return py::module_::import("numpy").attr("zeros")(1, dt).cast<py::array>();
}
py::object scalar(const py::array &r) { return r.attr("__getitem__")(0); }

dart_operation_t op_of(const std::string &name) {
  if (name == "sum") return DART_OP_SUM;
  if (name == "min") return DART_OP_MIN;
  if (name == "max") return DART_OP_MAX;
  throw py::value_error("dartpy._array_reduce: op must be 'sum', 'min' or 'max', not '" + name +
                        "'");
}

py::object reduce(const Array &a, const std::string &op_name) {
  const char *fn = "dart_array_reduce";
  a.need(fn);
  const dart_operation_t op = op_of(op_name);
  py::array r = buffer(op == DART_OP_SUM ? sum_dtype(a.dtype()) : a.dtype());
  void *out = r.mutable_data();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_reduce(a.a, op, out);
  }
  check(rc, fn);
  return scalar(r);
}

double norm(const Array &a, int kind) {
  const char *fn = "dart_array_norm";
  a.need(fn);
  double out = 0;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_norm(a.a, (dart_array_norm_t)kind, &out);
  }
  check(rc, fn);
  return out;
}

py::object dot(const Array &a, const Array &b) {
  const char *fn = "dart_array_dot";
  a.need(fn);
  b.need(fn);
  py::array r = buffer(sum_dtype(a.dtype()));
  void *out = r.mutable_data();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_dot(a.a, b.a, out);
  }
  check(rc, fn);
  return scalar(r);
}

}  // namespace

void bind_array_reduce(py::module_ &m) {
  m.attr("ARRAY_NORM_1") = (int)DART_ARRAY_NORM_1;
  m.attr("ARRAY_NORM_2") = (int)DART_ARRAY_NORM_2;
  m.attr("ARRAY_NORM_INF") = (int)DART_ARRAY_NORM_INF;
  m.def("_array_reduce", &reduce, py::arg("array"), py::arg("op"),
        "dart_array_reduce: 'sum', 'min' or 'max' of the interior (collective); use "
        "Array.sum(), .min(), .max().");
  m.def("_array_norm", &norm, py::arg("array"), py::arg("kind"),
        "dart_array_norm: kind ARRAY_NORM_1, _2 or _INF (collective); use dartpy.norm().");
  m.def("_array_dot", &dot, py::arg("a"), py::arg("b"),
        "dart_array_dot: sum(conj(a) * b) (collective); use dartpy.dot().");
}

}  // namespace dartpy
