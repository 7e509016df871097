// dartpy._core: collectives and two-sided messages on NumPy arrays, user reduction
// operations, groups, teams (with mpi4py communicator interop) and locks.
#include "core.h"

#include <type_traits>

namespace dartpy {

namespace {

std::string tname(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

void warn_resource(const std::string &msg) {
  if (PyErr_WarnEx(PyExc_ResourceWarning, msg.c_str(), 1) < 0) PyErr_WriteUnraisable(nullptr);
}

size_t team_size(dart_team_t t, const char *fn) {
  size_t n = 0;
  dart_ret_t rc = dart_team_size(t, &n);
  if (rc != DART_OK) raise_dart(rc, fn);
  return n;
}

int team_myid(dart_team_t t, const char *fn) {
  dart_team_unit_t u;
  dart_ret_t rc = dart_team_myid(t, &u);
  if (rc != DART_OK) raise_dart(rc, fn);
  return u.id;
}

// ---- user reduction operations -------------------------------------------------------

struct UserOp {
  dart_operation_t op = DART_OP_UNDEFINED;
  py::object fn;
  int slot = S_NONE;
  uint64_t generation = 0;
  py::object error;  // exception raised by fn during the last collective
};
std::unordered_map<intptr_t, UserOp *> g_user_ops;

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

dart_operation_t op_arg(py::handle op, const char *fn, UserOp **user) {
  if (!PyIndex_Check(op.ptr()))
    throw py::type_error(std::string(fn) + ": argument 'op' must be a dartpy.OP_* constant "
                                           "or an Op from dartpy.op_create");
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(op.ptr()));
  if (!i) throw py::error_already_set();
  dart_operation_t v = (dart_operation_t)i.cast<intptr_t>();
  auto it = g_user_ops.find(v);
  *user = it == g_user_ops.end() ? nullptr : it->second;
  return v;
}

struct Op {
  UserOp *u = nullptr;
  intptr_t value() const { return u ? (intptr_t)u->op : 0; }
  void destroy() {
    if (!u) return;
    g_user_ops.erase((intptr_t)u->op);
    if (u->generation == g_generation && is_initialized()) {
      Locked l;
      dart_op_destroy(&u->op);
    }
    delete u;
    u = nullptr;
  }
  ~Op() { destroy(); }
};

// ---- collectives ---------------------------------------------------------------------

void same_dtype(const Buffer &a, const Buffer &b, const char *fn) {
  if (a.slot != b.slot)
    throw py::type_error(std::string(fn) + ": 'sendbuf' has dtype " + slot_name(a.slot) +
                         " but 'recvbuf' has dtype " + slot_name(b.slot));
}

dart_team_unit_t root_arg(int root) { return dart_team_unit_t{root}; }

void run(dart_ret_t rc, const char *fn, UserOp *user = nullptr) {
  if (user && user->error) {
    py::object e = user->error;
    user->error = py::object();
    PyErr_SetObject(py::type::handle_of(e).ptr(), e.ptr());
    throw py::error_already_set();
  }
  if (rc != DART_OK) raise_dart(rc, fn);
}

void barrier(py::handle team_h) {
  dart_team_t team = team_arg(team_h);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_barrier(team);
  }
  run(rc, "dart_barrier");
}

void bcast(py::handle buf, int root, py::handle team_h) {
  const char *fn = "dart_bcast";
  dart_team_t team = team_arg(team_h);
  Buffer b = describe(buf, true, true, fn, "buf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_bcast(b.ptr, b.nelem, b.type, root_arg(root), team);
  }
  run(rc, fn);
}

void scatter(py::handle sendbuf, py::handle recvbuf, int root, py::handle team_h) {
  const char *fn = "dart_scatter";
  dart_team_t team = team_arg(team_h);
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  size_t n = team_size(team, fn);
  bool is_root = team_myid(team, fn) == root;
  Buffer s;
  if (is_root || !sendbuf.is_none()) {
    s = describe(sendbuf, false, true, fn, "sendbuf");
    same_dtype(s, r, fn);
    if (is_root && s.nelem != r.nelem * n)
      throw py::value_error(std::string(fn) + ": 'sendbuf' must hold team size (" +
                            std::to_string(n) + ") times the elements of 'recvbuf'");
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_scatter(s.ptr, r.ptr, r.nelem, r.type, root_arg(root), team);
  }
  run(rc, fn);
}

void gather(py::handle sendbuf, py::handle recvbuf, int root, py::handle team_h) {
  const char *fn = "dart_gather";
  dart_team_t team = team_arg(team_h);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  size_t n = team_size(team, fn);
  bool is_root = team_myid(team, fn) == root;
  Buffer r;
  if (is_root || !recvbuf.is_none()) {
    r = describe(recvbuf, true, true, fn, "recvbuf");
    same_dtype(s, r, fn);
    if (is_root && r.nelem != s.nelem * n)
      throw py::value_error(std::string(fn) + ": 'recvbuf' must hold team size (" +
                            std::to_string(n) + ") times the elements of 'sendbuf'");
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_gather(s.ptr, r.ptr, s.nelem, s.type, root_arg(root), team);
  }
  run(rc, fn);
}

void allgather(py::handle sendbuf, py::handle recvbuf, py::handle team_h) {
  const char *fn = "dart_allgather";
  dart_team_t team = team_arg(team_h);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  same_dtype(s, r, fn);
  size_t n = team_size(team, fn);
  if (r.nelem != s.nelem * n)
    throw py::value_error(std::string(fn) + ": 'recvbuf' must hold team size (" +
                          std::to_string(n) + ") times the elements of 'sendbuf'");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_allgather(s.ptr, r.ptr, s.nelem, s.type, team);
  }
  run(rc, fn);
}

