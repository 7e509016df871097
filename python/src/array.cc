// SPDX-License-Identifier: BSD-3-Clause
// dartpy._core: dartpy.Array, a distributed N-d array with ghost layers (dart_array.h).
//
// The decomposition, the neighbours and the halo exchange exist once, in the core
// (cpp/src/array); this file only translates: Python arguments into a dart_array_spec_t,
// NumPy-style indices into global regions [lo, hi), the array's blocks into zero-copy
// views under the bookkeeping of memory.cc (BufferError while views live, as for an
// Allocation), paths into the core's .npy save and load, and the core's errors into
// ValueError (this unit's argument) or DartError (another unit's, or a refused file).
#include "core.h"

#include "args.h"
#include "array.h"

#include <algorithm>
#include <array>
#include <utility>

namespace dartpy {

namespace {

constexpr int kMaxDims = DART_ARRAY_MAX_DIMS;
const char *const kFn = "dartpy.Array";

// Whether .npy files of the core hold arrays of this dtype: its DART point type reads
// back as the same dtype (not so for bool, uint8, uint16, float16).
bool in_files(int slot) { return slot_of_point(g_slots[slot].xfer, g_slots[slot].mult) == slot; }

const char *const kBoundary[] = {"none", "periodic"};
const char *const kStencil[] = {"star", "box"};
const char *const kExchange[] = {"auto", "get", "notify"};

// ---- arguments (args.h: the binding's one argument layer) --------------------------

int64_t as_int(py::handle h, const std::string &what, int64_t lo, int64_t hi) {
  return args::as_int(h, kFn, what, lo, hi);
}
int32_t as_int32(py::handle h, const std::string &what) { return args::as_int32(h, kFn, what); }
std::vector<py::object> as_list(py::handle h, const std::string &what, const char *forms) {
  return args::as_list(h, kFn, what, forms);
}
std::vector<py::object> per_dim(py::handle h, int nd, const char *arg, bool scalar,
                                const char *forms) {
  return args::per_dim(h, kFn, nd, arg, scalar, forms);
}
int keyword(py::handle h, const std::string &what, const char *const *names, int n) {
  return args::keyword(h, kFn, what, names, n);
}
using args::is_int;
using args::is_seq;
using args::is_str;

// The spec of a creation or a load. A bad argument of this unit must not raise before
// the collective call (the other units would wait in it forever): its error is kept
// (Deferred) and its message goes to the core as the spec's refusal, so that every unit
// fails in dart_array_create (dart_array_load) and the others' DartError names this unit
// and says why ("refused by the binding: dartpy.Array: argument 'halo' ..."). The
// dimension being parsed is `dim`.
//
// A load (no `shape`: a null handle) takes the number of dimensions from the
// per-dimension arguments given as sequences (ndim 0, the file's, when there are none: the
// scalar ones then fill every dimension); the core checks it against the file. Its
// `dtype` may be None (the file's), and the dtypes a file can hold are those whose DART
// point type reads back as the same dtype (not bool, uint8, uint16, float16, which DART
// moves as int8 and int16).
struct SpecArgs {
  dart_array_spec_t spec;
  std::vector<int64_t> blocks;
  Deferred error;
  std::string refusal;  // the error's message (spec.refusal points here)
  int dim = 0;
  int slot = S_NONE;
};

// The message of a kept error.
std::string message_of(const Deferred &d) {
  try {
    std::rethrow_exception(d.error);
  } catch (py::error_already_set &e) {
    return py::str(e.value()).cast<std::string>();
  } catch (std::exception &e) {
    return e.what();
  } catch (...) {
  }
  return "an argument was refused";
}

void parse_spec(SpecArgs &p, py::handle shape, py::handle dtype, py::handle halo,
                py::handle boundary, py::handle stencil, py::handle procs, py::handle blocks,
                py::handle exchange) {
  dart_array_spec_t &s = p.spec;
  dart_array_spec_init(&s);
  // Each step parses one argument; the first failure is the spec's refusal and parsing stops.
  auto step = [&](auto &&parse) {
    if (p.error) return;
    p.dim = 0;
    p.error.run(parse);
    if (p.error) {
      p.refusal = message_of(p.error);
      s.refusal = p.refusal.c_str();
    }
  };
  const bool load = shape.ptr() == nullptr;
  step([&] {
    if (load) {
      s.ndim = 0;
      // (a str boundary or an int halo is scalar; a malformed one fails in its own step)
      const std::pair<const char *, py::handle> args[] = {
          {"halo", halo}, {"boundary", boundary}, {"procs", procs}, {"blocks", blocks}};
      for (const auto &[arg, h] : args) {
        if (h.is_none() || !is_seq(h) || s.ndim != 0) continue;
        const size_t n = (size_t)PySequence_Size(h.ptr());
        if (n < 1 || n > (size_t)kMaxDims)
          throw py::value_error(std::string(kFn) + ".load: argument '" + arg + "' has " +
                                std::to_string(n) +
                                " entries; arrays have 1 to "
                                "ARRAY_MAX_DIMS (" +
                                std::to_string(kMaxDims) + ") dimensions");
        s.ndim = (int32_t)n;
      }
      return;
    }
    // (extents < 1: the core's check)
    const std::vector<int64_t> dims = args::shape(shape, kFn, kMaxDims, INT64_MIN);
    s.ndim = (int32_t)dims.size();
    for (p.dim = 0; p.dim < s.ndim; ++p.dim) s.shape[p.dim] = dims[(size_t)p.dim];
  });
  // (a load of the file's ndim: the scalar arguments fill every dimension)
  const int nd = load && s.ndim == 0 ? kMaxDims : std::max(1, std::min((int)s.ndim, kMaxDims));
  step([&] {
    if (load && dtype.is_none()) return;  // the file's
    p.slot = slot_of_dtype(dtype, load ? "dartpy.Array.load" : kFn, "dtype");
    if (load && !in_files(p.slot))
      throw py::type_error(std::string(kFn) +
                           ".load: argument 'dtype': no .npy file of a "
                           "DART array holds " +
                           slot_name(p.slot) + " (DART moves it as " +
                           slot_name(slot_of_point(g_slots[p.slot].xfer, g_slots[p.slot].mult)) +
                           ")");
    s.dtype = g_slots[p.slot].xfer;
    s.components = (int32_t)g_slots[p.slot].mult;  // complex: pairs of the real type
  });
  step([&] {
    const char *forms = "an int, a sequence of ints or of (lo, hi) pairs, one per dimension";
    auto v = per_dim(halo, nd, "halo", is_int(halo), forms);
    for (p.dim = 0; p.dim < nd; ++p.dim) {  // (negative widths: the core's check)
      const std::string what = "halo[" + std::to_string(p.dim) + "]",
                        arg = "argument '" + what + "'";
      const py::object &h = v[(size_t)p.dim];
      if (is_int(h)) {
        s.halo_lo[p.dim] = s.halo_hi[p.dim] = as_int32(h, arg);
        continue;
      }
      auto pair = as_list(h, arg, "an int or a (lo, hi) pair");
      if (pair.size() != 2)
        throw py::value_error(std::string(kFn) + ": " + arg +
                              " must be an int or a (lo, hi) "
                              "pair, not " +
                              std::to_string(pair.size()) + " values");
      s.halo_lo[p.dim] = as_int32(pair[0], "argument '" + what + "[0]'");
      s.halo_hi[p.dim] = as_int32(pair[1], "argument '" + what + "[1]'");
    }
  });
  step([&] {
    auto v = per_dim(boundary, nd, "boundary", is_str(boundary),
                     "'none', 'periodic' or a sequence of them, one per dimension");
    for (p.dim = 0; p.dim < nd; ++p.dim)
      s.boundary[p.dim] = keyword(v[(size_t)p.dim],
                                  is_str(boundary)
                                      ? std::string("argument 'boundary'")
                                      : "argument 'boundary[" + std::to_string(p.dim) + "]'",
                                  kBoundary, 2);
  });
  step([&] { s.stencil = keyword(stencil, "argument 'stencil'", kStencil, 2); });
  step([&] { s.exchange = keyword(exchange, "argument 'exchange'", kExchange, 3); });
  step([&] {
    if (procs.is_none()) return;  // all chosen
    auto v = per_dim(procs, nd, "procs", false, "a sequence of ints, one per dimension");
    for (p.dim = 0; p.dim < nd; ++p.dim)  // (0: chosen; negative: the core's check)
      s.procs[p.dim] = as_int32(v[(size_t)p.dim],
                                "argument 'procs[" + std::to_string(p.dim) + "]'");
  });
  step([&] {
    if (blocks.is_none()) return;
    auto v = per_dim(blocks, nd, "blocks", false,
                     "a sequence of block extents per dimension (or None)");
    for (p.dim = 0; p.dim < nd; ++p.dim) {
      const std::string what = "blocks[" + std::to_string(p.dim) + "]";
      auto ext = as_list(v[(size_t)p.dim], "argument '" + what + "'",
                         "a sequence of block extents");
      if (s.procs[p.dim] == 0) {  // procs follow from the blocks
        s.procs[p.dim] = (int32_t)std::min<size_t>(ext.size(), INT32_MAX);
      } else if ((size_t)s.procs[p.dim] != ext.size()) {
        throw py::value_error(std::string(kFn) + ": argument '" + what + "' has " +
                              std::to_string(ext.size()) + " extents but procs[" +
                              std::to_string(p.dim) + "] is " + std::to_string(s.procs[p.dim]));
      }
      for (size_t c = 0; c < ext.size(); ++c)  // (extents < 1, sums: the core's checks)
        p.blocks.push_back(as_int(ext[c], "argument '" + what + "[" + std::to_string(c) + "]'",
                                  INT64_MIN, INT64_MAX));
    }
    s.blocks = p.blocks.data();
  });
}

// ---- creation ------------------------------------------------------------------------

// A new Array after a successful create or copy; `slot` is the NumPy dtype (the core
// knows only its DART type: bool and int8 are both DART_TYPE_BYTE).
std::unique_ptr<Array> adopt(dart_array_t handle, int slot, const char *fn) {
  auto arr = std::make_unique<Array>();
  arr->a = handle;
  check(dart_array_get_info(handle, &arr->info), fn);
  const dart_array_info_t &in = arr->info;
  arr->slot = slot;
  arr->generation = g_generation;
  size_t points = 1;
  for (int d = 0; d < in.ndim; ++d) points *= (size_t)in.local_shape[d];
  arr->rec = segment_record(in.gptr, arr->slot, points);
  arr->node_local = true;
  for (int u = 0; u < in.nunits && arr->node_local; ++u) {
    dart_gptr_t g = in.gptr;
    void *addr = nullptr;
    arr->node_local = dart_gptr_setunit(&g, dart_team_unit_t{u}) == DART_OK &&
                      dart_gptr_getaddr_node(g, &addr) == DART_OK;
  }
  return arr;
}

std::unique_ptr<Array> create(py::handle shape, py::handle dtype, py::handle team_h,
                              py::handle halo, py::handle boundary, py::handle stencil,
                              py::handle procs, py::handle blocks, py::handle exchange) {
  // Without a team there is nothing to agree over: this raises at once, as every call
  // with a team argument does (all units must pass the same team).
  const dart_team_t team = team_arg(team_h);
  SpecArgs p;
  parse_spec(p, shape, dtype, halo, boundary, stencil, procs, blocks, exchange);
  p.spec.team = team;
  dart_array_t handle = DART_ARRAY_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_create(&p.spec, &handle);
  }
  if (rc != DART_OK) {
    p.error.rethrow();  // this unit's own Python-level argument error
    const std::string detail = dart_error_detail();
    // A spec that fails on this unit alone was this unit's argument: ValueError with the
    // core's reason. Otherwise another unit's argument (or a mismatch) failed the call.
    if (rc == DART_ERR_INVAL && dart_array_spec_check(&p.spec) == DART_ERR_INVAL) {
      const std::string prefix = "dart_array_create: ";
      throw py::value_error(
          std::string(kFn) + ": " +
          (detail.compare(0, prefix.size(), prefix) == 0 ? detail.substr(prefix.size()) : detail));
    }
    raise_dart(rc, "dart_array_create", detail.c_str());
  }
  return adopt(handle, p.slot, "dart_array_create");
}

// ---- files -----------------------------------------------------------------------------

// A path argument (str, bytes or os.PathLike) as the bytes of a C path; ValueError for an
// empty one or one with a NUL byte, TypeError for anything else.
std::string path_arg(py::handle path, const char *fn) {
  py::object b;
  try {
    b = py::module_::import("os").attr("fsencode")(path);
  } catch (py::error_already_set &e) {
    if (!e.matches(PyExc_TypeError)) throw;
    throw py::type_error(std::string(fn) +
                         ": argument 'path' must be a str, bytes or "
                         "os.PathLike object, not " +
                         tname(path));
  }
  std::string p = b.cast<std::string>();
  if (p.empty()) throw py::value_error(std::string(fn) + ": argument 'path' is empty");
  if (p.find('\0') != std::string::npos)
    throw py::value_error(std::string(fn) + ": argument 'path' contains a NUL byte");
  return p;
}

// Collective: the whole array as one .npy file (dart_array_save). A bad path, or a dtype
// no file holds, is this unit's error: it passes an empty path on, which fails the save
// on every unit (the others' DartError says "path is NULL or empty" for that unit).
void save(const Array &a, py::handle path) {
  const char *fn = "dartpy.Array.save";
  a.need(fn);
  Deferred local;
  std::string p;
  local.run([&] {
    if (!in_files(a.slot))
      throw py::type_error(std::string(fn) + ": a .npy file of a DART array cannot hold " +
                           slot_name(a.slot) + " (DART moves it as " +
                           slot_name(slot_of_point(g_slots[a.slot].xfer, g_slots[a.slot].mult)) +
                           "); save a copy of another dtype");
    p = path_arg(path, fn);
  });
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_save(a.a, local ? "" : p.c_str());
  }
  local.rethrow();
  if (rc != DART_OK) raise_file_error(rc, "dart_array_save", p);
}

