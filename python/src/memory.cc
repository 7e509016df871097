// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: global memory (dart_memalloc, collective allocations, registered arrays),
// the binding's record of every segment (dtype, live NumPy views) and zero-copy views.
#include "args.h"
#include "core.h"

#include <algorithm>

namespace dartpy {

namespace {

std::unordered_map<uint32_t, std::shared_ptr<SegRecord>> g_segs;  // (team, seg) -> record
std::map<uint64_t, std::shared_ptr<SegRecord>> g_pool;            // own pool blocks
std::shared_ptr<SegRecord> g_pool_other;  // any pool memory not allocated here

std::shared_ptr<SegRecord> new_record(int16_t team, int16_t seg, int slot, size_t nelem) {
  auto r = std::make_shared<SegRecord>();
  r->team = team;
  r->seg = seg;
  r->slot = slot;
  r->nelem = nelem;
  r->generation = g_generation;
  return r;
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
  const std::vector<int64_t> v = args::shape(shape, fn, 0, 0);
  return std::vector<py::ssize_t>(v.begin(), v.end());
}

py::ssize_t shape_size(const std::vector<py::ssize_t> &shape) {
  py::ssize_t n = 1;
  for (auto v : shape) n *= v;
  return n;
}

std::string views_alive_msg(const char *fn, long n) {
  std::string held;
  try {  // the user's variables that hold views (dartpy/_output_history.py)
    py::list names = py::module_::import("dartpy._output_history").attr("holders")();
    for (size_t i = 0; i < names.size(); ++i)
      held += std::string(i ? ", " : "") + "'" + names[i].cast<std::string>() + "'";
  } catch (py::error_already_set &) {
    held.clear();
  }
  return std::string(fn) + ": " + std::to_string(n) +
         " NumPy view(s) of this memory are still alive" +
         (held.empty() ? "" : " (variables holding views of DART memory: " + held + ")") +
         "; delete them (del view) before freeing it";
}

bool team_is_live(dart_team_t team) {
  dart_team_unit_t me;
  return dart_team_myid(team, &me) == DART_OK;
}

}  // namespace

// ---- records ------------------------------------------------------------------------

uint32_t seg_key(int16_t team, int16_t seg) {
  return ((uint32_t)(uint16_t)team << 16) | (uint32_t)(uint16_t)seg;
}

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

void records_start_cycle() {
  g_pool_other = new_record(DART_TEAM_ALL, DART_SEGMENT_LOCAL, S_NONE, 0);
  g_pool_other->pool = true;
}

void records_drop_all() {
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

// Views still alive are often only unreachable garbage in a reference cycle, or a cell's
// result in IPython's output history (dartpy/_output_history.py drops those).
void collect_garbage() {
  py::module_::import("dartpy._output_history").attr("release")();
  py::module_::import("gc").attr("collect")();
}

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
  check(rc, fn);
  return (long)out;
}

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
                                    : std::string(fn) +
                                          ": NumPy views of this team's memory "
                                          "are still alive on another unit; nothing was freed");
}

std::shared_ptr<SegRecord> segment_record(const dart_gptr_t &g, int slot, size_t nelem) {
  GptrFields f = fields(g);
  auto rec = new_record(f.teamid, f.segid, slot, nelem);
  rec->collective = true;
  g_segs[seg_key(f.teamid, f.segid)] = rec;
  return rec;
}

py::array segment_view(const std::shared_ptr<SegRecord> &rec, void *addr,
                       const std::vector<py::ssize_t> &shape,
                       const std::vector<py::ssize_t> &strides, int slot) {
  py::object owner = py::cast(new ViewOwner(rec), py::return_value_policy::take_ownership);
  return py::array(py::dtype::from_args(g_slot_dtype[slot]), shape, strides, addr, owner);
}

// Every unit of a live team takes part, with or without a record here (a unit may have
// viewed memory that another unit's binding allocated), so that all raise together.
void segment_check_views(dart_team_t team, SegRecord *rec, const char *fn) {
  if (!team_is_live(team)) return;  // the core reports that, the same on every unit
  long mine = rec ? rec->views : 0;
  if (mine > 0) {
    collect_garbage();
    mine = rec->views;
  }
  long any = views_anywhere(team, mine, fn);
  if (any > 0)
    throw py::buffer_error(mine > 0 ? views_alive_msg(fn, mine)
                                    : std::string(fn) +
                                          ": NumPy views of this memory "
                                          "are still alive on another unit; nothing was freed");
}

