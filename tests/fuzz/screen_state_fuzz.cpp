// libFuzzer target for ParseWakefulness and ParseKeyguardShowing. Invariants: a wakefulness is
// a non-empty word of ASCII letters that the input has right after "mWakefulness="; a keyguard
// answer means the input has "mKeyguardShowing=true" or "=false".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/screen_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto w = droidlab::parsers::ParseWakefulness(input)) {
    if (w->empty()) std::abort();
    for (char c : *w) {
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) std::abort();
    }
    if (input.find("mWakefulness=" + *w) == std::string_view::npos) std::abort();
  }
  if (auto k = droidlab::parsers::ParseKeyguardShowing(input)) {
    const std::string expected = std::string("mKeyguardShowing=") + (*k ? "true" : "false");
    if (input.find(expected) == std::string_view::npos) std::abort();
  }
  return 0;
}
