// heat3d: the 3D heat conduction of the IJNC 2017 paper: explicit finite differences
// (7-point stencil) on an nx x ny x nz grid of float64 with fixed boundary temperatures,
// checkerboard 3D decomposition over the units, six neighbours, halos of width 1 filled
// with DART one-sided gets in two modes (blocking / nonblocking), as in the paper, or
// pushed by their owners with dart_put_notify without any barrier (mode notify).
// The C++ twin of examples/python/heat3d.py and examples/fortran/heat3d.f90.
//
//   mpiexec -n 4 ./heat3d --nx 32 --ny 32 --nz 32 --iters 50 --mode blocking --out u.bin
//
// The field: u[i][j][k] (k contiguous). Boundary points are fixed: 1 on the face i = 0,
// 0.5 on the face j = 0 (i >= 1), 0.25 on the face k = 0 (i, j >= 1), 0 on the other
// three faces; the interior starts at 0 and is updated as
//     lap  = ((u[i-1] + u[i+1]) + (u[j-1] + u[j+1])) + (u[k-1] + u[k+1])
//     unew = u + 0.125 * (lap - 6 u)
// (neighbours written by the index that differs; this grouping in every language).
//
// Halo faces of a local (lx+2) x (ly+2) x (lz+2) block: an i-face is ly rows of lz
// contiguous points (a strided type: blocks of lz, stride lz+2); a j-face is lx rows of
// lz points one plane apart (blocks of lz, stride (ly+2)(lz+2)); a k-face is lx*ly
// single points on two different strides (an indexed type). Neighbours across a face
// share the face's extents, so each face needs one local and one remote type.
#include "heat_common.h"

namespace {

using heat::Range;

double boundary_value(long i, long j, long k) {
  if (i == 0) return 1.0;
  if (j == 0) return 0.5;
  if (k == 0) return 0.25;
  return 0.0;
}

struct Block {
  Range r[3];
  long s1() const { return r[2].len + 2; }                     // elements between j rows
  long s0() const { return (r[1].len + 2) * (r[2].len + 2); }  // between i planes
  long at(long a, long b, long c) const { return a * s0() + b * s1() + c; }
};

}  // namespace

