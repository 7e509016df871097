// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: dartpy.Handle (a non-blocking put/get) and its completion calls.
#include "core.h"

#include <algorithm>

namespace dartpy {

namespace {

// Handle of put_handle/get_handle. Holds the NumPy buffer until the operation completed.
struct Handle {
  dart_handle_t h = DART_HANDLE_NULL;
  py::object keep;
  uint64_t generation = 0;
  dart_gptr_t target = DART_GPTR_NULL;

  bool live() const {
    return h != DART_HANDLE_NULL && generation == g_generation && is_initialized();
  }
  void forget() {
    h = DART_HANDLE_NULL;
    keep = py::object();
  }
  ~Handle() {
    // A handle collected before completion: complete locally so that the buffer it holds
    // may be released safely. A destructor cannot raise: a failure is reported as
    // unraisable.
    if (live()) {
      dart_ret_t rc;
      {
        Nogil ng;
        rc = dart_wait_local(&h);
      }
      if (rc != DART_OK) {
        try {
          raise_dart(rc, "dart_wait_local");
        } catch (py::error_already_set &e) {
          e.discard_as_unraisable("dartpy.Handle.__del__");
        }
      }
    }
  }
};

// wait/test (local or not) of one handle. DART-MPI's test completes the operation (see
// docs/design.md), so test* are waits that return True.
void complete(Handle &h, bool local, const char *fn) {
  if (!h.live()) {  // NULL handle (done at once), or its cycle ended: dart_exit completed it
    h.forget();
    return;
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = local ? dart_wait_local(&h.h) : dart_wait(&h.h);
  }
  check(rc, fn);
  h.forget();
}

void wait(Handle &h) { complete(h, false, "dart_wait"); }
void wait_local(Handle &h) { complete(h, true, "dart_wait_local"); }
bool test(Handle &h) {
  complete(h, false, "dart_test");
  return true;
}
bool test_local(Handle &h) {
  complete(h, true, "dart_test_local");
  return true;
}

void handle_free(Handle &h) {
  dart_ret_t rc = DART_OK;
  if (h.live()) {
    if (h.keep) pending_add(h.target, h.keep);  // kept until the target's flush
    Locked l;
    rc = dart_handle_free(&h.h);
  }
  h.h = DART_HANDLE_NULL;
  check(rc, "dart_handle_free");
}

// Completes a list of handles with one dart_waitall[_local].
void complete_all(py::iterable handles, bool local, const char *fn) {
  std::vector<Handle *> hs;
  for (auto item : handles) hs.push_back(list_item<Handle>(item, fn, "handles", "dartpy.Handle"));
  std::vector<dart_handle_t> raw;
  std::vector<Handle *> owners;
  for (Handle *h : hs) {
    // A handle listed twice is waited for once (the core releases each handle it gets).
    if (h->live() && std::find(owners.begin(), owners.end(), h) == owners.end()) {
      raw.push_back(h->h);
      owners.push_back(h);
    }
  }
  dart_ret_t rc = DART_OK;
  if (!raw.empty()) {
    Nogil ng;
    rc = local ? dart_waitall_local(raw.data(), raw.size()) : dart_waitall(raw.data(), raw.size());
  }
  // dart_waitall releases every handle, also on error.
  for (Handle *h : hs) h->forget();
  check(rc, fn);
}

}  // namespace

py::object make_handle(dart_handle_t h, const dart_gptr_t &target, py::object keep) {
  auto hobj = std::make_unique<Handle>();
  hobj->h = h;
  hobj->generation = g_generation;
  hobj->target = target;
  hobj->keep = std::move(keep);
  return py::cast(hobj.release(), py::return_value_policy::take_ownership);
}

void bind_handle(py::module_ &m) {
  py::class_<Handle>(m, "Handle", R"(Handle of put_handle/get_handle.

wait() completes the operation at the target (put) or locally (get); wait_local() means
the local buffer may be reused (put) or holds the data (get). The NumPy buffer is kept
alive until completion.)")
      .def("wait", &wait)
      .def("wait_local", &wait_local)
      .def("test", &test)
      .def("test_local", &test_local)
      .def("free", &handle_free,
           "Release the handle; the operation completes at the next flush of its target.")
      .def_property_readonly("done", [](const Handle &h) { return !h.live(); })
      .def("__repr__", [](const Handle &h) {
        return std::string("<dartpy.Handle ") + (h.live() ? "pending>" : "complete>");
      });

  m.def("wait", &wait, py::arg("handle"),
        R"doc(Wait (GIL released) until the operation of ``handle`` is complete.

For a put the data is visible at the target, for a get in the local buffer; the handle
is freed.

Parameters
----------
handle : Handle
)doc");
  m.def("wait_local", &wait_local, py::arg("handle"),
        R"doc(Wait until the operation of ``handle`` is locally complete (buffer reusable).

Parameters
----------
handle : Handle
)doc");
  m.def("test", &test, py::arg("handle"),
        R"doc(Whether the operation of ``handle`` is complete; completes it if so.

DART-MPI's test completes the operation (remote completion for puts), as :func:`wait`
does when it returns.

Parameters
----------
handle : Handle

Returns
-------
bool
)doc");
  m.def("test_local", &test_local, py::arg("handle"),
        R"doc(Whether the operation of ``handle`` is locally complete (buffer reusable).

Parameters
----------
handle : Handle

Returns
-------
bool
)doc");
  m.def(
      "waitall", [](py::iterable hs) { complete_all(hs, false, "dart_waitall"); },
      py::arg("handles"),
      R"doc(Wait until the operations of all ``handles`` are complete.

Parameters
----------
handles : iterable of Handle
)doc");
  m.def(
      "waitall_local", [](py::iterable hs) { complete_all(hs, true, "dart_waitall_local"); },
      py::arg("handles"),
      R"doc(Wait until the operations of all ``handles`` are locally complete.

Parameters
----------
handles : iterable of Handle
)doc");
  m.def(
      "testall",
      [](py::iterable hs) {
        complete_all(hs, false, "dart_testall");
        return true;
      },
      py::arg("handles"),
      R"doc(Whether all operations of ``handles`` are complete; completes them if so.

Parameters
----------
handles : iterable of Handle

Returns
-------
bool
)doc");
  m.def(
      "testall_local",
      [](py::iterable hs) {
        complete_all(hs, true, "dart_testall_local");
        return true;
      },
      py::arg("handles"),
      R"doc(Whether all operations of ``handles`` are locally complete.

Parameters
----------
handles : iterable of Handle

Returns
-------
bool
)doc");
}

}  // namespace dartpy
