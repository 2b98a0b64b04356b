#include "parsers/getprop.h"

#include <optional>
#include <string>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

// bionic's is_legal_property_name: letters, digits and ".-_:@". No property can be set with any
// other character, so anything else is not a name getprop could print.
bool IsLegalPropertyName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsAsciiDigit(c) || c == '.' ||
              c == '-' || c == '_' || c == ':' || c == '@';
    if (!ok) return false;
  }
  return true;
}

struct PropertyStart {
  std::string_view name;
  std::string_view rest;  // after "]: [", up to the end of the line
};

// "[name]: [..." -> name and the rest of the line, or nullopt.
std::optional<PropertyStart> SplitPropertyLine(std::string_view line) {
  if (!ConsumePrefix(line, "[")) return std::nullopt;
  size_t sep = line.find("]: [");
  if (sep == std::string_view::npos) return std::nullopt;
  std::string_view name = line.substr(0, sep);
  if (!IsLegalPropertyName(name)) return std::nullopt;
  return PropertyStart{name, line.substr(sep + 4)};
}

class GetpropReader {
 public:
  void Line(std::string_view line) {
    if (!line.empty()) any_line_ = true;
    if (open_) {
      auto start = SplitPropertyLine(line);
      if (start && start->rest.ends_with(']')) {
        // A whole property line while a value is open: the open one was cut off.
        out_.skipped_lines += open_lines_;
        open_ = false;
        Start(*start);
        return;
      }
      ++open_lines_;
      if (line.ends_with(']')) {
        value_.append(line.substr(0, line.size() - 1));
        Commit();
      } else {
        value_.append(line);
        value_.push_back('\n');
      }
      return;
    }
    if (line.empty()) return;
    auto start = SplitPropertyLine(line);
    if (!start) {
      ++out_.skipped_lines;
      return;
    }
    Start(*start);
  }

  Result<GetpropOutput> Finish() && {
    if (open_) out_.skipped_lines += open_lines_;  // the last value never closed
    if (!any_line_) return MakeError(ParseErrorCode::kEmpty, "getprop: empty output");
    if (out_.properties.empty()) {
      return MakeError(ParseErrorCode::kNotThisFormat,
                       "getprop: no \"[name]: [value]\" line in the output");
    }
    return std::move(out_);
  }

 private:
  void Start(const PropertyStart& start) {
    name_.assign(start.name);
    if (start.rest.ends_with(']')) {
      value_.assign(start.rest.substr(0, start.rest.size() - 1));
      Commit();
      return;
    }
    value_.assign(start.rest);
    value_.push_back('\n');
    open_ = true;
    open_lines_ = 1;
  }

  void Commit() {
    out_.properties.insert_or_assign(std::move(name_), std::move(value_));
    name_.clear();
    value_.clear();
    open_ = false;
    open_lines_ = 0;
  }

  GetpropOutput out_;
  std::string name_;
  std::string value_;
  bool open_ = false;
  uint64_t open_lines_ = 0;
  bool any_line_ = false;
};

}  // namespace

Result<GetpropOutput> ParseGetprop(std::string_view output) {
  GetpropReader reader;
  ForEachLine(output, [&reader](std::string_view line) { reader.Line(line); });
  return std::move(reader).Finish();
}

}  // namespace droidlab::parsers
