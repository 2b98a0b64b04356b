// libFuzzer target for ParseDumpsysPackage. The first input line is the package name, the rest
// the dump. Invariants: an installed result came from a "Package [PKG]" block or a "[PKG]"
// dexopt block, a not-installed one from "Unable to find package: PKG" (blanks around PKG
// allowed, as the parser trims them); every dexopt entry has an
// ISA; PrimaryDexopt points into the entries; signature hashes are 1-8 hex digits; skipped
// lines are bounded.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/dumpsys_package.h"

// "Unable to find package: " then NAME; the parser trims the rest of the line (parsers/text.h
// Trim: spaces and tabs before, and '\r' too after), so those blanks around the name (a doubled
// space, a CRLF capture's '\r') are allowed — and no other byte: a name that starts with a
// control byte is compared with it (the seed `name_starts_with_a_control_byte`).
static bool SaysNotFound(std::string_view input, std::string_view name) {
  constexpr std::string_view kPrefix = "Unable to find package: ";
  for (size_t at = input.find(kPrefix); at != std::string_view::npos;
       at = input.find(kPrefix, at + 1)) {
    std::string_view rest = input.substr(at + kPrefix.size());
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    if (rest.substr(0, name.size()) == name) return true;
  }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  if (nl == std::string_view::npos) return 0;
  const std::string_view name = input.substr(0, nl);
  input.remove_prefix(nl + 1);
  auto r = droidlab::parsers::ParseDumpsysPackage(input, name);
  if (!r.ok()) {
    if (r.error().message.empty()) std::abort();
    return 0;
  }
  if (r->installed) {
    if (input.find("[" + std::string(name) + "]") == std::string_view::npos) std::abort();
  } else if (!SaysNotFound(input, name)) {
    std::abort();
  }
  for (const auto& d : r->dexopt) {
    if (d.isa.empty()) std::abort();
  }
  if (r->signatures) {
    // Integer.toHexString values only; an identity-hash line has no scheme version.
    for (const auto* list : {&r->signatures->current, &r->signatures->past}) {
      for (const auto& hash : *list) {
        if (hash.empty() || hash.size() > 8) std::abort();
      }
    }
    if (r->signatures->identity_hashes && r->signatures->scheme_version) std::abort();
  }
  const auto* primary = r->PrimaryDexopt();
  if (primary != nullptr &&
      (primary < r->dexopt.data() || primary >= r->dexopt.data() + r->dexopt.size())) {
    std::abort();
  }
  if (primary == nullptr &&
      std::any_of(r->dexopt.begin(), r->dexopt.end(), [](const auto& d) { return !d.secondary; })) {
    std::abort();
  }
  const auto lines = static_cast<uint64_t>(std::count(input.begin(), input.end(), '\n')) + 1;
  if (r->skipped_lines > lines) std::abort();
  return 0;
}
