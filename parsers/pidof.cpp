#include "parsers/pidof.h"

#include <string>

#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

bool IsSeparator(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

Result<PidofOutput> ParsePidof(std::string_view output) {
  PidofOutput out;
  size_t i = 0;
  while (i < output.size()) {
    while (i < output.size() && IsSeparator(output[i])) ++i;
    size_t end = i;
    while (end < output.size() && !IsSeparator(output[end])) ++end;
    if (end == i) break;
    const std::string_view word = output.substr(i, end - i);
    auto pid = ParseInt<int64_t>(word);
    if (!pid || *pid <= 0) {
      return MakeError(ParseErrorCode::kMalformed,
                       "pidof: \"" + std::string(word.substr(0, 40)) + "\" is not a pid");
    }
    out.pids.push_back(*pid);
    i = end;
  }
  if (out.pids.empty()) return MakeError(ParseErrorCode::kEmpty, "pidof: no pid (no such process)");
  return out;
}

std::optional<int64_t> FirstPid(std::string_view output) {
  auto parsed = ParsePidof(output);
  if (!parsed) return std::nullopt;
  return parsed->first();
}

}  // namespace droidlab::parsers
