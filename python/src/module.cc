// dartpy._core: errors, dtypes, init/exit, global pointers, memory and NumPy views.
#include "core.h"

#include <pybind11/eval.h>

#include <algorithm>
#include <cstring>

namespace dartpy {

py::object g_dart_error;
uint64_t g_generation = 0;
SlotInfo g_slots[S_COUNT];
py::object g_slot_dtype[S_COUNT];

namespace {

bool g_mpi_started = false;  // this module called MPI_Init_thread
int g_slot_of_typenum[64];

std::unordered_map<uint32_t, std::shared_ptr<SegRecord>> g_segs;  // (team, seg) -> record
std::map<uint64_t, std::shared_ptr<SegRecord>> g_pool;             // own pool blocks
std::shared_ptr<SegRecord> g_pool_other;  // any pool memory not allocated here

const char *thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
  }
}

int thread_level_from(py::handle h) {
  if (h.is_none()) return MPI_THREAD_SERIALIZED;
  std::string s = py::str(h);
  if (s == "single") return MPI_THREAD_SINGLE;
  if (s == "funneled") return MPI_THREAD_FUNNELED;
  if (s == "serialized") return MPI_THREAD_SERIALIZED;
  if (s == "multiple") return MPI_THREAD_MULTIPLE;
  throw py::value_error("dartpy.init: argument 'thread_level' must be 'single', 'funneled', "
                        "'serialized' or 'multiple', not '" + s + "'");
}

void set_slot(Slot s, const char *name, size_t itemsize, dart_datatype_t xfer, size_t mult,
              dart_datatype_t arith) {
  g_slots[s] = SlotInfo{name, itemsize, xfer, mult, arith};
}

void init_slots() {
  static_assert(sizeof(int) == 4 && sizeof(long long) == 8, "LP64 platform expected");
  set_slot(S_BOOL, "bool", 1, DART_TYPE_BYTE, 1, DART_TYPE_UNDEFINED);
  set_slot(S_I8, "int8", 1, DART_TYPE_BYTE, 1, DART_TYPE_BYTE);
  set_slot(S_U8, "uint8", 1, DART_TYPE_BYTE, 1, DART_TYPE_BYTE);
  set_slot(S_I16, "int16", 2, DART_TYPE_SHORT, 1, DART_TYPE_SHORT);
  set_slot(S_U16, "uint16", 2, DART_TYPE_SHORT, 1, DART_TYPE_UNDEFINED);
  set_slot(S_I32, "int32", 4, DART_TYPE_INT, 1, DART_TYPE_INT);
  set_slot(S_U32, "uint32", 4, DART_TYPE_UINT, 1, DART_TYPE_UINT);
  set_slot(S_I64, "int64", 8, DART_TYPE_LONGLONG, 1, DART_TYPE_LONGLONG);
  set_slot(S_U64, "uint64", 8, DART_TYPE_ULONGLONG, 1, DART_TYPE_ULONGLONG);
  set_slot(S_F16, "float16", 2, DART_TYPE_SHORT, 1, DART_TYPE_UNDEFINED);
  set_slot(S_F32, "float32", 4, DART_TYPE_FLOAT, 1, DART_TYPE_FLOAT);
  set_slot(S_F64, "float64", 8, DART_TYPE_DOUBLE, 1, DART_TYPE_DOUBLE);
  set_slot(S_LD, "longdouble", sizeof(long double), DART_TYPE_LONG_DOUBLE, 1,
           DART_TYPE_LONG_DOUBLE);
  set_slot(S_C64, "complex64", 8, DART_TYPE_FLOAT, 2, DART_TYPE_UNDEFINED);
  set_slot(S_C128, "complex128", 16, DART_TYPE_DOUBLE, 2, DART_TYPE_UNDEFINED);
  set_slot(S_CLD, "clongdouble", 2 * sizeof(long double), DART_TYPE_LONG_DOUBLE, 2,
           DART_TYPE_UNDEFINED);
  py::module_ np = py::module_::import("numpy");
  for (int s = 0; s < S_COUNT; ++s) g_slot_dtype[s] = np.attr("dtype")(g_slots[s].name);

  for (int &v : g_slot_of_typenum) v = S_NONE;
  // Derive the mapping from NumPy itself (type numbers of the C types on this platform).
  for (int s = 0; s < S_COUNT; ++s) {
    int num = py::detail::array_descriptor_proxy(g_slot_dtype[s].ptr())->type_num;
    if (num >= 0 && num < 64) g_slot_of_typenum[num] = s;
  }
  // Aliases of the same width: long/longlong, int/long on other platforms.
  const char *aliases[][2] = {{"longlong", "int64"}, {"ulonglong", "uint64"},
                              {"long", "int64"},     {"ulong", "uint64"},
                              {"intc", "int32"},     {"uintc", "uint32"},
                              {"byte", "int8"},      {"ubyte", "uint8"}};
  for (auto &a : aliases) {
    py::object d;
    try {
      d = np.attr("dtype")(a[0]);
    } catch (py::error_already_set &) {
      continue;  // e.g. "ulong" on NumPy < 2
    }
    int num = py::detail::array_descriptor_proxy(d.ptr())->type_num;
    size_t isz = (size_t)d.attr("itemsize").cast<size_t>();
    for (int s = 0; s < S_COUNT; ++s)
      if (std::strcmp(g_slots[s].name, a[1]) == 0 && g_slots[s].itemsize == isz && num >= 0 &&
          num < 64 && g_slot_of_typenum[num] == S_NONE)
        g_slot_of_typenum[num] = s;
  }
}

