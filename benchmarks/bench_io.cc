// SPDX-License-Identifier: BSD-3-Clause
// bench_io: the save and load of a distributed array as one .npy file (dart_array_save,
// dart_array_load) against raw MPI-IO of the same subarrays in the same job.
//
//   mpiexec -n 4 bench_io [--mib 8,64,256,1024] [--reps 3] [--dir DIR] [--out FILE]
//
// The field is a 2D float64 array of rows of 4096 points (32 KiB), as many rows as make
// the size, on the arrays' default grid with one ghost point on every side. Per size and
// repetition, each timed from a barrier to the slowest unit's return (an allreduce of
// the seconds), in this order:
//   dart save    dart_array_save: the agreement, a temporary file, unit 0's header, one
//                collective write, sync, close, the rename and the folder's sync;
//   mpi-io write MPI_File_open of a new file, the same subarray view and memory type,
//                one MPI_File_write_all, MPI_File_sync, MPI_File_close (no header, no
//                temporary name, no rename);
//   dart load    dart_array_load: unit 0 reads the header, the array is created (the same
//                decomposition), one collective read, close (the page cache holds the
//                file: what is measured is MPI-IO and DART, not the disk);
//   mpi-io read  MPI_File_open, the view, one MPI_File_read_all into new memory of the
//                block's size (the load's array is new memory too), close.
// Rows (rank 0): bench=io, impl dart|mpi-io, op save|load|write|read, bytes = the array's,
// median and min over the repetitions, case npy.
#include "bench_dart.h"

#include <dash/dart/if/dart_array.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The slowest unit's seconds of fn, started together.
double timed(MPI_Comm comm, const std::function<void()> &fn) {
  BENCH_MPI_CHECK(MPI_Barrier(comm));
  const double t0 = now();
  fn();
  double t = now() - t0, worst = 0;
  BENCH_MPI_CHECK(MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, comm));
  return worst;
}

// The subarray of bytes of a box `sub` at `start` of a C-order 2D block `sizes` of
// float64 (the file view and the memory type of the raw MPI-IO baseline).
MPI_Datatype subarray(const int64_t *sizes, const int64_t *sub, const int64_t *start) {
  int sz[3] = {(int)sizes[0], (int)sizes[1], 8}, su[3] = {(int)sub[0], (int)sub[1], 8},
      st[3] = {(int)start[0], (int)start[1], 0};
  MPI_Datatype t;
  BENCH_MPI_CHECK(MPI_Type_create_subarray(3, sz, su, st, MPI_ORDER_C, MPI_BYTE, &t));
  BENCH_MPI_CHECK(MPI_Type_commit(&t));
  return t;
}

}  // namespace

