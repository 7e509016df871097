// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the binding's one argument layer (args.h).
#include "args.h"

#include <climits>

namespace dartpy {
namespace args {

bool is_str(py::handle h) { return PyUnicode_Check(h.ptr()); }
bool is_int(py::handle h) {
  return PyLong_Check(h.ptr()) ? !PyBool_Check(h.ptr())
                               : PyIndex_Check(h.ptr()) && !PySequence_Check(h.ptr());
}
bool is_seq(py::handle h) { return PySequence_Check(h.ptr()) && !is_str(h) && !is_int(h); }

int64_t as_int(py::handle h, const char *fn, const std::string &what, int64_t lo, int64_t hi) {
  if (!is_int(h))
    throw py::type_error(std::string(fn) + ": " + what + " must be an int, not " + tname(h));
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow || v < lo || v > hi)
    throw py::value_error(std::string(fn) + ": " + what + " = " + std::string(py::str(i)) +
                          " is out of range");
  return v;
}

int32_t as_int32(py::handle h, const char *fn, const std::string &what) {
  return (int32_t)as_int(h, fn, what, INT32_MIN, INT32_MAX);
}

std::vector<py::object> as_list(py::handle h, const char *fn, const std::string &what,
                                const char *forms) {
  if (!is_seq(h))
    throw py::type_error(std::string(fn) + ": " + what + " must be " + forms + ", not " + tname(h));
  std::vector<py::object> out;
  for (auto item : py::reinterpret_borrow<py::sequence>(h))
    out.push_back(py::reinterpret_borrow<py::object>(item));
  return out;
}

std::vector<py::object> per_dim(py::handle h, const char *fn, int nd, const char *arg, bool scalar,
                                const char *forms) {
  if (scalar) return std::vector<py::object>((size_t)nd, py::reinterpret_borrow<py::object>(h));
  auto v = as_list(h, fn, std::string("argument '") + arg + "'", forms);
  if ((int)v.size() != nd)
    throw py::value_error(std::string(fn) + ": argument '" + arg + "' has " +
                          std::to_string(v.size()) + (v.size() == 1 ? " entry" : " entries") +
                          " but the array has " + std::to_string(nd) +
                          (nd == 1 ? " dimension" : " dimensions"));
  return v;
}

int keyword(py::handle h, const char *fn, const std::string &what, const char *const *names,
            int n) {
  if (!is_str(h))
    throw py::type_error(std::string(fn) + ": " + what + " must be a str, not " + tname(h));
  std::string s = h.cast<std::string>(), all;
  for (int i = 0; i < n; ++i) {
    if (s == names[i]) return i;
    all += std::string(i ? (i + 1 == n ? " or " : ", ") : "") + "'" + names[i] + "'";
  }
  throw py::value_error(std::string(fn) + ": " + what + " is '" + s + "', not " + all);
}

std::vector<int64_t> shape(py::handle h, const char *fn, int max_dims, int64_t min_extent) {
  std::vector<py::object> dims;
  if (is_int(h))
    dims.push_back(py::reinterpret_borrow<py::object>(h));
  else
    dims = as_list(h, fn, "argument 'shape'", "an int or a sequence of ints");
  if (max_dims > 0 && (dims.empty() || dims.size() > (size_t)max_dims))
    throw py::value_error(std::string(fn) + ": argument 'shape' has " +
                          std::to_string(dims.size()) + " dimensions; arrays have 1 to " +
                          std::to_string(max_dims));
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::string what = "argument 'shape[" + std::to_string(d) + "]'";
    out.push_back(as_int(dims[d], fn, what, INT64_MIN, INT64_MAX));
    if (out.back() < min_extent)
      throw py::value_error(std::string(fn) + ": " + what + " = " + std::to_string(out.back()) +
                            (min_extent == 0 ? " is negative" : " is out of range"));
  }
  return out;
}

void bind(py::module_ &m) {
  m.def(
      "_shape",
      [](py::handle h, const char *fn) {
        py::tuple t(0);
        auto v = shape(h, fn, 0, 0);
        t = py::tuple(v.size());
        for (size_t d = 0; d < v.size(); ++d) t[d] = py::int_(v[d]);
        return t;
      },
      py::arg("shape"), py::arg("fn"),
      "The shape parser of the binding (args.h) as a tuple: what dart.zeros and Allocation "
      "take.");
}

}  // namespace args
}  // namespace dartpy