std::shared_ptr<SegRecord> new_record(int16_t team, int16_t seg, int slot, size_t nelem) {
  auto r = std::make_shared<SegRecord>();
  r->team = team;
  r->seg = seg;
  r->slot = slot;
  r->nelem = nelem;
  r->generation = g_generation;
  return r;
}

void drop_all_records() {
  for (auto &kv : g_segs) kv.second->freed = true;
  for (auto &kv : g_pool) kv.second->freed = true;
  g_segs.clear();
  g_pool.clear();
  if (g_pool_other) g_pool_other->freed = true;
  g_pool_other.reset();
}

long live_views() {
  long n = 0;
  for (auto &kv : g_segs) n += kv.second->views;
  for (auto &kv : g_pool) n += kv.second->views;
  if (g_pool_other) n += g_pool_other->views;
  return n;
}

// Views still alive are often only unreachable garbage in a reference cycle.
void collect_garbage() { py::module_::import("gc").attr("collect")(); }

// Collective check before a collective free: every unit of `team` learns whether any unit
// still has views, so all of them raise together instead of some hanging in the free.
// Returns the largest number of live views on any unit.
long views_anywhere(dart_team_t team, long mine, const char *fn) {
  long long in = mine, out = 0;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_allreduce(&in, &out, 1, DART_TYPE_LONGLONG, DART_OP_MAX, team);
  }
  if (rc != DART_OK) raise_dart(rc, fn);
  return (long)out;
}

// ---- the NumPy view owner ------------------------------------------------------------

// Base object of every NumPy view of global memory: keeps the segment's record alive and
// counts as a live view until NumPy releases it (slices keep it alive too).
struct ViewOwner {
  std::shared_ptr<SegRecord> rec;
  explicit ViewOwner(std::shared_ptr<SegRecord> r) : rec(std::move(r)) { ++rec->views; }
  ~ViewOwner() { --rec->views; }
  ViewOwner(const ViewOwner &) = delete;
  ViewOwner &operator=(const ViewOwner &) = delete;
};

std::vector<py::ssize_t> parse_shape(py::handle shape, const char *fn) {
  auto as_index = [&](py::handle h) -> py::ssize_t {
    if (!PyIndex_Check(h.ptr()))
      throw py::type_error(std::string(fn) + ": argument 'shape' must be an int or a "
                                             "sequence of ints");
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
    if (!i) throw py::error_already_set();
    return i.cast<py::ssize_t>();
  };
  std::vector<py::ssize_t> out;
  if (PyIndex_Check(shape.ptr())) {
    out.push_back(as_index(shape));
  } else {
    if (!PySequence_Check(shape.ptr()))
      throw py::type_error(std::string(fn) + ": argument 'shape' must be an int or a "
                                             "sequence of ints");
    for (auto item : py::iter(shape)) out.push_back(as_index(item));
  }
  for (auto v : out)
    if (v < 0)
      throw py::value_error(std::string(fn) + ": argument 'shape' has a negative extent");
  return out;
}


