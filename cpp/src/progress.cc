// SPDX-License-Identifier: BSD-3-Clause
// Progress processes (DART_PROGRESS_PER_NODE=k; docs/design.md, "Progress").
//
// k processes of every (emulated) node are not units: they serve the units of their node.
// - Target side (the idea of Casper, Si et al., IPDPS 2015): every segment of a team that
//   spans nodes is allocated in shared memory that the node's progress processes map too
//   (they are members of the shared window, with 0 bytes), and its RMA window is created
//   by the units (0 bytes each) and the progress processes, the first one of each node
//   exposing all of its node's parts. Every MPI operation on such memory (RMA, atomics,
//   lock words, flushes) goes to that progress process (Segment::ranks), one (window,
//   rank) per location, so it completes while the unit computes.
// - Origin side (the offload of ICPADS 2016, without a message per request): a
//   non-blocking put/get of at least DART_PROGRESS_THRESHOLD bytes is a descriptor in a
//   ring in node shared memory; the unit's progress process carries it out (MPI RMA into
//   or out of its own bounce buffer, cross-memory attach to the unit's buffer) and
//   publishes completion as a sequence number.
// - Creations: the progress processes take part in every collective creation of a team
//   spanning nodes, its windows and their frees. A unit asks by posting a request in its
//   control block; a progress process joins a creation when every unit of the team on its
//   node has posted it, and the team's unit 0 holds one job-wide lock (a word at the
//   first progress process) around it after the team's units have all arrived, so two
//   teams creating at once are serialized instead of deadlocking.
#include "internal.h"

#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

namespace dart {
namespace detail {

namespace {

constexpr int kRing = 256;           // descriptors per unit
constexpr int kTagMembers = 0x7d01;  // the member list of a new team, to progress processes

enum Op : uint32_t { OpNone, OpTeamCreate, OpTeamFree, OpSegCreate, OpSegFree };

struct Desc {  // one offloaded transfer
  uint32_t put;
  int32_t teamid, segkey;  // the segment: its team and Segment::pkey
  int32_t rank;            // in the segment's window; -1: same node (`direct`)
  uint64_t disp;
  uint64_t local;  // addresses in the unit's process
  uint64_t direct;
  uint64_t bytes;
};

struct CollReq {  // a collective step the progress processes take part in
  uint32_t op;
  int32_t teamid, segkey;  // Segment::pkey for segment requests
  int32_t node_members;    // units of the team on this node
  int32_t team_rank;
  int32_t flag;  // OpSegFree: free the windows
};

// A doorbell in node shared memory. On an oversubscribed machine a waiter that found
// nothing to do sleeps in a futex wait on `word` (bell_sleep) instead of a timed sleep;
// whoever publishes what it waits for rings (bell_ring): bumps `word` and wakes it, only
// if someone sleeps. So a progress process starts an offloaded transfer, and a unit sees
// it complete, within a wake-up instead of a poll period, and nothing spins. The seq_cst
// fences (publish, fence, read `sleepers`; count oneself in, fence, look again) make at
// least one side see the other: no wake-up is lost.
struct Bell {
  std::atomic<uint32_t> word;
  std::atomic<uint32_t> sleepers;
};

void bell_ring(Bell *b) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (b->sleepers.load(std::memory_order_relaxed) == 0) return;
  b->word.fetch_add(1, std::memory_order_relaxed);
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&b->word), FUTEX_WAKE, INT32_MAX, nullptr,
          nullptr, 0);
}

// Sleeps on `b` for at most `ns` unless ready() already holds.
template <class Ready>
void bell_sleep(Bell *b, Ready ready, long ns) {
  const uint32_t w = b->word.load(std::memory_order_relaxed);
  b->sleepers.fetch_add(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!ready()) {
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&b->word), FUTEX_WAIT, w, &ts, nullptr, 0);
  }
  b->sleepers.fetch_sub(1, std::memory_order_relaxed);
}

// One per unit, in shared memory of its node (units and progress processes).
struct Control {
  alignas(64) std::atomic<uint64_t> head;  // unit: descriptors published
  alignas(64) std::atomic<uint64_t> done;  // progress process: descriptors complete
  Bell done_bell;                          // rung by the progress process after `done`
  std::atomic<int32_t> error;              // progress process: errno of a failed copy
  std::atomic<int32_t> cma;                // progress process: 1 cross-memory attach works, 2 not
  alignas(64) std::atomic<uint64_t> coll_seq;  // unit: requests posted
  CollReq coll;
  std::atomic<uint32_t> exiting;  // unit: in dart_exit
  int32_t pid;
  uint64_t self;  // the unit's address of `pid` (the cross-memory attach probe)
  Desc ring[kRing];
};

struct Peer {      // what every process knows about every process of the job
  int32_t unit;    // unit id, -1 for a progress process
  int32_t node;    // node index
  int32_t pindex;  // progress process: its index on its node (0..k-1)
  int32_t pad;
};

}  // namespace

struct Progress {
  int k = 0;
  MPI_Comm world_all = MPI_COMM_NULL, node_all = MPI_COMM_NULL;
  MPI_Win ctl_win = MPI_WIN_NULL, lock_win = MPI_WIN_NULL;
  int lock_host = -1;                     // world_all rank holding the creation lock word
  std::vector<Peer> peers;                // by world_all rank
  std::vector<int> unit_rank;             // unit id -> world_all rank
  std::vector<std::vector<int>> node_ps;  // node -> world_all ranks of its progress processes
  std::vector<Control *> ctl;             // node units' control blocks (node-local order)
  std::vector<int> ctl_rank;              // their world_all ranks
  Control *mine = nullptr;                // a unit's own block
  std::vector<Bell *> bells;  // the node's progress processes' doorbells (work), by pindex
  Bell *bell = nullptr;       // unit: its progress process's; progress process: its own
  std::mutex produce;         // enqueueing threads
  uint64_t issued = 0;        // descriptors published (under produce)
};

