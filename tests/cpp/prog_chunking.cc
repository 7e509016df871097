// SPDX-License-Identifier: BSD-3-Clause
// Transfers split into chunks: DART_TRANSFER_CHUNK (max elements per underlying MPI
// call) is read at dart_init, so this program sets it to 1000 before dart_init and moves
// 10^6+7 doubles with every transfer kind, to self and to the other units, and through
// collectives; every element is verified.
#include "prog_common.h"

#include <vector>

namespace {

const size_t N = 1000000 + 7;

double val(int unit, size_t i, int round) { return unit * 1e7 + (double)i + round * 0.5; }

size_t first_bad(const double *p, size_t n, int unit, int round) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != val(unit, i, round)) return i;
  return SIZE_MAX;
}

}  // namespace

int main(int argc, char **argv) {
  setenv("DART_TRANSFER_CHUNK", "1000", 1);
  prog::init_dart(&argc, &argv);
  dart_global_unit_t me{-1};
  size_t nu = 0;
  dart_myid(&me);
  dart_size(&nu);
  const int n = (int)nu;
  const char *cfg = dart_config_string();
  if (me.id == 0) std::printf("config: %s\n", cfg ? cfg : "(null)");

  dart_gptr_t g = DART_GPTR_NULL;
  CHECK_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, N, DART_TYPE_DOUBLE, &g));
  dart_gptr_t mine_g = g;
  dart_gptr_setunit(&mine_g, DART_TEAM_UNIT_ID(me.id));
  double *mine = nullptr;
  CHECK_OK(dart_gptr_getaddr(mine_g, reinterpret_cast<void **>(&mine)));
  std::vector<double> src(N), back(N);

  // Targets: self, then right neighbour (covers other node / same node per UPN).
  int round = 0;
  for (int target : {me.id, (me.id + 1) % n}) {
    const int writer = target == me.id ? me.id : (me.id + n - 1) % n;
    dart_gptr_t tg = g;
    dart_gptr_setunit(&tg, DART_TEAM_UNIT_ID(target));
    for (int kind = 0; kind < 4; ++kind, ++round) {
      for (size_t i = 0; i < N; ++i) src[i] = val(me.id, i, round);
      dart_handle_t h = DART_HANDLE_NULL;
      switch (kind) {
        case 0:
          CHECK_OK(dart_put(tg, src.data(), N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          CHECK_OK(dart_flush(tg));
          break;
        case 1:
          CHECK_OK(dart_put_blocking(tg, src.data(), N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          break;
        case 2:
          CHECK_OK(dart_put_handle(tg, src.data(), N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          CHECK_OK(dart_wait(&h));
          break;
        case 3: {
          CHECK_OK(dart_put_handle(tg, src.data(), N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          int32_t done = 0;
          while (!done && dart_test(&h, &done) == DART_OK) {
          }
          CHECK(done == 1);
          break;
        }
      }
      CHECK_OK(dart_barrier(DART_TEAM_ALL));
      size_t bad = mine ? first_bad(mine, N, writer, round) : 0;
      if (bad != SIZE_MAX)
        std::fprintf(stderr, "[rank %d] put kind %d target %d: first bad element %zu\n", me.id,
                     kind, target, bad);
      CHECK(bad == SIZE_MAX);
      // Read the target's part back with the get variants (it holds the writer's data).
      std::fill(back.begin(), back.end(), -1.0);
      switch (kind) {
        case 0:
          CHECK_OK(dart_get(back.data(), tg, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          CHECK_OK(dart_flush_local(tg));
          break;
        case 1:
          CHECK_OK(dart_get_blocking(back.data(), tg, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
          break;
        case 2:
          CHECK_OK(dart_get_handle(back.data(), tg, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          CHECK_OK(dart_wait_local(&h));
          break;
        case 3: {
          CHECK_OK(dart_get_handle(back.data(), tg, N, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE, &h));
          dart_handle_t hs[2] = {h, DART_HANDLE_NULL};
          CHECK_OK(dart_waitall(hs, 2));
          break;
        }
      }
      bad = first_bad(back.data(), N, me.id, round);
      if (bad != SIZE_MAX)
        std::fprintf(stderr, "[rank %d] get kind %d target %d: first bad element %zu\n", me.id,
                     kind, target, bad);
      CHECK(bad == SIZE_MAX);
      CHECK_OK(dart_barrier(DART_TEAM_ALL));
    }
  }

  // Strided with many blocks: every second element of the right neighbour's part.
  {
    dart_datatype_t every2 = DART_TYPE_UNDEFINED;
    CHECK_OK(dart_type_create_strided(DART_TYPE_DOUBLE, 2, 1, &every2));
    const size_t half = N / 2;
    if (mine)
      for (size_t i = 0; i < N; ++i) mine[i] = val(me.id, i, 99);
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
    const int right = (me.id + 1) % n;
    dart_gptr_t tg = g;
    dart_gptr_setunit(&tg, DART_TEAM_UNIT_ID(right));
    std::fill(back.begin(), back.end(), -1.0);
    CHECK_OK(dart_get_blocking(back.data(), tg, half, every2, DART_TYPE_DOUBLE));
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < half && bad == SIZE_MAX; ++i)
      if (back[i] != val(right, 2 * i, 99)) bad = i;
    CHECK(bad == SIZE_MAX);
    CHECK_OK(dart_type_destroy(&every2));
    CHECK_OK(dart_barrier(DART_TEAM_ALL));
  }

  // Collectives with more than DART_TRANSFER_CHUNK elements.
  {
    for (size_t i = 0; i < N; ++i) src[i] = me.id == n - 1 ? val(n - 1, i, 7) : -1.0;
    CHECK_OK(dart_bcast(src.data(), N, DART_TYPE_DOUBLE, DART_TEAM_UNIT_ID(n - 1), DART_TEAM_ALL));
    CHECK(first_bad(src.data(), N, n - 1, 7) == SIZE_MAX);
    for (size_t i = 0; i < N; ++i) src[i] = (double)(i % 1000) + me.id;
    CHECK_OK(
        dart_allreduce(src.data(), back.data(), N, DART_TYPE_DOUBLE, DART_OP_SUM, DART_TEAM_ALL));
    size_t bad = SIZE_MAX;
    const double ids = n * (n - 1) / 2.0;
    for (size_t i = 0; i < N && bad == SIZE_MAX; ++i)
      if (back[i] != n * (double)(i % 1000) + ids) bad = i;
    CHECK(bad == SIZE_MAX);
    const size_t M = N / 4 + 1;  // per unit, still > chunk
    std::vector<double> part(M), all(M * n);
    for (size_t i = 0; i < M; ++i) part[i] = val(me.id, i, 3);
    CHECK_OK(dart_allgather(part.data(), all.data(), M, DART_TYPE_DOUBLE, DART_TEAM_ALL));
    for (int u = 0; u < n; ++u) CHECK(first_bad(&all[u * M], M, u, 3) == SIZE_MAX);
    // send/recv ring
    const int right = (me.id + 1) % n, left = (me.id + n - 1) % n;
    for (size_t i = 0; i < N; ++i) src[i] = val(me.id, i, 11);
    CHECK_OK(dart_sendrecv(src.data(), N, DART_TYPE_DOUBLE, 1, DART_GLOBAL_UNIT_ID(right),
                           back.data(), N, DART_TYPE_DOUBLE, 1, DART_GLOBAL_UNIT_ID(left)));
    CHECK(first_bad(back.data(), N, left, 11) == SIZE_MAX);
  }

  CHECK_OK(dart_barrier(DART_TEAM_ALL));
  CHECK_OK(dart_team_memfree(g));
  return prog::end("prog_chunking");
}
