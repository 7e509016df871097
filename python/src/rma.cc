// dartpy._core: NumPy layouts -> DART datatypes, one-sided put/get (blocking, flush-based
// and with handles), flushes and atomics.
#include "core.h"

#include <algorithm>
#include <climits>

namespace dartpy {

namespace {

using npy = py::detail::npy_api;

// ---- derived datatypes for NumPy layouts (cached per cycle) --------------------------

std::map<std::tuple<dart_datatype_t, size_t, size_t>, dart_datatype_t> g_strided;
std::map<std::vector<size_t>, dart_datatype_t> g_indexed;
constexpr size_t kIndexedCacheMax = 128;
constexpr size_t kMaxIndexedBlocks = size_t(1) << 24;

dart_datatype_t strided_type(dart_datatype_t base, size_t stride, size_t blocklen,
                             const char *fn) {
  auto key = std::make_tuple(base, stride, blocklen);
  auto it = g_strided.find(key);
  if (it != g_strided.end()) return it->second;
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  dart_ret_t rc;
  {
    Locked l;
    rc = dart_type_create_strided(base, stride, blocklen, &t);
  }
  if (rc != DART_OK) raise_dart(rc, (std::string(fn) + " (dart_type_create_strided)").c_str());
  g_strided.emplace(key, t);
  return t;
}

dart_datatype_t indexed_type(dart_datatype_t base, size_t blocklen,
                             const std::vector<size_t> &offsets, const char *fn) {
  std::vector<size_t> key;
  key.reserve(offsets.size() + 2);
  key.push_back((size_t)base);
  key.push_back(blocklen);
  key.insert(key.end(), offsets.begin(), offsets.end());
  auto it = g_indexed.find(key);
  if (it != g_indexed.end()) return it->second;
  if (g_indexed.size() >= kIndexedCacheMax) {
    // Operations already started with a type complete normally after its destruction.
    Locked l;
    for (auto &kv : g_indexed) dart_type_destroy(&kv.second);
    g_indexed.clear();
  }
  std::vector<size_t> lens(offsets.size(), blocklen);
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  dart_ret_t rc;
  {
    Locked l;
    rc = dart_type_create_indexed(base, offsets.size(), lens.data(), offsets.data(), &t);
  }
  if (rc != DART_OK) raise_dart(rc, (std::string(fn) + " (dart_type_create_indexed)").c_str());
  g_indexed.emplace(std::move(key), t);
  return t;
}

struct Dim {
  size_t n;
  size_t stride;  // in DART elements
};

[[noreturn]] void bad_layout(const char *fn, const char *arg, const std::string &why) {
  throw py::value_error(std::string(fn) + ": argument '" + arg + "': " + why +
                        "; pass numpy.ascontiguousarray(...) instead");
}

// The DART type describing a non-contiguous NumPy layout: ONE strided type when the
// dimensions collapse to a uniform stride (halo columns, most faces of a 3-D block), else
// one indexed type (blocks in index order). Never a per-element loop, never a copy.
dart_datatype_t layout_type(const py::detail::PyArray_Proxy *p, const SlotInfo &si,
                            const char *fn, const char *arg) {
  const size_t elem = si.itemsize / si.mult;
  std::vector<Dim> dims;  // outer -> inner, extents > 1 only
  for (int i = 0; i < p->nd; ++i) {
    py::ssize_t n = p->dimensions[i];
    if (n <= 1) continue;
    py::ssize_t s = p->strides[i];
    if (s <= 0) bad_layout(fn, arg, "zero or negative strides (broadcast or reversed views) "
                                    "are not supported");
    if ((size_t)s % elem != 0) bad_layout(fn, arg, "strides are not a multiple of the item size");
    dims.push_back(Dim{(size_t)n, (size_t)s / elem});
  }
  if (si.mult > 1) dims.push_back(Dim{si.mult, 1});
  // Merge from the inside out: an outer dimension whose stride equals the inner extent.
  std::vector<Dim> m;  // inner -> outer
  for (size_t i = dims.size(); i-- > 0;) {
    if (!m.empty() && dims[i].stride == m.back().n * m.back().stride) {
      m.back().n *= dims[i].n;
    } else {
      m.push_back(dims[i]);
    }
  }
  if (m.empty()) return si.xfer;
  if (m.size() == 1) {
    if (m[0].stride == 1) return si.xfer;
    if (m[0].stride > INT_MAX) bad_layout(fn, arg, "stride too large");
    return strided_type(si.xfer, m[0].stride, 1, fn);
  }
  size_t blocklen = 1;
  size_t first = 0;
  if (m[0].stride == 1) {
    blocklen = m[0].n;
    first = 1;
  }
  if (m.size() - first == 1) {
    size_t stride = m[first].stride;
    if (stride < blocklen)
      bad_layout(fn, arg, "the memory order does not follow the index order (e.g. a "
                          "transposed or Fortran-ordered array)");
    if (stride > INT_MAX || blocklen > INT_MAX) bad_layout(fn, arg, "stride too large");
    return strided_type(si.xfer, stride, blocklen, fn);
  }
  // Indexed: the offsets of all blocks, in index (row-major) order.
  size_t nblocks = 1;
  for (size_t i = first; i < m.size(); ++i) nblocks *= m[i].n;
  if (nblocks > kMaxIndexedBlocks) bad_layout(fn, arg, "too many blocks for one indexed type");
  std::vector<size_t> offsets;
  offsets.reserve(nblocks);
  std::vector<size_t> idx(m.size(), 0);
  for (size_t b = 0; b < nblocks; ++b) {
    size_t off = 0;
    for (size_t i = first; i < m.size(); ++i) off += idx[i] * m[i].stride;
    if (!offsets.empty() && off < offsets.back() + blocklen)
      bad_layout(fn, arg, "the memory order does not follow the index order (e.g. a "
                          "transposed or Fortran-ordered array)");
    if (off > INT_MAX) bad_layout(fn, arg, "array spans too much memory for one MPI type");
    offsets.push_back(off);
    for (size_t i = first; i < m.size(); ++i) {  // increment, innermost (lowest i) first
      if (++idx[i] < m[i].n) break;
      idx[i] = 0;
    }
  }
  return indexed_type(si.xfer, blocklen, offsets, fn);
}

// ---- non-blocking put/get: buffers kept alive until their target is flushed ------------

std::unordered_map<uint32_t, std::vector<std::pair<int, py::object>>> g_pending;

std::string tname(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

// ---- same-node targets: small transfers there are copies, not blocking calls ---------

// Direct-mapped cache: (team, segment, unit) -> reachable by load/store. An epoch bump
// empties it (any free, team destruction or exit).
struct DirectEntry {
  uint64_t key = 0, epoch = 0;
  bool direct = false;
};
DirectEntry g_direct[256];
uint64_t g_direct_epoch = 1;
constexpr size_t kDirectNoGilBytes = 64 * 1024;

bool known_direct(const dart_gptr_t &g) {
  GptrFields f = fields(g);
  uint64_t key = ((uint64_t)(uint16_t)f.teamid << 48) | ((uint64_t)(uint16_t)f.segid << 32) |
                 (uint32_t)f.unit;
  DirectEntry &e = g_direct[(key * 0x9E3779B97F4A7C15ull) >> 56];
  if (e.key == key && e.epoch == g_direct_epoch) return e.direct;
  void *addr = nullptr;
  bool direct = dart_gptr_getaddr_node(g, &addr) == DART_OK;
  e.key = key;
  e.epoch = g_direct_epoch;
  e.direct = direct;
  return direct;
}

}  // namespace

void direct_cache_invalidate() { ++g_direct_epoch; }

void pending_add(const dart_gptr_t &g, py::handle buf) {
  GptrFields f = fields(g);
  g_pending[seg_key(f.teamid, f.segid)].emplace_back(f.unit,
                                                     py::reinterpret_borrow<py::object>(buf));
}

void pending_flush(const dart_gptr_t &g, bool all_units) {
  if (g_pending.empty()) return;
  GptrFields f = fields(g);
  auto it = g_pending.find(seg_key(f.teamid, f.segid));
  if (it == g_pending.end()) return;
  if (all_units) {
    g_pending.erase(it);
    return;
  }
  auto &v = it->second;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const auto &p) { return p.first == f.unit; }),
          v.end());
  if (v.empty()) g_pending.erase(it);
}