namespace {

[[noreturn]] void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "DART progress process: %s; ending the job\n", buf);
  dart_abort(70);  // flushes, lets the launcher read the message, MPI_Abort
  std::_Exit(70);
}

void must(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, s, &n);
    die("%s failed: %s", what, s);
  }
}

// A barrier that does not busy-poll on an oversubscribed machine (as dart_barrier):
// progress processes and units wait in it with backoff. Fatal on failure.
void must_barrier(MPI_Comm c) {
  if (!g->oversubscribed) return must(MPI_Barrier(c), "MPI_Barrier");
  MPI_Request req;
  must(MPI_Ibarrier(c, &req), "MPI_Ibarrier");
  if (wait_backoff(&req, "progress") != DART_OK)
    die("MPI_Ibarrier failed: %s", dart_error_detail());
}

std::vector<int> team_group_ranks(const Progress &p, const std::vector<int> &unit_ranks) {
  // The members of a team's comm_p: its units in team order, then the progress
  // processes of their nodes in world_all order.
  std::set<int> ps;
  for (int r : unit_ranks)
    for (int q : p.node_ps[p.peers[r].node]) ps.insert(q);
  std::vector<int> out(unit_ranks);
  out.insert(out.end(), ps.begin(), ps.end());
  return out;
}

MPI_Comm create_group_comm(MPI_Comm parent, const std::vector<int> &ranks, int tag) {
  MPI_Group pg, grp;
  must(MPI_Comm_group(parent, &pg), "MPI_Comm_group");
  must(MPI_Group_incl(pg, (int)ranks.size(), ranks.data(), &grp), "MPI_Group_incl");
  MPI_Comm c = MPI_COMM_NULL;
  must(MPI_Comm_create_group(parent, grp, tag, &c), "MPI_Comm_create_group");
  MPI_Group_free(&grp);
  MPI_Group_free(&pg);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  return c;
}

// The info of a shared window the progress process allocates with units: what the
// units pass (State::shm_info[1]).
MPI_Info contiguous_info() {
  MPI_Info info;
  must(MPI_Info_create(&info), "MPI_Info_create");
  must(MPI_Info_set(info, "alloc_shared_noncontig", "false"), "MPI_Info_set");
  return info;
}

void lock_acquire(const Progress &p) {
  int one = 1, zero = 0, res = 0;
  Backoff b;
  for (;;) {
    must(MPI_Compare_and_swap(&one, &zero, &res, MPI_INT, p.lock_host, 0, p.lock_win),
         "MPI_Compare_and_swap (creation lock)");
    must(MPI_Win_flush(p.lock_host, p.lock_win), "MPI_Win_flush (creation lock)");
    if (res == 0) return;
    b.pause();
  }
}

void lock_release(const Progress &p) {
  int zero = 0, res = 0;
  must(MPI_Fetch_and_op(&zero, &res, MPI_INT, p.lock_host, 0, MPI_REPLACE, p.lock_win),
       "MPI_Fetch_and_op (creation lock)");
  must(MPI_Win_flush(p.lock_host, p.lock_win), "MPI_Win_flush (creation lock)");
}

// Units of team t on this unit's node (t->node_size, also when the node split failed).
int node_members(const Team *t) {
  const int mynode = g->node_of[(size_t)g->myid];
  return (int)std::count_if(t->global.begin(), t->global.end(),
                            [&](int gu) { return g->node_of[(size_t)gu] == mynode; });
}

void post(const CollReq &r) {
  Progress *p = g->progress;
  Control *c = p->mine;
  c->coll = r;
  c->coll_seq.fetch_add(1, std::memory_order_release);
  for (Bell *b : p->bells) bell_ring(b);  // every progress process of the node joins
}

// ---------------------------------------------------------------------------
// the progress process
// ---------------------------------------------------------------------------
class Server {
 public:
  Server(Progress *p, int me, bool oversubscribed)
      : p_(p), me_(me), oversubscribed_(oversubscribed) {}
  [[noreturn]] void run();

 private:
  struct TeamP {
    MPI_Comm comm = MPI_COMM_NULL, node = MPI_COMM_NULL;
  };
  struct SegP {
    MPI_Win shm = MPI_WIN_NULL, win = MPI_WIN_NULL;
  };
  struct Pending {  // an offloaded transfer taken, published once complete
    int unit;       // node-local index
    uint64_t seq;
    Desc d;
    char *bounce;
    size_t cap;
    bool get_rma;  // a get whose data is in `bounce` after the flush
  };
  bool poll_rings();
  void take(int u, uint64_t seq, const Desc &d);
  void finish_pending();
  bool poll_requests();
  void execute(const CollReq &r, const std::vector<std::pair<int, int>> &posters);
  void check_units();
  bool all_exiting() const;
  char *bounce(size_t n, size_t *cap);
  bool cma(int u, bool write, void *here, uint64_t there, size_t n);
  void fault(int u, int err) {
    int32_t zero = 0;
    p_->ctl[u]->error.compare_exchange_strong(zero, err ? err : EIO);
  }
  void pause(unsigned idle);
  bool work_waiting() const;

