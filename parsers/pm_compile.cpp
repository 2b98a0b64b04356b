#include "parsers/pm_compile.h"

#include <utility>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {

Result<PmCompileOutcome> ParsePmCompileOutput(std::string_view output) {
  if (Trim(output).empty()) return MakeError(ParseErrorCode::kEmpty, "no compile output");
  std::optional<PmCompileOutcome> last;
  bool in_exception = false;
  bool any_text = false;
  ForEachLine(output, [&](std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    any_text = true;
    if (in_exception) {  // the exception's own line: "java.lang.IllegalArgumentException: …"
      in_exception = false;
      if (!line.starts_with("at ")) last->reason = std::string(line);
      return;
    }
    PmCompileOutcome outcome;
    if (line == "Success") {
      outcome.success = true;
    } else if (line.starts_with("Failure") || line.starts_with("Error:")) {
      outcome.reason = std::string(line);
    } else if (line.starts_with("Exception occurred while executing")) {
      outcome.reason = std::string(line);
      in_exception = true;
    } else if (std::string_view rest = line; ConsumePrefix(rest, "Freed ")) {
      const size_t space = rest.find(' ');
      auto bytes = ParseInt64(rest.substr(0, space));
      if (space == std::string_view::npos || rest.substr(space) != " bytes" || !bytes ||
          *bytes < 0) {
        return;
      }
      outcome.success = true;
      outcome.freed_bytes = *bytes;
    } else {
      return;  // "Warning: …", a stack frame, noise
    }
    last = std::move(outcome);
  });
  if (!any_text) return MakeError(ParseErrorCode::kEmpty, "no compile output");
  if (!last) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "no Success, Failure, Error or Freed line in the compile output");
  }
  return std::move(*last);
}

}  // namespace droidlab::parsers
