// SPDX-License-Identifier: BSD-3-Clause
// HDF5 files of arrays (dart_h5.h): round trips of every point type and rank through a
// file written on every unit and read with another grid, attributes of every kind,
// time series (append, read step k), the refusals with one message on every unit, and a
// failed call on a file opened with "w" that leaves the old file as it was.
// dart-test: UNITS 1 2 3 UPN none 2 TIMEOUT 120
#include "dart_test.h"

#include <dash/dart/if/dart_h5.h>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <functional>

using namespace dtest;

namespace {

std::string job_folder() {
  char dir[256] = "";
  if (myid() == 0) {
    std::snprintf(dir, sizeof dir, "/tmp/dart-h5-XXXXXX");
    if (mkdtemp(dir) == nullptr) dir[0] = '\0';
  }
  dart_bcast(dir, sizeof dir, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL);
  return dir;
}

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void remove_folder(const std::string &dir) {
  const std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "cannot remove %s\n", dir.c_str());
}

size_t type_size(dart_datatype_t t) {
  switch (t) {
    case DART_TYPE_BYTE: return 1;
    case DART_TYPE_SHORT: return 2;
    case DART_TYPE_INT:
    case DART_TYPE_UINT:
    case DART_TYPE_FLOAT: return 4;
    case DART_TYPE_LONG_DOUBLE: return sizeof(long double);
    default: return 8;
  }
}

// Byte k of global point `lin` at step `step` (long double's x87 padding is no data).
unsigned char byte_of(int64_t lin, size_t k, int step, dart_datatype_t t) {
  if (t == DART_TYPE_LONG_DOUBLE && k % 16 >= 10) return 0;
  return (unsigned char)((lin * 31 + (int64_t)k * 7 + step * 13) % 251);
}

void for_each_point(const dart_array_info_t &in,
                    const std::function<void(int64_t, int64_t, bool)> &fn) {
  int64_t total = 1;
  for (int d = 0; d < in.ndim; ++d) total *= in.local_shape[d];
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
    fn(off, lin, inside);
  }
}

void fill(dart_array_t a, int step = 0) {
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  const size_t point = type_size(in.dtype) * (size_t)in.components;
  unsigned char *p = static_cast<unsigned char *>(in.local);
  for_each_point(in, [&](int64_t off, int64_t lin, bool inside) {
    for (size_t k = 0; k < point; ++k)
      p[(size_t)off * point + k] = inside ? byte_of(lin, k, step, in.dtype) : 0xEE;
  });
}

long check_read(dart_array_t a, int step = 0) {
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  const size_t point = type_size(in.dtype) * (size_t)in.components;
  const unsigned char *p = static_cast<const unsigned char *>(in.local);
  long bad = 0;
  for_each_point(in, [&](int64_t off, int64_t lin, bool inside) {
    for (size_t k = 0; k < point; ++k) {
      if (in.dtype == DART_TYPE_LONG_DOUBLE && k % 16 >= 10) continue;
      bad += p[(size_t)off * point + k] != (inside ? byte_of(lin, k, step, in.dtype) : 0);
    }
  });
  return bad;
}

dart_array_spec_t spec_of(int ndim, dart_datatype_t t, int comps) {
  dart_array_spec_t s;
  dart_array_spec_init(&s);
  s.ndim = ndim;
  s.dtype = t;
  s.components = comps;
  return s;
}

// The call failed on every unit with one message that contains `needle`.
bool refused(dart_ret_t rc, const char *needle) {
  const std::string m = dart_error_detail();
  unsigned long long h = 1469598103934665603ull;
  for (unsigned char c : m) h = (h ^ c) * 1099511628211ull;
  unsigned long long lo = h, hi = h;
  dart_allreduce(&h, &lo, 1, DART_TYPE_ULONGLONG, DART_OP_MIN, DART_TEAM_ALL);
  dart_allreduce(&h, &hi, 1, DART_TYPE_ULONGLONG, DART_OP_MAX, DART_TEAM_ALL);
  const bool ok = rc != DART_OK && lo == hi && m.find(needle) != std::string::npos;
  if (!ok)
    std::fprintf(stderr, "unit %d: rc %d, message '%s', wanted '%s'%s\n", myid(), (int)rc,
                 m.c_str(), needle, lo == hi ? "" : " (messages differ between units)");
  return all_true(ok);
}

