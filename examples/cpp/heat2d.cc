// heat2d: Jacobi iteration of the 2D heat equation (5-point stencil) on an nx x ny grid
// of float64, block-decomposed over a 2D grid of units, halos of width 1 filled with
// DART one-sided gets. The C++ twin of examples/python/heat2d.py and
// examples/fortran/heat2d.f90 (same command line, same bytes out; docs/porting.md).
//
//   mpiexec -n 4 ./heat2d --nx 64 --ny 64 --iters 100 --mode nonblocking --out u.bin
//
// The field: u[i][j], i = 0..nx-1 (rows), j = 0..ny-1 (columns, contiguous). Boundary
// points are fixed: u = 1 on row 0, 0.5 on column 0 (rows >= 1), 0 on the last row and
// column; every other point starts at 0 and is updated as
//     unew = 0.25 * ((u[i-1][j] + u[i+1][j]) + (u[i][j-1] + u[i][j+1]))
// (this exact grouping in every language, so the bytes agree).
//
// Each unit owns a block of lnx x lny points, stored with a ring of halo points in a
// (lnx+2) x (lny+2) row-major array inside a collective allocation (two of them: the
// current and the next iterate). Per iteration: a barrier (the neighbours finished the
// current iterate), then the halos: rows from the north/south neighbours are contiguous
// gets; columns from the west/east neighbours are strided on both sides (a
// dart_type_create_strided type per side), then the update. Mode `blocking` uses
// dart_get_blocking; `nonblocking` starts dart_get_handle for all four halos, updates the
// points that need no halo, waits (dart_waitall), then updates the block's outer ring.
// Mode `notify` has no barrier: each unit pushes its faces into the neighbours' halos
// with dart_put_notify and waits only for its own counters (dart_notify.h).
#include "heat_common.h"

namespace {

using heat::Range;

double boundary_value(long i, long j) {
  if (i == 0) return 1.0;
  if (j == 0) return 0.5;
  return 0.0;
}

struct Block {
  Range rows, cols;
  long stride() const { return cols.len + 2; }  // elements per local row, halos included
};

}  // namespace

