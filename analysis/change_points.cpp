#include "analysis/change_points.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <utility>

#include "analysis/comparison.h"
#include "analysis/text_format.h"

namespace droidlab::analysis {
namespace {

// Efficiency factors κ: the variance of a run's location is κ·s²/n. The 20 %-trimmed mean
// (runs of fewer than kSkipMinSamples) loses little to the mean on normal data (≈ 1.06) and
// more with the heavy tails of real launches; 1.2 is the figure measured on the evaluation's
// launches. The median: π/2.
constexpr double kTrimmedMeanKappa = 1.2;
constexpr double kMedianKappa = std::numbers::pi / 2.0;
constexpr double kTrim = 0.2;
// The skipped mean (MakeRunValue): from this many samples, launches beyond kSkipSigmas robust
// σ of the run's median are left out. Its κ on normal launches is ≈ 1.0; 1.1 leaves room for
// the MAD's own noise in a run of 20.
constexpr double kSkipSigmas = 3.0;
constexpr std::size_t kSkipMinSamples = 8;
constexpr double kSkippedMeanKappa = 1.1;
constexpr double kMadToSigma = 1.4826;  // 1 / Φ⁻¹(3/4): the MAD of a normal sample, to σ
// Below this run-to-run spread (0.3 % of the level) no lab measures; it keeps a synthetic
// series of identical runs from dividing by zero.
constexpr double kMinRunSigma = 0.003;
constexpr double kHuberClip = 2.5;
// The emerging test clips its newest runs at this many √v around their median (FindEmerging).
constexpr double kEmergingClip = 1.0;
constexpr double kEmergingReject = 4.0;  // … and leaves out a run beyond this many √v of it
constexpr std::size_t kResidualLag = 5;  // runs a run is predicted from, for the noise model  //
                                         // values beyond ±2.5 √v of the window's median are clipped
// A median is about √(π/2) times as spread as a mean: the CI of Δ of medians is that much wider.
constexpr double kMedianSeFactor = 1.2533141373155003;
// A known cause is preferred as the location when its fit is within this much of the best:
// the 99 % quantile of χ² with 1 degree of freedom.
constexpr double kLocationChiSquare = 6.635;
// … and a fingerprint or compilation change within the 0.1 % bound (10.83): an OTA or a
// compilation change at that run is the likelier cause than noise in one run's placement.
constexpr double kEnvironmentChiSquare = 10.83;
// A verdict analyses the last 10 windows (200 runs by default) before the candidate.
constexpr std::size_t kVerdictHistoryWindows = 10;

double MedianInPlace(std::vector<double>& values) {
  // Type 7, like QuantileOfSorted(…, 0.5). The windows have <= ~60 values: an insertion sort
  // beats nth_element there (the scan computes ~50,000 of these for 10,000 runs).
  const std::size_t n = values.size();
  const std::size_t hi = n / 2;
  if (n <= 64) {
    for (std::size_t i = 1; i < n; ++i) {
      const double v = values[i];
      std::size_t j = i;
      for (; j > 0 && values[j - 1] > v; --j) values[j] = values[j - 1];
      values[j] = v;
    }
  } else {
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(hi),
                     values.end());
    if (n % 2 == 0) {
      std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(hi - 1),
                       values.begin() + static_cast<std::ptrdiff_t>(hi));
    }
  }
  const double upper = values[hi];
  if (n % 2 == 1) return upper;
  const double lower = values[hi - 1];
  return lower + (upper - lower) / 2.0;
}