const dart_datatype_t kTypes[] = {DART_TYPE_BYTE,     DART_TYPE_SHORT,      DART_TYPE_INT,
                                  DART_TYPE_UINT,     DART_TYPE_LONG,       DART_TYPE_ULONG,
                                  DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG,  DART_TYPE_FLOAT,
                                  DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE};

}  // namespace

// Every point type (and complex of each float) in one file, ranks 1-4, odd shapes and
// ghosts; read back with ghosts 1 and the dtype from the file; the dataset's facts.
TEST(H5, RoundTrips) {
  ASSERT_EQ(dart_h5_available(), 1);
  const int n = nunits();
  const std::string dir = job_folder(), path = dir + "/rt.h5";
  struct Case {
    dart_datatype_t t;
    int comps, nd;
  };
  std::vector<Case> cases;
  for (size_t k = 0; k < 11; ++k) cases.push_back({kTypes[k], 1, 1 + (int)k % 4});
  for (dart_datatype_t t : {DART_TYPE_FLOAT, DART_TYPE_DOUBLE, DART_TYPE_LONG_DOUBLE})
    cases.push_back({t, 2, 2});
  // Oversubscribed, every collective call costs milliseconds of scheduling: every third
  // case (each rank and complex still occur; every type occurs at 1 unit).
  if (oversubscribed()) {
    std::vector<Case> few;
    for (size_t k = 0; k < cases.size(); k += 3) few.push_back(cases[k]);
    cases = few;
  }
  dart_h5_t f = DART_H5_NULL;
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "w", DART_TEAM_ALL, &f));
  for (size_t k = 0; k < cases.size(); ++k) {
    dart_array_spec_t s = spec_of(cases[k].nd, cases[k].t, cases[k].comps);
    for (int d = 0; d < s.ndim; ++d) {
      s.shape[d] = (d == 0 ? n : 1) * (2 + (int)(k + d) % 3) + (int)(d + k) % 2;
      s.halo_lo[d] = (int)k % 2;
      s.halo_hi[d] = 1;
    }
    dart_array_t a = DART_ARRAY_NULL;
    DART_EXPECT_OK(dart_array_create(&s, &a));
    fill(a);
    const std::string name = "a" + std::to_string(k);
    // distinct dimension names per dataset (the defaults would be shared by extent)
    std::vector<std::string> dn;
    std::vector<const char *> dims;
    for (int d = 0; d < s.ndim; ++d) dn.push_back(name + "_" + std::to_string(d));
    for (auto &x : dn) dims.push_back(x.c_str());
    DART_EXPECT_OK(dart_array_write_h5_dims(f, name.c_str(), a, dims.data()));
    DART_EXPECT_OK(dart_array_destroy(&a));
  }
  DART_ASSERT_OK(dart_h5_close(&f));
  EXPECT_EQ(f, DART_H5_NULL);
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "r", DART_TEAM_ALL, &f));
  long bad = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string name = "a" + std::to_string(k);
    int32_t nd = 0, comps = 0;
    int64_t shape[5] = {};
    dart_datatype_t t = DART_TYPE_UNDEFINED;
    DART_EXPECT_OK(dart_h5_dataset_info(f, name.c_str(), &nd, shape, &t, &comps));
    EXPECT_EQ(nd, cases[k].nd);
    EXPECT_EQ(comps, cases[k].comps);
    EXPECT_EQ(type_size(t), type_size(cases[k].t));
    dart_array_spec_t l;
    dart_array_spec_init(&l);
    for (int d = 0; d < DART_ARRAY_MAX_DIMS; ++d) l.halo_lo[d] = l.halo_hi[d] = 1;
    dart_array_t b = DART_ARRAY_NULL;
    DART_EXPECT_OK(dart_array_read_h5(f, name.c_str(), &l, &b));
    if (b != DART_ARRAY_NULL) {
      bad += check_read(b);
      DART_EXPECT_OK(dart_array_destroy(&b));
    }
  }
  DART_EXPECT_OK(dart_h5_close(&f));
  EXPECT_EQ(bad, 0);
  dart_barrier(DART_TEAM_ALL);
  if (myid() == 0) remove_folder(dir);
}

