// libFuzzer target for ParsePmInstallOutput. Invariants: an error has a message; a session id
// appears only on success and is not negative; a failure's code is in the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/pm_install.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParsePmInstallOutput(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (r->session_id && (!r->success || *r->session_id < 0)) std::abort();
  if (!r->code.empty() && input.find(r->code) == std::string_view::npos) std::abort();
  (void)droidlab::parsers::InstallFailureAdvice(r->code);
  return 0;
}