// Φ⁻¹(p) for p in (0, 1), by bisection on erfc: exact to ~1e-12, and only called per result.
double NormalQuantile(double p) {
  double lo = -40;
  double hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = (lo + hi) / 2.0;
    if (0.5 * std::erfc(-mid / std::numbers::sqrt2) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2.0;
}

double TwoSidedP(double z) { return std::erfc(std::fabs(z) / std::numbers::sqrt2); }

// One usable run.
struct RunValue {
  std::size_t index = 0;  // into the series
  double x = 0;           // ln level: skipped / trimmed mean of ln(samples), or ln(median)
  double median = 0;      // the run's median, in the samples' unit
  double n = 0;           // samples
  double kappa = kMedianKappa;
  std::optional<double> within_var;  // robust variance of ln(samples), from >= 5 samples
  double v = 0;                      // total variance of x (set by the noise model)
  double w = 0;                      // 1 / v
  double clip = 0;                   // kHuberClip · √v

  void SetVariance(double variance) {
    v = variance;
    w = 1.0 / variance;
    clip = kHuberClip * std::sqrt(variance);
  }
};

// Why a run is not usable, or its value.
std::optional<RunValue> MakeRunValue(const RunPoint& run, std::size_t index,
                                     const HistoryOptions& options, std::vector<double>& scratch) {
  if (options.skip_out_of_range_runs && run.conditions_out_of_range) return std::nullopt;
  RunValue value;
  value.index = index;
  if (!run.samples.empty()) {
    scratch.clear();
    for (double s : run.samples) {
      if (std::isfinite(s) && s > 0) scratch.push_back(s);  // ln needs > 0: launch times are
    }
    if (scratch.size() < options.min_run_samples || scratch.empty()) return std::nullopt;
    std::sort(scratch.begin(), scratch.end());
    const std::size_t n = scratch.size();
    value.median = QuantileOfSorted(scratch, 0.5);
    value.n = static_cast<double>(n);
    for (double& s : scratch) s = std::log(s);  // still sorted: ln is increasing
    const double center = QuantileOfSorted(scratch, 0.5);
    std::vector<double> distance;
    distance.reserve(n);
    for (double s : scratch) distance.push_back(std::fabs(s - center));
    const double sigma = kMadToSigma * MedianInPlace(distance);
    if (n >= kSkipMinSamples && sigma > 0) {
      // The skipped mean: launches beyond kSkipSigmas robust σ of the median are dropped
      // whole, then the rest averaged. A 20 %-trimmed mean lets the fifth slow outlier of 20
      // through (1.6 % of runs at a 5 % outlier rate; 1.5–4× slower moves the run by ~7 %,
      // five times a run's noise): those runs were most of the emerging test's A/A alarms.
      double sum = 0;
      std::size_t kept = 0;
      for (double s : scratch) {
        if (std::fabs(s - center) <= kSkipSigmas * sigma) {
          sum += s;
          ++kept;
        }
      }
      value.x = sum / static_cast<double>(kept);
      value.kappa = kSkippedMeanKappa;
    } else {
      const auto g = static_cast<std::size_t>(kTrim * static_cast<double>(n));
      double sum = 0;
      for (std::size_t i = g; i < n - g; ++i) sum += scratch[i];
      value.x = sum / static_cast<double>(n - 2 * g);
      value.kappa = kTrimmedMeanKappa;
    }
    if (n >= 5) value.within_var = sigma * sigma;
    return value;
  }
  if (!run.median || !std::isfinite(*run.median) || !(*run.median > 0)) return std::nullopt;
  if (run.count < options.min_run_samples || run.count == 0) return std::nullopt;
  value.median = *run.median;
  value.x = std::log(*run.median);
  value.n = static_cast<double>(run.count);
  value.kappa = kMedianKappa;
  return value;
}

// The noise model: v = τ² + κ·s²/n (see the header).
struct NoiseModel {
  double tau2 = kMinRunSigma * kMinRunSigma;  // run-to-run variance of the ln level
  double within = 0;                          // s²: pooled within-run variance of ln(launch)
  double typical = 0;  // √(τ² + median κ·s²/n): the typical run's noise

  double VarianceOf(const RunValue& r) const { return tau2 + r.kappa * within / r.n; }
};

NoiseModel FitNoiseModel(const std::vector<RunValue>& runs) {
  NoiseModel model;
  std::vector<double> scratch;
  for (const RunValue& r : runs) {
    if (r.within_var) scratch.push_back(*r.within_var);
  }
  model.within = scratch.empty() ? 0.0 : MedianInPlace(scratch);
  scratch.clear();
  for (const RunValue& r : runs) scratch.push_back(r.kappa * model.within / r.n);
  const double within_typical = scratch.empty() ? 0.0 : MedianInPlace(scratch);
  if (runs.size() >= 3) {
    // Each run against the median of the (up to) kResidualLag runs before it: the error of
    // predicting a run from its recent past, which is what the windows' test divides by. It
    // sees a slow wander that successive differences would miss, and a step spoils only the
    // kResidualLag residuals after it, which the MAD ignores.
    // A short series predicts from fewer runs: with a step after four runs and three after it,
    // a lag of 5 spoils all three residuals after it — half of them, which the MAD no longer
    // ignores, and the noise comes out as big as the step (tests/e2e: seven nightlies).
    const std::size_t lag = std::clamp<std::size_t>((runs.size() - 1) / 3, 1, kResidualLag);
    std::vector<double> residuals;
    std::vector<double> previous;
    for (std::size_t i = 1; i < runs.size(); ++i) {
      previous.clear();
      for (std::size_t k = i > lag ? i - lag : 0; k < i; ++k) {
        previous.push_back(runs[k].x);
      }
      const double m = previous.size();
      // Var(x − median of m) = v·(1 + c/m), c ≈ π/2 for m >= 3 (1 for m = 1, 2: a mean).
      const double inflation = 1.0 + (m >= 3 ? kMedianKappa : 1.0) / m;
      residuals.push_back(std::fabs(runs[i].x - MedianInPlace(previous)) / std::sqrt(inflation));
    }
    const double mad = kMadToSigma * MedianInPlace(residuals);
    model.tau2 = std::max(model.tau2, mad * mad - within_typical);
  }
  model.typical = std::sqrt(model.tau2 + within_typical);
  return model;
}

// A window's Huber location and its standard error.
struct Location {
  double mean = 0;
  double se = 0;
};

// `clip_scale` scales each run's clip (kHuberClip · √v).
Location HuberLocation(const std::vector<RunValue>& runs, std::size_t begin, std::size_t end,
                       std::vector<double>& scratch, double clip_scale = 1.0) {
  scratch.clear();
  for (std::size_t i = begin; i < end; ++i) scratch.push_back(runs[i].x);
  const double center = MedianInPlace(scratch);
  double weights = 0;
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double clip = clip_scale * runs[i].clip;
    const double x = std::clamp(runs[i].x, center - clip, center + clip);
    const double w = runs[i].w;
    weights += w;
    sum += w * x;
  }
  return Location{sum / weights, std::sqrt(1.0 / weights)};
}

