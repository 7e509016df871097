// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: collectives and two-sided messages on NumPy arrays.
//
// Argument errors stay collective where only some units can see them: the core's rooted
// collectives (scatter, gather, reduce) and dart_allgatherv agree on their arguments over
// the team, so a local error found here is passed to them as an argument they reject
// (DART_TYPE_UNDEFINED, NULL counts): every unit raises (this one its own error, the
// others a DartError naming it) and none is left waiting in the collective.
#include "core.h"

#include <climits>

namespace dartpy {

namespace {

void same_dtype(const Buffer &a, const Buffer &b, const char *fn) {
  if (a.slot != b.slot)
    throw py::type_error(std::string(fn) + ": 'sendbuf' has dtype " + slot_name(a.slot) +
                         " but 'recvbuf' has dtype " + slot_name(b.slot));
}

// Team facts for argument checks; none if the team is not usable (the collective itself
// reports that, on every unit).
struct TeamInfo {
  bool ok = false;
  size_t size = 0;
  int myid = -1;
  explicit TeamInfo(dart_team_t team) {
    dart_team_unit_t me;
    ok = dart_team_size(team, &size) == DART_OK && dart_team_myid(team, &me) == DART_OK;
    if (ok) myid = me.id;
  }
};

// The result of a collective: an exception of a user operation's function first. MPI
// runs the function on some units only, so with a user operation the units agree (one
// reduction over the team) on whether it raised anywhere: the unit where it raised
// raises that exception, the others a DartError naming the first such unit.
void user_op_agree(UserOp *user, dart_team_t team, const char *fn) {
  {
    dart_team_unit_t me{0};
    dart_team_myid(team, &me);
    int mine = user->error ? INT_MAX - me.id : -1, first = -1;
    dart_ret_t arc;
    {
      Nogil ng;
      arc = dart_allreduce(&mine, &first, 1, DART_TYPE_INT, DART_OP_MAX, team);
    }
    user_op_reraise(user);
    if (arc == DART_OK && first >= 0)
      raise_dart(DART_ERR_OTHER, fn,
                 (std::string(fn) +
                  ": the reduction operation's function raised an exception "
                  "on unit " +
                  std::to_string(INT_MAX - first) + " of team " + std::to_string(team) +
                  " (see its traceback)")
                     .c_str());
  }
}

void finish(dart_ret_t rc, const char *fn, UserOp *user = nullptr,
            dart_team_t team = DART_TEAM_NULL) {
  if (user != nullptr) user_op_agree(user, team, fn);
  check(rc, fn);
}

void bcast(py::handle buf, int root, py::handle team_h) {
  const char *fn = "dart_bcast";
  dart_team_t team = team_arg(team_h);
  Buffer b = describe(buf, true, true, fn, "buf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_bcast(b.ptr, b.nelem, b.type, dart_team_unit_t{root}, team);
  }
  finish(rc, fn);
}

void scatter(py::handle sendbuf, py::handle recvbuf, int root, py::handle team_h) {
  const char *fn = "dart_scatter";
  dart_team_t team = team_arg(team_h);
  TeamInfo ti(team);
  const bool is_root = ti.ok && ti.myid == root;
  Buffer s, r;
  Deferred local;
  local.run([&] {
    r = describe(recvbuf, true, true, fn, "recvbuf");
    if (is_root || !sendbuf.is_none()) {
      s = describe(sendbuf, false, true, fn, "sendbuf");
      same_dtype(s, r, fn);
      if (is_root && s.nelem != r.nelem * ti.size)
        throw py::value_error(std::string(fn) + ": 'sendbuf' must hold team size (" +
                              std::to_string(ti.size) + ") times the elements of 'recvbuf'");
    }
  });
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_scatter(s.ptr, r.ptr, r.nelem, local ? DART_TYPE_UNDEFINED : r.type,
                      dart_team_unit_t{root}, team);
  }
  local.rethrow();
  finish(rc, fn);
}

void gather(py::handle sendbuf, py::handle recvbuf, int root, py::handle team_h) {
  const char *fn = "dart_gather";
  dart_team_t team = team_arg(team_h);
  TeamInfo ti(team);
  const bool is_root = ti.ok && ti.myid == root;
  Buffer s, r;
  Deferred local;
  local.run([&] {
    s = describe(sendbuf, false, true, fn, "sendbuf");
    if (is_root || !recvbuf.is_none()) {
      r = describe(recvbuf, true, true, fn, "recvbuf");
      same_dtype(s, r, fn);
      if (is_root && r.nelem != s.nelem * ti.size)
        throw py::value_error(std::string(fn) + ": 'recvbuf' must hold team size (" +
                              std::to_string(ti.size) + ") times the elements of 'sendbuf'");
    }
  });
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_gather(s.ptr, r.ptr, s.nelem, local ? DART_TYPE_UNDEFINED : s.type,
                     dart_team_unit_t{root}, team);
  }
  local.rethrow();
  finish(rc, fn);
}