// This unit's arguments alone, without the file: the spec of a load with a shape that
// none of them can fail on (the sums of given blocks, else every block as wide as its
// widest ghost layer) and one-byte points. A failure is this unit's bad argument.
dart_ret_t check_alone(dart_array_spec_t s) {
  size_t nunits = 1;
  if (dart_team_size(s.team, &nunits) != DART_OK) return DART_OK;  // (the core's to say)
  if (s.ndim == 0) s.ndim = 1;  // (every dimension got the same values)
  if (s.ndim < 0 || s.ndim > kMaxDims) return DART_OK;
  s.dtype = DART_TYPE_BYTE;
  s.components = 1;
  const int64_t *b = s.blocks;
  for (int d = 0; d < s.ndim; ++d) {
    if (b != nullptr && s.procs[d] > 0) {
      s.shape[d] = 0;
      for (int c = 0; c < s.procs[d]; ++c) s.shape[d] += *b++;
    } else {
      const int64_t p = s.procs[d] > 0 ? s.procs[d] : (int64_t)nunits;
      s.shape[d] = p * std::max<int64_t>(1, std::max(s.halo_lo[d], s.halo_hi[d]));
    }
  }
  return dart_array_spec_check(&s);
}

// Collective over `team`: a new Array from the .npy file at `path` (dart_array_load), with
// the decomposition of the arguments. The shape and, unless given, the dtype are the
// file's. A bad argument of this unit: ValueError/TypeError here and DartError elsewhere
// (a bad path is passed on as NULL, which the units' agreement on the path refuses); a
// refused file, or a file the arguments cannot decompose: DartError with the same
// message on every unit.
std::unique_ptr<Array> read_array(const char *what, const char *core_fn, const std::string &path,
                                  const ArrayReader &read, Deferred &arg_error, py::handle dtype,
                                  dart_team_t team, py::handle halo, py::handle boundary,
                                  py::handle stencil, py::handle procs, py::handle blocks,
                                  py::handle exchange) {
  SpecArgs p;
  const bool named = !arg_error;
  if (named) {
    parse_spec(p, py::handle(), dtype, halo, boundary, stencil, procs, blocks, exchange);
  } else {  // this unit's path (or file) argument was refused
    dart_array_spec_init(&p.spec);
    p.refusal = message_of(arg_error);
    p.spec.refusal = p.refusal.c_str();
  }
  p.spec.team = team;
  dart_array_t handle = DART_ARRAY_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = read(named, &p.spec, &handle);
  }
  if (rc != DART_OK) {
    // (the argument parsers of Array() name dartpy.Array: name the load)
    const std::string ours = std::string(kFn) + ": ";
    auto relabel = [&](const char *text) {
      const std::string m = text;
      if (m.compare(0, ours.size(), ours) != 0) return m;
      return std::string(kFn) + "." + what + ": " + m.substr(ours.size());
    };
    arg_error.rethrow();
    try {
      p.error.rethrow();
    } catch (py::value_error &e) {
      throw py::value_error(relabel(e.what()));
    } catch (py::type_error &e) {
      throw py::type_error(relabel(e.what()));
    }
    const std::string detail = dart_error_detail();
    const int errnum = dart_error_errno();
    if (rc == DART_ERR_INVAL && check_alone(p.spec) == DART_ERR_INVAL) {
      const std::string prefix = "dart_array_spec_check: ", why = dart_error_detail();
      throw py::value_error(
          std::string(kFn) + "." + what + ": " +
          (why.compare(0, prefix.size(), prefix) == 0 ? why.substr(prefix.size()) : why));
    }
    raise_file_error(rc, core_fn, path, detail.c_str(), errnum);
  }
  dart_array_info_t in;
  check(dart_array_get_info(handle, &in), "dart_array_get_info");
  const int slot = p.slot != S_NONE ? p.slot : slot_of_point(in.dtype, (size_t)in.components);
  return adopt(handle, slot, core_fn);
}

