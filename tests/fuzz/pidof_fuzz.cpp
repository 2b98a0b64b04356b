// libFuzzer target for ParsePidof. Invariants: success means at least one pid, every pid is
// positive and its digits are in the input, FirstPid agrees with the first of them, and an
// error has a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/pidof.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParsePidof(input);
  const auto first = droidlab::parsers::FirstPid(input);
  if (!r.ok()) {
    if (r.error().message.empty() || first) std::abort();
    return 0;
  }
  if (r->pids.empty() || r->first() != first) std::abort();
  for (int64_t pid : r->pids) {
    if (pid <= 0) std::abort();
    if (input.find(std::to_string(pid)) == std::string_view::npos) std::abort();
  }
  return 0;
}