void allgather(py::handle sendbuf, py::handle recvbuf, py::handle team_h) {
  const char *fn = "dart_allgather";
  dart_team_t team = team_arg(team_h);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  same_dtype(s, r, fn);
  TeamInfo ti(team);
  if (ti.ok && r.nelem != s.nelem * ti.size)
    throw py::value_error(std::string(fn) + ": 'recvbuf' must hold team size (" +
                          std::to_string(ti.size) + ") times the elements of 'sendbuf'");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_allgather(s.ptr, r.ptr, s.nelem, s.type, team);
  }
  finish(rc, fn);
}

void allgatherv(py::handle sendbuf, py::handle recvbuf, std::vector<size_t> counts,
                std::vector<size_t> displs, py::handle team_h) {
  const char *fn = "dart_allgatherv";
  dart_team_t team = team_arg(team_h);
  TeamInfo ti(team);
  Buffer s, r;
  Deferred local;
  local.run([&] {
    s = describe(sendbuf, false, true, fn, "sendbuf");
    r = describe(recvbuf, true, true, fn, "recvbuf");
    same_dtype(s, r, fn);
    if (!ti.ok) return;
    const size_t n = ti.size;
    if (counts.size() != n || displs.size() != n)
      throw py::value_error(std::string(fn) +
                            ": 'nrecvelem' and 'recvdispls' need one "
                            "entry per unit of the team");
    size_t mult = g_slots[s.slot].mult;
    for (size_t i = 0; i < n; ++i) {
      if ((displs[i] + counts[i]) * mult > r.nelem)
        throw py::value_error(std::string(fn) + ": 'recvdispls'/'nrecvelem' of unit " +
                              std::to_string(i) + " reach past the end of 'recvbuf'");
      counts[i] *= mult;
      displs[i] *= mult;
    }
  });
  // A local error: no counts, which the core rejects on this unit and, agreeing, on all.
  const size_t *pc = local ? nullptr : counts.data();
  const size_t *pd = local ? nullptr : displs.data();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_allgatherv(s.ptr, s.nelem, s.type, r.ptr, pc, pd, team);
  }
  local.rethrow();
  finish(rc, fn);
}

// The DART type of a reduction on b with op (a user operation was created for one type;
// the core checks that it matches).
dart_datatype_t reduce_type(const Buffer &b, dart_operation_t op, UserOp *user, const char *fn) {
  return user ? g_slots[b.slot].arith : arith_type(b.slot, op, fn);
}

void reduce(py::handle sendbuf, py::handle recvbuf, py::handle op_h, int root, py::handle team_h) {
  const char *fn = "dart_reduce";
  dart_team_t team = team_arg(team_h);
  UserOp *user = nullptr;
  dart_operation_t op = op_arg(op_h, fn, &user);
  TeamInfo ti(team);
  const bool is_root = ti.ok && ti.myid == root;
  Buffer s, r;
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  Deferred local;
  local.run([&] {
    s = describe(sendbuf, false, true, fn, "sendbuf");
    if (is_root || !recvbuf.is_none()) {
      r = describe(recvbuf, true, true, fn, "recvbuf");
      same_dtype(s, r, fn);
      if (is_root && r.nelem != s.nelem)
        throw py::value_error(std::string(fn) + ": 'sendbuf' and 'recvbuf' differ in size");
    }
    t = reduce_type(s, op, user, fn);
  });
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_reduce(s.ptr, r.ptr, s.nelem, local ? DART_TYPE_UNDEFINED : t, op,
                     dart_team_unit_t{root}, team);
  }
  if (local) {
    if (user) user_op_agree(user, team, fn);  // as the others do
    local.rethrow();
  }
  finish(rc, fn, user, team);
}

void allreduce(py::handle sendbuf, py::handle recvbuf, py::handle op_h, py::handle team_h) {
  const char *fn = "dart_allreduce";
  dart_team_t team = team_arg(team_h);
  UserOp *user = nullptr;
  dart_operation_t op = op_arg(op_h, fn, &user);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  same_dtype(s, r, fn);
  if (r.nelem != s.nelem)
    throw py::value_error(std::string(fn) + ": 'sendbuf' and 'recvbuf' differ in size");
  dart_datatype_t t = reduce_type(s, op, user, fn);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_allreduce(s.ptr, r.ptr, s.nelem, t, op, team);
  }
  finish(rc, fn, user, team);
}

