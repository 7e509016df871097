// SPDX-License-Identifier: BSD-3-Clause
// Groups: local, always sorted sets of absolute (global) unit ids.
#include "internal.h"

#include <algorithm>
#include <iterator>

struct dart_group_struct {
  std::vector<int> members;  // sorted, unique
};

using namespace dart::detail;

namespace {

// Live groups: a destroyed group is recognised without reading its freed memory.
std::mutex g_groups_mutex;
std::unordered_set<const dart_group_struct *> g_groups;

dart_ret_t check_group(const dart_group_struct *gr, const char *fn, const char *what) {
  DART_TRY(check_init(fn));
  if (gr == nullptr) return fail(DART_ERR_INVAL, fn, "%s is NULL", what);
  std::lock_guard<std::mutex> lock(g_groups_mutex);
  if (g_groups.count(gr) == 0)
    return fail(DART_ERR_INVAL, fn, "%s is not a live group (destroyed?)", what);
  return DART_OK;
}

dart_ret_t check_unit(dart_global_unit_t u, const char *fn) {
  if (u.id < 0 || u.id >= g->size)
    return fail(DART_ERR_INVAL, fn, "unit %d out of range [0, %d)", u.id, g->size);
  return DART_OK;
}

dart_ret_t new_group(std::vector<int> members, dart_group_t *out) {
  dart_group_struct *gr = new dart_group_struct();
  gr->members = std::move(members);
  {
    std::lock_guard<std::mutex> lock(g_groups_mutex);
    g_groups.insert(gr);
  }
  *out = gr;
  return DART_OK;
}

}  // namespace

namespace dart {
namespace detail {
// Used by teams: members of a group, and building a group from a member list.
const std::vector<int> &group_members(dart_group_t gr) { return gr->members; }
dart_ret_t group_from_members(std::vector<int> members, dart_group_t *out) {
  std::sort(members.begin(), members.end());
  return new_group(std::move(members), out);
}
dart_ret_t group_check(dart_group_t gr, const char *fn, const char *what) {
  return check_group(gr, fn, what);
}
}  // namespace detail
}  // namespace dart

