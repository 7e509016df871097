// SPDX-License-Identifier: BSD-3-Clause
// bench_ghost: the ghost-area exchange of Thakur, Gropp and Toonen (EuroPVM/MPI 2004,
// Table 1). The units form a periodic 2D process grid (heat::dims_create); every unit
// sends one ghost area of --sizes bytes to each of its 4 (N, S, W, E) or 8 (plus the
// diagonals) neighbours, which receive it into the slot of the direction it came from.
// Neighbours that are the unit itself (a grid dimension of 1) are skipped.
//
// Methods (impl column): mpi-fence (MPI_Put, MPI_Win_fence), mpi-pscw (MPI_Win_post /
// start, MPI_Put, complete / wait), mpi-lock (MPI_Win_lock shared, MPI_Put, unlock per
// neighbour, then MPI_Barrier), mpi-p2p (MPI_Irecv / MPI_Isend, MPI_Waitall), all on
// MPI_Win_allocate windows; dart (dart_put to every neighbour, dart_flush_all,
// dart_barrier). One exchange = one row sample: R batches of K exchanges timed on rank 0,
// median and min per exchange. After the timing every method runs one exchange of a
// pattern that names sender and direction, and every unit checks every slot (a mismatch
// aborts before the rows are printed). Rows: bench=ghost, op=exchange, last column
// `case` = 4nb | 8nb.
//
//   mpiexec -n 4 bench_ghost [--quick] [--sizes 8,1K,64K] [--neighbours 4,8]
//                            [--placement LABEL] [--out FILE]
#include "bench_dart.h"
#include "heat_common.h"

#include <memory>
#include <set>

namespace {

const int kDirs[8][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, 1}, {-1, 1}, {1, -1}};
int opposite(int k) { return k ^ 1; }  // the table lists each direction next to its opposite

struct Setup {
  int rank = 0, nunits = 1, nnb = 4;
  size_t bytes = 8;
  std::vector<int> dir, peer;  // the directions used and their neighbour (never self)
  std::vector<std::vector<unsigned char>> send;
};

unsigned char pattern(int sender, int dir, int salt) {
  return static_cast<unsigned char>(sender * 31 + dir * 7 + salt);
}

class Method {
 public:
  explicit Method(const Setup &s) : s_(s) {}
  virtual ~Method() = default;
  virtual unsigned char *slots() = 0;
  virtual void exchange() = 0;
  virtual void begin() {}  // before the first exchange (fence: the opening fence)

 protected:
  size_t slot_off(int dir) const { return static_cast<size_t>(opposite(dir)) * s_.bytes; }
  const Setup &s_;
};

class MpiWindow : public Method {
 public:
  MpiWindow(const Setup &s, int kind) : Method(s), kind_(kind) {
    BENCH_MPI_CHECK(MPI_Win_allocate(8 * s.bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem_, &win_));
    std::set<int> uniq(s.peer.begin(), s.peer.end());
    std::vector<int> ranks(uniq.begin(), uniq.end());
    MPI_Group world;
    BENCH_MPI_CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    BENCH_MPI_CHECK(MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &group_));
    BENCH_MPI_CHECK(MPI_Group_free(&world));
  }
  ~MpiWindow() override {
    if (kind_ == kFence) BENCH_MPI_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win_));
    BENCH_MPI_CHECK(MPI_Group_free(&group_));
    BENCH_MPI_CHECK(MPI_Win_free(&win_));
  }
  unsigned char *slots() override { return mem_; }
  void begin() override {
    if (kind_ == kFence) BENCH_MPI_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win_));
  }
  void exchange() override {
    if (kind_ == kPscw) {
      BENCH_MPI_CHECK(MPI_Win_post(group_, 0, win_));
      BENCH_MPI_CHECK(MPI_Win_start(group_, 0, win_));
    }
    for (size_t i = 0; i < s_.dir.size(); ++i) {
      if (kind_ == kLock) BENCH_MPI_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, s_.peer[i], 0, win_));
      BENCH_MPI_CHECK(MPI_Put(s_.send[i].data(), static_cast<int>(s_.bytes), MPI_BYTE, s_.peer[i],
                              slot_off(s_.dir[i]), static_cast<int>(s_.bytes), MPI_BYTE, win_));
      if (kind_ == kLock) BENCH_MPI_CHECK(MPI_Win_unlock(s_.peer[i], win_));
    }
    if (kind_ == kFence) BENCH_MPI_CHECK(MPI_Win_fence(0, win_));
    if (kind_ == kPscw) {
      BENCH_MPI_CHECK(MPI_Win_complete(win_));
      BENCH_MPI_CHECK(MPI_Win_wait(win_));
    }
    if (kind_ == kLock) BENCH_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  }
  static constexpr int kFence = 0, kPscw = 1, kLock = 2;

 private:
  int kind_;
  unsigned char *mem_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
  MPI_Group group_ = MPI_GROUP_NULL;
};

