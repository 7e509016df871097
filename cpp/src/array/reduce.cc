// SPDX-License-Identifier: BSD-3-Clause
// Collective reductions of distributed arrays (dart_array.h): sum, min and max per
// component, the norms 1, 2 and inf, and the dot product of two arrays of one
// distribution, over the interiors (never the ghosts), in one fixed order:
//
//   1. each unit reduces its block's interior in C index order (the last index fastest)
//      into a partial of the accumulator type (double for float, uint64 bits for the
//      integers, ...), starting from its first value;
//   2. one allgather of every unit's record (a status, a key naming the call, the partial)
//      over the array's team;
//   3. every unit combines the partials in team-unit order (0, 1, ...) and rounds once to
//      the result type.
//
// So the result is the same bits on every unit and in every language (the bindings call
// these functions), whatever MPI's reduction order. This file is compiled with
// -ffp-contract=off (CMakeLists.txt): no fused multiply-add changes the documented order.
//
// A unit whose own arguments are bad (a NULL result, an unknown operation, ...) still
// takes part in the one allgather with a failed status, so that no unit waits; every unit
// then fails through agree() (array.h). Only DART_ARRAY_NULL returns at once: it names no
// team.
#include "array.h"

#include <cinttypes>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace dart {
namespace array {
namespace {

// What a call computes (the key every unit gathers: kind << 32 | argument).
enum class Kind : uint32_t { Sum = 1, Min, Max, Norm, Dot };

// Bytes per partial value: the largest accumulator (long double).
constexpr size_t kSlot = sizeof(long double) > 8 ? sizeof(long double) : 8;
static_assert(sizeof(long long) == 8 && sizeof(unsigned long long) == 8,
              "the integer sums are DART_TYPE_LONGLONG / _ULONGLONG of 64 bits");

// The head of a unit's gathered record; kSlot-byte values follow.
struct Head {
  uint64_t failed;  // 0: the local steps succeeded
  uint64_t key;
};

template <class E>
struct Tag {
  using type = E;
};

// Calls v(Tag<ctype>{}) for the basic type t (a basic type: decomp_build checked it).
template <class V>
void visit_type(dart_datatype_t t, V &&v) {
  switch (t) {
#define DART_X_REDUCE_VISIT_(name, ctype, ...) \
  case DART_TYPE_##name: v(Tag<ctype>{}); return;
    DART_BASIC_TYPE_LIST(DART_X_REDUCE_VISIT_)
#undef DART_X_REDUCE_VISIT_
    default: return;
  }
}

bool is_floating(dart_datatype_t t) {
  return t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE || t == DART_TYPE_LONG_DOUBLE;
}

// The sums of a type E: accumulated in A, returned as R (dart_array.h, "Result types").
// The signed integers add their two's complement bits as uint64 (wrap-around as NumPy's
// int64, without the undefined behaviour of a signed overflow).
template <class E, class = void>
struct Num;
template <class E>
struct Num<E, std::enable_if_t<std::is_integral<E>::value && std::is_signed<E>::value>> {
  using A = uint64_t;
  using R = int64_t;
  static constexpr dart_datatype_t kType = DART_TYPE_LONGLONG;
  static A in(E x) { return (A)(int64_t)x; }
  static R out(A a) {
    R r;
    std::memcpy(&r, &a, sizeof r);
    return r;
  }
};
template <class E>
struct Num<E, std::enable_if_t<std::is_integral<E>::value && std::is_unsigned<E>::value>> {
  using A = uint64_t;
  using R = uint64_t;
  static constexpr dart_datatype_t kType = DART_TYPE_ULONGLONG;
  static A in(E x) { return (A)x; }
  static R out(A a) { return a; }
};
template <>
struct Num<float> {
  using A = double;
  using R = float;
  static constexpr dart_datatype_t kType = DART_TYPE_FLOAT;
  static A in(float x) { return (A)x; }
  static R out(A a) { return (R)a; }
};
template <>
struct Num<double> {
  using A = double;
  using R = double;
  static constexpr dart_datatype_t kType = DART_TYPE_DOUBLE;
  static A in(double x) { return x; }
  static R out(A a) { return a; }
};
template <>
struct Num<long double> {
  using A = long double;
  using R = long double;
  static constexpr dart_datatype_t kType = DART_TYPE_LONG_DOUBLE;
  static A in(long double x) { return x; }
  static R out(A a) { return a; }
};

template <class E>
bool is_nan(E x) {
  if constexpr (std::is_floating_point<E>::value)
    return std::isnan(x);
  else
    return false;
}

// min (want_max false) or max of m and x, NaN winning (as NumPy's minimum/maximum): the
// first NaN met stays; on a tie the first value stays.
template <class E>
E pick(E m, E x, bool want_max) {
  if (is_nan(m)) return m;
  if (is_nan(x)) return x;
  return (want_max ? m < x : x < m) ? x : m;
}

// max of two magnitudes, NaN winning.
double max_nan(double m, double x) {
  if (std::isnan(m)) return m;
  if (std::isnan(x)) return x;
  return m < x ? x : m;
}

// The interior rows of a unit's block (the last dimension's interior extent, contiguous)
// in C order: row() is the first point of the current row, next() moves on.
class Rows {
 public:
  explicit Rows(const dart_array_struct *a)
      : base_(static_cast<const char *>(a->local)), point_(a->point_size), nd_(a->dc.ndim) {
    strides_ = c_strides(nd_, a->local_shape);
    for (int d = 0; d < nd_; ++d) {
      ext_[d] = a->hi[d] - a->lo[d];
      halo_[d] = a->dc.halo_lo[d];
    }
    n_ = ext_[nd_ - 1];
    rows_ = 1;
    for (int d = 0; d < nd_ - 1; ++d) rows_ *= ext_[d];
  }
  int64_t rows() const { return rows_; }
  int64_t points() const { return n_; }  // per row
  size_t point_size() const { return point_; }
  const char *row() const {
    int64_t off = 0;
    for (int d = 0; d < nd_; ++d) off += (idx_[d] + halo_[d]) * strides_[d];
    return base_ + off * (int64_t)point_;
  }
  void next() {
    for (int d = nd_ - 2; d >= 0; --d) {
      if (++idx_[d] < ext_[d]) return;
      idx_[d] = 0;
    }
  }

