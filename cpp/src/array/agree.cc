// SPDX-License-Identifier: BSD-3-Clause
// The agreement of the arrays' collective calls (array.h): all or nothing over a team.
#include "array.h"

#include <cstdio>
#include <cstring>

namespace dart {
namespace array {

std::string without_fn(const std::string &detail, const char *fn) {
  const std::string prefix = std::string(fn) + ": ";
  return detail.compare(0, prefix.size(), prefix) == 0 ? detail.substr(prefix.size()) : detail;
}

dart_ret_t agree(dart_team_t team, dart_ret_t local, uint64_t key,
                 const std::function<std::string()> &describe, const char *fn, bool uniform) {
  size_t n = 0;
  dart_team_unit_t me;
  DART_ARRAY_TRY(dart_team_size(team, &n), fn);
  DART_ARRAY_TRY(dart_team_myid(team, &me), fn);
  const std::string own = local == DART_OK ? "" : without_fn(dart_error_detail(), fn);
  const int own_errno = local == DART_OK ? 0 : last_errno();
  const unsigned long long mine[2] = {local == DART_OK ? 0ull : 1ull, key};
  std::vector<unsigned long long> all(2 * n);
  DART_ARRAY_TRY(dart_allgather(mine, all.data(), 2, DART_TYPE_ULONGLONG, team), fn);
  struct Message {
    int32_t code;
    int32_t errnum;  // the file system's errno behind it (dart_error_errno)
    char text[1000];
  };
  auto share = [&](int root, int32_t code, const std::string &text, Message *m) {
    std::memset(m, 0, sizeof *m);
    m->code = code;
    m->errnum = own_errno;
    std::snprintf(m->text, sizeof m->text, "%s", text.c_str());
    return dart_bcast(m, sizeof *m, DART_TYPE_BYTE, dart_team_unit_t{root}, team);
  };
  for (size_t u = 0; u < n; ++u) {
    if (all[2 * u] == 0) continue;
    Message m;
    DART_ARRAY_TRY(share((int)u, (int32_t)local, own, &m), fn);
    if (uniform)
      return with_errno(
          fail((dart_ret_t)m.code, fn, "failed on unit %zu of team %d: %s", u, (int)team, m.text),
          m.errnum);
    if (local != DART_OK) return with_errno(fail(local, fn, "%s", own.c_str()), own_errno);
    return with_errno(fail((dart_ret_t)m.code, fn, "another unit failed: unit %zu of team %d: %s",
                           u, (int)team, m.text),
                      m.errnum);
  }
  for (size_t u = 1; u < n; ++u) {
    if (all[2 * u + 1] == all[1]) continue;
    Message first, other;
    const std::string text = describe();
    DART_ARRAY_TRY(share(0, 0, text, &first), fn);
    DART_ARRAY_TRY(share((int)u, 0, text, &other), fn);
    return fail(DART_ERR_INVAL, fn,
                "the units of team %d passed different arguments: unit 0: %s; unit %zu: %s",
                (int)team, first.text, u, other.text);
  }
  return DART_OK;
}

}  // namespace array
}  // namespace dart
