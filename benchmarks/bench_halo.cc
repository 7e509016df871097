// SPDX-License-Identifier: BSD-3-Clause
// bench_halo: the halo exchange of IJNC 2017 Sec. 7 (3D heat conduction, six faces,
// float64) and a 2D 5-point stencil, with every implementation registered in halo.h
// (halo_*.cc) running the same arithmetic on the same geometry in one job.
//
//   mpiexec -n 2 bench_halo [--dim 2|3] [--n POINTS] [--iters N] [--warmup N]
//                           [--only impl,...] [--placement LABEL] [--out FILE]
//                           [--progress]
//
// Per iteration and implementation: exchange = sync + start + finish of the halo of the
// current buffer (the synchronisation the implementation needs and the transfers),
// transfer = start + finish alone (the exchange without its barrier, whose wait is the
// units' difference in arrival: what an implementation's calls cost), compute =
// the stencil update; blocking implementations update everything after the exchange,
// non-blocking ones (-nb) update the interior between start and finish and the boundary
// shell after. The row reports median and min over the timed iterations of the maximum
// over units. The final field of every implementation is hashed (FNV-1a over the bytes of
// every unit's interior, combined in rank order) and must equal the `dart` one, else
// the job aborts before printing its rows. Rows: bench=halo, op=exchange|transfer|compute,
// bytes = bytes of one unit's block interior, last column `case` = "3d-32" etc.
// --progress: the job runs with progress processes (DART_PROGRESS_PER_NODE); the rows'
// impl names get the suffix -progress, and a run without progress processes fails.
// Everything runs on the units' communicator.

#include "halo.h"
#include "heat_common.h"

#include <cstdint>

namespace {

struct Opts {
  int dim = 3, n = 32;
  long iters = 100, warmup = 5;
  std::vector<std::string> only;
  std::string placement = "node", out;
  bool progress = false;
};

Opts parse(int argc, char **argv) {
  Opts o;
  bool n_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) bench::die(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--dim")
      o.dim = std::atoi(val().c_str());
    else if (a == "--n")
      o.n = std::atoi(val().c_str()), n_given = true;
    else if (a == "--iters")
      o.iters = std::atol(val().c_str());
    else if (a == "--warmup")
      o.warmup = std::atol(val().c_str());
    else if (a == "--only")
      o.only = bench::split(val(), ',');
    else if (a == "--placement")
      o.placement = val();
    else if (a == "--out")
      o.out = val();
    else if (a == "--progress")
      o.progress = true;
    else
      bench::die(("unknown option " + a).c_str());
  }
  if (o.dim != 2 && o.dim != 3) bench::die("--dim must be 2 or 3");
  if (!n_given) o.n = o.dim == 3 ? 32 : 256;
  if (o.n < 4 || o.iters < 1 || o.warmup < 0) bench::die("need --n >= 4, --iters >= 1");
  return o;
}

// The runs (absolute offsets) of the box lo..hi (inclusive) of a block, C order,
// contiguous elements merged.
std::vector<halo::Run> box_runs(const halo::Geometry &g, const long lo[3], const long hi[3]) {
  std::vector<halo::Run> runs;
  for (long a = lo[0]; a <= hi[0]; ++a)
    for (long b = lo[1]; b <= hi[1]; ++b)
      for (long c = lo[2]; c <= hi[2]; ++c) {
        long off = g.at(a, b, c);
        if (!runs.empty() && runs.back().off + runs.back().len == off)
          ++runs.back().len;
        else
          runs.push_back({off, 1});
      }
  return runs;
}

