#include "api/json.h"

#include <optional>
#include <string>
#include <type_traits>

#include "store/looper_stats_columns.h"

namespace droidlab::api {

namespace {

// Stored JSON text (a spec, a preflight) as JSON, or the text itself if it does not parse.
nlohmann::json Embedded(const std::optional<std::string>& text) {
  if (!text) return nullptr;
  nlohmann::json parsed = nlohmann::json::parse(*text, nullptr, false);
  return parsed.is_discarded() ? nlohmann::json(*text) : parsed;
}

// One column of a record: a value always, an optional when present (or null when asked).
template <class T>
void PutColumn(nlohmann::json& j, const char* name, const T& value, bool) {
  j[name] = value;
}
template <class T>
void PutColumn(nlohmann::json& j, const char* name, const std::optional<T>& value,
               bool null_when_absent) {
  if (value) {
    j[name] = *value;
  } else if (null_when_absent) {
    j[name] = nullptr;
  }
}

// The fields of a stored JSON object (extra columns) into `j`; anything else is left out.
void MergeObject(nlohmann::json& j, const std::optional<std::string>& object_text) {
  if (!object_text) return;
  nlohmann::json object = nlohmann::json::parse(*object_text, nullptr, false);
  if (!object.is_object()) return;
  for (auto it = object.begin(); it != object.end(); ++it) j[it.key()] = it.value();
}

nlohmann::json SummaryOrNull(const std::optional<analysis::Summary>& summary) {
  return summary ? SummaryJson(*summary) : nlohmann::json(nullptr);
}

}  // namespace

std::string Dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json QuarantineJson(const store::Device& d) {
  if (!d.quarantined_at) return nullptr;
  return {{"since", *d.quarantined_at}, {"reason", d.quarantine_reason.value_or("")}};
}

nlohmann::json DeviceJson(const store::Device& d,
                          const std::optional<orchestrator::DeviceSnapshot>& live) {
  nlohmann::json j = {
      {"serial", d.serial},
      {"state", d.state},
      {"model", OrNull(d.model)},
      {"manufacturer", OrNull(d.manufacturer)},
      {"sdk", OrNull(d.sdk)},
      {"release", OrNull(d.release)},
      {"abi", OrNull(d.abi)},
      {"fingerprint", OrNull(d.fingerprint)},
      {"transport_id", nullptr},
      {"first_seen", d.first_seen},
      {"last_seen", d.last_seen},
      {"properties_error", nullptr},
      {"host", OrNull(d.host)},
      {"labels", d.labels},
      {"quarantine", QuarantineJson(d)},
  };
  if (live) {
    j["state"] = live->state;  // the registry's is newer than the last batch committed
    j["last_seen"] = std::max(d.last_seen, live->last_seen);
    j["properties_error"] = OrNull(live->properties_error);
  }
  return j;
}

nlohmann::json RunJson(const store::Run& r) {
  return {
      {"id", r.id},
      {"status", store::RunStatusName(r.status)},
      // A pool run's phone, once a host claimed it (its spec says which pool).
      {"serial", r.pool && r.serial.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.serial)},
      {"pool", r.pool},
      {"host", OrNull(r.host)},
      {"cancel_requested", r.cancel_requested},
      {"device_model", OrNull(r.device_model)},
      {"package", r.package},
      {"activity", OrNull(r.activity)},
      {"mode", r.mode},
      {"iterations", r.iterations},
      {"created_at", r.created_at},
      {"started_at", OrNull(r.started_at)},
      {"finished_at", OrNull(r.finished_at)},
      {"error", OrNull(r.error)},
      {"schedule_id", OrNull(r.schedule_id)},
      {"fingerprint", OrNull(r.fingerprint)},
      {"spec", Embedded(r.spec_json)},
  };
}