void pending_clear_segment(int16_t team, int16_t seg) { g_pending.erase(seg_key(team, seg)); }
void pending_clear_all() { g_pending.clear(); }

void type_cache_clear() {
  // dart_exit releases every derived type; only forget the handles here.
  g_strided.clear();
  g_indexed.clear();
}

// ---------------------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------------------

Buffer describe(py::handle obj, bool writable, bool contiguous_only, const char *fn,
                const char *arg) {
  Buffer b;
  auto &api = npy::get();
  if (api.PyArray_Check_(obj.ptr())) {
    b.obj = py::reinterpret_borrow<py::object>(obj);
  } else if (PyObject_CheckBuffer(obj.ptr()) && !PyUnicode_Check(obj.ptr())) {
    b.obj = py::module_::import("numpy").attr("asarray")(obj);  // zero-copy
  } else {
    throw py::type_error(std::string(fn) + ": argument '" + arg +
                         "' must be a NumPy array, not " + tname(obj));
  }
  auto *p = py::detail::array_proxy(b.obj.ptr());
  auto *d = py::detail::array_descriptor_proxy(p->descr);
  b.slot = slot_of_typenum(d->type_num);
  if (b.slot == S_NONE)
    throw py::type_error(std::string(fn) + ": argument '" + arg + "': dtype " +
                         std::string(py::str(b.obj.attr("dtype"))) + " is not supported");
  if (d->byteorder == '>')
    throw py::type_error(std::string(fn) + ": argument '" + arg +
                         "': non-native byte order is not supported");
  if (writable && !(p->flags & npy::NPY_ARRAY_WRITEABLE_))
    throw py::value_error(std::string(fn) + ": argument '" + arg + "' is read-only");
  size_t size = 1;
  for (int i = 0; i < p->nd; ++i) size *= (size_t)p->dimensions[i];
  const SlotInfo &si = g_slots[b.slot];
  b.ptr = p->data;
  b.size = size;
  b.nelem = size * si.mult;
  if (size <= 1 || (p->flags & npy::NPY_ARRAY_C_CONTIGUOUS_)) {
    b.type = si.xfer;
    b.contiguous = true;
    return b;
  }
  if (contiguous_only)
    throw py::value_error(std::string(fn) + ": argument '" + arg +
                          "' must be C-contiguous (collectives move contiguous buffers)");
  b.type = layout_type(p, si, fn, arg);
  b.contiguous = (b.type == si.xfer);
  return b;
}

