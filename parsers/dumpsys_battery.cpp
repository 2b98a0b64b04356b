#include "parsers/dumpsys_battery.h"

#include <string>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

class BatteryReader {
 public:
  void Line(std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    any_line_ = true;
    if (!header_) {
      if (line == "Current Battery Service state:") {
        header_ = true;
      } else if (line.starts_with("Can't find service: ")) {
        missing_ = true;
      } else if (line.starts_with("Permission Denial")) {
        denied_ = true;
      } else {
        ++out_.skipped_lines;
      }
      return;
    }
    if (line == "(UPDATES STOPPED -- use 'reset' to restart)") {
      out_.updates_stopped = true;
      return;
    }
    std::string_view value = line;
    auto key = SplitFirst(value, ':');
    if (!key) {
      ++out_.skipped_lines;
      return;
    }
    value = Trim(value);
    if (!Field(*key, value)) ++out_.skipped_lines;
  }

  Result<DumpsysBattery> Finish() && {
    if (!any_line_) return MakeError(ParseErrorCode::kEmpty, "dumpsys battery: empty output");
    if (!header_) {
      if (missing_) {
        return MakeError(ParseErrorCode::kServiceMissing,
                         "dumpsys battery: the device has no battery service");
      }
      if (denied_) {
        return MakeError(ParseErrorCode::kPermissionDenied,
                         "dumpsys battery: permission denied (the shell needs DUMP)");
      }
      return MakeError(ParseErrorCode::kNotThisFormat,
                       "dumpsys battery: no \"Current Battery Service state:\" header");
    }
    return std::move(out_);
  }

 private:
  // Returns false when the key is unknown or its value does not parse.
  bool Field(std::string_view key, std::string_view value) {
    if (key == "AC powered") return Bool(value, out_.ac_powered);
    if (key == "USB powered") return Bool(value, out_.usb_powered);
    if (key == "Wireless powered") return Bool(value, out_.wireless_powered);
    if (key == "Dock powered") return Bool(value, out_.dock_powered);
    if (key == "present") return Bool(value, out_.present);
    if (key == "Max charging current") return Number(value, out_.max_charging_current_ua);
    if (key == "Max charging voltage") return Number(value, out_.max_charging_voltage_uv);
    if (key == "Charge counter") return Number(value, out_.charge_counter_uah);
    if (key == "status") return Number(value, out_.status);
    if (key == "health") return Number(value, out_.health);
    if (key == "level") return Number(value, out_.level);
    if (key == "scale") return Number(value, out_.scale);
    if (key == "voltage") return Number(value, out_.voltage_mv);
    if (key == "temperature") return Number(value, out_.temperature_tenths_c);
    if (key == "Charging state") return Number(value, out_.charging_state);
    if (key == "Charging policy") return Number(value, out_.charging_policy);
    if (key == "technology") {
      out_.technology.emplace(value);
      return true;
    }
    return false;
  }

  static bool Bool(std::string_view value, std::optional<bool>& field) {
    field = ParseJavaBool(value);
    return field.has_value();
  }

  template <class T>
  static bool Number(std::string_view value, std::optional<T>& field) {
    field = ParseInt<T>(value);
    return field.has_value();
  }

  DumpsysBattery out_;
  bool header_ = false;
  bool any_line_ = false;
  bool missing_ = false;
  bool denied_ = false;
};

}  // namespace

bool DumpsysBattery::IsCharging() const {
  return ac_powered.value_or(false) || usb_powered.value_or(false) ||
         wireless_powered.value_or(false) || dock_powered.value_or(false);
}

Result<DumpsysBattery> ParseDumpsysBattery(std::string_view output) {
  BatteryReader reader;
  ForEachLine(output, [&reader](std::string_view line) { reader.Line(line); });
  return std::move(reader).Finish();
}

}  // namespace droidlab::parsers
