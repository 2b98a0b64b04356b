// libFuzzer target for ParseDumpsysBattery. Invariants: success means the header was in the
// input, no more lines are skipped than the input has, IsCharging agrees with the powered flags,
// and every error has a message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/dumpsys_battery.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParseDumpsysBattery(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (input.find("Current Battery Service state:") == std::string_view::npos) std::abort();
  const auto lines = static_cast<uint64_t>(std::count(input.begin(), input.end(), '\n')) + 1;
  if (r->skipped_lines > lines) std::abort();
  const bool any = r->ac_powered.value_or(false) || r->usb_powered.value_or(false) ||
                   r->wireless_powered.value_or(false) || r->dock_powered.value_or(false);
  if (any != r->IsCharging()) std::abort();
  if (r->updates_stopped && input.find("UPDATES STOPPED") == std::string_view::npos) std::abort();
  return 0;
}
