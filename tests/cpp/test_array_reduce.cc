// SPDX-License-Identifier: BSD-3-Clause
// dart-test: UNITS 1 2 4 UPN none 1 NO_FAKE_HOSTS
// (CI time: the Python scenario test_array_numpy.py adds 3 units at DART_UNITS_PER_NODE=2)
// Reductions of distributed arrays (dart_array.h, issue 37): sum, min, max, the three norms
// and the dot product of every basic type, complex numbers and a vector field, on arrays
// of 1-3 dimensions with ghosts (filled with poison: a ghost read shows), default and
// uneven blocks, against a serial computation of the same numbers in the documented
// order (every unit's block in C order from its first value, then the partials in unit
// order): bitwise. NaN, the result types, the C++ methods, and every refusal on every
// unit (the same code everywhere, nobody left waiting).
#include "dart_test.h"

#include <dash/dart/if/dart_array.h>
#include <dash/dart/if/dart_array.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

using namespace dtest;

namespace {

// ---- the arrays --------------------------------------------------------------------------

struct Layout {
  const char *what;
  int ndim;
  int64_t shape[3];
  int halo;
  bool uneven;  // given blocks along dimension 0 (procs [n, 1, ..]): the first is the largest
};

// Every layout has at least as many points as units in each dimension it splits.
const Layout kLayouts[] = {
    {"1d", 1, {13, 0, 0}, 1, false},
    {"2d", 2, {7, 5, 0}, 2, false},
    {"2d-uneven", 2, {9, 4, 0}, 1, true},
    {"3d", 3, {5, 4, 3}, 1, false},
};

dart_array_t make(const Layout &l, dart_datatype_t t, int comps) {
  dart_array_spec_t s;
  dart_array_spec_init(&s);
  s.ndim = l.ndim;
  s.dtype = t;
  s.components = comps;
  std::vector<int64_t> blocks;
  for (int d = 0; d < l.ndim; ++d) {
    s.shape[d] = l.shape[d];
    s.halo_lo[d] = s.halo_hi[d] = l.halo;
  }
  if (l.uneven) {
    const int n = nunits();
    s.procs[0] = n;
    for (int d = 1; d < l.ndim; ++d) s.procs[d] = 1;
    blocks.assign((size_t)n, 1);
    blocks[0] = l.shape[0] - (n - 1);
    for (int d = 1; d < l.ndim; ++d) blocks.push_back(l.shape[d]);
    s.blocks = blocks.data();
  }
  dart_array_t a = DART_ARRAY_NULL;
  dart_array_create(&s, &a);
  return a;
}

// The value of component c of global point `lin`: full-range bits for the integers (sums
// wrap), exact fractions k / 7 of either sign for the floating types.
template <class E>
E value(int64_t lin, int c) {
  if constexpr (std::is_integral<E>::value) {
    uint64_t bits = (uint64_t)lin * 0x9E3779B97F4A7C15ull + (uint64_t)c * 0xBF58476D1CE4E5B9ull;
    bits ^= bits >> 29;
    E x;
    std::memcpy(&x, &bits, sizeof x);  // the low bytes (little-endian)
    return x;
  } else {
    const int64_t k = (lin * 31 + c * 17) % 1000 - 500;
    return (E)((long double)k / 7.0L);
  }
}

// Poison for the ghosts: a ghost read shows in every result.
template <class E>
E poison() {
  if constexpr (std::is_integral<E>::value)
    return std::numeric_limits<E>::max();
  else
    return std::numeric_limits<E>::quiet_NaN();
}

// Walks this unit's block with ghosts: fn(point pointer, linear global index, inside).
template <class E, class F>
void for_each_local(dart_array_t a, F &&fn) {
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  int64_t total = 1;
  for (int d = 0; d < in.ndim; ++d) total *= in.local_shape[d];
  E *p = static_cast<E *>(in.local);
  for (int64_t off = 0; off < total; ++off) {
    int64_t rest = off, lin = 0, mul = 1;
    bool inside = true;
    for (int d = in.ndim - 1; d >= 0; --d) {
      const int64_t g = in.lo[d] - in.halo_lo[d] + rest % in.local_shape[d];
      rest /= in.local_shape[d];
      inside = inside && g >= in.lo[d] && g < in.hi[d];
      lin += g * mul;
      mul *= in.shape[d];
    }
    fn(p + off * in.components, lin, inside);
  }
}

// Interior: value(lin + shift, c) (optionally a NaN at global point nan_at); ghosts: poison.
template <class E>
void fill(dart_array_t a, int64_t shift = 0, int64_t nan_at = -1) {
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  for_each_local<E>(a, [&](E *p, int64_t lin, bool inside) {
    for (int c = 0; c < in.components; ++c) p[c] = inside ? value<E>(lin + shift, c) : poison<E>();
    if (inside && lin == nan_at) p[0] = std::numeric_limits<E>::quiet_NaN();
  });
}

// Every unit's block in unit order, its points in C order: fn(unit, lin, first of block).
template <class F>
void serial_order(dart_array_t a, F &&fn) {
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  for (int u = 0; u < in.nunits; ++u) {
    int64_t lo[DART_ARRAY_MAX_DIMS], hi[DART_ARRAY_MAX_DIMS];
    dart_array_block(a, u, lo, hi);
    int64_t idx[DART_ARRAY_MAX_DIMS];
    int64_t n = 1;
    for (int d = 0; d < in.ndim; ++d) n *= hi[d] - lo[d];
    for (int64_t k = 0; k < n; ++k) {
      int64_t rest = k, lin = 0, mul = 1;
      for (int d = in.ndim - 1; d >= 0; --d) {
        idx[d] = lo[d] + rest % (hi[d] - lo[d]);
        rest /= hi[d] - lo[d];
      }
      for (int d = in.ndim - 1; d >= 0; --d) {
        lin += idx[d] * mul;
        mul *= in.shape[d];
      }
      fn(u, lin, k == 0);
    }
  }
}

// ---- the reference: the documented rules, written again ------------------------------

template <class E>
using Acc = std::conditional_t<std::is_integral<E>::value, uint64_t,
                               std::conditional_t<std::is_same<E, float>::value, double, E>>;
template <class E>
using Res = std::conditional_t<std::is_integral<E>::value,
                               std::conditional_t<std::is_signed<E>::value, int64_t, uint64_t>, E>;

template <class E>
Acc<E> acc(E x) {
  if constexpr (std::is_integral<E>::value)
    return (uint64_t)(int64_t)x;  // sign-extended bits (unsigned: zero-extended)
  else
    return (Acc<E>)x;
}
template <class E>
Res<E> res(Acc<E> a) {
  Res<E> r;
  if constexpr (std::is_integral<E>::value)
    std::memcpy(&r, &a, sizeof r);
  else
    r = (Res<E>)a;
  return r;
}

template <class E>
bool isnan_(E x) {
  if constexpr (std::is_floating_point<E>::value)
    return std::isnan(x);
  else
    return false;
}
template <class E>
E pick(E m, E x, bool mx) {
  if (isnan_(m)) return m;
  if (isnan_(x)) return x;
  return (mx ? m < x : x < m) ? x : m;
}
double max_nan(double m, double x) {
  if (std::isnan(m)) return m;
  if (std::isnan(x)) return x;
  return m < x ? x : m;
}

// value() with the NaN of fill().
template <class E>
E val(int64_t lin, int c, int64_t shift, int64_t nan_at) {
  if (lin == nan_at && c == 0) return std::numeric_limits<E>::quiet_NaN();
  return value<E>(lin + shift, c);
}

template <class E>
std::vector<Res<E>> ref_sum(dart_array_t a, int comps, int64_t nan_at = -1) {
  std::vector<std::vector<Acc<E>>> parts;
  serial_order(a, [&](int u, int64_t lin, bool first) {
    if (first) parts.emplace_back(comps);
    for (int c = 0; c < comps; ++c) {
      const Acc<E> x = acc(val<E>(lin, c, 0, nan_at));
      if (first)
        parts[(size_t)u][(size_t)c] = x;
      else
        parts[(size_t)u][(size_t)c] += x;
    }
  });
  std::vector<Res<E>> r((size_t)comps);
  for (int c = 0; c < comps; ++c) {
    Acc<E> t = parts[0][(size_t)c];
    for (size_t u = 1; u < parts.size(); ++u) t += parts[u][(size_t)c];
    r[(size_t)c] = res<E>(t);
  }
  return r;
}

template <class E>
std::vector<E> ref_minmax(dart_array_t a, int comps, bool mx, int64_t nan_at = -1) {
  std::vector<std::vector<E>> parts;
  serial_order(a, [&](int u, int64_t lin, bool first) {
    if (first) parts.emplace_back(comps);
    for (int c = 0; c < comps; ++c) {
      const E x = val<E>(lin, c, 0, nan_at);
      parts[(size_t)u][(size_t)c] = first ? x : pick(parts[(size_t)u][(size_t)c], x, mx);
    }
  });
  std::vector<E> r((size_t)comps);
  for (int c = 0; c < comps; ++c) {
    E t = parts[0][(size_t)c];
    for (size_t u = 1; u < parts.size(); ++u) t = pick(t, parts[u][(size_t)c], mx);
    r[(size_t)c] = t;
  }
  return r;
}

template <class E>
double ref_norm(dart_array_t a, int comps, bool complex, dart_array_norm_t kind,
                int64_t nan_at = -1) {
  auto square = [&](int64_t lin) {
    if (comps == 1) {
      const double x = (double)val<E>(lin, 0, 0, nan_at);
      return x * x;
    }
    if (complex) {
      const double re = (double)val<E>(lin, 0, 0, nan_at), im = (double)val<E>(lin, 1, 0, nan_at);
      return re * re + im * im;
    }
    double s = 0;
    for (int c = 0; c < comps; ++c) {
      const double x = (double)val<E>(lin, c, 0, nan_at);
      s += x * x;
    }
    return s;
  };
  auto magnitude = [&](int64_t lin) {
    if (comps == 1) return std::fabs((double)val<E>(lin, 0, 0, nan_at));
    if (complex)
      return std::hypot((double)val<E>(lin, 0, 0, nan_at), (double)val<E>(lin, 1, 0, nan_at));
    return std::sqrt(square(lin));
  };
  std::vector<double> parts;
  serial_order(a, [&](int, int64_t lin, bool first) {
    const double t = kind == DART_ARRAY_NORM_2 ? square(lin) : magnitude(lin);
    if (first)
      parts.push_back(t);
    else if (kind == DART_ARRAY_NORM_INF)
      parts.back() = max_nan(parts.back(), t);
    else
      parts.back() += t;
  });
  double t = parts[0];
  for (size_t u = 1; u < parts.size(); ++u)
    t = kind == DART_ARRAY_NORM_INF ? max_nan(t, parts[u]) : t + parts[u];
  return kind == DART_ARRAY_NORM_2 ? std::sqrt(t) : t;
}

// dot(a, b) with b's values shifted by `shift` global points.
template <class E>
std::vector<Res<E>> ref_dot(dart_array_t a, int comps, bool complex, int64_t shift) {
  std::vector<std::vector<Acc<E>>> parts;
  serial_order(a, [&](int, int64_t lin, bool first) {
    if (first) parts.emplace_back(2, Acc<E>{});
    auto &p = parts.back();
    if (complex) {
      const Acc<E> ar = acc(value<E>(lin, 0)), ai = acc(value<E>(lin, 1));
      const Acc<E> br = acc(value<E>(lin + shift, 0)), bi = acc(value<E>(lin + shift, 1));
      const Acc<E> r = ar * br + ai * bi, i = ar * bi - ai * br;
      if (first) {
        p[0] = r;
        p[1] = i;
      } else {
        p[0] += r;
        p[1] += i;
      }
      return;
    }
    for (int c = 0; c < comps; ++c) {
      const Acc<E> x = acc(value<E>(lin, c)) * acc(value<E>(lin + shift, c));
      if (first && c == 0)
        p[0] = x;
      else
        p[0] += x;
    }
  });
  const int n = complex ? 2 : 1;
  std::vector<Res<E>> r((size_t)n);
  for (int c = 0; c < n; ++c) {
    Acc<E> t = parts[0][(size_t)c];
    for (size_t u = 1; u < parts.size(); ++u) t += parts[u][(size_t)c];
    r[(size_t)c] = res<E>(t);
  }
  return r;
}

// ---- comparisons -------------------------------------------------------------------------

// Bitwise equal (long double: its value bits, not the padding; NaN equals NaN).
template <class T>
bool same(const T &x, const T &y) {
  if constexpr (std::is_same<T, long double>::value) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return x == y && std::signbit(x) == std::signbit(y);
  } else {
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
}
template <class T>
bool same(const std::vector<T> &x, const std::vector<T> &y) {
  if (x.size() != y.size()) return false;
  for (size_t k = 0; k < x.size(); ++k)
    if (!same(x[k], y[k])) return false;
  return true;
}

// Whether every unit holds the same bytes. Collective.
bool same_everywhere(const void *p, size_t bytes) {
  std::vector<char> all(bytes * (size_t)nunits());
  dart_allgather(p, all.data(), bytes, DART_TYPE_BYTE, DART_TEAM_ALL);
  for (int u = 1; u < nunits(); ++u)
    if (std::memcmp(all.data(), all.data() + (size_t)u * bytes, bytes) != 0) return false;
  return true;
}

template <class T>
std::string show(const std::vector<T> &v) {
  std::ostringstream os;
  os.precision(20);
  for (const T &x : v) {
    if constexpr (sizeof(T) == 1)
      os << (int)x << " ";
    else
      os << x << " ";
  }
  return os.str();
}

bool floating(dart_datatype_t t) {
  return t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE || t == DART_TYPE_LONG_DOUBLE;
}

// The DART type of E (DART_TYPE_BYTE is signed char).
template <class E>
dart_datatype_t dtype_of() {
  if constexpr (std::is_same<E, signed char>::value)
    return DART_TYPE_BYTE;
  else
    return dart_type_of<E>::value;
}

// Every reduction of one point type over every layout, against the reference.
// all_layouts false: the uneven 2D layout only (given blocks, ghosts); every layout costs
// two array creations (four windows) and some 20 collective calls, which is what the
// oversubscribed placements pay for.
template <class E>
void check_type(int comps, bool all_layouts = false) {
  const dart_datatype_t t = dtype_of<E>();
  const bool complex = comps == 2 && floating(t);
  for (const Layout &l : kLayouts) {
    if (!all_layouts && !l.uneven) continue;
    SCOPED_TRACE(std::string(l.what) + " type " + std::to_string((int)t) + " x " +
                 std::to_string(comps));
    dart_array_t a = make(l, t, comps), b = make(l, t, comps);
    ASSERT_NE(a, DART_ARRAY_NULL);
    ASSERT_NE(b, DART_ARRAY_NULL);
    fill<E>(a);
    fill<E>(b, 3);
    dart_datatype_t rt;
    int32_t count = 0;
    DART_EXPECT_OK(dart_array_reduce_type(a, DART_OP_SUM, &rt, &count));
    EXPECT_EQ(count, comps);
    EXPECT_EQ(rt, std::is_integral<E>::value
                      ? (std::is_signed<E>::value ? DART_TYPE_LONGLONG : DART_TYPE_ULONGLONG)
                      : t);

    std::vector<Res<E>> s((size_t)comps);
    DART_EXPECT_OK(dart_array_reduce(a, DART_OP_SUM, s.data()));
    EXPECT_TRUE(same(s, ref_sum<E>(a, comps))) << show(s) << "vs " << show(ref_sum<E>(a, comps));

    if (!complex) {
      for (bool mx : {false, true}) {
        DART_EXPECT_OK(dart_array_reduce_type(a, mx ? DART_OP_MAX : DART_OP_MIN, &rt, &count));
        EXPECT_EQ(rt, t);
        std::vector<E> m((size_t)comps);
        DART_EXPECT_OK(dart_array_reduce(a, mx ? DART_OP_MAX : DART_OP_MIN, m.data()));
        EXPECT_TRUE(same(m, ref_minmax<E>(a, comps, mx)))
            << (mx ? "max " : "min ") << show(m) << "vs " << show(ref_minmax<E>(a, comps, mx));
      }
    }
    double norms[3] = {-1, -1, -1};
    for (dart_array_norm_t k : {DART_ARRAY_NORM_1, DART_ARRAY_NORM_2, DART_ARRAY_NORM_INF}) {
      double &r = norms[k - 1];
      DART_EXPECT_OK(dart_array_norm(a, k, &r));
      const double want = ref_norm<E>(a, comps, complex, k);
      EXPECT_TRUE(same(r, want)) << "norm " << k << ": " << r << " vs " << want;
    }
    std::vector<Res<E>> d(complex ? 2 : 1);
    DART_EXPECT_OK(dart_array_dot(a, b, d.data()));
    EXPECT_TRUE(same(d, ref_dot<E>(a, comps, complex, 3)))
        << show(d) << "vs " << show(ref_dot<E>(a, comps, complex, 3));
    // The same bytes on every unit (one collective for the sum, the norms and the dot;
    // long double: the value bytes only, the rest is padding).
    std::vector<char> mine;
    auto add = [&mine](const void *p, size_t n) {
      mine.insert(mine.end(), (const char *)p, (const char *)p + n);
    };
    const size_t value_bytes = std::is_same<Res<E>, long double>::value ? 10 : sizeof(Res<E>);
    for (const Res<E> &x : s) add(&x, value_bytes);
    for (const Res<E> &x : d) add(&x, value_bytes);
    add(norms, sizeof norms);
    EXPECT_TRUE(same_everywhere(mine.data(), mine.size()));
    DART_EXPECT_OK(dart_array_dot(a, a, d.data()));  // the same array twice
    EXPECT_TRUE(same(d, ref_dot<E>(a, comps, complex, 0)));
    dart_array_destroy(&b);
    dart_array_destroy(&a);
  }
}

}  // namespace