void allgatherv(py::handle sendbuf, py::handle recvbuf, std::vector<size_t> counts,
                std::vector<size_t> displs, py::handle team_h) {
  const char *fn = "dart_allgatherv";
  dart_team_t team = team_arg(team_h);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  same_dtype(s, r, fn);
  size_t n = team_size(team, fn);
  if (counts.size() != n || displs.size() != n)
    throw py::value_error(std::string(fn) + ": 'nrecvelem' and 'recvdispls' need one entry "
                                            "per unit of the team");
  size_t mult = g_slots[s.slot].mult;
  for (size_t i = 0; i < n; ++i) {
    if ((displs[i] + counts[i]) * mult > r.nelem)
      throw py::value_error(std::string(fn) + ": 'recvdispls'/'nrecvelem' of unit " +
                            std::to_string(i) + " reach past the end of 'recvbuf'");
    counts[i] *= mult;
    displs[i] *= mult;
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_allgatherv(s.ptr, s.nelem, s.type, r.ptr, counts.data(), displs.data(), team);
  }
  run(rc, fn);
}

dart_datatype_t reduce_type(const Buffer &b, dart_operation_t op, UserOp *user,
                            const char *fn) {
  const SlotInfo &si = g_slots[b.slot];
  if (user) {
    if (user->slot != b.slot)
      throw py::type_error(std::string(fn) + ": the operation was created for dtype " +
                           slot_name(user->slot) + ", the buffers have " + slot_name(b.slot));
    return si.arith;
  }
  if (si.arith == DART_TYPE_UNDEFINED)
    throw py::type_error(std::string(fn) + ": dtype " + si.name +
                         " has no DART arithmetic type (use an integer or floating dtype)");
  if (b.slot == S_U8 && (op == DART_OP_MIN || op == DART_OP_MAX || op == DART_OP_MINMAX))
    throw py::type_error(std::string(fn) + ": MIN/MAX on uint8 is not supported (DART's byte "
                                           "type is signed); use uint16 or wider");
  return si.arith;
}

void reduce(py::handle sendbuf, py::handle recvbuf, py::handle op_h, int root,
            py::handle team_h) {
  const char *fn = "dart_reduce";
  dart_team_t team = team_arg(team_h);
  UserOp *user = nullptr;
  dart_operation_t op = op_arg(op_h, fn, &user);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  bool is_root = team_myid(team, fn) == root;
  Buffer r;
  if (is_root || !recvbuf.is_none()) {
    r = describe(recvbuf, true, true, fn, "recvbuf");
    same_dtype(s, r, fn);
    if (is_root && r.nelem != s.nelem)
      throw py::value_error(std::string(fn) + ": 'sendbuf' and 'recvbuf' differ in size");
  }
  dart_datatype_t t = reduce_type(s, op, user, fn);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_reduce(s.ptr, r.ptr, s.nelem, t, op, root_arg(root), team);
  }
  run(rc, fn, user);
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
  run(rc, fn, user);
}