std::unique_ptr<Array> load(py::handle path, py::handle dtype, py::handle team_h, py::handle halo,
                            py::handle boundary, py::handle stencil, py::handle procs,
                            py::handle blocks, py::handle exchange) {
  const dart_team_t team = team_arg(team_h);
  std::string file;
  Deferred error;
  error.run([&] { file = path_arg(path, "dartpy.Array.load"); });
  return read_array(
      "load", "dart_array_load", file,
      [&](bool named, const dart_array_spec_t *spec, dart_array_t *out) {
        return dart_array_load(named ? file.c_str() : nullptr, spec, out);
      },
      error, dtype, team, halo, boundary, stencil, procs, blocks, exchange);
}

// ---- views ---------------------------------------------------------------------------

py::array local_view(const Array &a, bool interior) {
  a.need(interior ? "dartpy.Array.interior" : "dartpy.Array.local");
  const dart_array_info_t &in = a.info;
  std::vector<py::ssize_t> shape((size_t)in.ndim), strides((size_t)in.ndim);
  py::ssize_t st = (py::ssize_t)a.itemsize(), offset = 0;
  for (int d = in.ndim - 1; d >= 0; --d) {
    strides[(size_t)d] = st;
    shape[(size_t)d] = interior ? (py::ssize_t)(in.hi[d] - in.lo[d])
                                : (py::ssize_t)in.local_shape[d];
    if (interior) offset += in.halo_lo[d] * st;
    st *= (py::ssize_t)in.local_shape[d];
  }
  return segment_view(a.rec, static_cast<char *>(in.local) + offset, shape, strides, a.slot);
}