extern "C" {

dart_ret_t dart_group_create(dart_group_t *group) {
  const char *fn = "dart_group_create";
  null_out(group, DART_GROUP_NULL);
  DART_TRY(check_init(fn));
  if (group == nullptr) return fail(DART_ERR_INVAL, fn, "group is NULL");
  return new_group({}, group);
}

dart_ret_t dart_group_destroy(dart_group_t *group) {
  const char *fn = "dart_group_destroy";
  DART_TRY(check_init(fn));
  if (group == nullptr) return fail(DART_ERR_INVAL, fn, "group is NULL");
  DART_TRY(check_group(*group, fn, "*group"));
  {
    std::lock_guard<std::mutex> lock(g_groups_mutex);
    g_groups.erase(*group);
  }
  delete *group;
  *group = DART_GROUP_NULL;
  return DART_OK;
}

dart_ret_t dart_group_clone(const dart_group_t gin, dart_group_t *gout) {
  const char *fn = "dart_group_clone";
  null_out(gout, DART_GROUP_NULL);
  DART_TRY(check_group(gin, fn, "gin"));
  if (gout == nullptr) return fail(DART_ERR_INVAL, fn, "gout is NULL");
  return new_group(gin->members, gout);
}

dart_ret_t dart_group_union(const dart_group_t g1, const dart_group_t g2, dart_group_t *gout) {
  const char *fn = "dart_group_union";
  null_out(gout, DART_GROUP_NULL);
  DART_TRY(check_group(g1, fn, "g1"));
  DART_TRY(check_group(g2, fn, "g2"));
  if (gout == nullptr) return fail(DART_ERR_INVAL, fn, "gout is NULL");
  std::vector<int> m;
  std::set_union(g1->members.begin(), g1->members.end(), g2->members.begin(), g2->members.end(),
                 std::back_inserter(m));
  return new_group(std::move(m), gout);
}

dart_ret_t dart_group_intersect(const dart_group_t g1, const dart_group_t g2, dart_group_t *gout) {
  const char *fn = "dart_group_intersect";
  null_out(gout, DART_GROUP_NULL);
  DART_TRY(check_group(g1, fn, "g1"));
  DART_TRY(check_group(g2, fn, "g2"));
  if (gout == nullptr) return fail(DART_ERR_INVAL, fn, "gout is NULL");
  std::vector<int> m;
  std::set_intersection(g1->members.begin(), g1->members.end(), g2->members.begin(),
                        g2->members.end(), std::back_inserter(m));
  return new_group(std::move(m), gout);
}

dart_ret_t dart_group_addmember(dart_group_t gr, dart_global_unit_t unitid) {
  const char *fn = "dart_group_addmember";
  DART_TRY(check_group(gr, fn, "g"));
  DART_TRY(check_unit(unitid, fn));
  auto it = std::lower_bound(gr->members.begin(), gr->members.end(), unitid.id);
  if (it == gr->members.end() || *it != unitid.id) gr->members.insert(it, unitid.id);
  return DART_OK;
}

dart_ret_t dart_group_delmember(dart_group_t gr, dart_global_unit_t unitid) {
  const char *fn = "dart_group_delmember";
  DART_TRY(check_group(gr, fn, "g"));
  DART_TRY(check_unit(unitid, fn));
  auto it = std::lower_bound(gr->members.begin(), gr->members.end(), unitid.id);
  if (it != gr->members.end() && *it == unitid.id) gr->members.erase(it);
  return DART_OK;
}

dart_ret_t dart_group_ismember(const dart_group_t gr, dart_global_unit_t unitid,
                               int32_t *ismember) {
  const char *fn = "dart_group_ismember";
  DART_TRY(check_group(gr, fn, "g"));
  DART_TRY(check_unit(unitid, fn));
  if (ismember == nullptr) return fail(DART_ERR_INVAL, fn, "ismember is NULL");
  *ismember = std::binary_search(gr->members.begin(), gr->members.end(), unitid.id) ? 1 : 0;
  return DART_OK;
}

dart_ret_t dart_group_size(const dart_group_t gr, size_t *size) {
  const char *fn = "dart_group_size";
  DART_TRY(check_group(gr, fn, "g"));
  if (size == nullptr) return fail(DART_ERR_INVAL, fn, "size is NULL");
  *size = gr->members.size();
  return DART_OK;
}

dart_ret_t dart_group_getmembers(const dart_group_t gr, dart_global_unit_t *unitids) {
  const char *fn = "dart_group_getmembers";
  DART_TRY(check_group(gr, fn, "g"));
  if (unitids == nullptr && !gr->members.empty())
    return fail(DART_ERR_INVAL, fn, "unitids is NULL");
  for (size_t i = 0; i < gr->members.size(); ++i) unitids[i].id = gr->members[i];
  return DART_OK;
}

dart_ret_t dart_group_split(const dart_group_t gr, size_t n, size_t *nout, dart_group_t *gout) {
  const char *fn = "dart_group_split";
  for (size_t i = 0; gout != nullptr && i < n; ++i) gout[i] = DART_GROUP_NULL;
  DART_TRY(check_group(gr, fn, "g"));
  if (n == 0) return fail(DART_ERR_INVAL, fn, "n must be at least 1");
  if (nout == nullptr) return fail(DART_ERR_INVAL, fn, "nout is NULL");
  if (gout == nullptr) return fail(DART_ERR_INVAL, fn, "gout is NULL");
  // n nearly equal, contiguous parts in unit order; fewer parts than n if the group
  // has fewer members (the remaining entries of gout are set to DART_GROUP_NULL).
  size_t total = gr->members.size();
  size_t parts = std::min(n, total);
  size_t pos = 0;
  for (size_t i = 0; i < parts; ++i) {
    size_t len = total / parts + (i < total % parts ? 1 : 0);
    std::vector<int> m(gr->members.begin() + (std::ptrdiff_t)pos,
                       gr->members.begin() + (std::ptrdiff_t)(pos + len));
    pos += len;
    new_group(std::move(m), &gout[i]);
  }
  *nout = parts;
  return DART_OK;
}

}  // extern "C"