// Numbers and strings on the file and on a dataset, replaced, converted, refused.
TEST(H5, Attributes) {
  const std::string dir = job_folder(), path = dir + "/attrs.h5";
  dart_h5_t f = DART_H5_NULL;
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "w", DART_TEAM_ALL, &f));
  dart_array_spec_t s = spec_of(2, DART_TYPE_DOUBLE, 1);
  s.shape[0] = 2 * nunits();
  s.shape[1] = 5;
  dart_array_t a = DART_ARRAY_NULL;
  DART_ASSERT_OK(dart_array_create(&s, &a));
  DART_EXPECT_OK(dart_array_write_h5(f, "T", a));
  const double t = 2.5, dx[2] = {0.1, 0.2};
  const int64_t it = 123;
  DART_EXPECT_OK(dart_h5_set_attr(f, "", "time", DART_TYPE_DOUBLE, 1, &t));
  DART_EXPECT_OK(dart_h5_set_attr(f, "T", "spacing", DART_TYPE_DOUBLE, 2, dx));
  DART_EXPECT_OK(dart_h5_set_attr(f, "T", "iterations", DART_TYPE_LONG, 1, &it));
  DART_EXPECT_OK(dart_h5_set_attr(f, "T", "units", DART_H5_STRING, 0, "kelvin"));
  DART_EXPECT_OK(dart_h5_set_attr(f, "T", "units", DART_H5_STRING, 0, "K"));  // replaced
  DART_EXPECT_OK(dart_h5_close(&f));
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "r", DART_TEAM_ALL, &f));
  double t2 = 0, dx2[4] = {};
  int64_t n = 0;
  int it2 = 0;
  char text[16] = "";
  DART_EXPECT_OK(dart_h5_get_attr(f, "/", "time", DART_TYPE_DOUBLE, 1, &t2, &n));
  EXPECT_EQ(t2, 2.5);
  EXPECT_EQ(n, 1);
  DART_EXPECT_OK(dart_h5_get_attr(f, "T", "spacing", DART_TYPE_DOUBLE, 4, dx2, &n));
  EXPECT_EQ(n, 2);
  EXPECT_EQ(dx2[1], 0.2);
  DART_EXPECT_OK(dart_h5_get_attr(f, "T", "iterations", DART_TYPE_INT, 1, &it2, nullptr));
  EXPECT_EQ(it2, 123);
  DART_EXPECT_OK(dart_h5_get_attr(f, "T", "units", DART_H5_STRING, sizeof text, text, &n));
  EXPECT_STREQ(text, "K");
  EXPECT_EQ(n, 1);
  dart_datatype_t type = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_h5_attr_info(f, "T", "units", &type, &n));
  EXPECT_EQ(type, DART_H5_STRING);
  DART_EXPECT_OK(dart_h5_attr_info(f, "T", "spacing", &type, &n));
  EXPECT_EQ(type, DART_TYPE_DOUBLE);
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(refused(dart_h5_get_attr(f, "T", "units", DART_TYPE_DOUBLE, 1, &t2, &n),
                      "is a string, not numbers"));
  EXPECT_TRUE(refused(dart_h5_get_attr(f, "T", "time", DART_TYPE_DOUBLE, 1, &t2, &n),
                      "has no attribute 'time'"));
  EXPECT_TRUE(refused(dart_h5_get_attr(f, "T", "spacing", DART_TYPE_DOUBLE, 1, dx2, &n),
                      "more than the capacity"));
  EXPECT_TRUE(refused(dart_h5_set_attr(f, "", "x", DART_TYPE_DOUBLE, 1, &t), "read-only"));
  DART_EXPECT_OK(dart_h5_close(&f));
  DART_EXPECT_OK(dart_array_destroy(&a));
  dart_barrier(DART_TEAM_ALL);
  if (myid() == 0) remove_folder(dir);
}

