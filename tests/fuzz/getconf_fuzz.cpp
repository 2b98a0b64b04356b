// libFuzzer target for ParseGetconfPositive. Invariants: a value is positive and its digits are
// in the input; an error has a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/getconf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParseGetconfPositive(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (*r <= 0) std::abort();
  if (input.find(std::to_string(*r)) == std::string_view::npos) std::abort();
  return 0;
}
