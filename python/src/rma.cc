// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: one-sided put/get (blocking, flush-based and with handles), flushes, the
// buffers kept alive until their flush, and the cache of same-node targets.
#include "core.h"

#include <algorithm>

namespace dartpy {

namespace {

// ---- non-blocking put/get: buffers kept alive until their target is flushed ------------

std::unordered_map<uint32_t, std::vector<std::pair<int, py::object>>> g_pending;

// ---- same-node targets: small transfers there are copies, not blocking calls ---------

// Direct-mapped cache: (team, segment, unit) -> reachable by load/store. An epoch bump
// empties it (any free, team destruction or exit).
struct DirectEntry {
  uint64_t key = 0, epoch = 0;
  bool direct = false;
};
DirectEntry g_direct[256];
uint64_t g_direct_epoch = 1;

bool known_direct(const dart_gptr_t &g) {
  GptrFields f = fields(g);
  uint64_t key = ((uint64_t)(uint16_t)f.teamid << 48) | ((uint64_t)(uint16_t)f.segid << 32) |
                 (uint32_t)f.unit;
  DirectEntry &e = g_direct[(key * 0x9E3779B97F4A7C15ull) >> 56];
  if (e.key == key && e.epoch == g_direct_epoch) return e.direct;
  void *addr = nullptr;
  bool direct = dart_gptr_getaddr_node(g, &addr) == DART_OK;  // a query: failure means no
  e.key = key;
  e.epoch = g_direct_epoch;
  e.direct = direct;
  return direct;
}

// ---------------------------------------------------------------------------------------
// put / get
// ---------------------------------------------------------------------------------------

enum class Mode { Blocking, Flush, Handle };

const char *call_name(bool put, Mode mode) {
  static const char *names[2][3] = {{"dart_get_blocking", "dart_get", "dart_get_handle"},
                                    {"dart_put_blocking", "dart_put", "dart_put_handle"}};
  return names[put][(int)mode];
}

dart_ret_t call(bool put, Mode mode, const dart_gptr_t &g, char *ptr, size_t nelem,
                dart_datatype_t lt, dart_datatype_t rt, dart_handle_t *h) {
  if (mode == Mode::Blocking)
    return put ? dart_put_blocking(g, ptr, nelem, lt, rt)
               : dart_get_blocking(ptr, g, nelem, rt, lt);
  return put ? dart_put_handle(g, ptr, nelem, lt, rt, h)
             : dart_get_handle(ptr, g, nelem, rt, lt, h);
}

// The DART call of one described transfer. A small transfer to a same-node target is a
// copy in every mode (the handle call completes it at once), so it keeps the GIL: its
// release costs more than the copy. With progress processes such a call may wait for
// them instead (a full offload ring, a drain before a blocking call); they never need
// this process's GIL. Everything else releases it. *h receives the handle of the
// non-blocking modes.
dart_ret_t issue(bool put, Mode mode, const dart_gptr_t &g, char *ptr, size_t nelem,
                 dart_datatype_t lt, dart_datatype_t rt, size_t nbytes, dart_handle_t *h) {
  return copy_or_blocking(nbytes <= kDirectNoGilBytes && known_direct(g),
                          [&] { return call(put, mode, g, ptr, nelem, lt, rt, h); });
}

// What a started transfer returns: None (blocking; flush mode, whose buffer is kept until
// the target's flush) or a Handle holding the buffer until completion. A NULL handle
// (the transfer completed at once) holds nothing.
py::object started(Mode mode, dart_handle_t h, const dart_gptr_t &g, py::handle buf) {
  if (mode == Mode::Blocking) return py::none();
  if (mode == Mode::Flush) {
    if (h == DART_HANDLE_NULL) return py::none();
    pending_add(g, buf);
    dart_ret_t rc;
    {
      Locked l;
      rc = dart_handle_free(&h);
    }
    check(rc, "dart_handle_free");
    return py::none();
  }
  return make_handle(
      h, g, h != DART_HANDLE_NULL ? py::reinterpret_borrow<py::object>(buf) : py::object());
}

py::object transfer(bool put, Mode mode, const Gptr &gp, py::handle buf, size_t rstride,
                    size_t rblock) {
  const char *fn = call_name(put, mode);
  const char *arg = put ? "array" : "out";
  LayoutTypes types;  // released when this call returns: the transfer has started by then
  Buffer b = describe(buf, !put, false, fn, arg);
  types.local = b.type;
  match_slot(gp, b, fn, arg);
  types.remote = remote_type(b.slot, rstride, rblock, b.nelem, fn);
  dart_handle_t h = DART_HANDLE_NULL;
  check(issue(put, mode, gp.g, b.ptr, b.nelem, b.type, types.remote,
              b.size * g_slots[b.slot].itemsize, &h),
        fn);
  return started(mode, h, gp.g, b.obj);
}

// ---- prepared transfers -----------------------------------------------------------------

// A put or get described once (put_init/get_init): both layouts held from the core's
// layout cache, the array kept, the target's record remembered. run()/start() issue the
// DART call without parsing arguments or describing layouts again, as C code does with
// types it created once (and as MPI's persistent requests do for point-to-point).
struct Prepared {
  bool put = false;
  Gptr gp;
  py::object buf;
  char *ptr = nullptr;
  size_t nelem = 0, nbytes = 0;
  LayoutTypes types;
  uint64_t generation = 0;
  std::shared_ptr<SegRecord> rec;  // the target segment's record, if the binding has one

