// SPDX-License-Identifier: BSD-3-Clause
// halo implementation `dart` / `dart-nb`: one DART team allocation holding both buffers;
// each face is one dart_get_blocking (dart-nb: dart_get_handle, completed with
// dart_waitall) with an indexed DART type on both sides, after a dart_barrier (the
// neighbours finished writing the buffer). DART picks load/store or MPI RMA per unit.
#include "halo.h"

namespace {

// halo-loc: begin
class DartHalo : public halo::Exchange {
 public:
  DartHalo(const halo::Geometry &g, bool nb) : size_(g.size()), nb_(nb) {
    BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2 * size_, DART_TYPE_DOUBLE, &seg_));
    dart_gptr_t mine = seg_;
    BENCH_DART_CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(g.rank)));
    void *addr = nullptr;
    BENCH_DART_CHECK(dart_gptr_getaddr(mine, &addr));
    base_ = static_cast<double *>(addr);
    for (const halo::Face &f : g.faces) {
      Get x{f.peer, f.count(), halo::dart_type(f.src), halo::dart_type(f.dst)};
      gets_.push_back(x);
    }
    handles_.resize(gets_.size(), DART_HANDLE_NULL);
  }
  ~DartHalo() override {
    for (Get &x : gets_) {
      BENCH_DART_CHECK(dart_type_destroy(&x.src));
      BENCH_DART_CHECK(dart_type_destroy(&x.dst));
    }
    BENCH_DART_CHECK(dart_team_memfree(seg_));
  }
  double *field(int t) override { return base_ + t * size_; }
  void sync(int) override { BENCH_DART_CHECK(dart_barrier(DART_TEAM_ALL)); }
  void start(int t) override {
    for (size_t i = 0; i < gets_.size(); ++i) {
      const Get &x = gets_[i];
      dart_gptr_t src = seg_;
      BENCH_DART_CHECK(dart_gptr_setunit(&src, DART_TEAM_UNIT_ID(x.peer)));
      BENCH_DART_CHECK(dart_gptr_incaddr(&src, t * size_ * (int64_t)sizeof(double)));
      if (nb_)
        BENCH_DART_CHECK(dart_get_handle(field(t), src, x.count, x.src, x.dst, &handles_[i]));
      else
        BENCH_DART_CHECK(dart_get_blocking(field(t), src, x.count, x.src, x.dst));
    }
  }
  void finish(int) override {
    if (nb_) BENCH_DART_CHECK(dart_waitall(handles_.data(), handles_.size()));
  }

 private:
  struct Get {
    int peer;
    long count;
    dart_datatype_t src, dst;
  };
  long size_;
  bool nb_;
  dart_gptr_t seg_ = DART_GPTR_NULL;
  double *base_ = nullptr;
  std::vector<Get> gets_;
  std::vector<dart_handle_t> handles_;
};
// halo-loc: end

}  // namespace

HALO_REGISTER(dart, "dart", 0, [](const halo::Geometry &g, bool nb) {
  return std::unique_ptr<halo::Exchange>(new DartHalo(g, nb));
});
