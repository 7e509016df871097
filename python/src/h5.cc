// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the HDF5 files of arrays (dart_h5.h), as the private functions under
// dartpy.h5 (python/dartpy/h5.py: File, its datasets and attributes). A file is passed
// as an int (the core's handle); the arrays come from array.cc's hooks (core.h).
#include "core.h"

#include <dash/dart/if/dart_h5.h>

#include <vector>

namespace dartpy {

namespace {

dart_h5_t file_of(uintptr_t h, const char *fn) {
  if (h == 0) raise_dart(DART_ERR_INVAL, fn, "the file is closed");
  return reinterpret_cast<dart_h5_t>(h);
}

// The DART type of a NumPy dtype that files hold as itself (not bool, uint8, uint16,
// float16: DART moves them as other types), with its components; TypeError otherwise.
std::pair<dart_datatype_t, int> file_type(py::handle dtype, const char *fn) {
  const int slot = slot_of_dtype(dtype, fn, "dtype");
  const SlotInfo &s = g_slots[slot];
  if (slot_of_point(s.xfer, s.mult) != slot || s.mult > 2)
    throw py::type_error(std::string(fn) + ": an HDF5 file of DART cannot hold " + slot_name(slot) +
                         " (DART moves it as " + slot_name(slot_of_point(s.xfer, s.mult)) + ")");
  return {s.xfer, (int)s.mult};
}

uintptr_t open(const std::string &path, const std::string &mode, py::handle team) {
  dart_h5_t f = DART_H5_NULL;
  const dart_team_t t = team_arg(team);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_h5_open(path.c_str(), mode.c_str(), t, &f);
  }
  check(rc, "dart_h5_open");
  return reinterpret_cast<uintptr_t>(f);
}

void close(uintptr_t h) {
  dart_h5_t f = file_of(h, "dart_h5_close");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_h5_close(&f);
  }
  check(rc, "dart_h5_close");
}

void write(uintptr_t h, const std::string &name, py::handle array, py::handle dims, bool append) {
  const char *fn = append ? "dart_array_append_h5" : "dart_array_write_h5";
  dart_h5_t f = file_of(h, fn);
  dart_array_t a = array_handle(array, fn);
  file_type(array.attr("dtype"), fn);
  std::vector<std::string> names;
  std::vector<const char *> ptrs;
  if (!dims.is_none()) {
    for (auto d : dims) names.push_back(py::str(d).cast<std::string>());
    for (auto &n : names) ptrs.push_back(n.c_str());
    dart_array_info_t in;
    check(dart_array_get_info(a, &in), "dart_array_get_info");
    const size_t want = (size_t)in.ndim + (append ? 1 : 0);
    if (names.size() != want)
      throw py::value_error(std::string(fn) + ": dims has " + std::to_string(names.size()) +
                            " names, the dataset " + std::to_string(want) + " dimensions");
  }
  const char *const *d = dims.is_none() ? nullptr : ptrs.data();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = append ? dart_array_append_h5_dims(f, name.c_str(), a, d)
                : dart_array_write_h5_dims(f, name.c_str(), a, d);
  }
  check(rc, fn);
}

py::object read(uintptr_t h, const std::string &name, py::handle step, py::handle dtype,
                py::handle team, py::handle halo, py::handle boundary, py::handle stencil,
                py::handle procs, py::handle blocks, py::handle exchange) {
  const bool stepped = !step.is_none();
  const char *fn = stepped ? "dart_array_read_h5_step" : "dart_array_read_h5";
  dart_h5_t f = file_of(h, fn);
  const int64_t k = stepped ? step.cast<int64_t>() : 0;
  Deferred none;
  return array_read(
      "from_h5", fn,
      [&](bool, const dart_array_spec_t *spec, dart_array_t *out) {
        return stepped ? dart_array_read_h5_step(f, name.c_str(), k, spec, out)
                       : dart_array_read_h5(f, name.c_str(), spec, out);
      },
      none, dtype, team, halo, boundary, stencil, procs, blocks, exchange);
}

// (shape, dtype) of a dataset.
py::tuple info(uintptr_t h, const std::string &name) {
  dart_h5_t f = file_of(h, "dart_h5_dataset_info");
  int32_t nd = 0, comps = 0;
  int64_t shape[DART_ARRAY_MAX_DIMS + 1] = {};
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_h5_dataset_info(f, name.c_str(), &nd, shape, &t, &comps);
  }
  check(rc, "dart_h5_dataset_info");
  py::tuple s(nd);
  for (int d = 0; d < nd; ++d) s[(size_t)d] = py::int_(shape[d]);
  return py::make_tuple(s, g_slot_dtype[slot_of_point(t, (size_t)comps)]);
}

