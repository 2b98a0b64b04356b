#include "orchestrator/lab/run_reports.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "orchestrator/lab/run_summaries.h"
#include "orchestrator/lab/side_by_side_launches.h"
#include "orchestrator/run/side_by_side.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {

namespace {

std::optional<analysis::Summary> SummaryOf(std::string_view metric,
                                           std::span<const store::Launch> launches,
                                           const IterationTables& tables) {
  const std::vector<double> values = CountedMetricValues(metric, launches, tables);
  if (values.empty()) return std::nullopt;
  return analysis::Summarize(values);
}

struct ReportRows {
  store::Run run;
  std::vector<store::Launch> launches;
  IterationTables tables;
  std::vector<store::IterationFault> faults;
};

FaultCounts CountFaults(const std::vector<store::IterationFault>& faults) {
  FaultCounts counts;
  for (const store::IterationFault& f : faults) {
    if (f.kind == "anr") ++counts.anr;
    if (f.kind == "crash") ++counts.crash;
    if (f.kind == "native_crash") ++counts.native_crash;
  }
  return counts;
}

struct ComparisonRows {
  store::Run candidate;
  store::Run baseline;
  std::vector<store::Launch> candidate_launches;
  std::vector<store::Launch> baseline_launches;
  IterationTables candidate_tables;
  IterationTables baseline_tables;
};

}  // namespace

// What a comparison of two runs counts of `run`: a side-by-side run's candidate build's
// launches, any other run's all.
std::vector<store::Launch> MeasuredLaunches(const store::Run& run,
                                            std::vector<store::Launch> launches) {
  if (auto spec = SideBySideSpec(run)) return SplitByArm(*spec, std::move(launches)).candidate;
  return launches;
}

namespace {

store::StoreResult<ComparisonRows> ReadComparisonRows(store::Reader& r, int64_t run_id,
                                                      std::optional<int64_t> baseline_id) {
  ComparisonRows rows;
  auto candidate = r.GetRun(run_id);
  if (!candidate) return candidate.error();
  rows.candidate = std::move(*candidate);
  if (baseline_id) {
    auto base = r.GetRun(*baseline_id);
    if (!base) return base.error();
    rows.baseline = std::move(*base);
  } else {
    const store::Run& c = rows.candidate;
    auto previous = r.PreviousSuccessfulRun(c.package, c.device_model, c.mode, c.created_at);
    if (!previous) return previous.error();
    if (!*previous) {
      return store::MakeStoreError(store::StoreErrorCode::kNotFound,
                                   "no earlier successful run of " + c.package + " (" + c.mode +
                                       ") on " + c.device_model.value_or("this model") +
                                       " to compare with");
    }
    rows.baseline = std::move(**previous);
  }
  auto a = r.ListLaunches(rows.candidate.id);
  if (!a) return a.error();
  auto b = r.ListLaunches(rows.baseline.id);
  if (!b) return b.error();
  rows.candidate_launches = MeasuredLaunches(rows.candidate, std::move(*a));
  rows.baseline_launches = MeasuredLaunches(rows.baseline, std::move(*b));
  auto ta = ReadIterationTables(r, rows.candidate.id);
  if (!ta) return ta.error();
  auto tb = ReadIterationTables(r, rows.baseline.id);
  if (!tb) return tb.error();
  rows.candidate_tables = std::move(*ta);
  rows.baseline_tables = std::move(*tb);
  return rows;
}

struct SideBySideRows {
  store::Run run;
  RunSpec spec;
  SplitLaunches launches;
  IterationTables tables;  // of both builds' iterations
};

RunComparison CompareArms(SideBySideRows rows, bool allow_different_conditions,
                          std::string metric) {
  const std::vector<double> base = CountedMetricValues(metric, rows.launches.baseline, rows.tables);
  const std::vector<double> cand =
      CountedMetricValues(metric, rows.launches.candidate, rows.tables);
  RunComparison out;
  out.metric = std::move(metric);
  out.comparison = analysis::Compare(base, cand);
  out.comparability =
      JudgeSideBySide(rows.run, rows.launches.candidate, rows.launches.baseline);
  out.different_conditions_allowed = allow_different_conditions;
  out.side_by_side = SideBySideBuilds{*rows.spec.baseline_build, *rows.spec.build, rows.spec.block};
  out.candidate = rows.run;
  out.baseline = std::move(rows.run);
  return out;
}

RunComparison CompareRows(ComparisonRows rows, bool allow_different_conditions,
                          std::string metric) {
  const std::vector<double> base =
      CountedMetricValues(metric, rows.baseline_launches, rows.baseline_tables);
  const std::vector<double> cand =
      CountedMetricValues(metric, rows.candidate_launches, rows.candidate_tables);
  RunComparison out;
  out.metric = std::move(metric);
  out.comparison = analysis::Compare(base, cand);
  out.comparability = JudgeComparability(rows.candidate, rows.candidate_launches, rows.baseline,
                                         rows.baseline_launches);
  out.different_conditions_allowed = allow_different_conditions;
  out.candidate = std::move(rows.candidate);
  out.baseline = std::move(rows.baseline);
  return out;
}

}  // namespace