 private:
  const char *base_;
  size_t point_;
  int nd_;
  Index strides_{}, ext_{}, halo_{}, idx_{};
  int64_t n_ = 0, rows_ = 0;
};

// Walks the interior of a (and the same points of b, if given) in C order:
// k.first(p, q) for the first point, k.add(p, q) for every other (p, q: the points'
// first elements; q is nullptr without b).
template <class K>
void walk(const dart_array_struct *a, const dart_array_struct *b, K &k) {
  Rows ra(a), rb(b != nullptr ? b : a);
  const int64_t n = ra.points();
  const size_t ps = ra.point_size(), qs = rb.point_size();
  for (int64_t r = 0; r < ra.rows(); ++r, ra.next(), rb.next()) {
    const char *p = ra.row();
    const char *q = b != nullptr ? rb.row() : nullptr;
    int64_t i = 0;
    if (r == 0) {
      k.first(p, q);
      i = 1;
    }
    for (; i < n; ++i) k.add(p + i * (int64_t)ps, q != nullptr ? q + i * (int64_t)qs : nullptr);
  }
}

template <class T>
T load(const char *p, size_t k = 0) {
  T x;
  std::memcpy(&x, p + k * sizeof(T), sizeof x);
  return x;
}

template <class T>
void store(char *slots, size_t k, T x) {
  std::memcpy(slots + k * kSlot, &x, sizeof x);
}

template <class T>
T slot(const char *slots, size_t k) {
  T x;
  std::memcpy(&x, slots + k * kSlot, sizeof x);
  return x;
}

// ---- the kernels: a partial per unit, the combination in unit order ------------------
// Each has first/add (walk), put (the partial into the record's slots) and, static,
// combine (the records of every unit in unit order into the result).

// DART_OP_SUM: per component, in the accumulator type.
template <class E>
struct SumK {
  using A = typename Num<E>::A;
  using R = typename Num<E>::R;
  int comps;
  std::vector<A> acc;
  explicit SumK(int c) : comps(c), acc((size_t)c) {}
  void first(const char *p, const char *) {
    for (int c = 0; c < comps; ++c) acc[(size_t)c] = Num<E>::in(load<E>(p, (size_t)c));
  }
  void add(const char *p, const char *) {
    for (int c = 0; c < comps; ++c) acc[(size_t)c] += Num<E>::in(load<E>(p, (size_t)c));
  }
  void put(char *slots) const {
    for (int c = 0; c < comps; ++c) store(slots, (size_t)c, acc[(size_t)c]);
  }
  static void combine(const std::vector<const char *> &parts, int comps, void *result) {
    for (int c = 0; c < comps; ++c) {
      A t = slot<A>(parts[0], (size_t)c);
      for (size_t u = 1; u < parts.size(); ++u) t += slot<A>(parts[u], (size_t)c);
      const R r = Num<E>::out(t);
      std::memcpy(static_cast<char *>(result) + (size_t)c * sizeof(R), &r, sizeof r);
    }
  }
};

// DART_OP_MIN / DART_OP_MAX: per component, in the element type, NaN winning.
template <class E>
struct MinMaxK {
  int comps;
  bool want_max;
  std::vector<E> m;
  MinMaxK(int c, bool mx) : comps(c), want_max(mx), m((size_t)c) {}
  void first(const char *p, const char *) {
    for (int c = 0; c < comps; ++c) m[(size_t)c] = load<E>(p, (size_t)c);
  }
  void add(const char *p, const char *) {
    for (int c = 0; c < comps; ++c)
      m[(size_t)c] = pick(m[(size_t)c], load<E>(p, (size_t)c), want_max);
  }
  void put(char *slots) const {
    for (int c = 0; c < comps; ++c) store(slots, (size_t)c, m[(size_t)c]);
  }
  static void combine(const std::vector<const char *> &parts, int comps, bool want_max,
                      void *result) {
    for (int c = 0; c < comps; ++c) {
      E t = slot<E>(parts[0], (size_t)c);
      for (size_t u = 1; u < parts.size(); ++u) t = pick(t, slot<E>(parts[u], (size_t)c), want_max);
      std::memcpy(static_cast<char *>(result) + (size_t)c * sizeof(E), &t, sizeof t);
    }
  }
};

// The norms, in double: a point's magnitude is |x| (one component), |z| = hypot(re, im)
// (complex) or the Euclidean length sqrt(sum of x_c^2 in component order) (a vector
// field); norm 1 sums the magnitudes, norm inf takes their largest, norm 2 sums the
// squares (x^2, re^2 + im^2, sum of x_c^2) and takes the root at the end.
template <class E>
struct NormK {
  int comps;
  bool complex;
  dart_array_norm_t kind;
  double acc = 0;
  NormK(int c, bool z, dart_array_norm_t k) : comps(c), complex(z), kind(k) {}
  double square(const char *p) const {
    if (comps == 1) {
      const double x = (double)load<E>(p);
      return x * x;
    }
    if (complex) {
      const double re = (double)load<E>(p, 0), im = (double)load<E>(p, 1);
      return re * re + im * im;
    }
    double s = 0;
    for (int c = 0; c < comps; ++c) {
      const double x = (double)load<E>(p, (size_t)c);
      s += x * x;
    }
    return s;
  }
  double magnitude(const char *p) const {
    if (comps == 1) return std::fabs((double)load<E>(p));
    if (complex) return std::hypot((double)load<E>(p, 0), (double)load<E>(p, 1));
    return std::sqrt(square(p));
  }
  double term(const char *p) const { return kind == DART_ARRAY_NORM_2 ? square(p) : magnitude(p); }
  void first(const char *p, const char *) { acc = term(p); }
  void add(const char *p, const char *) {
    if (kind == DART_ARRAY_NORM_INF)
      acc = max_nan(acc, magnitude(p));
    else
      acc += term(p);
  }
  void put(char *slots) const { store(slots, 0, acc); }
  static double combine(const std::vector<const char *> &parts, dart_array_norm_t kind) {
    double t = slot<double>(parts[0], 0);
    for (size_t u = 1; u < parts.size(); ++u) {
      const double x = slot<double>(parts[u], 0);
      t = kind == DART_ARRAY_NORM_INF ? max_nan(t, x) : t + x;
    }
    return kind == DART_ARRAY_NORM_2 ? std::sqrt(t) : t;
  }
};

// The dot product in the accumulator type: sum of conj(a_i) * b_i over the points
// (complex: the point's product (ar*br + ai*bi) + i (ar*bi - ai*br), then added), or the
// sum of a * b over the points and their components in order (one value).
template <class E>
struct DotK {
  using A = typename Num<E>::A;
  using R = typename Num<E>::R;
  int comps;
  bool complex;
  A re = 0, im = 0;
  DotK(int c, bool z) : comps(c), complex(z) {}
  void first(const char *p, const char *q) {
    if (complex) {
      point(p, q, &re, &im);
      return;
    }
    re = Num<E>::in(load<E>(p)) * Num<E>::in(load<E>(q));
    for (int c = 1; c < comps; ++c)
      re += Num<E>::in(load<E>(p, (size_t)c)) * Num<E>::in(load<E>(q, (size_t)c));
  }
  void add(const char *p, const char *q) {
    if (complex) {
      A r, i;
      point(p, q, &r, &i);
      re += r;
      im += i;
      return;
    }
    for (int c = 0; c < comps; ++c)
      re += Num<E>::in(load<E>(p, (size_t)c)) * Num<E>::in(load<E>(q, (size_t)c));
  }
  static void point(const char *p, const char *q, A *r, A *i) {
    const A ar = Num<E>::in(load<E>(p, 0)), ai = Num<E>::in(load<E>(p, 1));
    const A br = Num<E>::in(load<E>(q, 0)), bi = Num<E>::in(load<E>(q, 1));
    *r = ar * br + ai * bi;
    *i = ar * bi - ai * br;
  }
  void put(char *slots) const {
    store(slots, 0, re);
    if (complex) store(slots, 1, im);
  }
  static void combine(const std::vector<const char *> &parts, bool complex, void *result) {
    const int n = complex ? 2 : 1;
    for (int c = 0; c < n; ++c) {
      A t = slot<A>(parts[0], (size_t)c);
      for (size_t u = 1; u < parts.size(); ++u) t += slot<A>(parts[u], (size_t)c);
      const R r = Num<E>::out(t);
      std::memcpy(static_cast<char *>(result) + (size_t)c * sizeof(R), &r, sizeof r);
    }
  }
};

// ---- the collective frame --------------------------------------------------------------

const char *op_name(dart_operation_t op) {
  switch (op) {
#define DART_X_REDUCE_OP_NAME_(name, ...) \
  case DART_OP_##name: return "DART_OP_" #name;
    DART_OPERATION_LIST(DART_X_REDUCE_OP_NAME_)
#undef DART_X_REDUCE_OP_NAME_
    default: return nullptr;
  }
}

std::string describe_key(uint64_t key) {
  const uint32_t arg = (uint32_t)(key & 0xffffffffu);
  switch ((Kind)(key >> 32)) {
    case Kind::Sum:
    case Kind::Min:
    case Kind::Max: {
      const char *name = op_name((dart_operation_t)arg);
      return std::string("operation ") + (name ? name : std::to_string(arg).c_str());
    }
    case Kind::Norm: return "norm kind " + std::to_string(arg);
    case Kind::Dot: return "dot";
  }
  return "call " + std::to_string(key);
}

// The frame of every reduction: the local steps' outcome `local` (DART_OK or a failure
// whose detail is set), the partial (`compute` writes it into the slots of this unit's
// record, run only when local is DART_OK), one allgather of the records over a's team,
// then `finish` on the records in unit order, or every unit fails alike.
template <class Compute, class Finish>
dart_ret_t collective(const dart_array_struct *a, dart_ret_t local, uint64_t key, const char *fn,
                      Compute &&compute, Finish &&finish) {
  const size_t nslots = (size_t)(a->components > 2 ? a->components : 2);
  const size_t record = sizeof(Head) + nslots * kSlot;
  const size_t n = (size_t)a->dc.nunits;
  std::vector<char> mine(record, 0), all(record * n);
  if (local == DART_OK) compute(mine.data() + sizeof(Head));
  const Head head{local == DART_OK ? 0u : 1u, key};
  std::memcpy(mine.data(), &head, sizeof head);
  const std::string own = local == DART_OK ? "" : without_fn(dart_error_detail(), fn);
  DART_ARRAY_TRY(dart_allgather(mine.data(), all.data(), record, DART_TYPE_BYTE, a->team), fn);
  std::vector<const char *> parts(n);
  bool agreed = true;
  for (size_t u = 0; u < n; ++u) {
    Head h;
    std::memcpy(&h, all.data() + u * record, sizeof h);
    agreed = agreed && h.failed == 0 && h.key == key;
    parts[u] = all.data() + u * record + sizeof(Head);
  }
  if (!agreed) {
    // Every unit saw the same records, so every unit gets here: agree() shares the
    // failing unit's message (or the two differing calls) and fails on every unit.
    if (local != DART_OK) fail(local, fn, "%s", own.c_str());  // the detail agree() reads
    const dart_ret_t rc = agree(a->team, local, key, [&] { return describe_key(key); }, fn);
    // Not reached with DART_OK (the records disagree); never report success.
    return rc != DART_OK ? rc : fail(DART_ERR_OTHER, fn, "the units' records disagree");
  }
  finish(parts);
  return DART_OK;
}

dart_ret_t check_array(const dart_array_struct *a, const char *fn) {
  if (a == nullptr) return fail(DART_ERR_INVAL, fn, "array is DART_ARRAY_NULL");
  return DART_OK;
}

bool is_complex(const dart_array_struct *a) { return a->components == 2 && is_floating(a->dtype); }

// The type and count of the result of op (DART_OK), or the refusal (detail set).
dart_ret_t reduce_type(const dart_array_struct *a, dart_operation_t op, dart_datatype_t *type,
                       int32_t *count, const char *fn) {
  if (op != DART_OP_SUM && op != DART_OP_MIN && op != DART_OP_MAX) {
    const char *name = op_name(op);
    return fail(DART_ERR_INVAL, fn,
                "operation %s%s%d is not a reduction of an array: DART_OP_SUM, DART_OP_MIN or "
                "DART_OP_MAX",
                name != nullptr ? name : "", name != nullptr ? " = " : "", (int)op);
  }
  if (op != DART_OP_SUM && is_complex(a))
    return fail(DART_ERR_INVAL, fn,
                "%s of an array of complex numbers (%s with 2 components): complex numbers "
                "have no order",
                op_name(op), basic_type_name(a->dtype).c_str());
  dart_datatype_t t = a->dtype;
  if (op == DART_OP_SUM)
    visit_type(a->dtype, [&](auto tag) { t = Num<typename decltype(tag)::type>::kType; });
  *type = t;
  *count = a->components;
  return DART_OK;
}

std::string list_of(const int64_t *v, int n) {
  std::string s = "[";
  for (int d = 0; d < n; ++d) s += (d ? ", " : "") + std::to_string((long long)v[d]);
  return s + "]";
}

// Whether b has a's distribution, decided from what every unit knows alike (so every
// unit answers the same without communication); else the refusal naming the difference.
dart_ret_t same_distribution(const dart_array_struct *a, const dart_array_struct *b,
                             const char *fn) {
  const Decomp &x = a->dc, &y = b->dc;
  if (a->team != b->team)
    return fail(DART_ERR_INVAL, fn, "a and b are distributed over different teams: %d and %d",
                (int)a->team, (int)b->team);
  if (x.ndim != y.ndim)
    return fail(DART_ERR_INVAL, fn, "a and b have different numbers of dimensions: %d and %d",
                x.ndim, y.ndim);
  for (int d = 0; d < x.ndim; ++d)
    if (x.shape[d] != y.shape[d])
      return fail(DART_ERR_INVAL, fn, "a and b have different shapes: %s and %s",
                  list_of(x.shape.data(), x.ndim).c_str(), list_of(y.shape.data(), y.ndim).c_str());
  if (a->dtype != b->dtype || a->components != b->components)
    return fail(DART_ERR_INVAL, fn,
                "a and b have different point types: %s x %d and %s x %d (components)",
                basic_type_name(a->dtype).c_str(), a->components, basic_type_name(b->dtype).c_str(),
                b->components);
  for (int d = 0; d < x.ndim; ++d)
    if (x.procs[d] != y.procs[d]) {
      int64_t pa[kMaxDims], pb[kMaxDims];
      for (int k = 0; k < x.ndim; ++k) {
        pa[k] = x.procs[k];
        pb[k] = y.procs[k];
      }
      return fail(DART_ERR_INVAL, fn, "a and b have different process grids: %s and %s",
                  list_of(pa, x.ndim).c_str(), list_of(pb, x.ndim).c_str());
    }
  for (int d = 0; d < x.ndim; ++d)
    if (x.starts[d] != y.starts[d]) {
      for (int c = 0; c < x.procs[d]; ++c)
        if (x.start(d, c) != y.start(d, c) || x.extent(d, c) != y.extent(d, c))
          return fail(DART_ERR_INVAL, fn,
                      "a and b have different blocks: grid coordinate %d of dimension %d holds "
                      "[%" PRId64 ", %" PRId64 ") of a and [%" PRId64 ", %" PRId64 ") of b",
                      c, d, x.start(d, c), x.start(d, c + 1), y.start(d, c), y.start(d, c + 1));
    }
  return DART_OK;
}

}  // namespace
}  // namespace array
}  // namespace dart