dart_datatype_t remote_type(int slot, size_t stride, size_t blocklen, size_t nelem,
                            const char *fn) {
  const SlotInfo &si = g_slots[slot];
  if (stride == 0) return si.xfer;
  if (blocklen == 0)
    throw py::value_error(std::string(fn) + ": argument 'remote_blocklen' must be >= 1");
  if (stride < blocklen)
    throw py::value_error(std::string(fn) + ": argument 'remote_stride' must be >= "
                                            "remote_blocklen");
  if ((nelem / si.mult) % blocklen != 0)
    throw py::value_error(std::string(fn) + ": the array's size is not a multiple of "
                                            "remote_blocklen");
  if (stride == blocklen) return si.xfer;
  return strided_type(si.xfer, stride * si.mult, blocklen * si.mult, fn);
}

int match_slot(const Gptr &gp, const Buffer &b, const char *fn, const char *arg) {
  int s = gptr_slot(gp);
  if (s == S_NONE || s == b.slot) return b.slot;
  throw py::type_error(std::string(fn) + ": argument '" + arg + "' has dtype " +
                       slot_name(b.slot) + " but the global memory holds " + slot_name(s));
}

// ---------------------------------------------------------------------------------------
// Handles
// ---------------------------------------------------------------------------------------

namespace {

// Handle of put_handle/get_handle. Holds the NumPy buffer until the operation completed.
struct Handle {
  dart_handle_t h = DART_HANDLE_NULL;
  py::object keep;
  uint64_t generation = 0;
  dart_gptr_t target = DART_GPTR_NULL;

