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
// destructor, except while an exception unwinds: see ~Array), copy, the halo updates,
// gather, scatter and the reductions (sum, min, max, norm, dart::dot) are collective over
// the team, as in C: every unit destroys its arrays in the same order.
#ifndef DART_ARRAY_HPP_INCLUDED
#define DART_ARRAY_HPP_INCLUDED

#include <dash/dart/if/dart.h>

#include <complex>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
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

// The result type of sum() and dot() (dart_array_reduce's rules): int64_t for the signed
// integers, uint64_t for the unsigned ones, the type itself for the floating types
// (float too: accumulated in double, rounded once) and their complex numbers.
template <typename T, bool = std::is_integral<T>::value> struct sum_type {
  typedef T type;
};
template <typename T> struct sum_type<T, true> {
  typedef typename std::conditional<std::is_signed<T>::value, int64_t, uint64_t>::type type;
};

template <typename T> struct is_complex : std::false_type {};
template <typename F> struct is_complex<std::complex<F>> : std::true_type {};

// The exceptions in flight on this thread: the destructor of an Array skips its
// collective free while more are in flight than when the array was made.
#if defined(__cpp_lib_uncaught_exceptions) && __cpp_lib_uncaught_exceptions >= 201411L
inline int uncaught() { return std::uncaught_exceptions(); }
#else
inline int uncaught() { return std::uncaught_exception() ? 1 : 0; }  // before C++17
#endif

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
  /** Collective (as destroy()); a failure here cannot throw and is ignored.
   *  Not while an exception unwinds: when more exceptions are in flight on this thread
   *  than when the array was made (std::uncaught_exceptions()), the destructor skips the
   *  collective free and leaks the array (its memory stays allocated until dart_exit),
   *  because an exception is usually thrown on one unit only and a collective there would
   *  wait forever for the others; the handler can then end the job (dart_abort) or, if
   *  every unit threw alike, carry on. Call destroy() to free an array during unwinding
   *  on purpose. (Before C++17: while any exception is in flight.) */
  ~Array() {
    if (a_ != DART_ARRAY_NULL && detail::uncaught() <= uncaught_) dart_array_destroy(&a_);
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

  /** The type of sum() and dot(): int64_t (signed integers), uint64_t (unsigned), else T. */
  typedef typename detail::sum_type<T>::type sum_type;

  /** Collective: the sum of the interior points (dart_array_reduce, DART_OP_SUM), the
   *  same on every unit, in dart_array.h's fixed order. */
  sum_type sum() const {
    sum_type r{};
    detail::check(dart_array_reduce(a_, DART_OP_SUM, &r), "dart_array_reduce");
    return r;
  }
  /** Collective: the smallest and the largest interior point (NaN if there is one); not
   *  for complex numbers (no order). */
  T min() const { return extreme(DART_OP_MIN); }
  T max() const { return extreme(DART_OP_MAX); }
  /** Collective: a norm of the interior points in double (dart_array_norm). */
  double norm(dart_array_norm_t kind = DART_ARRAY_NORM_2) const {
    double r = 0;
    detail::check(dart_array_norm(a_, kind, &r), "dart_array_norm");
    return r;
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
  T extreme(dart_operation_t op) const {
    static_assert(!detail::is_complex<T>::value, "complex numbers have no order: no min/max");
    T r{};
    detail::check(dart_array_reduce(a_, op, &r), "dart_array_reduce");
    return r;
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
  int uncaught_ = detail::uncaught();  // exceptions in flight when this object was made
};

/** Collective: the dot product of two arrays of one distribution (dart_array_dot): for
 *  complex numbers the sum of conj(a_i) * b_i (as numpy.vdot), else the sum of a_i * b_i,
 *  in Array<T>::sum_type, the same on every unit. */
template <typename T>
typename Array<T>::sum_type dot(const Array<T> &a, const Array<T> &b) {
  typename Array<T>::sum_type r{};
  detail::check(dart_array_dot(a.handle(), b.handle(), &r), "dart_array_dot");
  return r;
}

}  // namespace dart

#endif  // DART_ARRAY_HPP_INCLUDED