  Progress *p_;
  int me_;
  bool oversubscribed_;
  std::vector<int> bound_;      // node-local indices of the units bound to me
  std::vector<uint64_t> tail_;  // per node unit: descriptors taken
  std::vector<uint64_t> seen_;  // per node unit: requests seen
  std::map<std::tuple<uint32_t, int, int>, std::vector<std::pair<int, int>>> arrived_;
  std::map<int, TeamP> teams_;
  std::map<std::pair<int, int>, SegP> segs_;
  std::vector<Pending> pending_;
  std::multimap<size_t, char *> free_bounce_;  // by capacity
  std::set<std::pair<MPI_Win, int>> flush_;    // (window, rank) with operations in flight
};

char *Server::bounce(size_t n, size_t *cap) {
  auto it = free_bounce_.lower_bound(n);
  if (it != free_bounce_.end()) {
    *cap = it->first;
    char *b = it->second;
    free_bounce_.erase(it);
    return b;
  }
  size_t c = 4096;
  while (c < n) c <<= 1;  // powers of two: buffers are reused across similar sizes
  char *b = static_cast<char *>(std::malloc(c));
  if (b == nullptr) die("cannot allocate a bounce buffer of %zu bytes", c);
  *cap = c;
  return b;
}

bool Server::cma(int u, bool write, void *here, uint64_t there, size_t n) {
  const pid_t pid = p_->ctl[u]->pid;
  size_t off = 0;
  while (off < n) {
    struct iovec l = {static_cast<char *>(here) + off, n - off};
    struct iovec r = {reinterpret_cast<void *>(there + off), n - off};
    ssize_t k = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                      : process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      return false;
    }
    off += (size_t)k;
  }
  return true;
}

void Server::pause(unsigned idle) {
  // Like Backoff: yield while young; on an oversubscribed machine sleep, so that the
  // units (which have the work) run: at most one poll period (20 us) for the target
  // side's MPI progress, woken at once by a unit with work (Bell).
  if (idle < 64 || !oversubscribed_) {
    sched_yield();
    return;
  }
  bell_sleep(p_->bell, [this] { return work_waiting(); }, 20 * 1000);
}

bool Server::work_waiting() const {
  for (int u : bound_)
    if (p_->ctl[u]->head.load(std::memory_order_relaxed) != tail_[u]) return true;
  for (size_t u = 0; u < p_->ctl.size(); ++u)
    if (p_->ctl[u]->coll_seq.load(std::memory_order_relaxed) != seen_[u]) return true;
  return false;
}

void Server::take(int u, uint64_t seq, const Desc &d) {
  Pending q{u, seq, d, nullptr, 0, false};
  q.bounce = bounce(d.bytes, &q.cap);
  bool ok = true;
  if (d.rank < 0) {  // same node: both addresses are the unit's
    ok = d.put ? cma(u, false, q.bounce, d.local, d.bytes) &&
                     cma(u, true, q.bounce, d.direct, d.bytes)
               : cma(u, false, q.bounce, d.direct, d.bytes) &&
                     cma(u, true, q.bounce, d.local, d.bytes);
    if (!ok) fault(u, errno);
  } else {
    auto it = segs_.find({d.teamid, d.segkey});
    if (it == segs_.end()) {
      fault(u, ENOENT);  // the segment was freed before its transfer completed
    } else if (d.put) {
      if (!cma(u, false, q.bounce, d.local, d.bytes)) {
        fault(u, errno);
      } else {
        must(MPI_Put(q.bounce, (int)d.bytes, MPI_BYTE, d.rank, (MPI_Aint)d.disp, (int)d.bytes,
                     MPI_BYTE, it->second.win),
             "MPI_Put");
        flush_.insert({it->second.win, d.rank});
      }
    } else {
      must(MPI_Get(q.bounce, (int)d.bytes, MPI_BYTE, d.rank, (MPI_Aint)d.disp, (int)d.bytes,
                   MPI_BYTE, it->second.win),
           "MPI_Get");
      flush_.insert({it->second.win, d.rank});
      q.get_rma = true;
    }
  }
  pending_.push_back(q);
}

bool Server::poll_rings() {
  bool any = false;
  for (int u : bound_) {
    Control *c = p_->ctl[u];
    const uint64_t head = c->head.load(std::memory_order_acquire);
    while (tail_[u] < head) {
      const Desc d = c->ring[tail_[u] % kRing];
      take(u, ++tail_[u], d);
      any = true;
    }
  }
  return any;
}

void Server::finish_pending() {
  // Per target: under MPICH 4.0.2 (ch4:ucx, shared-memory transports) MPI_Win_flush_all
  // returned before a large MPI_Get had delivered its data; MPI_Win_flush does not.
  for (auto &wr : flush_) must(MPI_Win_flush(wr.second, wr.first), "MPI_Win_flush");
  flush_.clear();
  for (Pending &q : pending_) {
    if (q.get_rma && !cma(q.unit, true, q.bounce, q.d.local, q.d.bytes)) fault(q.unit, errno);
    free_bounce_.emplace(q.cap, q.bounce);
    Control *c = p_->ctl[q.unit];
    c->done.store(q.seq, std::memory_order_release);
    bell_ring(&c->done_bell);
  }
  pending_.clear();
  // Keep a few buffers, not every size ever seen.
  while (free_bounce_.size() > 8) {
    std::free(free_bounce_.begin()->second);
    free_bounce_.erase(free_bounce_.begin());
  }
}

