// One JSON mapping per record type, as API.md names the fields. Times (*_at, first_seen,
// last_seen) are milliseconds since the Unix epoch, UTC; absent values are null.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "analysis/change_points.h"
#include "analysis/statistics.h"
#include "orchestrator/lab/device_registry.h"
#include "orchestrator/lab/history_verdict.h"
#include "orchestrator/lab/run_reports.h"
#include "orchestrator/run/run_executor.h"
#include "store/records.h"

namespace droidlab::api {

// A value, or null when absent: how every optional field reaches JSON.
template <class T>
nlohmann::json OrNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// The stored device, with the registry's live view over it when there is one.
nlohmann::json DeviceJson(const store::Device& device,
                          const std::optional<orchestrator::DeviceSnapshot>& live);
// {"since", "reason"} while the device is quarantined (schema 0019), else null.
nlohmann::json QuarantineJson(const store::Device& device);
nlohmann::json RunJson(const store::Run& run);
// GET /runs/{id}: the run with "summary" over its valid launches and "progress" while running.
nlohmann::json RunDetailJson(const orchestrator::RunReport& report);
nlohmann::json LaunchJson(const store::Launch& launch);
nlohmann::json LooperStatsRowJson(const store::LooperStatsRow& row);
nlohmann::json ProcSampleJson(const store::ProcSample& sample);
nlohmann::json ScheduleJson(const store::Schedule& schedule);
nlohmann::json SummaryJson(const analysis::Summary& summary);
// GET /runs/{id}/compare: the verdict and its numbers, with the two runs' ids and the metric.
nlohmann::json ComparisonJson(const orchestrator::RunComparison& comparison);
nlohmann::json ProgressJson(const orchestrator::RunProgress& progress);
// A change point of a series, as API.md names it: {"run_id","t","before","after","delta_pct",
// "ci","p","settled","explained_by"} and what else the analysis says of it.
nlohmann::json ChangePointJson(const analysis::ChangePoint& change);
// A shift of the newest runs not yet a change point (analysis::EmergingShift), or null.
nlohmann::json EmergingJson(const std::optional<analysis::EmergingShift>& shift);
// GET /runs/{id}/verdict: the run against the current segment of its series.
nlohmann::json VerdictJson(const orchestrator::RunVerdict& verdict);

// Compact, with invalid UTF-8 replaced (device text may hold anything).
std::string Dump(const nlohmann::json& value);

}  // namespace droidlab::api