// ---- global regions ------------------------------------------------------------------

struct Region {
  std::array<int64_t, kMaxDims> lo{}, hi{};
  std::vector<py::ssize_t> shape;  // the result's shape (dimensions indexed by an int dropped)
  std::array<bool, kMaxDims> kept{};
};

// NumPy's rules for ints, step-1 slices and one Ellipsis; missing trailing indices are
// whole dimensions.
Region parse_index(const Array &a, py::handle key) {
  const int nd = a.nd();
  py::tuple t = PyTuple_Check(key.ptr()) ? py::reinterpret_borrow<py::tuple>(key)
                                         : py::make_tuple(key);
  int ellipses = 0, indexed = 0;
  for (auto item : t) (item.ptr() == Py_Ellipsis ? ellipses : indexed) += 1;
  if (ellipses > 1) throw py::index_error("an index can only have a single ellipsis ('...')");
  if (indexed > nd)
    throw py::index_error("too many indices for dartpy.Array: array is " + std::to_string(nd) +
                          "-dimensional, but " + std::to_string(indexed) + " were indexed");
  Region r;
  int d = 0;
  auto whole = [&](int dim) {
    r.lo[dim] = 0;
    r.hi[dim] = a.info.shape[dim];
    r.kept[dim] = true;
    r.shape.push_back((py::ssize_t)a.info.shape[dim]);
  };
  for (auto item : t) {
    const int64_t n = a.info.shape[d < nd ? d : 0];
    if (item.ptr() == Py_Ellipsis) {
      for (int k = 0; k < nd - indexed; ++k) whole(d++);
    } else if (PySlice_Check(item.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      if (step != 1)
        throw py::value_error("dartpy.Array: slice step " + std::to_string((long long)step) +
                              " in dimension " + std::to_string(d) +
                              " is not supported (only step 1: read the region, then "
                              "slice the NumPy array)");
      const Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)n, &start, &stop, step);
      r.lo[d] = start;
      r.hi[d] = start + len;
      r.kept[d] = true;
      r.shape.push_back(len);
      ++d;
    } else if (py::object i = is_int(item)
                                  ? py::reinterpret_steal<py::object>(PyNumber_Index(item.ptr()))
                                  : py::object()) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
      if (!overflow && v < 0) v += n;
      if (overflow || v < 0 || v >= n)
        throw py::index_error("index " + std::string(py::str(i)) + " is out of bounds for axis " +
                              std::to_string(d) + " with size " + std::to_string(n));
      r.lo[d] = v;
      r.hi[d] = v + 1;
      ++d;
    } else {
      PyErr_Clear();  // (an __index__ that failed, e.g. of a NumPy array of several ints)
      throw py::type_error(
          "dartpy.Array indices must be ints, slices of step 1 or '...', "
          "not " +
          tname(item));
    }
  }
  while (d < nd) whole(d++);
  return r;
}

