// ParseInt<T>: the one integer reader of the tree. Every number that arrives as text — device
// output in parsers/, a port in a config file, an id in a URL, a cursor — goes through it, so
// that "12ab", " 12", "+12", "" and an overflow are refused the same way everywhere.
#pragma once

#include <charconv>
#include <concepts>
#include <optional>
#include <string_view>
#include <system_error>

namespace droidlab {

// The whole view must be a number in `base` that fits T: "12ab", "12 ", " 12" and "" give
// nullopt, as does a value out of T's range. A leading '-' is accepted for signed T only;
// never a '+', blanks or a "0x" prefix (std::from_chars rules). Callers that accept more
// (Java's Integer.parseInt takes a '+') strip it first. Pure, no locale, no allocation.
template <std::integral T>
std::optional<T> ParseInt(std::string_view text, int base = 10) {
  if (text.empty()) return std::nullopt;
  T value{};
  const char* const end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace droidlab
