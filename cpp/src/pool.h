/* SPDX-License-Identifier: BSD-3-Clause */
// A first-fit allocator of offsets in a pool of bytes, with coalescing (allocator.cc): the
// dart_memalloc pool of each unit (globmem.cc) and each allocator of dart_allocator_new.
// Not thread-safe: its owners lock.
#pragma once

#include <cstddef>
#include <map>
#include <unordered_map>

namespace dart {
namespace detail {

class PoolAllocator {
 public:
  // A pool of `size` bytes whose blocks start at multiples of `align` (a power of 2).
  void reset(size_t size, size_t align = 64);
  // Returns the offset, or SIZE_MAX if no block is large enough.
  size_t allocate(size_t bytes);
  // false if offset is not a live allocation.
  bool release(size_t offset);
  size_t free_bytes() const { return free_total_; }

 private:
  std::map<size_t, size_t> free_;            // offset -> size
  std::unordered_map<size_t, size_t> used_;  // offset -> size
  size_t free_total_ = 0;
  size_t align_ = 64;
};

}  // namespace detail
}  // namespace dart