bool Server::poll_requests() {
  bool any = false;
  for (size_t u = 0; u < p_->ctl.size(); ++u) {
    Control *c = p_->ctl[u];
    const uint64_t s = c->coll_seq.load(std::memory_order_acquire);
    if (s == seen_[u]) continue;
    seen_[u] = s;  // a unit posts its next request only after this one is served
    const CollReq r = c->coll;
    auto key = std::make_tuple(r.op, r.teamid, r.segkey);
    auto &v = arrived_[key];
    v.emplace_back((int)u, r.team_rank);
    if ((int)v.size() == r.node_members) {
      std::vector<std::pair<int, int>> posters;
      posters.swap(v);
      arrived_.erase(key);
      execute(r, posters);
    }
    any = true;
  }
  return any;
}

void Server::execute(const CollReq &r, const std::vector<std::pair<int, int>> &posters) {
  switch (r.op) {
    case OpTeamCreate: {
      // The member list comes from the team's first unit on this node.
      int leader = posters[0].first, lowest = posters[0].second;
      for (auto &pr : posters)
        if (pr.second < lowest) lowest = pr.second, leader = pr.first;
      MPI_Status st;
      int n = 0;
      must(MPI_Probe(p_->ctl_rank[leader], kTagMembers, p_->world_all, &st), "MPI_Probe");
      MPI_Get_count(&st, MPI_INT, &n);
      std::vector<int> units((size_t)n);
      must(MPI_Recv(units.data(), n, MPI_INT, p_->ctl_rank[leader], kTagMembers, p_->world_all,
                    MPI_STATUS_IGNORE),
           "MPI_Recv");
      TeamP tp;
      tp.comm = create_group_comm(p_->world_all, team_group_ranks(*p_, units), r.teamid);
      int rank = 0;
      MPI_Comm_rank(tp.comm, &rank);
      must(MPI_Comm_split(tp.comm, p_->peers[me_].node, rank, &tp.node), "MPI_Comm_split");
      must_barrier(tp.comm);
      teams_[r.teamid] = tp;
      break;
    }
    case OpTeamFree: {
      auto it = teams_.find(r.teamid);
      if (it == teams_.end()) die("free of unknown team %d", r.teamid);
      must_barrier(it->second.comm);
      MPI_Comm_free(&it->second.node);
      MPI_Comm_free(&it->second.comm);
      teams_.erase(it);
      break;
    }
    case OpSegCreate: {
      auto it = teams_.find(r.teamid);
      if (it == teams_.end()) die("allocation on unknown team %d", r.teamid);
      SegP sp;
      MPI_Info info = contiguous_info();
      char *base = nullptr;
      must(MPI_Win_allocate_shared(0, 1, info, it->second.node, &base, &sp.shm),
           "MPI_Win_allocate_shared");
      MPI_Info_free(&info);
      MPI_Aint sz0 = 0, szl = 0;
      int du = 0;
      char *b0 = nullptr, *bl = nullptr;
      must(MPI_Win_shared_query(sp.shm, 0, &sz0, &du, &b0), "MPI_Win_shared_query");
      must(MPI_Win_shared_query(sp.shm, r.node_members - 1, &szl, &du, &bl),
           "MPI_Win_shared_query");
      // The node's parts are contiguous; the window starts at the 16-byte boundary at or
      // below the first (quirk win-create-base-alignment), as the units compute it.
      char *start = reinterpret_cast<char *>(reinterpret_cast<uintptr_t>(b0) & ~uintptr_t(15));
      // A creation that fails on some unit (all-or-nothing: it is discarded) may leave
      // parts empty and their addresses null: then nothing is exposed.
      const bool expose = p_->peers[me_].pindex == 0 && b0 != nullptr && bl != nullptr &&
                          bl + szl > start;
      const MPI_Aint region = expose ? (MPI_Aint)((bl + szl) - start) : 0;
      must(MPI_Win_create(expose ? start : nullptr, expose ? region : 0, 1, MPI_INFO_NULL,
                          it->second.comm, &sp.win),
           "MPI_Win_create");
      MPI_Win_set_errhandler(sp.win, MPI_ERRORS_RETURN);
      must(MPI_Win_lock_all(MPI_MODE_NOCHECK, sp.win), "MPI_Win_lock_all");
      must_barrier(it->second.comm);
      segs_[{r.teamid, r.segkey}] = sp;
      break;
    }
    case OpSegFree: {
      auto t = teams_.find(r.teamid);
      auto it = segs_.find({r.teamid, r.segkey});
      if (t == teams_.end() || it == segs_.end())
        die("free of unknown segment %d of team %d", r.segkey, r.teamid);
      if (r.flag) {
        MPI_Win_unlock_all(it->second.win);
        must(MPI_Win_free(&it->second.win), "MPI_Win_free");
        must(MPI_Win_free(&it->second.shm), "MPI_Win_free");
      }
      must_barrier(t->second.comm);
      segs_.erase(it);
      break;
    }
    default: die("unknown request %u", r.op);
  }
}

bool Server::all_exiting() const {
  for (const Control *c : p_->ctl)
    if (c->exiting.load(std::memory_order_acquire) == 0) return false;
  return true;
}

