#include "parsers/dumpsys_thermal.h"

#include <charconv>
#include <string>
#include <system_error>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

// Java's Float.toString: "36.1", "-0.5", "1.0E-4", "NaN", "Infinity", "-Infinity". from_chars
// reads all of them (NaN and Infinity case-insensitively); the whole field must be consumed.
std::optional<double> ParseJavaFloat(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// "Temperature{mValue=36.1, mType=3, mName=battery, mStatus=0}". mName is free text, so it is
// taken between ", mName=" and the last ", mStatus=".
std::optional<ThermalTemperature> ParseTemperatureItem(std::string_view item) {
  if (!ConsumePrefix(item, "Temperature{mValue=") || !item.ends_with('}')) return std::nullopt;
  item.remove_suffix(1);
  const size_t type_at = item.find(", mType=");
  const size_t name_at = item.find(", mName=");
  const size_t status_at = item.rfind(", mStatus=");
  if (type_at == std::string_view::npos || name_at == std::string_view::npos ||
      status_at == std::string_view::npos || !(type_at < name_at && name_at < status_at)) {
    return std::nullopt;
  }
  constexpr size_t kTypeLen = sizeof(", mType=") - 1;
  constexpr size_t kNameLen = sizeof(", mName=") - 1;
  constexpr size_t kStatusLen = sizeof(", mStatus=") - 1;
  auto value = ParseJavaFloat(item.substr(0, type_at));
  auto type = ParseInt<int>(item.substr(type_at + kTypeLen, name_at - type_at - kTypeLen));
  auto status = ParseInt<int>(item.substr(status_at + kStatusLen));
  if (!value || !type || !status) return std::nullopt;
  ThermalTemperature t;
  t.value_c = *value;
  t.type = *type;
  t.status = *status;
  t.name.assign(item.substr(name_at + kNameLen, status_at - name_at - kNameLen));
  return t;
}

enum class Section {
  kNone,
  kListeners,      // ThermalEventListeners / ThermalStatusListeners: RemoteCallbackList.dump
  kCached,
  kHalConnection,  // "ThermalHAL 2.0 connected: yes", "ThermalHAL AIDL 1 connected: yes"
  kFromHal,
  kIgnoredItems,   // cooling devices, static thresholds: items recognised, not kept
  kHeadroom,       // one unindented "[…]" line follows
};

class ThermalReader {
 public:
  void Line(std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    any_line_ = true;
    const bool indented = IsAsciiSpace(raw.front());
    if (indented) {
      Item(line);
      return;
    }
    if (section_ == Section::kHeadroom && line.starts_with('[') && line.ends_with(']')) {
      section_ = Section::kNone;
      return;
    }
    section_ = Section::kNone;
    std::string_view rest = line;
    if (ConsumePrefix(rest, "IsStatusOverride: ")) {
      Seen();
      out_.is_status_override = ParseJavaBool(rest);
      if (!out_.is_status_override) ++out_.skipped_lines;
    } else if (line == "ThermalEventListeners:" || line == "ThermalStatusListeners:") {
      Seen();
      section_ = Section::kListeners;
    } else if (ConsumePrefix(rest, "Thermal Status: ")) {
      Seen();
      auto status = ParseInt<int>(rest);
      if (status && *status >= 0 && *status <= 6) {
        out_.thermal_status = *status;
        status_seen_ = true;
      } else {
        ++out_.skipped_lines;
      }
    } else if (line == "Cached temperatures:") {
      Seen();
      section_ = Section::kCached;
    } else if (ConsumePrefix(rest, "HAL Ready: ")) {
      Seen();
      out_.hal_ready = ParseJavaBool(rest);
      if (!out_.hal_ready) ++out_.skipped_lines;
    } else if (line == "HAL connection:") {
      Seen();
      section_ = Section::kHalConnection;
    } else if (line == "Current temperatures from HAL:") {
      Seen();
      section_ = Section::kFromHal;
    } else if (line == "Current cooling devices from HAL:" ||
               line == "Temperature static thresholds from HAL:") {
      Seen();
      section_ = Section::kIgnoredItems;
    } else if (line == "Temperature headroom thresholds:") {
      Seen();
      section_ = Section::kHeadroom;
    } else if (line.starts_with("Can't find service: ")) {
      missing_ = true;
    } else if (line.starts_with("Permission Denial")) {
      denied_ = true;
    } else {
      ++out_.skipped_lines;
    }
  }

  Result<DumpsysThermal> Finish() && {
    if (!seen_) {
      if (!any_line_ || missing_) {
        return MakeError(ParseErrorCode::kServiceMissing,
                         "dumpsys thermalservice: no ThermalManagerService (Android 10+); "
                         "Android 9's native thermalservice prints nothing");
      }
      if (denied_) {
        return MakeError(ParseErrorCode::kPermissionDenied,
                         "dumpsys thermalservice: permission denied (the shell needs DUMP)");
      }
      return MakeError(ParseErrorCode::kNotThisFormat,
                       "dumpsys thermalservice: none of ThermalManagerService's lines "
                       "(IsStatusOverride, Thermal Status, Cached temperatures, HAL Ready)");
    }
    if (!status_seen_) {
      return MakeError(ParseErrorCode::kMalformed,
                       "dumpsys thermalservice: no readable \"Thermal Status: N\" line (N 0-6)");
    }
    return std::move(out_);
  }

 private:
  void Seen() { seen_ = true; }

  void Item(std::string_view item) {
    switch (section_) {
      case Section::kCached:
      case Section::kFromHal: {
        auto t = ParseTemperatureItem(item);
        if (!t) {
          ++out_.skipped_lines;
          return;
        }
        (section_ == Section::kCached ? out_.cached : out_.from_hal).push_back(std::move(*t));
        return;
      }
      case Section::kListeners:
      case Section::kHalConnection:
      case Section::kIgnoredItems:
        return;
      case Section::kNone:
      case Section::kHeadroom:
        ++out_.skipped_lines;
        return;
    }
  }

  DumpsysThermal out_;
  Section section_ = Section::kNone;
  bool seen_ = false;
  bool status_seen_ = false;
  bool any_line_ = false;
  bool missing_ = false;
  bool denied_ = false;
};

}  // namespace

std::string_view ThermalStatusName(int status) {
  switch (status) {
    case 0: return "NONE";
    case 1: return "LIGHT";
    case 2: return "MODERATE";
    case 3: return "SEVERE";
    case 4: return "CRITICAL";
    case 5: return "EMERGENCY";
    case 6: return "SHUTDOWN";
    default: return "UNKNOWN";
  }
}

const ThermalTemperature* DumpsysThermal::Find(std::string_view name) const {
  for (const auto* list : {&from_hal, &cached}) {
    for (const auto& t : *list) {
      if (t.name == name) return &t;
    }
  }
  return nullptr;
}

Result<DumpsysThermal> ParseDumpsysThermal(std::string_view output) {
  ThermalReader reader;
  ForEachLine(output, [&reader](std::string_view line) { reader.Line(line); });
  return std::move(reader).Finish();
}

}  // namespace droidlab::parsers
