// Nightly launch-time histories that look like a lab's, and the evaluation of change-point
// detection and verdicts on them: shared by bench/change_point_eval.cpp (full size) and
// tests/analysis/change_points_test.cpp (a small deterministic version). Header-only.
//
// A history: runs of `launches` cold launches each, lognormal around a level. The level of a
// run is the base × every step so far × a run offset (iid, run_sigma) × a slow mean-reverting
// wander (AR(1)). Launches get heavy-tailed outliers (outlier_rate of them 1.5–4× slower); a
// few runs are on a hot phone (hot_shift slower; flagged out of range with probability
// hot_flagged, the rest pass unnoticed); some runs are short (5–12 launches: unequal sizes);
// the versionCode changes at random runs with no effect (neutral builds) and at every app step.
// Events: app steps (versionCode change + a shift), OTAs (fingerprint change + a shift),
// compilation changes (compilation state change + a shift).
//
// The random numbers come from std::mt19937_64 and our own transforms (no std::*_distribution,
// whose output the standard leaves to the implementation): the same seed gives the same
// history with every compiler and standard library.
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "analysis/change_points.h"
#include "analysis/comparison.h"

namespace droidlab::bench {

struct SimParams {
  int runs = 160;
  int launches = 20;
  double base_ms = 800;
  double within_sigma = 0.05;   // of ln(launch) within a run
  double run_sigma = 0.008;     // iid run-to-run offset of ln(level)
  double wander_sigma = 0.002;  // AR(1) innovation of the slow wander
  double wander_phi = 0.95;     // its persistence (stationary sd = σ / √(1 − φ²) ≈ 0.64 %)
  double outlier_rate = 0.05;
  double hot_rate = 0.03;
  double hot_shift = 0.15;
  double hot_flagged = 0.8;
  double short_run_rate = 0.1;
  double neutral_build_rate = 0.3;
};

enum class EventKind { kAppStep, kOta, kCompilation };

inline const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kAppStep:
      return "app step";
    case EventKind::kOta:
      return "OTA";
    case EventKind::kCompilation:
      return "compilation";
  }
  return "?";
}

struct Event {
  int run = 0;  // the first run at the new level
  EventKind kind = EventKind::kAppStep;
  double shift = 0;  // fraction: +0.05 = 5 % slower from this run on
};

struct History {
  std::vector<analysis::RunPoint> runs;
  std::vector<Event> events;
  std::vector<bool> hot_unflagged;  // per run: on a hot phone that the flag missed
};