// A unit that ended without dart_exit (and without taking the job down) would leave its
// progress processes waiting for ever: end the job instead.
void Server::check_units() {
  for (size_t u = 0; u < p_->ctl.size(); ++u) {
    const Control *c = p_->ctl[u];
    if (c->exiting.load(std::memory_order_acquire)) continue;
    bool gone = kill(c->pid, 0) != 0 && errno == ESRCH;
    if (!gone) {
      std::ifstream stat("/proc/" + std::to_string(c->pid) + "/stat");
      std::string pid, comm, state;
      if (stat >> pid >> comm >> state) gone = state == "Z" || state == "X";
    }
    if (gone)
      die("unit on MPI_COMM_WORLD rank %d (pid %d) ended without dart_exit", p_->ctl_rank[u],
          (int)c->pid);
  }
}

void Server::run() {
  // A sleeping poll should last the 20 us asked for, not the 50 us of default timer slack
  // more: the latency of every served operation is a poll period when the machine is
  // oversubscribed.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  const size_t n = p_->ctl.size();
  tail_.assign(n, 0);
  seen_.assign(n, 0);
  const int pindex = p_->peers[me_].pindex;
  for (size_t u = 0; u < n; ++u)
    if ((int)(u % (size_t)p_->k) == pindex) bound_.push_back((int)u);
  for (int u : bound_) {  // can I reach my units' memory (cross-memory attach)?
    int32_t pid = 0;
    const bool ok = cma(u, false, &pid, p_->ctl[u]->self, sizeof pid) && pid == p_->ctl[u]->pid;
    p_->ctl[u]->cma.store(ok ? 1 : 2, std::memory_order_release);
  }
  unsigned idle = 0;
  unsigned long polls = 0;
  for (;;) {
    bool busy = poll_rings();
    if (!pending_.empty()) finish_pending();
    busy = poll_requests() || busy;
    if (!busy && all_exiting() && arrived_.empty()) break;
    // Target side: MPI progress for the RMA and atomics addressed to this process.
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, p_->world_all, &flag, MPI_STATUS_IGNORE);
    if ((++polls & 1023) == 0) check_units();
    if (busy) {
      idle = 0;
    } else {
      pause(idle++);
    }
  }
  // dart_exit of the units (progress_stop): the same frees in the same order.
  MPI_Win_unlock_all(p_->lock_win);
  MPI_Win_free(&p_->lock_win);
  MPI_Win_free(&p_->ctl_win);
  MPI_Comm_free(&p_->node_all);
  MPI_Comm_free(&p_->world_all);
  MPI_Finalize();
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(0);
}

}  // namespace

