#include "orchestrator/lab/history_verdict.h"

#include <algorithm>
#include <utility>

#include "orchestrator/lab/calibration_report.h"
#include "orchestrator/lab/run_reports.h"
#include "orchestrator/lab/run_summaries.h"
#include "orchestrator/lab/side_by_side_launches.h"
#include "store/reader.h"

namespace droidlab::orchestrator {

namespace {

analysis::HistoryJudgement NotComparable(std::string reason) {
  analysis::HistoryJudgement j;
  j.verdict = analysis::HistoryVerdict::kNotComparable;
  j.reason = std::move(reason);
  return j;
}

// On a reader thread: the run, its series up to it, the analysis.
store::StoreResult<RunVerdict> ReadVerdict(store::Reader& r, int64_t run_id,
                                           std::optional<double> floor, std::string metric) {
  auto run = r.GetRun(run_id);
  if (!run) return run.error();
  RunVerdict out;
  out.metric = std::move(metric);
  out.run = std::move(*run);
  const store::Run& c = out.run;
  if (c.status != store::RunStatus::kSucceeded) {
    out.not_judged =
        "the run did not succeed (" + std::string(store::RunStatusName(c.status)) + ")";
  } else if (auto spec = SideBySideSpec(c); spec && spec->calibration) {
    out.not_judged = "a calibration run is no point of its series";
  }
  if (out.not_judged) {
    out.judgement = NotComparable(*out.not_judged);
    return out;
  }
  store::SeriesQuery query;
  query.package = c.package;
  query.device_model = c.device_model;
  query.mode = c.mode;
  query.metric = out.metric;
  query.until = c.created_at;
  auto series = r.Series(query);
  if (!series) return series.error();
  const auto at = std::find_if(series->begin(), series->end(),
                               [&](const store::RunSummary& s) { return s.run_id == c.id; });
  if (at == series->end()) {
    out.not_judged = "the run has no counted launches of " + out.metric;
    out.judgement = NotComparable(*out.not_judged);
    return out;
  }
  out.build_id = at->build_id;
  out.version_code = at->version_code;
  // The runs after it (created in the same millisecond) are not its history.
  series->erase(at + 1, series->end());
  std::vector<analysis::RunPoint> points = RunPointsOf(*series);
  // The run itself by its launches, not its median alone: the test knows its spread.
  auto launches = r.ListLaunches(c.id);
  if (!launches) return launches.error();
  auto tables = ReadIterationTables(r, c.id);
  if (!tables) return tables.error();
  points.back().samples =
      CountedMetricValues(out.metric, MeasuredLaunches(c, std::move(*launches)), *tables);
  out.series_runs = points.size();
  if (points.size() >= 2) out.previous_run_id = points[points.size() - 2].run_id;
  analysis::ChangePointAnalysis analysis = analysis::FindChangePoints(points);
  out.change_points = std::move(analysis.change_points);
  out.emerging = std::move(analysis.emerging);
  out.judgement = analysis::JudgeAgainstHistory(points, points.size() - 1, floor);
  return out;
}

}  // namespace

bool OutOfRange(const store::RunSummary& s) { return 4 * s.hot_launches.value_or(0) > s.count; }

std::vector<analysis::RunPoint> RunPointsOf(std::span<const store::RunSummary> points) {
  std::vector<analysis::RunPoint> out;
  out.reserve(points.size());
  for (const store::RunSummary& s : points) {
    analysis::RunPoint p;
    p.run_id = s.run_id;
    p.t = s.t;
    p.median = s.median;
    p.count = static_cast<std::size_t>(std::max<int64_t>(s.count, 0));
    p.version_code = s.version_code;
    p.fingerprint = s.fingerprint;
    p.compilation = s.compilation;
    p.conditions_out_of_range = OutOfRange(s);
    out.push_back(std::move(p));
  }
  return out;
}

analysis::ChangePointAnalysis ChangePointsOf(std::span<const store::RunSummary> points) {
  const std::vector<analysis::RunPoint> runs = RunPointsOf(points);
  return analysis::FindChangePoints(runs);
}

boost::asio::awaitable<store::StoreResult<RunVerdict>> VerdictOf(store::AsyncStore store,
                                                                 int64_t run_id,
                                                                 std::string metric) {
  auto getting = store.GetRun(run_id);
  auto run = co_await std::move(getting);
  if (!run) co_return run.error();
  std::optional<double> floor;
  if (metric == kVerdictMetric) {
    auto flooring = CalibratedFloor(store, run->package, run->device_model, run->mode);
    auto calibrated = co_await std::move(flooring);
    if (!calibrated) co_return calibrated.error();
    floor = *calibrated;
  }
  auto reading = store.Read([run_id, floor, metric = std::move(metric)](store::Reader& r) {
    return ReadVerdict(r, run_id, floor, metric);
  });
  co_return co_await std::move(reading);
}

}  // namespace droidlab::orchestrator
