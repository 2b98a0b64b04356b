#include "daemon/client_format.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace droidlab::daemon {

namespace {

using Json = nlohmann::json;

// Characters, not bytes: a model name may be "Galaxy S23 Ultra" or "小米 13".
size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

const Json& Field(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string Text(const Json& object, const char* key) { return FormatValue(Field(object, key)); }

const Json& ArrayOf(const Json& body, const char* key) {
  static const Json kEmpty = Json::array();
  const Json& list = Field(body, key);
  return list.is_array() ? list : kEmpty;
}

}  // namespace

bool IsFinalRunStatus(std::string_view status) {
  return status == "succeeded" || status == "failed" || status == "cancelled" ||
         status == "interrupted";
}

std::string FormatTable(const std::vector<TableColumn>& columns,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(columns.size(), 0);
  for (size_t c = 0; c < columns.size(); ++c) widths[c] = DisplayWidth(columns[c].title);
  for (const auto& row : rows) {
    for (size_t c = 0; c < columns.size() && c < row.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    }
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string cell = cell_of(c);
      const std::string pad(widths[c] - DisplayWidth(cell), ' ');
      if (c > 0) out += "  ";
      out += columns[c].right_aligned ? pad + cell : cell + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line([&](size_t c) { return columns[c].title; });
  for (const auto& row : rows) {
    out += line([&](size_t c) { return c < row.size() ? row[c] : std::string(); });
  }
  return out;
}

std::string FormatTime(const Json& epoch_ms) {
  if (!epoch_ms.is_number_integer()) return "-";
  const std::time_t seconds = static_cast<std::time_t>(epoch_ms.get<int64_t>() / 1000);
  std::tm utc{};
  if (!gmtime_r(&seconds, &utc)) return "-";
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%SZ", &utc);
  return text;
}

std::string FormatValue(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_number_integer()) return value.dump();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!std::isfinite(d)) return "-";
    if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
    char text[64];
    std::snprintf(text, sizeof text, "%.1f", d);
    return text;
  }
  return "-";
}

namespace {

// A device's labels joined by commas (a label holds none), "-" for none.
std::string LabelsText(const Json& device) {
  std::string joined;
  for (const Json& label : ArrayOf(device, "labels")) {
    if (!label.is_string()) continue;
    if (!joined.empty()) joined += ',';
    joined += label.get<std::string>();
  }
  return joined.empty() ? "-" : joined;
}

}  // namespace

std::string DevicesTable(const Json& body) {
  std::vector<std::vector<std::string>> rows;
  for (const Json& d : ArrayOf(body, "devices")) {
    rows.push_back({Text(d, "serial"), Text(d, "state"), Text(d, "model"), Text(d, "manufacturer"),
                    Text(d, "sdk"), Text(d, "release"), Text(d, "host"), LabelsText(d),
                    FormatTime(Field(d, "last_seen"))});
  }
  return FormatTable({{"SERIAL"},
                      {"STATE"},
                      {"MODEL"},
                      {"MANUFACTURER"},
                      {"SDK", true},
                      {"RELEASE"},
                      {"HOST"},
                      {"LABELS"},
                      {"LAST SEEN"}},
                     rows);
}

std::string RunsTable(const Json& body) {
  std::vector<std::vector<std::string>> rows;
  for (const Json& r : ArrayOf(body, "runs")) {
    rows.push_back({Text(r, "id"), Text(r, "status"), Text(r, "serial"), Text(r, "device_model"),
                    Text(r, "package"), Text(r, "mode"), Text(r, "iterations"),
                    FormatTime(Field(r, "created_at")), FormatTime(Field(r, "finished_at"))});
  }
  std::string out = FormatTable({{"ID", true},
                                 {"STATUS"},
                                 {"SERIAL"},
                                 {"MODEL"},
                                 {"PACKAGE"},
                                 {"MODE"},
                                 {"ITERATIONS", true},
                                 {"CREATED"},
                                 {"FINISHED"}},
                                rows);
  const Json& cursor = Field(body, "next_cursor");
  if (cursor.is_string()) out += "more: --cursor " + cursor.get<std::string>() + "\n";
  return out;
}

std::string SchedulesTable(const Json& body) {
  std::vector<std::vector<std::string>> rows;
  for (const Json& s : ArrayOf(body, "schedules")) {
    const Json& run = Field(s, "run");
    rows.push_back({Text(s, "id"), Text(s, "cron"), Text(s, "timezone"), Text(s, "enabled"),
                    Text(run, "serial"), Text(run, "package"), Text(run, "mode"),
                    Text(run, "iterations"), FormatTime(Field(s, "last_fired_at"))});
  }
  return FormatTable({{"ID", true},
                      {"CRON"},
                      {"TIMEZONE"},
                      {"ENABLED"},
                      {"SERIAL"},
                      {"PACKAGE"},
                      {"MODE"},
                      {"ITERATIONS", true},
                      {"LAST FIRED"}},
                     rows);
}

