// SPDX-License-Identifier: BSD-3-Clause
// halo implementation `mpi-p2p` / `-nb`: two-sided exchange of the faces (MPI packs them
// through the indexed datatypes): MPI_Sendrecv per neighbour (-nb: MPI_Irecv + MPI_Isend
// of all faces, MPI_Waitall in finish). The messages synchronise; no barrier. Tag = the
// dimension of the face (a pair of units shares at most one face per dimension).
#include "halo.h"

namespace {

class P2PHalo : public halo::Exchange {
 public:
  P2PHalo(const halo::Geometry &g, bool nb) : g_(g), nb_(nb), buf_(2 * g.size()) {
    for (const halo::Face &f : g.faces) {
      own_.push_back(halo::mpi_type(f.own));
      dst_.push_back(halo::mpi_type(f.dst));
    }
    reqs_.resize(2 * g.faces.size(), MPI_REQUEST_NULL);
  }
  ~P2PHalo() override {
    for (size_t i = 0; i < own_.size(); ++i) {
      MPI_Type_free(&own_[i]);
      MPI_Type_free(&dst_[i]);
    }
  }
  double *field(int t) override { return buf_.data() + t * g_.size(); }
  void start(int t) override {
    double *u = field(t);
    const size_t nf = g_.faces.size();
    for (size_t i = 0; i < nf; ++i) {
      const halo::Face &f = g_.faces[i];
      if (nb_) {
        BENCH_MPI_CHECK(MPI_Irecv(u, 1, dst_[i], f.peer, f.dim, g_.world, &reqs_[i]));
      } else {
        BENCH_MPI_CHECK(MPI_Sendrecv(u, 1, own_[i], f.peer, f.dim, u, 1, dst_[i], f.peer, f.dim,
                                     g_.world, MPI_STATUS_IGNORE));
      }
    }
    if (nb_)
      for (size_t i = 0; i < nf; ++i)
        BENCH_MPI_CHECK(
            MPI_Isend(u, 1, own_[i], g_.faces[i].peer, g_.faces[i].dim, g_.world, &reqs_[nf + i]));
  }
  void finish(int) override {
    if (nb_)
      BENCH_MPI_CHECK(
          MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE));
  }

 private:
  const halo::Geometry &g_;
  bool nb_;
  std::vector<double> buf_;
  std::vector<MPI_Datatype> own_, dst_;
  std::vector<MPI_Request> reqs_;
};

}  // namespace

HALO_REGISTER(mpi_p2p, "mpi-p2p", 30, [](const halo::Geometry &g, bool nb) {
  return std::unique_ptr<halo::Exchange>(new P2PHalo(g, nb));
});
