/* SPDX-License-Identifier: BSD-3-Clause */
// The hardware of one unit as dart_init exchanges it (locality_hw.cc) and the locality
// API reports it (locality.cc): plain words, the same size everywhere. -1: unknown.
#pragma once

#include <cstdint>

namespace dart {
namespace detail {

constexpr int kCacheLevels = 3;  // L1 (data), L2, L3

struct UnitHw {
  char host[64];            // gethostname: the machine
  int32_t cpu, core, numa;  // where the unit ran at dart_init (OS cpu, machine core, NUMA)
  int32_t cores, numas, sockets, min_threads, max_threads, min_mhz, max_mhz;  // machine
  int32_t cache_size[kCacheLevels], cache_line[kCacheLevels], cache_id[kCacheLevels];
  int32_t mem_mib, numa_mem_mib;
};

}  // namespace detail
}  // namespace dart