py::ssize_t shape_size(const std::vector<py::ssize_t> &shape) {
  py::ssize_t n = 1;
  for (auto v : shape) n *= v;
  return n;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------------------

void raise_dart_msg(dart_ret_t rc, const std::string &msg) {
  py::object e = g_dart_error(msg);
  e.attr("code") = py::int_((int)rc);
  PyErr_SetObject(g_dart_error.ptr(), e.ptr());
  throw py::error_already_set();
}

void raise_dart(dart_ret_t rc, const char *call) {
  std::string detail = dart_error_detail();
  std::string msg = std::string(call) + " failed: " + dart_strerror(rc) + " (code " +
                    std::to_string((int)rc) + ")";
  if (!detail.empty()) msg += ": " + detail;
  py::object e = g_dart_error(msg);
  e.attr("code") = py::int_((int)rc);
  e.attr("detail") = py::str(detail);
  PyErr_SetObject(g_dart_error.ptr(), e.ptr());
  throw py::error_already_set();
}

bool g_serialize = true;

std::mutex &core_mutex() {
  static std::mutex m;
  return m;
}

// ---------------------------------------------------------------------------------------
// dtypes
// ---------------------------------------------------------------------------------------

int slot_of_typenum(int type_num) {
  return (type_num >= 0 && type_num < 64) ? g_slot_of_typenum[type_num] : S_NONE;
}

std::string slot_name(int slot) { return slot >= 0 ? g_slots[slot].name : "untyped"; }

int slot_of_dtype(py::handle dtype_like, const char *fn, const char *arg) {
  py::object d;
  try {
    d = py::module_::import("numpy").attr("dtype")(dtype_like);
  } catch (py::error_already_set &) {
    throw py::type_error(std::string(fn) + ": argument '" + arg + "' is not a NumPy dtype: " +
                         std::string(py::repr(dtype_like)));
  }
  auto *p = py::detail::array_descriptor_proxy(d.ptr());
  int s = slot_of_typenum(p->type_num);
  if (s == S_NONE)
    throw py::type_error(std::string(fn) + ": argument '" + arg + "': dtype " +
                         std::string(py::str(d)) + " is not supported (use a NumPy bool, "
                         "integer, floating or complex dtype)");
  if (p->byteorder == '>')
    throw py::type_error(std::string(fn) + ": argument '" + arg +
                         "': non-native byte order is not supported");
  return s;
}

// ---------------------------------------------------------------------------------------
// global pointers and records
// ---------------------------------------------------------------------------------------

GptrFields fields(const dart_gptr_t &g) {
  GptrFields f;
  dart_gptr_fields(&g, &f.unit, &f.flags, &f.segid, &f.teamid, &f.offset);
  return f;
}

uint32_t seg_key(int16_t team, int16_t seg) {
  return ((uint32_t)(uint16_t)team << 16) | (uint32_t)(uint16_t)seg;
}

bool is_initialized() { return dart_initialized(); }

std::shared_ptr<SegRecord> find_record(int16_t team, int16_t seg, int unit, uint64_t offset) {
  if (seg == DART_SEGMENT_LOCAL && team == DART_TEAM_ALL) {
    dart_global_unit_t me;
    if (dart_myid(&me) == DART_OK && me.id == unit && !g_pool.empty()) {
      auto it = g_pool.upper_bound(offset);
      if (it != g_pool.begin()) {
        --it;
        const auto &r = it->second;
        size_t nbytes = r->nelem * (r->slot >= 0 ? g_slots[r->slot].itemsize : 1);
        if (offset < it->first + std::max<size_t>(nbytes, 1)) return r;
      }
    }
    return g_pool_other;
  }
  auto it = g_segs.find(seg_key(team, seg));
  return it == g_segs.end() ? nullptr : it->second;
}

int gptr_slot(const Gptr &gp) {
  if (gp.slot != S_NONE) return gp.slot;
  GptrFields f = fields(gp.g);
  if (f.segid == DART_SEGMENT_LOCAL) {
    auto r = find_record(f.teamid, f.segid, f.unit, f.offset);
    return (r && r != g_pool_other) ? r->slot : S_NONE;
  }
  auto it = g_segs.find(seg_key(f.teamid, f.segid));
  return it == g_segs.end() ? S_NONE : it->second->slot;
}

// ---------------------------------------------------------------------------------------
// init / exit
// ---------------------------------------------------------------------------------------

namespace {

// Initializes MPI here when nobody did, so that dart.exit() never finalizes it and
// dart.init()/dart.exit() can cycle; MPI_Finalize runs at interpreter exit.
int init_impl(bool thread_multiple, py::handle thread_level) {
  int requested = thread_multiple ? MPI_THREAD_MULTIPLE : thread_level_from(thread_level);
  if (dart_initialized())
    raise_dart_msg(DART_ERR_INVAL, "dartpy.init: DART is already initialized (call "
                                   "dartpy.exit() first)");
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized)
    raise_dart_msg(DART_ERR_OTHER, "dartpy.init: MPI is already finalized in this process; "
                                   "it cannot be initialized again");
  dart_ret_t rc;
  dart_thread_support_level_t level = DART_THREAD_SINGLE;
  {
    Nogil ng;
    if (!inited) {
      int provided = 0;
      int mrc = MPI_Init_thread(nullptr, nullptr, requested, &provided);
      if (mrc != MPI_SUCCESS) {
        rc = DART_ERR_OTHER;
        goto done;
      }
      g_mpi_started = true;
    }
    if (thread_multiple) {
      rc = dart_init_thread(nullptr, nullptr, &level);
    } else {
      rc = dart_init(nullptr, nullptr);
    }
  done:;
  }
  if (rc != DART_OK) raise_dart(rc, thread_multiple ? "dart_init_thread" : "dart_init");
  // Concurrent calls from several threads only where the runtime says it supports them.
  g_serialize = !(thread_multiple && level == DART_THREAD_MULTIPLE);
  ++g_generation;
  g_pool_other = new_record(DART_TEAM_ALL, DART_SEGMENT_LOCAL, S_NONE, 0);
  g_pool_other->pool = true;
  return (int)level;
}

void exit_impl(bool check_views) {
  if (!dart_initialized())
    raise_dart_msg(DART_ERR_NOTINIT, "dart_exit failed: DART is not initialized (code 4)");
  if (check_views) {
    long mine = live_views();
    if (mine > 0) {
      collect_garbage();
      mine = live_views();
    }
    long any = views_anywhere(DART_TEAM_ALL, mine, "dartpy.exit");
    if (any > 0) {
      throw py::buffer_error(
          "dartpy.exit: " +
          (mine > 0 ? std::to_string(mine) + " NumPy view(s) of global memory are still "
                                              "alive on this unit"
                    : std::string("NumPy views of global memory are still alive on "
                                  "another unit")) +
          "; delete them (del view) before dart.exit(), which frees all global memory");
    }
  }
  type_cache_clear();
  direct_cache_invalidate();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_exit();
  }
  // Only now: non-blocking put/get to other nodes complete in dart_exit (its windows are
  // unlocked there), so their NumPy buffers must live until it returns.
  pending_clear_all();
  drop_all_records();
  check(rc, "dart_exit");
}

void finalize_mpi() {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (g_mpi_started && inited && !finalized) {
    py::gil_scoped_release rel;
    MPI_Finalize();
  }
}

// ---------------------------------------------------------------------------------------
// memory
// ---------------------------------------------------------------------------------------

Gptr make_gptr(const dart_gptr_t &g, int slot) {
  Gptr r;
  r.g = g;
  r.slot = (int8_t)slot;
  return r;
}

size_t alloc_bytes(int slot, size_t nelem, const char *fn) {
  size_t isz = g_slots[slot].itemsize;
  if (nelem > SIZE_MAX / 2 / isz)
    throw py::value_error(std::string(fn) + ": argument 'nelem' is too large");
  return nelem * isz;
}

Gptr team_memalloc_aligned(py::handle team_h, size_t nelem, py::handle dtype) {
  const char *fn = "dart_team_memalloc_aligned";
  int slot = slot_of_dtype(dtype, fn, "dtype");
  dart_team_t team = team_arg(team_h);
  size_t nbytes = alloc_bytes(slot, nelem, fn);
  dart_gptr_t g = DART_GPTR_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_memalloc_aligned(team, nbytes, DART_TYPE_BYTE, &g);
  }
  check(rc, fn);
  GptrFields f = fields(g);
  auto rec = new_record(f.teamid, f.segid, slot, nelem);
  rec->collective = true;
  g_segs[seg_key(f.teamid, f.segid)] = rec;
  return make_gptr(g, slot);
}