void alltoall(py::handle sendbuf, py::handle recvbuf, py::handle team_h) {
  const char *fn = "dart_alltoall";
  dart_team_t team = team_arg(team_h);
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  same_dtype(s, r, fn);
  size_t n = team_size(team, fn);
  if (s.nelem % n != 0 || r.nelem != s.nelem)
    throw py::value_error(std::string(fn) + ": 'sendbuf' and 'recvbuf' must have the same "
                                            "size, a multiple of the team size");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_alltoall(s.ptr, r.ptr, s.nelem / n, s.type, team);
  }
  run(rc, fn);
}

void send(py::handle buf, int tag, int unit) {
  const char *fn = "dart_send";
  Buffer b = describe(buf, false, true, fn, "buf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_send(b.ptr, b.nelem, b.type, tag, dart_global_unit_t{unit});
  }
  run(rc, fn);
}

void recv(py::handle buf, int tag, int unit) {
  const char *fn = "dart_recv";
  Buffer b = describe(buf, true, true, fn, "buf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_recv(b.ptr, b.nelem, b.type, tag, dart_global_unit_t{unit});
  }
  run(rc, fn);
}

void sendrecv(py::handle sendbuf, int send_tag, int dest, py::handle recvbuf, int recv_tag,
              int src) {
  const char *fn = "dart_sendrecv";
  Buffer s = describe(sendbuf, false, true, fn, "sendbuf");
  Buffer r = describe(recvbuf, true, true, fn, "recvbuf");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_sendrecv(s.ptr, s.nelem, s.type, send_tag, dart_global_unit_t{dest}, r.ptr,
                       r.nelem, r.type, recv_tag, dart_global_unit_t{src});
  }
  run(rc, fn);
}

// ---- groups --------------------------------------------------------------------------

struct Group {
  dart_group_t g = DART_GROUP_NULL;
  uint64_t generation = 0;
  Group() = default;
  Group(const Group &) = delete;
  Group &operator=(const Group &) = delete;
  ~Group() {
    if (g != DART_GROUP_NULL && generation == g_generation && is_initialized())
      dart_group_destroy(&g);
  }
  dart_group_t get(const char *fn) const {
    if (g == DART_GROUP_NULL || generation != g_generation)
      raise_dart_msg(DART_ERR_INVAL, std::string(fn) + ": the group was destroyed or belongs "
                                                       "to an earlier dart.init cycle");
    return g;
  }
};

std::unique_ptr<Group> wrap_group(dart_group_t g) {
  auto r = std::make_unique<Group>();
  r->g = g;
  r->generation = g_generation;
  return r;
}

std::unique_ptr<Group> group_create() {
  dart_group_t g = DART_GROUP_NULL;
  check(dart_group_create(&g), "dart_group_create");
  return wrap_group(g);
}

std::unique_ptr<Group> group_binop(const Group &a, const Group &b, bool is_union) {
  const char *fn = is_union ? "dart_group_union" : "dart_group_intersect";
  dart_group_t out = DART_GROUP_NULL;
  check(is_union ? dart_group_union(a.get(fn), b.get(fn), &out)
                 : dart_group_intersect(a.get(fn), b.get(fn), &out), fn);
  return wrap_group(out);
}

std::vector<int> group_members(const Group &gr) {
  const char *fn = "dart_group_getmembers";
  size_t n = 0;
  check(dart_group_size(gr.get(fn), &n), "dart_group_size");
  std::vector<dart_global_unit_t> u(n);
  if (n) check(dart_group_getmembers(gr.get(fn), u.data()), fn);
  std::vector<int> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = u[i].id;
  return out;
}

// ---- teams ---------------------------------------------------------------------------

// A team id with methods. Value semantics (like the C dart_team_t): collecting a Team
// never destroys the team; use team_destroy / Team.destroy / a with block.
struct Team {
  dart_team_t id = DART_TEAM_NULL;
};

// MPI handles as Python ints, the way mpi4py's Comm.fromhandle()/.handle spell them:
// Open MPI's are pointers, MPICH's 32-bit integers.
template <typename C>
C comm_from_bits(unsigned long long v) {
  if constexpr (std::is_pointer<C>::value) {
    return reinterpret_cast<C>((uintptr_t)v);
  } else {
    return (C)(int)(unsigned)(v & 0xffffffffULL);
  }
}

