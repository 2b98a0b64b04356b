// What the client commands print for people: aligned tables of the API's JSON, a run's summary,
// a comparison's verdict, progress. Pure functions of the JSON (fields that are absent or null
// print as "-"), so that a daemon newer or older than this binary still prints.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::daemon {

struct TableColumn {
  std::string title;
  bool right_aligned = false;  // numbers
};

// Columns two spaces apart, each as wide as its widest cell (in UTF-8 characters), no trailing
// blanks; one line per row, the titles first.
std::string FormatTable(const std::vector<TableColumn>& columns,
                        const std::vector<std::vector<std::string>>& rows);

// Milliseconds since the Unix epoch → "2026-11-23 09:20:44Z" (UTC); "-" for null.
std::string FormatTime(const nlohmann::json& epoch_ms);
// A number as people read it: integers without decimals, others with one ("201.3"); "-" for
// null or absent; strings as they are.
std::string FormatValue(const nlohmann::json& value);

// GET /api/v1/devices → a table (SERIAL STATE MODEL MANUFACTURER SDK RELEASE LAST SEEN).
std::string DevicesTable(const nlohmann::json& body);
// GET /api/v1/runs → a table (ID STATUS SERIAL MODEL PACKAGE MODE ITERATIONS CREATED FINISHED),
// and a line naming the next page's --cursor when there is one.
std::string RunsTable(const nlohmann::json& body);
// GET /api/v1/schedules → a table (ID CRON TIMEZONE ENABLED SERIAL PACKAGE MODE ITERATIONS
// LAST FIRED).
std::string SchedulesTable(const nlohmann::json& body);
// GET /api/v1/builds as a table; one uploaded build as a line ("build 3: com.x 1.2 (versionCode
// 12), 5242880 bytes, sha256 …", " (already kept)" when the daemon had those bytes).
std::string BuildsTable(const nlohmann::json& body);
std::string BuildLine(const nlohmann::json& build, bool created);

// GET /api/v1/runs/{id} → "run 12 succeeded: com.example.app cold ×20 on SERIAL (MODEL)", the
// error when there is one, and a table of the summary's metrics (count, min, median, mean, p90,
// max, stddev), one row per metric that has values.
std::string RunSummaryText(const nlohmann::json& run);
// GET /api/v1/runs/{id}/compare → "regression against run 11: median 200 → 240 ms (+20.0 %),
// p = 0.0001" ("… against build 3 side by side: …" for a side-by-side run), the verdict's
// reason, and the conditions it was judged in: the compilation state of each side, whether the
// builds are the same, the differences found (launches too hot, an OTA).
std::string ComparisonText(const nlohmann::json& comparison);
// What a comparison was against: "run 11", or "build 3 (side by side)".
std::string BaselineName(const nlohmann::json& comparison);

// "succeeded", "failed", "cancelled", "interrupted": a run that will not change again.
bool IsFinalRunStatus(std::string_view status);

// Where a run is, from GET /runs/{id} or an `event: run`.
struct RunProgressView {
  int64_t id = 0;
  std::string status;  // queued, running, succeeded, …
  std::string phase;   // preflight, launching, collecting, restoring; "" when unknown
  int64_t done = 0;
  int64_t total = 0;
  int64_t valid = 0;
};
// From a run's JSON (GET /runs/{id}: "progress" may be null) or an event's data; nullopt when
// it is not a run.
std::optional<RunProgressView> ProgressFromJson(const nlohmann::json& run);

// "run 12: running, launching 8/20 (8 valid)".
std::string ProgressLine(const RunProgressView& p);
// "run 12 launching [########------------]  8/20" in `width` columns at most (a terminal line).
std::string ProgressBar(const RunProgressView& p, int width);

// Shows progress on `to`: a bar redrawn in place on a terminal, else a line whenever the status
// or phase changes or another tenth of the iterations is done (a CI log stays short).
class ProgressReporter {
 public:
  ProgressReporter(std::FILE* to, bool terminal, int width = 80)
      : to_(to), terminal_(terminal), width_(width) {}
  void Update(const RunProgressView& p);
  // Ends the bar's line; call once the run has ended.
  void Finish();

 private:
  std::FILE* to_;
  bool terminal_;
  int width_;
  bool drawn_ = false;
  std::optional<RunProgressView> last_;
};

}  // namespace droidlab::daemon