// The newest runs' location for the emerging test: clipped at kEmergingClip √v around their
// median, and a run beyond kEmergingReject √v of it left out (a hot run the flag missed is
// ten times a run's noise; clipped, it still moved three runs' level by a third of that).
Location NewestLocation(const std::vector<RunValue>& runs, std::size_t begin, std::size_t end,
                        std::vector<double>& scratch) {
  scratch.clear();
  for (std::size_t i = begin; i < end; ++i) scratch.push_back(runs[i].x);
  const double center = MedianInPlace(scratch);
  double weights = 0;
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double unit = runs[i].clip / kHuberClip;  // √v
    if (std::fabs(runs[i].x - center) > kEmergingReject * unit) continue;
    const double clip = kEmergingClip * unit;
    weights += runs[i].w;
    sum += runs[i].w * std::clamp(runs[i].x, center - clip, center + clip);
  }
  return Location{sum / weights, std::sqrt(1.0 / weights)};
}

// Weighted squared residuals of runs [lo, hi) split at q into two Huber levels.
double SplitCost(const std::vector<RunValue>& runs, std::size_t lo, std::size_t q, std::size_t hi,
                 std::vector<double>& scratch) {
  double cost = 0;
  for (const auto& [begin, end] : {std::pair{lo, q}, std::pair{q, hi}}) {
    const double level = HuberLocation(runs, begin, end, scratch).mean;
    for (std::size_t i = begin; i < end; ++i) {
      const double r = std::clamp(runs[i].x - level, -runs[i].clip, runs[i].clip);
      cost += r * r * runs[i].w;
    }
  }
  return cost;
}

struct Test {
  double z = 0;
  double effect_percent = 0;  // from the two locations
  double se = 0;              // of the difference of locations
  bool passes = false;
};

// The analysis both FindChangePoints and JudgeAgainstHistory need.
struct Analysis {
  std::vector<RunValue> runs;        // usable, in series order
  std::vector<std::size_t> changes;  // positions in `runs`, ascending
  std::size_t skipped = 0;
  NoiseModel model;
  // causes[p]: what changed between usable runs p − 1 and p (empty for p = 0).
  std::vector<std::vector<ChangeCause>> causes;
};

class Scanner {
 public:
  Scanner(const std::vector<RunValue>& runs, const HistoryOptions& options)
      : runs_(runs), options_(options) {}

  // The test of position p (a change between runs p − 1 and p) with windows bounded by lo and
  // hi (the neighbouring change points, or the ends).
  Test TestAt(std::size_t p, std::size_t lo, std::size_t hi) {
    Test t;
    const std::size_t min = options_.min_segment_runs;
    if (p < lo + min || hi < p + min) return t;
    const std::size_t w = options_.window_runs;
    const Location before = HuberLocation(runs_, std::max(lo, p >= w ? p - w : 0), p, scratch_);
    const Location after = HuberLocation(runs_, p, std::min(hi, p + w), scratch_);
    t.se = std::sqrt(before.se * before.se + after.se * after.se);
    t.z = (after.mean - before.mean) / t.se;
    t.effect_percent = 100.0 * std::expm1(after.mean - before.mean);
    t.passes = std::fabs(t.z) >= options_.z_threshold &&
               std::fabs(t.effect_percent) >= options_.min_effect_percent;
    return t;
  }

 private:
  const std::vector<RunValue>& runs_;
  const HistoryOptions& options_;
  std::vector<double> scratch_;
};

std::vector<ChangeCause> CausesBetween(const RunPoint& before, const RunPoint& after,
                                       const HistoryOptions& options) {
  std::vector<ChangeCause> causes;
  if (before.version_code && after.version_code && *before.version_code != *after.version_code) {
    causes.push_back(ChangeCause::kBuild);
  }
  if (before.fingerprint && after.fingerprint && *before.fingerprint != *after.fingerprint) {
    causes.push_back(ChangeCause::kFingerprint);
  }
  if (before.compilation && after.compilation && *before.compilation != *after.compilation) {
    causes.push_back(ChangeCause::kCompilation);
  }
  if (!options.skip_out_of_range_runs &&
      before.conditions_out_of_range != after.conditions_out_of_range) {
    causes.push_back(ChangeCause::kConditions);
  }
  return causes;
}

bool IsEnvironmentChange(const std::vector<ChangeCause>& causes) {
  return std::any_of(causes.begin(), causes.end(),
                     [](ChangeCause c) { return c != ChangeCause::kBuild; });
}