template <typename C>
unsigned long long comm_to_bits(C c) {
  if constexpr (std::is_pointer<C>::value) {
    return (unsigned long long)reinterpret_cast<uintptr_t>(c);
  } else {
    return (unsigned long long)(long long)(int)c;  // sign-extended, as mpi4py's .handle
  }
}

MPI_Comm comm_from_int(py::handle h) {
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  unsigned long long v = (unsigned long long)PyLong_AsUnsignedLongLongMask(i.ptr());
  return comm_from_bits<MPI_Comm>(v);
}

py::int_ comm_to_int(MPI_Comm c) { return py::int_(comm_to_bits<MPI_Comm>(c)); }

py::object comm_handle_of(py::handle comm) {
  if (PyIndex_Check(comm.ptr())) return py::reinterpret_borrow<py::object>(comm);
  if (py::hasattr(comm, "handle")) return comm.attr("handle");
  throw py::type_error("argument 'comm' must be an mpi4py communicator or an int MPI handle, "
                       "not " + tname(comm));
}

py::object team_comm(dart_team_t t) {
  MPI_Comm c = MPI_COMM_NULL;
  check(dart_team_comm(t, &c), "dart_team_comm");
  py::object mpi;
  try {
    mpi = py::module_::import("mpi4py.MPI");
  } catch (py::error_already_set &) {
    throw py::import_error("dartpy: team.comm needs mpi4py (pip install mpi4py, built "
                           "against the same MPI: MPICC=... pip install --no-binary=mpi4py "
                           "mpi4py)");
  }
  return mpi.attr("Comm").attr("fromhandle")(comm_to_int(c));
}

Team team_from_comm(py::handle comm, py::handle parent_h) {
  const char *fn = "dartpy.team_from_comm";
  dart_team_t parent = team_arg(parent_h);
  dart_group_t grp = DART_GROUP_NULL;
  if (!comm.is_none()) {
    MPI_Comm c = comm_from_int(comm_handle_of(comm));
    if (c != MPI_COMM_NULL) {
      MPI_Group cg, wg;
      int n = 0;
      if (MPI_Comm_group(c, &cg) != MPI_SUCCESS || MPI_Group_size(cg, &n) != MPI_SUCCESS)
        throw py::value_error(std::string(fn) + ": argument 'comm' is not a valid "
                                                "communicator of this MPI");
      MPI_Comm_group(MPI_COMM_WORLD, &wg);
      std::vector<int> ranks(n), world(n);
      for (int i = 0; i < n; ++i) ranks[i] = i;
      MPI_Group_translate_ranks(cg, n, ranks.data(), wg, world.data());
      MPI_Group_free(&cg);
      MPI_Group_free(&wg);
      check(dart_group_create(&grp), "dart_group_create");
      for (int w : world) {
        if (w == MPI_UNDEFINED) {
          dart_group_destroy(&grp);
          throw py::value_error(std::string(fn) + ": 'comm' has processes outside "
                                                  "MPI_COMM_WORLD");
        }
        dart_group_addmember(grp, dart_global_unit_t{w});
      }
    }
  }
  dart_team_t nt = DART_TEAM_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_create(parent, grp, &nt);
  }
  if (grp != DART_GROUP_NULL) dart_group_destroy(&grp);
  check(rc, "dart_team_create");
  return Team{nt};
}

Team team_create(py::handle parent_h, py::handle group) {
  dart_team_t parent = team_arg(parent_h);
  dart_group_t g = DART_GROUP_NULL;
  if (!group.is_none()) {
    try {
      g = group.cast<const Group &>().get("dart_team_create");
    } catch (py::cast_error &) {
      throw py::type_error("dart_team_create: argument 'group' must be a dartpy.Group or "
                           "None, not " + tname(group));
    }
  }
  dart_team_t nt = DART_TEAM_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_create(parent, g, &nt);
  }
  check(rc, "dart_team_create");
  return Team{nt};
}

void team_destroy(py::handle t) {
  dart_team_t id = team_arg(t);
  const dart_team_t destroyed = id;
  team_segments_check_views(id, "dart_team_destroy");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_destroy(&id);
  }
  direct_cache_invalidate();
  check(rc, "dart_team_destroy");
  team_segments_forget(destroyed);
}

Team team_clone(py::handle t) {
  dart_team_t id = team_arg(t), nt = DART_TEAM_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_clone(id, &nt);
  }
  check(rc, "dart_team_clone");
  return Team{nt};
}

