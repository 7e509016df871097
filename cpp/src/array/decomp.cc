// SPDX-License-Identifier: BSD-3-Clause
// The spec of a distributed array: its checks, the process grid, the blocks, and the
// canonical description that the creation's agreement compares (array.h).
#include "array.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace dart {
namespace array {

size_t basic_type_size(dart_datatype_t t) {
  switch (t) {
#define DART_X_ARRAY_SIZE_(name, ctype, ...) \
  case DART_TYPE_##name: return sizeof(ctype);
    DART_BASIC_TYPE_LIST(DART_X_ARRAY_SIZE_)
#undef DART_X_ARRAY_SIZE_
    default: return 0;
  }
}

std::string basic_type_name(dart_datatype_t t) {
  switch (t) {
#define DART_X_ARRAY_NAME_(name, ...) \
  case DART_TYPE_##name: return "DART_TYPE_" #name;
    DART_BASIC_TYPE_LIST(DART_X_ARRAY_NAME_)
#undef DART_X_ARRAY_NAME_
    default: return "type " + std::to_string((long long)t);
  }
}

int Decomp::unit_at(const Dims &c) const {
  int u = 0;
  for (int d = 0; d < ndim; ++d) u = u * procs[d] + c[d];
  return u;
}

Dims Decomp::coords_of(int unit) const {
  Dims c{};
  for (int d = ndim - 1; d >= 0; --d) {
    c[d] = unit % procs[d];
    unit /= procs[d];
  }
  return c;
}

int Decomp::step(int d, int c, int dir) const {
  int n = c + dir;
  if (n >= 0 && n < procs[d]) return n;
  if (!periodic[d]) return -1;
  return (n + procs[d]) % procs[d];
}

Index Decomp::local_shape(const Dims &c) const {
  Index s{};
  for (int d = 0; d < ndim; ++d) s[d] = extent(d, c[d]) + halo_lo[d] + halo_hi[d];
  return s;
}

int64_t Decomp::local_points(const Dims &c) const {
  const Index s = local_shape(c);
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= s[d];
  return n;
}

// The chosen entries of a grid (procs[d] == 0) for `n` units: the prime factors of what
// the given entries leave, largest first, each to the chosen entry that is smallest so
// far (the lowest index on ties), then the chosen entries in non-increasing order. The
// rule of MPI_Dims_create and of the examples' dims_create.
bool choose_grid(int ndim, int n, Dims *procs) {
  long given = 1;
  std::vector<int> free;
  for (int d = 0; d < ndim; ++d) {
    if ((*procs)[d] == 0)
      free.push_back(d);
    else
      given *= (*procs)[d];
  }
  if (given <= 0 || n % given != 0) return false;
  int m = (int)(n / given);
  if (free.empty()) return m == 1;
  std::vector<int> primes;
  for (int p = 2; m > 1;) {
    if (m % p == 0) {
      primes.push_back(p);
      m /= p;
    } else {
      ++p;
    }
  }
  std::vector<int> dims(free.size(), 1);
  for (auto it = primes.rbegin(); it != primes.rend(); ++it)
    *std::min_element(dims.begin(), dims.end()) *= *it;  // first smallest
  std::sort(dims.begin(), dims.end(), [](int x, int y) { return x > y; });
  for (size_t k = 0; k < free.size(); ++k) (*procs)[free[k]] = dims[k];
  return true;
}

int Decomp::coord_of_index(int d, int64_t i) const {
  const auto &s = starts[d];
  // the last start <= i (s[0] == 0 <= i < s.back())
  return (int)(std::upper_bound(s.begin(), s.end() - 1, i) - s.begin()) - 1;
}

namespace {

std::string list(int n, const int64_t *v) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string((long long)v[i]);
  return s + "]";
}

std::string list(int n, const int32_t *v) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

dart_ret_t decomp_build(const dart_array_spec_t &spec, const char *fn, Decomp *out) {
  const int nd = spec.ndim;
  if (nd < 1 || nd > kMaxDims)
    return fail(DART_ERR_INVAL, fn, "ndim %d is out of range: 1 to DART_ARRAY_MAX_DIMS (%d)", nd,
                kMaxDims);
  if (basic_type_size(spec.dtype) == 0)
    return fail(DART_ERR_INVAL, fn, "dtype %s is not a DART basic type",
                basic_type_name(spec.dtype).c_str());
  if (spec.components < 1)
    return fail(DART_ERR_INVAL, fn, "components %d must be at least 1", spec.components);
  size_t nunits = 0;
  if (dart_ret_t rc = dart_team_size(spec.team, &nunits); rc != DART_OK) return rethrow(rc, fn);
  dart_team_unit_t me;
  if (dart_ret_t rc = dart_team_myid(spec.team, &me); rc != DART_OK) return rethrow(rc, fn);

  Decomp dc;
  dc.ndim = nd;
  dc.nunits = (int)nunits;
  dc.stencil = spec.stencil;
  for (int d = 0; d < nd; ++d) {
    if (spec.shape[d] < 1)
      return fail(DART_ERR_INVAL, fn, "shape[%d] = %" PRId64 " must be at least 1", d,
                  spec.shape[d]);
    if (spec.procs[d] < 0)
      return fail(DART_ERR_INVAL, fn, "procs[%d] = %d must be positive (or 0: chosen)", d,
                  spec.procs[d]);
    if (spec.halo_lo[d] < 0 || spec.halo_hi[d] < 0)
      return fail(DART_ERR_INVAL, fn, "halo widths of dimension %d (lo %d, hi %d) must be >= 0", d,
                  spec.halo_lo[d], spec.halo_hi[d]);
    if (spec.boundary[d] != DART_ARRAY_BOUNDARY_NONE &&
        spec.boundary[d] != DART_ARRAY_BOUNDARY_PERIODIC)
      return fail(DART_ERR_INVAL, fn,
                  "boundary[%d] = %d is not DART_ARRAY_BOUNDARY_NONE or _PERIODIC", d,
                  spec.boundary[d]);
    dc.shape[d] = spec.shape[d];
    dc.procs[d] = spec.procs[d];
    dc.halo_lo[d] = spec.halo_lo[d];
    dc.halo_hi[d] = spec.halo_hi[d];
    dc.periodic[d] = spec.boundary[d] == DART_ARRAY_BOUNDARY_PERIODIC;
  }
  if (spec.stencil != DART_STENCIL_STAR && spec.stencil != DART_STENCIL_BOX)
    return fail(DART_ERR_INVAL, fn, "stencil %d is not DART_STENCIL_STAR or DART_STENCIL_BOX",
                spec.stencil);
  if (spec.exchange != DART_ARRAY_EXCHANGE_AUTO && spec.exchange != DART_ARRAY_EXCHANGE_GET &&
      spec.exchange != DART_ARRAY_EXCHANGE_NOTIFY)
    return fail(DART_ERR_INVAL, fn, "exchange %d is not DART_ARRAY_EXCHANGE_AUTO, _GET or _NOTIFY",
                spec.exchange);
  if (spec.blocks != nullptr)
    for (int d = 0; d < nd; ++d)
      if (spec.procs[d] == 0)
        return fail(DART_ERR_INVAL, fn,
                    "blocks are given but procs[%d] is not: given blocks need the whole grid", d);
  if (!choose_grid(nd, dc.nunits, &dc.procs)) {
    long given = 1;
    for (int d = 0; d < nd; ++d) given *= spec.procs[d] ? spec.procs[d] : 1;
    return fail(DART_ERR_INVAL, fn,
                "procs %s does not fit the team's %d units (the given entries multiply to %ld)",
                list(nd, spec.procs).c_str(), dc.nunits, given);
  }
  for (int d = 0; d < nd; ++d)
    if (dc.shape[d] < dc.procs[d])
      return fail(DART_ERR_INVAL, fn,
                  "dimension %d has %" PRId64
                  " points but %d processes (procs %s): every block "
                  "needs at least one point; pass procs to choose another grid",
                  d, dc.shape[d], dc.procs[d], list(nd, dc.procs.data()).c_str());

  // The blocks: given, or n / p points each with the first n % p one larger.
  const int64_t *given = spec.blocks;
  for (int d = 0; d < nd; ++d) {
    auto &s = dc.starts[d];
    const int p = dc.procs[d];
    s.assign((size_t)p + 1, 0);
    if (given != nullptr) {
      for (int c = 0; c < p; ++c) {
        if (given[c] < 1)
          return fail(DART_ERR_INVAL, fn,
                      "blocks of dimension %d: extent %" PRId64
                      " of grid coordinate %d must be "
                      "at least 1",
                      d, given[c], c);
        s[(size_t)c + 1] = s[(size_t)c] + given[c];
      }
      if (s[(size_t)p] != dc.shape[d])
        return fail(DART_ERR_INVAL, fn,
                    "blocks of dimension %d sum to %" PRId64 ", not to shape[%d] = %" PRId64, d,
                    s[(size_t)p], d, dc.shape[d]);
      given += p;
    } else {
      const int64_t q = dc.shape[d] / p, r = dc.shape[d] % p;
      for (int c = 0; c < p; ++c) s[(size_t)c + 1] = s[(size_t)c] + q + (c < r ? 1 : 0);
    }
  }

  // A ghost region is filled from the neighbouring block's interior: its width must not
  // exceed that block's extent. Sides the library never fills are not checked.
  for (int d = 0; d < nd; ++d) {
    const int p = dc.procs[d];
    for (int side = 0; side < 2; ++side) {
      const int w = side == 0 ? dc.halo_lo[d] : dc.halo_hi[d];
      if (w == 0) continue;
      for (int c = 0; c < p; ++c) {
        const int f = dc.step(d, c, side == 0 ? -1 : 1);  // the block filling c's side
        if (f < 0 || dc.extent(d, f) >= w) continue;
        return fail(DART_ERR_INVAL, fn,
                    "halo_%s[%d] = %d is wider than the block of grid coordinate %d in "
                    "dimension %d (%" PRId64
                    " points), which fills the %s ghosts of grid "
                    "coordinate %d%s",
                    side == 0 ? "lo" : "hi", d, w, f, d, dc.extent(d, f),
                    side == 0 ? "lower" : "upper", c,
                    f == c ? " (itself: periodic with one process)"
                           : (std::abs(f - c) > 1 ? " (periodic wrap)" : ""));
      }
    }
  }

  // Every block, ghosts included, must have a size in bytes.
  const size_t point = basic_type_size(spec.dtype) * (size_t)spec.components;
  for (int d = 0; d < nd; ++d) {
    // the largest block of the dimension: coordinate 0 (default blocks) or any (given)
    int64_t e = 0;
    for (int c = 0; c < dc.procs[d]; ++c) e = std::max(e, dc.extent(d, c));
    const unsigned __int128 w = (unsigned __int128)e + dc.halo_lo[d] + dc.halo_hi[d];
    if (w > (unsigned __int128)INT64_MAX)
      return fail(DART_ERR_INVAL, fn, "a block of dimension %d is too large", d);
  }
  unsigned __int128 bytes = point;
  for (int d = 0; d < nd; ++d) {
    int64_t e = 0;
    for (int c = 0; c < dc.procs[d]; ++c) e = std::max(e, dc.extent(d, c));
    bytes *= (unsigned __int128)(e + dc.halo_lo[d] + dc.halo_hi[d]);
    if (bytes > (unsigned __int128)(SIZE_MAX / 4))
      return fail(DART_ERR_INVAL, fn, "a block with its ghosts is too large for this machine");
  }
  *out = std::move(dc);
  return DART_OK;
}

std::string spec_describe(const dart_array_spec_t &spec) {
  const int nd = std::max(0, std::min(spec.ndim, kMaxDims));
  static const char *const boundary[] = {"none", "periodic"};
  static const char *const stencil[] = {"star", "box"};
  static const char *const exchange[] = {"auto", "get", "notify"};
  std::string s = "shape " + list(nd, spec.shape) + ", " + basic_type_name(spec.dtype);
  if (spec.components != 1) s += " x " + std::to_string(spec.components);
  s += ", procs " + list(nd, spec.procs);
  if (spec.blocks != nullptr) {
    s += ", blocks [";
    const int64_t *b = spec.blocks;
    for (int d = 0; d < nd; ++d) {
      s += (d ? ", " : "") + list(std::max(0, spec.procs[d]), b);
      b += std::max(0, spec.procs[d]);
    }
    s += "]";
  }
  s += ", halo_lo " + list(nd, spec.halo_lo) + ", halo_hi " + list(nd, spec.halo_hi);
  s += ", boundary [";
  for (int d = 0; d < nd; ++d) {
    const int b = spec.boundary[d];
    s += (d ? ", " : "") + (b == 0 || b == 1 ? std::string(boundary[b]) : std::to_string(b));
  }
  s += "], stencil ";
  s += spec.stencil == 0 || spec.stencil == 1 ? stencil[spec.stencil]
                                              : std::to_string(spec.stencil);
  s += ", exchange ";
  s += spec.exchange >= 0 && spec.exchange <= 2 ? exchange[spec.exchange]
                                                : std::to_string(spec.exchange);
  if (spec.ndim != nd) s = "ndim " + std::to_string(spec.ndim) + ", " + s;
  return s;
}

dart_ret_t refused(const dart_array_spec_t &spec, const char *fn) {
  return fail(DART_ERR_INVAL, fn, "refused by the binding: %s", spec.refusal);
}

uint64_t spec_hash(const dart_array_spec_t &spec) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char ch : spec_describe(spec)) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

Index c_strides(int ndim, const Index &block) {
  Index s{};
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    s[d] = stride;
    stride *= block[d];
  }
  return s;
}

dart_ret_t box_type(dart_datatype_t elem, int components, int ndim, const Index &ext,
                    const Index &strides, dart_datatype_t *type, size_t *nelem, const char *fn) {
  // dart_type_from_layout lists dimensions fastest first, in elements: the components,
  // then the array's dimensions reversed.
  size_t extents[kMaxDims + 1];
  ptrdiff_t el_strides[kMaxDims + 1];
  extents[0] = (size_t)components;
  el_strides[0] = 1;
  for (int k = 0; k < ndim; ++k) {
    const int d = ndim - 1 - k;
    extents[k + 1] = (size_t)ext[d];
    el_strides[k + 1] = (ptrdiff_t)(strides[d] * components);
  }
  DART_ARRAY_TRY(dart_type_from_layout(elem, ndim + 1, extents, el_strides, type, nelem), fn);
  return DART_OK;
}

int64_t box_offset(int ndim, const Index &at, const Index &block) {
  int64_t off = 0;
  for (int d = 0; d < ndim; ++d) off = off * block[d] + at[d];
  return off;
}

}  // namespace array
}  // namespace dart
