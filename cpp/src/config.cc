// SPDX-License-Identifier: BSD-3-Clause
// The one place that reads DART_* environment variables (listed in README.md).
#include "internal.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace dart {
namespace detail {

namespace {

// Parses a positive size with an optional K/M/G suffix (powers of 1024).
bool parse_size(const char *s, size_t *out) {
  if (s == nullptr || *s == '\0') return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || end == s || s[0] == '-') return false;
  unsigned long long mult = 1;
  if (*end != '\0') {
    switch (*end) {
      case 'k':
      case 'K': mult = 1ull << 10; break;
      case 'm':
      case 'M': mult = 1ull << 20; break;
      case 'g':
      case 'G': mult = 1ull << 30; break;
      default: return false;
    }
    ++end;
    if (*end == 'i' || *end == 'I') ++end;
    if (*end == 'b' || *end == 'B') ++end;
    if (*end != '\0') return false;
  }
  if (v > (~0ull) / mult) return false;
  *out = (size_t)(v * mult);
  return true;
}

}  // namespace

dart_ret_t read_config(Config *cfg, const char *fn) {
  if (const char *s = std::getenv("DART_UNITS_PER_NODE")) {
    size_t k = 0;
    if (*s != '\0') {
      if (!parse_size(s, &k) || k == 0 || k > 0x7fffffff)
        return fail(DART_ERR_INVAL, fn, "DART_UNITS_PER_NODE='%s' is not a positive integer", s);
      cfg->units_per_node = (int)k;
    }
  }
  if (const char *s = std::getenv("DART_POOL_SIZE")) {
    size_t v = 0;
    if (*s != '\0') {
      if (!parse_size(s, &v))
        return fail(DART_ERR_INVAL, fn,
                    "DART_POOL_SIZE='%s' is not a size (bytes, or with K/M/G suffix)", s);
      cfg->pool_size = v;
    }
  }
  if (const char *s = std::getenv("DART_TRANSFER_CHUNK")) {
    size_t v = 0;
    if (*s != '\0') {
      if (!parse_size(s, &v) || v == 0)
        return fail(DART_ERR_INVAL, fn, "DART_TRANSFER_CHUNK='%s' is not a positive element count",
                    s);
      cfg->transfer_chunk = v < 0x7fffffffu ? v : 0x7fffffffu;
    }
  }
  if (const char *s = std::getenv("DART_PROGRESS_PER_NODE")) {
    size_t k = 0;
    if (*s != '\0') {
      if (!parse_size(s, &k) || k > 64)
        return fail(DART_ERR_INVAL, fn,
                    "DART_PROGRESS_PER_NODE='%s' is not a number of processes 0..64", s);
      cfg->progress_per_node = (int)k;
    }
  }
  if (const char *s = std::getenv("DART_PROGRESS_THRESHOLD")) {
    size_t v = 0;
    if (*s != '\0') {
      if (!parse_size(s, &v))
        return fail(DART_ERR_INVAL, fn,
                    "DART_PROGRESS_THRESHOLD='%s' is not a size (bytes, or with K/M/G suffix)", s);
      cfg->progress_threshold = v;
    }
  }
  if (const char *s = std::getenv("DART_WAIT")) {
    if (*s == '\0' || std::strcmp(s, "auto") == 0)
      cfg->wait = Config::Wait::Auto;
    else if (std::strcmp(s, "yield") == 0)
      cfg->wait = Config::Wait::Yield;
    else if (std::strcmp(s, "sleep") == 0)
      cfg->wait = Config::Wait::Sleep;
    else
      return fail(DART_ERR_INVAL, fn, "DART_WAIT='%s' is not auto, yield or sleep", s);
  }
  // DART_FAULT=<site>:<unit>[:<first>[:<count>]]: the test-only fault hook (internal.h,
  // FaultSite; docs/error-contract.md).
  if (const char *s = std::getenv("DART_FAULT"); s != nullptr && *s != '\0') {
#define DART_X_FAULT_NAME_(name, text) text,
    static const char *const kSites[] = {DART_FAULT_SITE_LIST(DART_X_FAULT_NAME_)};
#undef DART_X_FAULT_NAME_
    const char *colon = std::strchr(s, ':');
    int site = -1;
    for (int i = 0; colon && i < (int)FaultSite::kCount; ++i)
      if (std::strlen(kSites[i]) == (size_t)(colon - s) &&
          std::strncmp(s, kSites[i], (size_t)(colon - s)) == 0)
        site = i;
    char *end = nullptr;
    long unit = colon ? std::strtol(colon + 1, &end, 10) : -1;
    long first = 1, count = 1;
    if (end && *end == ':') first = std::strtol(end + 1, &end, 10);
    if (end && *end == ':') count = std::strtol(end + 1, &end, 10);
    if (site < 0 || end == nullptr || end == colon + 1 || *end != '\0' || unit < 0 ||
        unit > 0x7fffff || first < 1 || count < 0) {
      std::string names;
      for (const char *n : kSites) names += (names.empty() ? "" : ", ") + std::string(n);
      return fail(DART_ERR_INVAL, fn,
                  "DART_FAULT='%s' is not <site>:<unit>[:<first>[:<count>]] (sites: %s)", s,
                  names.c_str());
    }
    cfg->fault_site = site;
    cfg->fault_unit = (int)unit;
    cfg->fault_first = first;
    cfg->fault_count = count;
  }
  // Test-only (not in the README's table): docs/design.md, "Memory model".
  if (const char *s = std::getenv("DART_TEST_WIN_SEPARATE"))
    cfg->force_separate = std::strcmp(s, "1") == 0;
  // Test-only: docs/design.md, "Locality" (the hardware from sysfs, not hwloc).
  if (const char *s = std::getenv("DART_TEST_NO_HWLOC")) cfg->no_hwloc = std::strcmp(s, "1") == 0;
  return DART_OK;
}

}  // namespace detail
}  // namespace dart