int main(int argc, char **argv) {
  HEAT_CHECK(dart_init(&argc, &argv));
  const heat::Args args = heat::parse_args(argc, argv, true);
  dart_global_unit_t me_g;
  size_t nunits = 0;
  HEAT_CHECK(dart_myid(&me_g));
  HEAT_CHECK(dart_size(&nunits));
  const int me = me_g.id, n = (int)nunits;
  const long N[3] = {args.nx, args.ny, args.nz};

  const std::vector<int> dims = heat::dims_create(n, 3);
  for (int d = 0; d < 3; ++d)
    if (N[d] < dims[d]) {
      if (me == 0) std::fprintf(stderr, "heat3d: the grid is too small for %d x %d x %d units\n",
                                dims[0], dims[1], dims[2]);
      HEAT_CHECK(dart_exit());
      return 2;
    }
  auto coords = [&](int unit, int c[3]) {
    c[2] = unit % dims[2];
    c[1] = (unit / dims[2]) % dims[1];
    c[0] = unit / (dims[1] * dims[2]);
  };
  auto unit_at = [&](const int c[3]) {
    for (int d = 0; d < 3; ++d)
      if (c[d] < 0 || c[d] >= dims[d]) return -1;
    return (c[0] * dims[1] + c[1]) * dims[2] + c[2];
  };
  auto block_of = [&](int unit) {
    int c[3];
    coords(unit, c);
    Block b;
    for (int d = 0; d < 3; ++d) b.r[d] = heat::block(N[d], dims[d], c[d]);
    return b;
  };
  int mc[3];
  coords(me, mc);
  const Block b = block_of(me);
  const long lx = b.r[0].len, ly = b.r[1].len, lz = b.r[2].len;

  size_t cap = 0;
  for (int u = 0; u < n; ++u) {
    Block o = block_of(u);
    cap = std::max(cap, (size_t)((o.r[0].len + 2) * o.s0()));
  }
  dart_gptr_t field[2];
  double *local[2];
  for (int t = 0; t < 2; ++t) {
    HEAT_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, cap, DART_TYPE_DOUBLE, &field[t]));
    dart_gptr_t mine = field[t];
    HEAT_CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me)));
    void *addr = nullptr;
    HEAT_CHECK(dart_gptr_getaddr(mine, &addr));
    local[t] = static_cast<double *>(addr);
  }
  for (int t = 0; t < 2; ++t)
    for (long a = 0; a < lx + 2; ++a)
      for (long bb = 0; bb < ly + 2; ++bb)
        for (long c = 0; c < lz + 2; ++c) {
          bool inside = a >= 1 && a <= lx && bb >= 1 && bb <= ly && c >= 1 && c <= lz;
          local[t][b.at(a, bb, c)] =
              inside ? boundary_value(b.r[0].start + a - 1, b.r[1].start + bb - 1,
                                      b.r[2].start + c - 1)
                     : 0.0;
        }

  // Face types. For a face across dimension d, the layout is the same on both sides
  // except for the strides of the owner's block.
  std::vector<dart_datatype_t> owned;
  auto face_type = [&](const Block &o, int d) -> dart_datatype_t {
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    if (d == 0) {
      HEAT_CHECK(dart_type_create_strided(DART_TYPE_DOUBLE, (size_t)o.s1(), (size_t)lz, &t));
    } else if (d == 1) {
      HEAT_CHECK(dart_type_create_strided(DART_TYPE_DOUBLE, (size_t)o.s0(), (size_t)lz, &t));
    } else {
      std::vector<size_t> len((size_t)(lx * ly), 1), off;
      for (long a = 0; a < lx; ++a)
        for (long bb = 0; bb < ly; ++bb) off.push_back((size_t)(a * o.s0() + bb * o.s1()));
      HEAT_CHECK(dart_type_create_indexed(DART_TYPE_DOUBLE, off.size(), len.data(), off.data(), &t));
    }
    owned.push_back(t);
    return t;
  };
  const long face_count[3] = {ly * lz, lx * lz, lx * ly};
  using heat::Halo;
  std::vector<Halo> halos, faces;  // faces: remote_off/local_off = neighbour's halo / my face
  for (int d = 0; d < 3; ++d) {
    for (int side = -1; side <= 1; side += 2) {
      int c[3] = {mc[0], mc[1], mc[2]};
      c[d] += side;
      int u = unit_at(c);
      if (u < 0) continue;
      Block o = block_of(u);
      // Lower neighbour (side -1): its last interior layer -> my halo layer 0;
      // upper neighbour (side +1): its first interior layer -> my halo layer l+1.
      long src[3] = {1, 1, 1}, dst[3] = {1, 1, 1};
      src[d] = side < 0 ? o.r[d].len : 1;
      dst[d] = side < 0 ? 0 : b.r[d].len + 1;
      halos.push_back({u, o.at(src[0], src[1], src[2]), b.at(dst[0], dst[1], dst[2]),
                       face_count[d], face_type(o, d), face_type(b, d)});
      // Mode notify pushes the mirror image: my layer next to u -> u's halo layer.
      long mine[3] = {1, 1, 1}, theirs[3] = {1, 1, 1};
      mine[d] = side < 0 ? 1 : b.r[d].len;
      theirs[d] = side < 0 ? o.r[d].len + 1 : 0;
      faces.push_back({u, o.at(theirs[0], theirs[1], theirs[2]), b.at(mine[0], mine[1], mine[2]),
                       face_count[d], face_type(o, d), face_type(b, d)});
    }
  }

  // --mode notify: each unit adds 1 to a neighbour's counter of iterate k (parity) with
  // every face of k it puts there, and waits for its own counter to reach the number of
  // its neighbours. No barrier: a neighbour writes faces of iterate k+2 (the same
  // buffers and counter) only after this unit pushed k+1, which it does after it read
  // its halos of k; per-parity counters keep a fast neighbour's k+1 notification from
  // being counted for a slow neighbour's k (examples/cpp/heat2d.cc says the same).
  dart_gptr_t counters = DART_GPTR_NULL;
  if (args.notify) HEAT_CHECK(dart_notify_alloc(DART_TEAM_ALL, 2, &counters));
  auto push_faces = [&](int k) { heat::push_faces(faces, field[k], local[k], counters, k); };
  if (args.notify) push_faces(0);  // the halos of the initial state

  const long s0 = b.s0(), s1 = b.s1();
  auto update = [&](const double *u, double *un, long a, long bb, long c) {
    const long i = b.r[0].start + a - 1, j = b.r[1].start + bb - 1, k = b.r[2].start + c - 1;
    const long p = b.at(a, bb, c);
    if (i == 0 || j == 0 || k == 0 || i == N[0] - 1 || j == N[1] - 1 || k == N[2] - 1) {
      un[p] = u[p];
      return;
    }
    const double lap = ((u[p - s0] + u[p + s0]) + (u[p - s1] + u[p + s1])) + (u[p - 1] + u[p + 1]);
    un[p] = u[p] + 0.125 * (lap - 6.0 * u[p]);
  };

  double t_compute = 0;
  std::vector<double> t_halo((size_t)args.iters);  // per iteration: mean and median
  std::vector<dart_handle_t> handles(halos.size(), DART_HANDLE_NULL);
  int cur = 0;
  for (long it = 0; it < args.iters; ++it) {
    const double *u = local[cur];
    double *un = local[1 - cur];
    double t0 = heat::wtime();
    if (args.notify) {
      HEAT_CHECK(dart_notify_wait(heat::counter(counters, me, cur), faces.size()));  // my halos of `cur`
      double t1 = heat::wtime();
      for (long a = 1; a <= lx; ++a)
        for (long bb = 1; bb <= ly; ++bb)
          for (long c = 1; c <= lz; ++c) update(u, un, a, bb, c);
      double t2 = heat::wtime();
      push_faces(1 - cur);
      t_halo[(size_t)it] = (t1 - t0) + (heat::wtime() - t2);
      t_compute += t2 - t1;
      cur = 1 - cur;
      continue;
    }
    HEAT_CHECK(dart_barrier(DART_TEAM_ALL));
    for (size_t h = 0; h < halos.size(); ++h) {
      const Halo &x = halos[h];
      dart_gptr_t src = field[cur];
      HEAT_CHECK(dart_gptr_setunit(&src, DART_TEAM_UNIT_ID(x.unit)));
      HEAT_CHECK(dart_gptr_incaddr(&src, (int64_t)(x.remote_off * sizeof(double))));
      double *dst = local[cur] + x.local_off;
      if (args.nonblocking)
        HEAT_CHECK(dart_get_handle(dst, src, (size_t)x.count, x.remote_type, x.local_type, &handles[h]));
      else
        HEAT_CHECK(dart_get_blocking(dst, src, (size_t)x.count, x.remote_type, x.local_type));
    }
    double t1 = heat::wtime();
    if (!args.nonblocking) {
      for (long a = 1; a <= lx; ++a)
        for (long bb = 1; bb <= ly; ++bb)
          for (long c = 1; c <= lz; ++c) update(u, un, a, bb, c);
      t_halo[(size_t)it] = t1 - t0;
      t_compute += heat::wtime() - t1;
    } else {
      for (long a = 2; a < lx; ++a)
        for (long bb = 2; bb < ly; ++bb)
          for (long c = 2; c < lz; ++c) update(u, un, a, bb, c);
      double t2 = heat::wtime();
      HEAT_CHECK(dart_waitall(handles.data(), handles.size()));
      double t3 = heat::wtime();
      for (long a = 1; a <= lx; ++a)
        for (long bb = 1; bb <= ly; ++bb)
          for (long c = 1; c <= lz; ++c)
            if (a == 1 || a == lx || bb == 1 || bb == ly || c == 1 || c == lz)
              update(u, un, a, bb, c);
      t_halo[(size_t)it] = (t1 - t0) + (t3 - t2);
      t_compute += (t2 - t1) + (heat::wtime() - t3);
    }
    cur = 1 - cur;
  }
  HEAT_CHECK(dart_barrier(DART_TEAM_ALL));

  std::vector<double> global;
  if (me == 0) {
    global.assign((size_t)(N[0] * N[1] * N[2]), 0.0);
    for (int u = 0; u < n; ++u) {
      Block o = block_of(u);
      for (long a = 1; a <= o.r[0].len; ++a)
        for (long bb = 1; bb <= o.r[1].len; ++bb) {
          dart_gptr_t src = field[cur];
          HEAT_CHECK(dart_gptr_setunit(&src, DART_TEAM_UNIT_ID(u)));
          HEAT_CHECK(dart_gptr_incaddr(&src, (int64_t)(o.at(a, bb, 1) * sizeof(double))));
          const long i = o.r[0].start + a - 1, j = o.r[1].start + bb - 1;
          double *dst = &global[(size_t)((i * N[1] + j) * N[2] + o.r[2].start)];
          HEAT_CHECK(dart_get_blocking(dst, src, (size_t)o.r[2].len, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
        }
    }
    heat::write_field(args.out, global);
  }
  heat::report("heat3d",
               std::to_string(dims[0]) + " x " + std::to_string(dims[1]) + " x " +
                   std::to_string(dims[2]),
               std::to_string(N[0]) + " x " + std::to_string(N[1]) + " x " + std::to_string(N[2]),
               args, std::accumulate(t_halo.begin(), t_halo.end(), 0.0), t_compute, global, me, n,
               &t_halo);
  HEAT_CHECK(dart_barrier(DART_TEAM_ALL));
  for (dart_datatype_t &t : owned) HEAT_CHECK(dart_type_destroy(&t));
  if (args.notify) HEAT_CHECK(dart_notify_free(counters));
  for (int t = 0; t < 2; ++t) HEAT_CHECK(dart_team_memfree(field[t]));
  HEAT_CHECK(dart_exit());
  return 0;
}