namespace {

nlohmann::json LaunchCountsJson(const orchestrator::LaunchSummaries& launches) {
  return {{"recorded", launches.recorded}, {"valid", launches.valid}, {"warmup", launches.warmup}};
}

nlohmann::json LaunchSummariesJson(const orchestrator::LaunchSummaries& launches) {
  return {
      {"displayed_ms", SummaryOrNull(launches.displayed_ms)},
      {"fully_drawn_ms", SummaryOrNull(launches.fully_drawn_ms)},
      {"total_time_ms", SummaryOrNull(launches.total_time_ms)},
      {"frame_p90_ms", SummaryOrNull(launches.frame_p90_ms)},
      {"frame_p99_ms", SummaryOrNull(launches.frame_p99_ms)},
      {"janky_pct", SummaryOrNull(launches.janky_pct)},
      {"pss_kb", SummaryOrNull(launches.pss_kb)},
  };
}

}  // namespace

nlohmann::json RunDetailJson(const orchestrator::RunReport& report) {
  nlohmann::json j = RunJson(report.run);
  j["preflight"] = Embedded(report.run.preflight_json);
  j["launches"] = LaunchCountsJson(report.launches);
  j["summary"] = LaunchSummariesJson(report.launches);
  j["summary"]["faults"] = {{"anr", report.faults.anr},
                            {"crash", report.faults.crash},
                            {"native_crash", report.faults.native_crash}};
  // A side-by-side run: each build's launches and summary (its verdict: GET …/compare).
  j["side_by_side"] = nullptr;
  if (report.arms) {
    const orchestrator::ArmSummaries& a = *report.arms;
    j["side_by_side"] = {
        {"baseline",
         {{"build_id", a.baseline_build},
          {"launches", LaunchCountsJson(a.baseline)},
          {"summary", LaunchSummariesJson(a.baseline)}}},
        {"candidate",
         {{"build_id", a.candidate_build},
          {"launches", LaunchCountsJson(a.candidate)},
          {"summary", LaunchSummariesJson(a.candidate)}}}};
  }
  j["progress"] = report.progress ? ProgressJson(*report.progress) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json LaunchJson(const store::Launch& l) {
  return {
      {"iteration", l.iteration},
      {"displayed_ms", OrNull(l.displayed_ms)},
      {"fully_drawn_ms", OrNull(l.fully_drawn_ms)},
      {"total_time_ms", OrNull(l.total_time_ms)},
      {"wait_time_ms", OrNull(l.wait_time_ms)},
      {"launch_state", OrNull(l.launch_state)},
      {"pid", OrNull(l.pid)},
      {"intent_to_fork_ms", OrNull(l.intent_to_fork_ms())},
      {"fork_to_displayed_ms", OrNull(l.fork_to_displayed_ms())},
      {"valid", l.valid},
      {"invalid_reason", OrNull(l.invalid_reason)},
      {"warmup", l.warmup},
      {"thermal_status", OrNull(l.thermal_status)},
      {"battery_temp_c", l.battery_temp_tenths_c
                             ? nlohmann::json(static_cast<double>(*l.battery_temp_tenths_c) / 10)
                             : nlohmann::json(nullptr)},
      {"cooldown_wait_ms", OrNull(l.cooldown_wait_ms)},
      {"build_id", OrNull(l.build_id)},
  };
}

nlohmann::json LooperStatsRowJson(const store::LooperStatsRow& r) {
  // The row as the dump printed it, by kLooperRowColumns (store/looper_stats_columns.h): the
  // dump's own column names, a column this version lacks absent; what droidlab derived always
  // there (null: unknown); the dump's unknown columns merged in last.
  nlohmann::json j = nlohmann::json::object();
  store::ForEachLooperRowColumn([&](const auto& column, int) {
    const auto& value = r.*column.member;
    switch (column.origin) {
      case store::LooperColumnOrigin::kRun:
        break;
      case store::LooperColumnOrigin::kDerived:
        PutColumn(j, column.name, value, /*null_when_absent=*/true);
        break;
      case store::LooperColumnOrigin::kDump:
        PutColumn(j, column.name, value, /*null_when_absent=*/false);
        break;
      case store::LooperColumnOrigin::kExtra:
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::optional<std::string>>) {
          MergeObject(j, value);
        }
        break;
    }
  });
  return j;
}

