// libFuzzer target for ParseVsyncPeriodNs. Invariants: a period is within 1 ms..1 s and its
// digits are in the input's first line; an error has a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/surfaceflinger_latency.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParseVsyncPeriodNs(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (*r < 1'000'000 || *r > 1'000'000'000) std::abort();
  if (input.substr(0, input.find('\n')).find(std::to_string(*r)) == std::string_view::npos) {
    std::abort();
  }
  return 0;
}
