// libFuzzer target for analysis/change_points.h: FindChangePoints, JudgeAgainstHistory and
// CalibrateNoiseFloor over a series read from the input. Byte 0 is the verdict's floor (0: the
// fixed one, else byte/256). Then each run is a header byte — bit 0 conditions out of range,
// bit 1 a new versionCode, bit 2 a new fingerprint, bit 3 a new compilation state, bit 4 a
// summary (median + count) instead of samples, bit 5 unknown (null) conditions — a count byte
// (0–31), and that many IEEE-754 doubles (a summary: one double, the median), so NaN, ±inf, 0,
// negatives, denormals and huge values all come up.
//
// Invariants checked, each exactly what the code promises: used + skipped runs add up to the
// series; change points are in index order, each with >= min_segment_runs usable runs on either
// side, adjacent segments agreeing; run_id and t are the run's; |z| >= z_threshold, p in [0, 1],
// settled iff >= settle_runs usable runs from it on; explained_by lists exactly the fields that
// differ between the previous usable run and this one, and app_change is "build and nothing
// else"; the same input gives the same answer twice. A verdict always has a reason and the floor
// it was given; regression / improvement only with |z| >= verdict_z, |Δ %| >= the floor and a
// segment of >= min_segment_runs runs. Calibration: used + skipped pairs add up, false alarms
// <= used, a floor only with >= min_pairs pairs. The emerging shift: after the last change
// point, its runs_after newest usable runs to the end, |z| >= the smaller of its thresholds,
// explained_by and app_change as for a change point.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "analysis/change_points.h"