nlohmann::json ProcSampleJson(const store::ProcSample& s) {
  return {{"t_ms", s.t_ms},       {"pid", s.pid},       {"utime", s.utime},
          {"stime", s.stime},     {"cpu_pct", OrNull(s.cpu_pct)},
          {"rss_kb", s.rss_kb},   {"num_threads", s.num_threads}};
}

nlohmann::json ScheduleJson(const store::Schedule& s) {
  return {{"id", s.id},
          {"cron", s.cron},
          {"timezone", s.timezone},
          {"run", Embedded(s.run_spec_json)},
          {"enabled", s.enabled},
          {"last_fired_at", OrNull(s.last_fired_at)},
          {"created_at", s.created_at}};
}

nlohmann::json SummaryJson(const analysis::Summary& s) {
  nlohmann::json j = {{"count", s.count},         {"min", OrNull(s.min)},
                      {"median", OrNull(s.median)}, {"mean", OrNull(s.mean)},
                      {"p90", OrNull(s.p90)},       {"max", OrNull(s.max)},
                      {"stddev", OrNull(s.stddev)}, {"median_ci", nullptr}};
  if (s.median_ci) {
    j["median_ci"] = {{"lower", s.median_ci->lower},
                      {"upper", s.median_ci->upper},
                      {"level", s.median_ci->level}};
  }
  return j;
}

nlohmann::json ComparisonJson(const orchestrator::RunComparison& run_comparison) {
  const analysis::Comparison& c = run_comparison.comparison;
  nlohmann::json j = {{"verdict", analysis::VerdictName(c.verdict)},
                      {"reason", c.reason},
                      {"baseline_count", c.baseline_count},
                      {"candidate_count", c.candidate_count},
                      {"baseline_median_ms", OrNull(c.baseline_median)},
                      {"candidate_median_ms", OrNull(c.candidate_median)},
                      {"delta_ms", OrNull(c.delta_ms)},
                      {"delta_percent", OrNull(c.delta_percent)},
                      {"delta_ci_ms", nullptr},
                      {"p_value", OrNull(c.p_value)},
                      {"p_value_method", nullptr},
                      {"u_statistic", OrNull(c.u_statistic)}};
  if (c.delta_ci_ms) {
    j["delta_ci_ms"] = {{"lower", c.delta_ci_ms->lower},
                        {"upper", c.delta_ci_ms->upper},
                        {"level", c.delta_ci_ms->level}};
  }
  if (c.p_value_method) j["p_value_method"] = analysis::PValueMethodName(*c.p_value_method);
  j["run_id"] = run_comparison.candidate.id;
  j["baseline_id"] = run_comparison.baseline.id;
  j["metric"] = run_comparison.metric;
  // Issue 14 §4: whether the two runs may be compared at all (orchestrator/lab/comparability.h).
  const orchestrator::Comparability& cmp = run_comparison.comparability;
  j["comparable"] = {
      {"comparable", cmp.comparable},
      {"differences", cmp.differences},
      {"same_build", OrNull(cmp.same_build)},
      {"compilation", {{"baseline", OrNull(cmp.baseline_compilation)},
                       {"candidate", OrNull(cmp.candidate_compilation)}}},
      {"launches_too_hot",
       {{"baseline", cmp.baseline_launches_too_hot},
        {"candidate", cmp.candidate_launches_too_hot}}},
      {"different_conditions_allowed", run_comparison.different_conditions_allowed}};
  j["side_by_side"] = nullptr;
  if (run_comparison.side_by_side) {
    const orchestrator::SideBySideBuilds& b = *run_comparison.side_by_side;
    j["side_by_side"] = {{"baseline_build", b.baseline_build},
                         {"candidate_build", b.candidate_build},
                         {"block", b.block}};
  }
  if (run_comparison.not_comparable()) {
    std::string why;
    for (const std::string& d : cmp.differences) why += (why.empty() ? "" : "; ") + d;
    j["verdict"] = "not_comparable";
    const char* what = run_comparison.side_by_side ? "the builds were measured" : "the runs differ";
    j["reason"] = std::string(what) + " in what moves launch times (" + why +
                  "); compare anyway with allow_different_conditions=true";
  }
  return j;
}

