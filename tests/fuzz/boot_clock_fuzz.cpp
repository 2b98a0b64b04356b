// libFuzzer target for ParseDateEpoch and ParseUptimeThenDate. Invariants: seconds are not
// negative, nanoseconds are below one second, milliseconds() and RealtimeAtBootMs() do not
// overflow (UBSan watches), the two-line parse agrees with its parts, and an error has a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/boot_clock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto date = droidlab::parsers::ParseDateEpoch(input);
  if (!date.ok()) {
    if (date.error().message.empty()) std::abort();
  } else {
    if (date->seconds < 0 || date->nanoseconds < 0 || date->nanoseconds > 999'999'999) {
      std::abort();
    }
    if (date->milliseconds() < 0) std::abort();
  }
  auto both = droidlab::parsers::ParseUptimeThenDate(input);
  if (!both.ok()) {
    if (both.error().message.empty()) std::abort();
    return 0;
  }
  if (both->uptime.uptime_cs < 0 || both->date.seconds < 0) std::abort();
  (void)both->RealtimeAtBootMs();
  const size_t nl = input.find('\n');
  if (nl == std::string_view::npos) std::abort();
  auto date_line = droidlab::parsers::ParseDateEpoch(input.substr(nl + 1));
  if (!date_line.ok() || date_line->seconds != both->date.seconds ||
      date_line->nanoseconds != both->date.nanoseconds) {
    std::abort();
  }
  return 0;
}