std::string BuildsTable(const Json& body) {
  std::vector<std::vector<std::string>> rows;
  for (const Json& b : ArrayOf(body, "builds")) {
    std::string sha = Text(b, "sha256");
    if (sha.size() > 12) sha.resize(12);
    rows.push_back({Text(b, "id"), Text(b, "package"), Text(b, "version_code"),
                    Text(b, "version_name"), Text(b, "size"), sha,
                    FormatTime(Field(b, "created_at"))});
  }
  return FormatTable({{"ID", true},
                      {"PACKAGE"},
                      {"VERSION CODE", true},
                      {"VERSION"},
                      {"BYTES", true},
                      {"SHA-256"},
                      {"ADDED"}},
                     rows);
}

std::string BuildLine(const Json& build, bool created) {
  return "build " + Text(build, "id") + ": " + Text(build, "package") + " " +
         Text(build, "version_name") + " (versionCode " + Text(build, "version_code") + "), " +
         Text(build, "size") + " bytes, sha256 " + Text(build, "sha256") +
         (created ? "\n" : " (already kept)\n");
}

std::string RunSummaryText(const Json& run) {
  std::string out = "run " + Text(run, "id") + " " + Text(run, "status") + ": " +
                    Text(run, "package") + " " + Text(run, "mode") + " x" +
                    Text(run, "iterations") + " on " + Text(run, "serial");
  if (Field(run, "device_model").is_string()) out += " (" + Text(run, "device_model") + ")";
  out += "\n";
  const Json& launches = Field(run, "launches");
  if (launches.is_object()) {
    out += "launches: " + Text(launches, "recorded") + " recorded, " + Text(launches, "valid") +
           " valid\n";
  }
  if (Field(run, "error").is_string()) out += "error: " + Text(run, "error") + "\n";
  std::vector<std::vector<std::string>> rows;
  const Json& summary = Field(run, "summary");
  for (const char* metric : {"displayed_ms", "fully_drawn_ms", "total_time_ms"}) {
    const Json& s = Field(summary, metric);
    if (!s.is_object()) continue;
    rows.push_back({metric, Text(s, "count"), Text(s, "min"), Text(s, "median"), Text(s, "mean"),
                    Text(s, "p90"), Text(s, "max"), Text(s, "stddev")});
  }
  if (!rows.empty()) {
    out += FormatTable({{"METRIC"},
                        {"COUNT", true},
                        {"MIN", true},
                        {"MEDIAN", true},
                        {"MEAN", true},
                        {"P90", true},
                        {"MAX", true},
                        {"STDDEV", true}},
                       rows);
  }
  return out;
}

std::string BaselineName(const Json& c) {
  const Json& segment = Field(c, "segment");
  if (segment.is_object()) {  // GET /runs/{id}/verdict: the run against its history
    std::string name = "its history (" + Text(segment, "runs") + " runs";
    if (Field(segment, "first_run_id").is_number_integer()) {
      name += " since run " + Text(segment, "first_run_id");
    }
    return name + ")";
  }
  const Json& side_by_side = Field(c, "side_by_side");
  if (side_by_side.is_object()) {
    return "build " + Text(side_by_side, "baseline_build") + " (side by side with build " +
           Text(side_by_side, "candidate_build") + ")";
  }
  return "run " + Text(c, "baseline_id");
}

namespace {

// "regression against its history (10 runs since run 3): median 500 -> 600 ms (+20.0 %,
// 95 % CI +18.1 .. +21.9), p = 1e-12, floor 5 % (fixed)" and the reason on its own line.
std::string HistoryVerdictText(const Json& c, const std::string& verdict) {
  std::string out = verdict + " against " + BaselineName(c);
  char text[96];
  const Json& segment_median = Field(c, "segment_median");
  const Json& candidate_median = Field(c, "candidate_median");
  if (segment_median.is_number() && candidate_median.is_number()) {
    std::snprintf(text, sizeof text, ": median %.1f -> %.1f ms", segment_median.get<double>(),
                  candidate_median.get<double>());
    out += text;
  }
  const Json& percent = Field(c, "delta_pct");
  const Json& ci = Field(c, "ci");
  if (percent.is_number()) {
    std::snprintf(text, sizeof text, " (%+.1f %%", percent.get<double>());
    out += text;
    if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number()) {
      std::snprintf(text, sizeof text, ", 95 %% CI %+.1f .. %+.1f", ci[0].get<double>(),
                    ci[1].get<double>());
      out += text;
    }
    out += ")";
  }
  const Json& p = Field(c, "p");
  if (p.is_number()) {
    std::snprintf(text, sizeof text, ", p = %.2g", p.get<double>());
    out += text;
  }
  const Json& floor = Field(c, "floor_pct");
  if (floor.is_number()) {
    std::snprintf(text, sizeof text, ", floor %.1f %% (", floor.get<double>());
    out += text + Text(c, "floor_source") + ")";
  }
  out += "\n";
  if (Field(c, "reason").is_string() && !Text(c, "reason").empty()) out += Text(c, "reason") + "\n";
  return out;
}

