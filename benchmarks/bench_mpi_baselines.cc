// SPDX-License-Identifier: BSD-3-Clause
// MPI-only reference numbers for the DART latency benchmark (links MPI, not DART).
//
// Default impls (rows of `benchmarks/run latency`):
//   mpi-shm           memcpy into/out of the peer's MPI_Win_allocate_shared segment
//                     (MPI_Win_sync after a put's copy, before a get's copy)
//   mpi-rma-allocate  MPI_Put/MPI_Get + MPI_Win_flush on an MPI_Win_allocate window
//   mpi-rma-dynamic   the same on MPI_Win_create_dynamic + MPI_Win_attach(malloc memory)
//   mpi-p2p           MPI_Send/MPI_Recv ping-pong, half round trip
// Window-design side experiment (only with --only, see `benchmarks/run windows`):
//   mpi-rma-create-shm   MPI_Win_create over the MPI_Win_allocate_shared segment
//   mpi-rma-create       MPI_Win_create over malloc memory
//   mpi-rma-dynamic-shm  the shared segment attached to a dynamic window
// Every RMA window gets one MPI_Win_lock_all(MPI_MODE_NOCHECK) epoch for the run.
#include <cstdint>
#include <memory>

#include "bench_common.h"

namespace {

using bench::Case;

struct Window {
  std::string impl;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Aint target_disp = 0;  // where the target's buffer starts in the window
  char *local_base = nullptr;
  bool is_shm = false;            // mpi-shm: load/store, no RMA calls
  char *peer = nullptr;           // mpi-shm: the target's segment
  std::unique_ptr<char[]> owned;  // malloc'ed memory exposed by the window
};

void set_errhandler(MPI_Win win) {
  BENCH_MPI_CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
}

char *touch(char *p, size_t n) {
  std::memset(p, 1, n);
  return p;
}

}  // namespace