using namespace dart::array;

extern "C" {

dart_ret_t dart_array_reduce_type(dart_array_t a, dart_operation_t op, dart_datatype_t *type,
                                  int32_t *count) {
  const char *fn = "dart_array_reduce_type";
  DART_TRY(check_array(a, fn));
  if (type == nullptr || count == nullptr) return fail(DART_ERR_INVAL, fn, "type or count is NULL");
  return reduce_type(a, op, type, count, fn);
}

dart_ret_t dart_array_reduce(dart_array_t a, dart_operation_t op, void *result) {
  const char *fn = "dart_array_reduce";
  DART_TRY(check_array(a, fn));
  dart_datatype_t type = DART_TYPE_UNDEFINED;
  int32_t count = 0;
  dart_ret_t local = reduce_type(a, op, &type, &count, fn);
  if (local == DART_OK && result == nullptr) local = fail(DART_ERR_INVAL, fn, "result is NULL");
  const Kind kind = op == DART_OP_SUM ? Kind::Sum : op == DART_OP_MIN ? Kind::Min : Kind::Max;
  const uint64_t key = ((uint64_t)kind << 32) | (uint32_t)op;
  const int comps = a->components;
  return collective(
      a, local, key, fn,
      [&](char *slots) {
        visit_type(a->dtype, [&](auto tag) {
          using E = typename decltype(tag)::type;
          if (kind == Kind::Sum) {
            SumK<E> k(comps);
            walk(a, nullptr, k);
            k.put(slots);
          } else {
            MinMaxK<E> k(comps, kind == Kind::Max);
            walk(a, nullptr, k);
            k.put(slots);
          }
        });
      },
      [&](const std::vector<const char *> &parts) {
        visit_type(a->dtype, [&](auto tag) {
          using E = typename decltype(tag)::type;
          if (kind == Kind::Sum)
            SumK<E>::combine(parts, comps, result);
          else
            MinMaxK<E>::combine(parts, comps, kind == Kind::Max, result);
        });
      });
}

dart_ret_t dart_array_norm(dart_array_t a, dart_array_norm_t kind_arg, double *result) {
  const char *fn = "dart_array_norm";
  // The value as an int: an out-of-range value must not be read as the enum (UBSan).
  int raw = 0;
  std::memcpy(&raw, &kind_arg, sizeof raw < sizeof kind_arg ? sizeof raw : sizeof kind_arg);
  const bool valid = raw == DART_ARRAY_NORM_1 || raw == DART_ARRAY_NORM_2 ||
                     raw == DART_ARRAY_NORM_INF;
  const dart_array_norm_t kind = valid ? static_cast<dart_array_norm_t>(raw) : DART_ARRAY_NORM_2;
  DART_TRY(check_array(a, fn));
  dart_ret_t local = DART_OK;
  if (!valid)
    local = fail(DART_ERR_INVAL, fn,
                 "kind %d is not a norm: DART_ARRAY_NORM_1, DART_ARRAY_NORM_2 or "
                 "DART_ARRAY_NORM_INF",
                 raw);
  else if (result == nullptr)
    local = fail(DART_ERR_INVAL, fn, "result is NULL");
  const uint64_t key = ((uint64_t)Kind::Norm << 32) | (uint32_t)raw;
  return collective(
      a, local, key, fn,
      [&](char *slots) {
        visit_type(a->dtype, [&](auto tag) {
          NormK<typename decltype(tag)::type> k(a->components, is_complex(a), kind);
          walk(a, nullptr, k);
          k.put(slots);
        });
      },
      [&](const std::vector<const char *> &parts) {
        // The type does not matter here: every partial is a double.
        *result = NormK<double>::combine(parts, kind);
      });
}

dart_ret_t dart_array_dot(dart_array_t a, dart_array_t b, void *result) {
  const char *fn = "dart_array_dot";
  DART_TRY(check_array(a, fn));
  dart_ret_t local = DART_OK;
  if (b == DART_ARRAY_NULL)
    local = fail(DART_ERR_INVAL, fn, "b is DART_ARRAY_NULL");
  else if (result == nullptr)
    local = fail(DART_ERR_INVAL, fn, "result is NULL");
  else
    local = same_distribution(a, b, fn);
  const uint64_t key = (uint64_t)Kind::Dot << 32;
  const bool complex = is_complex(a);
  return collective(
      a, local, key, fn,
      [&](char *slots) {
        visit_type(a->dtype, [&](auto tag) {
          DotK<typename decltype(tag)::type> k(a->components, complex);
          walk(a, b, k);
          k.put(slots);
        });
      },
      [&](const std::vector<const char *> &parts) {
        visit_type(a->dtype, [&](auto tag) {
          DotK<typename decltype(tag)::type>::combine(parts, complex, result);
        });
      });
}

}  // extern "C"