dart_ret_t region_call(const Array &a, bool put, const Region &r, void *buf, const int64_t *strides,
                       size_t nbytes) {
  return copy_or_blocking(a.node_local && nbytes <= kDirectNoGilBytes, [&] {
    return put ? dart_array_put(a.a, r.lo.data(), r.hi.data(), buf, strides)
               : dart_array_get(a.a, r.lo.data(), r.hi.data(), buf, strides);
  });
}

// dst[...] = value by NumPy's rules (broadcasting, casting); its ValueError or TypeError
// names the argument.
void assign(const py::array &dst, py::handle value, const char *fn, const char *arg) {
  if (PyObject_SetItem(dst.ptr(), Py_Ellipsis, value.ptr()) == 0) return;
  py::error_already_set e;
  const std::string what = std::string(fn) + ": argument '" + arg + "': ";
  if (e.matches(PyExc_ValueError))
    throw py::value_error(what + py::str(e.value()).cast<std::string>());
  if (e.matches(PyExc_TypeError))
    throw py::type_error(what + py::str(e.value()).cast<std::string>());
  throw std::move(e);
}

py::object getitem(const Array &a, py::handle key) {
  a.need("dartpy.Array.__getitem__");
  const Region r = parse_index(a, key);
  py::array out(a.dtype(), r.shape);  // C order: the region's own layout, strides NULL
  check(region_call(a, false, r, out.mutable_data(), nullptr, (size_t)out.nbytes()),
        "dart_array_get");
  if (!r.shape.empty()) return std::move(out);
  return py::reinterpret_steal<py::object>(PyObject_GetItem(out.ptr(), py::tuple().ptr()));
}

void setitem(const Array &a, py::handle key, py::handle value) {
  a.need("dartpy.Array.__setitem__");
  const Region r = parse_index(a, key);
  const int nd = a.nd();
  const py::ssize_t isz = (py::ssize_t)a.itemsize();
  // An array of the dtype and the region's shape whose strides are positive multiples of
  // the item size goes as it is (one strided transfer per owner); anything else is first
  // assigned to a C-order copy, by NumPy's rules (broadcasting, casting).
  std::array<int64_t, kMaxDims> strides{};
  bool direct = false;
  py::array src;
  if (py::isinstance<py::array>(value)) {
    src = py::reinterpret_borrow<py::array>(value);
    direct = src.dtype().equal(a.dtype()) && (size_t)src.ndim() == r.shape.size();
    for (size_t k = 0, d = 0; direct && d < (size_t)nd; ++d) {
      if (!r.kept[d]) {
        strides[d] = 1;  // extent 1: any positive stride
        continue;
      }
      const py::ssize_t ext = src.shape(k), st = src.strides(k);
      direct = ext == r.shape[k] && (ext <= 1 || (st > 0 && st % isz == 0));
      strides[d] = ext <= 1 ? 1 : st / isz;
      ++k;
    }
  }
  if (!direct) {
    src = py::array(a.dtype(), r.shape);
    assign(src, value, "dartpy.Array.__setitem__", "value");
  }
  check(region_call(a, true, r, const_cast<void *>(src.data()), direct ? strides.data() : nullptr,
                    (size_t)src.nbytes()),
        "dart_array_put");
}

// ---- collectives ----------------------------------------------------------------------

// The root of gather/scatter. A bad one of this unit is kept (Deferred) and passed on
// (-1 if it is no int), which the core rejects on this unit: its agreement fails the
// others.
int32_t root_arg(const Array &a, py::handle root, Deferred &local) {
  int32_t r = -1;
  local.run([&] {
    r = as_int32(root, "argument 'root'");
    if (r < 0 || r >= a.info.nunits)
      throw py::value_error(std::string(kFn) + ": argument 'root' = " + std::to_string(r) +
                            " is not a unit of the array's team (0 to " +
                            std::to_string(a.info.nunits - 1) + ")");
  });
  return r;
}

