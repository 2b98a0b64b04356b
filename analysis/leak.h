// A suspected leak of Activities (issue 16 §5): the in-app APMs' leak detector, from outside.
//
// In-app tools find a leak by holding a weak reference to each destroyed Activity and checking,
// after a GC, that it went (Tencent Matrix's ResourceCanary, Square's LeakCanary). From outside
// the app there is no such hook, but `dumpsys meminfo PKG` prints how many Activity, ViewRootImpl
// and ContextImpl objects the process holds (ActivityThread.dumpMemInfoTable's "Objects":
// Activities, ViewRootImpl, AppContexts). The same scenario launched again and again into the same
// process should leave the same number behind; a count that keeps growing after each launch is
// an object that the app keeps each time — what those tools report as a retained Activity.
//
// The rule, over one process's iterations in order (each value read at an iteration's end):
//   - at least `min_iterations` values (default 3: a line through two points says nothing);
//   - non-decreasing: a value that ever drops means the objects were released (a GC that came
//     late, a cache trimmed) — retention that comes and goes is not a leak;
//   - risen by at least `min_rise` over the series (default 2), so that one activity created
//     once and then kept (a second screen the scenario opens) is not taken for a leak;
//   - the least-squares slope over the iteration numbers above `min_slope` (default 0.5 per
//     iteration): a count that rose once and then stayed flat for many iterations has a small
//     slope, one that rises with most launches does not.
// Checked for Activities, then ViewRootImpl, then AppContexts; the first that meets it is
// reported.
//
// Cold launches start a new process each time, whose counts start again from nothing: the rule
// means nothing across processes, so it is applied to the iterations of one pid only — the
// longest stretch of consecutive iterations of the same pid (the latest of equal ones). A cold
// run (a new pid every iteration) has no such stretch: the check is not applicable. Warm and hot
// runs, and scenarios within one process, are what it is for.
//
// Pure and deterministic; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace droidlab::analysis {

// One iteration's counts (absent: the version printed none).
struct MemoryCounts {
  int64_t iteration = 0;
  int64_t pid = 0;
  std::optional<int64_t> activities;
  std::optional<int64_t> view_root_impl;
  std::optional<int64_t> app_contexts;
};

struct LeakRule {
  size_t min_iterations = 3;
  int64_t min_rise = 2;
  double min_slope = 0.5;  // per iteration
};

enum class LeakCheck {
  kNotApplicable,  // no stretch of min_iterations iterations of one process
  kNoLeak,
  kSuspected,
};

struct LeakSuspicion {
  std::string metric;  // "activities", "view_root_impl" or "app_contexts"
  int64_t from = 0;    // the value at the stretch's first iteration
  int64_t to = 0;      // at its last
  double slope_per_iteration = 0;
  int64_t first_iteration = 0;
  int64_t last_iteration = 0;
  int64_t pid = 0;
};

struct LeakVerdict {
  LeakCheck check = LeakCheck::kNotApplicable;
  std::optional<LeakSuspicion> suspected;  // set when check == kSuspected
};

// `iterations` in iteration order (the caller's, as stored).
LeakVerdict CheckActivityLeak(std::span<const MemoryCounts> iterations, const LeakRule& rule = {});

const char* LeakCheckName(LeakCheck check);  // "not_applicable", "no_leak", "suspected"

}  // namespace droidlab::analysis
