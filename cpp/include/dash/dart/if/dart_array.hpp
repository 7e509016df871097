// SPDX-License-Identifier: BSD-3-Clause
// dart_array.hpp -- C++ class over dart_array.h (header only; no second implementation).
//
//   dart::Array<double> u({nx, ny}, dart::ArrayOptions().halo(1).periodic({false, true}));
//   for (int64_t i = u.lo(0); i < u.hi(0); ++i)
//     for (int64_t j = u.lo(1); j < u.hi(1); ++j) u(i, j) = f(i, j);   // global indices
//   u.update_halo();                                 // ghosts now hold the neighbours'
//
// Indices are global and 0-based, dimensions in C order (the last varies fastest), as in
// dart_array.h. u(i, j, ..) addresses this unit's block with its ghosts: every i of
// [lo(0) - halo_lo(0), hi(0) + halo_hi(0)) and so on. Failures throw dart::error (with
// the DART return code and the detail message). Creation, destruction (also by the
// destructor), copy, the halo updates, gather and scatter are collective over the team,
// as in C: every unit destroys its arrays in the same order.
#ifndef DART_ARRAY_HPP_INCLUDED
#define DART_ARRAY_HPP_INCLUDED

#include <dash/dart/if/dart.h>

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dart {

/** A failed DART call: code() is its dart_ret_t, what() names the call and the detail. */
class error : public std::runtime_error {
 public:
  error(dart_ret_t code, const std::string &what) : std::runtime_error(what), code_(code) {}
  dart_ret_t code() const noexcept { return code_; }

 private:
  dart_ret_t code_;
};

namespace detail {

inline void check(dart_ret_t rc, const char *call) {
  if (rc != DART_OK)
    throw error(rc, std::string(call) + " failed: " + dart_strerror(rc) + ": " +
                        dart_error_detail());
}

// The DART type and the elements per point of T.
template <typename T> struct array_type;
#define DART_X_ARRAY_TYPE_(name, ctype, ...)                        \
  template <> struct array_type<ctype> {                            \
    static constexpr dart_datatype_t type = DART_TYPE_##name;       \
    static constexpr int components = 1;                            \
  };
DART_BASIC_TYPE_LIST(DART_X_ARRAY_TYPE_)
#undef DART_X_ARRAY_TYPE_
template <typename F> struct array_type<std::complex<F>> {
  static constexpr dart_datatype_t type = array_type<F>::type;
  static constexpr int components = 2;
};

}  // namespace detail

/** What dart_array_spec_t says besides the shape and the type, set by chained calls.
 *  Per-dimension lists are in C order; a list of one entry applies to every dimension. */
class ArrayOptions {
 public:
  ArrayOptions &team(dart_team_t t) { team_ = t; return *this; }
  /** The same ghost width on both sides of every dimension. */
  ArrayOptions &halo(int w) { lo_ = hi_ = {w}; return *this; }
  /** Ghost widths below and above the block, per dimension. */
  ArrayOptions &halo(std::vector<int> lo, std::vector<int> hi) {
    lo_ = std::move(lo);
    hi_ = std::move(hi);
    return *this;
  }
  ArrayOptions &periodic(std::vector<bool> p) { periodic_ = std::move(p); return *this; }
  ArrayOptions &stencil(dart_array_stencil_t s) { stencil_ = s; return *this; }
  /** The process grid (0 entries are chosen). */
  ArrayOptions &procs(std::vector<int> p) { procs_ = std::move(p); return *this; }
  /** The block extents of every grid coordinate, per dimension (needs procs). */
  ArrayOptions &blocks(std::vector<std::vector<int64_t>> b) { blocks_ = std::move(b); return *this; }
  ArrayOptions &exchange(dart_array_exchange_t e) { exchange_ = e; return *this; }

  /** The C spec for `shape` (blocks points into `storage`, which must outlive it). */
  dart_array_spec_t spec(const std::vector<int64_t> &shape, dart_datatype_t type, int components,
                         std::vector<int64_t> *storage) const {
    dart_array_spec_t s;
    detail::check(dart_array_spec_init(&s), "dart_array_spec_init");
    s.ndim = (int32_t)shape.size();
    s.dtype = type;
    s.components = components;
    s.team = team_;
    s.stencil = stencil_;
    s.exchange = exchange_;
    const int nd = s.ndim < DART_ARRAY_MAX_DIMS ? s.ndim : DART_ARRAY_MAX_DIMS;
    for (int d = 0; d < nd; ++d) {
      s.shape[d] = shape[(size_t)d];
      s.halo_lo[d] = pick(lo_, d, 0);
      s.halo_hi[d] = pick(hi_, d, 0);
      s.boundary[d] = pick(periodic_, d, false) ? DART_ARRAY_BOUNDARY_PERIODIC
                                                : DART_ARRAY_BOUNDARY_NONE;
      s.procs[d] = pick(procs_, d, 0);
    }
    if (!blocks_.empty()) {
      storage->clear();
      for (const auto &b : blocks_) storage->insert(storage->end(), b.begin(), b.end());
      s.blocks = storage->data();
    }
    return s;
  }

 private:
  template <typename V>
  static V pick(const std::vector<V> &v, int d, V dflt) {
    if (v.empty()) return dflt;
    return v.size() == 1 ? v[0] : (size_t)d < v.size() ? v[(size_t)d] : dflt;
  }
  dart_team_t team_ = DART_TEAM_ALL;
  std::vector<int> lo_, hi_, procs_;
  std::vector<bool> periodic_;
  std::vector<std::vector<int64_t>> blocks_;
  dart_array_stencil_t stencil_ = DART_STENCIL_STAR;
  dart_array_exchange_t exchange_ = DART_ARRAY_EXCHANGE_AUTO;
};

/** A distributed array of T (a DART basic type or std::complex of one). Move-only. */
template <typename T>
class Array {
 public:
  using value_type = T;

  /** Collective: create (dart_array_create). */
  explicit Array(const std::vector<int64_t> &shape, const ArrayOptions &opt = ArrayOptions()) {
    std::vector<int64_t> blocks;
    const dart_array_spec_t s = opt.spec(shape, detail::array_type<T>::type,
                                         detail::array_type<T>::components, &blocks);
    detail::check(dart_array_create(&s, &a_), "dart_array_create");
    load_info();
  }
  Array(Array &&o) noexcept : a_(o.a_), in_(o.in_) {
    o.a_ = DART_ARRAY_NULL;
    for (int d = 0; d < DART_ARRAY_MAX_DIMS; ++d) stride_[d] = o.stride_[d];
    origin_ = o.origin_;
  }
  Array &operator=(Array &&o) noexcept {
    if (this != &o) {
      std::swap(a_, o.a_);
      std::swap(in_, o.in_);
      for (int d = 0; d < DART_ARRAY_MAX_DIMS; ++d) std::swap(stride_[d], o.stride_[d]);
      std::swap(origin_, o.origin_);
    }
    return *this;
  }
  Array(const Array &) = delete;
  Array &operator=(const Array &) = delete;
  /** Collective (as destroy()); a failure here cannot throw and is ignored. */
  ~Array() {
    if (a_ != DART_ARRAY_NULL) dart_array_destroy(&a_);
  }
  /** Collective: free the array now (dart_array_destroy). */
  void destroy() {
    if (a_ != DART_ARRAY_NULL) detail::check(dart_array_destroy(&a_), "dart_array_destroy");
  }

  /** Collective: a new array with this one's spec and a copy of every block. */
  Array copy() const {
    Array b;
    detail::check(dart_array_copy(a_, &b.a_), "dart_array_copy");
    b.load_info();
    return b;
  }

  dart_array_t handle() const { return a_; }
  int ndim() const { return in_.ndim; }
  int64_t shape(int d) const { return in_.shape[d]; }
  int64_t lo(int d) const { return in_.lo[d]; }   ///< my block: [lo, hi)
  int64_t hi(int d) const { return in_.hi[d]; }
  int halo_lo(int d) const { return in_.halo_lo[d]; }
  int halo_hi(int d) const { return in_.halo_hi[d]; }
  int procs(int d) const { return in_.procs[d]; }
  int coords(int d) const { return in_.coords[d]; }
  int64_t local_shape(int d) const { return in_.local_shape[d]; }  ///< with ghosts
  int64_t local_stride(int d) const { return stride_[d]; }        ///< in points
  const dart_array_info_t &info() const { return in_; }

  /** My block with ghosts (the point lo - halo_lo), C order, local_shape points. */
  T *local() { return static_cast<T *>(in_.local); }
  const T *local() const { return static_cast<const T *>(in_.local); }
  /** The local point at global indices (i0, i1, ..), ghosts included. No checks. */
  template <typename... I>
  T &operator()(I... index) {
    return local()[offset({(int64_t)index...})];
  }
  template <typename... I>
  const T &operator()(I... index) const {
    return local()[offset({(int64_t)index...})];
  }

  /** Collective, neighbours only (dart_array_update_halo and the split phase). */
  void update_halo() { detail::check(dart_array_update_halo(a_), "dart_array_update_halo"); }
  void update_halo_begin() {
    detail::check(dart_array_update_halo_begin(a_), "dart_array_update_halo_begin");
  }
  void update_halo_end() {
    detail::check(dart_array_update_halo_end(a_), "dart_array_update_halo_end");
  }

  /** The global region [lo, hi) to/from buf (C order; strides in points, empty:
   *  contiguous). */
  void get(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi, T *buf,
           const std::vector<int64_t> &strides = {}) const {
    check_rank(lo, hi);
    detail::check(dart_array_get(a_, lo.data(), hi.data(), buf, strides.empty() ? nullptr : strides.data()),
                  "dart_array_get");
  }
  void put(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi, const T *buf,
           const std::vector<int64_t> &strides = {}) {
    check_rank(lo, hi);
    detail::check(dart_array_put(a_, lo.data(), hi.data(), buf, strides.empty() ? nullptr : strides.data()),
                  "dart_array_put");
  }
  /** Collective: the whole array (C order) into buf on team unit root. */
  void gather(T *buf, int root = 0) const {
    detail::check(dart_array_gather(a_, buf, root), "dart_array_gather");
  }
  /** Collective: root's buf (the whole array, C order) into every interior. */
  void scatter(const T *buf, int root = 0) {
    detail::check(dart_array_scatter(a_, buf, root), "dart_array_scatter");
  }

  /** Collective: the whole array as one .npy file (dart_array_save). */
  void save(const std::string &path) const {
    detail::check(dart_array_save(a_, path.c_str()), "dart_array_save");
  }
  /** Collective: an array of T from the .npy file `path` with the decomposition of `opt`
   *  (dart_array_load: the file's shape, T's type; the ghosts are zero). */
  static Array load(const std::string &path, const ArrayOptions &opt = ArrayOptions()) {
    // The per-dimension options for every dimension the file may have; ndim and shape
    // come from the file.
    std::vector<int64_t> blocks;
    dart_array_spec_t s = opt.spec(std::vector<int64_t>(DART_ARRAY_MAX_DIMS, 0),
                                   detail::array_type<T>::type,
                                   detail::array_type<T>::components, &blocks);
    s.ndim = 0;
    Array a;
    detail::check(dart_array_load(path.c_str(), &s, &a.a_), "dart_array_load");
    a.load_info();
    return a;
  }

 private:
  Array() = default;
  void load_info() {
    detail::check(dart_array_get_info(a_, &in_), "dart_array_get_info");
    int64_t s = 1;
    origin_ = 0;
    for (int d = in_.ndim - 1; d >= 0; --d) {
      stride_[d] = s;
      origin_ += (in_.lo[d] - in_.halo_lo[d]) * s;
      s *= in_.local_shape[d];
    }
  }
  int64_t offset(std::initializer_list<int64_t> index) const {
    int64_t off = -origin_;
    int d = 0;
    for (int64_t i : index) off += i * stride_[d++];
    return off;
  }
  void check_rank(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi) const {
    if ((int)lo.size() != in_.ndim || (int)hi.size() != in_.ndim)
      throw error(DART_ERR_INVAL, "dart::Array: lo and hi need " + std::to_string(in_.ndim) +
                                      " indices");
  }

  dart_array_t a_ = DART_ARRAY_NULL;
  dart_array_info_t in_{};
  int64_t stride_[DART_ARRAY_MAX_DIMS] = {0, 0, 0, 0};
  int64_t origin_ = 0;  // point offset of global index 0 from local()
};

}  // namespace dart

#endif  // DART_ARRAY_HPP_INCLUDED
