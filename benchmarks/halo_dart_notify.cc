// halo implementation `dart-notify` (blocking only): the owners push. start(t) puts each
// of my faces of buffer t into the neighbour's halo of buffer t with dart_put_notify
// (heat_common.h push_faces, as examples/cpp/heat3d.cc --mode notify), adding 1 to the
// neighbour's counter t, then waits until my own counter t counts all my neighbours
// (dart_notify_wait subtracts it again). No barrier: a neighbour writes my halo of t
// again only two iterations later, after it waited for my faces of 1-t, which I push
// after I have read my halo of t; one counter per parity keeps a fast neighbour's
// faces of 1-t from being counted for t.
#include "halo.h"
#include "heat_common.h"

namespace {

// halo-loc: begin
class DartNotifyHalo : public halo::Exchange {
 public:
  explicit DartNotifyHalo(const halo::Geometry &g) : size_(g.size()), me_(g.rank) {
    BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2 * size_, DART_TYPE_DOUBLE, &seg_));
    BENCH_DART_CHECK(dart_notify_alloc(DART_TEAM_ALL, 2, &counters_));
    dart_gptr_t mine = seg_;
    BENCH_DART_CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(g.rank)));
    void *addr = nullptr;
    BENCH_DART_CHECK(dart_gptr_getaddr(mine, &addr));
    base_ = static_cast<double *>(addr);
    const long stride[3] = {g.ext[1] * g.ext[2], g.ext[2], 1};
    for (const halo::Face &f : g.faces) {
      // The peer's halo facing me: its layer next to mine (f.src) one layer further out.
      std::vector<halo::Run> theirs = f.src;
      for (halo::Run &r : theirs) r.off -= f.side * stride[f.dim];
      faces_.push_back({f.peer, 0, 0, f.count(), halo::dart_type(theirs), halo::dart_type(f.own)});
    }
  }
  ~DartNotifyHalo() override {
    for (heat::Halo &f : faces_) {
      BENCH_DART_CHECK(dart_type_destroy(&f.remote_type));
      BENCH_DART_CHECK(dart_type_destroy(&f.local_type));
    }
    BENCH_DART_CHECK(dart_notify_free(counters_));
    BENCH_DART_CHECK(dart_team_memfree(seg_));
  }
  double *field(int t) override { return base_ + t * size_; }
  void start(int t) override {
    dart_gptr_t buffer = seg_;
    BENCH_DART_CHECK(dart_gptr_incaddr(&buffer, t * size_ * (int64_t)sizeof(double)));
    heat::push_faces(faces_, buffer, field(t), counters_, t);
    BENCH_DART_CHECK(dart_notify_wait(heat::counter(counters_, me_, t), faces_.size()));
  }
  void finish(int) override {}

 private:
  long size_;
  int me_;
  dart_gptr_t seg_ = DART_GPTR_NULL, counters_ = DART_GPTR_NULL;
  double *base_ = nullptr;
  std::vector<heat::Halo> faces_;
};
// halo-loc: end

}  // namespace

HALO_REGISTER_MODES(dart_notify, "dart-notify", 5, halo::kBlocking,
                    [](const halo::Geometry &g, bool) {
  return std::unique_ptr<halo::Exchange>(new DartNotifyHalo(g));
});