TEST(ArrayReduce, EveryBasicType) {
  check_type<signed char>(1);
  check_type<short>(1);
  check_type<int>(1);
  check_type<unsigned int>(1);
  check_type<long>(1);
  check_type<unsigned long>(1);
  check_type<long long>(1);
  check_type<unsigned long long>(1);
  check_type<float>(1);
  check_type<double>(1, true);
  check_type<long double>(1);
}

TEST(ArrayReduce, ComplexNumbers) {
  check_type<float>(2);
  check_type<double>(2, true);
  check_type<long double>(2);
}

TEST(ArrayReduce, VectorFields) {
  check_type<int>(3, true);  // sums, min, max per component; Euclidean lengths
  check_type<double>(3, true);
  check_type<short>(2);  // two integer components: a vector, not complex
  check_type<unsigned long long>(4);
}

// Sums wrap as two's complement int64 (NumPy's), and uint64 modulo 2^64: exact values.
TEST(ArrayReduce, IntegerSumsWrap) {
  dart_array_spec_t s;
  dart_array_spec_init(&s);
  s.ndim = 1;
  s.shape[0] = 2 * nunits();
  s.dtype = DART_TYPE_LONGLONG;
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  s.dtype = DART_TYPE_ULONGLONG;
  dart_array_t b = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &b));
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  for (int64_t i = 0; i < in.hi[0] - in.lo[0]; ++i)
    static_cast<long long *>(in.local)[i] = std::numeric_limits<long long>::max();
  dart_array_get_info(b, &in);
  for (int64_t i = 0; i < in.hi[0] - in.lo[0]; ++i)
    static_cast<unsigned long long *>(in.local)[i] = ~0ull;
  int64_t sa = 0;
  uint64_t sb = 0;
  DART_EXPECT_OK(dart_array_reduce(a, DART_OP_SUM, &sa));
  DART_EXPECT_OK(dart_array_reduce(b, DART_OP_SUM, &sb));
  // 2n * (2^63 - 1) mod 2^64 = -2n (n: units); 2n * (2^64 - 1) mod 2^64 = 2^64 - 2n
  EXPECT_EQ(sa, -2 * (int64_t)nunits());
  EXPECT_EQ(sb, 0ull - 2ull * (uint64_t)nunits());
  dart_array_destroy(&b);
  dart_array_destroy(&a);
}

