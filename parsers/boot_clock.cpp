#include "parsers/boot_clock.h"

#include <cstdint>
#include <string>

#include "parsers/text.h"

namespace droidlab::parsers {

Result<DateEpoch> ParseDateEpoch(std::string_view output) {
  while (!output.empty() && output.back() == '\n') output.remove_suffix(1);
  const std::string_view line = Trim(output);
  if (line.empty()) return MakeError(ParseErrorCode::kEmpty, "date: empty output");
  auto bad = [&line](std::string_view why) {
    return MakeError(ParseErrorCode::kMalformed, "date +%s.%N: " + std::string(why) + ", found \"" +
                                                     std::string(line.substr(0, 64)) + "\"");
  };
  const size_t dot = line.find('.');
  if (dot == std::string_view::npos || dot == 0) return bad("expected SECONDS.NANOSECONDS");
  const std::string_view fraction = line.substr(dot + 1);
  if (fraction.size() < 3 || fraction.size() > 9) {
    return bad("expected 3 to 9 fraction digits (a date without %N)");
  }
  auto seconds = ParseInt<int64_t>(line.substr(0, dot));
  auto digits = ParseInt<int64_t>(fraction);
  // ParseInt takes a '-': a fraction is digits only, and an epoch before 1970 is no clock.
  if (!seconds || *seconds < 0 || *seconds > INT64_MAX / 1000 - 1 || !digits ||
      fraction[0] == '-') {
    return bad("expected SECONDS.NANOSECONDS");
  }
  int64_t nanoseconds = *digits;
  for (size_t n = fraction.size(); n < 9; ++n) nanoseconds *= 10;
  return DateEpoch{*seconds, nanoseconds};
}

Result<UptimeAndDate> ParseUptimeThenDate(std::string_view output) {
  if (Trim(output).empty()) {
    return MakeError(ParseErrorCode::kEmpty, "`cat /proc/uptime; date +%s.%N`: empty output");
  }
  const size_t nl = output.find('\n');
  if (nl == std::string_view::npos) {
    return MakeError(ParseErrorCode::kMalformed,
                     "`cat /proc/uptime; date +%s.%N`: one line, expected the uptime and the date");
  }
  auto uptime = ParseProcUptime(output.substr(0, nl + 1));
  if (!uptime) return uptime.error();
  if (uptime->uptime_cs > INT64_MAX / 10) {  // RealtimeAtBootMs multiplies it by 10
    return MakeError(ParseErrorCode::kMalformed, "/proc/uptime: uptime out of range");
  }
  auto date = ParseDateEpoch(output.substr(nl + 1));
  if (!date) return date.error();
  return UptimeAndDate{*uptime, *date};
}

}  // namespace droidlab::parsers
