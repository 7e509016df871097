// Error codes, per-thread detail messages and the translation of MPI errors.
#include "internal.h"

#include <cstdio>
#include <cstring>

namespace dart {
namespace detail {

namespace {
thread_local char t_detail[1024] = "";
}

dart_ret_t fail(dart_ret_t code, const char *fn, const char *fmt, ...) {
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
  return fail(code, fn, "%s failed: %s", call, msg);
}

dart_ret_t lookup_error(Miss m, const dart_gptr_t &gp, size_t extent, const char *fn) {
  const int team = gp.teamid, segid = gp.segid, unit = gp.unitid;
  switch (m) {
    case Miss::NotInit:
      return check_init(fn);
    case Miss::BadTeamId:
    case Miss::NoTeam: {
      Team *t = nullptr;
      return get_team(gp.teamid, fn, &t);  // its messages
    }
    case Miss::NoSegment:
      return fail(DART_ERR_NOTFOUND, fn,
                  "segment %d of team %d does not exist (unknown or freed)", segid, team);
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
    case Miss::None:
      break;
  }
  return DART_OK;
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