// A NaN anywhere: min and max are NaN (as NumPy), and so are the sum and the norms.
TEST(ArrayReduce, NaNPropagates) {
  for (const Layout &l : kLayouts) {
    if (l.ndim == 1 || l.uneven) continue;  // 2D and 3D
    dart_array_t a = make(l, DART_TYPE_DOUBLE, 1), f = make(l, DART_TYPE_FLOAT, 1);
    int64_t total = 1;
    for (int d = 0; d < l.ndim; ++d) total *= l.shape[d];
    const int64_t at = total / 2;
    fill<double>(a, 0, at);
    fill<float>(f, 0, at);
    double lo = 0, hi = 0, sum = 0;
    float flo = 0, fhi = 0, fsum = 0;
    DART_EXPECT_OK(dart_array_reduce(a, DART_OP_MIN, &lo));
    DART_EXPECT_OK(dart_array_reduce(a, DART_OP_MAX, &hi));
    DART_EXPECT_OK(dart_array_reduce(a, DART_OP_SUM, &sum));
    DART_EXPECT_OK(dart_array_reduce(f, DART_OP_MIN, &flo));
    DART_EXPECT_OK(dart_array_reduce(f, DART_OP_MAX, &fhi));
    DART_EXPECT_OK(dart_array_reduce(f, DART_OP_SUM, &fsum));
    EXPECT_TRUE(std::isnan(lo) && std::isnan(hi) && std::isnan(sum)) << l.what;
    EXPECT_TRUE(std::isnan(flo) && std::isnan(fhi) && std::isnan(fsum)) << l.what;
    for (dart_array_norm_t k : {DART_ARRAY_NORM_1, DART_ARRAY_NORM_2, DART_ARRAY_NORM_INF}) {
      double r = 0;
      DART_EXPECT_OK(dart_array_norm(a, k, &r));
      EXPECT_TRUE(std::isnan(r)) << l.what << " norm " << k;
      EXPECT_TRUE(same(r, ref_norm<double>(a, 1, false, k, at)));
    }
    EXPECT_TRUE(same(std::vector<double>{lo}, ref_minmax<double>(a, 1, false, at)));
    EXPECT_TRUE(same(std::vector<double>{sum}, ref_sum<double>(a, 1, at)));
    dart_array_destroy(&f);
    dart_array_destroy(&a);
  }
}