LaunchSummaries SummarizeLaunches(std::span<const store::Launch> launches,
                                  const IterationTables& tables) {
  LaunchSummaries s;
  s.recorded = static_cast<int64_t>(launches.size());
  for (const auto& l : launches) {
    if (l.warmup) {
      ++s.warmup;
    } else if (l.valid) {
      ++s.valid;
    }
  }
  s.displayed_ms = SummaryOf("displayed_ms", launches, tables);
  s.fully_drawn_ms = SummaryOf("fully_drawn_ms", launches, tables);
  s.total_time_ms = SummaryOf("total_time_ms", launches, tables);
  s.frame_p90_ms = SummaryOf("frame_p90_ms", launches, tables);
  s.frame_p99_ms = SummaryOf("frame_p99_ms", launches, tables);
  s.janky_pct = SummaryOf("janky_pct", launches, tables);
  s.pss_kb = SummaryOf("pss_kb", launches, tables);
  return s;
}

std::vector<double> ValidDisplayedMs(std::span<const store::Launch> launches) {
  std::vector<double> values;
  for (const auto& l : launches) {
    if (l.counted() && l.displayed_ms) values.push_back(static_cast<double>(*l.displayed_ms));
  }
  return values;
}

RunReports::RunReports(store::Store& store, const RunQueue* queue) : store_(store), queue_(queue) {}

boost::asio::awaitable<store::StoreResult<RunReport>> RunReports::Report(int64_t run_id) const {
  auto read = [run_id](store::Reader& r) -> store::StoreResult<ReportRows> {
    auto run = r.GetRun(run_id);
    if (!run) return run.error();
    auto launches = r.ListLaunches(run_id);
    if (!launches) return launches.error();
    auto tables = ReadIterationTables(r, run_id);
    if (!tables) return tables.error();
    auto faults = r.ListIterationFaults(run_id);
    if (!faults) return faults.error();
    return ReportRows{std::move(*run), std::move(*launches), std::move(*tables),
                      std::move(*faults)};
  };
  auto read_rows = store_.Read(std::move(read));
  auto rows = co_await std::move(read_rows);
  if (!rows) co_return rows.error();
  RunReport report;
  report.launches = SummarizeLaunches(rows->launches, rows->tables);
  report.faults = CountFaults(rows->faults);
  if (auto spec = SideBySideSpec(rows->run)) {
    SplitLaunches split = SplitByArm(*spec, std::move(rows->launches));
    report.arms = ArmSummaries{*spec->baseline_build, *spec->build,
                               SummarizeLaunches(split.baseline, rows->tables),
                               SummarizeLaunches(split.candidate, rows->tables)};
  }
  report.run = std::move(rows->run);
  // Only while it has not ended: another host's last progress may be heard after its end.
  if (queue_ && !store::IsFinished(report.run.status)) report.progress = queue_->Progress(run_id);
  co_return report;
}

boost::asio::awaitable<store::StoreResult<RunComparison>> RunReports::CompareWithBaseline(
    int64_t run_id, std::optional<int64_t> baseline_run_id, bool allow_different_conditions,
    std::string metric) const {
  if (!baseline_run_id) {
    // A side-by-side run compares its own two builds.
    auto read_one = [run_id](store::Reader& r) -> store::StoreResult<std::optional<SideBySideRows>> {
      auto run = r.GetRun(run_id);
      if (!run) return run.error();
      auto spec = SideBySideSpec(*run);
      if (!spec) return std::optional<SideBySideRows>();
      auto launches = r.ListLaunches(run_id);
      if (!launches) return launches.error();
      auto tables = ReadIterationTables(r, run_id);
      if (!tables) return tables.error();
      SideBySideRows rows{std::move(*run), std::move(*spec), {}, std::move(*tables)};
      rows.launches = SplitByArm(rows.spec, std::move(*launches));
      return std::optional<SideBySideRows>(std::move(rows));
    };
    auto reading = store_.Read(std::move(read_one));
    auto side_by_side = co_await std::move(reading);
    if (!side_by_side) co_return side_by_side.error();
    if (*side_by_side) {
      co_return CompareArms(std::move(**side_by_side), allow_different_conditions,
                            std::move(metric));
    }
  }
  auto read = [run_id, baseline_run_id](store::Reader& r) {
    return ReadComparisonRows(r, run_id, baseline_run_id);
  };
  auto read_rows = store_.Read(std::move(read));
  auto rows = co_await std::move(read_rows);
  if (!rows) co_return rows.error();
  co_return CompareRows(std::move(*rows), allow_different_conditions, std::move(metric));
}

}  // namespace droidlab::orchestrator
