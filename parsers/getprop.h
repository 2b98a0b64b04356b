// Output of `getprop` with no arguments (system/core/toolbox/getprop.cpp):
//
//   [ro.build.version.sdk]: [33]
//   [ro.product.model]: [Pixel 7]
//
// Every Android version prints "[" name "]: [" value "]" and a newline, sorted by name, values
// unescaped (toolbox/getprop.cpp PrintAllProperties since Android 8; toolbox/getprop.c
// record_prop before it). `getprop -T` / `-Z` print types / contexts in the same shape.
//
// A value may span lines (a '\n' inside the value): the value ends at the "]" that closes a
// line, and the next property starts with "[". Lines that fit neither are counted.
// Two things the format cannot tell apart are settled so: a value line that itself ends in "]"
// ends the value there; and while a value is open, a line that is a whole property line of its
// own ("[valid.name]: [...]") starts a new property and the unterminated value's lines are
// counted as skipped (output cut off mid-value, e.g. a truncated capture). Blank lines outside a
// value are ignored. A name that appears twice keeps its last value. Line ends as LineSplitter.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

struct GetpropOutput {
  std::map<std::string, std::string, std::less<>> properties;
  uint64_t skipped_lines = 0;
};

// Thread-safe (pure function).
// Errors: kEmpty for empty or blank output; kNotThisFormat when no "[key]: [value]" line is
// present.
Result<GetpropOutput> ParseGetprop(std::string_view output);

}  // namespace droidlab::parsers