// The sum of -0.0 alone is -0.0 (it starts from the first value, as NumPy's sum).
TEST(ArrayReduce, NegativeZeroSum) {
  dart_array_spec_t s;
  dart_array_spec_init(&s);
  s.ndim = 1;
  s.shape[0] = nunits();
  s.dtype = DART_TYPE_DOUBLE;
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  void *p = nullptr;
  dart_array_local(a, &p);
  *static_cast<double *>(p) = -0.0;
  double r = 1;
  DART_EXPECT_OK(dart_array_reduce(a, DART_OP_SUM, &r));
  EXPECT_TRUE(r == 0.0 && std::signbit(r));
  dart_array_destroy(&a);
}

// Refusals that every unit finds alike: every unit fails with the same code, nobody waits.
TEST(ArrayReduce, BadInputsFailOnEveryUnit) {
  dart_array_t a = make(kLayouts[1], DART_TYPE_DOUBLE, 1);
  dart_array_t z = make(kLayouts[1], DART_TYPE_DOUBLE, 2);
  fill<double>(a);
  double r[2] = {7, 7};
  auto detail_has = [](const char *text) {
    return std::string(dart_error_detail()).find(text) != std::string::npos;
  };
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(DART_ARRAY_NULL, DART_OP_SUM, r));
  EXPECT_TRUE(detail_has("DART_ARRAY_NULL"));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_norm(DART_ARRAY_NULL, DART_ARRAY_NORM_2, r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dot(DART_ARRAY_NULL, a, r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(a, DART_OP_SUM, nullptr));
  EXPECT_TRUE(detail_has("result is NULL"));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(a, DART_OP_PROD, r));
  EXPECT_TRUE(detail_has("DART_OP_PROD")) << dart_error_detail();
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(a, (dart_operation_t)999, r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(z, DART_OP_MIN, r));
  EXPECT_TRUE(detail_has("complex numbers have no order")) << dart_error_detail();
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(z, DART_OP_MAX, r));
  dart_datatype_t t;
  int32_t count;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce_type(z, DART_OP_MIN, &t, &count));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce_type(a, DART_OP_SUM, nullptr, &count));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_norm(a, (dart_array_norm_t)0, r));
  EXPECT_TRUE(detail_has("is not a norm"));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_norm(a, (dart_array_norm_t)4, r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_norm(a, DART_ARRAY_NORM_1, nullptr));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dot(a, DART_ARRAY_NULL, r));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dot(a, a, nullptr));
  // Nothing was written by a failure.
  EXPECT_EQ(r[0], 7);
  EXPECT_EQ(r[1], 7);
  // Still in step: a good call after all of them.
  double s = 0;
  DART_EXPECT_OK(dart_array_reduce(a, DART_OP_SUM, &s));
  EXPECT_TRUE(same(std::vector<double>{s}, ref_sum<double>(a, 1)));
  dart_array_destroy(&z);
  dart_array_destroy(&a);
}