void alltoall(py::handle sendbuf, py::handle recvbuf, py::handle team_h) {
  const char *fn = "dart_alltoall";
  dart_team_t team = team_arg(team_h);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  same_dtype(s, r, fn);
  TeamInfo ti(team);
  size_t n = ti.ok ? ti.size : 1;
  if (s.nelem % n != 0 || r.nelem != s.nelem)
    throw py::value_error(std::string(fn) +
                          ": 'sendbuf' and 'recvbuf' must have the same "
                          "size, a multiple of the team size");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_alltoall(s.ptr, r.ptr, s.nelem / n, s.type, team);
  }
  finish(rc, fn);
}

void send(py::handle buf, int tag, int unit) {
  const char *fn = "dart_send";
  Buffer b = describe(buf, false, true, fn, "buf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_send(b.ptr, b.nelem, b.type, tag, dart_global_unit_t{unit});
  }
  finish(rc, fn);
}

void recv(py::handle buf, int tag, int unit) {
  const char *fn = "dart_recv";
  Buffer b = describe(buf, true, true, fn, "buf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_recv(b.ptr, b.nelem, b.type, tag, dart_global_unit_t{unit});
  }
  finish(rc, fn);
}

void sendrecv(py::handle sendbuf, int send_tag, int dest, py::handle recvbuf, int recv_tag,
              int src) {
  const char *fn = "dart_sendrecv";
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_sendrecv(s.ptr, s.nelem, s.type, send_tag, dart_global_unit_t{dest}, r.ptr, r.nelem,
                       r.type, recv_tag, dart_global_unit_t{src});
  }
  finish(rc, fn);
}

}  // namespace

void barrier(py::handle team_h) {
  dart_team_t team = team_arg(team_h);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_barrier(team);
  }
  finish(rc, "dart_barrier");
}