int main(int argc, char **argv) {
  HEAT_CHECK(dart_init(&argc, &argv));
  const heat::Args args = heat::parse_args(argc, argv, false);
  dart_global_unit_t me_g;
  size_t nunits = 0;
  HEAT_CHECK(dart_myid(&me_g));
  HEAT_CHECK(dart_size(&nunits));
  const int me = me_g.id, n = (int)nunits;
  const long nx = args.nx, ny = args.ny;

  // Process grid and every unit's block (computable anywhere: no communication).
  const std::vector<int> dims = heat::dims_create(n, 2);
  const int px = dims[0], py = dims[1];
  if (nx < px || ny < py) {
    if (me == 0) std::fprintf(stderr, "heat2d: grid %ld x %ld is too small for %d x %d units\n",
                              nx, ny, px, py);
    HEAT_CHECK(dart_exit());
    return 2;
  }
  auto block_of = [&](int unit) {
    return Block{heat::block(nx, px, unit / py), heat::block(ny, py, unit % py)};
  };
  auto unit_at = [&](int cx, int cy) { return (cx < 0 || cx >= px || cy < 0 || cy >= py) ? -1 : cx * py + cy; };
  const int cx = me / py, cy = me % py;
  const Block b = block_of(me);
  const long lnx = b.rows.len, lny = b.cols.len, ld = b.stride();

  // Two collective allocations, each large enough for the largest block + halos.
  size_t cap = 0;
  for (int u = 0; u < n; ++u) {
    Block o = block_of(u);
    cap = std::max(cap, (size_t)((o.rows.len + 2) * (o.cols.len + 2)));
  }
  dart_gptr_t field[2];
  double *local[2];
  for (int k = 0; k < 2; ++k) {
    HEAT_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, cap, DART_TYPE_DOUBLE, &field[k]));
    dart_gptr_t mine = field[k];
    HEAT_CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me)));
    void *addr = nullptr;
    HEAT_CHECK(dart_gptr_getaddr(mine, &addr));
    local[k] = static_cast<double *>(addr);
  }
  // Initial state, halos included (global-boundary halos are never read).
  for (int k = 0; k < 2; ++k)
    for (long a = 0; a < lnx + 2; ++a)
      for (long c = 0; c < lny + 2; ++c) {
        long i = b.rows.start + a - 1, j = b.cols.start + c - 1;
        local[k][a * ld + c] = (a >= 1 && a <= lnx && c >= 1 && c <= lny) ? boundary_value(i, j) : 0.0;
      }

  // The halos: where each comes from (neighbour unit, element offset there, count, and
  // the types on both sides) and where it goes (element offset here).
  using heat::Halo;
  std::vector<Halo> halos;
  std::vector<dart_datatype_t> owned_types;
  auto strided = [&](long stride) {
    dart_datatype_t t;
    HEAT_CHECK(dart_type_create_strided(DART_TYPE_DOUBLE, (size_t)stride, 1, &t));
    owned_types.push_back(t);
    return t;
  };
  if (int u = unit_at(cx - 1, cy); u >= 0) {  // north: its last row -> my row 0
    Block o = block_of(u);
    halos.push_back({u, o.rows.len * o.stride() + 1, 1, lny, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE});
  }
  if (int u = unit_at(cx + 1, cy); u >= 0) {  // south: its row 1 -> my row lnx+1
    Block o = block_of(u);
    halos.push_back({u, o.stride() + 1, (lnx + 1) * ld + 1, lny, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE});
  }
  const dart_datatype_t my_column = (cy > 0 || cy < py - 1) ? strided(ld) : DART_TYPE_DOUBLE;
  if (int u = unit_at(cx, cy - 1); u >= 0) {  // west: its last column -> my column 0
    Block o = block_of(u);
    halos.push_back({u, o.stride() + o.cols.len, ld, lnx, strided(o.stride()), my_column});
  }
  if (int u = unit_at(cx, cy + 1); u >= 0) {  // east: its column 1 -> my column lny+1
    Block o = block_of(u);
    halos.push_back({u, o.stride() + 1, ld + lny + 1, lnx, strided(o.stride()), my_column});
  }

  // --mode notify: the same halos, pushed by their owners. Each face of this block goes
  // to the halo of the neighbour across it, in the neighbour's copy of the iterate it
  // belongs to, and adds 1 to the neighbour's counter of that iterate (parity k).
  // Why two counters and no barrier is safe: a unit waits for all its neighbours' faces
  // of iterate k before computing iterate k+1 and pushes its own faces of k+1 after
  // that. A neighbour can therefore write faces of iterate k+2 (parity k again) into
  // this unit's halos only after this unit pushed k+1, i.e. after it finished reading the
  // halos of k. With one counter a fast neighbour's k+1 notification could be counted
  // as a slow neighbour's k notification; per-parity counters keep them apart.
  std::vector<Halo> faces;  // {neighbour, offset of its halo, offset of my face, count, types}
  if (int u = unit_at(cx - 1, cy); u >= 0) {  // my row 1 -> north's halo row below it
    Block o = block_of(u);
    faces.push_back({u, (o.rows.len + 1) * o.stride() + 1, ld + 1, lny, DART_TYPE_DOUBLE,
                     DART_TYPE_DOUBLE});
  }
  if (int u = unit_at(cx + 1, cy); u >= 0)  // my last row -> south's halo row 0
    faces.push_back({u, 1, lnx * ld + 1, lny, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE});
  if (int u = unit_at(cx, cy - 1); u >= 0) {  // my column 1 -> west's last halo column
    Block o = block_of(u);
    faces.push_back({u, o.stride() + o.cols.len + 1, ld + 1, lnx, strided(o.stride()), my_column});
  }
  if (int u = unit_at(cx, cy + 1); u >= 0) {  // my last column -> east's halo column 0
    Block o = block_of(u);
    faces.push_back({u, o.stride(), ld + lny, lnx, strided(o.stride()), my_column});
  }
  dart_gptr_t counters = DART_GPTR_NULL;
  if (args.notify) HEAT_CHECK(dart_notify_alloc(DART_TEAM_ALL, 2, &counters));
  auto push_faces = [&](int k) { heat::push_faces(faces, field[k], local[k], counters, k); };
  if (args.notify) push_faces(0);  // the halos of the initial state

  // One point of the update: fixed on the global boundary, the stencil elsewhere.
  auto update = [&](const double *u, double *un, long a, long c) {
    long i = b.rows.start + a - 1, j = b.cols.start + c - 1;
    const long p = a * ld + c;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
      un[p] = u[p];
    else
      un[p] = 0.25 * ((u[p - ld] + u[p + ld]) + (u[p - 1] + u[p + 1]));
  };

  double t_halo = 0, t_compute = 0;
  std::vector<dart_handle_t> handles(halos.size(), DART_HANDLE_NULL);
  int cur = 0;
  for (long it = 0; it < args.iters; ++it) {
    const double *u = local[cur];
    double *un = local[1 - cur];
    double t0 = heat::wtime();
    if (args.notify) {
      HEAT_CHECK(dart_notify_wait(heat::counter(counters, me, cur), faces.size()));  // my halos of `cur`
      double t1 = heat::wtime();
      for (long a = 1; a <= lnx; ++a)
        for (long c = 1; c <= lny; ++c) update(u, un, a, c);
      double t2 = heat::wtime();
      push_faces(1 - cur);
      t_halo += (t1 - t0) + (heat::wtime() - t2);
      t_compute += t2 - t1;
      cur = 1 - cur;
      continue;
    }
    HEAT_CHECK(dart_barrier(DART_TEAM_ALL));  // neighbours are done writing `cur`
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
      for (long a = 1; a <= lnx; ++a)
        for (long c = 1; c <= lny; ++c) update(u, un, a, c);
      t_halo += t1 - t0;
      t_compute += heat::wtime() - t1;
    } else {
      for (long a = 2; a < lnx; ++a)  // needs no halo
        for (long c = 2; c < lny; ++c) update(u, un, a, c);
      double t2 = heat::wtime();
      HEAT_CHECK(dart_waitall(handles.data(), handles.size()));
      double t3 = heat::wtime();
      for (long a = 1; a <= lnx; ++a)  // the block's outer ring
        for (long c = 1; c <= lny; ++c)
          if (a == 1 || a == lnx || c == 1 || c == lny) update(u, un, a, c);
      t_halo += (t1 - t0) + (t3 - t2);
      t_compute += (t2 - t1) + (heat::wtime() - t3);
    }
    cur = 1 - cur;
  }
  HEAT_CHECK(dart_barrier(DART_TEAM_ALL));

  // Unit 0 gathers the blocks row by row with gets and writes the file.
  std::vector<double> global;
  if (me == 0) {
    global.assign((size_t)(nx * ny), 0.0);
    for (int u = 0; u < n; ++u) {
      Block o = block_of(u);
      for (long a = 1; a <= o.rows.len; ++a) {
        dart_gptr_t src = field[cur];
        HEAT_CHECK(dart_gptr_setunit(&src, DART_TEAM_UNIT_ID(u)));
        HEAT_CHECK(dart_gptr_incaddr(&src, (int64_t)((a * o.stride() + 1) * sizeof(double))));
        double *dst = &global[(size_t)((o.rows.start + a - 1) * ny + o.cols.start)];
        HEAT_CHECK(dart_get_blocking(dst, src, (size_t)o.cols.len, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
      }
    }
    heat::write_field(args.out, global);
  }
  heat::report("heat2d", std::to_string(px) + " x " + std::to_string(py),
               std::to_string(nx) + " x " + std::to_string(ny), args, t_halo, t_compute,
               global, me, n);
  HEAT_CHECK(dart_barrier(DART_TEAM_ALL));
  for (dart_datatype_t &t : owned_types) HEAT_CHECK(dart_type_destroy(&t));
  if (args.notify) HEAT_CHECK(dart_notify_free(counters));
  for (int k = 0; k < 2; ++k) HEAT_CHECK(dart_team_memfree(field[k]));
  HEAT_CHECK(dart_exit());
  return 0;
}