namespace {

void run_all(const bench::Options &opt) {
  bench::Runner runner(opt);
  const size_t max_bytes = *std::max_element(opt.sizes.begin(), opt.sizes.end());

  auto want = [&](const std::string &impl, bool default_on = true) {
    return runner.selected(impl, "put", default_on) || runner.selected(impl, "get", default_on) ||
           runner.selected(impl, "pingpong", default_on);
  };

  // Shared-memory segment (needed by mpi-shm and the *-shm side experiments).
  MPI_Comm node_comm = MPI_COMM_NULL;
  BENCH_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm));
  int node_size = 0;
  BENCH_MPI_CHECK(MPI_Comm_size(node_comm, &node_size));
  MPI_Win shm_win = MPI_WIN_NULL;
  char *shm_local = nullptr;
  char *shm_peer = nullptr;
  if (node_size == 2) {
    BENCH_MPI_CHECK(MPI_Win_allocate_shared(static_cast<MPI_Aint>(max_bytes), 1, MPI_INFO_NULL,
                                            node_comm, &shm_local, &shm_win));
    set_errhandler(shm_win);
    MPI_Aint seg = 0;
    int disp_unit = 0;
    BENCH_MPI_CHECK(MPI_Win_shared_query(shm_win, 1, &seg, &disp_unit, &shm_peer));
    touch(shm_local, max_bytes);
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, shm_win));
  }

  std::vector<std::unique_ptr<Window>> windows;
  auto add_rma = [&](const std::string &impl, auto &&create) {
    auto w = std::make_unique<Window>();
    w->impl = impl;
    create(*w);
    set_errhandler(w->win);
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win));
    windows.push_back(std::move(w));
  };
  auto mpi_aint = static_cast<MPI_Aint>(max_bytes);
  auto dynamic_over = [&](Window &w, char *mem) {
    BENCH_MPI_CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w.win));
    BENCH_MPI_CHECK(MPI_Win_attach(w.win, mem, mpi_aint));
    MPI_Aint mine = 0, all[2] = {0, 0};
    BENCH_MPI_CHECK(MPI_Get_address(mem, &mine));
    BENCH_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
    w.target_disp = all[1];
    w.local_base = mem;
  };

  if (node_size == 2 && want("mpi-shm")) {
    auto w = std::make_unique<Window>();
    w->impl = "mpi-shm";
    w->win = shm_win;
    w->is_shm = true;
    w->peer = shm_peer;
    windows.push_back(std::move(w));
  }
  if (want("mpi-rma-allocate")) {
    add_rma("mpi-rma-allocate", [&](Window &w) {
      BENCH_MPI_CHECK(
          MPI_Win_allocate(mpi_aint, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w.local_base, &w.win));
      touch(w.local_base, max_bytes);
    });
  }
  if (node_size == 2 && want("mpi-rma-create-shm", false)) {
    add_rma("mpi-rma-create-shm", [&](Window &w) {
      BENCH_MPI_CHECK(
          MPI_Win_create(shm_local, mpi_aint, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win));
      w.local_base = shm_local;
    });
  }
  if (want("mpi-rma-create", false)) {
    add_rma("mpi-rma-create", [&](Window &w) {
      w.owned.reset(touch(new char[max_bytes], max_bytes));
      BENCH_MPI_CHECK(
          MPI_Win_create(w.owned.get(), mpi_aint, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win));
      w.local_base = w.owned.get();
    });
  }
  if (want("mpi-rma-dynamic")) {
    add_rma("mpi-rma-dynamic", [&](Window &w) {
      w.owned.reset(touch(new char[max_bytes], max_bytes));
      dynamic_over(w, w.owned.get());
    });
  }
  if (node_size == 2 && want("mpi-rma-dynamic-shm", false)) {
    add_rma("mpi-rma-dynamic-shm", [&](Window &w) { dynamic_over(w, shm_local); });
  }

  MPI_Comm p2p_comm = MPI_COMM_NULL;
  BENCH_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &p2p_comm));
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(p2p_comm, MPI_ERRORS_RETURN));

  std::vector<char> src_v(max_bytes, 2), dst_v(max_bytes, 3);
  char *src = src_v.data();
  char *dst = dst_v.data();

  // Sizes outermost so that the impls compared at one size run close together in time
  // (timing on shared VMs drifts between modes).
  for (size_t n : opt.sizes) {
    const int cnt = static_cast<int>(n);
    for (auto &wp : windows) {
      Window *w = wp.get();
      const std::string placement = w->is_shm ? "node" : "remote";
      Case put{w->impl, "put", placement, n, nullptr, nullptr};
      Case get{w->impl, "get", placement, n, nullptr, nullptr};
      if (w->is_shm) {
        put.origin = [w, src, n](long k) {
          double t0 = MPI_Wtime();
          for (long i = 0; i < k; ++i) {
            std::memcpy(w->peer, src, n);
            BENCH_MPI_CHECK(MPI_Win_sync(w->win));
          }
          return MPI_Wtime() - t0;
        };
        get.origin = [w, dst, n](long k) {
          double t0 = MPI_Wtime();
          for (long i = 0; i < k; ++i) {
            BENCH_MPI_CHECK(MPI_Win_sync(w->win));
            std::memcpy(dst, w->peer, n);
            bench::clobber(dst);
          }
          return MPI_Wtime() - t0;
        };
      } else {
        put.origin = [w, src, cnt](long k) {
          double t0 = MPI_Wtime();
          for (long i = 0; i < k; ++i) {
            BENCH_MPI_CHECK(MPI_Put(src, cnt, MPI_BYTE, 1, w->target_disp, cnt, MPI_BYTE, w->win));
            BENCH_MPI_CHECK(MPI_Win_flush(1, w->win));
          }
          return MPI_Wtime() - t0;
        };
        get.origin = [w, dst, cnt](long k) {
          double t0 = MPI_Wtime();
          for (long i = 0; i < k; ++i) {
            BENCH_MPI_CHECK(MPI_Get(dst, cnt, MPI_BYTE, 1, w->target_disp, cnt, MPI_BYTE, w->win));
            BENCH_MPI_CHECK(MPI_Win_flush(1, w->win));
            bench::clobber(dst);
          }
          return MPI_Wtime() - t0;
        };
      }
      const bool dflt = w->impl == "mpi-shm" || w->impl == "mpi-rma-allocate" ||
                        w->impl == "mpi-rma-dynamic";
      if (runner.selected(w->impl, "put", dflt)) runner.run(put);
      if (runner.selected(w->impl, "get", dflt)) runner.run(get);
    }
    if (runner.selected("mpi-p2p", "pingpong")) {
      Case pp{"mpi-p2p", "pingpong", "remote", n, nullptr, nullptr};
      pp.divisor = 2.0;  // half round trip
      pp.origin = [=](long k) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < k; ++i) {
          BENCH_MPI_CHECK(MPI_Send(src, cnt, MPI_BYTE, 1, 7, p2p_comm));
          BENCH_MPI_CHECK(MPI_Recv(dst, cnt, MPI_BYTE, 1, 7, p2p_comm, MPI_STATUS_IGNORE));
        }
        return MPI_Wtime() - t0;
      };
      pp.target = [=](long k) {
        for (long i = 0; i < k; ++i) {
          BENCH_MPI_CHECK(MPI_Recv(dst, cnt, MPI_BYTE, 0, 7, p2p_comm, MPI_STATUS_IGNORE));
          BENCH_MPI_CHECK(MPI_Send(src, cnt, MPI_BYTE, 0, 7, p2p_comm));
        }
      };
      runner.run(pp);
    }
  }

  runner.barrier();
  for (auto &w : windows) {
    if (w->is_shm) continue;
    BENCH_MPI_CHECK(MPI_Win_unlock_all(w->win));
    if (w->impl.find("dynamic") != std::string::npos)
      BENCH_MPI_CHECK(MPI_Win_detach(w->win, w->local_base));
    BENCH_MPI_CHECK(MPI_Win_free(&w->win));
  }
  if (shm_win != MPI_WIN_NULL) {
    BENCH_MPI_CHECK(MPI_Win_unlock_all(shm_win));
    BENCH_MPI_CHECK(MPI_Win_free(&shm_win));
  }
  BENCH_MPI_CHECK(MPI_Comm_free(&p2p_comm));
  BENCH_MPI_CHECK(MPI_Comm_free(&node_comm));
}

}  // namespace

int main(int argc, char **argv) {
  BENCH_MPI_CHECK(MPI_Init(&argc, &argv));
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  run_all(bench::parse_options(argc, argv));
  return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