halo::Geometry geometry(const Opts &o) {
  halo::Geometry g;
  g.ndim = o.dim;
  g.n = o.n;
  g.world = bench::units_comm();
  BENCH_MPI_CHECK(MPI_Comm_rank(g.world, &g.rank));
  BENCH_MPI_CHECK(MPI_Comm_size(g.world, &g.nunits));
  std::vector<int> d = heat::dims_create(g.nunits, o.dim);
  for (int k = 0; k < o.dim; ++k) g.dims[k] = d[k];
  for (int k = o.dim - 1, r = g.rank; k >= 0; --k) g.coords[k] = r % g.dims[k], r /= g.dims[k];
  for (int k = 0; k < o.dim; ++k) {
    g.ext[k] = o.n + 2;
    g.N[k] = static_cast<long>(o.n) * g.dims[k];
    g.start[k] = static_cast<long>(o.n) * g.coords[k];
  }
  // Neighbours in the order dim 0 lower, dim 0 upper, dim 1 lower, ...
  for (int k = 0; k < o.dim; ++k)
    for (int side = -1; side <= 1; side += 2) {
      int c[3] = {g.coords[0], g.coords[1], g.coords[2]};
      c[k] += side;
      if (c[k] < 0 || c[k] >= g.dims[k]) continue;
      halo::Face f;
      f.peer = 0;
      for (int q = 0; q < o.dim; ++q) f.peer = f.peer * g.dims[q] + c[q];
      f.dim = k;
      f.side = side;
      long lo[3], hi[3];
      for (int q = 0; q < 3; ++q) {
        lo[q] = q < o.dim ? 1 : 0;
        hi[q] = q < o.dim ? o.n : 0;
      }
      auto layer = [&](long layer_index) {
        long l[3] = {lo[0], lo[1], lo[2]}, h[3] = {hi[0], hi[1], hi[2]};
        l[k] = h[k] = layer_index;
        return box_runs(g, l, h);
      };
      f.src = layer(side < 0 ? o.n : 1);
      f.dst = layer(side < 0 ? 0 : o.n + 1);
      f.own = layer(side < 0 ? 1 : o.n);
      g.faces.push_back(std::move(f));
    }
  // The node split DART uses (DART_UNITS_PER_NODE emulation included): the MPI versions
  // see the same topology. Units of one DART node always share an MPI shared-memory node.
  int32_t node = 0;
  BENCH_DART_CHECK(dart_unit_node(DART_GLOBAL_UNIT_ID(g.rank), &node));
  MPI_Comm shm;
  BENCH_MPI_CHECK(MPI_Comm_split_type(g.world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm));
  BENCH_MPI_CHECK(MPI_Comm_split(shm, node, g.rank, &g.node));
  BENCH_MPI_CHECK(MPI_Comm_free(&shm));
  return g;
}

double boundary_value(int ndim, long i, long j, long k) {
  if (i == 0) return 1.0;
  if (j == 0) return 0.5;
  if (ndim == 3 && k == 0) return 0.25;
  return 0.0;
}

void init(const halo::Geometry &g, double *u) {
  for (long a = 0; a < g.ext[0]; ++a)
    for (long b = 0; b < g.ext[1]; ++b)
      for (long c = 0; c < g.ext[2]; ++c) {
        bool inside = a >= 1 && a <= g.n && b >= 1 && b <= g.n &&
                      (g.ndim == 2 || (c >= 1 && c <= g.n));
        u[g.at(a, b, c)] = inside ? boundary_value(g.ndim, g.start[0] + a - 1, g.start[1] + b - 1,
                                                   g.ndim == 3 ? g.start[2] + c - 1 : 1)
                                  : 0.0;
      }
}

struct Box {
  long lo[3], hi[3];
};

// The update of the box (inclusive local indices), the arithmetic of heat3d.cc in 3D;
// in 2D  unew = u + 0.2 * (((u[i-1] + u[i+1]) + (u[j-1] + u[j+1])) - 4 u).
// Global boundary points keep their value.
template <int ND>
void update(const halo::Geometry &g, const double *u, double *un, const Box &x) {
  const long s0 = g.ext[1] * g.ext[2], s1 = g.ext[2];
  for (long a = x.lo[0]; a <= x.hi[0]; ++a) {
    const long i = g.start[0] + a - 1;
    for (long b = x.lo[1]; b <= x.hi[1]; ++b) {
      const long j = g.start[1] + b - 1;
      const bool edge_ij = i == 0 || j == 0 || i == g.N[0] - 1 || j == g.N[1] - 1;
      for (long c = x.lo[2]; c <= x.hi[2]; ++c) {
        const long p = g.at(a, b, c);
        if (ND == 3) {
          const long k = g.start[2] + c - 1;
          if (edge_ij || k == 0 || k == g.N[2] - 1) {
            un[p] = u[p];
            continue;
          }
          const double lap = ((u[p - s0] + u[p + s0]) + (u[p - s1] + u[p + s1])) +
                             (u[p - 1] + u[p + 1]);
          un[p] = u[p] + 0.125 * (lap - 6.0 * u[p]);
        } else {
          if (edge_ij) {
            un[p] = u[p];
            continue;
          }
          const double lap = (u[p - s0] + u[p + s0]) + (u[p - s1] + u[p + s1]);
          un[p] = u[p] + 0.2 * (lap - 4.0 * u[p]);
        }
      }
    }
  }
}

