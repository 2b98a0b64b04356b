// libFuzzer target for parsers/meminfo.h (`dumpsys meminfo PKG`). Invariants: an error has a
// message; a parsed dump has a header's pid and a non-empty package; skipped_lines never exceeds
// the input's line count; the same text with CRLF line ends reads the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/meminfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto m = droidlab::parsers::ParseMeminfo(input);
  if (!m.ok()) {
    if (m.error().message.empty()) std::abort();
    return 0;
  }
  if (m->package.empty()) std::abort();
  size_t lines = 1;
  for (char c : input) lines += c == '\n';
  if (m->skipped_lines > lines) std::abort();

  std::string crlf;
  crlf.reserve(input.size() * 2);
  for (char c : input) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto again = droidlab::parsers::ParseMeminfo(crlf);
  if (!again.ok() || again->pid != m->pid || again->total_pss_kb != m->total_pss_kb ||
      again->summary.java_heap_kb != m->summary.java_heap_kb ||
      again->objects.views != m->objects.views) {
    std::abort();
  }
  return 0;
}