class P2P : public Method {
 public:
  explicit P2P(const Setup &s) : Method(s), mem_(8 * s.bytes), reqs_(2 * s.dir.size()) {}
  unsigned char *slots() override { return mem_.data(); }
  void exchange() override {
    const size_t n = s_.dir.size();
    // My slot for direction d receives what the neighbour in direction d sent towards
    // me, i.e. in its direction opposite(d): tag = the receiving slot.
    for (size_t i = 0; i < n; ++i)
      BENCH_MPI_CHECK(MPI_Irecv(mem_.data() + s_.dir[i] * s_.bytes, static_cast<int>(s_.bytes),
                                MPI_BYTE, s_.peer[i], s_.dir[i], MPI_COMM_WORLD, &reqs_[i]));
    for (size_t i = 0; i < n; ++i)
      BENCH_MPI_CHECK(MPI_Isend(s_.send[i].data(), static_cast<int>(s_.bytes), MPI_BYTE, s_.peer[i],
                                opposite(s_.dir[i]), MPI_COMM_WORLD, &reqs_[n + i]));
    BENCH_MPI_CHECK(MPI_Waitall(static_cast<int>(2 * n), reqs_.data(), MPI_STATUSES_IGNORE));
  }

 private:
  std::vector<unsigned char> mem_;
  std::vector<MPI_Request> reqs_;
};

class Dart : public Method {
 public:
  explicit Dart(const Setup &s) : Method(s) {
    BENCH_DART_CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8 * s.bytes, DART_TYPE_BYTE, &seg_));
    dart_gptr_t mine = seg_;
    BENCH_DART_CHECK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(s.rank)));
    void *addr = nullptr;
    BENCH_DART_CHECK(dart_gptr_getaddr(mine, &addr));
    mem_ = static_cast<unsigned char *>(addr);
  }
  ~Dart() override { BENCH_DART_CHECK(dart_team_memfree(seg_)); }
  unsigned char *slots() override { return mem_; }
  void exchange() override {
    for (size_t i = 0; i < s_.dir.size(); ++i) {
      dart_gptr_t g = seg_;
      BENCH_DART_CHECK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(s_.peer[i])));
      BENCH_DART_CHECK(dart_gptr_incaddr(&g, static_cast<int64_t>(slot_off(s_.dir[i]))));
      BENCH_DART_CHECK(dart_put(g, s_.send[i].data(), s_.bytes, DART_TYPE_BYTE, DART_TYPE_BYTE));
    }
    BENCH_DART_CHECK(dart_flush_all(seg_));
    BENCH_DART_CHECK(dart_barrier(DART_TEAM_ALL));
  }

 private:
  dart_gptr_t seg_ = DART_GPTR_NULL;
  unsigned char *mem_ = nullptr;
};

const char *kMethods[] = {"mpi-fence", "mpi-pscw", "mpi-lock", "mpi-p2p", "dart"};

std::unique_ptr<Method> make(int m, const Setup &s) {
  if (m < 3) return std::unique_ptr<Method>(new MpiWindow(s, m));
  if (m == 3) return std::unique_ptr<Method>(new P2P(s));
  return std::unique_ptr<Method>(new Dart(s));
}

}  // namespace

