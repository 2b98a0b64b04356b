#include "parsers/am_start.h"

#include <string>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

void AppendLine(std::optional<std::string>& out, std::string_view line) {
  if (out) {
    out->push_back('\n');
    out->append(line);
  } else {
    out.emplace(line);
  }
}

// "java.lang.SecurityException: Permission Denial: …", as Throwable.toString() prints it.
bool IsExceptionLine(std::string_view line) {
  size_t colon = line.find(':');
  std::string_view cls = line.substr(0, colon);
  return cls.find('.') != std::string_view::npos && cls.find(' ') == std::string_view::npos &&
         (cls.ends_with("Exception") || cls.ends_with("Error"));
}

class AmStartReader {
 public:
  void Line(std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    std::string_view rest = line;
    if (ConsumePrefix(rest, "Starting: ")) {
      Seen();
      out_.intent.emplace(rest);
    } else if (ConsumePrefix(rest, "Stopping: ")) {  // -S: force-stop before the launch
      Seen();
    } else if (ConsumePrefix(rest, "Status: ")) {
      Seen();
      out_.status.emplace(rest);
    } else if (ConsumePrefix(rest, "LaunchState: ")) {
      Seen();
      out_.launch_state.emplace(rest);
    } else if (ConsumePrefix(rest, "Activity: ")) {
      Seen();
      out_.activity.emplace(rest);
    } else if (ConsumePrefix(rest, "ThisTime: ")) {
      Time(rest, out_.this_time_ms);
    } else if (ConsumePrefix(rest, "TotalTime: ")) {
      Time(rest, out_.total_time_ms);
    } else if (ConsumePrefix(rest, "WaitTime: ")) {
      Time(rest, out_.wait_time_ms);
    } else if (line == "Complete") {
      Seen();
      out_.complete = true;
    } else if (ConsumePrefix(rest, "Warning: ")) {
      Seen();
      AppendLine(out_.warning, rest);
    } else if (line.starts_with("Error: ") || line.starts_with("Error type ")) {
      Seen();
      AppendLine(out_.error, line);
    } else if (line.starts_with("Exception occurred while executing")) {
      Seen();
      in_exception_ = true;
      AppendLine(out_.error, line);
    } else if (IsExceptionLine(line)) {
      // Android 5/6 print the exception with no header line before it.
      Seen();
      in_exception_ = true;
      AppendLine(out_.error, line);
    } else if (in_exception_ && (line.starts_with("at ") || line.starts_with("... ") ||
                                 line.starts_with("Caused by: "))) {
      // Stack of the exception already recorded: part of it, not an unknown line.
    } else {
      ++out_.skipped_lines;
    }
  }

  Result<AmStartResult> Finish() && {
    if (!any_line_) return MakeError(ParseErrorCode::kEmpty, "am start: empty output");
    if (!seen_) {
      return MakeError(ParseErrorCode::kNotThisFormat,
                       "am start: no Starting/Status/LaunchState/TotalTime/Complete/Warning/"
                       "Error line in the output");
    }
    return std::move(out_);
  }

  void NoteLine(std::string_view raw) {
    if (!Trim(raw).empty()) any_line_ = true;
  }

 private:
  void Seen() { seen_ = true; }

  void Time(std::string_view value, std::optional<int64_t>& field) {
    auto ms = ParseInt64(Trim(value));
    if (!ms) {
      ++out_.skipped_lines;
      return;
    }
    Seen();
    field = *ms;
  }

  AmStartResult out_;
  bool seen_ = false;
  bool any_line_ = false;
  bool in_exception_ = false;
};

}  // namespace

Result<AmStartResult> ParseAmStart(std::string_view output) {
  AmStartReader reader;
  ForEachLine(output, [&reader](std::string_view line) {
    reader.NoteLine(line);
    reader.Line(line);
  });
  return std::move(reader).Finish();
}

}  // namespace droidlab::parsers