int main(int argc, char **argv) {
  BENCH_DART_CHECK(dart_init(&argc, &argv));
  std::vector<size_t> mib = {8, 64, 256, 1024};
  int reps = 3;
  std::string dir = "/tmp", out, placement = "node";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) bench::die(("missing value for " + a).c_str());
    std::string v = argv[++i];
    if (a == "--mib") {
      mib.clear();
      for (const std::string &s : bench::split(v, ',')) mib.push_back(std::stoul(s));
    } else if (a == "--reps") {
      reps = std::atoi(v.c_str());
    } else if (a == "--dir") {
      dir = v;
    } else if (a == "--out") {
      out = v;
    } else if (a == "--placement") {
      placement = v;
    } else {
      bench::die(("unknown option " + a).c_str());
    }
  }
  MPI_Comm comm;
  BENCH_DART_CHECK(dart_team_comm(DART_TEAM_ALL, &comm));
  int me = 0, n = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  std::FILE *csv = stdout;
  if (me == 0 && !out.empty()) csv = std::fopen(out.c_str(), "a");
  if (csv == nullptr) bench::die("cannot open --out");
  long pid = (long)getpid();  // rank 0's names the files
  BENCH_MPI_CHECK(MPI_Bcast(&pid, 1, MPI_LONG, 0, comm));
  const std::string path = dir + "/bench-io-" + std::to_string(pid) + ".npy";
  const std::string raw = dir + "/bench-io-" + std::to_string(pid) + ".raw";
  for (size_t m : mib) {
    dart_array_spec_t s;
    BENCH_DART_CHECK(dart_array_spec_init(&s));
    s.ndim = 2;
    s.dtype = DART_TYPE_DOUBLE;
    s.shape[1] = 4096;
    s.shape[0] = (int64_t)(m << 20) / (4096 * 8);
    s.halo_lo[0] = s.halo_lo[1] = s.halo_hi[0] = s.halo_hi[1] = 1;
    dart_array_t a = DART_ARRAY_NULL;
    BENCH_DART_CHECK(dart_array_create(&s, &a));
    dart_array_info_t in;
    BENCH_DART_CHECK(dart_array_get_info(a, &in));
    double *local = static_cast<double *>(in.local);
    for (int64_t k = 0; k < in.local_shape[0] * in.local_shape[1]; ++k) local[k] = (double)k;
    const int64_t ext[2] = {in.hi[0] - in.lo[0], in.hi[1] - in.lo[1]};
    const int64_t halo[2] = {1, 1};
    MPI_Datatype file_t = subarray(in.shape, ext, in.lo);
    MPI_Datatype mem_t = subarray(in.local_shape, ext, halo);
    std::vector<double> t[4];
    for (int r = 0; r < reps; ++r) {
      // A new file each time for both, outside the timing: a save over an existing file
      // also frees the old one in its rename (hundreds of ms for 1 GiB), which the raw
      // write, whose file is unlinked first, does not pay.
      if (me == 0) unlink(path.c_str());
      t[0].push_back(timed(comm, [&] { BENCH_DART_CHECK(dart_array_save(a, path.c_str())); }));
      if (me == 0) unlink(raw.c_str());  // a new file each time, as dart_array_save makes
      t[1].push_back(timed(comm, [&] {
        MPI_File fh;
        MPI_Status st;
        BENCH_MPI_CHECK(MPI_File_open(comm, raw.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                      MPI_INFO_NULL, &fh));
        BENCH_MPI_CHECK(MPI_File_set_view(fh, 128, MPI_BYTE, file_t, "native", MPI_INFO_NULL));
        BENCH_MPI_CHECK(MPI_File_write_all(fh, local, 1, mem_t, &st));
        BENCH_MPI_CHECK(MPI_File_sync(fh));
        BENCH_MPI_CHECK(MPI_File_close(&fh));
      }));
      t[2].push_back(timed(comm, [&] {
        dart_array_t b = DART_ARRAY_NULL;
        BENCH_DART_CHECK(dart_array_load(path.c_str(), &s, &b));
        BENCH_DART_CHECK(dart_array_destroy(&b));
      }));
      t[3].push_back(timed(comm, [&] {
        // into new memory of the block's size, as the load's new array
        std::unique_ptr<double[]> fresh(
            new double[(size_t)(in.local_shape[0] * in.local_shape[1])]);
        MPI_File fh;
        MPI_Status st;
        BENCH_MPI_CHECK(MPI_File_open(comm, raw.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        BENCH_MPI_CHECK(MPI_File_set_view(fh, 128, MPI_BYTE, file_t, "native", MPI_INFO_NULL));
        BENCH_MPI_CHECK(MPI_File_read_all(fh, fresh.get(), 1, mem_t, &st));
        BENCH_MPI_CHECK(MPI_File_close(&fh));
        bench::clobber(fresh.get());
      }));
    }
    const char *names[4][2] = {
        {"dart", "save"}, {"mpi-io", "write"}, {"dart", "load"}, {"mpi-io", "read"}};
    if (me == 0)
      for (int k = 0; k < 4; ++k) {
        std::vector<double> v = t[k];
        std::sort(v.begin(), v.end());
        const double med = v.size() % 2 ? v[v.size() / 2]
                                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
        std::fprintf(csv, "io,%s,%s,%zu,%d,%s,%.1f,%.1f,%d,npy\n", names[k][0], names[k][1],
                     (size_t)(s.shape[0] * s.shape[1] * 8), n, placement.c_str(), med * 1e6,
                     v[0] * 1e6, reps);
      }
    MPI_Type_free(&file_t);
    MPI_Type_free(&mem_t);
    BENCH_DART_CHECK(dart_array_destroy(&a));
    if (me == 0) {
      unlink(path.c_str());
      unlink(raw.c_str());
    }
  }
  if (csv != stdout) std::fclose(csv);
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
