// SPDX-License-Identifier: BSD-3-Clause
// Pools carved up locally: PoolAllocator (pool.h), which serves the dart_memalloc pool
// (globmem.cc) and the allocators of DART 3.2's dart_allocator_* (here): one collective
// segment per allocator, each unit carving up its own part (first fit with coalescing).
#include "internal.h"

#include <cstddef>
#include <iterator>
#include <unordered_set>

namespace dart {
namespace detail {

void PoolAllocator::reset(size_t size, size_t align) {
  free_.clear();
  used_.clear();
  align_ = align;
  size_t usable = size / align_ * align_;
  if (usable > 0) free_.emplace(0, usable);
  free_total_ = usable;
}

size_t PoolAllocator::allocate(size_t bytes) {
  size_t need = ((bytes == 0 ? 1 : bytes) + align_ - 1) / align_ * align_;
  if (need < bytes) return SIZE_MAX;  // overflow
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    size_t off = it->first, len = it->second;
    free_.erase(it);
    if (len > need) free_.emplace(off + need, len - need);
    used_.emplace(off, need);
    free_total_ -= need;
    return off;
  }
  return SIZE_MAX;
}

bool PoolAllocator::release(size_t offset) {
  auto u = used_.find(offset);
  if (u == used_.end()) return false;
  size_t len = u->second;
  used_.erase(u);
  free_total_ += len;
  auto next = free_.lower_bound(offset);
  size_t off = offset;
  if (next != free_.begin()) {  // merge with the previous free block
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      off = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  next = free_.lower_bound(off);  // merge with the next free block
  if (next != free_.end() && off + len == next->first) {
    len += next->second;
    free_.erase(next);
  }
  free_.emplace(off, len);
  return true;
}

}  // namespace detail
}  // namespace dart

// An allocator (DART 3.2's dart_allocator_*): one collective segment, carved up locally
// by each unit as the dart_memalloc pool is (first fit with coalescing), 16-byte aligned.
struct dart_allocator_struct {
  dart_gptr_t base;  // team unit 0's part of the segment
  int myid;          // this unit in the team
  dart::detail::PoolAllocator pool;
  std::mutex mutex;
};

namespace dart {
namespace detail {
namespace {

std::mutex g_allocators_mutex;
std::unordered_set<dart_allocator_struct *> g_allocators;  // the live ones

}  // namespace

// dart_exit: the allocators still alive (their segments go with the teams).
void allocators_finalize() {
  std::lock_guard<std::mutex> lock(g_allocators_mutex);
  for (dart_allocator_struct *a : g_allocators) delete a;
  g_allocators.clear();
}

namespace {

dart_ret_t check_allocator(dart_allocator_t a, const char *fn) {
  std::lock_guard<std::mutex> lock(g_allocators_mutex);
  if (a == nullptr || g_allocators.count(a) == 0)
    return fail(DART_ERR_INVAL, fn, "not a live allocator (NULL, destroyed or never created)");
  return DART_OK;
}

}  // namespace
}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" {

dart_ret_t dart_allocator_new(size_t pool_size, dart_team_t team, dart_allocator_t *new_allocator) {
  const char *fn = "dart_allocator_new";
  null_out(new_allocator, nullptr);
  DART_TRY(check_init(fn));
  dart_team_unit_t me;
  DART_TRY(dart_team_myid(team, &me));
  // A NULL output still takes part in the allocation (which then fails on every unit).
  std::unique_ptr<dart_allocator_struct> a(new dart_allocator_struct());
  dart_ret_t rc = dart_team_memalloc_aligned(team, new_allocator ? pool_size : SIZE_MAX,
                                             DART_TYPE_BYTE, &a->base);
  if (rc != DART_OK) {
    if (new_allocator == nullptr) return fail(DART_ERR_INVAL, fn, "new_allocator is NULL");
    return rc;
  }
  a->myid = me.id;
  a->pool.reset(pool_size, alignof(std::max_align_t));
  {
    std::lock_guard<std::mutex> lock(g_allocators_mutex);
    g_allocators.insert(a.get());
  }
  *new_allocator = a.release();
  return DART_OK;
}

dart_ret_t dart_allocator_alloc(size_t nelem, dart_datatype_t dtype, dart_gptr_t *gptr,
                                dart_allocator_t allocator) {
  const char *fn = "dart_allocator_alloc";
  null_out(gptr, DART_GPTR_NULL);
  DART_TRY(check_init(fn));
  if (gptr == nullptr) return fail(DART_ERR_INVAL, fn, "gptr is NULL");
  DART_TRY(check_allocator(allocator, fn));
  size_t nbytes = 0;
  DART_TRY(alloc_bytes(nelem, dtype, &nbytes, fn));
  size_t off, free_bytes;
  {
    std::lock_guard<std::mutex> lock(allocator->mutex);
    off = allocator->pool.allocate(nbytes);
    free_bytes = allocator->pool.free_bytes();
  }
  if (off == SIZE_MAX)
    return fail(DART_ERR_NOMEM, fn,
                "the allocator's pool is exhausted: %zu bytes requested, "
                "%zu bytes free (in fragments)",
                nbytes, free_bytes);
  dart_gptr_t g = allocator->base;
  g.unitid = allocator->myid;
  g.addr_or_offs.offset = off;
  *gptr = g;
  return DART_OK;
}

dart_ret_t dart_allocator_free(dart_gptr_t *gptr, dart_allocator_t allocator) {
  const char *fn = "dart_allocator_free";
  DART_TRY(check_init(fn));
  if (gptr == nullptr) return fail(DART_ERR_INVAL, fn, "gptr is NULL");
  DART_TRY(check_allocator(allocator, fn));
  const dart_gptr_t &b = allocator->base;
  if (gptr->teamid != b.teamid || gptr->segid != b.segid || gptr->unitid != allocator->myid)
    return fail(DART_ERR_INVAL, fn,
                "gptr (unit %d, segment %d, team %d) is no allocation of this "
                "unit from this allocator",
                (int)gptr->unitid, (int)gptr->segid, (int)gptr->teamid);
  bool ok;
  {
    std::lock_guard<std::mutex> lock(allocator->mutex);
    ok = allocator->pool.release((size_t)gptr->addr_or_offs.offset);
  }
  if (!ok)
    return fail(DART_ERR_NOTFOUND, fn, "offset %llu is not a live allocation (already freed?)",
                (unsigned long long)gptr->addr_or_offs.offset);
  *gptr = DART_GPTR_NULL;
  return DART_OK;
}

dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator) {
  const char *fn = "dart_allocator_destroy";
  DART_TRY(check_init(fn));
  if (allocator == nullptr) return fail(DART_ERR_INVAL, fn, "allocator is NULL");
  DART_TRY(check_allocator(*allocator, fn));
  {
    std::lock_guard<std::mutex> lock(g_allocators_mutex);
    g_allocators.erase(*allocator);
  }
  std::unique_ptr<dart_allocator_struct> a(*allocator);
  *allocator = nullptr;
  return dart_team_memfree(a->base);  // collective
}

}  // extern "C"