// dot of arrays of different distributions: refused on every unit, naming the difference.
TEST(ArrayReduce, DotNeedsOneDistribution) {
  const int n = nunits();
  auto spec = [&](int64_t s0, int64_t s1, dart_datatype_t t, int comps) {
    dart_array_spec_t s;
    dart_array_spec_init(&s);
    s.ndim = 2;
    s.shape[0] = s0;
    s.shape[1] = s1;
    s.dtype = t;
    s.components = comps;
    s.procs[0] = n;  // a's grid: [n, 1]
    s.procs[1] = 1;
    return s;
  };
  auto create = [](const dart_array_spec_t &s) {
    dart_array_t a = DART_ARRAY_NULL;
    DART_EXPECT_OK(dart_array_create(&s, &a));
    return a;
  };
  dart_array_t a = create(spec(2 * n, 6, DART_TYPE_DOUBLE, 1));
  struct Case {
    dart_array_spec_t s;
    const char *says;
    bool needs_units;
  };
  std::vector<Case> cases;
  cases.push_back({spec(2 * n, 7, DART_TYPE_DOUBLE, 1), "different shapes", false});
  cases.push_back({spec(2 * n, 6, DART_TYPE_FLOAT, 1), "different point types", false});
  cases.push_back({spec(2 * n, 6, DART_TYPE_DOUBLE, 2), "different point types", false});
  {
    dart_array_spec_t s = spec(2 * n, 6, DART_TYPE_DOUBLE, 1);
    s.ndim = 3;
    s.shape[2] = 1;
    s.procs[2] = 1;
    cases.push_back({s, "different numbers of dimensions", false});
  }
  {
    dart_array_spec_t s = spec(2 * n, 6, DART_TYPE_DOUBLE, 1);
    s.procs[0] = 1;  // another grid when n > 1
    s.procs[1] = n;
    cases.push_back({s, "different process grids", true});
  }
  static std::vector<int64_t> blocks;
  {
    dart_array_spec_t s = spec(2 * n, 6, DART_TYPE_DOUBLE, 1);
    s.procs[0] = n;
    s.procs[1] = 1;
    blocks.assign((size_t)n, 2);
    blocks[0] = 3;
    blocks[(size_t)n - 1] = 1;
    blocks.push_back(6);
    s.blocks = blocks.data();
    cases.push_back({s, "different blocks", true});
  }
  {
    dart_array_spec_t s = spec(2 * n, 6, DART_TYPE_DOUBLE, 1);
    s.halo_lo[0] = s.halo_hi[1] = 1;  // ghosts may differ: accepted
    cases.push_back({s, nullptr, false});
  }
  for (const Case &c : cases) {
    if (c.needs_units && n == 1) continue;  // the same on every unit
    dart_array_t b = create(c.s);
    double r = 7;
    if (c.says == nullptr) {
      DART_EXPECT_OK(dart_array_dot(a, b, &r));
      EXPECT_EQ(r, 0.0);
    } else {
      DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dot(a, b, &r));
      EXPECT_NE(std::string(dart_error_detail()).find(c.says), std::string::npos)
          << dart_error_detail();
      EXPECT_EQ(r, 7);
    }
    dart_array_destroy(&b);
  }
  // Another team: a one-unit team of each unit (only with several units).
  if (n > 1) {
    // Every unit creates its own one-unit team, one team creation per unit, in turn.
    dart_team_t mine = DART_TEAM_NULL;
    for (int u = 0; u < n; ++u) {
      const dart_team_t t = make_team({u});
      if (u == myid()) mine = t;
    }
    dart_array_spec_t s = spec(2 * n, 6, DART_TYPE_DOUBLE, 1);
    s.team = mine;
    s.procs[0] = 1;  // a one-unit grid
    dart_array_t b = create(s);
    double r = 7;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_dot(a, b, &r));
    EXPECT_NE(std::string(dart_error_detail()).find("different teams"), std::string::npos)
        << dart_error_detail();
    // A reduction over a one-unit team: collective over that team only.
    void *p = nullptr;
    dart_array_local(b, &p);
    for (int k = 0; k < 12 * n; ++k) static_cast<double *>(p)[k] = 1.0;
    double sb = 0;
    DART_EXPECT_OK(dart_array_reduce(b, DART_OP_SUM, &sb));
    EXPECT_EQ(sb, 12.0 * n);
    dart_array_destroy(&b);
    drop_team(mine);
  }
  dart_array_destroy(&a);
}

