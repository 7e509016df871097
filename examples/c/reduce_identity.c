/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reduce_identity.c -- the reductions of dart_array.h on four fields, printed as the bytes
 * of each result, so that the C, Fortran (examples/fortran/reduce_identity.f90) and
 * Python programs can be compared byte for byte at any unit count:
 *
 *   mpiexec -n <units> _build/<mpi>/examples/reduce_identity
 *
 * Fields (C order, default process grid and blocks, one ghost layer on each side, left
 * zero): d2 = double (13, 11), f2 = float (13, 11), d3 = double (7, 6, 5), f3 = float
 * (7, 6, 5). At global index (i, j) or (i, j, k) (k = 0 in 2D):
 *   a = ((i*31 + j*17 + k*7) % 1000 - 500) / 7     b = ((i*7 + j*3 + k*11) % 100 + 1) / 3
 * each one correctly rounded division of two integers in the field's type (double, or
 * float / float for the float fields), so every language has the same numbers.
 *
 * Output, on unit 0 only, one line per field and quantity, in this order:
 *   <field> <quantity> <hex>
 * quantity: sum, min, max (of a; the field's type), norm1, norm2, norminf (of a; double),
 * dot (of a and b; the field's type); hex: the value's bytes in memory order
 * (little-endian), two lowercase digits each, e.g. Python's
 * numpy.asarray(x, dtype).tobytes().hex(). Every unit checks that it got the same bytes.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_array.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, dart_ret_t rc) {
  fprintf(stderr, "reduce_identity: %s failed: %s: %s\n", what, dart_strerror(rc),
          dart_error_detail());
  dart_abort(1);
}

#define CHECK(call)                      \
  do {                                   \
    dart_ret_t rc_ = (call);             \
    if (rc_ != DART_OK) die(#call, rc_); \
  } while (0)

/* The two formulas at C indices (i, j, k). */
static int64_t num_a(int64_t i, int64_t j, int64_t k) {
  return (i * 31 + j * 17 + k * 7) % 1000 - 500;
}
static int64_t num_b(int64_t i, int64_t j, int64_t k) { return (i * 7 + j * 3 + k * 11) % 100 + 1; }

/* Fills this unit's interior: a (second = 0) or b (second = 1). */
static void fill(dart_array_t arr, int second) {
  dart_array_info_t in;
  CHECK(dart_array_get_info(arr, &in));
  const int nd = in.ndim;
  int64_t ext[3] = {1, 1, 1}, lsh[3] = {1, 1, 1}, halo[3] = {0, 0, 0}, lo[3] = {0, 0, 0};
  for (int d = 0; d < nd; ++d) {
    ext[3 - nd + d] = in.hi[d] - in.lo[d];
    lsh[3 - nd + d] = in.local_shape[d];
    halo[3 - nd + d] = in.halo_lo[d];
    lo[3 - nd + d] = in.lo[d];
  }
  for (int64_t x = 0; x < ext[0]; ++x)
    for (int64_t y = 0; y < ext[1]; ++y)
      for (int64_t z = 0; z < ext[2]; ++z) {
        /* global C indices: (i, j) in 2D, (i, j, k) in 3D */
        const int64_t g0 = lo[0] + x, g1 = lo[1] + y, g2 = lo[2] + z;
        const int64_t i = nd == 3 ? g0 : g1, j = nd == 3 ? g1 : g2, k = nd == 3 ? g2 : 0;
        const int64_t m = second ? num_b(i, j, k) : num_a(i, j, k);
        const int64_t off = ((x + halo[0]) * lsh[1] + (y + halo[1])) * lsh[2] + (z + halo[2]);
        if (in.dtype == DART_TYPE_DOUBLE)
          ((double *)in.local)[off] = (double)m / (second ? 3.0 : 7.0);
        else
          ((float *)in.local)[off] = (float)m / (second ? 3.0f : 7.0f);
      }
}

/* Prints "<field> <what> <hex>" on unit 0, after checking every unit has the same bytes. */
static void show(const char *field, const char *what, const void *v, size_t n, int me, int nunits) {
  unsigned char *all = malloc(n * (size_t)nunits);
  CHECK(dart_allgather(v, all, n, DART_TYPE_BYTE, DART_TEAM_ALL));
  for (int u = 1; u < nunits; ++u)
    if (memcmp(all, all + (size_t)u * n, n) != 0) {
      fprintf(stderr, "reduce_identity: %s %s differs on unit %d\n", field, what, u);
      dart_abort(1);
    }
  free(all);
  if (me != 0) return;
  printf("%s %s ", field, what);
  for (size_t k = 0; k < n; ++k) printf("%02x", ((const unsigned char *)v)[k]);
  printf("\n");
}

static void field(const char *name, dart_datatype_t t, int ndim, const int64_t *shape, int me,
                  int nunits) {
  dart_array_spec_t s;
  CHECK(dart_array_spec_init(&s));
  s.dtype = t;
  s.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    s.shape[d] = shape[d];
    s.halo_lo[d] = s.halo_hi[d] = 1;
  }
  dart_array_t a = DART_ARRAY_NULL, b = DART_ARRAY_NULL;
  CHECK(dart_array_create(&s, &a));
  CHECK(dart_array_create(&s, &b));
  fill(a, 0);
  fill(b, 1);
  const size_t size = t == DART_TYPE_DOUBLE ? sizeof(double) : sizeof(float);
  static const struct {
    const char *name;
    dart_operation_t op;
  } ops[] = {{"sum", DART_OP_SUM}, {"min", DART_OP_MIN}, {"max", DART_OP_MAX}};
  for (int k = 0; k < 3; ++k) {
    double r = 0; /* room for either type */
    CHECK(dart_array_reduce(a, ops[k].op, &r));
    show(name, ops[k].name, &r, size, me, nunits);
  }
  static const struct {
    const char *name;
    dart_array_norm_t kind;
  } norms[] = {
      {"norm1", DART_ARRAY_NORM_1}, {"norm2", DART_ARRAY_NORM_2}, {"norminf", DART_ARRAY_NORM_INF}};
  for (int k = 0; k < 3; ++k) {
    double r = 0;
    CHECK(dart_array_norm(a, norms[k].kind, &r));
    show(name, norms[k].name, &r, sizeof r, me, nunits);
  }
  double r = 0;
  CHECK(dart_array_dot(a, b, &r));
  show(name, "dot", &r, size, me, nunits);
  CHECK(dart_array_destroy(&b));
  CHECK(dart_array_destroy(&a));
}

int main(int argc, char **argv) {
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n = 0;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&n));
  const int64_t s2[2] = {13, 11}, s3[3] = {7, 6, 5};
  field("d2", DART_TYPE_DOUBLE, 2, s2, me.id, (int)n);
  field("f2", DART_TYPE_FLOAT, 2, s2, me.id, (int)n);
  field("d3", DART_TYPE_DOUBLE, 3, s3, me.id, (int)n);
  field("f3", DART_TYPE_FLOAT, 3, s3, me.id, (int)n);
  fflush(stdout);
  CHECK(dart_exit());
  return 0;
}