void update_boxes(const halo::Geometry &g, const double *u, double *un,
                  const std::vector<Box> &boxes) {
  for (const Box &x : boxes) {
    if (g.ndim == 3)
      update<3>(g, u, un, x);
    else
      update<2>(g, u, un, x);
  }
}

// All interior points as one box; the inner part (not touching the halo) and the shell
// around it as boxes (for the non-blocking versions).
std::vector<Box> all_box(const halo::Geometry &g) {
  Box x;
  for (int q = 0; q < 3; ++q) {
    x.lo[q] = q < g.ndim ? 1 : 0;
    x.hi[q] = q < g.ndim ? g.n : 0;
  }
  return {x};
}

void split_boxes(const halo::Geometry &g, std::vector<Box> *inner, std::vector<Box> *shell) {
  Box in = all_box(g)[0];
  for (int q = 0; q < g.ndim; ++q) in.lo[q] = 2, in.hi[q] = g.n - 1;
  inner->assign(1, in);
  shell->clear();
  // Peel dimension by dimension: the two outer layers of dim q within the range left.
  Box rest = all_box(g)[0];
  for (int q = 0; q < g.ndim; ++q) {
    Box lo = rest, hi = rest;
    lo.hi[q] = 1;
    hi.lo[q] = g.n;
    shell->push_back(lo);
    shell->push_back(hi);
    rest.lo[q] = 2;
    rest.hi[q] = g.n - 1;
  }
}

uint64_t fnv1a(const void *p, size_t n, uint64_t h) {
  const unsigned char *s = static_cast<const unsigned char *>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

// The hash of the global field: every unit hashes its interior in C order, rank 0
// combines the hashes in rank order. Collective; the result is valid on rank 0.
uint64_t field_hash(const halo::Geometry &g, const double *u) {
  uint64_t h = 14695981039346656037ull;
  for (const halo::Run &r : box_runs(g, all_box(g)[0].lo, all_box(g)[0].hi))
    h = fnv1a(u + r.off, sizeof(double) * r.len, h);
  std::vector<uint64_t> all(g.nunits);
  BENCH_MPI_CHECK(MPI_Gather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, 0, g.world));
  return fnv1a(all.data(), sizeof(uint64_t) * all.size(), 14695981039346656037ull);
}

void stats(std::vector<double> v, double *median, double *min) {
  std::sort(v.begin(), v.end());
  size_t m = v.size();
  *median = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
  *min = v[0];
}

}  // namespace