void segment_forget(int16_t team, int16_t seg) {
  auto it = g_segs.find(seg_key(team, seg));
  if (it != g_segs.end()) {
    it->second->freed = true;
    it->second->keep = py::object();
    g_segs.erase(it);
  }
  pending_clear_segment(team, seg);
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

// ---- allocations, frees and views --------------------------------------------------

namespace {

// Elements of the slot's DART type for nelem NumPy elements. The core checks the size of
// the allocation; a count that overflows here saturates, so it reports that, too.
size_t dart_elems(int slot, size_t nelem) {
  size_t mult = g_slots[slot].mult;
  return nelem > SIZE_MAX / mult ? SIZE_MAX : nelem * mult;
}

Gptr team_memalloc_aligned(py::handle team_h, size_t nelem, py::handle dtype) {
  const char *fn = "dart_team_memalloc_aligned";
  int slot = slot_of_dtype(dtype, fn, "dtype");
  dart_team_t team = team_arg(team_h);
  dart_gptr_t g = DART_GPTR_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_team_memalloc_aligned(team, dart_elems(slot, nelem), g_slots[slot].xfer, &g);
  }
  check(rc, fn);
  segment_record(g, slot, nelem);
  return make_gptr(g, slot);
}

Gptr memalloc(size_t nelem, py::handle dtype) {
  const char *fn = "dart_memalloc";
  int slot = slot_of_dtype(dtype, fn, "dtype");
  dart_gptr_t g = DART_GPTR_NULL;
  dart_ret_t rc;
  {
    Locked l;
    rc = dart_memalloc(dart_elems(slot, nelem), g_slots[slot].xfer, &g);
  }
  check(rc, fn);
  GptrFields f = fields(g);
  auto rec = new_record(f.teamid, f.segid, slot, nelem);
  rec->pool = true;
  rec->pool_offset = f.offset;
  g_pool[f.offset] = rec;
  return make_gptr(g, slot);
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

// team_memfree (collective) / team_memderegister (local: units deregister in any order).
void team_free(const Gptr &gp, bool registered) {
  const char *fn = registered ? "dart_team_memderegister" : "dart_team_memfree";
  GptrFields f = fields(gp.g);
  if (f.segid != DART_SEGMENT_LOCAL) {
    // errors for anything else come from the core (the same on every unit: nobody hangs)
    auto it = g_segs.find(seg_key(f.teamid, f.segid));
    SegRecord *rec = it != g_segs.end() ? it->second.get() : nullptr;
    if (!registered) {
      segment_check_views(f.teamid, rec, fn);
    } else if (rec != nullptr && rec->views > 0) {
      // Registered memory is viewed only by its own unit: a local check.
      collect_garbage();
      if (rec->views > 0) throw py::buffer_error(views_alive_msg(fn, rec->views));
    }
  }
  dart_ret_t rc;
  {
    Nogil ng;
    rc = registered ? dart_team_memderegister(gp.g) : dart_team_memfree(gp.g);
  }
  direct_cache_invalidate();
  check(rc, fn);
  segment_forget(f.teamid, f.segid);
}

Gptr team_memregister(py::handle team_h, py::handle array, bool aligned) {
  const char *fn = aligned ? "dart_team_memregister_aligned" : "dart_team_memregister";
  Buffer b = describe(array, true, true, fn, "array");
  dart_team_t team = team_arg(team_h);
  dart_gptr_t g = DART_GPTR_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = aligned ? dart_team_memregister_aligned(team, b.nelem, b.type, b.ptr, &g)
                 : dart_team_memregister(team, b.nelem, b.type, b.ptr, &g);
  }
  check(rc, fn);
  segment_record(g, b.slot, b.size)->keep = b.obj;
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
  // (memory of another node: the core's message says so and names both nodes)
  check(dart_gptr_getaddr_node(gp.g, &addr), "dart_gptr_getaddr_node");
  check(dart_gptr_segment_size(gp.g, &segbytes), "dart_gptr_segment_size");
  GptrFields f = fields(gp.g);
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
                          (own_block
                               ? std::string("this dart_memalloc block")
                               : "unit " + std::to_string(f.unit) + "'s part of the segment") +
                          " after offset " + std::to_string(f.offset));
  if (!rec) {
    // A live segment the binding did not allocate (e.g. from another init cycle's
    // gptr after a re-allocation): track it under a fresh record.
    rec = new_record(f.teamid, f.segid, slot, 0);
    g_segs[seg_key(f.teamid, f.segid)] = rec;
  }
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t st = (py::ssize_t)isz;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = st;
    st *= shape[i];
  }
  return segment_view(rec, addr, shape, strides, slot);
}

