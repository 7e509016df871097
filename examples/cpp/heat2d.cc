// SPDX-License-Identifier: BSD-3-Clause
// heat2d: Jacobi iteration of the 2D heat equation (5-point stencil) on an nx x ny grid
// of float64, on DART's distributed arrays (dart_array.hpp). The C++ twin of
// examples/python/heat2d.py and examples/fortran/heat2d.f90 (same command line, same
// bytes out; docs/porting.md).
//
//   mpiexec -n 4 ./heat2d --nx 64 --ny 64 --iters 100 --mode nonblocking --out u.npy
//   mpiexec -n 2 ./heat2d --nx 64 --ny 64 --iters 50 --restart u.npy --out v.npy
//
// The field: u[i][j], i = 0..nx-1 (rows), j = 0..ny-1 (columns, contiguous). Boundary
// points are fixed: u = 1 on row 0, 0.5 on column 0 (rows >= 1), 0 on the last row and
// column; every other point starts at 0 and is updated as
//     unew = 0.25 * ((u[i-1][j] + u[i+1][j]) + (u[i][j-1] + u[i][j+1]))
// (this exact grouping in every language, so the bytes agree).
//
// Two arrays (the current and the next iterate) with one ghost point on every side; the
// array decomposes the grid (the balanced process grid, n / p points per block) and
// fills the ghosts from the neighbours. Mode `blocking`: update_halo, then the update;
// `nonblocking`: update_halo_begin, the points that need no ghost, update_halo_end, the
// block's outer ring; `notify`: the arrays' notified exchange (owners push their faces).
#include "heat_common.h"

#include <dash/dart/if/dart_array.hpp>

int main(int argc, char **argv) {
  HEAT_CHECK(dart_init(&argc, &argv));
  const heat::Args args = heat::parse_args(argc, argv, false);
  const long nx = args.nx, ny = args.ny;
  try {
    const auto opt = dart::ArrayOptions().halo(1).exchange(args.notify ? DART_ARRAY_EXCHANGE_NOTIFY
                                                                       : DART_ARRAY_EXCHANGE_GET);
    // --restart: the iterate of a file (any number of units wrote it), else the initial
    // state; the next iterate's points are all written before they are read.
    dart::Array<double> field[2] = {args.restart.empty()
                                        ? dart::Array<double>({nx, ny}, opt)
                                        : dart::Array<double>::load(args.restart, opt),
                                    dart::Array<double>({nx, ny}, opt)};
    const dart::Array<double> &a = field[0];
    if (a.shape(0) != nx || a.shape(1) != ny)
      throw dart::error(DART_ERR_INVAL, "--restart " + args.restart + " is not a " +
                                            std::to_string(nx) + " x " + std::to_string(ny) +
                                            " field");
    const long i0 = a.lo(0), i1 = a.hi(0), j0 = a.lo(1), j1 = a.hi(1);
    if (args.restart.empty())  // ghosts stay 0; global-boundary ghosts are never read
      for (long i = i0; i < i1; ++i)
        for (long j = j0; j < j1; ++j) field[0](i, j) = i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0;

    // One point: fixed on the global boundary, the stencil elsewhere.
    const long ld = a.local_stride(0);
    auto update = [&](const dart::Array<double> &u, dart::Array<double> &un, long i, long j) {
      const double *p = &u(i, j);
      if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
        un(i, j) = *p;
      else
        un(i, j) = 0.25 * ((p[-ld] + p[ld]) + (p[-1] + p[1]));
    };
    auto sweep = [&](const dart::Array<double> &u, dart::Array<double> &un, long ia, long ib,
                     long ja, long jb) {
      for (long i = ia; i < ib; ++i)
        for (long j = ja; j < jb; ++j) update(u, un, i, j);
    };

    double t_halo = 0, t_compute = 0;
    int cur = 0;
    for (long it = 0; it < args.iters; ++it) {
      dart::Array<double> &u = field[cur], &un = field[1 - cur];
      const double t0 = heat::wtime();
      if (!args.nonblocking) {
        u.update_halo();
        const double t1 = heat::wtime();
        sweep(u, un, i0, i1, j0, j1);
        t_halo += t1 - t0;
        t_compute += heat::wtime() - t1;
      } else {
        u.update_halo_begin();
        const double t1 = heat::wtime();
        sweep(u, un, i0 + 1, i1 - 1, j0 + 1, j1 - 1);  // needs no ghost
        const double t2 = heat::wtime();
        u.update_halo_end();
        const double t3 = heat::wtime();
        sweep(u, un, i0, i0 + 1, j0, j1);                    // the outer ring: the first row,
        sweep(u, un, std::max(i0 + 1, i1 - 1), i1, j0, j1);  // the last row,
        sweep(u, un, i0 + 1, i1 - 1, j0, j0 + 1);            // the first and
        sweep(u, un, i0 + 1, i1 - 1, std::max(j0 + 1, j1 - 1), j1);  // last column
        t_halo += (t1 - t0) + (t3 - t2);
        t_compute += (t2 - t1) + (heat::wtime() - t3);
      }
      cur = 1 - cur;
    }

    std::vector<double> global;
    if (a.info().myid == 0) global.assign((size_t)(nx * ny), 0.0);
    field[cur].gather(global.data(), 0);  // for the checksum
    if (!args.out.empty()) field[cur].save(args.out);
    heat::report("heat2d", std::to_string(a.procs(0)) + " x " + std::to_string(a.procs(1)),
                 std::to_string(nx) + " x " + std::to_string(ny), args, t_halo, t_compute, global,
                 a.info().myid, a.info().nunits);
  } catch (const dart::error &e) {  // the same on every unit (creation agrees)
    std::fprintf(stderr, "heat2d: %s\n", e.what());
    HEAT_CHECK(dart_exit());
    return 2;
  }
  HEAT_CHECK(dart_exit());
  return 0;
}