py::object gather(const Array &a, py::handle root_h) {
  a.need("dartpy.Array.gather");
  Deferred local;
  const int32_t root = root_arg(a, root_h, local);
  py::object out = py::none();
  void *buf = nullptr;
  if (root == a.info.myid)
    local.run([&] {
      std::vector<py::ssize_t> shape(a.info.shape, a.info.shape + a.nd());
      py::array g(a.dtype(), shape);
      buf = g.mutable_data();
      out = std::move(g);
    });
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_gather(a.a, buf, root);
  }
  local.rethrow();
  check(rc, "dart_array_gather");
  return out;
}

void scatter(const Array &a, py::handle x, py::handle root_h) {
  a.need("dartpy.Array.scatter");
  Deferred local;
  const int32_t root = root_arg(a, root_h, local);
  py::array src;
  if (root == a.info.myid)  // only the root's x is read
    local.run([&] {
      std::vector<py::ssize_t> shape(a.info.shape, a.info.shape + a.nd());
      if (py::isinstance<py::array>(x)) src = py::reinterpret_borrow<py::array>(x);
      const bool as_is = src && src.dtype().equal(a.dtype()) &&
                         std::vector<py::ssize_t>(src.shape(), src.shape() + src.ndim()) == shape &&
                         (src.flags() & py::array::c_style);
      if (!as_is) {
        src = py::array(a.dtype(), shape);
        assign(src, x, "dartpy.Array.scatter", "x");
      }
    });
  const void *buf = local || !src ? nullptr : src.data();  // NULL on the root fails everywhere
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_scatter(a.a, buf, root);
  }
  local.rethrow();
  check(rc, "dart_array_scatter");
}

std::unique_ptr<Array> copy(const Array &a) {
  a.need("dartpy.Array.copy");
  dart_array_t b = DART_ARRAY_NULL;
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_copy(a.a, &b);
  }
  check(rc, "dart_array_copy");
  return adopt(b, a.slot, "dart_array_copy");
}

void free_array(Array &a) {
  const char *fn = "dartpy.Array.free";
  if (a.freed) raise_dart(DART_ERR_INVAL, fn, "this dartpy.Array was already freed");
  a.need(fn);
  segment_check_views(a.info.team, a.rec.get(), fn);  // BufferError on every unit
  dart_ret_t rc;
  {
    Nogil ng;
    rc = dart_array_destroy(&a.a);  // frees whatever happens
  }
  a.freed = true;
  direct_cache_invalidate();
  GptrFields f = fields(a.info.gptr);
  segment_forget(f.teamid, f.segid);
  check(rc, "dart_array_destroy");
}

void update(const Array &a, int which) {
  static const char *const names[] = {"dart_array_update_halo", "dart_array_update_halo_begin",
                                      "dart_array_update_halo_end"};
  a.need(names[which]);
  dart_ret_t rc;
  {
    Nogil ng;
    rc = which == 0   ? dart_array_update_halo(a.a)
         : which == 1 ? dart_array_update_halo_begin(a.a)
                      : dart_array_update_halo_end(a.a);
  }
  check(rc, names[which]);
}

// `with a.updating_halo():` begins the update on entry and ends it on exit, also when
// the block raises: the neighbours wait for this unit's end-of-update signals.
struct HaloUpdate {
  py::object array;
};

// ---- queries --------------------------------------------------------------------------

template <typename T>
py::tuple tuple_of(const T *v, int n) {
  py::tuple t(n);
  for (int d = 0; d < n; ++d) t[(size_t)d] = py::int_(v[d]);
  return t;
}

py::tuple block_of(const Array &a, int32_t unit) {
  a.need("dart_array_block");
  int64_t lo[kMaxDims], hi[kMaxDims];
  check(dart_array_block(a.a, unit, lo, hi), "dart_array_block");
  return py::make_tuple(tuple_of(lo, a.nd()), tuple_of(hi, a.nd()));
}

int32_t owner_of(const Array &a, py::handle index) {
  a.need("dart_array_owner");
  int64_t idx[kMaxDims] = {0};
  std::vector<py::object> v;
  if (is_int(index) && a.nd() == 1)
    v.push_back(py::reinterpret_borrow<py::object>(index));
  else
    v = as_list(index, "argument 'index'", "a sequence of ndim ints");
  if ((int)v.size() != a.nd())
    throw py::value_error(std::string(kFn) + ": argument 'index' has " + std::to_string(v.size()) +
                          " entries; the array has " + std::to_string(a.nd()) + " dimensions");
  for (int d = 0; d < a.nd(); ++d)
    idx[d] = as_int(v[(size_t)d], "argument 'index[" + std::to_string(d) + "]'", INT64_MIN,
                    INT64_MAX);
  int32_t unit = -1;
  check(dart_array_owner(a.a, idx, &unit), "dart_array_owner");
  return unit;
}

