// Change points in a series of runs, a verdict of one run against its history, and the noise
// floor learned from A/A pairs (issue 15).
//
// A series is the runs of one package × device model × mode × metric in time order. A change
// point is the first run of a new level; the verdict compares a run with the *current segment*
// (the runs since the last change point, at the candidate's conditions), not with one previous
// run. Why and how it was chosen, with the measured figures: analysis/README.md and
// bench/change_point_eval.cpp.
//
// The method, in short (a windowed robust step scan, after the Jetpack team's step fitting and
// Hunter's windowed E-divisive, with a Huber location instead of a mean):
//   1. Each usable run becomes one value: x = the skipped mean of ln(samples) — launches
//      beyond 3 robust σ of the run's median left out, the rest averaged (the 20 %-trimmed
//      mean below 8 samples; ln(median) when only a median is known) — and a variance
//      v = τ² + κ·s²/n: τ² the run-to-run spread, s² the pooled within-run spread of
//      ln(launch), n the run's samples, κ the estimator's efficiency (1.1 skipped mean,
//      1.2 trimmed mean, π/2 median). τ² comes from the MAD of each run's
//      distance to the median of the 5 runs before it (the error of predicting a run from its
//      recent past, slow wander included), so steps and outlier runs barely move it; unequal
//      n get their own v.
//   2. For every position i with at least min_segment_runs usable runs on each side, the
//      windows of up to window_runs runs before and after i (never across an accepted change
//      point) each get a Huber location (values clipped to ±2.5 √v around the window's
//      median, then weighted by 1/v), and z(i) = (after − before) / √(SE² + SE²).
//   3. Greedy: the position with the largest |z| that passes z_threshold and
//      min_effect_percent is a candidate. Its location is the split of the neighbourhood
//      (window_runs / 2 either way) that fits best: weighted squared residuals of two Huber
//      levels — the scan's |z| peaks broadly, since a robust window shrugs off the few runs
//      of the other level it straddles. A fingerprint or compilation change in that range
//      whose fit is within the χ²₁ 0.1 % bound of the best wins; else a versionCode change
//      within snap_runs of the best, within the 1 % bound. If the chosen position has fewer
//      than min_segment_runs runs after it or fails its own test, nothing is decided there
//      now (the next run may). Else it is accepted, the positions near it are rescored with
//      windows bounded by it, and the next candidate is taken.
//   4. Every accepted change point is re-tested against its final neighbours, and the weakest
//      failing one is dropped, until all pass (Hunter's pruning).
// So an OTA is not pinned on the build one run before it, and a shift that shows in the
// windows one run early is not blamed on a neighbouring build.
//   5. The newest runs (ChangePointAnalysis::emerging): with no change point among them, the
//      last k = 2 … emerging_max_runs usable runs against the last emerging_reference_runs
//      runs of the segment before them (the emerging_* options) — a shift found two or three
//      nights after it happened, before the scan's windows can confirm it.
// The p-value is the two-sided normal p of z at the final location: nominal, not adjusted for
// the scan over positions; the false-alarm rate of the whole procedure is what the evaluation
// measures (z_threshold was chosen from it).
//
// Pure and deterministic: no I/O, no clock, no randomness, no globals. Thread-safe.
// Cost: O(n · window_runs²) at worst (small windows, an insertion sort each) plus the samples'
// sort; 10,000 runs of 20 launches in ~30 ms on the development machine
// (bench/change_point_eval.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/statistics.h"

