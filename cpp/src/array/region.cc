// SPDX-License-Identifier: BSD-3-Clause
// Global-index access to a distributed array: a region [lo, hi) to or from a buffer,
// each owner's part one strided transfer (array.h).
#include "array.h"

#include <algorithm>

namespace dart {
namespace array {

dart_ret_t region_transfer(dart_array_struct *a, const Index &lo, const Index &hi, void *buf,
                           const Index &buf_strides, bool put, const char *fn) {
  const Decomp &dc = a->dc;
  const int nd = dc.ndim;
  for (int d = 0; d < nd; ++d)
    if (lo[d] >= hi[d]) return DART_OK;  // an empty region moves nothing
  // The owners' grid coordinates per dimension: first..last, walked as an odometer.
  Dims first{}, last{}, c{};
  for (int d = 0; d < nd; ++d) {
    first[d] = dc.coord_of_index(d, lo[d]);
    last[d] = dc.coord_of_index(d, hi[d] - 1);
  }
  c = first;
  std::vector<dart_handle_t> handles;
  std::vector<dart_datatype_t> types;
  dart_ret_t rc = DART_OK;
  for (;;) {
    // The part of the region that the owner at c holds.
    Index ext{}, at_owner{}, theirs = dc.local_shape(c);
    int64_t buf_off = 0;
    for (int d = 0; d < nd; ++d) {
      const int64_t s = std::max(lo[d], dc.start(d, c[d]));
      const int64_t e = std::min(hi[d], dc.start(d, c[d] + 1));
      ext[d] = e - s;
      at_owner[d] = s - dc.start(d, c[d]) + dc.halo_lo[d];
      buf_off += (s - lo[d]) * buf_strides[d];
    }
    dart_datatype_t mine_t = DART_TYPE_UNDEFINED, theirs_t = DART_TYPE_UNDEFINED;
    size_t nelem = 0;
    rc = box_type(a->dtype, a->components, nd, ext, buf_strides, &mine_t, &nelem, fn);
    if (rc == DART_OK) {
      types.push_back(mine_t);
      rc = box_type(a->dtype, a->components, nd, ext, c_strides(nd, theirs), &theirs_t, &nelem, fn);
    }
    if (rc == DART_OK) {
      types.push_back(theirs_t);
      dart_gptr_t g = a->mem;
      g.unitid = dc.unit_at(c);  // dart_gptr_setunit: the owner's block
      g.addr_or_offs.offset = (uint64_t)(box_offset(nd, at_owner, theirs) * (int64_t)a->point_size);
      char *p = static_cast<char *>(buf) + buf_off * (int64_t)a->point_size;
      dart_handle_t h = DART_HANDLE_NULL;
      rc = put ? dart_put_handle(g, p, nelem, mine_t, theirs_t, &h)
               : dart_get_handle(p, g, nelem, theirs_t, mine_t, &h);
      if (rc != DART_OK) rc = rethrow(rc, fn);
      handles.push_back(h);
    }
    if (rc != DART_OK) break;
    // the next owner
    int d = nd - 1;
    while (d >= 0 && c[d] == last[d]) {
      c[d] = first[d];
      --d;
    }
    if (d < 0) break;
    ++c[d];
  }
  // Whatever started completes before the types go (and before an error returns).
  if (!handles.empty()) {
    const dart_ret_t wrc = dart_waitall(handles.data(), handles.size());
    if (rc == DART_OK && wrc != DART_OK) rc = rethrow(wrc, fn);
  }
  for (dart_datatype_t t : types) dart_type_layout_release(t);
  return rc;
}

}  // namespace array
}  // namespace dart