int main(int argc, char **argv) {
  if (dart_ret_t rc = dart_init(&argc, &argv); rc != DART_OK)
    return bench::init_failed("bench_halo", rc);
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const Opts o = parse(argc, argv);
  if (o.progress) bench::require_progress("bench_halo");
  halo::Geometry g = geometry(o);
  std::vector<halo::Impl> impls = halo::registry();
  std::stable_sort(impls.begin(), impls.end(),
                   [](const halo::Impl &x, const halo::Impl &y) { return x.order < y.order; });
  if (impls.empty() || impls[0].name != "dart") bench::die("the dart implementation is missing");

  std::FILE *out = stdout;
  if (g.rank == 0 && !o.out.empty() && !(out = std::fopen(o.out.c_str(), "a")))
    bench::die(("cannot open " + o.out).c_str());
  const std::string label = std::to_string(o.dim) + "d-" + std::to_string(o.n);
  long block_bytes = sizeof(double);
  for (int q = 0; q < o.dim; ++q) block_bytes *= o.n;
  std::vector<Box> everything = all_box(g), inner, shell;
  split_boxes(g, &inner, &shell);

  uint64_t reference = 0;
  for (const halo::Impl &impl : impls)
    for (bool nb : {false, true}) {
      if (!(impl.modes & (nb ? halo::kNonblocking : halo::kBlocking))) continue;
      const std::string name = impl.name + (nb && (impl.modes & halo::kBlocking) ? "-nb" : "");
      bool wanted = o.only.empty() || name == "dart";  // dart: always, the reference
      for (const std::string &s : o.only) wanted = wanted || s == name;
      if (!wanted) continue;
      const std::string row = name + (o.progress ? "-progress" : "");
      std::unique_ptr<halo::Exchange> x = impl.make(g, nb);
      for (int t = 0; t < 2; ++t) init(g, x->field(t));
      BENCH_MPI_CHECK(MPI_Barrier(g.world));
      std::vector<double> tx, tt, tc;
      int cur = 0;
      for (long it = 0; it < o.warmup + o.iters; ++it) {
        const double *u = x->field(cur);
        double *un = x->field(1 - cur);
        double t0 = MPI_Wtime();
        x->sync(cur);
        double ts = MPI_Wtime();
        x->start(cur);
        double t1 = MPI_Wtime(), t2 = t1, t3 = t1;
        if (nb) {
          update_boxes(g, u, un, inner);
          t2 = MPI_Wtime();
          x->finish(cur);
          t3 = MPI_Wtime();
          update_boxes(g, u, un, shell);
        } else {
          x->finish(cur);
          t2 = t3 = MPI_Wtime();
          update_boxes(g, u, un, everything);
        }
        double t4 = MPI_Wtime();
        if (it >= o.warmup) {
          tx.push_back((t1 - t0) + (t3 - t2));
          tt.push_back((t1 - ts) + (t3 - t2));
          tc.push_back((t2 - t1) + (t4 - t3));
        }
        cur = 1 - cur;
      }
      BENCH_MPI_CHECK(MPI_Barrier(g.world));
      const uint64_t h = field_hash(g, x->field(cur));
      std::vector<double> mx(tx.size()), mt(tt.size()), mc(tc.size());
      for (auto [in, max] : {std::pair<std::vector<double> *, std::vector<double> *>{&tx, &mx},
                             {&tt, &mt},
                             {&tc, &mc}})
        BENCH_MPI_CHECK(MPI_Reduce(in->data(), max->data(), static_cast<int>(in->size()),
                                   MPI_DOUBLE, MPI_MAX, 0, g.world));
      x.reset();
      BENCH_MPI_CHECK(MPI_Barrier(g.world));
      if (g.rank != 0) continue;
      if (name == "dart") reference = h;
      if (h != reference) {
        std::fprintf(stderr,
                     "bench_halo: %s %s: final field differs from dart's (hash %016llx, dart "
                     "%016llx): CHECK FAILED\n",
                     row.c_str(), label.c_str(), (unsigned long long)h,
                     (unsigned long long)reference);
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
      for (auto [op, v] : {std::pair<const char *, std::vector<double> *>{"exchange", &mx},
                           {"transfer", &mt},
                           {"compute", &mc}}) {
        double med, mn;
        stats(*v, &med, &mn);
        std::fprintf(out, "halo,%s,%s,%ld,%d,%s,%.4f,%.4f,%zu,%s\n", row.c_str(), op, block_bytes,
                     g.nunits, o.placement.c_str(), med * 1e6, mn * 1e6, v->size(), label.c_str());
      }
      std::fflush(out);
      std::fprintf(stderr, "bench_halo: %s %s check passed (hash %016llx)\n", row.c_str(),
                   label.c_str(), (unsigned long long)h);
    }
  if (out != stdout && out) std::fclose(out);
  BENCH_MPI_CHECK(MPI_Comm_free(&g.node));
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