Gptr memalloc(size_t nelem, py::handle dtype) {
  const char *fn = "dart_memalloc";
  int slot = slot_of_dtype(dtype, fn, "dtype");
  size_t nbytes = alloc_bytes(slot, nelem, fn);
  dart_gptr_t g = DART_GPTR_NULL;
  dart_ret_t rc;
  {
    Locked l;
    rc = dart_memalloc(nbytes, DART_TYPE_BYTE, &g);
  }
  check(rc, fn);
  GptrFields f = fields(g);
  auto rec = new_record(f.teamid, f.segid, slot, nelem);
  rec->pool = true;
  rec->pool_offset = f.offset;
  g_pool[f.offset] = rec;
  return make_gptr(g, slot);
}

std::string views_alive_msg(const char *fn, long n) {
  return std::string(fn) + ": " + std::to_string(n) +
         " NumPy view(s) of this memory are still alive; delete them (del view) before "
         "freeing it";
}

void memfree(const Gptr &gp) {
  const char *fn = "dart_memfree";
  GptrFields f = fields(gp.g);
  std::shared_ptr<SegRecord> rec;
  if (f.segid == DART_SEGMENT_LOCAL && f.teamid == DART_TEAM_ALL) {
    auto it = g_pool.find(f.offset);
    if (it != g_pool.end()) rec = it->second;
  }
  if (rec && rec->views > 0) {
    collect_garbage();
    if (rec->views > 0) throw py::buffer_error(views_alive_msg(fn, rec->views));
  }
  dart_ret_t rc;
  {
    Locked l;
    rc = dart_memfree(gp.g);
  }
  check(rc, fn);
  if (rec) {
    rec->freed = true;
    g_pool.erase(f.offset);
  }
}

bool team_is_live(dart_team_t team) {
  dart_team_unit_t me;
  return dart_team_myid(team, &me) == DART_OK;
}

// Collective frees: team_memfree / team_memderegister.
void team_free(const Gptr &gp, bool registered) {
  const char *fn = registered ? "dart_team_memderegister" : "dart_team_memfree";
  GptrFields f = fields(gp.g);
  std::shared_ptr<SegRecord> rec;
  if (f.segid != DART_SEGMENT_LOCAL) {
    auto it = g_segs.find(seg_key(f.teamid, f.segid));
    if (it != g_segs.end()) rec = it->second;
  }
  if (f.segid != DART_SEGMENT_LOCAL && team_is_live(f.teamid)) {
    // Every unit of a live team takes part in the check, with or without a record here
    // (a unit may have viewed memory that another unit's binding allocated); errors for
    // anything else come from the core (the same on every unit, so nobody hangs).
    long mine = rec ? rec->views : 0;
    if (mine > 0) {
      collect_garbage();
      mine = rec->views;
    }
    long any = views_anywhere(f.teamid, mine, fn);
    if (any > 0)
      throw py::buffer_error(mine > 0 ? views_alive_msg(fn, mine)
                                      : std::string(fn) + ": NumPy views of this memory "
                                        "are still alive on another unit; nothing was freed");
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = registered ? dart_team_memderegister(gp.g) : dart_team_memfree(gp.g);
  }
  direct_cache_invalidate();
  check(rc, fn);
  if (rec) {
    rec->freed = true;
    rec->keep = py::object();
    g_segs.erase(seg_key(f.teamid, f.segid));
  }
  pending_clear_segment(f.teamid, f.segid);
}

Gptr team_memregister(py::handle team_h, py::handle array, bool aligned) {
  const char *fn = aligned ? "dart_team_memregister_aligned" : "dart_team_memregister";
  Buffer b = describe(array, true, true, fn, "array");
  dart_team_t team = team_arg(team_h);
  dart_gptr_t g = DART_GPTR_NULL;
  dart_ret_t rc;
  size_t nbytes = b.size * g_slots[b.slot].itemsize;
  {
    Nogil ng;
    rc = aligned ? dart_team_memregister_aligned(team, nbytes, DART_TYPE_BYTE, b.ptr, &g)
                 : dart_team_memregister(team, nbytes, DART_TYPE_BYTE, b.ptr, &g);
  }
  check(rc, fn);
  GptrFields f = fields(g);
  auto rec = new_record(f.teamid, f.segid, b.slot, b.size);
  rec->collective = true;
  rec->keep = b.obj;
  g_segs[seg_key(f.teamid, f.segid)] = rec;
  return make_gptr(g, b.slot);
}

