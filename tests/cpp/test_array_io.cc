// SPDX-License-Identifier: BSD-3-Clause
// Array files (dart_array.h): .npy save and load. Round trips for ndim 1-4 and every
// point type with odd shapes and uneven blocks, a save on all units loaded on fewer (a
// sub-team) with another grid, the header np.save writes, every refusal checked on every
// unit, the folder and rename failures that must leave nothing behind, and (test
// .fault, DART_FAULT=file_write:1) a failed write that keeps the old file.
// dart-test: TIMEOUT 300
#include "dart_test.h"

#include <dash/dart/if/dart_array.h>

#include <dirent.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <functional>

using namespace dtest;

namespace {

// A folder of this job's, made by unit 0 and known to every unit. Collective.
std::string job_folder() {
  char dir[256] = "";
  if (myid() == 0) {
    std::snprintf(dir, sizeof dir, "/tmp/dart-io-XXXXXX");
    if (mkdtemp(dir) == nullptr) dir[0] = '\0';
  }
  dart_bcast(dir, sizeof dir, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL);
  return dir;
}

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_file(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

// The names in a folder other than . and ..
std::vector<std::string> listing(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void remove_folder(const std::string &dir) {
  for (const std::string &n : listing(dir)) {
    const std::string p = dir + "/" + n;
    struct stat st;
    if (stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      remove_folder(p);
    else
      unlink(p.c_str());
  }
  rmdir(dir.c_str());
}

dart_array_spec_t spec_of(int ndim, dart_datatype_t t, int comps) {
  dart_array_spec_t s;
  dart_array_spec_init(&s);
  s.ndim = ndim;
  s.dtype = t;
  s.components = comps;
  return s;
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

// Byte k of the global point `lin` (a pattern every type holds: bytes, not values).
unsigned char byte_of(int64_t lin, size_t k, size_t point, dart_datatype_t t) {
  if (t == DART_TYPE_LONG_DOUBLE && k % 16 >= 10) return 0;  // x87 padding: not data
  return (unsigned char)((lin * 31 + (int64_t)k * 7 + (int64_t)point) % 251);
}

// Walks this unit's block with ghosts: fn(point offset, linear global index, inside).
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

// Fills this unit's interior with the pattern (by global index), ghosts with 0xEE.
void fill(dart_array_t a) {
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  const size_t point = type_size(in.dtype) * (size_t)in.components;
  unsigned char *p = static_cast<unsigned char *>(in.local);
  for_each_point(in, [&](int64_t off, int64_t lin, bool inside) {
    for (size_t k = 0; k < point; ++k)
      p[(size_t)off * point + k] = inside ? byte_of(lin, k, point, in.dtype) : 0xEE;
  });
}

// Wrong bytes in this unit's interior (pattern) and ghosts (zero after a load).
long check_loaded(dart_array_t a) {
  dart_array_info_t in;
  dart_array_get_info(a, &in);
  const size_t point = type_size(in.dtype) * (size_t)in.components;
  const unsigned char *p = static_cast<const unsigned char *>(in.local);
  long bad = 0;
  for_each_point(in, [&](int64_t off, int64_t lin, bool inside) {
    for (size_t k = 0; k < point; ++k) {
      if (in.dtype == DART_TYPE_LONG_DOUBLE && k % 16 >= 10) continue;
      const unsigned char want = inside ? byte_of(lin, k, point, in.dtype) : 0;
      bad += p[(size_t)off * point + k] != want;
    }
  });
  return bad;
}

const dart_datatype_t kTypes[] = {DART_TYPE_BYTE,     DART_TYPE_SHORT,      DART_TYPE_INT,
                                  DART_TYPE_UINT,     DART_TYPE_LONG,       DART_TYPE_ULONG,
                                  DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG,  DART_TYPE_FLOAT,
                                  DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE};

}  // namespace

// Save on every unit with the default grid and ghosts, load on every unit with other
// ghosts, periodic boundaries and the grid reversed where possible; also a complex and a
// strangely shaped case per ndim. Every byte of every interior, ghosts zero.
TEST(ArrayIO, RoundTrips) {
  const int n = nunits();
  const std::string dir = job_folder();
  long bad = 0;
  int k = 0;
  // Oversubscribed, every save and load costs tens of ms of scheduling: one case per
  // ndim (variants 0-3 in turn: every kind still occurs).
  const int step = oversubscribed() ? 4 : 1;
  for (int nd = 1; nd <= DART_ARRAY_MAX_DIMS; ++nd)
    for (int variant = step == 1 ? 0 : nd - 1; variant < 4; variant += step, k += step) {
      const dart_datatype_t t = variant == 3 ? DART_TYPE_DOUBLE : kTypes[k % 11];
      dart_array_spec_t s = spec_of(nd, t, variant == 3 ? 2 : 1);
      for (int d = 0; d < nd; ++d) {
        s.shape[d] = (d == 0 ? n : 1) * (2 + (k + d) % 3) + (d + variant) % 2;  // odd
        s.halo_lo[d] = variant % 2;
        s.halo_hi[d] = (d + variant) % 2;
      }
      dart_array_t a = DART_ARRAY_NULL, b = DART_ARRAY_NULL;
      DART_EXPECT_OK(dart_array_create(&s, &a));
      fill(a);
      const std::string path = dir + "/rt-" + std::to_string(k) + ".npy";
      DART_EXPECT_OK(dart_array_save(a, path.c_str()));
      // load: the dtype from the file, another grid (1 x ... x n: procs in the last
      // dimension if it has enough points), ghosts of 2 on every side, periodic
      dart_array_spec_t l;
      dart_array_spec_init(&l);
      for (int d = 0; d < DART_ARRAY_MAX_DIMS; ++d) {
        l.halo_lo[d] = l.halo_hi[d] = 1;
        l.boundary[d] = DART_ARRAY_BOUNDARY_PERIODIC;
      }
      DART_EXPECT_OK(dart_array_load(path.c_str(), &l, &b));
      if (b != DART_ARRAY_NULL) {
        dart_array_info_t ib;
        DART_EXPECT_OK(dart_array_get_info(b, &ib));
        EXPECT_EQ(ib.ndim, nd);
        EXPECT_EQ(ib.components, s.components);
        bad += check_loaded(b);
        DART_EXPECT_OK(dart_array_destroy(&b));
      }
      DART_EXPECT_OK(dart_array_destroy(&a));
    }
  EXPECT_EQ(bad, 0);
  dart_barrier(DART_TEAM_ALL);
  if (myid() == 0) remove_folder(dir);
}

// The bytes np.save writes for a (13, 11) float64 array (its header is 128 bytes), and
// the file_info query. A save on all units, loaded on a sub-team of fewer units with
// given uneven blocks: the same interiors.
TEST(ArrayIO, HeaderAndSubTeam) {
  const int n = nunits(), me = myid();
  const std::string dir = job_folder();
  dart_array_spec_t s = spec_of(2, DART_TYPE_DOUBLE, 1);
  s.shape[0] = 13;
  s.shape[1] = 11;
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  fill(a);
  const std::string path = dir + "/h.npy";
  DART_EXPECT_OK(dart_array_save(a, path.c_str()));
  std::vector<double> all(me == 0 ? 13 * 11 : 0);
  DART_EXPECT_OK(dart_array_gather(a, me == 0 ? all.data() : nullptr, 0));
  if (me == 0) {
    const std::string bytes = read_file(path);
    const std::string want_dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (13, 11), }";
    EXPECT_EQ(bytes.size(), 128u + 13 * 11 * 8);
    EXPECT_EQ(bytes.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
    EXPECT_EQ(bytes.substr(10, want_dict.size()), want_dict);
    EXPECT_EQ(bytes.find_first_not_of(' ', 10 + want_dict.size()), 127u);
    if (bytes.size() == 128u + 13 * 11 * 8) {
      EXPECT_EQ(bytes[127], '\n');
      EXPECT_EQ(0, std::memcmp(bytes.data() + 128, all.data(), all.size() * 8));
    }
  }
  int32_t nd = 0, comps = 0;
  int64_t shape[DART_ARRAY_MAX_DIMS] = {0};
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  DART_EXPECT_OK(dart_array_file_info(path.c_str(), &nd, shape, &t, &comps));
  EXPECT_EQ(nd, 2);
  EXPECT_EQ(shape[0], 13);
  EXPECT_EQ(shape[1], 11);
  EXPECT_EQ(t, DART_TYPE_DOUBLE);
  EXPECT_EQ(comps, 1);
  // A team of the first max(1, n - 1) units loads it with blocks 1, 2, .. along dim 0.
  std::vector<int> members;
  for (int u = 0; u < std::max(1, n - 1); ++u) members.push_back(u);
  dart_team_t team = make_team(members);
  if (team != DART_TEAM_NULL) {
    const int m = (int)members.size();
    dart_array_spec_t l;
    dart_array_spec_init(&l);
    l.team = team;
    l.ndim = 2;
    l.dtype = DART_TYPE_DOUBLE;
    l.procs[0] = m;
    l.procs[1] = 1;
    std::vector<int64_t> blocks;
    int64_t used = 0;
    for (int c = 0; c < m - 1; ++c) blocks.push_back(c + 1), used += c + 1;
    blocks.push_back(13 - used);
    blocks.push_back(11);
    l.blocks = blocks.data();
    l.halo_lo[0] = 1;
    dart_array_t b = DART_ARRAY_NULL;
    DART_EXPECT_OK(dart_array_load(path.c_str(), &l, &b));
    if (b != DART_ARRAY_NULL) {
      EXPECT_EQ(check_loaded(b), 0);
      DART_EXPECT_OK(dart_array_destroy(&b));
    }
  }
  drop_team(team);
  DART_EXPECT_OK(dart_array_destroy(&a));
  dart_barrier(DART_TEAM_ALL);
  if (me == 0) remove_folder(dir);
}

// Every refusal of a load, on every unit with the same message; the saves that cannot
// happen leave no temporary file and keep what was there.
TEST(ArrayIO, Refusals) {
  const int me = myid();
  const std::string dir = job_folder();
  dart_array_spec_t s = spec_of(1, DART_TYPE_INT, 1);
  s.shape[0] = 7;
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  fill(a);
  const std::string good = dir + "/good.npy";
  DART_EXPECT_OK(dart_array_save(a, good.c_str()));
  dart_barrier(DART_TEAM_ALL);
  const std::string bytes = read_file(good);
  // Bad files, written by unit 0.
  struct Bad {
    std::string name, content, needle;
  };
  std::string header = bytes.substr(0, 64);
  auto with_dict = [&](const std::string &dict) {  // a 1.0 header around `dict`
    std::string d = dict;
    while ((10 + d.size() + 1) % 64) d += ' ';
    d += '\n';
    std::string h("\x93NUMPY\x01\x00", 8);
    h += (char)(d.size() & 0xff);
    h += (char)(d.size() >> 8);
    return h + d + std::string(7 * 8, '\0');
  };
  const std::vector<Bad> bad = {
      {"text.npy", "just some text, long enough to be read", "not a .npy file"},
      {"short.npy", std::string("\x93NU", 3), "not a .npy file"},
      {"trunc.npy", bytes.substr(0, bytes.size() - 3), "truncated"},
      {"trunchead.npy", bytes.substr(0, 30), "truncated"},
      {"version.npy", std::string("\x93NUMPY\x09\x00", 8) + bytes.substr(8), "format version"},
      {"fortran.npy", with_dict("{'descr': '<i4', 'fortran_order': True, 'shape': (7,), }"),
       "fortran_order: True"},
      {"u2.npy", with_dict("{'descr': '<u2', 'fortran_order': False, 'shape': (7,), }"),
       "cannot hold"},
      {"big.npy", with_dict("{'descr': '>i4', 'fortran_order': False, 'shape': (7,), }"),
       "cannot hold"},
      {"scalar.npy", with_dict("{'descr': '<i4', 'fortran_order': False, 'shape': (), }"),
       "0-dimensional"},
      {"five.npy",
       with_dict("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 7), }"),
       "5-dimensional"},
      {"empty.npy", with_dict("{'descr': '<i4', 'fortran_order': False, 'shape': (0, 7), }"),
       "extent 0"},
      {"struct.npy",
       with_dict("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (7,), }"),
       "not one DART reads"},
  };
  if (me == 0)
    for (const Bad &b : bad) write_file(dir + "/" + b.name, b.content);
  dart_barrier(DART_TEAM_ALL);
  dart_array_spec_t l;
  dart_array_spec_init(&l);
  for (const Bad &b : bad) {
    dart_array_t x = reinterpret_cast<dart_array_t>(&x);
    DART_EXPECT_CODE(DART_ERR_INVAL, dart_array_load((dir + "/" + b.name).c_str(), &l, &x));
    EXPECT_EQ(x, DART_ARRAY_NULL) << b.name;
    EXPECT_NE(std::string(dart_error_detail()).find(b.needle), std::string::npos)
        << b.name << ": " << dart_error_detail();
    // every unit got the same message
    const std::string msg = dart_error_detail();
    char mine[512] = "", first[512] = "";
    std::snprintf(mine, sizeof mine, "%s", msg.c_str());
    std::memcpy(first, mine, sizeof mine);
    dart_bcast(first, sizeof first, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL);
    EXPECT_STREQ(mine, first) << b.name;
  }
  dart_array_t x = DART_ARRAY_NULL;
  DART_EXPECT_CODE(DART_ERR_OTHER, dart_array_load((dir + "/missing.npy").c_str(), &l, &x));
  // A given dtype or ndim that differs from the file's; a grid the file cannot take.
  l.dtype = DART_TYPE_FLOAT;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_load(good.c_str(), &l, &x));
  EXPECT_NE(std::string(dart_error_detail()).find("'<i4', not '<f4'"), std::string::npos)
      << dart_error_detail();
  l.dtype = DART_TYPE_UINT;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_load(good.c_str(), &l, &x));
  l.dtype = DART_TYPE_UNDEFINED;
  l.ndim = 2;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_load(good.c_str(), &l, &x));
  l.ndim = 0;
  l.procs[0] = nunits() + 1;
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_load(good.c_str(), &l, &x));
  l.procs[0] = 0;
  EXPECT_EQ(x, DART_ARRAY_NULL);
  if (nunits() > 1) {  // another file on one unit: every unit fails, naming both paths
    const std::string mine = me == 1 ? dir + "/text.npy" : good;
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_load(mine.c_str(), &l, &x));
    EXPECT_NE(std::string(dart_error_detail()).find("different arguments"), std::string::npos)
        << dart_error_detail();
    EXPECT_EQ(x, DART_ARRAY_NULL);
  }

  // Saves that cannot happen: no folder; a directory as the target; another path on one
  // unit. Nothing is left behind, the directory keeps its content.
  if (me == 0) {
    mkdir((dir + "/adir").c_str(), 0755);
    write_file(dir + "/adir/keep", "k");
  }
  dart_barrier(DART_TEAM_ALL);
  const std::vector<std::string> before = listing(dir);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_save(a, (dir + "/nofolder/x.npy").c_str()));
  EXPECT_NE(std::string(dart_error_detail()).find("does not exist"), std::string::npos);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_save(a, (dir + "/adir").c_str()));
  EXPECT_NE(std::string(dart_error_detail()).find("is a directory"), std::string::npos);
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_save(a, nullptr));
  if (nunits() > 1) {
    const std::string mine = dir + (me == 1 ? "/b.npy" : "/a.npy");
    DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_save(a, mine.c_str()));
    EXPECT_NE(std::string(dart_error_detail()).find("different arguments"), std::string::npos);
  }
  // /proc takes no new file, also for root: the open fails on every unit.
  EXPECT_NE(dart_array_save(a, "/proc/dart-array-test.npy"), DART_OK);
  dart_barrier(DART_TEAM_ALL);
  EXPECT_EQ(listing(dir), before);
  EXPECT_EQ(listing(dir + "/adir"), std::vector<std::string>{"keep"});
  EXPECT_EQ(read_file(good), bytes);
  // A points type .npy cannot describe: 3 components.
  dart_array_spec_t s3 = spec_of(1, DART_TYPE_INT, 3);
  s3.shape[0] = 4;
  dart_array_t c = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s3, &c));
  DART_EXPECT_FAIL(DART_ERR_INVAL, dart_array_save(c, (dir + "/c3.npy").c_str()));
  DART_EXPECT_OK(dart_array_destroy(&c));
  DART_EXPECT_OK(dart_array_destroy(&a));
  dart_barrier(DART_TEAM_ALL);
  if (me == 0) remove_folder(dir);
}