  bool live() const { return h != DART_HANDLE_NULL && generation == g_generation && is_initialized(); }
  void forget() {
    h = DART_HANDLE_NULL;
    keep = py::object();
  }
  void complete(bool local, const char *fn) {
    if (!live()) {  // NULL handle (done at once), or its cycle ended: dart_exit completed it
      forget();
      return;
    }
    dart_ret_t rc;
    {
      Nogil ng;
      rc = local ? dart_wait_local(&h) : dart_wait(&h);
    }
    if (rc != DART_OK) raise_dart(rc, fn);
    forget();
  }
  ~Handle() {
    // A handle collected before completion: complete locally so that the buffer it
    // holds may be released safely.
    if (live()) {
      Nogil ng;
      dart_wait_local(&h);
    }
  }
};

Handle *as_handle(py::handle h, const char *fn) {
  try {
    return h.cast<Handle *>();
  } catch (py::cast_error &) {
    throw py::type_error(std::string(fn) + ": argument 'handles' must hold dartpy.Handle "
                                           "objects, not " + tname(h));
  }
}

// Completes a list of handles with one dart_waitall[_local].
void complete_all(py::iterable handles, bool local, const char *fn) {
  std::vector<Handle *> hs;
  for (auto item : handles) hs.push_back(as_handle(item, fn));
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
  if (rc != DART_OK) raise_dart(rc, fn);
}

// ---------------------------------------------------------------------------------------
// put / get
// ---------------------------------------------------------------------------------------

enum class Mode { Blocking, Flush, Handle };

py::object transfer(bool put, Mode mode, const Gptr &gp, py::handle buf, size_t rstride,
                    size_t rblock) {
  static const char *names[2][3] = {
      {"dart_get_blocking", "dart_get", "dart_get_handle"},
      {"dart_put_blocking", "dart_put", "dart_put_handle"}};
  const char *fn = names[put][(int)mode];
  const char *arg = put ? "array" : "out";
  if (!is_initialized())  // the C API's first check, before any argument check
    raise_dart_msg(DART_ERR_NOTINIT, std::string(fn) + " failed: DART is not initialized "
                                                       "(call dartpy.init() first)");
  Buffer b = describe(buf, !put, false, fn, arg);
  match_slot(gp, b, fn, arg);
  dart_datatype_t rt = rstride ? remote_type(b.slot, rstride, rblock, b.nelem, fn)
                               : g_slots[b.slot].xfer;
  dart_ret_t rc;
  dart_handle_t h = DART_HANDLE_NULL;
  if (mode == Mode::Blocking) {
    // A small transfer to a same-node target is a memcpy that cannot block: keep the GIL
    // (its release costs more than the copy). Everything else releases it.
    size_t nbytes = b.size * g_slots[b.slot].itemsize;
    bool done = false;
    if (nbytes <= kDirectNoGilBytes && known_direct(gp.g)) {
      std::unique_lock<std::mutex> lk(core_mutex(), std::defer_lock);
      if (!g_serialize || lk.try_lock()) {
        rc = put ? dart_put_blocking(gp.g, b.ptr, b.nelem, b.type, rt)
                 : dart_get_blocking(b.ptr, gp.g, b.nelem, rt, b.type);
        done = true;
      }
    }
    if (!done) {
      Nogil ng;
      rc = put ? dart_put_blocking(gp.g, b.ptr, b.nelem, b.type, rt)
               : dart_get_blocking(b.ptr, gp.g, b.nelem, rt, b.type);
    }
    if (rc != DART_OK) raise_dart(rc, fn);
    return py::none();
  }
  {
    Nogil ng;
    rc = put ? dart_put_handle(gp.g, b.ptr, b.nelem, b.type, rt, &h)
             : dart_get_handle(b.ptr, gp.g, b.nelem, rt, b.type, &h);
  }
  if (rc != DART_OK) raise_dart(rc, fn);
  if (mode == Mode::Flush) {
    // dart_put/dart_get semantics: complete at the next flush of the target. A handle
    // came back only for an MPI RMA transfer; keep the buffer until that flush.
    if (h != DART_HANDLE_NULL) {
      pending_add(gp.g, b.obj);
      Locked l;
      dart_handle_free(&h);
    }
    return py::none();
  }
  auto hobj = std::make_unique<Handle>();
  hobj->h = h;
  hobj->generation = g_generation;
  hobj->target = gp.g;
  if (h != DART_HANDLE_NULL) hobj->keep = b.obj;
  return py::cast(hobj.release(), py::return_value_policy::take_ownership);
}

enum class FlushKind { One, All, Local, LocalAll };

void flush(const Gptr &gp, FlushKind k) {
  static const char *names[] = {"dart_flush", "dart_flush_all", "dart_flush_local",
                                "dart_flush_local_all"};
  dart_ret_t rc;
  {
    Nogil ng;
    switch (k) {
      case FlushKind::One: rc = dart_flush(gp.g); break;
      case FlushKind::All: rc = dart_flush_all(gp.g); break;
      case FlushKind::Local: rc = dart_flush_local(gp.g); break;
      default: rc = dart_flush_local_all(gp.g); break;
    }
  }
  if (rc != DART_OK) raise_dart(rc, names[(int)k]);
  pending_flush(gp.g, k == FlushKind::All || k == FlushKind::LocalAll);
}

// ---------------------------------------------------------------------------------------
// atomics
// ---------------------------------------------------------------------------------------

// The slot of an atomic: dtype= if given, else the gptr's, else the value's.
int atomic_slot(const Gptr &gp, py::handle value, py::handle dtype, const char *fn) {
  if (!dtype.is_none()) return slot_of_dtype(dtype, fn, "dtype");
  int s = gptr_slot(gp);
  if (s != S_NONE) {
    // NumPy values (arrays and scalars) must match; Python numbers are converted.
    if (py::hasattr(value, "dtype")) {
      int vs = slot_of_dtype(value.attr("dtype"), fn, "value");
      if (vs != s)
        throw py::type_error(std::string(fn) + ": argument 'value' has dtype " + slot_name(vs) +
                             " but the global memory holds " + slot_name(s));
    }
    return s;
  }
  py::object arr = py::module_::import("numpy").attr("asarray")(value);
  auto *p = py::detail::array_proxy(arr.ptr());
  s = slot_of_typenum(py::detail::array_descriptor_proxy(p->descr)->type_num);
  if (s == S_NONE || !(npy::get().PyArray_Check_(value.ptr()) ||
                       PyObject_HasAttrString(value.ptr(), "dtype")))
    throw py::type_error(std::string(fn) + ": the gptr carries no dtype; pass dtype= or a "
                                           "NumPy value");
  return s;
}

dart_datatype_t arith_type(int slot, dart_operation_t op, const char *fn) {
  const SlotInfo &si = g_slots[slot];
  if (si.arith == DART_TYPE_UNDEFINED)
    throw py::type_error(std::string(fn) + ": dtype " + si.name +
                         " has no DART arithmetic type (use an integer or floating dtype)");
  if (slot == S_U8 && (op == DART_OP_MIN || op == DART_OP_MAX || op == DART_OP_MINMAX))
    throw py::type_error(std::string(fn) + ": MIN/MAX on uint8 is not supported (DART's byte "
                                           "type is signed); use uint16 or wider");
  return si.arith;
}

dart_operation_t op_arg(py::handle op, const char *fn) {
  if (!PyIndex_Check(op.ptr()))
    throw py::type_error(std::string(fn) + ": argument 'op' must be a dartpy.OP_* constant");
  return (dart_operation_t)py::reinterpret_steal<py::object>(PyNumber_Index(op.ptr()))
      .cast<intptr_t>();
}

py::array contiguous_of(py::handle value, int slot) {
  return py::module_::import("numpy").attr("ascontiguousarray")(value, g_slot_dtype[slot]);
}

void accumulate(const Gptr &gp, py::handle values, py::handle op_h, py::handle dtype,
                bool blocking_local) {
  const char *fn = blocking_local ? "dart_accumulate_blocking_local" : "dart_accumulate";
  dart_operation_t op = op_arg(op_h, fn);
  int slot = atomic_slot(gp, values, dtype, fn);
  dart_datatype_t t = arith_type(slot, op, fn);
  py::array v = contiguous_of(values, slot);
  size_t n = (size_t)v.size();
  dart_ret_t rc;
  {
    Nogil ng;
    rc = blocking_local ? dart_accumulate_blocking_local(gp.g, v.data(), n, t, op)
                        : dart_accumulate(gp.g, v.data(), n, t, op);
  }
  if (rc != DART_OK) raise_dart(rc, fn);
  if (!blocking_local) pending_add(gp.g, v);
}

py::object fetch_and_op(const Gptr &gp, py::handle value, py::handle op_h, py::handle dtype) {
  const char *fn = "dart_fetch_and_op";
  dart_operation_t op = op_arg(op_h, fn);
  int slot = atomic_slot(gp, value, dtype, fn);
  dart_datatype_t t = arith_type(slot, op, fn);
  py::array v = contiguous_of(value, slot);
  if (v.size() != 1)
    throw py::value_error(std::string(fn) + ": argument 'value' must be a single element");
  py::array res = py::array(py::dtype::from_args(g_slot_dtype[slot]), std::vector<py::ssize_t>{});
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_fetch_and_op(gp.g, v.data(), res.mutable_data(), t, op);
  }
  if (rc != DART_OK) raise_dart(rc, fn);
  return res[py::tuple()];
}