namespace droidlab::analysis {

// One run of a series. Either `samples` (the run's counted launches, any order; NaN, ±inf and
// values <= 0 are ignored: the method works on ln(launch)) or, when it is empty, `median` and
// `count` (a summary from the store). A run is used when it has at least min_run_samples such
// samples (or a count that large and a finite median > 0) and, by default, was in range.
struct RunPoint {
  std::int64_t run_id = 0;
  std::int64_t t = 0;  // seconds since the epoch (only carried through to the results)
  std::vector<double> samples;
  std::optional<double> median;  // used only when `samples` is empty
  std::size_t count = 0;         // used only when `samples` is empty
  // What identifies the run's conditions; a change of any of them between two runs is what a
  // change point can be explained by. Null = unknown, which never counts as a change.
  std::optional<std::int64_t> version_code;
  std::optional<std::string> fingerprint;  // ro.build.fingerprint: a change is an OTA
  std::optional<std::string> compilation;  // the compilation state reached, e.g. "speed-profile"
  bool conditions_out_of_range = false;    // a hot phone, a low battery, …
};

struct HistoryOptions {
  // A segment has at least this many usable runs: a change point is reported only once this
  // many runs after it have arrived, and one outlier run can never be a segment.
  std::size_t min_segment_runs = 3;
  std::size_t window_runs = 20;  // runs on each side that the test of a position looks at
  // A change point is settled once this many usable runs follow it: the windows around it are
  // then (nearly) full. Not a guarantee: in the evaluation 2 % of settled change points were
  // not in the final answer (moved or dropped as more runs came; analysis/README.md).
  std::size_t settle_runs = 8;
  // |z| of a change point, at least (chosen by the evaluation: 4.5 before the emerging test
  // took over the newest runs; 5 halves the A/A change points and leaves room for it).
  double z_threshold = 5.0;
  double min_effect_percent = 1.0;  // |Δ %| of a change point, at least
  std::size_t snap_runs = 2;        // see step 3 above
  std::size_t min_run_samples = 3;  // finite samples (or count) a run needs to be used
  // Runs whose conditions were out of range are left out of segments (and of verdicts). False:
  // they take part, and a change where the flag flips is explained by "conditions".
  bool skip_out_of_range_runs = true;
  double confidence = 0.95;  // of the CIs of Δ %
  // The verdict: |z| of the candidate against its segment, at least (3.09: one-sided 0.1 %).
  double verdict_z = 3.09;
  double fixed_floor_fraction = 0.05;  // the floor when no calibration exists
  // The emerging-shift test of the newest runs (ChangePointAnalysis::emerging): the last k =
  // 2 … emerging_max_runs usable runs against up to emerging_reference_runs runs of the
  // current segment before them. k >= 3: their Huber location (a run beyond 4 √v of their
  // median left out, the rest clipped at 1 √v: one hot run among them does not count),
  // |z| >= emerging_z; k = 2: both runs must have moved, the nearer one's
  // |z| >= emerging_pair_z. Chosen by the evaluation (analysis/README.md). 0 runs: off.
  std::size_t emerging_max_runs = 3;
  std::size_t emerging_reference_runs = 20;
  double emerging_z = 4.0;
  double emerging_pair_z = 3.0;
};

// An empty string when valid, else one line naming the bad field and its bounds.
std::string ValidateHistoryOptions(const HistoryOptions& options);

enum class ChangeCause {
  kBuild,        // the versionCode changed at that run
  kFingerprint,  // the device fingerprint changed (an OTA)
  kCompilation,  // the compilation state reached changed
  kConditions,   // the conditions flag flipped (only with skip_out_of_range_runs = false)
};
// "build", "fingerprint", "compilation", "conditions" — the strings of the API.
std::string_view ChangeCauseName(ChangeCause cause);

struct ChangePoint {
  std::size_t index = 0;  // into the series: the first run of the new level
  std::int64_t run_id = 0;
  std::int64_t t = 0;
  // Plain medians of the run medians of the segment before and after (up to the neighbouring
  // change points), in the samples' unit, and how many usable runs each has.
  double median_before = 0;
  double median_after = 0;
  std::size_t runs_before = 0;
  std::size_t runs_after = 0;
  double delta = 0;          // median_after − median_before
  double delta_percent = 0;  // 100 · (median_after / median_before − 1)
  // CI of delta_percent: ln(after / before) ± z·SE (SE of the test, × 1.25 for medians).
  ConfidenceInterval delta_percent_ci;
  double z = 0;        // the test statistic at this position (see the header's step 2)
  double p_value = 1;  // two-sided, nominal (not adjusted for the scan)
  bool settled = false;
  // What else changed between the previous usable run and this one; empty = nothing known.
  std::vector<ChangeCause> explained_by;
  // True when the app is to blame: the versionCode changed here and neither the fingerprint
  // nor the compilation state nor the conditions did.
  bool app_change = false;
};

// A shift of the newest runs that is not (yet) a change point: the last `runs_after` usable
// runs against the current segment before them, tested as soon as two of them exist. Not
// settled by definition; when later runs confirm it, the scan reports a change point there.
struct EmergingShift {
  std::size_t index = 0;  // into the series: the first of the newest runs that moved
  std::int64_t run_id = 0;
  std::int64_t t = 0;
  std::size_t runs_after = 0;      // usable runs from index on (the newest included): 2, 3, …
  std::size_t runs_reference = 0;  // usable runs of the segment it was compared with
  double delta_percent = 0;        // of the two robust ln levels
  double z = 0;
  std::vector<ChangeCause> explained_by;  // as ChangePoint::explained_by
  bool app_change = false;
};

struct ChangePointAnalysis {
  std::vector<ChangePoint> change_points;  // in index order
  // Set when the newest runs moved together and no change point covers them yet (the
  // emerging_* options). Its index is after every change point's.
  std::optional<EmergingShift> emerging;
  std::size_t runs_used = 0;
  std::size_t runs_skipped = 0;  // too few samples, no median, or out of range
  // The estimated per-run noise of the log-level, as a percentage (√(τ² + κ s²/n̄) · 100):
  // what the test divides by. Null below 2 usable runs.
  std::optional<double> run_noise_percent;
  std::string error;  // non-empty only for invalid options (then nothing else is set)
};

ChangePointAnalysis FindChangePoints(std::span<const RunPoint> series,
                                     const HistoryOptions& options = {});

enum class HistoryVerdict { kRegression, kImprovement, kNoChange, kNotComparable };
// "regression", "improvement", "no_change", "not_comparable".
std::string_view HistoryVerdictName(HistoryVerdict verdict);

struct HistoryJudgement {
  HistoryVerdict verdict = HistoryVerdict::kNotComparable;
  std::string reason;             // one line with the numbers, or why it is not comparable
  double floor_fraction = 0.05;   // the floor applied to |Δ %| / 100
  bool floor_calibrated = false;  // true: from a calibration; false: the fixed 5 %
  // The current segment: runs since the last change point before the candidate, usable, at
  // the candidate's fingerprint and compilation state.
  std::size_t segment_runs = 0;
  std::optional<std::size_t> segment_first_index;
  std::optional<std::int64_t> segment_first_run_id;
  std::optional<double> segment_median;    // median of the segment's run medians
  std::optional<double> candidate_median;  // median of the candidate's samples
  std::optional<double> delta_percent;     // 100 · (candidate / segment − 1)
  std::optional<ConfidenceInterval> delta_percent_ci;
  std::optional<double> z;
  std::optional<double> p_value;  // two-sided
};

// Judges series[candidate] against the current segment of series[0, candidate). The floor is
// `calibrated_floor_fraction` when set (from CalibrateNoiseFloor), else the fixed 5 %. A
// regression / improvement needs |z| >= verdict_z, |Δ %| >= floor and the CI of Δ % on the
// same side of 0. not_comparable: the candidate is unusable (out of range, too few samples),
// or the segment has fewer than min_segment_runs runs at the candidate's conditions (an OTA or
// a compilation change since the last change point, or too little history), or bad options.
// Runs out of range never join the segment, whatever skip_out_of_range_runs says. Only the
// last 10 · window_runs runs before the candidate are analysed: the cost does not grow with
// the history.
HistoryJudgement JudgeAgainstHistory(std::span<const RunPoint> series, std::size_t candidate,
                                     std::optional<double> calibrated_floor_fraction,
                                     const HistoryOptions& options = {});

// ---- Calibration from A/A pairs -----------------------------------------------------------

// Two runs of the same build on the same phone, one after the other: their launch samples.
struct AaPair {
  std::vector<double> first;
  std::vector<double> second;
};

struct CalibrationOptions {
  std::size_t min_pairs = 20;    // below it no floor: the fixed 5 % stays
  double quantile = 0.99;        // of |Δ median %| over the pairs; in (0, 1)
  std::size_t min_samples = 10;  // finite samples per run of a pair, at least
};

struct Calibration {
  std::size_t pairs_used = 0;
  // A run with fewer than min_samples finite samples, a first median <= 0, or a ratio of
  // medians that overflows.
  std::size_t pairs_skipped = 0;
  // The floor (a fraction: 0.031 = 3.1 %): the `quantile` of |Δ median| / first median over
  // the pairs. Null with fewer than min_pairs pairs.
  std::optional<double> floor_fraction;
  // The run-to-run spread of one run's median, in %: 1.4826 · MAD(Δ %) / √2.
  std::optional<double> run_spread_percent;
  // The verdict procedure's false alarms on these pairs: Compare(first, second) with
  // min_effect_percent = the floor (leave-one-out: the floor from the other pairs, so a pair
  // is not judged with a floor it set itself; the fixed 5 % without a floor) giving
  // regression or improvement.
  std::size_t false_alarms = 0;
  std::optional<double> false_alarm_rate;  // false_alarms / pairs_used
  std::string error;                       // non-empty only for invalid options
};

// Pure; the caller groups pairs by package × model × mode (one series).
Calibration CalibrateNoiseFloor(std::span<const AaPair> pairs,
                                const CalibrationOptions& options = {});

}  // namespace droidlab::analysis
