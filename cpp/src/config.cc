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
      case 'k': case 'K': mult = 1ull << 10; break;
      case 'm': case 'M': mult = 1ull << 20; break;
      case 'g': case 'G': mult = 1ull << 30; break;
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
        return fail(DART_ERR_INVAL, fn,
                    "DART_UNITS_PER_NODE='%s' is not a positive integer", s);
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
        return fail(DART_ERR_INVAL, fn,
                    "DART_TRANSFER_CHUNK='%s' is not a positive element count", s);
      cfg->transfer_chunk = v < 0x7fffffffu ? v : 0x7fffffffu;
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
  // Test-only (not in the README's table): docs/design.md, "Memory model".
  if (const char *s = std::getenv("DART_TEST_WIN_SEPARATE"))
    cfg->force_separate = std::strcmp(s, "1") == 0;
  return DART_OK;
}

}  // namespace detail
}  // namespace dart
