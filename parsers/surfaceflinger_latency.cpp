#include "parsers/surfaceflinger_latency.h"

#include <string>

#include "parsers/text.h"

namespace droidlab::parsers {

Result<int64_t> ParseVsyncPeriodNs(std::string_view output) {
  const size_t end = output.find('\n');
  std::string_view line = output.substr(0, end);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  if (line.empty()) {
    return MakeError(ParseErrorCode::kEmpty, "SurfaceFlinger --latency: no output");
  }
  if (line.starts_with("Permission Denial")) {
    return MakeError(ParseErrorCode::kPermissionDenied,
                     "SurfaceFlinger --latency: " + std::string(line.substr(0, 80)));
  }
  const auto period = ParseInt<int64_t>(line);
  if (!period) {
    return MakeError(ParseErrorCode::kMalformed, "SurfaceFlinger --latency: first line \"" +
                                                     std::string(line.substr(0, 40)) +
                                                     "\" is not a period in ns");
  }
  constexpr int64_t kMinPeriodNs = 1'000'000;      // 1000 Hz
  constexpr int64_t kMaxPeriodNs = 1'000'000'000;  // 1 Hz
  if (*period < kMinPeriodNs || *period > kMaxPeriodNs) {
    return MakeError(ParseErrorCode::kMalformed,
                     "SurfaceFlinger --latency: " + std::to_string(*period) +
                         " ns is no display's vsync period");
  }
  return *period;
}

}  // namespace droidlab::parsers