void set_attr(uintptr_t h, const std::string &object, const std::string &key, py::handle value) {
  const char *fn = "dart_h5_set_attr";
  dart_h5_t f = file_of(h, fn);
  dart_ret_t rc;
  if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value)) {
    const std::string text = py::isinstance<py::str>(value) ? value.cast<std::string>()
                                                            : std::string(value.cast<py::bytes>());
    Nogil ng;
    rc = dart_h5_set_attr(f, object.c_str(), key.c_str(), DART_H5_STRING, 0, text.c_str());
  } else {
    py::array arr = py::module_::import("numpy").attr("ascontiguousarray")(value);
    if (arr.ndim() > 1 || arr.size() < 1)
      throw py::value_error(std::string(fn) + ": attribute '" + key +
                            "': a number, a 1-d sequence of numbers or a str, not an array "
                            "of shape " +
                            py::str(arr.attr("shape")).cast<std::string>());
    auto [t, comps] = file_type(arr.attr("dtype"), fn);
    if (comps != 1)
      throw py::type_error(std::string(fn) + ": attribute '" + key +
                           "': complex attributes are not supported");
    const void *p = arr.data();
    const int64_t n = (int64_t)arr.size();
    Nogil ng;
    rc = dart_h5_set_attr(f, object.c_str(), key.c_str(), t, n, p);
  }
  check(rc, fn);
}

// A str, a NumPy scalar (one value) or a 1-d array, as h5py returns them.
py::object get_attr(uintptr_t h, const std::string &object, const std::string &key) {
  const char *fn = "dart_h5_get_attr";
  dart_h5_t f = file_of(h, fn);
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  int64_t n = 0;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_h5_attr_info(f, object.c_str(), key.c_str(), &t, &n);
  }
  check(rc, "dart_h5_attr_info");
  if (t == DART_H5_STRING) {
    std::string text((size_t)n + 1, '\0');
    {
      Nogil ng;
      rc = dart_h5_get_attr(f, object.c_str(), key.c_str(), t, n + 1, &text[0], &n);
    }
    check(rc, fn);
    text.resize((size_t)n);
    return py::str(text);
  }
  const int slot = slot_of_point(t, 1);
  py::array out(py::dtype::from_args(g_slot_dtype[slot]), std::vector<py::ssize_t>{(py::ssize_t)n});
  void *p = out.mutable_data();
  {
    Nogil ng;
    rc = dart_h5_get_attr(f, object.c_str(), key.c_str(), t, n, p, &n);
  }
  check(rc, fn);
  if (n == 1) return out[py::int_(0)];
  return std::move(out);
}

py::list names(uintptr_t h) {
  dart_h5_t f = file_of(h, "dart_h5_list");
  std::vector<char> buf(1 << 16);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_h5_list(f, buf.data(), (int64_t)buf.size());
  }
  check(rc, "dart_h5_list");
  py::list out;
  std::string all(buf.data()), cur;
  size_t at = 0;
  while (!all.empty() && at <= all.size()) {
    const size_t nl = all.find('\n', at);
    out.append(py::str(all.substr(at, nl == std::string::npos ? std::string::npos : nl - at)));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

}  // namespace

void bind_h5(py::module_ &m) {
  m.def(
      "h5_available", [] { return dart_h5_available() != 0; },
      "True if this build has parallel HDF5 (dartpy.h5 works).");
  m.def("_h5_open", &open, py::arg("path"), py::arg("mode"), py::arg("team"));
  m.def("_h5_close", &close, py::arg("file"));
  m.def("_h5_write", &write, py::arg("file"), py::arg("name"), py::arg("array"), py::arg("dims"),
        py::arg("append"));
  m.def("_h5_read", &read, py::arg("file"), py::arg("name"), py::arg("step"), py::arg("dtype"),
        py::arg("team"), py::arg("halo"), py::arg("boundary"), py::arg("stencil"), py::arg("procs"),
        py::arg("blocks"), py::arg("exchange"));
  m.def("_h5_info", &info, py::arg("file"), py::arg("name"));
  m.def("_h5_set_attr", &set_attr, py::arg("file"), py::arg("object"), py::arg("key"),
        py::arg("value"));
  m.def("_h5_get_attr", &get_attr, py::arg("file"), py::arg("object"), py::arg("key"));
  m.def("_h5_names", &names, py::arg("file"));
}

}  // namespace dartpy
