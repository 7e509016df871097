/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello_dart: every unit sends a greeting to its right neighbour with one-sided puts,
 * then unit 0 gathers what everybody received and prints it with the path it took.
 *
 *   mpiexec -n 4 ./hello_dart                          (one node: direct load/store)
 *   DART_UNITS_PER_NODE=2 mpiexec -n 4 ./hello_dart    (two emulated nodes: MPI RMA too)
 */
#include <dash/dart/if/dart.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG_LEN 64

#define CHECK(call)                                                                            \
  do {                                                                                         \
    dart_ret_t rc_ = (call);                                                                   \
    if (rc_ != DART_OK) {                                                                      \
      fprintf(stderr, "%s failed: %s (%s)\n", #call, dart_strerror(rc_), dart_error_detail()); \
      dart_abort(1);                                                                           \
    }                                                                                          \
  } while (0)

int main(int argc, char **argv) {
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n, nnodes;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&n));
  CHECK(dart_node_count(&nnodes));

  /* One MSG_LEN-byte mailbox per unit, aligned and symmetric over all units. */
  dart_gptr_t box;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, MSG_LEN, DART_TYPE_BYTE, &box));

  char msg[MSG_LEN];
  snprintf(msg, sizeof msg, "greetings from unit %d", me.id);
  dart_global_unit_t right = {(me.id + 1) % (int)n};
  dart_gptr_t dst = box;
  CHECK(dart_gptr_setunit(&dst, DART_TEAM_UNIT_ID(right.id)));
  CHECK(dart_put_blocking(dst, msg, MSG_LEN, DART_TYPE_BYTE, DART_TYPE_BYTE));
  CHECK(dart_barrier(DART_TEAM_ALL));

  /* Report: what I received, from which node, and whether the sender could store into
   * my mailbox directly (same node) or had to use MPI RMA (other node). */
  char line[160];
  void *mine;
  CHECK(dart_gptr_getaddr(box, &mine)); /* NULL unless I am unit 0 of the gptr */
  dart_gptr_t self = box;
  CHECK(dart_gptr_setunit(&self, DART_TEAM_UNIT_ID(me.id)));
  CHECK(dart_gptr_getaddr(self, &mine));
  int32_t my_node, left_node;
  dart_global_unit_t left = {(me.id + (int)n - 1) % (int)n};
  CHECK(dart_unit_node(me, &my_node));
  CHECK(dart_unit_node(left, &left_node));
  snprintf(line, sizeof line, "unit %d (node %d) got \"%s\" via %s", me.id, my_node, (char *)mine,
           left_node == my_node ? "direct load/store" : "MPI RMA");

  char *all = NULL;
  if (me.id == 0) all = malloc(n * sizeof line);
  CHECK(dart_gather(line, all, sizeof line, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL));
  if (me.id == 0) {
    printf("DART-MPI hello: %zu units on %zu node(s)\n", n, nnodes);
    printf("  %s\n", dart_config_string());
    for (size_t u = 0; u < n; ++u) printf("  %s\n", all + u * sizeof line);
    free(all);
  }
  CHECK(dart_team_memfree(box));
  CHECK(dart_exit());
  return 0;
}
