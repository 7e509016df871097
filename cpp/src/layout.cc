// SPDX-License-Identifier: BSD-3-Clause
// The layout engine: an N-dimensional array layout (extents and strides in elements) as one
// DART datatype, cached by the core. Both bindings describe their arrays through it: the
// Fortran module passes a C descriptor's dimensions, dartpy a NumPy array's shape and
// strides (reversed, since dimension 0 varies fastest here).
//
// Collapsing: dimensions of extent 1 are dropped; a dimension whose stride equals the
// extent times the stride of the next faster one continues it and is merged. What is left
// is contiguous (the element type itself), one stride over equal blocks (a strided type)
// or several (an indexed type listing every block in index order).
//
// The cache: at most kCacheSlots entries keyed by the collapsed layout. A caller holds an
// entry from dart_type_from_layout until dart_type_layout_release; only entries nobody
// holds are evicted (least recently used first), and when every slot is held the type is
// built outside the cache and freed by its release.
#include "internal.h"

#include <climits>
#include <map>

namespace dart {
namespace detail {

namespace {

constexpr size_t kCacheSlots = 128;
constexpr size_t kMaxIndexedBlocks = size_t(1) << 24;

struct LayoutEntry {
  dart_datatype_t type = DART_TYPE_UNDEFINED;
  size_t held = 0;
  uint64_t last_use = 0;
  bool cached = true;
};

struct LayoutCache {
  std::mutex mutex;
  std::map<std::vector<size_t>, LayoutEntry *> by_key;
  std::unordered_map<dart_datatype_t, LayoutEntry *> by_type;
  uint64_t clock = 0;
};
LayoutCache g_layouts;

struct Dim {
  size_t n;
  size_t stride;
};

// Builds the strided or indexed type of a collapsed layout (blocks of `blocklen` elements,
// outer dimensions m[first..], fastest first).
dart_ret_t build_type(dart_datatype_t elem, size_t blocklen, const std::vector<Dim> &m,
                      size_t first, const char *fn, dart_datatype_t *out) {
  if (m.size() - first == 1) return dart_type_create_strided(elem, m[first].stride, blocklen, out);
  size_t nblocks = 1;
  for (size_t i = first; i < m.size(); ++i) nblocks *= m[i].n;  // bounded by the total
  std::vector<size_t> offsets;
  offsets.reserve(nblocks);
  std::vector<size_t> idx(m.size(), 0);
  size_t off = 0;
  for (size_t b = 0; b < nblocks; ++b) {
    if (!offsets.empty() && off < offsets.back() + blocklen)
      return fail(DART_ERR_INVAL, fn,
                  "the memory order of the elements does not follow their index order (a "
                  "transposed array); no DART datatype describes it");
    if (off > INT_MAX)
      return fail(DART_ERR_INVAL, fn,
                  "the layout spans %zu elements, more than one MPI "
                  "datatype can address (INT_MAX)",
                  off);
    offsets.push_back(off);
    for (size_t i = first; i < m.size(); ++i) {  // next multi-index, fastest dimension first
      if (++idx[i] < m[i].n) {
        off += m[i].stride;
        break;
      }
      off -= (m[i].n - 1) * m[i].stride;
      idx[i] = 0;
    }
  }
  std::vector<size_t> lens(nblocks, blocklen);
  return dart_type_create_indexed(elem, nblocks, lens.data(), offsets.data(), out);
}

}  // namespace

void layouts_finalize() {
  // dart_exit frees every derived type (types_finalize); only forget the entries here.
  std::lock_guard<std::mutex> lock(g_layouts.mutex);
  for (auto &kv : g_layouts.by_type) delete kv.second;
  g_layouts.by_key.clear();
  g_layouts.by_type.clear();
}

}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_type_from_layout(dart_datatype_t elem, int ndim, const size_t *extents,
                                 const ptrdiff_t *strides, dart_datatype_t *type, size_t *nelem) {
  const char *fn = "dart_type_from_layout";
  null_out(type, DART_TYPE_UNDEFINED);
  DART_TRY(check_init(fn));
  if (type == nullptr || nelem == nullptr)
    return fail(DART_ERR_INVAL, fn, "type and nelem must not be NULL");
  if (!is_basic(elem))
    return fail(DART_ERR_INVAL, fn, "elem %ld is not a basic DART type", (long)elem);
  if (ndim < 0) return fail(DART_ERR_INVAL, fn, "ndim %d is negative", ndim);
  if (ndim > 0 && (extents == nullptr || strides == nullptr))
    return fail(DART_ERR_INVAL, fn, "extents and strides must not be NULL");
  size_t total = 1;
  for (int i = 0; i < ndim; ++i) {
    if (extents[i] != 0 && total > SIZE_MAX / extents[i])
      return fail(DART_ERR_INVAL, fn, "the extents multiply to more than SIZE_MAX elements");
    total *= extents[i];
  }
  if (total == 0) {
    *type = elem;
    *nelem = 0;
    return DART_OK;
  }
  // Drop extent-1 dimensions, merge continuing ones (fastest first).
  std::vector<Dim> m;
  for (int i = 0; i < ndim; ++i) {
    if (extents[i] == 1) continue;
    if (strides[i] <= 0)
      return fail(DART_ERR_INVAL, fn,
                  "dimension %d has stride %td: zero or negative strides (a broadcast or "
                  "reversed array) are not described by a DART datatype",
                  i, strides[i]);
    size_t s = (size_t)strides[i];
    if (!m.empty() && s == m.back().n * m.back().stride) {
      m.back().n *= extents[i];
    } else {
      m.push_back(Dim{extents[i], s});
    }
  }
  size_t blocklen = 1, first = 0;
  if (!m.empty() && m[0].stride == 1) {
    blocklen = m[0].n;
    first = 1;
  }
  if (first == m.size()) {  // contiguous
    *type = elem;
    *nelem = total;
    return DART_OK;
  }
  if (blocklen > INT_MAX)
    return fail(DART_ERR_INVAL, fn, "a contiguous block of %zu elements exceeds INT_MAX", blocklen);
  if (m.size() - first == 1) {
    if (m[first].stride < blocklen)
      return fail(DART_ERR_INVAL, fn,
                  "the memory order of the elements does not follow their index order "
                  "(stride %zu < block of %zu elements: a transposed or overlapping "
                  "array); no DART datatype describes it",
                  m[first].stride, blocklen);
    if (m[first].stride > INT_MAX)
      return fail(DART_ERR_INVAL, fn, "stride %zu exceeds INT_MAX", m[first].stride);
  } else {
    size_t nblocks = total / blocklen;
    if (nblocks > kMaxIndexedBlocks)
      return fail(DART_ERR_INVAL, fn,
                  "%zu blocks are too many for one indexed type (at most "
                  "%zu)",
                  nblocks, kMaxIndexedBlocks);
  }
  std::vector<size_t> key;
  key.reserve(2 + 2 * (m.size() - first));
  key.push_back((size_t)elem);
  key.push_back(blocklen);
  for (size_t i = first; i < m.size(); ++i) {
    key.push_back(m[i].n);
    key.push_back(m[i].stride);
  }

  std::lock_guard<std::mutex> lock(g_layouts.mutex);
  auto it = g_layouts.by_key.find(key);
  if (it != g_layouts.by_key.end()) {
    LayoutEntry *e = it->second;
    ++e->held;
    e->last_use = ++g_layouts.clock;
    *type = e->type;
    *nelem = total;
    return DART_OK;
  }
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  DART_TRY(build_type(elem, blocklen, m, first, fn, &t));
  type_mark_layout(t);
  // A free slot, or the least recently used entry that nobody holds.
  bool cached = g_layouts.by_key.size() < kCacheSlots;
  if (!cached) {
    auto victim = g_layouts.by_key.end();
    for (auto v = g_layouts.by_key.begin(); v != g_layouts.by_key.end(); ++v) {
      if (v->second->held == 0 &&
          (victim == g_layouts.by_key.end() || v->second->last_use < victim->second->last_use))
        victim = v;
    }
    if (victim != g_layouts.by_key.end()) {
      LayoutEntry *old = victim->second;
      g_layouts.by_type.erase(old->type);
      type_destroy_layout(old->type);
      delete old;
      g_layouts.by_key.erase(victim);
      cached = true;
    }
  }
  auto *e = new LayoutEntry{t, 1, ++g_layouts.clock, cached};
  g_layouts.by_type.emplace(t, e);
  if (cached) g_layouts.by_key.emplace(std::move(key), e);
  *type = t;
  *nelem = total;
  return DART_OK;
}

dart_ret_t dart_type_layout_release(dart_datatype_t type) {
  const char *fn = "dart_type_layout_release";
  DART_TRY(check_init(fn));
  if (is_basic(type)) return DART_OK;
  std::lock_guard<std::mutex> lock(g_layouts.mutex);
  auto it = g_layouts.by_type.find(type);
  if (it == g_layouts.by_type.end() || it->second->held == 0)
    return fail(DART_ERR_INVAL, fn,
                "type %#lx is not held from dart_type_from_layout (released twice, or "
                "made by dart_type_create_*)",
                (unsigned long)type);
  LayoutEntry *e = it->second;
  if (--e->held == 0 && !e->cached) {
    g_layouts.by_type.erase(it);
    type_destroy_layout(e->type);
    delete e;
  }
  return DART_OK;
}

dart_ret_t dart_type_layout_cache_stats(size_t *entries, size_t *held) {
  const char *fn = "dart_type_layout_cache_stats";
  DART_TRY(check_init(fn));
  std::lock_guard<std::mutex> lock(g_layouts.mutex);
  size_t h = 0;
  for (auto &kv : g_layouts.by_type) h += kv.second->held > 0;
  if (entries) *entries = g_layouts.by_key.size();
  if (held) *held = h;
  return DART_OK;
}

}  // extern "C"
