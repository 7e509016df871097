// SPDX-License-Identifier: BSD-3-Clause
// halo implementation `mpi-rma-flat` / `-nb`: the flat MPI RMA version of IJNC 2017: one
// MPI_Win_allocate window holding both buffers, one lock_all epoch, no locality; each
// face is one MPI_Get with indexed types followed by MPI_Win_flush (-nb: MPI_Rget, all
// completed with MPI_Waitall + MPI_Win_flush_all), after MPI_Win_sync + MPI_Barrier.
#include "halo.h"

namespace {

class FlatHalo : public halo::Exchange {
 public:
  FlatHalo(const halo::Geometry &g, bool nb) : g_(g), nb_(nb) {
    BENCH_MPI_CHECK(MPI_Win_allocate(2 * g.size() * sizeof(double), sizeof(double), MPI_INFO_NULL,
                                     g.world, &base_, &win_));
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
    for (const halo::Face &f : g.faces) {
      src_.push_back(halo::mpi_type(f.src));
      dst_.push_back(halo::mpi_type(f.dst));
    }
    reqs_.resize(g.faces.size(), MPI_REQUEST_NULL);
  }
  ~FlatHalo() override {
    for (size_t i = 0; i < src_.size(); ++i) {
      MPI_Type_free(&src_[i]);
      MPI_Type_free(&dst_[i]);
    }
    BENCH_MPI_CHECK(MPI_Win_unlock_all(win_));
    BENCH_MPI_CHECK(MPI_Win_free(&win_));
  }
  double *field(int t) override { return base_ + t * g_.size(); }
  void sync(int) override {
    BENCH_MPI_CHECK(MPI_Win_sync(win_));
    BENCH_MPI_CHECK(MPI_Barrier(g_.world));
  }
  void start(int t) override {
    for (size_t i = 0; i < g_.faces.size(); ++i) {
      const int peer = g_.faces[i].peer;
      const MPI_Aint disp = t * g_.size();
      if (nb_) {
        BENCH_MPI_CHECK(MPI_Rget(field(t), 1, dst_[i], peer, disp, 1, src_[i], win_, &reqs_[i]));
      } else {
        BENCH_MPI_CHECK(MPI_Get(field(t), 1, dst_[i], peer, disp, 1, src_[i], win_));
        BENCH_MPI_CHECK(MPI_Win_flush(peer, win_));
      }
    }
  }
  void finish(int) override {
    if (!nb_) return;
    BENCH_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE));
    // MPICH 4.0.2 completes an MPI_Rget request whose origin type is noncontiguous before
    // the data is there (bench_halo's check catches it): the flush makes it arrive.
    BENCH_MPI_CHECK(MPI_Win_flush_all(win_));
  }

 private:
  const halo::Geometry &g_;
  bool nb_;
  double *base_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<MPI_Datatype> src_, dst_;
  std::vector<MPI_Request> reqs_;
};

}  // namespace

HALO_REGISTER(mpi_rma_flat, "mpi-rma-flat", 10, [](const halo::Geometry &g, bool nb) {
  return std::unique_ptr<halo::Exchange>(new FlatHalo(g, nb));
});
