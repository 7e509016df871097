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
constexpr size_t kDirectNoGilBytes = 64 * 1024;

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

py::object transfer(bool put, Mode mode, const Gptr &gp, py::handle buf, size_t rstride,
                    size_t rblock) {
  static const char *names[2][3] = {
      {"dart_get_blocking", "dart_get", "dart_get_handle"},
      {"dart_put_blocking", "dart_put", "dart_put_handle"}};
  const char *fn = names[put][(int)mode];
  const char *arg = put ? "array" : "out";
  LayoutTypes types;  // released when this call returns: the transfer has started by then
  Buffer b = describe(buf, !put, false, fn, arg);
  types.local = b.type;
  match_slot(gp, b, fn, arg);
  dart_datatype_t rt = remote_type(b.slot, rstride, rblock, b.nelem, fn);
  types.remote = rt;
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
    check(rc, fn);
    return py::none();
  }
  {
    Nogil ng;
    rc = put ? dart_put_handle(gp.g, b.ptr, b.nelem, b.type, rt, &h)
             : dart_get_handle(b.ptr, gp.g, b.nelem, rt, b.type, &h);
  }
  check(rc, fn);
  if (mode == Mode::Flush) {
    // dart_put/dart_get semantics: complete at the next flush of the target. A handle
    // came back only for an MPI RMA transfer; keep the buffer until that flush.
    if (h != DART_HANDLE_NULL) {
      pending_add(gp.g, b.obj);
      Locked l;
      rc = dart_handle_free(&h);
    }
    check(rc, "dart_handle_free");
    return py::none();
  }
  return make_handle(h, gp.g, h != DART_HANDLE_NULL ? b.obj : py::object());
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

  m.def("flush", [](const Gptr &g) { flush(g, FlushKind::One); }, py::arg("gptr"),
        "Complete all put/get/accumulate to gptr's unit in its segment (remote completion).");
  m.def("flush_all", [](const Gptr &g) { flush(g, FlushKind::All); }, py::arg("gptr"));
  m.def("flush_local", [](const Gptr &g) { flush(g, FlushKind::Local); }, py::arg("gptr"));
  m.def("flush_local_all", [](const Gptr &g) { flush(g, FlushKind::LocalAll); },
        py::arg("gptr"));
  m.def("_pending_count", []() {
    size_t n = 0;
    for (auto &kv : g_pending) n += kv.second.size();
    return n;
  });
}

}  // namespace dartpy