  ~Prepared() {
    if (generation != g_generation || !is_initialized()) {
      // dart_exit freed the layout types of that cycle: nothing to hand back
      types.local = types.remote = DART_TYPE_UNDEFINED;
    }
  }

  // Raises DartError if the transfer can no longer run.
  void check_live(const char *fn) const {
    if (generation != g_generation || !is_initialized())
      raise_dart(is_initialized() ? DART_ERR_INVAL : DART_ERR_NOTINIT, fn,
                 "this transfer was prepared before dart.exit(); prepare it again");
    if (rec && rec->freed)
      raise_dart(DART_ERR_INVAL, fn,
                 "the global memory this transfer targets was freed; prepare it again");
  }

  py::object go(Mode mode) const {
    const char *fn = call_name(put, mode);
    check_live(fn);
    dart_handle_t h = DART_HANDLE_NULL;
    check(issue(put, mode, gp.g, ptr, nelem, types.local, types.remote, nbytes, &h), fn);
    return started(mode, h, gp.g, buf);
  }
};

std::unique_ptr<Prepared> prepare(bool put, const Gptr &gp, py::handle buf, size_t rstride,
                                  size_t rblock) {
  const char *fn = put ? "dartpy.put_init" : "dartpy.get_init";
  const char *arg = put ? "array" : "out";
  if (!is_initialized()) raise_dart(DART_ERR_NOTINIT, fn, "DART is not initialized");
  auto p = std::make_unique<Prepared>();
  p->put = put;
  p->gp = gp;
  p->generation = g_generation;
  Buffer b = describe(buf, !put, false, fn, arg);
  p->types.local = b.type;
  match_slot(gp, b, fn, arg);
  p->types.remote = remote_type(b.slot, rstride, rblock, b.nelem, fn);
  p->buf = b.obj;
  p->ptr = b.ptr;
  p->nelem = b.nelem;
  p->nbytes = b.size * g_slots[b.slot].itemsize;
  GptrFields f = fields(gp.g);
  p->rec = find_record(f.teamid, f.segid, f.unit, f.offset);  // only live records are found
  return p;
}

std::vector<Prepared *> as_prepared(py::iterable items, const char *fn) {
  std::vector<Prepared *> v;
  for (auto item : items)
    v.push_back(list_item<Prepared>(item, fn, "transfers", "dartpy.Transfer"));
  return v;
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
  check(rc, names[(int)k]);
  pending_flush(gp.g, k == FlushKind::All || k == FlushKind::LocalAll);
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

void bind_rma(py::module_ &m) {
  m.def(
      "put_blocking",
      [](const Gptr &g, py::handle a, size_t rs, size_t rb) {
        transfer(true, Mode::Blocking, g, a, rs, rb);
      },
      py::arg("gptr"), py::arg("array"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1,
      "Copy array to gptr; on return the data is visible at the target. array may be a "
      "strided NumPy view (one DART strided/indexed type, no copy). remote_stride/"
      "remote_blocklen describe a strided layout at the target (in elements).");
  m.def(
      "get_blocking",
      [](py::handle out, const Gptr &g, size_t rs, size_t rb) {
        transfer(false, Mode::Blocking, g, out, rs, rb);
      },
      py::arg("out"), py::arg("gptr"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1, "Copy from gptr into out; complete on return.");
  m.def(
      "put",
      [](const Gptr &g, py::handle a, size_t rs, size_t rb) {
        transfer(true, Mode::Flush, g, a, rs, rb);
      },
      py::arg("gptr"), py::arg("array"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1,
      "Start a put; it completes (array reusable, data visible) at dart.flush(gptr) or "
      "flush_all. The binding keeps array alive until then.");
  m.def(
      "get",
      [](py::handle out, const Gptr &g, size_t rs, size_t rb) {
        transfer(false, Mode::Flush, g, out, rs, rb);
      },
      py::arg("out"), py::arg("gptr"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1, "Start a get; out holds the data after a flush.");
  m.def(
      "put_handle",
      [](const Gptr &g, py::handle a, size_t rs, size_t rb) {
        return transfer(true, Mode::Handle, g, a, rs, rb);
      },
      py::arg("gptr"), py::arg("array"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1, "Start a put; returns a Handle.");
  m.def(
      "get_handle",
      [](py::handle out, const Gptr &g, size_t rs, size_t rb) {
        return transfer(false, Mode::Handle, g, out, rs, rb);
      },
      py::arg("out"), py::arg("gptr"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1, "Start a get; returns a Handle.");

  py::class_<Prepared>(m, "Transfer", R"(A put or get prepared once by put_init/get_init.

Both layouts (the array's and the global side's) are described when it is made, so each
start costs the DART call and little else: the way to repeat the same transfer (a halo
face every iteration). run() is put_blocking/get_blocking, start() is put_handle/
get_handle (returns a Handle), post() is put/get (complete at a flush of the target). The
array is kept alive by the Transfer: delete the Transfer before freeing memory it views.
A Transfer is valid until its global memory is freed or dart.exit(); using it afterwards
raises DartError.)")
      .def("run", [](const Prepared &p) { p.go(Mode::Blocking); })
      .def("start", [](const Prepared &p) { return p.go(Mode::Handle); })
      .def("post", [](const Prepared &p) { p.go(Mode::Flush); })
      .def_property_readonly("is_put", [](const Prepared &p) { return p.put; })
      .def_property_readonly("nbytes", [](const Prepared &p) { return p.nbytes; })
      .def_property_readonly("gptr", [](const Prepared &p) { return p.gp; })
      .def("__repr__", [](const Prepared &p) {
        return std::string("<dartpy.Transfer ") + (p.put ? "put" : "get") + " of " +
               std::to_string(p.nbytes) + " bytes>";
      });
  m.def(
      "put_init",
      [](const Gptr &g, py::handle a, size_t rs, size_t rb) { return prepare(true, g, a, rs, rb); },
      py::arg("gptr"), py::arg("array"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1,
      "Prepare put_blocking(gptr, array, ...) for repeated use: returns a Transfer.");
  m.def(
      "get_init",
      [](py::handle out, const Gptr &g, size_t rs, size_t rb) {
        return prepare(false, g, out, rs, rb);
      },
      py::arg("out"), py::arg("gptr"), py::kw_only(), py::arg("remote_stride") = 0,
      py::arg("remote_blocklen") = 1,
      "Prepare get_blocking(out, gptr, ...) for repeated use: returns a Transfer.");
  m.def(
      "run_all",
      [](py::iterable ts) {
        for (Prepared *p : as_prepared(ts, "dartpy.run_all")) p->go(Mode::Blocking);
      },
      py::arg("transfers"), "Run prepared transfers one after the other (blocking).");
  m.def(
      "start_all",
      [](py::iterable ts) {
        py::list handles;
        for (Prepared *p : as_prepared(ts, "dartpy.start_all")) handles.append(p->go(Mode::Handle));
        return handles;
      },
      py::arg("transfers"),
      "Start prepared transfers; returns their Handles (for waitall). "
      "If one fails to start, the ones started before it complete locally and the error is "
      "raised.");

  m.def(
      "flush", [](const Gptr &g) { flush(g, FlushKind::One); }, py::arg("gptr"),
      "Complete all put/get/accumulate to gptr's unit in its segment (remote completion).");
  m.def(
      "flush_all", [](const Gptr &g) { flush(g, FlushKind::All); }, py::arg("gptr"),
      R"doc(Complete every operation of this unit to all units in ``gptr``'s segment.

Like :func:`flush` for every target at once: after it, the data of earlier ``put``,
``get`` and ``accumulate`` calls in that segment is visible at their targets and the
buffers dartpy kept for them are released.

Parameters
----------
gptr : Gptr
    Any pointer into the segment.

Raises
------
DartError
    For a freed segment or when DART is not initialized.
)doc");
  m.def(
      "flush_local", [](const Gptr &g) { flush(g, FlushKind::Local); }, py::arg("gptr"),
      R"doc(Complete this unit's operations to ``gptr``'s unit locally.

After it the local buffers of earlier ``put``/``accumulate`` calls to that unit in that
segment may be reused and ``get`` results are in place; remote visibility needs
:func:`flush`.

Parameters
----------
gptr : Gptr
    Names the target unit and segment.

Raises
------
DartError
    For a freed segment or when DART is not initialized.
)doc");
  m.def(
      "flush_local_all", [](const Gptr &g) { flush(g, FlushKind::LocalAll); }, py::arg("gptr"),
      R"doc(Complete this unit's operations to all units of ``gptr``'s segment locally.

:func:`flush_local` for every target at once.

Parameters
----------
gptr : Gptr
    Any pointer into the segment.

Raises
------
DartError
    For a freed segment or when DART is not initialized.
)doc");
  m.def("_pending_count", []() {
    size_t n = 0;
    for (auto &kv : g_pending) n += kv.second.size();
    return n;
  });
}

}  // namespace dartpy