int unit_l2g(py::handle t, int unit) {
  dart_global_unit_t g;
  check(dart_team_unit_l2g(team_arg(t), dart_team_unit_t{unit}, &g), "dart_team_unit_l2g");
  return g.id;
}

int unit_g2l(py::handle t, int unit) {
  dart_team_unit_t l;
  check(dart_team_unit_g2l(team_arg(t), dart_global_unit_t{unit}, &l), "dart_team_unit_g2l");
  return l.id;
}

std::unique_ptr<Group> team_get_group(py::handle t) {
  dart_group_t g = DART_GROUP_NULL;
  check(dart_team_get_group(team_arg(t), &g), "dart_team_get_group");
  return wrap_group(g);
}

// ---- locks ---------------------------------------------------------------------------

struct Lock {
  dart_lock_t l = DART_LOCK_NULL;
  uint64_t generation = 0;
  dart_team_t team = DART_TEAM_NULL;
  bool live() const { return l != DART_LOCK_NULL && generation == g_generation && is_initialized(); }
  dart_lock_t get(const char *fn) const {
    if (!live())
      raise_dart_msg(DART_ERR_INVAL, std::string(fn) + ": the lock was destroyed (or belongs "
                                                       "to an earlier dart.init cycle)");
    return l;
  }
  ~Lock() {
    if (live())
      warn_resource("dartpy.Lock of team " + std::to_string(team) +
                    " collected without team_lock_destroy(); it is released only at "
                    "dart.exit() (collective calls are never made by the garbage collector)");
  }
};

void lock_acquire(Lock &lk) {
  dart_lock_t l = lk.get("dart_lock_acquire");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_lock_acquire(l);
  }
  check(rc, "dart_lock_acquire");
}

bool lock_try_acquire(Lock &lk) {
  dart_lock_t l = lk.get("dart_lock_try_acquire");
  int32_t got = 0;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_lock_try_acquire(l, &got);
  }
  check(rc, "dart_lock_try_acquire");
  return got != 0;
}

void lock_release(Lock &lk) {
  dart_lock_t l = lk.get("dart_lock_release");
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_lock_release(l);
  }
  check(rc, "dart_lock_release");
}

void lock_destroy(Lock &lk) {
  if (!lk.live()) {
    lk.l = DART_LOCK_NULL;
    return;
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_lock_destroy(&lk.l);
  }
  check(rc, "dart_team_lock_destroy");
  lk.l = DART_LOCK_NULL;
}

std::unique_ptr<Lock> lock_init(py::handle team_h) {
  dart_team_t team = team_arg(team_h);
  auto lk = std::make_unique<Lock>();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_lock_init(team, &lk->l);
  }
  check(rc, "dart_team_lock_init");
  lk->generation = g_generation;
  lk->team = team;
  return lk;
}

}  // namespace

