// Small string_view helpers shared by every parser. No allocation, no locale, no exceptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/parse_int.h"

namespace droidlab::parsers {

// Whole-field integers come from base/parse_int.h (ParseInt<T>): every parser reads its numbers
// through it, so a field like "12ab" or an overflow is refused as everywhere else in the tree.
using droidlab::ParseInt;

inline std::optional<int64_t> ParseInt64(std::string_view s) { return ParseInt<int64_t>(s); }
inline std::optional<uint64_t> ParseUint64(std::string_view s) { return ParseInt<uint64_t>(s); }

inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// Scans the non-negative decimal number at p (stopping at the first non-digit) into `out`.
// Returns the end of the digits, or nullptr when there are none or the value exceeds INT64_MAX.
// For per-row hot paths: libstdc++ 12 keeps std::from_chars out of line with an overflow check
// per digit, which cost a quarter of a looper_stats row; at most 19 digits cannot wrap a
// uint64_t, so the bound is checked once.
inline const char* ScanNonNegativeInt64(const char* p, const char* end, int64_t& out) {
  const char* const start = p;
  const char* const stop_at = end - p > 19 ? p + 19 : end;
  uint64_t value = 0;
  while (p < stop_at && IsAsciiDigit(*p)) {
    value = value * 10 + static_cast<uint64_t>(*p - '0');
    ++p;
  }
  if (p == start) return nullptr;
  if (p - start == 19 && ((p < end && IsAsciiDigit(*p)) || value > uint64_t{INT64_MAX})) {
    return nullptr;
  }
  out = static_cast<int64_t>(value);
  return p;
}
inline bool IsAsciiSpace(char c) { return c == ' ' || c == '\t'; }

inline std::string_view TrimLeft(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsAsciiSpace(s[i])) ++i;
  return s.substr(i);
}
inline std::string_view TrimRight(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && (IsAsciiSpace(s[n - 1]) || s[n - 1] == '\r')) --n;
  return s.substr(0, n);
}
inline std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

// If `s` starts with `prefix`, removes it and returns true.
inline bool ConsumePrefix(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// Splits at the first `sep`: returns the part before and leaves the rest (after sep) in `s`.
// Returns nullopt and leaves `s` alone when there is no `sep`.
inline std::optional<std::string_view> SplitFirst(std::string_view& s, char sep) {
  size_t pos = s.find(sep);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view head = s.substr(0, pos);
  s.remove_prefix(pos + 1);
  return head;
}

// Reads whitespace-separated token from the front of `s` (skipping leading blanks).
inline std::string_view NextToken(std::string_view& s) {
  s = TrimLeft(s);
  size_t i = 0;
  while (i < s.size() && !IsAsciiSpace(s[i])) ++i;
  std::string_view tok = s.substr(0, i);
  s.remove_prefix(i);
  return tok;
}

}  // namespace droidlab::parsers