py::object compare_and_swap(const Gptr &gp, py::handle value, py::handle compare,
                            py::handle dtype) {
  const char *fn = "dart_compare_and_swap";
  int slot = atomic_slot(gp, value, dtype, fn);
  dart_datatype_t t = arith_type(slot, DART_OP_REPLACE, fn);
  py::array v = contiguous_of(value, slot);
  py::array c = contiguous_of(compare, slot);
  if (v.size() != 1 || c.size() != 1)
    throw py::value_error(std::string(fn) + ": 'value' and 'compare' must be single elements");
  py::array res = py::array(py::dtype::from_args(g_slot_dtype[slot]), std::vector<py::ssize_t>{});
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_compare_and_swap(gp.g, v.data(), c.data(), res.mutable_data(), t);
  }
  if (rc != DART_OK) raise_dart(rc, fn);
  return res[py::tuple()];
}

}  // namespace

void bind_rma(py::module_ &m) {
  py::class_<Handle>(m, "Handle", R"(Handle of put_handle/get_handle.

wait() completes the operation at the target (put) or locally (get); wait_local() means
the local buffer may be reused (put) or holds the data (get). The NumPy buffer is kept
alive until completion.)")
      .def("wait", [](Handle &h) { h.complete(false, "dart_wait"); })
      .def("wait_local", [](Handle &h) { h.complete(true, "dart_wait_local"); })
      .def("test", [](Handle &h) {
        h.complete(false, "dart_test");  // DART-MPI's test completes (see docs/design.md)
        return true;
      })
      .def("test_local", [](Handle &h) {
        h.complete(true, "dart_test_local");
        return true;
      })
      .def("free", [](Handle &h) {
        if (h.live()) {
          if (h.keep) pending_add(h.target, h.keep);  // kept until the target's flush
          Locked l;
          dart_handle_free(&h.h);
        }
        h.h = DART_HANDLE_NULL;
      }, "Release the handle; the operation completes at the next flush of its target.")
      .def_property_readonly("done", [](const Handle &h) { return !h.live(); })
      .def("__repr__", [](const Handle &h) {
        return std::string("<dartpy.Handle ") + (h.live() ? "pending>" : "complete>");
      });

  m.def("put_blocking", [](const Gptr &g, py::handle a, size_t rs, size_t rb) {
    transfer(true, Mode::Blocking, g, a, rs, rb);
  }, py::arg("gptr"), py::arg("array"), py::kw_only(), py::arg("remote_stride") = 0,
     py::arg("remote_blocklen") = 1,
     "Copy array to gptr; on return the data is visible at the target. array may be a "
     "strided NumPy view (one DART strided/indexed type, no copy). remote_stride/"
     "remote_blocklen describe a strided layout at the target (in elements).");
  m.def("get_blocking", [](py::handle out, const Gptr &g, size_t rs, size_t rb) {
    transfer(false, Mode::Blocking, g, out, rs, rb);
  }, py::arg("out"), py::arg("gptr"), py::kw_only(), py::arg("remote_stride") = 0,
     py::arg("remote_blocklen") = 1, "Copy from gptr into out; complete on return.");
  m.def("put", [](const Gptr &g, py::handle a, size_t rs, size_t rb) {
    transfer(true, Mode::Flush, g, a, rs, rb);
  }, py::arg("gptr"), py::arg("array"), py::kw_only(), py::arg("remote_stride") = 0,
     py::arg("remote_blocklen") = 1,
     "Start a put; it completes (array reusable, data visible) at dart.flush(gptr) or "
     "flush_all. The binding keeps array alive until then.");
  m.def("get", [](py::handle out, const Gptr &g, size_t rs, size_t rb) {
    transfer(false, Mode::Flush, g, out, rs, rb);
  }, py::arg("out"), py::arg("gptr"), py::kw_only(), py::arg("remote_stride") = 0,
     py::arg("remote_blocklen") = 1, "Start a get; out holds the data after a flush.");
  m.def("put_handle", [](const Gptr &g, py::handle a, size_t rs, size_t rb) {
    return transfer(true, Mode::Handle, g, a, rs, rb);
  }, py::arg("gptr"), py::arg("array"), py::kw_only(), py::arg("remote_stride") = 0,
     py::arg("remote_blocklen") = 1, "Start a put; returns a Handle.");
  m.def("get_handle", [](py::handle out, const Gptr &g, size_t rs, size_t rb) {
    return transfer(false, Mode::Handle, g, out, rs, rb);
  }, py::arg("out"), py::arg("gptr"), py::kw_only(), py::arg("remote_stride") = 0,
     py::arg("remote_blocklen") = 1, "Start a get; returns a Handle.");

  m.def("wait", [](Handle &h) { h.complete(false, "dart_wait"); }, py::arg("handle"));
  m.def("wait_local", [](Handle &h) { h.complete(true, "dart_wait_local"); }, py::arg("handle"));
  m.def("test", [](Handle &h) {
    h.complete(false, "dart_test");
    return true;
  }, py::arg("handle"));
  m.def("test_local", [](Handle &h) {
    h.complete(true, "dart_test_local");
    return true;
  }, py::arg("handle"));
  m.def("waitall", [](py::iterable hs) { complete_all(hs, false, "dart_waitall"); },
        py::arg("handles"));
  m.def("waitall_local", [](py::iterable hs) { complete_all(hs, true, "dart_waitall_local"); },
        py::arg("handles"));
  m.def("testall", [](py::iterable hs) {
    complete_all(hs, false, "dart_testall");
    return true;
  }, py::arg("handles"));
  m.def("testall_local", [](py::iterable hs) {
    complete_all(hs, true, "dart_testall_local");
    return true;
  }, py::arg("handles"));

  m.def("flush", [](const Gptr &g) { flush(g, FlushKind::One); }, py::arg("gptr"),
        "Complete all put/get/accumulate to gptr's unit in its segment (remote completion).");
  m.def("flush_all", [](const Gptr &g) { flush(g, FlushKind::All); }, py::arg("gptr"));
  m.def("flush_local", [](const Gptr &g) { flush(g, FlushKind::Local); }, py::arg("gptr"));
  m.def("flush_local_all", [](const Gptr &g) { flush(g, FlushKind::LocalAll); },
        py::arg("gptr"));

  m.def("accumulate", [](const Gptr &g, py::handle v, py::handle op, py::handle dt) {
    accumulate(g, v, op, dt, false);
  }, py::arg("gptr"), py::arg("values"), py::arg("op"), py::kw_only(),
     py::arg("dtype") = py::none(), "Atomic element-wise update; complete at dart.flush.");
  m.def("accumulate_blocking_local", [](const Gptr &g, py::handle v, py::handle op,
                                        py::handle dt) { accumulate(g, v, op, dt, true); },
        py::arg("gptr"), py::arg("values"), py::arg("op"), py::kw_only(),
        py::arg("dtype") = py::none());
  m.def("fetch_and_op", &fetch_and_op, py::arg("gptr"), py::arg("value"), py::arg("op"),
        py::kw_only(), py::arg("dtype") = py::none(),
        "Atomically apply op with value at gptr; returns the previous value.");
  m.def("compare_and_swap", &compare_and_swap, py::arg("gptr"), py::arg("value"),
        py::arg("compare"), py::kw_only(), py::arg("dtype") = py::none(),
        "Atomically store value at gptr if it equals compare; returns the previous value.");

  // ---- datatypes (mirror of the C API; transfers derive their types themselves) ----
  m.def("type_create_strided", [](intptr_t base, size_t stride, size_t blocklen) {
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    check(dart_type_create_strided(base, stride, blocklen, &t), "dart_type_create_strided");
    return (intptr_t)t;
  }, py::arg("basetype"), py::arg("stride"), py::arg("blocklen"));
  m.def("type_create_indexed", [](intptr_t base, std::vector<size_t> bl, std::vector<size_t> off) {
    if (bl.size() != off.size())
      throw py::value_error("dartpy.type_create_indexed: 'blocklen' and 'offset' differ in "
                            "length");
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    check(dart_type_create_indexed(base, bl.size(), bl.data(), off.data(), &t),
          "dart_type_create_indexed");
    return (intptr_t)t;
  }, py::arg("basetype"), py::arg("blocklen"), py::arg("offset"));
  m.def("type_create_custom", [](size_t nbytes) {
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    check(dart_type_create_custom(nbytes, &t), "dart_type_create_custom");
    return (intptr_t)t;
  }, py::arg("num_bytes"));
  m.def("type_destroy", [](intptr_t t) {
    dart_datatype_t d = t;
    check(dart_type_destroy(&d), "dart_type_destroy");
  }, py::arg("dtype"));
  m.def("_layout_type", [](py::handle a) -> py::tuple {
    Buffer b = describe(a, false, false, "dartpy._layout_type", "array");
    if (b.type < DART_TYPE_LAST) return py::make_tuple("basic", (intptr_t)b.type, b.nelem);
    for (auto &kv : g_strided)
      if (kv.second == b.type)
        return py::make_tuple("strided", std::get<1>(kv.first), std::get<2>(kv.first));
    return py::make_tuple("indexed", (intptr_t)b.type, b.nelem);
  }, py::arg("array"), "How a NumPy layout is described to DART (for tests): "
                       "('basic'|'strided'|'indexed', ...).");
  m.def("_type_cache_size", []() { return py::make_tuple(g_strided.size(), g_indexed.size()); });
  m.def("_pending_count", []() {
    size_t n = 0;
    for (auto &kv : g_pending) n += kv.second.size();
    return n;
  });
}

}  // namespace dartpy
