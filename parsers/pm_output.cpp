#include "parsers/pm_output.h"

#include <string>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

template <class Reader>
void ReadLines(std::string_view output, Reader& reader) {
  ForEachLine(output, [&reader](std::string_view line) { reader.Line(line); });
}

struct PmPathReader {
  void Line(std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    any_line = true;
    if (ConsumePrefix(line, "package:") && !line.empty()) {
      out.apk_paths.emplace_back(line);
    } else {
      ++out.skipped_lines;
    }
  }

  PmPath out;
  bool any_line = false;
};

// ComponentName.flattenToShortString(): "pkg/cls" or "pkg/.Cls"; no spaces, one '/', neither
// side empty.
bool IsComponent(std::string_view s) {
  const size_t slash = s.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < s.size() &&
         s.find('/', slash + 1) == std::string_view::npos &&
         s.find_first_of(" \t") == std::string_view::npos;
}

struct ResolveReader {
  void Line(std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    any_line = true;
    if (line == "No activity found") {
      seen = true;
      return;
    }
    if (line.starts_with("priority=")) {
      if (!Numbers(line)) ++out.skipped_lines;
      return;
    }
    if (IsComponent(line) && !out.component) {
      seen = true;
      out.component.emplace(line);
      out.is_chooser = line == "android/com.android.internal.app.ResolverActivity";
      return;
    }
    ++out.skipped_lines;
  }

  // "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true"
  bool Numbers(std::string_view rest) {
    bool ok = true;
    for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
      std::string_view value = token;
      auto key = SplitFirst(value, '=');
      if (!key) {
        ok = false;
      } else if (*key == "priority") {
        ok = Set(out.priority, ParseInt<int>(value)) && ok;
      } else if (*key == "preferredOrder") {
        ok = Set(out.preferred_order, ParseInt<int>(value)) && ok;
      } else if (*key == "match") {
        ok = ConsumePrefix(value, "0x") && Set(out.match, ParseInt<uint32_t>(value, 16)) && ok;
      } else if (*key == "specificIndex") {
        ok = Set(out.specific_index, ParseInt<int>(value)) && ok;
      } else if (*key == "isDefault") {
        std::optional<bool> b;
        if (value == "true") b = true;
        if (value == "false") b = false;
        ok = Set(out.is_default, b) && ok;
      }
    }
    return ok;
  }

  template <class T>
  static bool Set(std::optional<T>& field, std::optional<T> value) {
    field = value;
    return value.has_value();
  }

  ResolvedActivity out;
  bool any_line = false;
  bool seen = false;
};

}  // namespace

Result<PmPath> ParsePmPath(std::string_view output) {
  PmPathReader reader;
  ReadLines(output, reader);
  if (reader.any_line && reader.out.apk_paths.empty()) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "pm path: output has no \"package:\" line");
  }
  return std::move(reader.out);
}

Result<ResolvedActivity> ParseResolveActivityBrief(std::string_view output) {
  ResolveReader reader;
  ReadLines(output, reader);
  if (!reader.any_line) {
    return MakeError(ParseErrorCode::kEmpty, "resolve-activity: empty output");
  }
  if (!reader.seen) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "resolve-activity: no component line and no \"No activity found\"");
  }
  return std::move(reader.out);
}

}  // namespace droidlab::parsers
