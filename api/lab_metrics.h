// Histograms for GET /metrics that the lab's work feeds as it happens (not read from the store
// at scrape time: a scrape must stay cheap with millions of launches stored):
//   droidlab_launch_displayed_seconds{package,model}  Displayed of every valid launch measured
//   droidlab_adb_command_duration_seconds{command}    each adb command's round trip (streams not)
// Counters since the daemon started, as Prometheus expects (rate() handles restarts).
//
// Threading: the io thread only — the adb client, the run executors and the API all run there.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace droidlab::api {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double value);
  // The _bucket/_sum/_count lines of one series; `labels` is `key="value",…` (escaped) or "".
  void AppendExposition(std::string& out, std::string_view name, std::string_view labels) const;
  uint64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative
  uint64_t count_ = 0;
  double sum_ = 0;
};

class LabMetrics {
 public:
  void ObserveLaunch(const std::string& package, const std::string& model, double displayed_ms);
  void ObserveAdbCommand(std::string_view command, double seconds);
  // HELP/TYPE headers and every series of both histograms (nothing when none was observed).
  std::string Exposition() const;

 private:
  std::map<std::pair<std::string, std::string>, Histogram> launches_;
  std::map<std::string, Histogram, std::less<>> adb_commands_;
};

// A Prometheus label value: backslash, double quote and newline escaped.
std::string EscapeLabelValue(std::string_view value);

// A sample's value: the shortest fixed-point text that reads back as the same double ("0.1",
// not 0.10000000000000001; "0.0005", not 5e-04; a count of seconds in full, not "1.23457e+06").
std::string MetricValue(double value);

}  // namespace droidlab::api