// Neighbouring change points of position p in the sorted `changes` (p itself excluded).
std::pair<std::size_t, std::size_t> Bounds(const std::vector<std::size_t>& changes, std::size_t p,
                                           std::size_t n) {
  const auto after = std::upper_bound(changes.begin(), changes.end(), p);
  auto before = std::lower_bound(changes.begin(), changes.end(), p);
  const std::size_t lo = before == changes.begin() ? 0 : *--before;
  const std::size_t hi = after == changes.end() ? n : *after;
  return {lo, hi};
}

Analysis Analyse(std::span<const RunPoint> series, const HistoryOptions& options) {
  Analysis a;
  std::vector<double> scratch;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (auto value = MakeRunValue(series[i], i, options, scratch)) {
      a.runs.push_back(*value);
    } else {
      ++a.skipped;
    }
  }
  const std::size_t n = a.runs.size();
  if (n == 0) return a;
  a.model = FitNoiseModel(a.runs);
  for (RunValue& r : a.runs) r.SetVariance(a.model.VarianceOf(r));
  // Known boundaries: position p where something changed between runs p − 1 and p.
  a.causes.resize(n);
  for (std::size_t p = 1; p < n; ++p) {
    a.causes[p] = CausesBetween(series[a.runs[p - 1].index], series[a.runs[p].index], options);
  }
  const std::vector<std::vector<ChangeCause>>& causes = a.causes;
  if (n < 2 * options.min_segment_runs) return a;

  Scanner scanner(a.runs, options);
  std::vector<double> score(n, 0.0);  // |z| of a passing test, else 0
  const auto rescore = [&](std::size_t from, std::size_t to) {
    for (std::size_t p = from; p < to && p < n; ++p) {
      if (std::binary_search(a.changes.begin(), a.changes.end(), p)) {
        score[p] = 0;
        continue;
      }
      const auto [lo, hi] = Bounds(a.changes, p, n);
      const Test t = scanner.TestAt(p, lo, hi);
      score[p] = t.passes ? std::fabs(t.z) : 0.0;
    }
  };
  rescore(1, n);
  for (;;) {
    const auto best = std::max_element(score.begin(), score.end());
    if (*best <= 0) break;
    const auto candidate = static_cast<std::size_t>(best - score.begin());
    // Where exactly. The scan's |z| peaks broadly (a robust window shrugs off the few runs
    // of the other level it straddles), so the location is the split that fits best
    // (weighted squared residuals of two Huber levels) within window_runs / 2 of the
    // candidate; then a fingerprint or compilation change in that range whose fit is within
    // the χ²₁ 0.1 % bound of the best wins, else a build change within snap_runs of the best
    // whose fit is within the 1 % bound: an OTA is not pinned on a neighbouring build. If the
    // chosen position cannot be tested yet (too few runs after it) or fails its test, nothing is
    // decided now: the next run may.
    const auto [lo, hi] = Bounds(a.changes, candidate, n);
    const std::size_t reach = options.window_runs / 2;
    const std::size_t search_from = std::max(lo + 1, candidate > reach ? candidate - reach : 1);
    const std::size_t search_to = std::min(hi - 1, candidate + reach);
    const std::size_t region_lo =
        std::max(lo, search_from > options.window_runs ? search_from - options.window_runs : 0);
    const std::size_t region_hi = std::min(hi, search_to + options.window_runs);
    std::optional<std::size_t> chosen;
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::size_t q = search_from; q <= search_to; ++q) {
      const double cost = SplitCost(a.runs, region_lo, q, region_hi, scratch);
      if (cost < best_cost) {
        best_cost = cost;
        chosen = q;
      }
    }
    const std::size_t from =
        std::max(lo + 1, *chosen > options.snap_runs ? *chosen - options.snap_runs : 1);
    const std::size_t to = std::min(hi - 1, *chosen + options.snap_runs);
    for (const bool environment : {true, false}) {
      std::optional<std::size_t> known;
      double known_cost = best_cost + (environment ? kEnvironmentChiSquare : kLocationChiSquare);
      // Fingerprint and compilation changes: anywhere in the search range or near the best.
      const std::size_t first = environment ? std::min(search_from, from) : from;
      const std::size_t last = environment ? std::max(search_to, std::min(hi - 1, to)) : to;
      for (std::size_t q = first; q <= last; ++q) {
        if (causes[q].empty() || IsEnvironmentChange(causes[q]) != environment) continue;
        const double cost = SplitCost(a.runs, region_lo, q, region_hi, scratch);
        if (cost <= known_cost) {
          known_cost = cost;
          known = q;
        }
      }
      if (known) {
        chosen = known;
        break;
      }
    }
    if (!chosen || score[*chosen] <= 0) {
      // Not now; the next run may settle it. The whole neighbourhood would locate the same
      // split: it waits too (and a long series does not search it once per position).
      std::fill(score.begin() + static_cast<std::ptrdiff_t>(search_from),
                score.begin() + static_cast<std::ptrdiff_t>(search_to) + 1, 0.0);
      continue;
    }
    a.changes.insert(std::lower_bound(a.changes.begin(), a.changes.end(), *chosen), *chosen);
    const std::size_t w = options.window_runs + options.min_segment_runs;
    rescore(*chosen > w ? *chosen - w : 1, *chosen + w + 1);
  }

  // Pruning: re-test each against its final neighbours; drop the weakest failing, repeat.
  for (;;) {
    std::optional<std::size_t> weakest;
    double weakest_z = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < a.changes.size(); ++k) {
      const std::size_t lo = k == 0 ? 0 : a.changes[k - 1];
      const std::size_t hi = k + 1 == a.changes.size() ? n : a.changes[k + 1];
      const Test t = scanner.TestAt(a.changes[k], lo, hi);
      if (!t.passes && std::fabs(t.z) < weakest_z) {
        weakest_z = std::fabs(t.z);
        weakest = k;
      }
    }
    if (!weakest) break;
    a.changes.erase(a.changes.begin() + static_cast<std::ptrdiff_t>(*weakest));
  }
  return a;
}