// A unit whose own argument is bad still joins the exchange: every unit fails, the others
// naming it; units that pass different operations all fail, naming both.
TEST(ArrayReduce, OneUnitsBadArgumentFailsEveryUnit) {
  if (nunits() < 2) return;  // the same on every unit
  dart_array_t a = make(kLayouts[1], DART_TYPE_DOUBLE, 1);
  fill<double>(a);
  double r = 7;
  const dart_operation_t op = myid() == 1 ? DART_OP_PROD : DART_OP_SUM;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(a, op, &r));
  const std::string d = dart_error_detail();
  if (myid() == 1)
    EXPECT_NE(d.find("DART_OP_PROD"), std::string::npos) << d;
  else
    EXPECT_NE(d.find("another unit failed: unit 1"), std::string::npos) << d;
  DART_EXPECT_FAIL(DART_ERR_INVAL,
                   dart_array_norm(a, DART_ARRAY_NORM_1, myid() == 1 ? nullptr : &r));
  EXPECT_EQ(r, 7);
  const dart_operation_t op2 = myid() == 0 ? DART_OP_SUM : DART_OP_MAX;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_reduce(a, op2, &r));
  const std::string d2 = dart_error_detail();
  EXPECT_NE(d2.find("different arguments"), std::string::npos) << d2;
  EXPECT_NE(d2.find("DART_OP_SUM"), std::string::npos) << d2;
  EXPECT_NE(d2.find("DART_OP_MAX"), std::string::npos) << d2;
  EXPECT_EQ(r, 7);
  DART_EXPECT_OK(dart_array_reduce(a, DART_OP_SUM, &r));  // still in step
  dart_array_destroy(&a);
}

