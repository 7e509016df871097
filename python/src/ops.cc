// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: operation arguments and user-defined reduction operations (dartpy.Op,
// dart_op_create with a Python function).
#include "core.h"

namespace dartpy {

namespace {

std::unordered_map<intptr_t, UserOp *> g_user_ops;

// MPI calls this inside a reduction (the GIL is released there).
void op_trampoline(const void *in, void *inout, size_t len, void *userdata) {
  py::gil_scoped_acquire gil;
  UserOp *u = static_cast<UserOp *>(userdata);
  if (u->error) return;
  try {
    py::dtype dt = py::dtype::from_args(g_slot_dtype[u->slot]);
    std::vector<py::ssize_t> shape{(py::ssize_t)len};
    py::array a(dt, shape, {}, in, py::none());
    a.attr("flags").attr("writeable") = false;
    py::array b(dt, shape, {}, inout, py::none());
    u->fn(a, b);
  } catch (py::error_already_set &e) {
    u->error = e.value();
  }
}

struct Op {
  UserOp *u = nullptr;
  intptr_t value() const { return u ? (intptr_t)u->op : 0; }
  void destroy() {
    if (!u) return;
    g_user_ops.erase((intptr_t)u->op);
    dart_ret_t rc = DART_OK;
    if (u->generation == g_generation && is_initialized()) {  // else dart_exit freed it
      Locked l;
      rc = dart_op_destroy(&u->op);
    }
    delete u;
    u = nullptr;
    check(rc, "dart_op_destroy");
  }
  ~Op() {
    try {
      destroy();
    } catch (py::error_already_set &e) {
      e.discard_as_unraisable("dartpy.Op.__del__");
    }
  }
};

std::unique_ptr<Op> op_create(py::function fn, py::handle dtype, bool commute) {
  int slot = slot_of_dtype(dtype, "dart_op_create", "dtype");
  dart_datatype_t t = arith_type(slot, DART_OP_UNDEFINED, "dart_op_create");
  auto u = std::make_unique<UserOp>();
  u->fn = fn;
  u->slot = slot;
  u->generation = g_generation;
  dart_ret_t rc;
  {
    Locked l;  // MPI_Op_create, MPI_Type_*: MPI calls
    rc = dart_op_create(&op_trampoline, u.get(), commute, t, false, &u->op);
  }
  check(rc, "dart_op_create");
  auto op = std::make_unique<Op>();
  op->u = u.release();
  g_user_ops[(intptr_t)op->u->op] = op->u;
  return op;
}

}  // namespace

dart_operation_t op_arg(py::handle op, const char *fn, UserOp **user) {
  if (!PyIndex_Check(op.ptr()))
    throw py::type_error(std::string(fn) +
                         ": argument 'op' must be a dartpy.OP_* constant "
                         "or an Op from dartpy.op_create");
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(op.ptr()));
  if (!i) throw py::error_already_set();
  dart_operation_t v = (dart_operation_t)i.cast<intptr_t>();
  auto it = g_user_ops.find(v);
  *user = it == g_user_ops.end() ? nullptr : it->second;
  return v;
}

void user_op_reraise(UserOp *user) {
  if (!user || !user->error) return;
  py::object e = user->error;
  user->error = py::object();
  PyErr_SetObject(py::type::handle_of(e).ptr(), e.ptr());
  throw py::error_already_set();
}

void bind_ops(py::module_ &m) {
  py::class_<Op>(m, "Op", "A user-defined reduction operation (dartpy.op_create).")
      .def("__index__", &Op::value)
      .def("__int__", &Op::value)
      .def("destroy", &Op::destroy)
      .def_property_readonly("dtype", [](const Op &o) -> py::object {
        return o.u ? g_slot_dtype[o.u->slot] : py::object(py::none());
      });
  m.def("op_create", &op_create, py::arg("fn"), py::arg("dtype"), py::arg("commute") = true,
        "fn(invec, inoutvec) updates inoutvec in place (inoutvec = invec op inoutvec); it "
        "must not call dartpy.");
  m.def("op_destroy", &Op::destroy, py::arg("op"),
        R"doc(Free a reduction operation made by :func:`op_create`.

Parameters
----------
op : Op

Raises
------
DartError
    For an operation already destroyed.
)doc");
}

}  // namespace dartpy