// The emerging-shift test (HistoryOptions::emerging_*): the newest k runs against the last
// emerging_reference_runs runs of the current segment before them, with the noise model's
// per-run variances. 20 reference runs beat 10 and 5 in the evaluation: the wander between
// them and the newest runs costs less than a short reference's own noise. Of the k that pass,
// the best-fitting split wins (analysis/README.md has the figures).
std::optional<EmergingShift> FindEmerging(const Analysis& a, std::span<const RunPoint> series,
                                          const HistoryOptions& options) {
  const std::size_t n = a.runs.size();
  const std::size_t last_change = a.changes.empty() ? 0 : a.changes.back();
  std::optional<EmergingShift> best;
  double best_score = 0;  // −split cost; a fingerprint or compilation change adds 1e9
  std::vector<double> scratch;
  if (options.emerging_max_runs < 2 || n < 2 + options.min_segment_runs) return best;
  // The candidates' splits are compared over the same runs.
  const std::size_t newest = std::min(options.emerging_max_runs, n);
  const std::size_t region_from =
      std::max(last_change, n - newest > options.emerging_reference_runs
                                ? n - newest - options.emerging_reference_runs
                                : 0);
  for (std::size_t k = 2; k <= options.emerging_max_runs && k <= n; ++k) {
    const std::size_t p = n - k;
    // Like with like: no OTA or compilation change among the newest runs after their first,
    // and the reference starts after the last one before them.
    std::size_t environment = last_change;
    bool mixed = false;
    for (std::size_t q = last_change + 1; q < n; ++q) {
      if (!IsEnvironmentChange(a.causes[q])) continue;
      if (q > p) mixed = true;
      if (q < p) environment = q;
    }
    if (mixed) continue;
    const std::size_t ref_from = std::max(environment, p > options.emerging_reference_runs
                                                           ? p - options.emerging_reference_runs
                                                           : 0);
    if (p < ref_from + options.min_segment_runs) continue;  // too little segment before
    double z = 0;
    double effect = 0;
    double threshold = options.emerging_z;
    if (k == 2) {
      // Two runs cannot outvote a hot one: both must have moved the same way, and the one
      // that moved less is tested.
      const Location ref = HuberLocation(a.runs, ref_from, p, scratch);
      const double d0 = a.runs[p].x - ref.mean;
      const double d1 = a.runs[p + 1].x - ref.mean;
      if ((d0 > 0) != (d1 > 0)) continue;
      const RunValue& nearer = std::fabs(d0) < std::fabs(d1) ? a.runs[p] : a.runs[p + 1];
      z = (nearer.x - ref.mean) / std::sqrt(nearer.v + ref.se * ref.se);
      effect = 100.0 * std::expm1(nearer.x - ref.mean);
      threshold = options.emerging_pair_z;
    } else {
      // Clipped at 1 √v around their median (not 2.5): one hot run among three (+15 %, ten
      // times a run's noise) then moves their level by a third of a run's noise, not 0.8.
      const Location ref = HuberLocation(a.runs, ref_from, p, scratch);
      const Location after = NewestLocation(a.runs, p, n, scratch);
      z = (after.mean - ref.mean) / std::sqrt(after.se * after.se + ref.se * ref.se);
      effect = 100.0 * std::expm1(after.mean - ref.mean);
    }
    if (!(std::fabs(z) >= threshold) || !(std::fabs(effect) >= options.min_effect_percent)) {
      continue;
    }
    const RunPoint& run = series[a.runs[p].index];
    std::vector<ChangeCause> causes = a.causes[p];
    // Where: as in the scan, the split of the newest runs and their reference that fits best
    // (a larger k also passes when only its last runs moved); an OTA or a compilation change
    // among the candidates wins, so an OTA is not pinned on the build next to it.
    const double score = -SplitCost(a.runs, region_from, p, n, scratch) +
                         (IsEnvironmentChange(causes) ? 1e9 : 0.0);
    if (best && score <= best_score) continue;
    best_score = score;
    EmergingShift e;
    e.index = a.runs[p].index;
    e.run_id = run.run_id;
    e.t = run.t;
    e.runs_after = k;
    e.runs_reference = p - ref_from;
    e.delta_percent = effect;
    e.z = z;
    e.explained_by = std::move(causes);
    e.app_change = !e.explained_by.empty() && !IsEnvironmentChange(e.explained_by);
    best = std::move(e);
  }
  return best;
}