// dart.view(gptr, shape=None, dtype=None): a zero-copy ndarray of memory on this node.
py::array view(const Gptr &gp, py::handle shape_h, py::handle dtype_h) {
  const char *fn = "dartpy.view";
  int slot = dtype_h.is_none() ? gptr_slot(gp) : slot_of_dtype(dtype_h, fn, "dtype");
  if (slot == S_NONE)
    throw py::type_error(std::string(fn) + ": the gptr carries no dtype; pass dtype=");
  std::vector<py::ssize_t> shape;
  if (!shape_h.is_none()) shape = parse_shape(shape_h, fn);  // bad arguments first
  void *addr = nullptr;
  size_t segbytes = 0;
  dart_ret_t rc;
  {
    Locked l;
    rc = dart_gptr_getaddr_node(gp.g, &addr);
    if (rc == DART_OK) rc = dart_gptr_segment_size(gp.g, &segbytes);
  }
  GptrFields f = fields(gp.g);
  if (rc != DART_OK) {
    std::string detail = dart_error_detail();
    int32_t mynode = -1, node = -1;
    dart_global_unit_t me{};
    dart_global_unit_t gu{};
    bool other_node = false;
    if (rc == DART_ERR_INVAL && dart_myid(&me) == DART_OK &&
        dart_team_unit_l2g(f.teamid, dart_team_unit_t{f.unit}, &gu) == DART_OK &&
        dart_unit_node(me, &mynode) == DART_OK && dart_unit_node(gu, &node) == DART_OK &&
        node != mynode)
      other_node = true;
    if (other_node)
      raise_dart_msg(rc, std::string(fn) + ": unit " + std::to_string(f.unit) + " of team " +
                             std::to_string(f.teamid) + " (global unit " +
                             std::to_string(gu.id) + ") is on node " + std::to_string(node) +
                             ", this unit (" + std::to_string(me.id) + ") on node " +
                             std::to_string(mynode) +
                             ": memory of another node has no load/store view; use "
                             "dart.get/dart.put (details: " + detail + ")");
    raise_dart(rc, "dart_gptr_getaddr_node");
  }
  size_t isz = g_slots[slot].itemsize;
  size_t avail = f.offset <= segbytes ? segbytes - f.offset : 0;
  auto rec = find_record(f.teamid, f.segid, f.unit, f.offset);
  const bool own_block = rec && rec->pool && rec != g_pool_other;
  if (own_block) {  // a dart_memalloc block: the view ends where the block ends
    size_t end = rec->pool_offset + rec->nelem * (rec->slot >= 0 ? g_slots[rec->slot].itemsize : 1);
    avail = std::min(avail, end > f.offset ? end - f.offset : 0);
  }
  if (shape_h.is_none()) shape.push_back((py::ssize_t)(avail / isz));
  size_t need = (size_t)shape_size(shape) * isz;
  if (need > avail)
    throw py::value_error(std::string(fn) + ": argument 'shape' needs " + std::to_string(need) +
                          " bytes but only " + std::to_string(avail) + " remain in " +
                          (own_block ? std::string("this dart_memalloc block")
                                     : "unit " + std::to_string(f.unit) +
                                           "'s part of the segment") +
                          " after offset " + std::to_string(f.offset));
  if (!rec) {
    // A live segment the binding did not allocate (e.g. from another init cycle's
    // gptr after a re-allocation): track it under a fresh record.
    rec = new_record(f.teamid, f.segid, slot, 0);
    g_segs[seg_key(f.teamid, f.segid)] = rec;
  }
  py::object owner = py::cast(new ViewOwner(rec), py::return_value_policy::take_ownership);
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t st = (py::ssize_t)isz;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = st;
    st *= shape[i];
  }
  return py::array(py::dtype::from_args(g_slot_dtype[slot]), shape, strides, addr, owner);
}

long views_of(const Gptr &gp) {
  GptrFields f = fields(gp.g);
  auto r = find_record(f.teamid, f.segid, f.unit, f.offset);
  return r ? r->views : 0;
}

// ---- Gptr helpers ----

Gptr gptr_new(int32_t unit, int16_t segid, int16_t teamid, uint64_t offset, int32_t flags,
              py::handle dtype) {
  Gptr r;
  dart_ret_t rc = dart_gptr_make(unit, flags, segid, teamid, offset, &r.g);
  if (rc != DART_OK)
    throw py::value_error(std::string("dartpy.Gptr: ") + dart_error_detail());
  r.slot = (int8_t)(dtype.is_none() ? S_NONE : slot_of_dtype(dtype, "dartpy.Gptr", "dtype"));
  return r;
}

Gptr gptr_offset_elems(const Gptr &gp, py::ssize_t k) {
  if (gp.slot == S_NONE)
    throw py::type_error("dartpy.Gptr: element arithmetic needs a typed gptr (this one has "
                         "no dtype; use gptr.astype(dtype) or dart.gptr_incaddr for bytes)");
  Gptr r = gp;
  dart_gptr_incaddr(&r.g, (int64_t)k * (int64_t)g_slots[gp.slot].itemsize);
  return r;
}

py::tuple gptr_key(const Gptr &gp) {
  GptrFields f = fields(gp.g);
  return py::make_tuple(f.unit, f.segid, f.teamid, f.offset);
}

std::string gptr_repr(const Gptr &gp) {
  GptrFields f = fields(gp.g);
  return "Gptr(unit=" + std::to_string(f.unit) + ", segid=" + std::to_string(f.segid) +
         ", teamid=" + std::to_string(f.teamid) + ", offset=" + std::to_string(f.offset) +
         ", flags=" + std::to_string(f.flags) +
         (gp.slot == S_NONE ? std::string(", dtype=None)")
                            : ", dtype=" + std::string(g_slots[gp.slot].name) + ")");
}


}  // namespace

void team_segments_check_views(dart_team_t team, const char *fn) {
  if (team == DART_TEAM_ALL || !team_is_live(team)) return;  // the core reports those
  auto count = [team] {
    long n = 0;
    for (auto &kv : g_segs)
      if (kv.second->team == team) n += kv.second->views;
    return n;
  };
  long mine = count();
  if (mine > 0) {
    collect_garbage();
    mine = count();
  }
  if (views_anywhere(team, mine, fn) > 0)
    throw py::buffer_error(mine > 0 ? views_alive_msg(fn, mine) + " (of the team's memory)"
                                    : std::string(fn) + ": NumPy views of this team's memory "
                                      "are still alive on another unit; nothing was freed");
}