int main(int argc, char **argv) {
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  BENCH_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  bool quick = false;
  std::vector<size_t> sizes;
  std::vector<int> nbs = {4, 8};
  std::string placement = "node", out_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) bench::die(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--quick")
      quick = true;
    else if (a == "--sizes")
      for (auto &x : bench::split(val(), ',')) sizes.push_back(bench::parse_size(x));
    else if (a == "--neighbours") {
      nbs.clear();
      for (auto &x : bench::split(val(), ',')) nbs.push_back(std::atoi(x.c_str()));
    } else if (a == "--placement")
      placement = val();
    else if (a == "--out")
      out_path = val();
    else
      bench::die(("unknown option " + a).c_str());
  }
  if (sizes.empty())
    sizes = quick ? std::vector<size_t>{8, 65536} : std::vector<size_t>{8, 1024, 65536};
  const int reps = quick ? 3 : 11, K = quick ? 10 : 50;

  Setup base;
  BENCH_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &base.rank));
  BENCH_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &base.nunits));
  std::vector<int> dims = heat::dims_create(base.nunits, 2);
  const int cy = base.rank / dims[1], cx = base.rank % dims[1];
  std::FILE *out = stdout;
  if (base.rank == 0 && !out_path.empty() && !(out = std::fopen(out_path.c_str(), "a")))
    bench::die("cannot open --out");

  for (int nnb : nbs) {
    if (nnb != 4 && nnb != 8) bench::die("--neighbours: 4 and/or 8");
    for (size_t bytes : sizes) {
      Setup s = base;
      s.nnb = nnb;
      s.bytes = bytes;
      for (int k = 0; k < nnb; ++k) {
        int y = (cy + kDirs[k][0] + dims[0]) % dims[0], x = (cx + kDirs[k][1] + dims[1]) % dims[1];
        int p = y * dims[1] + x;
        if (p == s.rank) continue;
        s.dir.push_back(k);
        s.peer.push_back(p);
        s.send.emplace_back(bytes, pattern(s.rank, k, 0));
      }
      for (int m = 0; m < 5; ++m) {
        std::unique_ptr<Method> meth = make(m, s);
        meth->begin();
        for (int w = 0; w < 3; ++w) meth->exchange();
        std::vector<double> us;
        for (int r = 0; r < reps; ++r) {
          BENCH_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
          double t0 = MPI_Wtime();
          for (int k = 0; k < K; ++k) meth->exchange();
          us.push_back((MPI_Wtime() - t0) * 1e6 / K);
        }
        // Correctness: one exchange of a pattern naming sender, direction and method.
        for (size_t i = 0; i < s.dir.size(); ++i)
          std::memset(s.send[i].data(), pattern(s.rank, s.dir[i], m + 1), bytes);
        meth->exchange();
        BENCH_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        int bad = 0;
        for (size_t i = 0; i < s.dir.size(); ++i) {
          // The neighbour in direction d sent towards me in direction opposite(d).
          const unsigned char want = pattern(s.peer[i], opposite(s.dir[i]), m + 1);
          const unsigned char *slot = meth->slots() + s.dir[i] * bytes;
          for (size_t b = 0; b < bytes; ++b) bad += slot[b] != want;
        }
        int bad_all = 0;
        BENCH_MPI_CHECK(MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (size_t i = 0; i < s.dir.size(); ++i)
          std::memset(s.send[i].data(), pattern(s.rank, s.dir[i], 0), bytes);
        meth.reset();
        if (bad_all) {
          if (s.rank == 0)
            std::fprintf(stderr, "bench_ghost: %s %dnb %zu B: %d wrong bytes: CHECK FAILED\n",
                         kMethods[m], nnb, bytes, bad_all);
          MPI_Abort(MPI_COMM_WORLD, 4);
        }
        if (s.rank != 0) continue;
        std::sort(us.begin(), us.end());
        double med = reps % 2 ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
        std::fprintf(out, "ghost,%s,exchange,%zu,%d,%s,%.4f,%.4f,%d,%dnb\n", kMethods[m], bytes,
                     s.nunits, placement.c_str(), med, us[0], reps * K, nnb);
        std::fflush(out);
      }
    }
  }
  if (base.rank == 0) std::fprintf(stderr, "bench_ghost: every check passed\n");
  if (out != stdout) std::fclose(out);
  BENCH_DART_CHECK(dart_exit());
  return 0;
}