double MedianOfRunMedians(const std::vector<RunValue>& runs, std::size_t begin, std::size_t end,
                          std::vector<double>& scratch) {
  scratch.clear();
  for (std::size_t i = begin; i < end; ++i) scratch.push_back(runs[i].median);
  return MedianInPlace(scratch);
}

ConfidenceInterval PercentInterval(double log_ratio, double se, double confidence) {
  const double half = NormalQuantile(0.5 + confidence / 2.0) * se * kMedianSeFactor;
  return ConfidenceInterval{100.0 * std::expm1(log_ratio - half),
                            100.0 * std::expm1(log_ratio + half), confidence};
}

}  // namespace

std::string ValidateHistoryOptions(const HistoryOptions& o) {
  if (o.min_segment_runs < 2 || o.min_segment_runs > 1000) {
    return Format("min_segment_runs must be in [2, 1000], got %zu", o.min_segment_runs);
  }
  if (o.window_runs < o.min_segment_runs || o.window_runs > 10'000) {
    return Format("window_runs must be in [min_segment_runs, 10000], got %zu", o.window_runs);
  }
  if (o.settle_runs < o.min_segment_runs) {
    return Format("settle_runs must be >= min_segment_runs, got %zu", o.settle_runs);
  }
  if (!(o.z_threshold > 0 && std::isfinite(o.z_threshold))) {
    return Format("z_threshold must be a finite number > 0, got %g", o.z_threshold);
  }
  if (!(o.min_effect_percent >= 0 && std::isfinite(o.min_effect_percent))) {
    return Format("min_effect_percent must be a finite number >= 0, got %g", o.min_effect_percent);
  }
  if (o.snap_runs > 100) return Format("snap_runs must be <= 100, got %zu", o.snap_runs);
  if (o.min_run_samples < 1) return "min_run_samples must be at least 1, got 0";
  if (!(o.confidence > 0 && o.confidence < 1)) {
    return Format("confidence must be in (0, 1), got %g", o.confidence);
  }
  if (!(o.verdict_z > 0 && std::isfinite(o.verdict_z))) {
    return Format("verdict_z must be a finite number > 0, got %g", o.verdict_z);
  }
  if (!(o.fixed_floor_fraction >= 0 && o.fixed_floor_fraction < 1)) {
    return Format("fixed_floor_fraction must be in [0, 1), got %g", o.fixed_floor_fraction);
  }
  if (o.emerging_max_runs > 100) {
    return Format("emerging_max_runs must be <= 100, got %zu", o.emerging_max_runs);
  }
  if (o.emerging_reference_runs < 1 || o.emerging_reference_runs > 10'000) {
    return Format("emerging_reference_runs must be in [1, 10000], got %zu",
                  o.emerging_reference_runs);
  }
  if (!(o.emerging_z > 0 && std::isfinite(o.emerging_z)) ||
      !(o.emerging_pair_z > 0 && std::isfinite(o.emerging_pair_z))) {
    return Format("emerging_z and emerging_pair_z must be finite numbers > 0, got %g and %g",
                  o.emerging_z, o.emerging_pair_z);
  }
  return {};
}

std::string_view ChangeCauseName(ChangeCause cause) {
  switch (cause) {
    case ChangeCause::kBuild:
      return "build";
    case ChangeCause::kFingerprint:
      return "fingerprint";
    case ChangeCause::kCompilation:
      return "compilation";
    case ChangeCause::kConditions:
      return "conditions";
  }
  return "unknown";
}

std::string_view HistoryVerdictName(HistoryVerdict verdict) {
  switch (verdict) {
    case HistoryVerdict::kRegression:
      return "regression";
    case HistoryVerdict::kImprovement:
      return "improvement";
    case HistoryVerdict::kNoChange:
      return "no_change";
    case HistoryVerdict::kNotComparable:
      return "not_comparable";
  }
  return "unknown";
}

ChangePointAnalysis FindChangePoints(std::span<const RunPoint> series,
                                     const HistoryOptions& options) {
  ChangePointAnalysis result;
  if (std::string invalid = ValidateHistoryOptions(options); !invalid.empty()) {
    result.error = "invalid options: " + invalid;
    return result;
  }
  const Analysis a = Analyse(series, options);
  result.runs_used = a.runs.size();
  result.runs_skipped = a.skipped;
  if (a.runs.size() >= 2) result.run_noise_percent = 100.0 * a.model.typical;
  result.emerging = FindEmerging(a, series, options);

  Scanner scanner(a.runs, options);
  std::vector<double> scratch;
  const std::size_t n = a.runs.size();
  for (std::size_t k = 0; k < a.changes.size(); ++k) {
    const std::size_t p = a.changes[k];
    const std::size_t lo = k == 0 ? 0 : a.changes[k - 1];
    const std::size_t hi = k + 1 == a.changes.size() ? n : a.changes[k + 1];
    const Test t = scanner.TestAt(p, lo, hi);
    const RunPoint& run = series[a.runs[p].index];
    ChangePoint cp;
    cp.index = a.runs[p].index;
    cp.run_id = run.run_id;
    cp.t = run.t;
    cp.median_before = MedianOfRunMedians(a.runs, lo, p, scratch);
    cp.median_after = MedianOfRunMedians(a.runs, p, hi, scratch);
    cp.runs_before = p - lo;
    cp.runs_after = hi - p;
    cp.delta = cp.median_after - cp.median_before;
    cp.delta_percent = 100.0 * (cp.median_after / cp.median_before - 1.0);
    cp.delta_percent_ci =
        PercentInterval(std::log(cp.median_after / cp.median_before), t.se, options.confidence);
    cp.z = t.z;
    cp.p_value = TwoSidedP(t.z);
    cp.settled = n - p >= options.settle_runs;
    cp.explained_by = CausesBetween(series[a.runs[p - 1].index], run, options);
    cp.app_change = !cp.explained_by.empty() && !IsEnvironmentChange(cp.explained_by);
    result.change_points.push_back(std::move(cp));
  }
  return result;
}