nlohmann::json ProgressJson(const orchestrator::RunProgress& p) {
  return {{"phase", p.phase},
          {"iterations_done", p.iterations_done},
          {"iterations", p.iterations},
          {"valid_launches", p.valid_launches}};
}

namespace {

nlohmann::json OptionalNumber(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json ChangePointJson(const analysis::ChangePoint& change) {
  nlohmann::json j = nlohmann::json::object();
  j["run_id"] = change.run_id;
  j["t"] = change.t;
  j["before"] = change.median_before;
  j["after"] = change.median_after;
  j["delta"] = change.delta;
  j["delta_pct"] = change.delta_percent;
  j["ci"] = nlohmann::json::array({change.delta_percent_ci.lower, change.delta_percent_ci.upper});
  j["p"] = change.p_value;
  j["z"] = change.z;
  j["runs_before"] = change.runs_before;
  j["runs_after"] = change.runs_after;
  j["settled"] = change.settled;
  nlohmann::json causes = nlohmann::json::array();
  for (analysis::ChangeCause cause : change.explained_by) {
    causes.push_back(std::string(analysis::ChangeCauseName(cause)));
  }
  j["explained_by"] = std::move(causes);
  // The app's own change: a new versionCode and nothing else (not an OTA, not a compilation).
  j["app_change"] = change.app_change;
  return j;
}

nlohmann::json EmergingJson(const std::optional<analysis::EmergingShift>& shift) {
  if (!shift) return nlohmann::json(nullptr);
  nlohmann::json j = nlohmann::json::object();
  j["run_id"] = shift->run_id;
  j["t"] = shift->t;
  j["runs_after"] = shift->runs_after;
  j["runs_reference"] = shift->runs_reference;
  j["delta_pct"] = shift->delta_percent;
  j["z"] = shift->z;
  nlohmann::json causes = nlohmann::json::array();
  for (analysis::ChangeCause cause : shift->explained_by) {
    causes.push_back(std::string(analysis::ChangeCauseName(cause)));
  }
  j["explained_by"] = std::move(causes);
  j["app_change"] = shift->app_change;
  return j;
}

nlohmann::json VerdictJson(const orchestrator::RunVerdict& verdict) {
  const analysis::HistoryJudgement& j = verdict.judgement;
  const store::Run& run = verdict.run;
  nlohmann::json out = nlohmann::json::object();
  out["run_id"] = run.id;
  out["package"] = run.package;
  out["model"] = run.device_model ? nlohmann::json(*run.device_model) : nlohmann::json(nullptr);
  out["mode"] = run.mode;
  out["metric"] = verdict.metric;
  out["verdict"] = std::string(analysis::HistoryVerdictName(j.verdict));
  out["reason"] = j.reason;
  out["candidate_median"] = OptionalNumber(j.candidate_median);
  out["segment_median"] = OptionalNumber(j.segment_median);
  out["delta_pct"] = OptionalNumber(j.delta_percent);
  out["ci"] = j.delta_percent_ci
                  ? nlohmann::json::array({j.delta_percent_ci->lower, j.delta_percent_ci->upper})
                  : nlohmann::json(nullptr);
  out["p"] = OptionalNumber(j.p_value);
  out["z"] = OptionalNumber(j.z);
  out["floor_pct"] = j.floor_fraction * 100;
  out["floor_source"] = j.floor_calibrated ? "calibration" : "fixed";
  nlohmann::json segment = nlohmann::json::object();
  segment["runs"] = j.segment_runs;
  segment["first_run_id"] =
      j.segment_first_run_id ? nlohmann::json(*j.segment_first_run_id) : nlohmann::json(nullptr);
  out["segment"] = std::move(segment);
  out["fingerprint"] = run.fingerprint ? nlohmann::json(*run.fingerprint) : nlohmann::json(nullptr);
  out["series_runs"] = verdict.series_runs;
  nlohmann::json changes = nlohmann::json::array();
  for (const analysis::ChangePoint& c : verdict.change_points) changes.push_back(ChangePointJson(c));
  out["change_points"] = std::move(changes);
  out["emerging"] = EmergingJson(verdict.emerging);
  return out;
}

}  // namespace droidlab::api
