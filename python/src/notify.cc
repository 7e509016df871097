// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: notified access (dart_notify.h): counter blocks, put_notify (NumPy arrays
// and strided views, as dart.put), notify, and the waits (GIL released).
#include "core.h"

#include <dash/dart/if/dart_notify.h>

namespace dartpy {

namespace {

int counter_slot() {
  static int slot = slot_of_dtype(py::str("uint64"), "dart_notify_alloc", "dtype");
  return slot;
}

dart_notify_op_t op_of(int op) { return (dart_notify_op_t)op; }  // the core checks it

py::object put_notify(const Gptr &gp, py::handle buf, const Gptr &counter, uint64_t value, int op,
                      size_t rstride, size_t rblock, bool handle) {
  const char *fn = handle ? "dart_put_notify_handle" : "dart_put_notify";
  LayoutTypes types;
  Buffer b = describe(buf, false, false, fn, "array");
  types.local = b.type;
  match_slot(gp, b, fn, "array");
  types.remote = remote_type(b.slot, rstride, rblock, b.nelem, fn);
  dart_ret_t rc;
  dart_handle_t h = DART_HANDLE_NULL;
  {
    Nogil ng;
    rc = handle ? dart_put_notify_handle(gp.g, b.ptr, b.nelem, b.type, types.remote, counter.g,
                                         value, op_of(op), &h)
                : dart_put_notify(gp.g, b.ptr, b.nelem, b.type, types.remote, counter.g, value,
                                  op_of(op));
  }
  check(rc, fn);
  if (!handle) return py::none();
  return make_handle(h, gp.g, h != DART_HANDLE_NULL ? b.obj : py::object());
}

}  // namespace

void bind_notify(py::module_ &m) {
#define DARTPY_NOTIFY_CONSTANT(name, value) m.attr("NOTIFY_" #name) = (int)DART_NOTIFY_##name;
  DART_NOTIFY_OP_LIST(DARTPY_NOTIFY_CONSTANT)
#undef DARTPY_NOTIFY_CONSTANT
  const int add = DART_NOTIFY_ADD;

  m.def(
      "_notify_alloc",
      [](py::handle team_h, size_t n) {
        dart_team_t team = team_arg(team_h);
        dart_gptr_t g = DART_GPTR_NULL;
        dart_ret_t rc;
        {
          Nogil ng;
          rc = dart_notify_alloc(team, n, &g);
        }
        check(rc, "dart_notify_alloc");
        return make_gptr(g, counter_slot());
      },
      py::arg("team"), py::arg("n"),
      "Collective: n zeroed uint64 counters per unit; returns unit 0's first counter. Use "
      "dartpy.notify_alloc (a with-block object) instead.");
  m.def(
      "notify_free",
      [](const Gptr &g) {
        dart_ret_t rc;
        {
          Nogil ng;
          rc = dart_notify_free(g.g);
        }
        direct_cache_invalidate();
        check(rc, "dart_notify_free");
      },
      py::arg("counter"), "Collective: free a counter block.");
  m.def(
      "put_notify",
      [](const Gptr &g, py::handle a, const Gptr &c, uint64_t v, int op, size_t rs, size_t rb) {
        put_notify(g, a, c, v, op, rs, rb, false);
      },
      py::arg("gptr"), py::arg("array"), py::arg("counter"), py::arg("value") = 1,
      py::arg("op") = add, py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1,
      "Put array to gptr (as put_blocking, strided views too), then update counter with "
      "value (op NOTIFY_ADD or NOTIFY_SET). Complete on return.");
  m.def(
      "put_notify_handle",
      [](const Gptr &g, py::handle a, const Gptr &c, uint64_t v, int op, size_t rs, size_t rb) {
        return put_notify(g, a, c, v, op, rs, rb, true);
      },
      py::arg("gptr"), py::arg("array"), py::arg("counter"), py::arg("value") = 1,
      py::arg("op") = add, py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1,
      "Start a put_notify; returns a Handle whose wait/test completes the put and then "
      "updates the counter.");
  m.def(
      "notify",
      [](const Gptr &c, uint64_t v, int op) {
        dart_ret_t rc;
        {
          Nogil ng;
          rc = dart_notify(c.g, v, op_of(op));
        }
        check(rc, "dart_notify");
        pending_clear_all();  // every earlier put of this unit is complete: drop their buffers
      },
      py::arg("counter"), py::arg("value") = 1, py::arg("op") = add,
      "Update counter after all earlier puts of this unit are complete (an event post).");
  m.def(
      "notify_wait",
      [](const Gptr &c, uint64_t until) {
        dart_ret_t rc;
        {
          Nogil ng;
          rc = dart_notify_wait(c.g, until);
        }
        check(rc, "dart_notify_wait");
      },
      py::arg("counter"), py::arg("until") = 1,
      "Wait until this unit's counter is >= until, then subtract until (GIL released).");
  m.def(
      "notify_test",
      [](const Gptr &c, uint64_t until) {
        int32_t flag = 0;
        dart_ret_t rc;
        {
          Nogil ng;
          rc = dart_notify_test(c.g, until, &flag);
        }
        check(rc, "dart_notify_test");
        return flag != 0;
      },
      py::arg("counter"), py::arg("until") = 1,
      "One poll of notify_wait: True (and until subtracted) if the counter is >= until.");
  m.def(
      "notify_get",
      [](const Gptr &c) {
        uint64_t v = 0;
        dart_ret_t rc;
        {
          Nogil ng;
          rc = dart_notify_get(c.g, &v);
        }
        check(rc, "dart_notify_get");
        return v;
      },
      py::arg("counter"), "The current value of a counter (any unit's).");
}

}  // namespace dartpy
