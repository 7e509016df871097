// SPDX-License-Identifier: BSD-3-Clause
// The C API of distributed arrays (dart_array.h): creation and its agreement, destruction,
// copy, the queries, the halo update entry points, region access, gather and scatter.
#include "array.h"

#include <cinttypes>
#include <cstring>
#include <memory>

namespace dart {
namespace array {

// The exchange AUTO stands for (docs/design.md, "Distributed arrays", says why).
constexpr int kAutoExchange = DART_ARRAY_EXCHANGE_GET;

dart_ret_t rethrow(dart_ret_t rc, const char *fn) {
  const std::string detail = dart_error_detail();  // fail() rewrites that buffer
  return fail(rc, fn, "%s", detail.c_str());
}

namespace {

dart_ret_t check_array(const dart_array_struct *a, const char *fn) {
  if (a == nullptr) return fail(DART_ERR_INVAL, fn, "array is DART_ARRAY_NULL");
  return DART_OK;
}

// The local steps of a creation: the decomposition, this unit's block and its regions.
dart_ret_t build_local(dart_array_struct *a, const dart_array_spec_t &spec, const char *fn) {
  DART_TRY(decomp_build(spec, fn, &a->dc));
  const Decomp &dc = a->dc;
  a->spec = spec;
  if (spec.blocks != nullptr) {
    size_t total = 0;
    for (int d = 0; d < dc.ndim; ++d) total += (size_t)dc.procs[d];
    a->blocks.assign(spec.blocks, spec.blocks + total);
  }
  a->spec.blocks = nullptr;                   // a->blocks holds them
  for (int d = dc.ndim; d < kMaxDims; ++d) {  // nothing beyond ndim
    a->spec.shape[d] = 0;
    a->spec.procs[d] = a->spec.halo_lo[d] = a->spec.halo_hi[d] = a->spec.boundary[d] = 0;
  }
  a->dtype = spec.dtype;
  a->components = spec.components;
  a->elem_size = basic_type_size(spec.dtype);
  a->point_size = a->elem_size * (size_t)spec.components;
  a->team = spec.team;
  a->exchange = spec.exchange == DART_ARRAY_EXCHANGE_AUTO ? kAutoExchange : spec.exchange;
  dart_team_unit_t me;
  DART_ARRAY_TRY(dart_team_myid(spec.team, &me), fn);
  a->myid = me.id;
  a->coords = dc.coords_of(a->myid);
  a->local_shape = dc.local_shape(a->coords);
  for (int d = 0; d < dc.ndim; ++d) {
    a->lo[d] = dc.start(d, a->coords[d]);
    a->hi[d] = dc.start(d, a->coords[d] + 1);
  }
  // Exactly this unit's block, ghosts included (collective allocation of per-unit sizes).
  a->block_bytes = (size_t)dc.local_points(a->coords) * a->point_size;
  return exchange_plan(a, fn);
}

// Undoes build_local (types) and frees what was allocated.
void discard(dart_array_struct *a) { exchange_release(a); }

// Checks lo/hi/strides of a region call; fills the Index forms.
dart_ret_t check_region(const dart_array_struct *a, const int64_t *lo, const int64_t *hi,
                        const void *buf, const int64_t *buf_strides, Index *l, Index *h,
                        Index *strides, const char *fn) {
  DART_TRY(check_array(a, fn));
  if (lo == nullptr || hi == nullptr) return fail(DART_ERR_INVAL, fn, "lo or hi is NULL");
  const int nd = a->dc.ndim;
  Index ext{};
  bool empty = false;
  for (int d = 0; d < nd; ++d) {
    if (lo[d] < 0 || lo[d] > hi[d] || hi[d] > a->dc.shape[d])
      return fail(DART_ERR_INVAL, fn,
                  "region [%" PRId64 ", %" PRId64 ") of dimension %d is not inside [0, %" PRId64
                  ") with lo <= hi",
                  lo[d], hi[d], d, a->dc.shape[d]);
    (*l)[d] = lo[d];
    (*h)[d] = hi[d];
    ext[d] = hi[d] - lo[d];
    empty = empty || ext[d] == 0;
  }
  if (buf == nullptr && !empty) return fail(DART_ERR_INVAL, fn, "buf is NULL");
  if (buf_strides == nullptr) {
    *strides = c_strides(nd, ext);
  } else {
    for (int d = 0; d < nd; ++d) {
      if (buf_strides[d] <= 0)
        return fail(DART_ERR_INVAL, fn, "buf_strides[%d] = %" PRId64 " must be positive", d,
                    buf_strides[d]);
      (*strides)[d] = buf_strides[d];
    }
  }
  return DART_OK;
}

// gather/scatter: agree on the root and the local checks, synchronize, let the root move
// the whole array, synchronize again.
dart_ret_t whole(dart_array_struct *a, void *buf, int32_t root, bool put, const char *fn) {
  DART_TRY(check_array(a, fn));
  dart_ret_t local = DART_OK;
  if (root < 0 || root >= a->dc.nunits)
    local = fail(DART_ERR_INVAL, fn, "root %d is not a unit of the array's team (0 to %d)", root,
                 a->dc.nunits - 1);
  else if (root == a->myid && buf == nullptr)
    local = fail(DART_ERR_INVAL, fn, "buf is NULL on the root");
  DART_TRY(agree(
      a->team, local, (uint64_t)(uint32_t)root, [&] { return "root " + std::to_string(root); },
      fn));
  DART_ARRAY_TRY(dart_barrier(a->team), fn);  // every interior as of every unit's call
  dart_ret_t rc = DART_OK;
  if (a->myid == root) {
    Index lo{}, hi = a->dc.shape;
    rc = region_transfer(a, lo, hi, buf, c_strides(a->dc.ndim, hi), put, fn);
  }
  // The second synchronization also runs after a failure on the root (no unit hangs).
  const dart_ret_t brc = dart_barrier(a->team);
  if (rc == DART_OK && brc != DART_OK) rc = rethrow(brc, fn);
  return rc;
}

}  // namespace

// Zeroes the ghost points of this unit's block: whole rows outside the interior, and
// the two ends of the interior's rows (the last dimension is contiguous).
void zero_ghosts(dart_array_struct *a) {
  const Decomp &dc = a->dc;
  const int nd = dc.ndim, last = nd - 1;
  const Index &ls = a->local_shape;
  const size_t row = (size_t)ls[last] * a->point_size;
  const size_t lo_bytes = (size_t)dc.halo_lo[last] * a->point_size;
  const size_t in_bytes = (size_t)(a->hi[last] - a->lo[last]) * a->point_size;
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= ls[d];
  char *p = static_cast<char *>(a->local);
  for (int64_t r = 0; r < rows; ++r, p += row) {
    bool inside = true;
    for (int64_t rest = r, d = last - 1; d >= 0; --d) {
      const int64_t k = rest % ls[d];
      rest /= ls[d];
      inside = inside && k >= dc.halo_lo[d] && k < dc.halo_lo[d] + (a->hi[d] - a->lo[d]);
    }
    if (!inside) {
      std::memset(p, 0, row);
    } else {
      std::memset(p, 0, lo_bytes);
      std::memset(p + lo_bytes + in_bytes, 0, row - lo_bytes - in_bytes);
    }
  }
}

dart_ret_t array_create(const dart_array_spec_t *spec, dart_array_t *array, const char *fn,
                        bool zero_interior) {
  if (array == nullptr) return fail(DART_ERR_INVAL, fn, "array is NULL");
  *array = DART_ARRAY_NULL;
  if (spec == nullptr) return fail(DART_ERR_INVAL, fn, "spec is NULL");
  // The team must be known before the units can talk: an unknown team fails alike on all.
  size_t nunits = 0;
  DART_ARRAY_TRY(dart_team_size(spec->team, &nunits), fn);
  std::unique_ptr<dart_array_struct> a(new dart_array_struct());
  const dart_ret_t local = spec->refusal != nullptr ? refused(*spec, fn)
                                                    : build_local(a.get(), *spec, fn);
  const uint64_t key = local == DART_OK ? spec_hash(*spec) : 0;
  if (dart_ret_t rc = agree(
          spec->team, local, key, [&] { return spec_describe(*spec); }, fn);
      rc != DART_OK) {
    discard(a.get());
    return rc;
  }
  // Both allocations are all or nothing over the team themselves.
  if (dart_ret_t rc = dart_team_memalloc_aligned(a->team, a->block_bytes, DART_TYPE_BYTE, &a->mem);
      rc != DART_OK) {
    rc = rethrow(rc, fn);
    discard(a.get());
    return rc;
  }
  if (dart_ret_t rc = dart_team_memalloc_aligned(a->team, exchange_flag_bytes(a->dc.ndim),
                                                 DART_TYPE_BYTE, &a->flags);
      rc != DART_OK) {
    rc = rethrow(rc, fn);
    dart_team_memfree(a->mem);
    discard(a.get());
    return rc;
  }
  dart_gptr_t mine = a->mem, my_flags = a->flags;
  void *addr = nullptr, *flags = nullptr;
  dart_ret_t rc = dart_gptr_setunit(&mine, dart_team_unit_t{a->myid});
  if (rc == DART_OK) rc = dart_gptr_getaddr(mine, &addr);
  if (rc == DART_OK) rc = dart_gptr_setunit(&my_flags, dart_team_unit_t{a->myid});
  if (rc == DART_OK) rc = dart_gptr_getaddr(my_flags, &flags);
  // The flags are zero on every unit before any unit's first signal (every unit passes
  // the barrier, also after a local failure).
  if (rc == DART_OK) std::memset(flags, 0, exchange_flag_bytes(a->dc.ndim));
  if (const dart_ret_t brc = dart_barrier(a->team); rc == DART_OK) rc = brc;
  if (rc != DART_OK) {  // cannot fail for memory just allocated; never leak if it does
    rc = rethrow(rc, fn);
    dart_team_memfree(a->flags);
    dart_team_memfree(a->mem);
    discard(a.get());
    return rc;
  }
  a->own_flags = static_cast<uint64_t *>(flags);
  a->local = addr;
  if (zero_interior)
    std::memset(addr, 0, (size_t)a->dc.local_points(a->coords) * a->point_size);
  else
    zero_ghosts(a.get());
  exchange_bind(a.get());
  *array = a.release();
  return DART_OK;
}

}  // namespace array
}  // namespace dart