HistoryJudgement JudgeAgainstHistory(std::span<const RunPoint> series, std::size_t candidate,
                                     std::optional<double> calibrated_floor_fraction,
                                     const HistoryOptions& options) {
  HistoryJudgement j;
  j.floor_fraction = options.fixed_floor_fraction;
  if (std::string invalid = ValidateHistoryOptions(options); !invalid.empty()) {
    j.reason = "not comparable: invalid options: " + invalid;
    return j;
  }
  if (calibrated_floor_fraction) {
    if (!(*calibrated_floor_fraction > 0 && *calibrated_floor_fraction < 1)) {
      j.reason = Format("not comparable: the calibrated floor must be in (0, 1), got %g",
                        *calibrated_floor_fraction);
      return j;
    }
    j.floor_fraction = *calibrated_floor_fraction;
    j.floor_calibrated = true;
  }
  if (candidate >= series.size()) {
    j.reason =
        Format("not comparable: run %zu is not in a series of %zu runs", candidate, series.size());
    return j;
  }
  const RunPoint& run = series[candidate];
  if (run.conditions_out_of_range) {
    j.reason = "not comparable: the run's conditions were out of range";
    return j;
  }
  std::vector<double> scratch;
  HistoryOptions candidate_options = options;
  candidate_options.skip_out_of_range_runs = true;
  std::optional<RunValue> cand = MakeRunValue(run, candidate, candidate_options, scratch);
  if (!cand) {
    j.reason =
        Format("not comparable: the run has fewer than %zu valid samples", options.min_run_samples);
    return j;
  }
  j.candidate_median = cand->median;

  // Only the recent history matters to the current segment (at most window_runs runs of it
  // are used); analysing the last kVerdictHistoryWindows windows keeps a verdict on a
  // 10,000-run series as cheap as on a short one.
  const std::size_t history = kVerdictHistoryWindows * options.window_runs;
  const std::size_t first = candidate > history ? candidate - history : 0;
  Analysis a = Analyse(series.subspan(first, candidate - first), candidate_options);
  for (RunValue& r : a.runs) r.index += first;
  const std::size_t last_change = a.changes.empty() ? 0 : a.changes.back();
  std::vector<RunValue> segment;
  std::size_t other_conditions = 0;
  for (std::size_t p = last_change; p < a.runs.size(); ++p) {
    const RunPoint& r = series[a.runs[p].index];
    const bool same_fingerprint =
        !run.fingerprint || !r.fingerprint || *run.fingerprint == *r.fingerprint;
    const bool same_compilation =
        !run.compilation || !r.compilation || *run.compilation == *r.compilation;
    if (same_fingerprint && same_compilation) {
      segment.push_back(a.runs[p]);
    } else {
      ++other_conditions;
    }
  }
  if (segment.size() > options.window_runs) {
    segment.erase(segment.begin(),
                  segment.end() - static_cast<std::ptrdiff_t>(options.window_runs));
  }
  j.segment_runs = segment.size();
  if (!segment.empty()) {
    j.segment_first_index = segment.front().index;
    j.segment_first_run_id = series[segment.front().index].run_id;
  }
  if (segment.size() < options.min_segment_runs) {
    j.reason = Format(
        "not comparable: %zu run(s) at the run's fingerprint and compilation state since the "
        "last change point (%zu at other conditions); at least %zu are needed",
        segment.size(), other_conditions, options.min_segment_runs);
    return j;
  }

  // The candidate's variance from the history's noise model, with its own n.
  cand->SetVariance(a.model.VarianceOf(*cand));
  const Location seg = HuberLocation(segment, 0, segment.size(), scratch);
  const double se = std::sqrt(cand->v + seg.se * seg.se);
  const double z = (cand->x - seg.mean) / se;
  j.z = z;
  j.p_value = TwoSidedP(z);
  j.segment_median = MedianOfRunMedians(segment, 0, segment.size(), scratch);
  const double ratio = *j.candidate_median / *j.segment_median;
  j.delta_percent = 100.0 * (ratio - 1.0);
  j.delta_percent_ci = PercentInterval(std::log(ratio), se, options.confidence);

  const std::string numbers = Format(
      "median %.1f vs the segment's %.1f (%zu runs from run %lld): %+.1f %%, %.0f %% CI "
      "[%+.1f, %+.1f] %%, z = %.2f, p = %.3g; floor %.1f %% (%s)",
      *j.candidate_median, *j.segment_median, j.segment_runs,
      static_cast<long long>(*j.segment_first_run_id), *j.delta_percent, 100.0 * options.confidence,
      j.delta_percent_ci->lower, j.delta_percent_ci->upper, z, *j.p_value, 100.0 * j.floor_fraction,
      j.floor_calibrated ? "calibrated" : "fixed");
  std::string unmet;
  const auto add_unmet = [&unmet](const std::string& why) {
    unmet += unmet.empty() ? why : "; " + why;
  };
  if (!(std::fabs(z) >= options.verdict_z)) add_unmet(Format("|z| < %g", options.verdict_z));
  if (!(std::fabs(*j.delta_percent) >= 100.0 * j.floor_fraction)) {
    add_unmet(Format("|change| %.1f %% < the floor %.1f %%", std::fabs(*j.delta_percent),
                     100.0 * j.floor_fraction));
  }
  const bool ci_agrees = *j.delta_percent > 0
                             ? j.delta_percent_ci->lower > 0
                             : *j.delta_percent < 0 && j.delta_percent_ci->upper < 0;
  if (!ci_agrees) add_unmet("CI of the change includes 0");
  if (!unmet.empty()) {
    j.verdict = HistoryVerdict::kNoChange;
    j.reason = "no change: " + unmet + "; " + numbers;
    return j;
  }
  j.verdict = *j.delta_percent > 0 ? HistoryVerdict::kRegression : HistoryVerdict::kImprovement;
  j.reason = std::string(HistoryVerdictName(j.verdict)) + ": " + numbers;
  return j;
}

