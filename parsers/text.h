// Small string_view helpers shared by every parser. No allocation, no locale, no exceptions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
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

// A Java boolean as dumpsys prints it (String.valueOf(boolean)): "true" or "false", nothing else.
inline std::optional<bool> ParseJavaBool(std::string_view s) {
  if (s == "true") return true;
  if (s == "false") return false;
  return std::nullopt;
}

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

// 8 bytes as digit values: '0'..'9' -> 0..9, the first byte lowest (little-endian load).
[[gnu::always_inline]] inline uint64_t Load8AsDigits(const char* p) {
  uint64_t chunk = 0;
  std::memcpy(&chunk, p, 8);
  return chunk ^ 0x3030303030303030ULL;
}

// The high bit of each byte of Load8AsDigits' result that was not a digit: >= 10 overflows into
// it, >= 0x80 has it. A carry out of a byte reaches only later bytes, after the first non-digit,
// so the lowest flagged byte is exact.
[[gnu::always_inline]] inline uint64_t NonDigitBytes(uint64_t digits) {
  return (digits | (digits + 0x7676767676767676ULL)) & 0x8080808080808080ULL;
}

// The value of the first n (1–8) digits of Load8AsDigits' result: the other bytes shifted out
// as leading zeros ("000ddddd"), then 8 digits converted with three multiplies.
[[gnu::always_inline]] inline uint64_t FirstDigitsValue(uint64_t digits, unsigned n) {
  uint64_t v = digits << (8 * (8 - n));
  v = v * 10 + (v >> 8);
  v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
       (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
      32;
  return v & 0xFFFFFFFFULL;
}

// ScanNonNegativeInt64 with the same result, 16 bytes at a time (SWAR): bytes up to
// `readable_end` (>= end) may be loaded, never counted as digits past `end`. For rows of long
// integers (gfxinfo framestats: 23 values of ~12 digits a row), where the loop above is a chain
// of dependent multiply-adds, one a digit: here a field of up to 16 digits is one step whose
// length comes from two independent bit masks (bench/README.md has the figures). Little-endian
// only; elsewhere the loop above. Always inlined: out of line (GCC's choice at -O2) the call and
// its saved registers cost more than a short field's scan.
[[gnu::always_inline]] inline const char* ScanNonNegativeInt64(const char* p, const char* end,
                                                               const char* readable_end,
                                                               int64_t& out) {
  if constexpr (std::endian::native != std::endian::little) {
    return ScanNonNegativeInt64(p, end, out);
  }
  static constexpr uint64_t kPow10[17] = {1,
                                          10,
                                          100,
                                          1000,
                                          10000,
                                          100000,
                                          1000000,
                                          10000000,
                                          100000000,
                                          1000000000,
                                          10000000000,
                                          100000000000,
                                          1000000000000,
                                          10000000000000,
                                          100000000000000,
                                          1000000000000000,
                                          10000000000000000};
  const char* const start = p;
  uint64_t value = 0;
  bool more = true;  // the digits may go on past what was read
  while (more && readable_end - p >= 16) {
    const uint64_t low = Load8AsDigits(p);
    const uint64_t high = Load8AsDigits(p + 8);
    const uint64_t low_stop = NonDigitBytes(low);
    const uint64_t high_stop = NonDigitBytes(high);
    unsigned n = 0;
    uint64_t chunk = 0;
    if (low_stop != 0) {
      n = static_cast<unsigned>(std::countr_zero(low_stop)) / 8;
      if (n > 0) chunk = FirstDigitsValue(low, n);
      more = false;
    } else if (high_stop != 0) {
      const unsigned n_high = static_cast<unsigned>(std::countr_zero(high_stop)) / 8;
      n = 8 + n_high;
      chunk = FirstDigitsValue(low, 8) * kPow10[n_high];
      if (n_high > 0) chunk += FirstDigitsValue(high, n_high);
      more = false;
    } else {
      n = 16;
      chunk = FirstDigitsValue(low, 8) * 100000000 + FirstDigitsValue(high, 8);
    }
    // Digits past `end` belong to the next field: rare (a field cut by the caller), done slowly.
    if (n > static_cast<size_t>(end - p)) return ScanNonNegativeInt64(start, end, out);
    value = value * kPow10[n] + chunk;  // may wrap past 19 digits: refused below
    p += n;
    if (p - start > 19) return nullptr;
  }
  while (more && p < end && IsAsciiDigit(*p)) {  // the last bytes of the buffer
    value = value * 10 + static_cast<uint64_t>(*p - '0');
    ++p;
    if (p - start > 19) return nullptr;
  }
  if (p == start || value > uint64_t{INT64_MAX}) return nullptr;
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