using namespace dart::array;

extern "C" {

dart_ret_t dart_array_spec_init(dart_array_spec_t *spec) {
  if (spec == nullptr) return fail(DART_ERR_INVAL, "dart_array_spec_init", "spec is NULL");
  std::memset(spec, 0, sizeof *spec);
  spec->dtype = DART_TYPE_UNDEFINED;
  spec->components = 1;
  spec->team = DART_TEAM_ALL;
  spec->stencil = DART_STENCIL_STAR;
  spec->exchange = DART_ARRAY_EXCHANGE_AUTO;
  return DART_OK;
}

dart_ret_t dart_array_dims_create(int32_t nunits, int32_t ndim, int32_t *procs) {
  const char *fn = "dart_array_dims_create";
  if (procs == nullptr) return fail(DART_ERR_INVAL, fn, "procs is NULL");
  if (ndim < 1 || ndim > kMaxDims)
    return fail(DART_ERR_INVAL, fn, "ndim %d is out of range: 1 to DART_ARRAY_MAX_DIMS (%d)", ndim,
                kMaxDims);
  if (nunits < 1) return fail(DART_ERR_INVAL, fn, "nunits %d must be at least 1", nunits);
  Dims p{};
  for (int d = 0; d < ndim; ++d) {
    if (procs[d] < 0)
      return fail(DART_ERR_INVAL, fn, "procs[%d] = %d must be positive (or 0: chosen)", d,
                  procs[d]);
    p[d] = procs[d];
  }
  if (!choose_grid(ndim, nunits, &p))
    return fail(DART_ERR_INVAL, fn, "the given entries of procs do not divide %d units", nunits);
  for (int d = 0; d < ndim; ++d) procs[d] = p[d];
  return DART_OK;
}

dart_ret_t dart_array_spec_check(const dart_array_spec_t *spec) {
  const char *fn = "dart_array_spec_check";
  if (spec == nullptr) return fail(DART_ERR_INVAL, fn, "spec is NULL");
  if (spec->refusal != nullptr) return refused(*spec, fn);
  Decomp dc;
  return decomp_build(*spec, fn, &dc);
}

dart_ret_t dart_array_create(const dart_array_spec_t *spec, dart_array_t *array) {
  return array_create(spec, array, "dart_array_create", true);
}

dart_ret_t dart_array_destroy(dart_array_t *array) {
  const char *fn = "dart_array_destroy";
  if (array == nullptr) return fail(DART_ERR_INVAL, fn, "array is NULL");
  DART_TRY(check_array(*array, fn));
  std::unique_ptr<dart_array_struct> a(*array);
  *array = DART_ARRAY_NULL;
  dart_ret_t rc = DART_OK;
  if (a->in_flight) {  // end it: the neighbours wait for this unit's signals
    a->in_flight = false;
    rc = exchange_end(a.get(), fn);
  }
  exchange_release(a.get());
  // Both frees run whatever happened before (they are collective).
  const dart_ret_t r1 = dart_team_memfree(a->flags);
  if (rc == DART_OK && r1 != DART_OK) rc = rethrow(r1, fn);
  const dart_ret_t r2 = dart_team_memfree(a->mem);
  if (rc == DART_OK && r2 != DART_OK) rc = rethrow(r2, fn);
  return rc;
}

dart_ret_t dart_array_copy(dart_array_t src, dart_array_t *dst) {
  const char *fn = "dart_array_copy";
  if (dst == nullptr) return fail(DART_ERR_INVAL, fn, "dst is NULL");
  *dst = DART_ARRAY_NULL;
  DART_TRY(check_array(src, fn));
  dart_array_spec_t spec = src->spec;
  spec.blocks = src->blocks.empty() ? nullptr : src->blocks.data();
  dart_array_t b = DART_ARRAY_NULL;
  DART_TRY(array_create(&spec, &b, fn, true));
  std::memcpy(b->local, src->local, (size_t)src->dc.local_points(src->coords) * src->point_size);
  // Every block is copied before any unit reads the copy (one-sided reads by global index,
  // dask's block reads of the copy it makes).
  if (dart_ret_t rc = dart_barrier(b->team); rc != DART_OK) {
    rc = rethrow(rc, fn);
    dart_array_destroy(&b);
    return rc;
  }
  *dst = b;
  return DART_OK;
}

dart_ret_t dart_array_get_info(dart_array_t a, dart_array_info_t *info) {
  const char *fn = "dart_array_get_info";
  DART_TRY(check_array(a, fn));
  if (info == nullptr) return fail(DART_ERR_INVAL, fn, "info is NULL");
  std::memset(info, 0, sizeof *info);
  const Decomp &dc = a->dc;
  info->dtype = a->dtype;
  info->gptr = a->mem;
  info->local = a->local;
  info->ndim = dc.ndim;
  info->components = a->components;
  for (int d = 0; d < dc.ndim; ++d) {
    info->shape[d] = dc.shape[d];
    info->lo[d] = a->lo[d];
    info->hi[d] = a->hi[d];
    info->local_shape[d] = a->local_shape[d];
    info->procs[d] = dc.procs[d];
    info->coords[d] = a->coords[d];
    info->halo_lo[d] = dc.halo_lo[d];
    info->halo_hi[d] = dc.halo_hi[d];
    info->boundary[d] = dc.periodic[d] ? DART_ARRAY_BOUNDARY_PERIODIC : DART_ARRAY_BOUNDARY_NONE;
  }
  info->stencil = dc.stencil;
  info->exchange = a->exchange;
  info->myid = a->myid;
  info->nunits = dc.nunits;
  info->team = a->team;
  return DART_OK;
}

dart_ret_t dart_array_local(dart_array_t a, void **base) {
  const char *fn = "dart_array_local";
  DART_TRY(check_array(a, fn));
  if (base == nullptr) return fail(DART_ERR_INVAL, fn, "base is NULL");
  *base = a->local;
  return DART_OK;
}

dart_ret_t dart_array_block(dart_array_t a, int32_t unit, int64_t *lo, int64_t *hi) {
  const char *fn = "dart_array_block";
  DART_TRY(check_array(a, fn));
  if (lo == nullptr || hi == nullptr) return fail(DART_ERR_INVAL, fn, "lo or hi is NULL");
  if (unit < 0 || unit >= a->dc.nunits)
    return fail(DART_ERR_INVAL, fn, "unit %d is not a unit of the array's team (0 to %d)", unit,
                a->dc.nunits - 1);
  const Dims c = a->dc.coords_of(unit);
  for (int d = 0; d < a->dc.ndim; ++d) {
    lo[d] = a->dc.start(d, c[d]);
    hi[d] = a->dc.start(d, c[d] + 1);
  }
  return DART_OK;
}

dart_ret_t dart_array_owner(dart_array_t a, const int64_t *index, int32_t *unit) {
  const char *fn = "dart_array_owner";
  DART_TRY(check_array(a, fn));
  if (index == nullptr || unit == nullptr) return fail(DART_ERR_INVAL, fn, "index or unit is NULL");
  Dims c{};
  for (int d = 0; d < a->dc.ndim; ++d) {
    if (index[d] < 0 || index[d] >= a->dc.shape[d])
      return fail(DART_ERR_INVAL, fn,
                  "index %" PRId64 " of dimension %d is outside [0, %" PRId64 ")", index[d], d,
                  a->dc.shape[d]);
    c[d] = a->dc.coord_of_index(d, index[d]);
  }
  *unit = a->dc.unit_at(c);
  return DART_OK;
}

dart_ret_t dart_array_update_halo_begin(dart_array_t a) {
  const char *fn = "dart_array_update_halo_begin";
  DART_TRY(check_array(a, fn));
  if (a->in_flight)
    return fail(DART_ERR_INVAL, fn,
                "an update of this array is in flight already (end it with "
                "dart_array_update_halo_end)");
  DART_TRY(exchange_begin(a, fn));
  a->in_flight = true;
  return DART_OK;
}

dart_ret_t dart_array_update_halo_end(dart_array_t a) {
  const char *fn = "dart_array_update_halo_end";
  DART_TRY(check_array(a, fn));
  if (!a->in_flight)
    return fail(DART_ERR_INVAL, fn,
                "no update of this array is in flight (begin one with "
                "dart_array_update_halo_begin)");
  a->in_flight = false;
  return exchange_end(a, fn);
}

dart_ret_t dart_array_update_halo(dart_array_t a) {
  const char *fn = "dart_array_update_halo";
  DART_TRY(check_array(a, fn));
  if (a->in_flight)
    return fail(DART_ERR_INVAL, fn,
                "an update of this array is in flight (end it with dart_array_update_halo_end)");
  DART_TRY(exchange_begin(a, fn));
  return exchange_end(a, fn);
}

dart_ret_t dart_array_get(dart_array_t a, const int64_t *lo, const int64_t *hi, void *buf,
                          const int64_t *buf_strides) {
  const char *fn = "dart_array_get";
  Index l{}, h{}, s{};
  DART_TRY(check_region(a, lo, hi, buf, buf_strides, &l, &h, &s, fn));
  return region_transfer(a, l, h, buf, s, false, fn);
}

dart_ret_t dart_array_put(dart_array_t a, const int64_t *lo, const int64_t *hi, const void *buf,
                          const int64_t *buf_strides) {
  const char *fn = "dart_array_put";
  Index l{}, h{}, s{};
  DART_TRY(check_region(a, lo, hi, buf, buf_strides, &l, &h, &s, fn));
  return region_transfer(a, l, h, const_cast<void *>(buf), s, true, fn);
}

dart_ret_t dart_array_gather(dart_array_t a, void *buf, int32_t root) {
  return whole(a, buf, root, false, "dart_array_gather");
}

dart_ret_t dart_array_scatter(dart_array_t a, const void *buf, int32_t root) {
  return whole(a, const_cast<void *>(buf), root, true, "dart_array_scatter");
}

}  // extern "C"