// The C++ class: sum(), min(), max(), norm(), dart::dot() and their result types.
TEST(ArrayReduce, CxxMethods) {
  const int n = nunits();
  dart::Array<double> u({3 * (int64_t)n, 4}, dart::ArrayOptions().halo(1));
  dart::Array<double> v({3 * (int64_t)n, 4});
  dart::Array<int> k({3 * (int64_t)n});
  dart::Array<std::complex<float>> z({2 * (int64_t)n});
  static_assert(std::is_same<dart::Array<int>::sum_type, int64_t>::value, "int sums");
  static_assert(std::is_same<dart::Array<unsigned>::sum_type, uint64_t>::value, "uint sums");
  static_assert(std::is_same<dart::Array<float>::sum_type, float>::value, "float sums");
  static_assert(std::is_same<decltype(dart::dot(z, z)), std::complex<float>>::value, "vdot");
  for (int64_t i = u.lo(0); i < u.hi(0); ++i)
    for (int64_t j = u.lo(1); j < u.hi(1); ++j) {  // u and v: the same blocks
      u(i, j) = (double)(i * 4 + j) - 5;           // -5 .. 12n - 6
      v(i, j) = 2;
    }
  for (int64_t i = k.lo(0); i < k.hi(0); ++i) k(i) = (int)i - 1;
  for (int64_t i = z.lo(0); i < z.hi(0); ++i) z(i) = std::complex<float>((float)i, 1.0f);
  const int64_t m = 12 * (int64_t)n;  // points of u
  // Small integers in double: every order gives the exact value.
  EXPECT_EQ(u.sum(), (double)(m * (m - 1) / 2 - 5 * m));
  EXPECT_EQ(u.min(), -5.0);
  EXPECT_EQ(u.max(), (double)(m - 6));
  EXPECT_EQ(u.norm(DART_ARRAY_NORM_INF), (double)std::max<int64_t>(5, m - 6));
  EXPECT_EQ(dart::dot(u, v), 2.0 * (double)(m * (m - 1) / 2 - 5 * m));
  const int64_t kn = 3 * (int64_t)n;
  EXPECT_EQ(k.sum(), kn * (kn - 1) / 2 - kn);
  EXPECT_EQ(k.min(), -1);
  EXPECT_EQ(k.max(), (int)kn - 2);
  const int64_t zn = 2 * (int64_t)n;
  EXPECT_EQ(z.sum(), std::complex<float>((float)(zn * (zn - 1) / 2), (float)zn));
  // vdot(z, z) = sum |z_i|^2 = sum (i^2 + 1), imaginary part 0
  int64_t sq = 0;
  for (int64_t i = 0; i < zn; ++i) sq += i * i + 1;
  EXPECT_EQ(dart::dot(z, z), std::complex<float>((float)sq, 0.0f));
  EXPECT_EQ(z.norm(DART_ARRAY_NORM_2), std::sqrt((double)sq));
  // Errors throw dart::error with the code, on every unit.
  dart::Array<double> x({2 * (int64_t)n});
  dart_ret_t norm_code = DART_OK, dot_code = DART_OK;
  try {
    (void)u.norm((dart_array_norm_t)9);
  } catch (const dart::error &e) {
    norm_code = e.code();
    EXPECT_NE(std::string(e.what()).find("is not a norm"), std::string::npos) << e.what();
  }
  try {
    (void)dart::dot(u, x);
  } catch (const dart::error &e) {
    dot_code = e.code();
    EXPECT_NE(std::string(e.what()).find("different"), std::string::npos) << e.what();
  }
  EXPECT_EQ(norm_code, DART_ERR_INVAL);
  EXPECT_EQ(dot_code, DART_ERR_INVAL);
}
