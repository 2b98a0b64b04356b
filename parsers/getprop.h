// Output of `getprop` with no arguments (system/core/toolbox/getprop.cpp):
//
//   [ro.build.version.sdk]: [33]
//   [ro.product.model]: [Pixel 7]
//
// A value may span lines (a '\n' inside the value): the value ends at the "]" that closes a
// line, and the next property starts with "[". Lines that fit neither are counted.
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

// Errors: kNotThisFormat when no "[key]: [value]" line is present.
Result<GetpropOutput> ParseGetprop(std::string_view output);

}  // namespace droidlab::parsers
