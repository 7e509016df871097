// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: the one error path (DartError from a DART return code) and the mutex that
// serializes DART calls.
#include "core.h"

namespace dartpy {

py::object g_dart_error;
bool g_serialize = true;

std::mutex &core_mutex() {
  static std::mutex m;
  return m;
}

void raise_dart(dart_ret_t rc, const char *fn, const char *detail) {
  std::string d = detail ? detail : dart_error_detail();
  std::string msg = std::string(fn) + " failed: " + dart_strerror(rc) + " (code " +
                    std::to_string((int)rc) + ")";
  if (!d.empty()) msg += ": " + d;
  py::object e = g_dart_error(msg, (int)rc, d);
  PyErr_SetObject(g_dart_error.ptr(), e.ptr());
  throw py::error_already_set();
}

void raise_file_error(dart_ret_t rc, const char *fn, const std::string &path, const char *detail,
                      int errnum) {
  std::string d = detail ? detail : dart_error_detail();
  std::string msg = std::string(fn) + " failed: " + dart_strerror(rc) + " (code " +
                    std::to_string((int)rc) + ")";
  if (!d.empty()) msg += ": " + d;
  py::object e = py::module_::import("dartpy._errors")
                     .attr("file_error")(msg, (int)rc, d, errnum < 0 ? dart_error_errno() : errnum,
                                         path, (int)DART_ERR_INVAL);
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(e.ptr())), e.ptr());
  throw py::error_already_set();
}

void bind_errors(py::module_ &m) {
  // Defined in Python (picklable, documented there); imported before _core by dartpy.
  g_dart_error = py::module_::import("dartpy._errors").attr("DartError");
  m.def(
      "error_detail", []() { return std::string(dart_error_detail()); },
      "dart_error_detail(): what went wrong in this thread's last failed DART call.");
  m.def(
      "strerror", [](int code) { return std::string(dart_strerror((dart_ret_t)code)); },
      py::arg("code"), "dart_strerror(): the text of a return code.");
}

}  // namespace dartpy
