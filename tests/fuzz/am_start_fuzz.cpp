// libFuzzer target for ParseAmStart. Invariants: success means some field of am's was set,
// no more lines are skipped than the input has, and every error has a message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/am_start.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParseAmStart(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  const bool any = r->status || r->launch_state || r->activity || r->this_time_ms ||
                   r->total_time_ms || r->wait_time_ms || r->complete || r->warning ||
                   r->error || r->intent;
  // "Stopping: pkg" alone is am's too, and sets nothing: allow it.
  if (!any && input.find("Stopping: ") == std::string_view::npos) std::abort();
  const auto lines = static_cast<uint64_t>(std::count(input.begin(), input.end(), '\n')) + 1;
  if (r->skipped_lines > lines) std::abort();
  if (r->status && r->status->find('\n') != std::string::npos) std::abort();
  return 0;
}
