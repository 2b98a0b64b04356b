#include "parsers/getconf.h"

#include <string>

#include "parsers/text.h"

namespace droidlab::parsers {

Result<int64_t> ParseGetconfPositive(std::string_view output) {
  while (!output.empty() && output.back() == '\n') output.remove_suffix(1);
  const std::string_view line = Trim(output);
  if (line.empty()) return MakeError(ParseErrorCode::kEmpty, "getconf: empty output");
  if (line == "undefined") {
    return MakeError(ParseErrorCode::kNotThisFormat, "getconf: the value is undefined");
  }
  auto value = ParseInt<int64_t>(line);
  if (!value || *value <= 0) {
    return MakeError(ParseErrorCode::kMalformed, "getconf: expected a positive number, found \"" +
                                                     std::string(line.substr(0, 80)) + "\"");
  }
  return *value;
}

}  // namespace droidlab::parsers
