// SPDX-License-Identifier: BSD-3-Clause
// Error codes, per-thread detail messages and the translation of MPI errors.
#include "internal.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

namespace dart {
namespace detail {

namespace {
thread_local char t_detail[1024] = "";
thread_local int t_errno = 0;

// The errno of an MPI-IO error class (0 for one that is no file-system error).
int errno_of_class(int cls) {
  switch (cls) {
    case MPI_ERR_NO_SUCH_FILE: return ENOENT;
    case MPI_ERR_ACCESS: return EACCES;
    case MPI_ERR_NO_SPACE: return ENOSPC;
    case MPI_ERR_QUOTA: return EDQUOT;
    case MPI_ERR_READ_ONLY: return EROFS;
    case MPI_ERR_FILE_EXISTS: return EEXIST;
    case MPI_ERR_IO: return EIO;
    default: return 0;
  }
}
}  // namespace

dart_ret_t with_errno(dart_ret_t code, int errnum) {
  t_errno = errnum;
  return code;
}

int last_errno() { return t_errno; }

dart_ret_t fail(dart_ret_t code, const char *fn, const char *fmt, ...) {
  t_errno = 0;
  int n = std::snprintf(t_detail, sizeof t_detail, "%s: ", fn);
  if (n < 0 || (size_t)n >= sizeof t_detail) n = 0;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_detail + n, sizeof t_detail - (size_t)n, fmt, ap);
  va_end(ap);
  return code;
}

dart_ret_t mpi_fail(int mpi_rc, const char *fn, const char *what) {
  char msg[MPI_MAX_ERROR_STRING + 1] = "";
  int len = 0, cls = MPI_ERR_OTHER;
  if (MPI_Error_string(mpi_rc, msg, &len) != MPI_SUCCESS) {
    std::snprintf(msg, sizeof msg, "MPI error code %d", mpi_rc);
  }
  MPI_Error_class(mpi_rc, &cls);
  dart_ret_t code = (cls == MPI_ERR_NO_MEM) ? DART_ERR_NOMEM : DART_ERR_OTHER;
  // keep only the call's name, not its argument list
  char call[96];
  std::snprintf(call, sizeof call, "%s", what);
  if (char *p = std::strchr(call, '(')) *p = '\0';
  return with_errno(fail(code, fn, "%s failed: %s", call, msg), errno_of_class(cls));
}

dart_ret_t lookup_error(Miss m, const dart_gptr_t &gp, size_t extent, const char *fn) {
  const int team = gp.teamid, segid = gp.segid, unit = gp.unitid;
  switch (m) {
    case Miss::NotInit: return check_init(fn);
    case Miss::BadTeamId:
    case Miss::NoTeam: {
      Team *t = nullptr;
      return get_team(gp.teamid, fn, &t);  // its messages
    }
    case Miss::NoSegment:
      return fail(DART_ERR_NOTFOUND, fn, "segment %d of team %d does not exist (unknown or freed)",
                  segid, team);
    // The team and segment are looked up again (a thread may have freed them since).
    case Miss::BadUnit: {
      const Team *t = g->teams.get((size_t)team);
      return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d) of team %d", unit,
                  t ? t->size : 0, team);
    }
    case Miss::PastEnd: {
      const Team *t = g->teams.get((size_t)team);
      const Segment *seg = t ? t->segment(gp.segid) : nullptr;
      return fail(DART_ERR_INVAL, fn,
                  "offset %llu + %zu bytes is past the end of unit %d's %zu-byte part of "
                  "segment %d",
                  (unsigned long long)gp.addr_or_offs.offset, extent, unit,
                  seg ? seg->size_of(unit) : (size_t)0, segid);
    }
    case Miss::None: break;
  }
  return DART_OK;
}

// ---------------------------------------------------------------------------
// the fault hook and the agreement of collective creations (internal.h)
// ---------------------------------------------------------------------------