namespace {

using droidlab::analysis::AaPair;
using droidlab::analysis::CalibrateNoiseFloor;
using droidlab::analysis::CalibrationOptions;
using droidlab::analysis::ChangeCause;
using droidlab::analysis::ChangePointAnalysis;
using droidlab::analysis::FindChangePoints;
using droidlab::analysis::HistoryOptions;
using droidlab::analysis::HistoryVerdict;
using droidlab::analysis::JudgeAgainstHistory;
using droidlab::analysis::RunPoint;

std::vector<RunPoint> ReadSeries(const uint8_t* data, size_t size) {
  std::vector<RunPoint> series;
  std::int64_t version = 1;
  int fingerprint = 1;
  int compilation = 1;
  size_t at = 0;
  while (at + 2 <= size) {
    const uint8_t header = data[at];
    const size_t count = data[at + 1] & 31;
    at += 2;
    if (header & 2) ++version;
    if (header & 4) ++fingerprint;
    if (header & 8) ++compilation;
    RunPoint run;
    run.run_id = static_cast<std::int64_t>(series.size()) + 7;
    run.t = static_cast<std::int64_t>(series.size()) * 86'400;
    run.conditions_out_of_range = (header & 1) != 0;
    if (!(header & 32)) {
      run.version_code = version;
      run.fingerprint = "fp" + std::to_string(fingerprint);
      run.compilation = "c" + std::to_string(compilation);
    }
    const size_t doubles = (header & 16) ? 1 : count;
    for (size_t k = 0; k < doubles && at + sizeof(double) <= size; ++k, at += sizeof(double)) {
      double v;
      std::memcpy(&v, data + at, sizeof v);
      if (header & 16) {
        run.median = v;
        run.count = count;
      } else {
        run.samples.push_back(v);
      }
    }
    series.push_back(std::move(run));
  }
  return series;
}

// The code's own rule for a usable run (change_points.cpp, MakeRunValue), with the defaults.
bool Usable(const RunPoint& run, const HistoryOptions& options) {
  if (options.skip_out_of_range_runs && run.conditions_out_of_range) return false;
  if (!run.samples.empty()) {
    size_t valid = 0;
    for (double s : run.samples) valid += std::isfinite(s) && s > 0 ? 1 : 0;
    return valid >= options.min_run_samples && valid > 0;
  }
  return run.median && std::isfinite(*run.median) && *run.median > 0 &&
         run.count >= options.min_run_samples && run.count > 0;
}

template <typename T>
bool Differs(const std::optional<T>& a, const std::optional<T>& b) {
  return a && b && *a != *b;
}

bool Lists(const std::vector<ChangeCause>& causes, ChangeCause cause) {
  for (ChangeCause c : causes) {
    if (c == cause) return true;
  }
  return false;
}

void CheckChangePoints(const std::vector<RunPoint>& series, const ChangePointAnalysis& result,
                       const HistoryOptions& options) {
  if (!result.error.empty()) std::abort();
  if (result.runs_used + result.runs_skipped != series.size()) std::abort();
  std::vector<size_t> usable;  // series indices
  for (size_t i = 0; i < series.size(); ++i) {
    if (Usable(series[i], options)) usable.push_back(i);
  }
  if (usable.size() != result.runs_used) std::abort();
  if (result.run_noise_percent.has_value() != (usable.size() >= 2)) std::abort();
  size_t previous_position = 0;
  for (size_t k = 0; k < result.change_points.size(); ++k) {
    const auto& cp = result.change_points[k];
    size_t position = 0;  // in `usable`
    while (position < usable.size() && usable[position] != cp.index) ++position;
    if (position == usable.size() || position == 0) std::abort();
    if (k > 0 && position <= previous_position) std::abort();
    if (cp.runs_before < options.min_segment_runs || cp.runs_after < options.min_segment_runs) {
      std::abort();
    }
    if (cp.runs_before != position - (k == 0 ? 0 : previous_position)) std::abort();
    if (k + 1 < result.change_points.size() &&
        cp.runs_after != result.change_points[k + 1].runs_before) {
      std::abort();
    }
    if (k + 1 == result.change_points.size() && cp.runs_after != usable.size() - position) {
      std::abort();
    }
    const RunPoint& run = series[cp.index];
    const RunPoint& before = series[usable[position - 1]];
    if (cp.run_id != run.run_id || cp.t != run.t) std::abort();
    if (!(std::fabs(cp.z) >= options.z_threshold)) std::abort();
    if (!(cp.p_value >= 0 && cp.p_value <= 1)) std::abort();
    if (cp.settled != (usable.size() - position >= options.settle_runs)) std::abort();
    if (cp.delta_percent_ci.lower > cp.delta_percent_ci.upper) std::abort();
    if (!(cp.median_before > 0 && cp.median_after > 0)) std::abort();
    const bool build = Differs(before.version_code, run.version_code);
    const bool ota = Differs(before.fingerprint, run.fingerprint);
    const bool compilation = Differs(before.compilation, run.compilation);
    if (Lists(cp.explained_by, ChangeCause::kBuild) != build) std::abort();
    if (Lists(cp.explained_by, ChangeCause::kFingerprint) != ota) std::abort();
    if (Lists(cp.explained_by, ChangeCause::kCompilation) != compilation) std::abort();
    if (Lists(cp.explained_by, ChangeCause::kConditions)) std::abort();  // skipped, not explained
    if (cp.app_change != (build && !ota && !compilation)) std::abort();
    previous_position = position;
  }
  // The emerging shift: after every change point, its newest runs to the end of the series, a
  // reference of >= min_segment_runs runs, |z| over the smaller threshold, causes as above.
  if (result.emerging) {
    const auto& e = *result.emerging;
    size_t position = 0;
    while (position < usable.size() && usable[position] != e.index) ++position;
    if (position == usable.size() || position == 0) std::abort();
    if (!result.change_points.empty() && e.index <= result.change_points.back().index) {
      std::abort();
    }
    if (e.runs_after < 2 || e.runs_after > options.emerging_max_runs) std::abort();
    if (e.runs_after != usable.size() - position) std::abort();
    if (e.runs_reference < options.min_segment_runs) std::abort();
    if (!(std::fabs(e.z) >= std::min(options.emerging_z, options.emerging_pair_z))) std::abort();
    if ((e.z > 0) != (e.delta_percent > 0) && e.delta_percent != 0) std::abort();
    const RunPoint& run = series[e.index];
    const RunPoint& before = series[usable[position - 1]];
    if (e.run_id != run.run_id || e.t != run.t) std::abort();
    const bool build = Differs(before.version_code, run.version_code);
    const bool ota = Differs(before.fingerprint, run.fingerprint);
    const bool compilation = Differs(before.compilation, run.compilation);
    if (Lists(e.explained_by, ChangeCause::kBuild) != build) std::abort();
    if (Lists(e.explained_by, ChangeCause::kFingerprint) != ota) std::abort();
    if (Lists(e.explained_by, ChangeCause::kCompilation) != compilation) std::abort();
    if (e.app_change != (build && !ota && !compilation)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  const std::optional<double> floor =
      data[0] == 0 ? std::nullopt : std::optional<double>(data[0] / 256.0);
  const std::vector<RunPoint> series = ReadSeries(data + 1, size - 1);
  const HistoryOptions options;

  const auto result = FindChangePoints(series, options);
  CheckChangePoints(series, result, options);
  const auto again = FindChangePoints(series, options);
  if (again.change_points.size() != result.change_points.size()) std::abort();
  for (size_t k = 0; k < result.change_points.size(); ++k) {
    if (again.change_points[k].index != result.change_points[k].index) std::abort();
  }
  if (again.emerging.has_value() != result.emerging.has_value()) std::abort();
  if (result.emerging && again.emerging->index != result.emerging->index) std::abort();

  const size_t candidate = series.empty() ? 0 : series.size() - 1;
  const auto j = JudgeAgainstHistory(series, candidate, floor, options);
  if (j.reason.empty()) std::abort();
  if (j.floor_calibrated != floor.has_value()) std::abort();
  if (j.floor_fraction != floor.value_or(options.fixed_floor_fraction)) std::abort();
  if (j.verdict == HistoryVerdict::kRegression || j.verdict == HistoryVerdict::kImprovement) {
    if (!j.z || !(std::fabs(*j.z) >= options.verdict_z)) std::abort();
    if (!j.delta_percent || !(std::fabs(*j.delta_percent) >= 100.0 * j.floor_fraction)) {
      std::abort();
    }
    if ((j.verdict == HistoryVerdict::kRegression) != (*j.delta_percent > 0)) std::abort();
    if (j.segment_runs < options.min_segment_runs) std::abort();
  }

  // A/A pairs from consecutive runs (at most 8: Compare bootstraps each).
  std::vector<AaPair> pairs;
  for (size_t i = 0; i + 1 < series.size() && pairs.size() < 8; i += 2) {
    pairs.push_back(AaPair{series[i].samples, series[i + 1].samples});
  }
  CalibrationOptions calibration;
  calibration.min_pairs = 2;
  calibration.min_samples = 2;
  const auto c = CalibrateNoiseFloor(pairs, calibration);
  if (!c.error.empty()) std::abort();
  if (c.pairs_used + c.pairs_skipped != pairs.size()) std::abort();
  if (c.false_alarms > c.pairs_used) std::abort();
  if (c.floor_fraction.has_value() != (c.pairs_used >= calibration.min_pairs)) std::abort();
  if (c.floor_fraction && !(*c.floor_fraction >= 0)) std::abort();
  return 0;
}
