// libFuzzer target for ParseGetprop. Invariants: success means at least one property, every
// name is a legal property name found in the input as "[name]: [", and the skipped count never
// exceeds the number of lines.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/getprop.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParseGetprop(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (r->properties.empty()) std::abort();
  for (const auto& [name, value] : r->properties) {
    if (name.empty() || name.find_first_of("[] \n") != std::string::npos) std::abort();
    if (input.find("[" + name + "]: [") == std::string_view::npos) std::abort();
    if (value.size() > input.size()) std::abort();
  }
  const auto lines = static_cast<uint64_t>(std::count(input.begin(), input.end(), '\n')) + 1;
  if (r->skipped_lines > lines) std::abort();
  return 0;
}