bool fault_fires(FaultSite site) {
  if ((int)site != g->fault_site || g->myid != g->cfg.fault_unit) return false;
  const long pass = ++g->fault_passes;
  return pass >= g->cfg.fault_first &&
         (g->cfg.fault_count == 0 || pass - g->cfg.fault_first < g->cfg.fault_count);
}

bool fault_armed_fires(FaultSite site) { return g != nullptr && fault(site); }

dart_ret_t fault_fail(FaultSite site, const char *fn, const char *what) {
  return fail(site == FaultSite::Memalloc ? DART_ERR_NOMEM : DART_ERR_OTHER, fn,
              "%s failed: fault injected by DART_FAULT on unit %d", what, g->myid);
}

dart_ret_t Agreement::agree(MPI_Comm comm, const Team *team, const char *fn) {
  int rank = 0;
  missing_all_ = (1u << kObjects) - 1;  // until agreed: free nothing collectively
  if (int mrc = MPI_Comm_rank(comm, &rank); mrc != MPI_SUCCESS)
    return mpi_fail(mrc, fn, "MPI_Comm_rank");
  // One MPI_MAX reduction: [0] the lowest failing rank r as INT_MAX - r (-1: none),
  // [1..kObjects] one flag per object missing on some unit, then the largest size and
  // the negated smallest one (the sizes are equal if they agree).
  constexpr int n = 1 + kObjects + 2;
  long long in[n], out[n];
  in[0] = rc_ == DART_OK ? -1 : INT_MAX - rank;
  for (unsigned b = 0; b < kObjects; ++b) in[1 + b] = (missing_ >> b) & 1u;
  const long long sz = size_ > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)size_;
  in[1 + kObjects] = sz;
  in[2 + kObjects] = -sz;
  if (int mrc = MPI_Allreduce(in, out, n, MPI_LONG_LONG, MPI_MAX, comm); mrc != MPI_SUCCESS)
    return mpi_fail(mrc, fn, "MPI_Allreduce");
  missing_all_ = 0;
  for (unsigned b = 0; b < kObjects; ++b) missing_all_ |= out[1 + b] ? 1u << b : 0u;
  same_size_ = out[1 + kObjects] == -out[2 + kObjects];
  if (out[0] < 0) return DART_OK;
  // Failure path (cold): the first failing unit tells the others its code and message.
  const int root = INT_MAX - (int)out[0];
  struct {
    int code;
    char text[sizeof t_detail];
  } msg;
  msg.code = (int)rc_;
  std::memcpy(msg.text, t_detail, sizeof msg.text);
  if (int mrc = MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, root, comm); mrc != MPI_SUCCESS)
    return mpi_fail(mrc, fn, "MPI_Bcast");
  const dart_ret_t code = (dart_ret_t)msg.code;
  char *text = msg.text;
  if (rc_ != DART_OK) return rc_;  // its own message stands
  msg.text[sizeof msg.text - 1] = '\0';
  if (team != nullptr && root < team->size)
    return fail(code, fn, "another unit failed: unit %d of team %d (global unit %d): %s", root,
                (int)team->id, team->global[root], text);
  return fail(code, fn, "another unit failed: rank %d: %s", root, text);
}

}  // namespace detail
}  // namespace dart

using namespace dart::detail;

extern "C" const char *dart_strerror(dart_ret_t ret) {
  switch (ret) {
    case DART_OK: return "success";
    case DART_PENDING: return "operation still pending";
    case DART_ERR_INVAL: return "invalid argument";
    case DART_ERR_NOTFOUND: return "not found (unknown or freed object)";
    case DART_ERR_NOTINIT: return "DART is not initialized";
    case DART_ERR_NOMEM: return "out of memory";
    case DART_ERR_OTHER: return "other error (see dart_error_detail)";
    default: return "unknown DART return code";
  }
}

extern "C" const char *dart_error_detail(void) { return t_detail; }

extern "C" int dart_error_errno(void) { return t_errno; }