void team_segments_forget(dart_team_t team) {
  for (auto it = g_segs.begin(); it != g_segs.end();) {
    if (it->second->team == team) {
      it->second->freed = true;
      it->second->keep = py::object();
      pending_clear_segment(team, it->second->seg);
      it = g_segs.erase(it);
    } else {
      ++it;
    }
  }
}

// ---------------------------------------------------------------------------------------
// module registration: errors, init, gptr, memory
// ---------------------------------------------------------------------------------------

void bind_module(py::module_ &m) {
  init_slots();

  py::module_ builtins = py::module_::import("builtins");
  py::dict ns;
  ns["__builtins__"] = builtins;
  ns["__name__"] = "dartpy";
  py::exec(R"(
class DartError(RuntimeError):
    """A DART call failed. ``code`` is the DART return code (dartpy.ERR_*), ``detail``
    the runtime's description of what went wrong (also part of the message)."""
    code = None
    detail = ""
    def __reduce__(self):
        return (_rebuild_dart_error, (self.args, self.code, self.detail))

def _rebuild_dart_error(args, code, detail):
    e = DartError(*args)
    e.code = code
    e.detail = detail
    return e
)", ns);
  g_dart_error = ns["DartError"];
  g_dart_error.attr("__module__") = "dartpy";
  m.attr("DartError") = g_dart_error;
  m.attr("_rebuild_dart_error") = ns["_rebuild_dart_error"];

  // Return codes and constants.
  m.attr("OK") = (int)DART_OK;
  m.attr("PENDING") = (int)DART_PENDING;
  m.attr("ERR_INVAL") = (int)DART_ERR_INVAL;
  m.attr("ERR_NOTFOUND") = (int)DART_ERR_NOTFOUND;
  m.attr("ERR_NOTINIT") = (int)DART_ERR_NOTINIT;
  m.attr("ERR_NOMEM") = (int)DART_ERR_NOMEM;
  m.attr("ERR_OTHER") = (int)DART_ERR_OTHER;
  m.attr("UNDEFINED_UNIT_ID") = (int)DART_UNDEFINED_UNIT_ID;
  m.attr("SEGMENT_LOCAL") = (int)DART_SEGMENT_LOCAL;
  m.attr("THREAD_SINGLE") = (int)DART_THREAD_SINGLE;
  m.attr("THREAD_MULTIPLE") = (int)DART_THREAD_MULTIPLE;
  m.attr("VERSION") = DART_VERSION_STR;
  m.attr("__version__") = DARTPY_VERSION;

  struct T { const char *n; dart_datatype_t v; } types[] = {
      {"TYPE_UNDEFINED", DART_TYPE_UNDEFINED}, {"TYPE_BYTE", DART_TYPE_BYTE},
      {"TYPE_SHORT", DART_TYPE_SHORT},         {"TYPE_INT", DART_TYPE_INT},
      {"TYPE_UINT", DART_TYPE_UINT},           {"TYPE_LONG", DART_TYPE_LONG},
      {"TYPE_ULONG", DART_TYPE_ULONG},         {"TYPE_LONGLONG", DART_TYPE_LONGLONG},
      {"TYPE_ULONGLONG", DART_TYPE_ULONGLONG}, {"TYPE_FLOAT", DART_TYPE_FLOAT},
      {"TYPE_DOUBLE", DART_TYPE_DOUBLE},       {"TYPE_LONG_DOUBLE", DART_TYPE_LONG_DOUBLE}};
  for (auto &t : types) m.attr(t.n) = (intptr_t)t.v;
  struct O { const char *n; dart_operation_t v; } ops[] = {
      {"OP_UNDEFINED", DART_OP_UNDEFINED}, {"OP_MIN", DART_OP_MIN},   {"OP_MAX", DART_OP_MAX},
      {"OP_MINMAX", DART_OP_MINMAX},       {"OP_SUM", DART_OP_SUM},   {"OP_PROD", DART_OP_PROD},
      {"OP_BAND", DART_OP_BAND},           {"OP_LAND", DART_OP_LAND}, {"OP_BOR", DART_OP_BOR},
      {"OP_LOR", DART_OP_LOR},             {"OP_BXOR", DART_OP_BXOR}, {"OP_LXOR", DART_OP_LXOR},
      {"OP_REPLACE", DART_OP_REPLACE},     {"OP_NO_OP", DART_OP_NO_OP}};
  for (auto &o : ops) m.attr(o.n) = (intptr_t)o.v;

  // ---- init / exit ----
  m.def("_init", &init_impl, py::arg("thread_multiple"), py::arg("thread_level"));
  m.def("_exit", &exit_impl, py::arg("check_views") = true);
  m.def("_finalize_mpi", &finalize_mpi);
  m.def("_mpi_started_here", []() { return g_mpi_started; });
  m.def("_live_views", []() { return live_views(); });
  m.def("_generation", []() { return g_generation; });
  m.def("initialized", []() { return (bool)dart_initialized(); },
        "True between dartpy.init() and dartpy.exit().");
  m.def("abort", [](int code) {
    py::module_::import("sys").attr("stdout").attr("flush")();
    py::module_::import("sys").attr("stderr").attr("flush")();
    dart_abort(code);
  }, py::arg("errorcode") = 1, "Abort all units of the job (MPI_Abort) with errorcode.");
  m.def("myid", []() {
    dart_global_unit_t u;
    check(dart_myid(&u), "dart_myid");
    return u.id;
  }, "Global id (0-based) of the calling unit.");
  m.def("size", []() {
    size_t n = 0;
    check(dart_size(&n), "dart_size");
    return n;
  }, "Number of units in DART_TEAM_ALL.");
  m.def("strerror", [](int code) { return std::string(dart_strerror((dart_ret_t)code)); },
        py::arg("code"));
  m.def("error_detail", []() { return std::string(dart_error_detail()); });
  m.def("config_string", []() { return std::string(dart_config_string()); });
  m.def("mpi_version", []() { return std::string(dart_mpi_version()); },
        "Version of the DART-MPI library (dart_mpi_version).");
  m.def("node_count", []() {
    size_t n = 0;
    check(dart_node_count(&n), "dart_node_count");
    return n;
  });
  m.def("unit_node", [](int unit) {
    int32_t node = -1;
    check(dart_unit_node(dart_global_unit_t{unit}, &node), "dart_unit_node");
    return node;
  }, py::arg("unit"));
  m.def("units_per_node_emulation", []() {
    int32_t k = 0;
    check(dart_units_per_node_emulation(&k), "dart_units_per_node_emulation");
    return k;
  });
  m.def("mpi_info", []() {
    py::dict d;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(lib, &len);
    int ver = 0, sub = 0;
    MPI_Get_version(&ver, &sub);
    d["library_version"] = std::string(lib, (size_t)std::max(len, 0));
    d["standard"] = std::to_string(ver) + "." + std::to_string(sub);
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    d["initialized"] = (bool)inited;
    d["finalized"] = (bool)finalized;
    if (inited && !finalized) {
      int level = 0;
      MPI_Query_thread(&level);
      d["thread_level"] = thread_level_name(level);
    } else {
      d["thread_level"] = py::none();
    }
    d["started_by_dartpy"] = g_mpi_started;
    return d;
  }, "MPI library version string, standard version and thread level.");
  m.def("build_info", []() {
    py::dict d;
    d["mpi_flavor"] = DARTPY_MPI_FLAVOR;
    d["mpicc"] = DARTPY_MPICC;
    d["mpiexec"] = DARTPY_MPIEXEC;
    d["version"] = DARTPY_VERSION;
    d["dart_interface"] = DART_VERSION_STR;
    return d;
  }, "How this extension was built: MPI flavor, MPI compiler wrapper and launcher.");

  // ---- Gptr ----
  py::class_<Gptr>(m, "Gptr", R"(A DART global pointer (value type).

Fields: unit (team-relative), segid, teamid, flags, offset (bytes) and the element
dtype of the allocation (None if untyped). ``g + k`` moves by k elements.)")
      .def(py::init(&gptr_new), py::arg("unit"), py::arg("segid"), py::arg("teamid"),
           py::arg("offset") = 0, py::arg("flags") = 0, py::arg("dtype") = py::none())
      .def_property_readonly("unit", [](const Gptr &g) { return fields(g.g).unit; })
      .def_property_readonly("unitid", [](const Gptr &g) { return fields(g.g).unit; })
      .def_property_readonly("segid", [](const Gptr &g) { return fields(g.g).segid; })
      .def_property_readonly("teamid", [](const Gptr &g) { return fields(g.g).teamid; })
      .def_property_readonly("flags", [](const Gptr &g) { return fields(g.g).flags; })
      .def_property_readonly("offset", [](const Gptr &g) { return fields(g.g).offset; })
      .def_property_readonly("dtype", [](const Gptr &g) -> py::object {
        return g.slot == S_NONE ? py::object(py::none()) : g_slot_dtype[g.slot];
      })
      .def_property_readonly("itemsize", [](const Gptr &g) -> size_t {
        return g.slot == S_NONE ? 1 : g_slots[g.slot].itemsize;
      })
      .def_property_readonly("is_null", [](const Gptr &g) {
        GptrFields f = fields(g.g);
        return f.unit < 0 && f.segid == 0 && f.teamid == DART_TEAM_NULL && f.offset == 0;
      })
      .def("setunit", [](const Gptr &g, int unit) {
        Gptr r = g;
        GptrFields f = fields(g.g);
        if (dart_gptr_make(unit, f.flags, f.segid, f.teamid, f.offset, &r.g) != DART_OK)
          throw py::value_error(std::string("Gptr.setunit: ") + dart_error_detail());
        return r;
      }, py::arg("unit"), "Copy pointing to the same offset at another (team-relative) unit.")
      .def("astype", [](const Gptr &g, py::handle dtype) {
        Gptr r = g;
        r.slot = (int8_t)(dtype.is_none() ? (int)S_NONE : slot_of_dtype(dtype, "Gptr.astype", "dtype"));
        return r;
      }, py::arg("dtype"), "Copy with another element dtype (None: untyped).")
      .def("__add__", [](const Gptr &g, py::ssize_t k) { return gptr_offset_elems(g, k); })
      .def("__radd__", [](const Gptr &g, py::ssize_t k) { return gptr_offset_elems(g, k); })
      .def("__sub__", [](const Gptr &g, py::ssize_t k) { return gptr_offset_elems(g, -k); })
      .def("__eq__", [](const Gptr &a, py::handle b) -> py::object {
        if (!py::isinstance<Gptr>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        const Gptr &o = b.cast<const Gptr &>();
        return py::bool_(gptr_key(a).equal(gptr_key(o)) && a.slot == o.slot);
      })
      .def("__ne__", [](const Gptr &a, py::handle b) -> py::object {
        if (!py::isinstance<Gptr>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        const Gptr &o = b.cast<const Gptr &>();
        return py::bool_(!(gptr_key(a).equal(gptr_key(o)) && a.slot == o.slot));
      })
      .def("__hash__", [](const Gptr &g) { return py::hash(gptr_key(g)); })
      .def("__repr__", &gptr_repr)
      .def("__copy__", [](const Gptr &g) { return g; })
      .def("__deepcopy__", [](const Gptr &g, py::handle) { return g; })
      .def(py::pickle(
          [](const Gptr &g) {
            GptrFields f = fields(g.g);
            return py::make_tuple(f.unit, f.segid, f.teamid, f.offset, f.flags,
                                  g.slot == S_NONE ? py::object(py::none())
                                                   : py::object(py::str(g_slots[g.slot].name)));
          },
          [](py::tuple t) {
            if (t.size() != 6) throw py::value_error("Gptr: bad pickle state");
            return gptr_new(t[0].cast<int32_t>(), t[1].cast<int16_t>(), t[2].cast<int16_t>(),
                            t[3].cast<uint64_t>(), t[4].cast<int32_t>(), t[5]);
          }));
  {
    Gptr null;
    m.attr("GPTR_NULL") = null;
  }

  m.def("gptr_getaddr", [](const Gptr &g) {
    void *a = nullptr;
    check(dart_gptr_getaddr(g.g, &a), "dart_gptr_getaddr");
    return (uintptr_t)a;
  }, py::arg("gptr"), "Address of the calling unit's own memory behind gptr (an int).");
  m.def("gptr_getaddr_node", [](const Gptr &g) {
    void *a = nullptr;
    check(dart_gptr_getaddr_node(g.g, &a), "dart_gptr_getaddr_node");
    return (uintptr_t)a;
  }, py::arg("gptr"), "Load/store address (an int) of memory on this node.");
  m.def("gptr_setaddr", [](const Gptr &g, uintptr_t addr) {
    Gptr r = g;
    check(dart_gptr_setaddr(&r.g, (void *)addr), "dart_gptr_setaddr");
    return r;
  }, py::arg("gptr"), py::arg("addr"), "Copy of gptr pointing at the local address addr.");
  m.def("gptr_incaddr", [](const Gptr &g, int64_t offs) {
    Gptr r = g;
    dart_gptr_incaddr(&r.g, offs);
    return r;
  }, py::arg("gptr"), py::arg("offs"), "Copy of gptr moved by offs BYTES.");
  m.def("gptr_setunit", [](const Gptr &g, int unit) {
    Gptr r = g;
    GptrFields f = fields(g.g);
    if (dart_gptr_make(unit, f.flags, f.segid, f.teamid, f.offset, &r.g) != DART_OK)
      throw py::value_error(std::string("dartpy.gptr_setunit: argument 'unit': ") +
                            dart_error_detail());
    return r;
  }, py::arg("gptr"), py::arg("unit"));
  m.def("gptr_getflags", [](const Gptr &g) {
    uint16_t fl = 0;
    check(dart_gptr_getflags(g.g, &fl), "dart_gptr_getflags");
    return fl;
  }, py::arg("gptr"));
  m.def("gptr_setflags", [](const Gptr &g, uint16_t fl) {
    Gptr r = g;
    check(dart_gptr_setflags(&r.g, fl), "dart_gptr_setflags");
    return r;
  }, py::arg("gptr"), py::arg("flags"));
  m.def("gptr_segment_size", [](const Gptr &g) {
    size_t n = 0;
    check(dart_gptr_segment_size(g.g, &n), "dart_gptr_segment_size");
    return n;
  }, py::arg("gptr"), "Bytes the segment holds at gptr's unit.");

  // ---- memory ----
  m.def("memalloc", &memalloc, py::arg("nelem"), py::arg("dtype"),
        "Allocate nelem elements from this unit's pool (local call); returns a Gptr.");
  m.def("memfree", &memfree, py::arg("gptr"));
  m.def("team_memalloc_aligned", [](py::handle team, size_t nelem, py::handle dtype) {
    return team_memalloc_aligned(team, nelem, dtype);
  }, py::arg("team"), py::arg("nelem"), py::arg("dtype"),
        "Collective: nelem elements of dtype on every unit of team; returns the Gptr of "
        "team unit 0's part.");
  m.def("team_memfree", [](const Gptr &g) { team_free(g, false); }, py::arg("gptr"),
        "Collective free. Raises BufferError on every unit if NumPy views are alive.");
  m.def("team_memregister", [](py::handle team, py::handle a) {
    return team_memregister(team, a, false);
  }, py::arg("team"), py::arg("array"), "Collective: expose a C-contiguous array.");
  m.def("team_memregister_aligned", [](py::handle team, py::handle a) {
    return team_memregister(team, a, true);
  }, py::arg("team"), py::arg("array"));
  m.def("team_memderegister", [](const Gptr &g) { team_free(g, true); }, py::arg("gptr"));
  m.def("view", &view, py::arg("gptr"), py::arg("shape") = py::none(),
        py::arg("dtype") = py::none(),
        "Zero-copy NumPy array of the memory at gptr (own unit or a same-node unit).");
  m.def("_views_of", &views_of, py::arg("gptr"));
  m.def("_segment_freed", [](const Gptr &g) {
    GptrFields f = fields(g.g);
    if (f.segid == DART_SEGMENT_LOCAL) {
      auto it = g_pool.find(f.offset);
      return it == g_pool.end();
    }
    return g_segs.find(seg_key(f.teamid, f.segid)) == g_segs.end();
  }, py::arg("gptr"));
  py::class_<ViewOwner>(m, "_ViewOwner")
      .def_property_readonly("freed", [](const ViewOwner &o) { return o.rec->freed; });

}

}  // namespace dartpy

PYBIND11_MODULE(_core, m) {
  m.doc() = "DART-MPI binding (dartpy._core); use the dartpy package.";
  dartpy::bind_module(m);
  dartpy::bind_rma(m);
  dartpy::bind_coll(m);
}
