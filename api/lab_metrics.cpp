#include "api/lab_metrics.h"

#include <algorithm>
#include <charconv>
#include <system_error>

namespace droidlab::api {

namespace {

// Cold starts of real apps run from ~100 ms to several seconds; Android's own "slow launch"
// marks are 5 s (cold) and 700 ms-class frames, so the buckets are dense below 2 s.
const std::vector<double> kLaunchBounds = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75,
                                           1,    1.5, 2,   3,   5,   10};
// A shell round trip through the adb server is ~0.5 ms on loopback, tens of ms over USB, and
// seconds for dumps of a busy device.
const std::vector<double> kAdbBounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                        0.1,    0.25,  0.5,    1,     2.5,  5,     10};

}  // namespace

std::string MetricValue(double value) {
  char buffer[400];  // fixed notation of a large double is long
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buffer, end) : "NaN";
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  const auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value);  // le: value <= bound
  ++counts_[static_cast<size_t>(at - bounds_.begin())];
  ++count_;
  sum_ += value;
}

void Histogram::AppendExposition(std::string& out, std::string_view name,
                                 std::string_view labels) const {
  const std::string prefix = std::string(labels) + (labels.empty() ? "" : ",");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? MetricValue(bounds_[i]) : "+Inf";
    out.append(name).append("_bucket{").append(prefix).append("le=\"").append(le);
    out.append("\"} ").append(std::to_string(cumulative)).append("\n");
  }
  const std::string braces = labels.empty() ? "" : "{" + std::string(labels) + "}";
  out.append(name).append("_sum").append(braces).append(" ").append(MetricValue(sum_)).append("\n");
  out.append(name).append("_count").append(braces).append(" ");
  out.append(std::to_string(count_)).append("\n");
}

void LabMetrics::ObserveLaunch(const std::string& package, const std::string& model,
                               double displayed_ms) {
  auto [it, inserted] = launches_.try_emplace({package, model}, kLaunchBounds);
  it->second.Observe(displayed_ms / 1000.0);
}

void LabMetrics::ObserveAdbCommand(std::string_view command, double seconds) {
  auto it = adb_commands_.find(command);
  if (it == adb_commands_.end()) it = adb_commands_.emplace(std::string(command), kAdbBounds).first;
  it->second.Observe(seconds);
}

std::string LabMetrics::Exposition() const {
  std::string out;
  out += "# HELP droidlab_launch_displayed_seconds Displayed time (logcat) of valid launches, by "
         "package and device model.\n";
  out += "# TYPE droidlab_launch_displayed_seconds histogram\n";
  for (const auto& [key, histogram] : launches_) {
    const std::string labels = "package=\"" + EscapeLabelValue(key.first) + "\",model=\"" +
                               EscapeLabelValue(key.second) + "\"";
    histogram.AppendExposition(out, "droidlab_launch_displayed_seconds", labels);
  }
  out += "# HELP droidlab_adb_command_duration_seconds Round trip of adb commands through the "
         "adb server, by kind (streams such as logcat excluded).\n";
  out += "# TYPE droidlab_adb_command_duration_seconds histogram\n";
  for (const auto& [command, histogram] : adb_commands_) {
    histogram.AppendExposition(out, "droidlab_adb_command_duration_seconds",
                               "command=\"" + EscapeLabelValue(command) + "\"");
  }
  return out;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace droidlab::api