// ---------------------------------------------------------------------------
// start and stop
// ---------------------------------------------------------------------------
dart_ret_t progress_start(State *s, const char *fn) {
  const int k = s->cfg.progress_per_node;
  if (!s->mpi_started_by_dart)
    return fail(DART_ERR_INVAL, fn,
                "DART_PROGRESS_PER_NODE=%d: progress processes need dart_init to start MPI; "
                "MPI was initialized by the application, whose MPI_COMM_WORLD would contain "
                "them",
                k);
  int wsize = 0, wr = 0;
  DART_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize), fn);
  if (wsize == 1)
    return fail(DART_ERR_INVAL, fn,
                "DART_PROGRESS_PER_NODE=%d in a run of one process (a singleton, or mpiexec "
                "-n 1): there is no process to serve as a progress process",
                k);
  std::unique_ptr<Progress> p(new Progress());
  p->k = k;
  DART_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &p->world_all), fn);
  DART_MPI(MPI_Comm_set_errhandler(p->world_all, MPI_ERRORS_RETURN), fn);
  DART_MPI(MPI_Comm_rank(p->world_all, &wr), fn);
  MPI_Comm shm = MPI_COMM_NULL;
  DART_MPI(MPI_Comm_split_type(p->world_all, MPI_COMM_TYPE_SHARED, wr, MPI_INFO_NULL, &shm), fn);
  int r = 0, m = 0;
  MPI_Comm_rank(shm, &r);
  MPI_Comm_size(shm, &m);
  // Groups of DART_UNITS_PER_NODE + k processes (the whole machine without emulation);
  // the last k of each group serve it.
  const int upn = s->cfg.units_per_node;
  const int group = upn > 0 ? upn + k : m;
  const int gi = r / group, start = gi * group, gsize = std::min(group, m - start);
  int bad = gsize <= k ? gsize : 0, worst = 0;
  DART_MPI(MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, p->world_all), fn);
  if (worst > 0) {
    MPI_Comm_free(&shm);
    return fail(DART_ERR_INVAL, fn,
                "DART_PROGRESS_PER_NODE=%d: a node has only %d process(es), it needs at "
                "least %d (its progress processes and a unit); start units + %d per node "
                "processes (python/dartpy/launch.py, job_processes)",
                k, worst, k + 1, k);
  }
  const bool is_p = (r - start) >= gsize - k;
  const int pindex = is_p ? (r - start) - (gsize - k) : -1;
  DART_MPI(MPI_Comm_split(shm, gi, r, &p->node_all), fn);
  const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  s->oversubscribed = s->cfg.wait == Config::Wait::Sleep ||
                      (s->cfg.wait == Config::Wait::Auto && m > ncpu);
  MPI_Comm_free(&shm);
  int leader = wr;
  DART_MPI(MPI_Allreduce(&wr, &leader, 1, MPI_INT, MPI_MIN, p->node_all), fn);
  MPI_Comm units = MPI_COMM_NULL;
  DART_MPI(MPI_Comm_split(p->world_all, is_p ? 1 : 0, wr, &units), fn);
  int unit = -1;
  if (!is_p) MPI_Comm_rank(units, &unit);
  int mine3[3] = {unit, leader, pindex};
  std::vector<int> all(3 * (size_t)wsize);
  DART_MPI(MPI_Allgather(mine3, 3, MPI_INT, all.data(), 3, MPI_INT, p->world_all), fn);
  std::vector<int> leaders;
  for (int q = 0; q < wsize; ++q) leaders.push_back(all[3 * (size_t)q + 1]);
  std::sort(leaders.begin(), leaders.end());
  leaders.erase(std::unique(leaders.begin(), leaders.end()), leaders.end());
  p->peers.resize((size_t)wsize);
  p->node_ps.assign(leaders.size(), {});
  int nunits = 0;
  for (int q = 0; q < wsize; ++q) {
    Peer &pe = p->peers[(size_t)q];
    pe.unit = all[3 * (size_t)q];
    pe.node = (int)(std::lower_bound(leaders.begin(), leaders.end(), all[3 * (size_t)q + 1]) -
                    leaders.begin());
    pe.pindex = all[3 * (size_t)q + 2];
    if (pe.unit >= 0) ++nunits;
    if (pe.unit < 0) p->node_ps[(size_t)pe.node].push_back(q);
  }
  p->unit_rank.assign((size_t)nunits, -1);
  for (int q = 0; q < wsize; ++q)
    if (p->peers[(size_t)q].unit >= 0) p->unit_rank[(size_t)p->peers[(size_t)q].unit] = q;
  // Control blocks: one per unit in its node's shared memory.
  char *base = nullptr;
  // 64 bytes of slack: a part may start 8 bytes past a page (quirk shared-part-alignment),
  // and Control is 64-byte aligned; every process aligns up from its own mapping.
  auto align64 = [](void *q) {
    return reinterpret_cast<Control *>((reinterpret_cast<uintptr_t>(q) + 63) & ~uintptr_t(63));
  };
  if (int arc = MPI_Win_allocate_shared((MPI_Aint)((is_p ? sizeof(Bell) : sizeof(Control)) + 64), 1,
                                        MPI_INFO_NULL, p->node_all, &base, &p->ctl_win);
      arc != MPI_SUCCESS) {
    // Shared memory of MPI lives in /dev/shm, which containers often cap (64 MiB).
    struct statvfs vfs;
    const unsigned long long avail = statvfs("/dev/shm", &vfs) == 0
                                         ? (unsigned long long)vfs.f_bavail * vfs.f_frsize
                                         : 0;
    mpi_fail(arc, fn, "MPI_Win_allocate_shared");
    const std::string why = dart_error_detail();
    return fail(DART_ERR_NOMEM, fn,
                "the progress processes' control blocks (%zu bytes per unit) could not be "
                "allocated in shared memory: %s; /dev/shm has %llu bytes free (containers "
                "often cap it at 64 MiB: raise it, e.g. docker --shm-size)",
                sizeof(Control) + 64, why.c_str(), avail);
  }
  if (is_p) {
    Bell *b = reinterpret_cast<Bell *>(align64(base));
    b->word.store(0, std::memory_order_relaxed);
    b->sleepers.store(0, std::memory_order_relaxed);
  } else {
    p->mine = align64(base);
    std::memset(static_cast<void *>(p->mine), 0, sizeof(Control));
    p->mine->pid = (int32_t)getpid();
    p->mine->self = reinterpret_cast<uint64_t>(&p->mine->pid);
    // Let the progress processes read and write this process's memory (Yama's
    // ptrace_scope=1 allows it only to ancestors otherwise).
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  }
  int nsize = 0, node_rank = 0;
  MPI_Comm_size(p->node_all, &nsize);
  MPI_Comm_rank(p->node_all, &node_rank);
  std::vector<int> node_world((size_t)nsize);
  DART_MPI(MPI_Allgather(&wr, 1, MPI_INT, node_world.data(), 1, MPI_INT, p->node_all), fn);
  DART_MPI(MPI_Barrier(p->node_all), fn);
  p->bells.assign((size_t)k, nullptr);
  size_t my_index = 0;  // a unit's node-local index
  for (int q = 0; q < nsize; ++q) {
    const Peer &pe = p->peers[(size_t)node_world[(size_t)q]];
    MPI_Aint sz = 0;
    int du = 0;
    void *c = nullptr;
    DART_MPI(MPI_Win_shared_query(p->ctl_win, q, &sz, &du, &c), fn);
    if (pe.unit < 0) {
      p->bells[(size_t)pe.pindex] = reinterpret_cast<Bell *>(align64(c));
      continue;
    }
    if (q == node_rank) my_index = p->ctl.size();
    p->ctl.push_back(align64(c));
    p->ctl_rank.push_back(node_world[(size_t)q]);
  }
  // Units are bound to the progress processes round-robin by node-local index
  // (Server::run's bound_).
  p->bell = is_p ? p->bells[(size_t)pindex] : p->bells[my_index % (size_t)k];
  // The job-wide creation lock: a word at the first progress process.
  p->lock_host = p->node_ps[0][0];
  int *word = nullptr;
  DART_MPI(MPI_Win_allocate(wr == p->lock_host ? (MPI_Aint)sizeof(int) : 0, sizeof(int),
                            MPI_INFO_NULL, p->world_all, &word, &p->lock_win),
           fn);
  if (wr == p->lock_host) *word = 0;
  DART_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, p->lock_win), fn);
  DART_MPI(MPI_Barrier(p->world_all), fn);
  if (is_p) {
    MPI_Comm_free(&units);
    g = s;  // Backoff and the fault hook read it; a progress process never returns
    Server srv(p.get(), wr, s->oversubscribed);
    srv.run();
  }
  s->world = units;
  s->nnodes = (int)leaders.size();
  s->node_of.assign((size_t)nunits, 0);
  for (int u = 0; u < nunits; ++u)
    s->node_of[(size_t)u] = p->peers[(size_t)p->unit_rank[(size_t)u]].node;
  s->progress = p.release();
  return DART_OK;
}

