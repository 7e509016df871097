// SPDX-License-Identifier: BSD-3-Clause
// halo implementation `mpi-rma-shm` / `-nb`: the hand-written locality-aware MPI version
// of IJNC 2017: the buffers live in an MPI_Win_allocate_shared window of the (emulated)
// node, exposed to the other nodes by an MPI_Win_create window over the same memory.
// Faces of same-node neighbours are copied with load/store through the pointer from
// MPI_Win_shared_query; faces of other nodes' units are MPI_Get + MPI_Win_flush on the
// RMA window (-nb: MPI_Rget first, the local copies, MPI_Waitall + MPI_Win_flush_all
// in finish).
// Synchronisation: MPI_Win_sync on both windows, then MPI_Barrier.
#include "halo.h"

namespace {

// halo-loc: begin
class ShmHalo : public halo::Exchange {
 public:
  ShmHalo(const halo::Geometry &g, bool nb) : g_(g), nb_(nb) {
    const MPI_Aint bytes = 2 * g.size() * sizeof(double);
    BENCH_MPI_CHECK(
        MPI_Win_allocate_shared(bytes, sizeof(double), MPI_INFO_NULL, g.node, &base_, &shm_));
    BENCH_MPI_CHECK(MPI_Win_create(base_, bytes, sizeof(double), MPI_INFO_NULL, g.world, &rma_));
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, shm_));
    BENCH_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, rma_));
    MPI_Group world_group, node_group;
    BENCH_MPI_CHECK(MPI_Comm_group(g.world, &world_group));
    BENCH_MPI_CHECK(MPI_Comm_group(g.node, &node_group));
    for (const halo::Face &f : g.faces) {
      Peer p;
      BENCH_MPI_CHECK(MPI_Group_translate_ranks(world_group, 1, &f.peer, node_group, &p.node_rank));
      if (p.node_rank != MPI_UNDEFINED) {
        MPI_Aint size;
        int disp_unit;
        BENCH_MPI_CHECK(MPI_Win_shared_query(shm_, p.node_rank, &size, &disp_unit, &p.mem));
      } else {
        p.src = halo::mpi_type(f.src);
        p.dst = halo::mpi_type(f.dst);
      }
      peers_.push_back(p);
    }
    BENCH_MPI_CHECK(MPI_Group_free(&world_group));
    BENCH_MPI_CHECK(MPI_Group_free(&node_group));
    reqs_.resize(g.faces.size(), MPI_REQUEST_NULL);
  }
  ~ShmHalo() override {
    for (Peer &p : peers_)
      if (p.node_rank == MPI_UNDEFINED) {
        MPI_Type_free(&p.src);
        MPI_Type_free(&p.dst);
      }
    BENCH_MPI_CHECK(MPI_Win_unlock_all(rma_));
    BENCH_MPI_CHECK(MPI_Win_unlock_all(shm_));
    BENCH_MPI_CHECK(MPI_Win_free(&rma_));
    BENCH_MPI_CHECK(MPI_Win_free(&shm_));
  }
  double *field(int t) override { return base_ + t * g_.size(); }
  void sync(int) override {
    BENCH_MPI_CHECK(MPI_Win_sync(shm_));
    BENCH_MPI_CHECK(MPI_Win_sync(rma_));
    BENCH_MPI_CHECK(MPI_Barrier(g_.world));
    BENCH_MPI_CHECK(MPI_Win_sync(shm_));
  }
  void start(int t) override {
    const MPI_Aint disp = t * g_.size();
    for (size_t i = 0; i < peers_.size(); ++i) {  // remote faces first: they take longest
      const Peer &p = peers_[i];
      if (p.node_rank != MPI_UNDEFINED) continue;
      const int peer = g_.faces[i].peer;
      if (nb_) {
        BENCH_MPI_CHECK(MPI_Rget(field(t), 1, p.dst, peer, disp, 1, p.src, rma_, &reqs_[i]));
      } else {
        BENCH_MPI_CHECK(MPI_Get(field(t), 1, p.dst, peer, disp, 1, p.src, rma_));
        BENCH_MPI_CHECK(MPI_Win_flush(peer, rma_));
      }
    }
    for (size_t i = 0; i < peers_.size(); ++i) {
      const Peer &p = peers_[i];
      if (p.node_rank == MPI_UNDEFINED) continue;
      const double *peer_block = static_cast<const double *>(p.mem) + disp;
      const halo::Face &f = g_.faces[i];  // src and dst: runs of the same lengths
      for (size_t r = 0; r < f.src.size(); ++r)
        std::memcpy(field(t) + f.dst[r].off, peer_block + f.src[r].off,
                    sizeof(double) * f.src[r].len);
    }
  }
  void finish(int) override {
    if (!nb_) return;
    BENCH_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE));
    // MPICH 4.0.2 completes an MPI_Rget request whose origin type is noncontiguous before
    // the data is there (bench_halo's check catches it): the flush makes it arrive.
    BENCH_MPI_CHECK(MPI_Win_flush_all(rma_));
  }

 private:
  struct Peer {
    int node_rank = MPI_UNDEFINED;  // the neighbour's rank in my node, or MPI_UNDEFINED
    void *mem = nullptr;            // its buffers (same node)
    MPI_Datatype src = MPI_DATATYPE_NULL, dst = MPI_DATATYPE_NULL;  // other node
  };
  const halo::Geometry &g_;
  bool nb_;
  double *base_ = nullptr;
  MPI_Win shm_ = MPI_WIN_NULL, rma_ = MPI_WIN_NULL;
  std::vector<Peer> peers_;
  std::vector<MPI_Request> reqs_;
};
// halo-loc: end

}  // namespace

HALO_REGISTER(mpi_rma_shm, "mpi-rma-shm", 20, [](const halo::Geometry &g, bool nb) {
  return std::unique_ptr<halo::Exchange>(new ShmHalo(g, nb));
});