long views_of(const Gptr &gp) {
  GptrFields f = fields(gp.g);
  auto r = find_record(f.teamid, f.segid, f.unit, f.offset);
  return r ? r->views : 0;
}

}  // namespace

void bind_memory(py::module_ &m) {
  m.def("memalloc", &memalloc, py::arg("nelem"), py::arg("dtype"),
        "Allocate nelem elements from this unit's pool (local call); returns a Gptr.");
  m.def("memfree", &memfree, py::arg("gptr"),
        R"doc(Free local global memory from :func:`memalloc` (not collective).

Parameters
----------
gptr : Gptr
    The pointer :func:`memalloc` returned.

Raises
------
BufferError
    While NumPy views of the memory are alive (delete them first).
DartError
    For a pointer that :func:`memalloc` did not return or that was freed.
)doc");
  m.def("team_memalloc_aligned", &team_memalloc_aligned, py::arg("team"), py::arg("nelem"),
        py::arg("dtype"),
        "Collective: nelem elements of dtype on every unit of team; returns the Gptr of "
        "team unit 0's part.");
  m.def(
      "team_memfree", [](const Gptr &g) { team_free(g, false); }, py::arg("gptr"),
      "Collective free. Raises BufferError on every unit if NumPy views are alive.");
  m.def(
      "team_memregister",
      [](py::handle team, py::handle a) { return team_memregister(team, a, false); },
      py::arg("team"), py::arg("array"), "Collective: expose a C-contiguous array.");
  m.def(
      "team_memregister_aligned",
      [](py::handle team, py::handle a) { return team_memregister(team, a, true); },
      py::arg("team"), py::arg("array"),
      R"doc(Make a C-contiguous array of every unit globally addressable (collective).

Like :func:`team_memregister`, but every unit registers the same number of elements
(DART's *aligned* form). The array must stay alive until :func:`team_memderegister`.

Parameters
----------
team : Team or int
array : numpy.ndarray
    C-contiguous, writable, the same size on every unit.

Returns
-------
Gptr
    Team unit 0's pointer; ``gptr_setunit`` addresses the others.

Raises
------
ValueError
    For an array that is not C-contiguous.
DartError
    For sizes that differ between units.
)doc");
  m.def(
      "team_memderegister", [](const Gptr &g) { team_free(g, true); }, py::arg("gptr"),
      R"doc(Deregister memory registered with :func:`team_memregister` (local, not collective).

Units deregister in any order, as in C.

Parameters
----------
gptr : Gptr
    The pointer the registration returned.

Raises
------
BufferError
    While this unit's views of the memory are alive.
DartError
    For a pointer that is no registration.
)doc");
  m.def("view", &view, py::arg("gptr"), py::arg("shape") = py::none(),
        py::arg("dtype") = py::none(),
        "Zero-copy NumPy array of the memory at gptr (own unit or a same-node unit).");
  m.def("_views_of", &views_of, py::arg("gptr"));
  m.def(
      "_segment_freed",
      [](const Gptr &g) {
        GptrFields f = fields(g.g);
        if (f.segid == DART_SEGMENT_LOCAL) return g_pool.find(f.offset) == g_pool.end();
        return g_segs.find(seg_key(f.teamid, f.segid)) == g_segs.end();
      },
      py::arg("gptr"));
  py::class_<ViewOwner>(m, "_ViewOwner").def_property_readonly("freed", [](const ViewOwner &o) {
    return o.rec->freed;
  });
}

}  // namespace dartpy