// Three steps appended (the file reopened with "a" for the third), read step by step,
// the last by -1, on another grid; a step of another shape refused.
TEST(H5, TimeSeries) {
  const std::string dir = job_folder(), path = dir + "/series.h5";
  dart_array_spec_t s = spec_of(2, DART_TYPE_FLOAT, 1);
  s.shape[0] = 3 * nunits() + 1;
  s.shape[1] = 4;
  s.halo_lo[0] = s.halo_hi[0] = 1;
  dart_array_t a = DART_ARRAY_NULL;
  DART_ASSERT_OK(dart_array_create(&s, &a));
  dart_h5_t f = DART_H5_NULL;
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "w", DART_TEAM_ALL, &f));
  for (int k = 0; k < 2; ++k) {
    fill(a, k);
    DART_EXPECT_OK(dart_array_append_h5(f, "T", a));
  }
  DART_EXPECT_OK(dart_h5_close(&f));
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "a", DART_TEAM_ALL, &f));
  fill(a, 2);
  DART_EXPECT_OK(dart_array_append_h5(f, "T", a));
  dart_array_spec_t o = spec_of(2, DART_TYPE_FLOAT, 1);
  o.shape[0] = 5;
  o.shape[1] = 4;
  dart_array_t other = DART_ARRAY_NULL;
  DART_ASSERT_OK(dart_array_create(&o, &other));
  EXPECT_TRUE(refused(dart_array_append_h5(f, "T", other), "is not a time series of this"));
  DART_EXPECT_OK(dart_array_destroy(&other));
  DART_EXPECT_OK(dart_h5_close(&f));
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "r", DART_TEAM_ALL, &f));
  int32_t nd = 0;
  int64_t shape[5] = {};
  DART_EXPECT_OK(dart_h5_dataset_info(f, "T", &nd, shape, nullptr, nullptr));
  EXPECT_EQ(nd, 3);
  EXPECT_EQ(shape[0], 3);
  long bad = 0;
  dart_array_spec_t l;
  dart_array_spec_init(&l);
  l.procs[0] = 1;  // the grid along the other dimension
  l.procs[1] = 0;
  for (int k : {0, 1, 2, -1}) {
    dart_array_t b = DART_ARRAY_NULL;
    dart_array_spec_t ll = nunits() <= 4 ? l : s;
    DART_EXPECT_OK(dart_array_read_h5_step(f, "T", k, &ll, &b));
    if (b != DART_ARRAY_NULL) {
      bad += check_read(b, k < 0 ? 2 : k);
      DART_EXPECT_OK(dart_array_destroy(&b));
    }
  }
  EXPECT_EQ(bad, 0);
  dart_array_t b = DART_ARRAY_NULL;
  EXPECT_TRUE(refused(dart_array_read_h5_step(f, "T", 3, &l, &b), "has 3 steps, no step 3"));
  DART_EXPECT_OK(dart_h5_close(&f));
  DART_EXPECT_OK(dart_array_destroy(&a));
  dart_barrier(DART_TEAM_ALL);
  if (myid() == 0) remove_folder(dir);
}