// "conditions: compilation speed-profile; another build; 2 launches too hot in the baseline".
std::string ConditionsLine(const Json& c) {
  const Json& cmp = Field(c, "comparable");
  if (!cmp.is_object()) return "";
  std::string line = "conditions: compilation ";
  const Json& compilation = Field(cmp, "compilation");
  const std::string base = Text(compilation, "baseline");
  const std::string cand = Text(compilation, "candidate");
  line += base == cand ? base : base + " -> " + cand;
  const Json& same = Field(cmp, "same_build");
  if (same.is_boolean()) line += same.get<bool>() ? "; the same build" : "; another build";
  const Json& differences = Field(cmp, "differences");
  if (differences.is_array()) {
    for (const Json& d : differences) {
      if (d.is_string()) line += "; " + d.get<std::string>();
    }
  }
  return line + "\n";
}

}  // namespace

std::string ComparisonText(const Json& c) {
  std::string verdict = Text(c, "verdict");
  std::replace(verdict.begin(), verdict.end(), '_', ' ');
  if (Field(c, "segment").is_object()) return HistoryVerdictText(c, verdict);
  std::string out = verdict + " against " + BaselineName(c) + ": median " +
                    Text(c, "baseline_median_ms") + " -> " + Text(c, "candidate_median_ms") + " ms";
  const Json& percent = Field(c, "delta_percent");
  if (percent.is_number()) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", percent.get<double>());
    out += std::string(" (") + text + ")";
  }
  const Json& p = Field(c, "p_value");
  if (p.is_number()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", p.get<double>());
    out += std::string(", p = ") + text;
  }
  out += "\n";
  if (Field(c, "reason").is_string() && !Text(c, "reason").empty()) {
    out += Text(c, "reason") + "\n";
  }
  return out + ConditionsLine(c);
}

std::optional<RunProgressView> ProgressFromJson(const Json& run) {
  if (!Field(run, "id").is_number_integer() || !Field(run, "status").is_string()) {
    return std::nullopt;
  }
  RunProgressView p;
  p.id = run["id"].get<int64_t>();
  p.status = run["status"].get<std::string>();
  const Json& progress = Field(run, "progress");
  if (progress.is_object()) {
    p.phase = Field(progress, "phase").is_string() ? progress["phase"].get<std::string>() : "";
    auto number = [&](const char* key) {
      const Json& v = Field(progress, key);
      return v.is_number_integer() ? v.get<int64_t>() : 0;
    };
    p.done = number("iterations_done");
    p.total = number("iterations");
    p.valid = number("valid_launches");
  } else if (Field(run, "iterations").is_number_integer()) {
    p.total = run["iterations"].get<int64_t>();
    const Json& launches = Field(run, "launches");
    if (Field(launches, "recorded").is_number_integer())
      p.done = launches["recorded"].get<int64_t>();
    if (Field(launches, "valid").is_number_integer()) p.valid = launches["valid"].get<int64_t>();
  }
  return p;
}

std::string ProgressLine(const RunProgressView& p) {
  std::string out = "run " + std::to_string(p.id) + ": " + p.status;
  if (p.status == "running" && !p.phase.empty()) out += ", " + p.phase;
  if (p.total > 0 && (p.status == "running" || IsFinalRunStatus(p.status))) {
    out += " " + std::to_string(p.done) + "/" + std::to_string(p.total) + " (" +
           std::to_string(p.valid) + " valid)";
  }
  return out;
}

std::string ProgressBar(const RunProgressView& p, int width) {
  const std::string head = "run " + std::to_string(p.id) + " " +
                           (p.status == "running" && !p.phase.empty() ? p.phase : p.status);
  const std::string tail = "  " + std::to_string(p.done) + "/" + std::to_string(p.total);
  const int room = width - static_cast<int>(head.size() + tail.size()) - 3;
  if (room < 10 || p.total <= 0)
    return ProgressLine(p).substr(0, static_cast<size_t>(std::max(width, 0)));
  const int bar = std::min(room, 40);
  const int filled = static_cast<int>(std::min<int64_t>(p.done, p.total) * bar / p.total);
  return head + " [" + std::string(static_cast<size_t>(filled), '#') +
         std::string(static_cast<size_t>(bar - filled), '-') + "]" + tail;
}

void ProgressReporter::Update(const RunProgressView& p) {
  if (terminal_) {
    // \r and erase-line: the bar redraws over itself however its width changed.
    std::fprintf(to_, "\r\033[K%s", ProgressBar(p, width_ - 1).c_str());
    std::fflush(to_);
    drawn_ = true;
    last_ = p;
    return;
  }
  bool print = !last_ || last_->status != p.status || last_->phase != p.phase;
  if (!print && p.total > 0 && last_) {
    print = last_->done * 10 / p.total != p.done * 10 / p.total;
  }
  if (print) {
    std::fprintf(to_, "%s\n", ProgressLine(p).c_str());
    std::fflush(to_);
    last_ = p;
  }
}

void ProgressReporter::Finish() {
  if (terminal_ && drawn_) {
    std::fprintf(to_, "\n");
    std::fflush(to_);
  }
  drawn_ = false;
}

}  // namespace droidlab::daemon