std::string repr(const Array &a) {
  std::string s = "<dartpy.Array shape=" + std::string(py::str(tuple_of(a.info.shape, a.nd()))) +
                  " dtype=" + std::string(py::str(a.dtype())) +
                  " procs=" + std::string(py::str(tuple_of(a.info.procs, a.nd()))) +
                  " team=" + std::to_string(a.info.team);
  return s + (a.live() ? " live>" : " freed>");
}

// dart_array_dims_create: the grid dart.Array chooses. procs: ndim (every entry chosen) or
// a sequence of ndim entries, 0 = chosen.
py::tuple dims_create(py::handle nunits_h, py::handle procs_h) {
  const char *fn = "dart_array_dims_create";
  const int32_t nunits = as_int32(nunits_h, "argument 'nunits'");
  int32_t ndim = 0, out[kMaxDims] = {0};
  if (is_int(procs_h)) {
    ndim = as_int32(procs_h, "argument 'procs'");
  } else {
    auto v = as_list(procs_h, "argument 'procs'", "an int (ndim) or a sequence of ints");
    ndim = (int32_t)std::min<size_t>(v.size(), INT32_MAX);
    for (size_t d = 0; d < v.size() && d < (size_t)kMaxDims; ++d)
      out[d] = as_int32(v[d], "argument 'procs[" + std::to_string(d) + "]'");
  }
  check(dart_array_dims_create(nunits, ndim, out), fn);  // (ndim out of range: its check)
  return tuple_of(out, ndim);
}

}  // namespace

// The hooks of other files' readers of arrays (core.h; h5.cc).
py::object array_read(const char *what, const char *core_fn, const ArrayReader &read,
                      Deferred &arg_error, py::handle dtype, py::handle team, py::handle halo,
                      py::handle boundary, py::handle stencil, py::handle procs, py::handle blocks,
                      py::handle exchange) {
  return py::cast(read_array(what, core_fn, std::string(), read, arg_error, dtype, team_arg(team),
                             halo, boundary, stencil, procs, blocks, exchange));
}

dart_array_t array_handle(py::handle array, const char *fn) {
  if (!py::isinstance<Array>(array))
    throw py::type_error(std::string(fn) + ": argument 'array' must be a dartpy.Array, not " +
                         tname(array));
  const Array &a = array.cast<const Array &>();
  a.need(fn);
  return a.a;
}