// The refusals, each with one message on every unit, and a "w" file whose failed call
// leaves the old file at the path as it was.
TEST(H5, Refusals) {
  const int n = nunits();
  const std::string dir = job_folder(), path = dir + "/r.h5", text = dir + "/text.h5";
  if (myid() == 0) std::ofstream(text) << "no HDF5 here, just text that is long enough";
  dart_barrier(DART_TEAM_ALL);
  dart_h5_t f = DART_H5_NULL;
  EXPECT_TRUE(
      refused(dart_h5_open((dir + "/missing.h5").c_str(), "r", DART_TEAM_ALL, &f), "No such file"));
  EXPECT_TRUE(refused(dart_h5_open(text.c_str(), "r", DART_TEAM_ALL, &f), "is not an HDF5 file"));
  EXPECT_TRUE(refused(dart_h5_open(path.c_str(), "x", DART_TEAM_ALL, &f), "mode 'x'"));
  EXPECT_TRUE(refused(dart_h5_open((dir + "/no/such.h5").c_str(), "w", DART_TEAM_ALL, &f),
                      "does not exist"));
  dart_array_spec_t s = spec_of(1, DART_TYPE_INT, 1);
  s.shape[0] = n;
  dart_array_t a = DART_ARRAY_NULL;
  DART_ASSERT_OK(dart_array_create(&s, &a));
  fill(a);
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "w", DART_TEAM_ALL, &f));
  DART_EXPECT_OK(dart_array_write_h5(f, "T", a));
  DART_EXPECT_OK(dart_h5_close(&f));
  dart_barrier(DART_TEAM_ALL);
  const std::string before = read_file(path);
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "r", DART_TEAM_ALL, &f));
  dart_array_spec_t l;
  dart_array_spec_init(&l);
  dart_array_t b = DART_ARRAY_NULL;
  EXPECT_TRUE(refused(dart_array_read_h5(f, "U", &l, &b), "has no dataset 'U'"));
  l.dtype = DART_TYPE_DOUBLE;
  EXPECT_TRUE(refused(dart_array_read_h5(f, "T", &l, &b), "holds int32, not float64"));
  l.dtype = DART_TYPE_UNDEFINED;
  l.ndim = 2;
  EXPECT_TRUE(refused(dart_array_read_h5(f, "T", &l, &b), "has 1 dimensions, not 2"));
  l.ndim = 0;
  if (n > 1) {  // n points on n units: ghosts of 2 are wider than a block of 1 point
    l.halo_lo[0] = 2;
    EXPECT_TRUE(refused(dart_array_read_h5(f, "T", &l, &b), "is wider than the block"));
    l.halo_lo[0] = 0;
  }
  EXPECT_EQ(b, DART_ARRAY_NULL);
  EXPECT_TRUE(refused(dart_array_write_h5(f, "V", a), "read-only"));
  DART_EXPECT_OK(dart_h5_close(&f));
  // "w" on the existing file: a failed call, then the close reports it; the old file stays.
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "w", DART_TEAM_ALL, &f));
  DART_EXPECT_OK(dart_array_write_h5(f, "T", a));
  EXPECT_TRUE(refused(dart_array_write_h5(f, "T", a), "has a dataset 'T' already"));
  EXPECT_TRUE(refused(dart_h5_close(&f), "an earlier call failed"));
  dart_barrier(DART_TEAM_ALL);
  EXPECT_TRUE(all_true(read_file(path) == before));
  // "a": the existing name refused, the file still readable with its dataset.
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "a", DART_TEAM_ALL, &f));
  EXPECT_TRUE(refused(dart_array_write_h5(f, "T", a), "has a dataset 'T' already"));
  DART_EXPECT_OK(dart_h5_close(&f));
  DART_ASSERT_OK(dart_h5_open(path.c_str(), "r", DART_TEAM_ALL, &f));
  l.procs[0] = 0;
  DART_EXPECT_OK(dart_array_read_h5(f, "T", &l, &b));
  if (b != DART_ARRAY_NULL) {
    EXPECT_EQ(check_read(b), 0);
    DART_EXPECT_OK(dart_array_destroy(&b));
  }
  DART_EXPECT_OK(dart_h5_close(&f));
  DART_EXPECT_OK(dart_array_destroy(&a));
  dart_barrier(DART_TEAM_ALL);
  if (myid() == 0) remove_folder(dir);
}
