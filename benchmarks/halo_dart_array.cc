// SPDX-License-Identifier: BSD-3-Clause
// halo implementations `dart-array` / `dart-array-nb` / `dart-array-notify`: the exchange
// a scientist writes with DART's distributed arrays (dart_array.h). Each buffer is an
// array of the global grid with ghost width 1 on the geometry's process grid, so its
// local block is the geometry's block; an exchange is dart_array_update_halo (-nb: begin
// before the interior update, end after it). The array synchronizes with the neighbours
// itself, so there is no separate sync. `dart-array` and `-nb` use the get exchange,
// `dart-array-notify` the notified pushes.
#include "halo.h"

namespace {

// halo-loc: begin
class DartArrayHalo : public halo::Exchange {
 public:
  DartArrayHalo(const halo::Geometry &g, bool nb, int exchange) : nb_(nb) {
    dart_array_spec_t s;
    BENCH_DART_CHECK(dart_array_spec_init(&s));
    s.ndim = g.ndim;
    s.dtype = DART_TYPE_DOUBLE;
    s.exchange = exchange;
    for (int d = 0; d < g.ndim; ++d) {
      s.shape[d] = g.N[d];
      s.procs[d] = g.dims[d];
      s.halo_lo[d] = s.halo_hi[d] = 1;
    }
    for (dart_array_t &a : arrays_) {
      BENCH_DART_CHECK(dart_array_create(&s, &a));
      void *base = nullptr;
      BENCH_DART_CHECK(dart_array_local(a, &base));
      fields_.push_back(static_cast<double *>(base));
    }
  }
  ~DartArrayHalo() override {
    for (dart_array_t &a : arrays_) BENCH_DART_CHECK(dart_array_destroy(&a));
  }
  double *field(int t) override { return fields_[t]; }
  void start(int t) override {
    if (nb_)
      BENCH_DART_CHECK(dart_array_update_halo_begin(arrays_[t]));
    else
      BENCH_DART_CHECK(dart_array_update_halo(arrays_[t]));
  }
  void finish(int t) override {
    if (nb_) BENCH_DART_CHECK(dart_array_update_halo_end(arrays_[t]));
  }

 private:
  bool nb_;
  dart_array_t arrays_[2] = {DART_ARRAY_NULL, DART_ARRAY_NULL};
  std::vector<double *> fields_;
};
// halo-loc: end

}  // namespace

HALO_REGISTER(dart_array, "dart-array", 1, [](const halo::Geometry &g, bool nb) {
  return std::unique_ptr<halo::Exchange>(new DartArrayHalo(g, nb, DART_ARRAY_EXCHANGE_GET));
});
HALO_REGISTER_MODES(dart_array_notify, "dart-array-notify", 6, halo::kBlocking,
                    [](const halo::Geometry &g, bool) {
                      return std::unique_ptr<halo::Exchange>(
                          new DartArrayHalo(g, false, DART_ARRAY_EXCHANGE_NOTIFY));
                    });