void bind_array(py::module_ &m) {
  m.attr("ARRAY_MAX_DIMS") = (int)DART_ARRAY_MAX_DIMS;
  m.def("array_dims_create", &dims_create, py::arg("nunits"), py::arg("procs"),
        "The process grid dart.Array chooses for nunits units: procs is ndim (all chosen) "
        "or a sequence with 0 for the entries to choose (MPI_Dims_create's rule). Local.");

  py::class_<HaloUpdate>(m, "_HaloUpdate")
      .def("__enter__",
           [](HaloUpdate &h) {
             update(h.array.cast<const Array &>(), 1);
             return h.array;
           })
      .def("__exit__", [](HaloUpdate &h, py::handle, py::handle, py::handle) {
        update(h.array.cast<const Array &>(), 2);
        return false;
      });

  py::class_<Array>(m, "Array", R"(A distributed N-d array with ghost layers (dart_array.h)::

    Array(shape, dtype=numpy.float64, *, team=TEAM_ALL, halo=0, boundary="none",
          stencil="star", procs=None, blocks=None, exchange="auto")

Collective over `team`: the global array of `shape` (1 to ARRAY_MAX_DIMS dimensions, C
order) is block-distributed on a process grid (`procs`, 0 entries or None: chosen as
MPI_Dims_create does; `blocks`: the extents of every grid coordinate per dimension, procs
follow from them), each unit's block stored with its ghost layers (`halo`: an int, one
int per dimension or one (lo, hi) pair per dimension). `boundary` "none" (the ghosts
beyond the global boundary are the program's, never written) or "periodic", for all
dimensions or one per dimension; `stencil` "star" (faces) or "box" (also edges and
corners); `exchange` "get", "notify" or "auto" (the measured default). Every unit must
pass the same arguments: a bad argument raises ValueError/TypeError on its unit and
DartError (ERR_INVAL, naming that unit) on the others; nobody hangs, nothing leaks.

`local` is a zero-copy view of this unit's block with ghosts (local[k] is the global
point lo - halo_lo + k), `interior` one without. `a[i, j]`, `a[i0:i1, j0:j1]` read by
global index and `a[...] = x` writes (one-sided, any owner). update_halo() fills every
unit's ghosts from its neighbours (collective, neighbours only); update_halo_begin/_end
or `with a.updating_halo():` split it. save(path) writes one .npy file collectively,
Array.load(path, ...) makes an array of one on any number of units. Free collectively
with free() or a with block (BufferError on every unit while views live).)")
      .def(py::init(&create), py::arg("shape"),
           py::arg("dtype") = py::module_::import("numpy").attr("float64"), py::kw_only(),
           py::arg("team") = Team{DART_TEAM_ALL}, py::arg("halo") = 0, py::arg("boundary") = "none",
           py::arg("stencil") = "star", py::arg("procs") = py::none(),
           py::arg("blocks") = py::none(), py::arg("exchange") = "auto")
      .def_property_readonly("shape", [](const Array &a) { return tuple_of(a.info.shape, a.nd()); })
      .def_property_readonly("dtype", &Array::dtype)
      .def_property_readonly("ndim", [](const Array &a) { return a.nd(); })
      .def_property_readonly("team", [](const Array &a) { return Team{a.info.team}; })
      .def_property_readonly("procs", [](const Array &a) { return tuple_of(a.info.procs, a.nd()); })
      .def_property_readonly("coords",
                             [](const Array &a) { return tuple_of(a.info.coords, a.nd()); })
      .def_property_readonly(
          "lo", [](const Array &a) { return tuple_of(a.info.lo, a.nd()); },
          "This unit's block: the first global index per dimension.")
      .def_property_readonly(
          "hi", [](const Array &a) { return tuple_of(a.info.hi, a.nd()); },
          "This unit's block: one past the last global index per dimension.")
      .def_property_readonly(
          "halo",
          [](const Array &a) {
            py::tuple t(a.nd());
            for (int d = 0; d < a.nd(); ++d)
              t[(size_t)d] = py::make_tuple(a.info.halo_lo[d], a.info.halo_hi[d]);
            return t;
          },
          "Ghost widths ((lo, hi), ...) per dimension.")
      .def_property_readonly("boundary",
                             [](const Array &a) {
                               py::tuple t(a.nd());
                               for (int d = 0; d < a.nd(); ++d)
                                 t[(size_t)d] = py::str(kBoundary[a.info.boundary[d]]);
                               return t;
                             })
      .def_property_readonly("stencil",
                             [](const Array &a) { return std::string(kStencil[a.info.stencil]); })
      .def_property_readonly(
          "exchange", [](const Array &a) { return std::string(kExchange[a.info.exchange]); },
          "The exchange in use: 'get' or 'notify' (never 'auto').")
      .def_property_readonly(
          "gptr", [](const Array &a) { return make_gptr(a.info.gptr, a.slot); },
          "Global pointer of team unit 0's block (ghosts included).")
      .def_property_readonly("freed", [](const Array &a) { return !a.live(); })
      .def_property_readonly(
          "local", [](const Array &a) { return local_view(a, false); },
          "Zero-copy ndarray of this unit's block WITH ghosts.")
      .def_property_readonly(
          "interior", [](const Array &a) { return local_view(a, true); },
          "Zero-copy ndarray of this unit's block without ghosts.")
      .def("block", &block_of, py::arg("unit"),
           "(lo, hi) of team unit `unit`'s block (local query).")
      .def("owner", &owner_of, py::arg("index"),
           "The team unit that owns global point `index` (local query).")
      .def(
          "update_halo", [](const Array &a) { update(a, 0); },
          "Collective (neighbours only): fill this unit's ghosts from its neighbours.")
      .def("update_halo_begin", [](const Array &a) { update(a, 1); })
      .def("update_halo_end", [](const Array &a) { update(a, 2); })
      .def(
          "updating_halo", [](py::object self) { return HaloUpdate{self}; },
          "Context manager: update_halo_begin on entry, update_halo_end on exit.")
      .def("__getitem__", &getitem)
      .def("__setitem__", &setitem)
      .def("gather", &gather, py::arg("root") = 0,
           "Collective: the global ndarray on unit `root`, None elsewhere.")
      .def("scatter", &scatter, py::arg("x"), py::arg("root") = 0,
           "Collective: root's global array `x` into every unit's interior (x is read on "
           "the root only).")
      .def("copy", &copy, "Collective: a new array, same distribution, contents copied.")
      .def("save", &save, py::arg("path"),
           "Collective: the whole array as one NumPy .npy file at `path` (str, bytes or "
           "os.PathLike; the bytes of numpy.save of the gathered array), every unit writing "
           "its own block (MPI-IO). All or nothing: an existing file at `path` is replaced "
           "only after every unit's write succeeded and the file was synced.")
      .def_static("load", &load, py::arg("path"), py::kw_only(), py::arg("dtype") = py::none(),
                  py::arg("team") = Team{DART_TEAM_ALL}, py::arg("halo") = 0,
                  py::arg("boundary") = "none", py::arg("stencil") = "star",
                  py::arg("procs") = py::none(), py::arg("blocks") = py::none(),
                  py::arg("exchange") = "auto",
                  R"(Collective over `team`: a new Array holding the .npy file at `path`::

    Array.load(path, *, dtype=None, team=TEAM_ALL, halo=0, boundary="none", stencil="star",
               procs=None, blocks=None, exchange="auto")

The shape is the file's; so is the dtype unless given (a given dtype must be the file's).
The other arguments are those of Array(): any team, grid, blocks and ghosts, whatever
wrote the file. Every unit reads its own block (MPI-IO); the ghosts are zero (call
update_halo() to fill them). A file that is no .npy file, is truncated, holds a dtype or
an ndim a DART array cannot hold, Fortran-ordered data, or a shape the arguments cannot
decompose raises DartError with the same message on every unit, and nothing is created.)")
      .def("free", &free_array, "Collective free (BufferError on every unit while views live).")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](Array &a, py::handle exc_type, py::handle, py::handle) {
             // While an exception unwinds on this unit the others are elsewhere: the
             // collective free would hang them (as for Allocation).
             if (exc_type.is_none() && a.live()) free_array(a);
             return false;
           })
      .def("__repr__", &repr);
}

}  // namespace dartpy
