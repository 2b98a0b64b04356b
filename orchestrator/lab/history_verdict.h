// A run judged against its history (issue 15 §2): the series it belongs to — its package on its
// device model in its mode, displayed_ms of each succeeded run's counted launches (the run
// summaries, lab/run_summaries.h) — searched for change points, and the run compared with the
// current segment of that series (the runs since the last change, at its conditions), with the
// noise floor learnt for the series (lab/calibration_report.h) or the fixed 5 %. The analysis is
// analysis/change_points.h; this file reads what it needs and hands it over.
//
// Threading: the coroutine may be awaited on any executor; the reads and the analysis run on the
// store's reader threads (10,000 runs take ~30 ms of CPU: never on an io thread).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/change_points.h"
#include "store/async_store.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// A series' points as the analysis library takes them: each run's median and count, its
// versionCode, fingerprint and compilation state (what a change can be explained by). Pure.
std::vector<analysis::RunPoint> RunPointsOf(std::span<const store::RunSummary> points);

// Whether a run is out of range for its history: more than a quarter of its counted launches
// were measured hotter than its limits (store::RunSummary::hot_launches). Why a quarter: a
// median over launches of which a share h is much slower sits at the 0.5 / (1 - h) quantile of
// the others — at h = 1/4 the 67th, about 0.43 σ of a launch above their median (≈ 2 % at the
// 5 % launch-to-run spread of bench/change_point_sim.h), under half the 5 % floor; one hot launch
// in twenty (a cool-down that timed out once) moves it 0.14 σ and leaves the night in.
bool OutOfRange(const store::RunSummary& s);

// The change points of a series of run summaries, oldest first. Pure.
analysis::ChangePointAnalysis ChangePointsOf(std::span<const store::RunSummary> points);

// The metric a verdict judges unless asked for another series metric (lab/run_summaries.h):
// the one run comparisons judge.
inline constexpr char kVerdictMetric[] = "displayed_ms";

struct RunVerdict {
  store::Run run;
  std::string metric = kVerdictMetric;
  analysis::HistoryJudgement judgement;
  // The series up to and with the run: how many runs, and its change points (the run's own
  // segment starts at the last one before it).
  std::size_t series_runs = 0;
  std::optional<int64_t> previous_run_id;  // the series' run before it, if any
  std::optional<int64_t> build_id;         // what the run measured (its series point)
  std::optional<int64_t> version_code;
  std::vector<analysis::ChangePoint> change_points;
  // The newest runs up to it moved together and no change point covers them yet.
  std::optional<analysis::EmergingShift> emerging;
  std::optional<std::string> not_judged;  // why the run has no place in its series, if it has none
};

// Run `run_id` against the current segment of its series of `metric` (a series metric: the
// caller checks, IsSeriesMetric). kNotFound: no such run. A run that did not succeed, a
// calibration run, or one with no counted launches of the metric is answered with
// not_comparable and the reason (not an error: a nightly job asks of every run). The
// calibrated floor is learnt from displayed_ms (calibration_report.h): the other metrics are
// judged with the fixed floor, and the verdict says so.
boost::asio::awaitable<store::StoreResult<RunVerdict>> VerdictOf(
    store::AsyncStore store, int64_t run_id, std::string metric = kVerdictMetric);

}  // namespace droidlab::orchestrator