Calibration CalibrateNoiseFloor(std::span<const AaPair> pairs, const CalibrationOptions& options) {
  Calibration c;
  if (!(options.quantile > 0 && options.quantile < 1)) {
    c.error = Format("invalid options: quantile must be in (0, 1), got %g", options.quantile);
    return c;
  }
  if (options.min_pairs < 2 || options.min_samples < 2) {
    c.error = "invalid options: min_pairs and min_samples must be at least 2";
    return c;
  }
  std::vector<double> deltas;  // Δ median %, per used pair
  std::vector<std::size_t> used;
  std::vector<double> a;
  std::vector<double> b;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    a.clear();
    b.clear();
    for (double v : pairs[k].first) {
      if (std::isfinite(v)) a.push_back(v);
    }
    for (double v : pairs[k].second) {
      if (std::isfinite(v)) b.push_back(v);
    }
    if (a.size() < options.min_samples || b.size() < options.min_samples) {
      ++c.pairs_skipped;
      continue;
    }
    const double ma = MedianInPlace(a);
    const double mb = MedianInPlace(b);
    if (!(ma > 0)) {
      ++c.pairs_skipped;
      continue;
    }
    const double delta = 100.0 * (mb / ma - 1.0);
    if (!std::isfinite(delta)) {  // a ratio beyond the doubles: not a launch time
      ++c.pairs_skipped;
      continue;
    }
    deltas.push_back(delta);
    used.push_back(k);
  }
  c.pairs_used = deltas.size();
  if (deltas.empty()) return c;

  std::vector<double> abs_sorted;
  for (double d : deltas) abs_sorted.push_back(std::fabs(d));
  std::sort(abs_sorted.begin(), abs_sorted.end());
  if (c.pairs_used >= options.min_pairs) {
    c.floor_fraction = QuantileOfSorted(abs_sorted, options.quantile) / 100.0;
  }
  if (c.pairs_used >= 2) {
    std::vector<double> scratch(deltas);
    const double center = MedianInPlace(scratch);
    for (double& d : scratch) d = std::fabs(d - center);
    c.run_spread_percent = kMadToSigma * MedianInPlace(scratch) / std::numbers::sqrt2;
  }

  std::vector<double> others;
  for (std::size_t u = 0; u < used.size(); ++u) {
    double floor = 0.05;
    if (c.pairs_used - 1 >= options.min_pairs) {
      // abs_sorted without one copy of this pair's |Δ|: still sorted.
      others = abs_sorted;
      others.erase(std::lower_bound(others.begin(), others.end(), std::fabs(deltas[u])));
      floor = QuantileOfSorted(others, options.quantile) / 100.0;
    }
    CompareOptions compare;
    compare.min_effect_percent = 100.0 * floor;
    const Comparison result = Compare(pairs[used[u]].first, pairs[used[u]].second, compare);
    if (result.verdict == Verdict::kRegression || result.verdict == Verdict::kImprovement) {
      ++c.false_alarms;
    }
  }
  c.false_alarm_rate = static_cast<double>(c.false_alarms) / static_cast<double>(c.pairs_used);
  return c;
}

}  // namespace droidlab::analysis