dart_ret_t progress_stop(State *s, const char *fn) {
  Progress *p = s->progress;
  if (p == nullptr) return DART_OK;
  p->mine->exiting.store(1, std::memory_order_release);
  dart_ret_t rc = DART_OK;
  auto step = [&](int mrc, const char *what) {
    if (mrc != MPI_SUCCESS && rc == DART_OK) rc = mpi_fail(mrc, fn, what);
  };
  step(MPI_Win_unlock_all(p->lock_win), "MPI_Win_unlock_all");
  step(MPI_Win_free(&p->lock_win), "MPI_Win_free");
  step(MPI_Win_free(&p->ctl_win), "MPI_Win_free");
  step(MPI_Comm_free(&p->node_all), "MPI_Comm_free");
  step(MPI_Comm_free(&p->world_all), "MPI_Comm_free");
  delete p;
  s->progress = nullptr;
  return rc;
}

// ---------------------------------------------------------------------------
// creations with the progress processes
// ---------------------------------------------------------------------------
dart_ret_t progress_locked(MPI_Comm comm, const std::function<void()> &fn, const char *fn_name) {
  const Progress &p = *g->progress;
  int rank = 0;
  DART_MPI(MPI_Comm_rank(comm, &rank), fn_name);
  // Every unit of the team is here before the lock is taken, so the holder never waits
  // for a unit that waits for the lock.
  must_barrier(comm);
  if (rank == 0) lock_acquire(p);
  must_barrier(comm);
  fn();
  must_barrier(comm);
  if (rank == 0) lock_release(p);
  return DART_OK;
}

void progress_team_create(Team *t, Agreement *a, const char *fn) {
  const Progress &p = *g->progress;
  std::vector<int> units((size_t)t->size);
  for (int u = 0; u < t->size; ++u) units[(size_t)u] = p.unit_rank[(size_t)t->global[(size_t)u]];
  const std::vector<int> ranks = team_group_ranks(p, units);
  const int mynode = g->node_of[(size_t)g->myid];
  int node_first = 0;  // the team's first unit on this node sends the member list
  while (g->node_of[(size_t)t->global[(size_t)node_first]] != mynode) ++node_first;
  const CollReq r{OpTeamCreate, t->id, 0, node_members(t), t->myid, 0};
  a->step(progress_locked(
      t->comm,
      [&] {
        post(r);
        if (node_first == t->myid)
          for (int q : p.node_ps[(size_t)mynode])
            must(MPI_Send(units.data(), (int)units.size(), MPI_INT, q, kTagMembers, p.world_all),
                 "MPI_Send");
        t->comm_p = create_group_comm(p.world_all, ranks, t->id);
        must(MPI_Comm_split(t->comm_p, mynode, t->myid, &t->node_comm_p), "MPI_Comm_split");
        MPI_Comm_set_errhandler(t->node_comm_p, MPI_ERRORS_RETURN);
        must_barrier(t->comm_p);
      },
      fn));
  // The first progress process of a unit's node exposes its memory.
  t->served_rank.assign((size_t)t->size, -1);
  for (int u = 0; u < t->size; ++u) {
    const int first = p.node_ps[(size_t)g->node_of[(size_t)t->global[(size_t)u]]][0];
    t->served_rank[(size_t)u] = (int)(std::find(ranks.begin(), ranks.end(), first) - ranks.begin());
  }
}

void progress_team_free(Team *t) {
  const CollReq r{OpTeamFree, t->id, 0, node_members(t), t->myid, 0};
  progress_locked(
      t->comm,
      [&] {
        post(r);
        must_barrier(t->comm_p);
        MPI_Comm_free(&t->node_comm_p);
        MPI_Comm_free(&t->comm_p);
      },
      "dart_team_destroy");
}