class Random {
 public:
  explicit Random(std::uint64_t seed) : rng_(seed) {}
  double Uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Normal() {                                                           // Box–Muller
    const double u1 = 1.0 - Uniform();
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  bool Chance(double p) { return Uniform() < p; }
  int Between(int lo, int hi) {  // [lo, hi]
    return lo + static_cast<int>(Uniform() * static_cast<double>(hi - lo + 1));
  }

 private:
  std::mt19937_64 rng_;
};

inline History Generate(const SimParams& p, std::vector<Event> events, std::uint64_t seed) {
  Random r(seed);
  History h;
  h.events = std::move(events);
  double level = 0;   // ln of the product of the steps so far
  double wander = 0;  // AR(1)
  std::int64_t version = 1000;
  int fingerprint = 1;
  bool speed_profile = true;
  for (int i = 0; i < p.runs; ++i) {
    if (i > 0 && r.Chance(p.neutral_build_rate)) ++version;
    for (const Event& e : h.events) {
      if (e.run != i) continue;
      level += std::log1p(e.shift);
      if (e.kind == EventKind::kAppStep) version += 10;
      if (e.kind == EventKind::kOta) ++fingerprint;
      if (e.kind == EventKind::kCompilation) speed_profile = !speed_profile;
    }
    wander = p.wander_phi * wander + p.wander_sigma * r.Normal();
    double run_level = level + wander + p.run_sigma * r.Normal();
    analysis::RunPoint run;
    run.run_id = 1 + i;
    run.t = 1'700'000'000 + 86'400LL * i;
    run.version_code = version;
    run.fingerprint = "google/oriole/oriole:14/UQ1A." + std::to_string(fingerprint) + ":user";
    run.compilation = speed_profile ? "speed-profile" : "verify";
    bool hot_unflagged = false;
    if (r.Chance(p.hot_rate)) {
      run_level += std::log1p(p.hot_shift);
      run.conditions_out_of_range = r.Chance(p.hot_flagged);
      hot_unflagged = !run.conditions_out_of_range;
    }
    h.hot_unflagged.push_back(hot_unflagged);
    const int n = r.Chance(p.short_run_rate) ? r.Between(5, 12) : p.launches;
    for (int k = 0; k < n; ++k) {
      double ms = p.base_ms * std::exp(run_level + p.within_sigma * r.Normal());
      if (r.Chance(p.outlier_rate)) ms *= 1.5 + 2.5 * r.Uniform();
      run.samples.push_back(std::round(ms));  // logcat prints whole milliseconds
    }
    h.runs.push_back(std::move(run));
  }
  return h;
}

// Events every `spacing` runs from `first`, kinds and sizes in a fixed rotation driven by the
// seed: app steps of each size in `step_sizes` (random sign), OTAs (3–10 %) and compilation
// changes (5–15 %).
inline std::vector<Event> PlanEvents(int runs, int first, int spacing,
                                     const std::vector<double>& step_sizes, std::uint64_t seed,
                                     std::size_t& step_counter) {
  Random r(seed ^ 0x9e3779b97f4a7c15ULL);
  std::vector<Event> events;
  for (int at = first; at + 15 <= runs; at += spacing) {
    Event e;
    e.run = at;
    const double kind = r.Uniform();
    const double sign = r.Chance(0.5) ? 1.0 : -1.0;
    if (kind < 0.6) {
      e.kind = EventKind::kAppStep;
      e.shift = sign * step_sizes[step_counter++ % step_sizes.size()];
    } else if (kind < 0.8) {
      e.kind = EventKind::kOta;
      e.shift = sign * (0.03 + 0.07 * r.Uniform());
    } else {
      e.kind = EventKind::kCompilation;
      e.shift = sign * (0.05 + 0.10 * r.Uniform());
    }
    events.push_back(e);
  }
  return events;
}

// ---- The evaluation ------------------------------------------------------------------------

struct StepFigures {
  double size = 0;
  std::size_t steps = 0;
  std::size_t found_within_3 = 0;  // change point within ±1 run, with <= 3 runs from the step
  std::size_t found_within_10 = 0;
  std::size_t found_exact = 0;       // … at exactly the step's run (when found within 10)
  double delay_sum = 0;              // over those found within 10
  std::size_t verdict_within_3 = 0;  // JudgeAgainstHistory flags the step's run or the next 2
  std::size_t verdict_at_step = 0;   // … the step's run itself
  std::size_t naive_within_3 = 0;    // Compare(previous run, run) flags one of the first 3
  // The emerging-shift test (ChangePointAnalysis::emerging) within ±1 run of the step, with
  // the step's sign, with <= 3 runs from the step.
  std::size_t emerging_within_3 = 0;
  // "Found" by droidlab's detection: a change point or an emerging shift (the A/A figure of
  // the same procedure: Figures::aa_detections).
  std::size_t detected_within_3 = 0;
  // … or the history verdict (A/A: Figures::aa_any_alarms).
  std::size_t any_within_3 = 0;
};

struct Figures {
  std::vector<StepFigures> steps;
  std::size_t environment_events = 0;  // OTAs and compilation changes
  std::size_t environment_found = 0;   // a change point within ±2 runs in the final analysis
  std::size_t environment_blamed_on_app = 0;  // … reported without its cause at any time
  std::size_t naive_environment_flagged = 0;  // the naive verdict flags it (blames the build)
  std::size_t settled_total = 0;
  std::size_t settled_moved = 0;  // settled at an index that the final analysis lacks
  std::size_t event_history_runs = 0;
  std::size_t false_settled = 0;  // final settled change points not within ±2 runs of an event
  // A/A histories.
  std::size_t aa_runs = 0;
  std::size_t aa_change_points_settled = 0;  // distinct false change points ever settled
  std::size_t aa_change_points_any = 0;      // … ever reported, settled or not
  std::size_t aa_verdicts_judged = 0;
  std::size_t aa_verdict_alarms = 0;
  std::size_t aa_verdict_alarms_hot = 0;  // … on a run that was hot but not flagged
  std::size_t aa_naive_judged = 0;
  std::size_t aa_naive_alarms = 0;
  std::size_t aa_naive_alarms_hot = 0;
  // Distinct alarms (one per place: an alarm within ±2 runs of an earlier one of the same
  // history is the same alarm), counted with the definitions of StepFigures' "found".
  std::size_t aa_emerging = 0;    // emerging shifts ever reported
  std::size_t aa_detections = 0;  // change points (settled or not) or emerging shifts
  std::size_t aa_any_alarms = 0;  // … or history-verdict alarms (at the judged run)
};

// The naive verdict: run c against the run before it (skipping runs flagged out of range, as
// droidlab's verdict does); nullopt when c itself is flagged or has no predecessor.
inline std::optional<analysis::Verdict> Naive(std::span<const analysis::RunPoint> all,
                                              std::size_t c,
                                              const analysis::CompareOptions& compare) {
  if (all[c].conditions_out_of_range) return std::nullopt;
  for (std::size_t b = c; b-- > 0;) {
    if (all[b].conditions_out_of_range) continue;
    return analysis::Compare(all[b].samples, all[c].samples, compare).verdict;
  }
  return std::nullopt;
}

inline bool Alarm(std::optional<analysis::Verdict> v) {
  return v == analysis::Verdict::kRegression || v == analysis::Verdict::kImprovement;
}

inline bool Flags(analysis::Verdict v, double shift) {
  return shift > 0 ? v == analysis::Verdict::kRegression : v == analysis::Verdict::kImprovement;
}

inline bool Flags(std::optional<analysis::Verdict> v, double shift) {
  if (!v) return false;
  return Flags(*v, shift);
}
inline bool Flags(analysis::HistoryVerdict v, double shift) {
  return shift > 0 ? v == analysis::HistoryVerdict::kRegression
                   : v == analysis::HistoryVerdict::kImprovement;
}

inline std::optional<const analysis::ChangePoint*> Near(
    const std::vector<analysis::ChangePoint>& cps, int run, int tolerance) {
  for (const auto& cp : cps) {
    const int d = static_cast<int>(cp.index) - run;
    if (d >= -tolerance && d <= tolerance) return &cp;
  }
  return std::nullopt;
}

// Histories with events: detection, delay, blame. `compare` is the naive verdict's options.
inline void EvaluateSteps(const SimParams& params, int histories, std::uint64_t seed,
                          const std::vector<double>& step_sizes,
                          const analysis::HistoryOptions& options,
                          const analysis::CompareOptions& compare,
                          std::optional<double> verdict_floor, Figures& f) {
  using analysis::RunPoint;
  if (f.steps.empty()) {
    for (double s : step_sizes) f.steps.push_back(StepFigures{.size = s});
  }
  std::size_t step_counter = 0;
  for (int h = 0; h < histories; ++h) {
    const std::uint64_t s = seed * 1000003ULL + static_cast<std::uint64_t>(h);
    const History history =
        Generate(params, PlanEvents(params.runs, 40, 30, step_sizes, s, step_counter), s);
    const std::span<const RunPoint> all(history.runs);
    const auto final_cps = analysis::FindChangePoints(all, options).change_points;
    f.event_history_runs += all.size();
    for (const auto& cp : final_cps) {
      bool matched = false;
      for (const Event& ev : history.events) {
        matched = matched || (static_cast<int>(cp.index) >= ev.run - 2 &&
                              static_cast<int>(cp.index) <= ev.run + 2);
      }
      if (cp.settled && !matched) ++f.false_settled;
    }
    // Settled change points, as they appear run after run, against the final answer.
    for (std::size_t e = 2 * options.min_segment_runs; e <= all.size(); ++e) {
      for (const auto& cp : analysis::FindChangePoints(all.first(e), options).change_points) {
        if (cp.index + options.settle_runs != e) continue;  // settled at exactly this run
        ++f.settled_total;
        bool kept = false;
        for (const auto& last : final_cps) kept = kept || last.index == cp.index;
        if (!kept) ++f.settled_moved;
      }
    }
    for (const Event& ev : history.events) {
      const auto at = static_cast<std::size_t>(ev.run);
      if (ev.kind == EventKind::kAppStep) {
        StepFigures* sf = nullptr;
        for (auto& x : f.steps) {
          if (std::fabs(x.size - std::fabs(ev.shift)) < 1e-9) sf = &x;
        }
        ++sf->steps;
        bool change_point_3 = false;
        bool emerging_3 = false;
        for (std::size_t e = at + 1; e <= at + 10 && e <= all.size(); ++e) {
          const auto analysis = analysis::FindChangePoints(all.first(e), options);
          const std::size_t delay = e - at;
          if (delay <= 3 && analysis.emerging && !emerging_3) {
            const int d = static_cast<int>(analysis.emerging->index) - ev.run;
            emerging_3 =
                d >= -1 && d <= 1 && (analysis.emerging->delta_percent > 0) == (ev.shift > 0);
          }
          if (const auto cp = Near(analysis.change_points, ev.run, 1)) {
            change_point_3 = delay <= 3;
            ++sf->found_within_10;
            if ((*cp)->index == at) ++sf->found_exact;
            sf->delay_sum += static_cast<double>(delay);
            break;
          }
        }
        if (change_point_3) ++sf->found_within_3;
        if (emerging_3) ++sf->emerging_within_3;
        if (change_point_3 || emerging_3) ++sf->detected_within_3;
        bool verdict = false;
        for (std::size_t c = at; c < at + 3 && c < all.size(); ++c) {
          const auto j = analysis::JudgeAgainstHistory(all, c, verdict_floor, options);
          if (Flags(j.verdict, ev.shift)) {
            verdict = true;
            if (c == at) ++sf->verdict_at_step;
            break;
          }
        }
        if (verdict) ++sf->verdict_within_3;
        if (verdict || change_point_3 || emerging_3) ++sf->any_within_3;
        bool naive = false;
        for (std::size_t c = at; c < at + 3 && c < all.size() && !naive; ++c) {
          naive = Flags(Naive(all, c, compare), ev.shift);
        }
        if (naive) ++sf->naive_within_3;
        continue;
      }
      ++f.environment_events;
      const auto cause = ev.kind == EventKind::kOta ? analysis::ChangeCause::kFingerprint
                                                    : analysis::ChangeCause::kCompilation;
      if (Near(final_cps, ev.run, 2)) ++f.environment_found;
      bool blamed = false;
      for (std::size_t e = at + 1; e <= at + 12 && e <= all.size() && !blamed; ++e) {
        const auto cps = e == all.size()
                             ? final_cps
                             : analysis::FindChangePoints(all.first(e), options).change_points;
        if (const auto cp = Near(cps, ev.run, 2)) {
          bool explained = false;
          for (auto c : (*cp)->explained_by) explained = explained || c == cause;
          blamed = !explained;
        }
        // An emerging shift near it must name its cause too.
        const auto emerging = analysis::FindChangePoints(all.first(e), options).emerging;
        if (emerging && static_cast<int>(emerging->index) >= ev.run - 2 &&
            static_cast<int>(emerging->index) <= ev.run + 2) {
          bool explained = false;
          for (auto c : emerging->explained_by) explained = explained || c == cause;
          blamed = blamed || !explained;
        }
      }
      if (blamed) ++f.environment_blamed_on_app;
      if (Alarm(Naive(all, at, compare))) ++f.naive_environment_flagged;
    }
  }
}

// A/A histories: the same build every night (no events, no build changes).
inline void EvaluateAa(SimParams params, int histories, std::uint64_t seed,
                       const analysis::HistoryOptions& options,
                       const analysis::CompareOptions& compare,
                       std::optional<double> verdict_floor, Figures& f) {
  using analysis::RunPoint;
  params.neutral_build_rate = 0;
  for (int h = 0; h < histories; ++h) {
    const std::uint64_t s = seed * 7919ULL + static_cast<std::uint64_t>(h) + 1;
    const History history = Generate(params, {}, s);
    const std::span<const RunPoint> all(history.runs);
    f.aa_runs += all.size();
    std::vector<std::size_t> seen_any;
    std::vector<std::size_t> seen_settled;
    std::vector<std::size_t> seen_emerging;
    std::vector<std::size_t> seen_detections;
    std::vector<std::size_t> seen_alarms;
    const auto remember = [](std::vector<std::size_t>& seen, std::size_t index) {
      for (std::size_t x : seen) {
        if (x + 2 >= index && index + 2 >= x) return false;  // the same change, moved a little
      }
      seen.push_back(index);
      return true;
    };
    for (std::size_t e = 1; e <= all.size(); ++e) {
      const auto analysis = analysis::FindChangePoints(all.first(e), options);
      for (const auto& cp : analysis.change_points) {
        if (remember(seen_any, cp.index)) ++f.aa_change_points_any;
        if (cp.settled && remember(seen_settled, cp.index)) ++f.aa_change_points_settled;
        if (remember(seen_detections, cp.index)) ++f.aa_detections;
        if (remember(seen_alarms, cp.index)) ++f.aa_any_alarms;
      }
      if (analysis.emerging) {
        const std::size_t at = analysis.emerging->index;
        if (remember(seen_emerging, at)) ++f.aa_emerging;
        if (remember(seen_detections, at)) ++f.aa_detections;
        if (remember(seen_alarms, at)) ++f.aa_any_alarms;
      }
      const std::size_t c = e - 1;
      const auto j = analysis::JudgeAgainstHistory(all, c, verdict_floor, options);
      if (j.verdict != analysis::HistoryVerdict::kNotComparable) {
        ++f.aa_verdicts_judged;
        if (j.verdict != analysis::HistoryVerdict::kNoChange) {
          if (remember(seen_alarms, c)) ++f.aa_any_alarms;
          ++f.aa_verdict_alarms;
          if (history.hot_unflagged[c]) ++f.aa_verdict_alarms_hot;
        }
      }
      if (const auto v = Naive(all, c, compare)) {
        ++f.aa_naive_judged;
        if (Alarm(v)) {
          ++f.aa_naive_alarms;
          if (history.hot_unflagged[c]) ++f.aa_naive_alarms_hot;
        }
      }
    }
  }
}

}  // namespace droidlab::bench
