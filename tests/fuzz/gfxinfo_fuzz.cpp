// libFuzzer target for ParseGfxinfo. Invariants: success means at least one profile; every
// framestats row is exactly as wide as its header, whose names are non-empty; a package name
// occurs in the input; no more lines are skipped, profiles kept or rows kept than the input has
// lines; every error has a message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/gfxinfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto r = droidlab::parsers::ParseGfxinfo(input);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (r->profiles.empty()) std::abort();
  const auto lines = static_cast<uint64_t>(std::count(input.begin(), input.end(), '\n')) + 1;
  if (r->skipped_lines > lines || r->profiles.size() > lines) std::abort();
  uint64_t rows = 0;
  for (const auto& p : r->profiles) {
    if (p.package && input.find("[" + *p.package + "]") == std::string_view::npos) std::abort();
    for (const auto& block : p.framestats) {
      if (block.columns.empty()) std::abort();
      for (const auto& name : block.columns) {
        if (name.empty()) std::abort();
      }
      for (const auto& row : block.rows) {
        if (row.size() != block.columns.size()) std::abort();
      }
      rows += block.rows.size();
    }
  }
  if (rows > lines) std::abort();
  return 0;
}
