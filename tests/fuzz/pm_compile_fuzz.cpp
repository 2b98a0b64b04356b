// libFuzzer target for ParsePmCompileOutput. Invariants: an error has a message; a failure has a
// reason found in the input; freed bytes only on success and never negative.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/pm_compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParsePmCompileOutput(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (!r->success && (r->reason.empty() || input.find(r->reason) == std::string_view::npos)) {
    std::abort();
  }
  if (r->freed_bytes && (!r->success || *r->freed_bytes < 0)) std::abort();
  return 0;
}
