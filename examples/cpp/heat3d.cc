// SPDX-License-Identifier: BSD-3-Clause
// heat3d: the 3D heat conduction of the IJNC 2017 paper: explicit finite differences
// (7-point stencil) on an nx x ny x nz grid of float64 with fixed boundary temperatures,
// checkerboard 3D decomposition over the units, six neighbours, on DART's distributed
// arrays (dart_array.hpp): halos of width 1 filled by one call per iteration, blocking
// or split around the interior update as in the paper, or pushed by their owners with
// notified puts (mode notify). The C++ twin of examples/python/heat3d.py and
// examples/fortran/heat3d.f90.
//
//   mpiexec -n 4 ./heat3d --nx 32 --ny 32 --nz 32 --iters 50 --mode blocking --out u.npy
//   mpiexec -n 3 ./heat3d --nx 32 --ny 32 --nz 32 --iters 50 --restart u.npy --out v.npy
//
// The field: u[i][j][k] (k contiguous). Boundary points are fixed: 1 on the face i = 0,
// 0.5 on the face j = 0 (i >= 1), 0.25 on the face k = 0 (i, j >= 1), 0 on the other
// three faces; the interior starts at 0 and is updated as
//     lap  = ((u[i-1] + u[i+1]) + (u[j-1] + u[j+1])) + (u[k-1] + u[k+1])
//     unew = u + 0.125 * (lap - 6 u)
// (neighbours written by the index that differs; this grouping in every language).
#include "heat_common.h"

#include <dash/dart/if/dart_array.hpp>

namespace {

double boundary_value(long i, long j, long k) {
  if (i == 0) return 1.0;
  if (j == 0) return 0.5;
  if (k == 0) return 0.25;
  return 0.0;
}

}  // namespace

int main(int argc, char **argv) {
  HEAT_CHECK(dart_init(&argc, &argv));
  const heat::Args args = heat::parse_args(argc, argv, true);
  const long N[3] = {args.nx, args.ny, args.nz};
  try {
    const auto opt = dart::ArrayOptions().halo(1).exchange(args.notify ? DART_ARRAY_EXCHANGE_NOTIFY
                                                                       : DART_ARRAY_EXCHANGE_GET);
    // --restart: the iterate of a file (any number of units wrote it), else the initial
    // state; the next iterate's points are all written before they are read.
    dart::Array<double> field[2] = {args.restart.empty()
                                        ? dart::Array<double>({N[0], N[1], N[2]}, opt)
                                        : dart::Array<double>::load(args.restart, opt),
                                    dart::Array<double>({N[0], N[1], N[2]}, opt)};
    const dart::Array<double> &a = field[0];
    long lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      if (a.shape(d) != N[d])
        throw dart::error(DART_ERR_INVAL, "--restart " + args.restart + " is not a " +
                                              std::to_string(N[0]) + " x " + std::to_string(N[1]) +
                                              " x " + std::to_string(N[2]) + " field");
      lo[d] = a.lo(d), hi[d] = a.hi(d);
    }
    if (args.restart.empty())  // ghosts stay 0; global-boundary ghosts are never read
      for (long i = lo[0]; i < hi[0]; ++i)
        for (long j = lo[1]; j < hi[1]; ++j)
          for (long k = lo[2]; k < hi[2]; ++k) field[0](i, j, k) = boundary_value(i, j, k);

    const long s0 = a.local_stride(0), s1 = a.local_stride(1);
    auto update = [&](const dart::Array<double> &u, dart::Array<double> &un, long i, long j,
                      long k) {
      const double *p = &u(i, j, k);
      if (i == 0 || j == 0 || k == 0 || i == N[0] - 1 || j == N[1] - 1 || k == N[2] - 1) {
        un(i, j, k) = *p;
        return;
      }
      const double lap = ((p[-s0] + p[s0]) + (p[-s1] + p[s1])) + (p[-1] + p[1]);
      un(i, j, k) = *p + 0.125 * (lap - 6.0 * *p);
    };
    // The points of the block shrunk by d0 on every side; with `shell`, only those on
    // the block's outer shell.
    auto sweep = [&](const dart::Array<double> &u, dart::Array<double> &un, long d0, bool shell) {
      for (long i = lo[0] + d0; i < hi[0] - d0; ++i)
        for (long j = lo[1] + d0; j < hi[1] - d0; ++j)
          for (long k = lo[2] + d0; k < hi[2] - d0; ++k)
            if (!shell || i == lo[0] || i == hi[0] - 1 || j == lo[1] || j == hi[1] - 1 ||
                k == lo[2] || k == hi[2] - 1)
              update(u, un, i, j, k);
    };

    double t_compute = 0;
    std::vector<double> t_halo((size_t)args.iters);  // per iteration: mean and median
    int cur = 0;
    for (long it = 0; it < args.iters; ++it) {
      dart::Array<double> &u = field[cur], &un = field[1 - cur];
      const double t0 = heat::wtime();
      if (!args.nonblocking) {
        u.update_halo();
        const double t1 = heat::wtime();
        sweep(u, un, 0, false);
        t_halo[(size_t)it] = t1 - t0;
        t_compute += heat::wtime() - t1;
      } else {
        u.update_halo_begin();
        const double t1 = heat::wtime();
        sweep(u, un, 1, false);  // needs no ghost
        const double t2 = heat::wtime();
        u.update_halo_end();
        const double t3 = heat::wtime();
        sweep(u, un, 0, true);  // the block's outer shell
        t_halo[(size_t)it] = (t1 - t0) + (t3 - t2);
        t_compute += (t2 - t1) + (heat::wtime() - t3);
      }
      cur = 1 - cur;
    }

    const int me = a.info().myid;
    std::vector<double> global;
    if (me == 0) global.assign((size_t)(N[0] * N[1] * N[2]), 0.0);
    field[cur].gather(global.data(), 0);  // for the checksum
    if (!args.out.empty()) field[cur].save(args.out);
    heat::report("heat3d",
                 std::to_string(a.procs(0)) + " x " + std::to_string(a.procs(1)) + " x " +
                     std::to_string(a.procs(2)),
                 std::to_string(N[0]) + " x " + std::to_string(N[1]) + " x " + std::to_string(N[2]),
                 args, std::accumulate(t_halo.begin(), t_halo.end(), 0.0), t_compute, global, me,
                 a.info().nunits, &t_halo);
  } catch (const dart::error &e) {  // the same on every unit (creation agrees)
    std::fprintf(stderr, "heat3d: %s\n", e.what());
    HEAT_CHECK(dart_exit());
    return 2;
  }
  HEAT_CHECK(dart_exit());
  return 0;
}