void bind_coll(py::module_ &m) {
  py::object all = py::cast(Team{DART_TEAM_ALL});
  m.def("barrier", &barrier, py::arg("team") = all,
        R"doc(Wait until every unit of the team has called it.

A barrier synchronizes; it does not complete one-sided operations (use a flush).
The GIL is released while waiting.

Parameters
----------
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or ``team`` is not a team of this unit.
)doc");
  m.def("bcast", &bcast, py::arg("buf"), py::arg("root") = 0, py::arg("team") = all,
        R"doc(Broadcast ``buf`` of the root unit to every unit of the team, in place.

Parameters
----------
buf : numpy.ndarray
    The root's data; writable on the others, same size and dtype everywhere.
root : int, optional
    Team unit id of the root (default 0).
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.

Examples
--------
>>> x = np.arange(4.0) if dart.myid() == 0 else np.empty(4)
>>> dart.bcast(x, root=0)
)doc");
  m.def("scatter", &scatter, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0,
        py::arg("team") = all,
        R"doc(Send block ``i`` of the root's ``sendbuf`` to team unit ``i``.

Parameters
----------
sendbuf : numpy.ndarray
    On the root: ``team_size(team) * recvbuf.size`` elements; ignored elsewhere.
recvbuf : numpy.ndarray
    Writable: this unit's block.
root : int, optional
    Team unit id of the root (default 0).
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.
)doc");
  m.def("gather", &gather, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0,
        py::arg("team") = all,
        R"doc(Collect ``sendbuf`` of every unit into ``recvbuf`` of the root, in team unit order.

Parameters
----------
sendbuf : numpy.ndarray
    This unit's contribution.
recvbuf : numpy.ndarray
    On the root: writable, ``team_size(team) * sendbuf.size`` elements; ignored elsewhere.
root : int, optional
    Team unit id of the root (default 0).
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.
)doc");
  m.def("allgather", &allgather, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("team") = all,
        R"doc(Collect ``sendbuf`` of every unit into ``recvbuf`` on every unit.

Collective over the team: ``recvbuf`` holds the team's ``sendbuf`` one after the
other, in team unit order, so it has ``team_size(team)`` times as many elements.

Parameters
----------
sendbuf : numpy.ndarray
    This unit's contribution.
recvbuf : numpy.ndarray
    Writable, ``team_size(team) * sendbuf.size`` elements of the same dtype.
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.

Examples
--------
>>> out = np.empty(dart.size(), np.int64)
>>> dart.allgather(np.array([dart.myid()]), out)   # out == [0, 1, ..., n-1]
)doc");
  m.def("allgatherv", &allgatherv, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("nrecvelem"),
        py::arg("recvdispls"), py::arg("team") = all,
        R"doc(Collect contributions of different sizes from every unit on every unit.

Parameters
----------
sendbuf : numpy.ndarray
    This unit's contribution (its own size).
recvbuf : numpy.ndarray
    Writable; unit ``u``'s elements land at ``recvbuf[recvdispls[u]:recvdispls[u] + nrecvelem[u]]``.
nrecvelem : sequence of int
    Number of elements of each team unit.
recvdispls : sequence of int
    Offset (elements) in ``recvbuf`` of each team unit's part.
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.
)doc");
  m.def("reduce", &reduce, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("op"),
        py::arg("root") = 0, py::arg("team") = all,
        R"doc(Reduce ``sendbuf`` element-wise over the team into ``recvbuf`` of the root.

Parameters
----------
sendbuf : numpy.ndarray
    This unit's operands.
recvbuf : numpy.ndarray
    On the root: writable, same size and dtype; ignored elsewhere.
op : Op or int
    An ``OP_*`` constant or an :class:`Op` from :func:`op_create`.
root : int, optional
    Team unit id of the root (default 0).
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.
)doc");
  m.def("allreduce", &allreduce, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("op"),
        py::arg("team") = all,
        R"doc(Reduce ``sendbuf`` element-wise over the team; every unit gets the result.

Parameters
----------
sendbuf : numpy.ndarray
    This unit's operands.
recvbuf : numpy.ndarray
    Writable, same size and dtype: the result.
op : Op or int
    An ``OP_*`` constant or an :class:`Op` from :func:`op_create`.
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.

Examples
--------
>>> total = np.zeros(1)
>>> dart.allreduce(np.array([1.0]), total, dart.OP_SUM)   # total[0] == dart.size()
)doc");
  m.def(
      "alltoall", &alltoall, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("team") = all,
      R"doc(Send block ``i`` of ``sendbuf`` to team unit ``i`` and receive block ``j`` from unit ``j``.

Parameters
----------
sendbuf : numpy.ndarray
    ``team_size(team)`` blocks of equal size.
recvbuf : numpy.ndarray
    Writable, as large as ``sendbuf``.
team : Team or int, optional
    The team (default ``TEAM_ALL``).

Raises
------
DartError
    If DART is not initialized or the runtime reports a failure (on every unit
    where it fails; the others see ``another unit failed``).
TypeError, ValueError
    For a buffer of an unsupported dtype or a wrong size.
)doc");
  m.def("send", &send, py::arg("buf"), py::arg("tag"), py::arg("unit"),
        R"doc(Send ``buf`` to global unit ``unit`` (blocking, GIL released).

Parameters
----------
buf : numpy.ndarray
    The message.
tag : int
    Matched by the receiver's :func:`recv`.
unit : int
    The receiver's global unit id.

Raises
------
DartError
    For a unit id out of range.
)doc");
  m.def("recv", &recv, py::arg("buf"), py::arg("tag"), py::arg("unit"),
        R"doc(Receive a message from global unit ``unit`` into ``buf`` (blocking, GIL released).

Parameters
----------
buf : numpy.ndarray
    Writable; the message must have its size.
tag : int
    The tag the sender used.
unit : int
    The sender's global unit id.

Raises
------
DartError
    For a unit id out of range or a message of another size.
)doc");
  m.def("sendrecv", &sendrecv, py::arg("sendbuf"), py::arg("send_tag"), py::arg("dest"),
        py::arg("recvbuf"), py::arg("recv_tag"), py::arg("src"),
        R"doc(Send ``sendbuf`` to ``dest`` and receive ``recvbuf`` from ``src`` in one call.

Deadlock-free for exchanges in a ring, where every unit sends and receives.

Parameters
----------
sendbuf : numpy.ndarray
send_tag : int
dest : int
    Global unit id of the receiver.
recvbuf : numpy.ndarray
    Writable; the incoming message must have its size.
recv_tag : int
src : int
    Global unit id of the sender.

Examples
--------
>>> me, n = dart.myid(), dart.size()
>>> got = np.empty(1)
>>> dart.sendrecv(np.array([me * 1.0]), 0, (me + 1) % n, got, 0, (me - 1) % n)
)doc");
}

}  // namespace dartpy