// Run with DART_FAULT=file_write:<unit> (the .fault test): the write of that unit fails
// after its data went out; the save fails on every unit with one message, the old file at
// path is untouched and no temporary file is left. Without the hook it checks a plain
// overwrite of an existing file.
TEST(ArrayIO, FailedWriteKeepsTheOldFile) {
  const int me = myid();
  const char *hook = std::getenv("DART_FAULT");
  const bool faulty = hook != nullptr && std::strncmp(hook, "file_write:", 11) == 0;
  const std::string dir = job_folder();
  const std::string path = dir + "/checkpoint.npy";
  if (me == 0) write_file(path, "the old checkpoint");
  dart_barrier(DART_TEAM_ALL);
  dart_array_spec_t s = spec_of(2, DART_TYPE_DOUBLE, 1);
  s.shape[0] = 5 * nunits();
  s.shape[1] = 3;
  dart_array_t a = DART_ARRAY_NULL;
  DART_EXPECT_OK(dart_array_create(&s, &a));
  fill(a);
  const dart_ret_t rc = dart_array_save(a, path.c_str());
  if (faulty) {
    EXPECT_EQ(rc, DART_ERR_OTHER);
    const std::string msg = dart_error_detail();
    EXPECT_NE(msg.find("fault injected by DART_FAULT"), std::string::npos) << msg;
    char first[512] = "";
    std::snprintf(first, sizeof first, "%s", msg.c_str());
    dart_bcast(first, sizeof first, DART_TYPE_BYTE, DART_TEAM_UNIT_ID(0), DART_TEAM_ALL);
    EXPECT_EQ(msg.substr(0, 500), std::string(first).substr(0, 500));
    EXPECT_EQ(read_file(path), "the old checkpoint");
  } else {
    DART_EXPECT_OK(rc);
    EXPECT_EQ(read_file(path).size(), 128u + 5 * nunits() * 3 * 8);
  }
  dart_barrier(DART_TEAM_ALL);
  EXPECT_EQ(listing(dir), std::vector<std::string>{"checkpoint.npy"});
  DART_EXPECT_OK(dart_array_destroy(&a));
  dart_barrier(DART_TEAM_ALL);
  if (me == 0) remove_folder(dir);
}
