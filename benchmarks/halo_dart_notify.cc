// SPDX-License-Identifier: BSD-3-Clause
// halo implementation `dart-notify` (blocking only): the owners push. start(t) puts each
// of my faces of buffer t into the neighbour's halo of buffer t with dart_put_notify (as
// the heat examples' --mode notify did before they moved to dart_array.h), adding 1 to
// the neighbour's counter t, then waits until my own counter t counts all my neighbours
// (dart_notify_wait subtracts it again). No barrier: a neighbour writes my halo of t
// again only two iterations later, after it waited for my faces of 1-t, which I push
// after I have read my halo of t; one counter per parity keeps a fast neighbour's
// faces of 1-t from being counted for t. This protocol relies on the two alternating
// buffers; the arrays' notified exchange (`dart-array-notify`) is safe for one array.
#include "halo.h"

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
      faces_.push_back({f.peer, f.count(), halo::dart_type(theirs), halo::dart_type(f.own)});
    }
  }
  ~DartNotifyHalo() override {
    for (Face &f : faces_) {
      BENCH_DART_CHECK(dart_type_destroy(&f.remote_type));
      BENCH_DART_CHECK(dart_type_destroy(&f.local_type));
    }
    BENCH_DART_CHECK(dart_notify_free(counters_));
    BENCH_DART_CHECK(dart_team_memfree(seg_));
  }
  double *field(int t) override { return base_ + t * size_; }
  void start(int t) override {
    for (const Face &f : faces_) {
      dart_gptr_t dst = seg_;
      BENCH_DART_CHECK(dart_gptr_setunit(&dst, DART_TEAM_UNIT_ID(f.peer)));
      BENCH_DART_CHECK(dart_gptr_incaddr(&dst, t * size_ * (int64_t)sizeof(double)));
      BENCH_DART_CHECK(dart_put_notify(dst, field(t), (size_t)f.count, f.local_type, f.remote_type,
                                       counter(f.peer, t), 1, DART_NOTIFY_ADD));
    }
    BENCH_DART_CHECK(dart_notify_wait(counter(me_, t), faces_.size()));
  }
  void finish(int) override {}

 private:
  struct Face {
    int peer;
    long count;
    dart_datatype_t remote_type, local_type;
  };
  dart_gptr_t counter(int unit, int t) const {  // counter t (the parity) of unit
    dart_gptr_t c = counters_;
    BENCH_DART_CHECK(dart_gptr_setunit(&c, DART_TEAM_UNIT_ID(unit)));
    BENCH_DART_CHECK(dart_gptr_incaddr(&c, t * (int64_t)sizeof(uint64_t)));
    return c;
  }
  long size_;
  int me_;
  dart_gptr_t seg_ = DART_GPTR_NULL, counters_ = DART_GPTR_NULL;
  double *base_ = nullptr;
  std::vector<Face> faces_;
};
// halo-loc: end

}  // namespace

HALO_REGISTER_MODES(dart_notify, "dart-notify", 5, halo::kBlocking,
                    [](const halo::Geometry &g, bool) {
                      return std::unique_ptr<halo::Exchange>(new DartNotifyHalo(g));
                    });