void progress_segment_create(Team *t, Segment *s, size_t padded, Agreement *a, const char *fn) {
  s->pkey = ++t->progress_segments;
  const CollReq r{OpSegCreate, t->id, s->pkey, node_members(t), t->myid, 0};
  uint64_t disp = 0;
  a->step(progress_locked(
      t->comm,
      [&] {
        post(r);
        char *base = nullptr;
        must(MPI_Win_allocate_shared((MPI_Aint)padded, 1, g->shm_info[1], t->node_comm_p, &base,
                                     &s->shm_win),
             "MPI_Win_allocate_shared");
        MPI_Win_set_errhandler(s->shm_win, MPI_ERRORS_RETURN);
        auto align = [](char *q) {
          return reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(q) + 63) / 64 * 64);
        };
        s->direct.assign((size_t)t->size, nullptr);
        char *b0 = nullptr;
        for (int u = 0; u < t->size; ++u) {
          if (t->node_rank[(size_t)u] < 0) continue;
          MPI_Aint sz = 0;
          int du = 0;
          char *q = nullptr;
          must(MPI_Win_shared_query(s->shm_win, t->node_rank[(size_t)u], &sz, &du, &q),
               "MPI_Win_shared_query");
          if (t->node_rank[(size_t)u] == 0) b0 = q;
          s->direct[(size_t)u] = align(q);
        }
        s->local_base = s->direct[(size_t)t->myid];
        char *start = reinterpret_cast<char *>(reinterpret_cast<uintptr_t>(b0) & ~uintptr_t(15));
        disp = (uint64_t)(s->local_base - start);
        must(MPI_Win_create(nullptr, 0, 1, MPI_INFO_NULL, t->comm_p, &s->win), "MPI_Win_create");
        MPI_Win_set_errhandler(s->win, MPI_ERRORS_RETURN);
        must_barrier(t->comm_p);
      },
      fn));
  // The fault hook's sites of this creation (DART_FAULT; the MPI calls above succeeded).
  if (fault(FaultSite::WinAllocateShared))
    a->step(fault_fail(FaultSite::WinAllocateShared, fn, "MPI_Win_allocate_shared"));
  if (fault(FaultSite::WinSharedQuery))
    a->step(fault_fail(FaultSite::WinSharedQuery, fn, "MPI_Win_shared_query"));
  if (fault(FaultSite::WinCreate)) a->step(fault_fail(FaultSite::WinCreate, fn, "MPI_Win_create"));
  // Every unit's displacement in the window of its node's progress process.
  s->pads.assign((size_t)t->size, 0);
  a->step(mpi_check(MPI_Allgather(&disp, 1, MPI_UINT64_T, s->pads.data(), 1, MPI_UINT64_T, t->comm),
                    fn, "MPI_Allgather"));
  s->ranks = t->served_rank;
}

dart_ret_t progress_segment_free(Segment *s, bool windows, const char *fn) {
  Team *t = s->team;
  const CollReq r{OpSegFree, t->id, s->pkey, node_members(t), t->myid, windows ? 1 : 0};
  dart_ret_t rc = DART_OK;
  auto step = [&](int mrc, const char *what) {  // every step runs; the first error wins
    if (mrc != MPI_SUCCESS && rc == DART_OK) rc = mpi_fail(mrc, fn, what);
  };
  progress_locked(
      t->comm,
      [&] {
        post(r);
        if (windows) {
          if (s->locked_win) step(MPI_Win_unlock_all(s->win), "MPI_Win_unlock_all");
          step(MPI_Win_free(&s->win), "MPI_Win_free");
          if (s->locked_shm) step(MPI_Win_unlock_all(s->shm_win), "MPI_Win_unlock_all");
          step(MPI_Win_free(&s->shm_win), "MPI_Win_free");
        }
        must_barrier(t->comm_p);
      },
      fn);
  s->win = s->shm_win = MPI_WIN_NULL;
  return rc;
}

// ---------------------------------------------------------------------------
// origin side
// ---------------------------------------------------------------------------
bool progress_offload_wanted(size_t bytes) {
  const Progress *p = g->progress;
  return p != nullptr && bytes >= g->cfg.progress_threshold && bytes <= 0x7fffffff &&
         p->mine->cma.load(std::memory_order_acquire) == 1;
}

uint64_t progress_offload(bool put, void *local, const Target &t, size_t bytes) {
  // Remote targets only in windows the progress processes hold (not registered memory),
  // and not separate-model memory (it needs MPI_Win_sync in the unit).
  if (t.seg->separate || (t.direct == nullptr && t.seg->ranks.empty())) return 0;
  Progress &p = *g->progress;
  Control *c = p.mine;
  std::lock_guard<std::mutex> lock(p.produce);
  Backoff b;
  while (p.issued - c->done.load(std::memory_order_acquire) >= (uint64_t)kRing) b.pause();
  Desc &d = c->ring[p.issued % kRing];
  d.put = put ? 1 : 0;
  d.teamid = t.seg->team->id;
  d.segkey = t.seg->pkey;
  d.rank = t.direct ? -1 : t.rank;
  d.disp = t.direct ? 0 : t.disp;
  d.direct = reinterpret_cast<uint64_t>(t.direct);
  d.local = reinterpret_cast<uint64_t>(local);
  d.bytes = bytes;
  const uint64_t seq = ++p.issued;
  c->head.store(seq, std::memory_order_release);
  bell_ring(p.bell);
  return seq;
}

bool progress_done(uint64_t seq) {
  return g->progress->mine->done.load(std::memory_order_acquire) >= seq;
}

dart_ret_t progress_wait(uint64_t seq, const char *fn) {
  Control *c = g->progress->mine;
  auto complete = [c, seq] { return c->done.load(std::memory_order_acquire) >= seq; };
  // Backoff's policy, but its sleeps wait until the progress process rings (at most 1 ms
  // at a time: it may be gone with the job).
  Backoff b;
  while (!complete()) {
    if (b.next_sleeps())
      bell_sleep(&c->done_bell, complete, 1000 * 1000);
    else
      sched_yield();
  }
  if (int err = c->error.exchange(0, std::memory_order_acq_rel); err != 0)
    return fail(DART_ERR_OTHER, fn,
                "the progress process could not carry out an offloaded transfer: %s",
                err == ENOENT ? "its segment was freed before it completed" : std::strerror(err));
  return DART_OK;
}

dart_ret_t progress_drain_slow(const char *fn) {
  Progress &p = *g->progress;
  uint64_t last;
  {
    std::lock_guard<std::mutex> lock(p.produce);
    last = p.issued;
  }
  if (p.mine->done.load(std::memory_order_acquire) >= last &&
      p.mine->error.load(std::memory_order_relaxed) == 0)
    return DART_OK;
  return progress_wait(last, fn);
}

}  // namespace detail
}  // namespace dart
