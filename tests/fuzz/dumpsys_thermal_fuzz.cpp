// libFuzzer target for ParseDumpsysThermal. Invariants: success means a status in 0-6 with a
// name, every temperature's name occurs in the input, no more lines are skipped or temperatures
// kept than the input has lines, and every error has a message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/dumpsys_thermal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParseDumpsysThermal(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (r->thermal_status < 0 || r->thermal_status > 6) std::abort();
  if (droidlab::parsers::ThermalStatusName(r->thermal_status) == "UNKNOWN") std::abort();
  const auto lines = static_cast<uint64_t>(std::count(input.begin(), input.end(), '\n')) + 1;
  if (r->skipped_lines > lines) std::abort();
  if (r->cached.size() + r->from_hal.size() > lines) std::abort();
  for (const auto* list : {&r->cached, &r->from_hal}) {
    for (const auto& t : *list) {
      if (input.find(", mName=" + t.name + ", mStatus=") == std::string_view::npos) std::abort();
      if (t.name.find('\n') != std::string::npos) std::abort();
    }
  }
  return 0;
}
