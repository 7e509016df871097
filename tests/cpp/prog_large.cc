// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 1 2 UPN none 1 TIMEOUT 600 LABELS large
//
// Transfers of more than 2^31 bytes: 2^31+64 bytes of registered malloc'ed memory
// (DART_TYPE_BYTE) from unit 0 to unit (1 % n) and back; 2^28+3 doubles (> 2^31 bytes,
// < 2^31 elements) through collective memory. Sampled verification including the last
// bytes. Skipped (exit 0) when MemAvailable < 12 GiB.
#include "prog_common.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <vector>

namespace {

long long mem_available_kib() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  long long v = 0;
  std::string unit;
  while (f >> key >> v) {
    std::getline(f, unit);
    if (key == "MemAvailable:") return v;
  }
  return -1;
}

inline uint8_t pat(size_t i, int seed) {
  return (uint8_t)((i * 131u) ^ (i >> 11) ^ (i >> 29) ^ (unsigned)seed);
}

std::vector<size_t> samples(size_t n) {
  std::vector<size_t> s = {
      0, 1, 63, 4096, (size_t)1 << 31, ((size_t)1 << 31) - 1, ((size_t)1 << 31) + 1};
  for (size_t k = 0; k < 2000; ++k) s.push_back((k * 1073741827ull + 12345) % n);
  for (size_t k = 1; k <= 64; ++k) s.push_back(n - k);
  std::vector<size_t> out;
  for (size_t i : s)
    if (i < n) out.push_back(i);
  return out;
}

}  // namespace

int main(int argc, char **argv) {
  const int rank = prog::init_dart(&argc, &argv);
  size_t units = 1;
  CHECK_OK(dart_size(&units));
  const int size = (int)units;
  long long avail = mem_available_kib();
  long long min_avail = avail;
  MPI_Allreduce(&avail, &min_avail, 1, MPI_LONG_LONG, MPI_MIN, prog::comm());
  if (min_avail < (12LL << 20)) {
    if (rank == 0) std::printf("SKIP prog_large: MemAvailable %lld KiB < 12 GiB\n", min_avail);
    return prog::end("prog_large");
  }
  const int me = rank, n = size, target = 1 % n;
  double t0 = MPI_Wtime();

  // ---- 2^31 + 64 bytes, registered memory --------------------------------------------
  // Registered memory is private to its process: every placement reaches it through the
  // team's dynamic window, the same path (progress processes do not serve it), so only the
  // runs without emulated nodes and progress processes move it (MPICH serves a dynamic
  // window by active messages: 2^31 bytes there and back take 27 s on a quiet machine).
  const bool registered_part = std::getenv("DART_UNITS_PER_NODE") == nullptr &&
                               std::getenv("DART_PROGRESS_PER_NODE") == nullptr;
  if (!registered_part && rank == 0)
    std::printf(
        "registered 2^31+64 bytes: left to the run without DART_UNITS_PER_NODE and "
        "DART_PROGRESS_PER_NODE (the same path)\n");
  if (registered_part) {
    const size_t NB = ((size_t)1 << 31) + 64;
    uint8_t *buf = static_cast<uint8_t *>(std::malloc(NB));
    CHECK(buf != nullptr);
    if (buf)
      for (size_t i = 0; i < NB; ++i) buf[i] = pat(i, me == 0 ? 1 : 2);
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK_OK(dart_team_memregister_aligned(DART_TEAM_ALL, NB, DART_TYPE_BYTE, buf, &g));
    size_t segsz = 0;
    CHECK_OK(dart_gptr_segment_size(g, &segsz));
    CHECK(segsz == NB);
    dart_gptr_t tg = g;
    dart_gptr_setunit(&tg, DART_TEAM_UNIT_ID(target));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    if (me == 0 && target != 0)
      CHECK_OK(dart_put_blocking(tg, buf, NB, DART_TYPE_BYTE, DART_TYPE_BYTE));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    const std::vector<size_t> s = samples(NB);
    if (me == target) {
      int bad = 0;
      for (size_t i : s)
        if (buf[i] != pat(i, 1) && bad++ < 5)
          std::fprintf(stderr, "[rank %d] byte %zu: %u != %u\n", me, i, buf[i], pat(i, 1));
      CHECK(bad == 0);
    }
    if (me == 0) {  // get it back into a separate buffer
      uint8_t *back = static_cast<uint8_t *>(std::malloc(NB));
      CHECK(back != nullptr);
      if (back) {
        for (size_t i : s) back[i] = (uint8_t)~pat(i, 1);
        CHECK_OK(dart_get_blocking(back, tg, NB, DART_TYPE_BYTE, DART_TYPE_BYTE));
        int bad = 0;
        for (size_t i : s)
          if (back[i] != pat(i, 1)) ++bad;
        CHECK(bad == 0);
        std::free(back);
      }
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_memderegister(g));
    std::free(buf);
    if (rank == 0) std::printf("registered 2^31+64 bytes: %.1f s\n", MPI_Wtime() - t0);
  }

  // ---- 2^28 + 3 doubles, collective memory -------------------------------------------
  {
    const size_t ND = ((size_t)1 << 28) + 3;
    dart_gptr_t g = DART_GPTR_NULL;
    CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, ND, DART_TYPE_DOUBLE, &g));
    dart_gptr_t mg = g, tg = g;
    dart_gptr_setunit(&mg, DART_TEAM_UNIT_ID(me));
    dart_gptr_setunit(&tg, DART_TEAM_UNIT_ID(target));
    double *mine = nullptr;
    CHECK_OK(dart_gptr_getaddr(mg, reinterpret_cast<void **>(&mine)));
    if (mine)
      for (size_t i = 0; i < ND; ++i) mine[i] = -1.0;
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    const std::vector<size_t> s = samples(ND);
    if (me == 0) {
      std::vector<double> src(ND);
      for (size_t i = 0; i < ND; ++i) src[i] = (double)i;
      CHECK_OK(dart_put_blocking(tg, src.data(), ND, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    if (me == target && mine) {
      int bad = 0;
      for (size_t i : s)
        if (mine[i] != (double)i) ++bad;
      CHECK(bad == 0);
    }
    if (me == 0) {
      std::vector<double> back(ND, -2.0);
      CHECK_OK(dart_get_blocking(back.data(), tg, ND, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
      int bad = 0;
      for (size_t i : s)
        if (back[i] != (double)i) ++bad;
      CHECK(bad == 0);
    }
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    CHECK_OK(dart_team_memfree(g));
    if (rank == 0) std::printf("collective 2^28+3 doubles: total %.1f s\n", MPI_Wtime() - t0);
  }

  return prog::end("prog_large");
}
