#include "parsers/screen_state.h"

namespace droidlab::parsers {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

}  // namespace

std::optional<std::string> ParseWakefulness(std::string_view text) {
  constexpr std::string_view kKey = "mWakefulness=";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && IsBlank(line.front())) line.remove_prefix(1);
    while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
    if (line.substr(0, kKey.size()) != kKey) continue;  // mWakefulnessRaw= is another field
    const std::string_view value = line.substr(kKey.size());
    if (value.empty()) return std::nullopt;
    for (char c : value) {
      if (!IsLetter(c)) return std::nullopt;
    }
    return std::string(value);
  }
  return std::nullopt;
}

std::optional<bool> ParseKeyguardShowing(std::string_view text) {
  constexpr std::string_view kKey = "mKeyguardShowing=";
  size_t at = 0;
  while ((at = text.find(kKey, at)) != std::string_view::npos) {
    const bool token_start = at == 0 || IsBlank(text[at - 1]);
    std::string_view rest = text.substr(at + kKey.size());
    at += kKey.size();
    if (!token_start) continue;
    size_t n = 0;
    while (n < rest.size() && !IsBlank(rest[n])) ++n;
    const std::string_view value = rest.substr(0, n);
    if (value == "true") return true;
    if (value == "false") return false;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace droidlab::parsers