void bind_coll(py::module_ &m) {
  // ---- teams ----
  py::class_<Team>(m, "Team", R"(A DART team (value type around the team id).

Usable wherever a team id is expected (it has __index__); TEAM_ALL is Team(0). Destroying
is explicit and collective: team_destroy(team), team.destroy() or a with block.)")
      .def(py::init([](int id) { return Team{(dart_team_t)id}; }), py::arg("id"))
      .def_property_readonly("id", [](const Team &t) { return (int)t.id; })
      .def("__index__", [](const Team &t) { return (int)t.id; })
      .def("__int__", [](const Team &t) { return (int)t.id; })
      .def("__bool__", [](const Team &t) { return t.id != DART_TEAM_NULL; })
      .def("__eq__", [](const Team &t, py::handle o) -> py::object {
        if (py::isinstance<Team>(o)) return py::bool_(o.cast<const Team &>().id == t.id);
        if (PyLong_Check(o.ptr())) return py::bool_(o.cast<long>() == t.id);
        return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      })
      .def("__hash__", [](const Team &t) { return py::hash(py::int_((int)t.id)); })
      .def("__repr__", [](const Team &t) {
        if (t.id == DART_TEAM_ALL) return std::string("dartpy.TEAM_ALL");
        if (t.id == DART_TEAM_NULL) return std::string("dartpy.TEAM_NULL");
        return "dartpy.Team(" + std::to_string(t.id) + ")";
      })
      .def("__reduce__", [](const Team &t) {
        return py::make_tuple(py::module_::import("dartpy").attr("Team"), py::make_tuple((int)t.id));
      })
      .def_property_readonly("size", [](const Team &t) { return team_size(t.id, "dart_team_size"); })
      .def_property_readonly("myid", [](const Team &t) { return team_myid(t.id, "dart_team_myid"); })
      .def_property_readonly("group", [](const Team &t) { return team_get_group(py::cast(t)); })
      .def_property_readonly("comm", [](const Team &t) { return team_comm(t.id); },
                             "The team's communicator as an mpi4py.MPI.Comm (owned by DART: "
                             "do not free it).")
      .def("unit_l2g", [](const Team &t, int u) { return unit_l2g(py::cast(t), u); }, py::arg("unit"))
      .def("unit_g2l", [](const Team &t, int u) { return unit_g2l(py::cast(t), u); }, py::arg("unit"))
      .def("clone", [](const Team &t) { return team_clone(py::cast(t)); })
      .def("destroy", [](const Team &t) { team_destroy(py::cast(t)); })
      .def("barrier", [](const Team &t) { barrier(py::cast(t)); })
      .def("__enter__", [](const Team &t) { return t; })
      .def("__exit__", [](const Team &t, py::handle exc_type, py::handle, py::handle) {
        // While an exception unwinds on this unit the others are elsewhere: a collective
        // destroy would hang them, so the team is left to dart.exit() and the exception
        // goes on (to the abort hook when several units run).
        if (exc_type.is_none() && t.id != DART_TEAM_NULL && t.id != DART_TEAM_ALL)
          team_destroy(py::cast(t));
        return false;
      });
  m.attr("TEAM_ALL") = Team{DART_TEAM_ALL};
  m.attr("TEAM_NULL") = Team{DART_TEAM_NULL};

  m.def("team_create", &team_create, py::arg("team"), py::arg("group"),
        "Collective over `team`: a new team of the group's units; TEAM_NULL on units "
        "outside the group (they may pass None).");
  m.def("team_destroy", &team_destroy, py::arg("team"));
  m.def("team_clone", &team_clone, py::arg("team"));
  m.def("team_myid", [](py::handle t) { return team_myid(team_arg(t), "dart_team_myid"); },
        py::arg("team"));
  m.def("team_size", [](py::handle t) { return team_size(team_arg(t), "dart_team_size"); },
        py::arg("team"));
  m.def("team_get_group", &team_get_group, py::arg("team"));
  m.def("team_unit_l2g", &unit_l2g, py::arg("team"), py::arg("unit"));
  m.def("team_unit_g2l", &unit_g2l, py::arg("team"), py::arg("unit"));
  m.def("team_comm", [](py::handle t) { return team_comm(team_arg(t)); }, py::arg("team"),
        "The team's MPI communicator as an mpi4py.MPI.Comm.");
  m.def("_team_comm_handle", [](py::handle t) {
    MPI_Comm c = MPI_COMM_NULL;
    check(dart_team_comm(team_arg(t), &c), "dart_team_comm");
    return comm_to_int(c);
  }, py::arg("team"));
  m.def("team_from_comm", &team_from_comm, py::arg("comm"), py::arg("parent") = Team{DART_TEAM_ALL},
        "Collective over `parent`: a team of the processes of an mpi4py communicator "
        "(units not in any such communicator pass None or COMM_NULL).");

  // ---- groups ----
  py::class_<Group>(m, "Group", "A DART group: a sorted set of global unit ids (local object).")
      .def(py::init([]() { return group_create(); }))
      .def("addmember", [](Group &g, int u) {
        check(dart_group_addmember(g.get("dart_group_addmember"), dart_global_unit_t{u}),
              "dart_group_addmember");
      }, py::arg("unit"))
      .def("delmember", [](Group &g, int u) {
        check(dart_group_delmember(g.get("dart_group_delmember"), dart_global_unit_t{u}),
              "dart_group_delmember");
      }, py::arg("unit"))
      .def("ismember", [](const Group &g, int u) {
        int32_t r = 0;
        check(dart_group_ismember(g.get("dart_group_ismember"), dart_global_unit_t{u}, &r),
              "dart_group_ismember");
        return r != 0;
      }, py::arg("unit"))
      .def("__contains__", [](const Group &g, int u) {
        int32_t r = 0;
        check(dart_group_ismember(g.get("dart_group_ismember"), dart_global_unit_t{u}, &r),
              "dart_group_ismember");
        return r != 0;
      })
      .def("size", [](const Group &g) {
        size_t n = 0;
        check(dart_group_size(g.get("dart_group_size"), &n), "dart_group_size");
        return n;
      })
      .def("__len__", [](const Group &g) {
        size_t n = 0;
        check(dart_group_size(g.get("dart_group_size"), &n), "dart_group_size");
        return n;
      })
      .def("getmembers", &group_members)
      .def_property_readonly("members", &group_members)
      .def("clone", [](const Group &g) {
        dart_group_t out = DART_GROUP_NULL;
        check(dart_group_clone(g.get("dart_group_clone"), &out), "dart_group_clone");
        return wrap_group(out);
      })
      .def("union", [](const Group &a, const Group &b) { return group_binop(a, b, true); })
      .def("intersect", [](const Group &a, const Group &b) { return group_binop(a, b, false); })
      .def("__or__", [](const Group &a, const Group &b) { return group_binop(a, b, true); })
      .def("__and__", [](const Group &a, const Group &b) { return group_binop(a, b, false); })
      .def("split", [](const Group &g, size_t n) {
        if (n == 0) throw py::value_error("dart_group_split: argument 'n' must be >= 1");
        std::vector<dart_group_t> out(n, DART_GROUP_NULL);
        size_t nout = 0;
        // dart_group_split creates the groups it returns (entries past nout: NULL).
        dart_ret_t rc = dart_group_split(g.get("dart_group_split"), n, &nout, out.data());
        py::list res;
        for (size_t i = 0; rc == DART_OK && i < nout; ++i) res.append(py::cast(wrap_group(out[i])));
        check(rc, "dart_group_split");
        return res;
      }, py::arg("n"))
      .def("destroy", [](Group &g) {
        if (g.g != DART_GROUP_NULL && g.generation == g_generation && is_initialized())
          check(dart_group_destroy(&g.g), "dart_group_destroy");
        g.g = DART_GROUP_NULL;
      })
      .def("__repr__", [](const Group &g) {
        if (g.g == DART_GROUP_NULL || g.generation != g_generation || !is_initialized())
          return std::string("<dartpy.Group (destroyed)>");
        std::string s = "<dartpy.Group [";
        auto mem = group_members(g);
        for (size_t i = 0; i < mem.size(); ++i) s += (i ? ", " : "") + std::to_string(mem[i]);
        return s + "]>";
      });
  m.def("group_create", &group_create);
  m.def("group_destroy", [](Group &g) {
    check(dart_group_destroy(&g.g), "dart_group_destroy");
    g.g = DART_GROUP_NULL;
  }, py::arg("group"));
  m.def("group_clone", [](const Group &g) {
    dart_group_t out = DART_GROUP_NULL;
    check(dart_group_clone(g.get("dart_group_clone"), &out), "dart_group_clone");
    return wrap_group(out);
  }, py::arg("group"));
  m.def("group_union", [](const Group &a, const Group &b) { return group_binop(a, b, true); },
        py::arg("g1"), py::arg("g2"));
  m.def("group_intersect", [](const Group &a, const Group &b) { return group_binop(a, b, false); },
        py::arg("g1"), py::arg("g2"));
  m.def("group_addmember", [](Group &g, int u) {
    check(dart_group_addmember(g.get("dart_group_addmember"), dart_global_unit_t{u}),
          "dart_group_addmember");
  }, py::arg("group"), py::arg("unit"));
  m.def("group_delmember", [](Group &g, int u) {
    check(dart_group_delmember(g.get("dart_group_delmember"), dart_global_unit_t{u}),
          "dart_group_delmember");
  }, py::arg("group"), py::arg("unit"));
  m.def("group_ismember", [](const Group &g, int u) {
    int32_t r = 0;
    check(dart_group_ismember(g.get("dart_group_ismember"), dart_global_unit_t{u}, &r),
          "dart_group_ismember");
    return r != 0;
  }, py::arg("group"), py::arg("unit"));
  m.def("group_size", [](const Group &g) {
    size_t n = 0;
    check(dart_group_size(g.get("dart_group_size"), &n), "dart_group_size");
    return n;
  }, py::arg("group"));
  m.def("group_getmembers", &group_members, py::arg("group"));
  m.def("group_split", [](py::object g, size_t n) { return g.attr("split")(n); },
        py::arg("group"), py::arg("n"));

  // ---- locks ----
  py::class_<Lock>(m, "Lock", R"(A DART team lock (MCS queue lock), usable as a context manager.

Created collectively by team_lock_init(team); destroyed collectively by
team_lock_destroy(lock) / lock.destroy().)")
      .def("acquire", &lock_acquire)
      .def("try_acquire", &lock_try_acquire)
      .def("release", &lock_release)
      .def("destroy", &lock_destroy)
      .def_property_readonly("initialized", [](const Lock &l) {
        return l.live() && dart_lock_initialized(l.l);
      })
      .def_property_readonly("team", [](const Lock &l) { return Team{l.team}; })
      .def("__enter__", [](py::object self) {
        lock_acquire(self.cast<Lock &>());
        return self;
      })
      .def("__exit__", [](Lock &l, py::handle, py::handle, py::handle) {
        lock_release(l);
        return false;
      });
  m.def("team_lock_init", &lock_init, py::arg("team"));
  m.def("team_lock_destroy", &lock_destroy, py::arg("lock"));
  m.def("lock_acquire", &lock_acquire, py::arg("lock"));
  m.def("lock_try_acquire", &lock_try_acquire, py::arg("lock"));
  m.def("lock_release", &lock_release, py::arg("lock"));
  m.def("lock_initialized", [](const Lock &l) { return l.live() && dart_lock_initialized(l.l); },
        py::arg("lock"));

  // ---- collectives and two-sided ----
  py::object all = py::cast(Team{DART_TEAM_ALL});
  m.def("barrier", &barrier, py::arg("team") = all);
  m.def("bcast", &bcast, py::arg("buf"), py::arg("root") = 0, py::arg("team") = all);
  m.def("scatter", &scatter, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0,
        py::arg("team") = all);
  m.def("gather", &gather, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("root") = 0,
        py::arg("team") = all);
  m.def("allgather", &allgather, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("team") = all);
  m.def("allgatherv", &allgatherv, py::arg("sendbuf"), py::arg("recvbuf"),
        py::arg("nrecvelem"), py::arg("recvdispls"), py::arg("team") = all);
  m.def("reduce", &reduce, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("op"),
        py::arg("root") = 0, py::arg("team") = all);
  m.def("allreduce", &allreduce, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("op"),
        py::arg("team") = all);
  m.def("alltoall", &alltoall, py::arg("sendbuf"), py::arg("recvbuf"), py::arg("team") = all);
  m.def("send", &send, py::arg("buf"), py::arg("tag"), py::arg("unit"));
  m.def("recv", &recv, py::arg("buf"), py::arg("tag"), py::arg("unit"));
  m.def("sendrecv", &sendrecv, py::arg("sendbuf"), py::arg("send_tag"), py::arg("dest"),
        py::arg("recvbuf"), py::arg("recv_tag"), py::arg("src"));

  // ---- user reduction operations ----
  py::class_<Op>(m, "Op", "A user-defined reduction operation (dartpy.op_create).")
      .def("__index__", &Op::value)
      .def("__int__", &Op::value)
      .def("destroy", &Op::destroy)
      .def_property_readonly("dtype", [](const Op &o) -> py::object {
        return o.u ? g_slot_dtype[o.u->slot] : py::object(py::none());
      });
  m.def("op_create", [](py::function fn, py::handle dtype, bool commute) {
    int slot = slot_of_dtype(dtype, "dart_op_create", "dtype");
    if (g_slots[slot].arith == DART_TYPE_UNDEFINED)
      throw py::type_error("dart_op_create: dtype " + std::string(g_slots[slot].name) +
                           " has no DART arithmetic type");
    auto u = std::make_unique<UserOp>();
    u->fn = fn;
    u->slot = slot;
    u->generation = g_generation;
    check(dart_op_create(&op_trampoline, u.get(), commute, g_slots[slot].arith, false, &u->op),
          "dart_op_create");
    auto op = std::make_unique<Op>();
    op->u = u.release();
    g_user_ops[(intptr_t)op->u->op] = op->u;
    return op;
  }, py::arg("fn"), py::arg("dtype"), py::arg("commute") = true,
     "fn(invec, inoutvec) updates inoutvec in place (inoutvec = invec op inoutvec); it must "
     "not call dartpy.");
  m.def("op_destroy", [](Op &o) { o.destroy(); }, py::arg("op"));
}

}  // namespace dartpy
