// libFuzzer target for ParsePmPath and ParseResolveActivityBrief. Invariants: every path was
// printed after "package:" and is not empty; a component has one '/' and no blanks and occurs in
// the input; is_chooser only for the ResolverActivity; skipped lines are bounded; every error has
// a message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/pm_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto lines = static_cast<uint64_t>(std::count(input.begin(), input.end(), '\n')) + 1;

  auto paths = droidlab::parsers::ParsePmPath(input);
  if (!paths.ok()) {
    if (paths.error().message.empty()) std::abort();
  } else {
    if (paths->skipped_lines > lines || paths->apk_paths.size() > lines) std::abort();
    for (const auto& p : paths->apk_paths) {
      if (p.empty() || input.find("package:" + p) == std::string_view::npos) std::abort();
    }
  }

  auto resolved = droidlab::parsers::ParseResolveActivityBrief(input);
  if (!resolved.ok()) {
    if (resolved.error().message.empty()) std::abort();
    return 0;
  }
  if (resolved->skipped_lines > lines) std::abort();
  if (resolved->component) {
    const std::string& c = *resolved->component;
    if (std::count(c.begin(), c.end(), '/') != 1) std::abort();
    if (c.find_first_of(" \t\n") != std::string::npos) std::abort();
    if (input.find(c) == std::string_view::npos) std::abort();
  } else if (input.find("No activity found") == std::string_view::npos) {
    std::abort();
  }
  if (resolved->is_chooser &&
      resolved->component != "android/com.android.internal.app.ResolverActivity") {
    std::abort();
  }
  return 0;
}
