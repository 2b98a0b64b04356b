// RunReports: the questions a nightly job and a dashboard ask of the history, answered in one
// place so that neither needs HTTP to get them — "the report of run N" (its launches summarised)
// and "run N against its baseline" (the baseline chosen, both sides read, the verdict). api/
// maps requests to these and their answers to JSON; the scheduler and the client commands get
// the same verdict.
//
// Threading: the coroutines may be awaited on any executor; store reads run on the store's
// reader threads (through store/async_store.h) and resume the caller where it started.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/statistics.h"
#include "orchestrator/lab/comparability.h"
#include "orchestrator/lab/run_queue.h"
#include "orchestrator/lab/run_summaries.h"
#include "store/async_store.h"
#include "store/records.h"
#include "store/store.h"

namespace droidlab::orchestrator {

// A run's launches, summarised over the valid ones. A summary is null when no valid launch has
// that value (fully_drawn_ms for an app that never reports it, say; the frame figures of a run
// whose frames were not read).
struct LaunchSummaries {
  int64_t recorded = 0;  // every launch stored, warm-ups included
  int64_t valid = 0;     // valid launches the statistics count (warm-ups are not)
  int64_t warmup = 0;    // warm-up launches, left out of every statistic
  std::optional<analysis::Summary> displayed_ms;
  std::optional<analysis::Summary> fully_drawn_ms;
  std::optional<analysis::Summary> total_time_ms;
  // The jank figures of the same iterations (run_summaries.h, SeriesMetrics).
  std::optional<analysis::Summary> frame_p90_ms;
  std::optional<analysis::Summary> frame_p99_ms;
  std::optional<analysis::Summary> janky_pct;
  std::optional<analysis::Summary> pss_kb;  // the app's total PSS at each iteration's end
};

// Pure: the summaries of `launches`, each with its iteration's rows from `tables`.
LaunchSummaries SummarizeLaunches(std::span<const store::Launch> launches,
                                  const IterationTables& tables = {});
// Pure: displayed_ms of the counted launches (valid, not warm-up), the metric a comparison
// judges.
std::vector<double> ValidDisplayedMs(std::span<const store::Launch> launches);

// What a comparison of two runs, and a series, count of `run`: a side-by-side run's candidate
// build's launches (by its plan, so an A/A of one build splits too), any other run's all.
// Pure; the caller still keeps only the counted ones (Launch::counted).
std::vector<store::Launch> MeasuredLaunches(const store::Run& run,
                                            std::vector<store::Launch> launches);

// A side-by-side run's launches split by build (orchestrator/run/side_by_side.h).
struct ArmSummaries {
  int64_t baseline_build = 0;
  int64_t candidate_build = 0;
  LaunchSummaries baseline;
  LaunchSummaries candidate;
};

// A run's app faults by kind (schema 0012), warm-ups included: a crash is news in any launch.
struct FaultCounts {
  int64_t anr = 0;
  int64_t crash = 0;
  int64_t native_crash = 0;
};

struct RunReport {
  store::Run run;
  FaultCounts faults;
  LaunchSummaries launches;  // every launch of the run (both builds of a side-by-side run)
  std::optional<ArmSummaries> arms;  // a side-by-side run
  std::optional<RunProgress> progress;  // while the run is running on this daemon's queue
};

// A side-by-side run's two builds, as a comparison of them names them.
struct SideBySideBuilds {
  int64_t baseline_build = 0;
  int64_t candidate_build = 0;
  int64_t block = 0;
};

struct RunComparison {
  store::Run candidate;
  store::Run baseline;
  std::string metric = "displayed_ms";  // a series metric (run_summaries.h)
  analysis::Comparison comparison;
  Comparability comparability;
  bool different_conditions_allowed = false;
  // Set when the comparison is of one side-by-side run's two builds (candidate and baseline
  // are then the same run): its build against its baseline_build.
  std::optional<SideBySideBuilds> side_by_side;
  // The runs differ in a way that moves launch times and nobody allowed it: no verdict
  // ("not_comparable"), whatever the statistics say.
  bool not_comparable() const {
    return !comparability.comparable && !different_conditions_allowed;
  }
};

class RunReports {
 public:
  // `queue` (may be null) gives running runs their progress. Both must outlive this.
  explicit RunReports(store::Store& store, const RunQueue* queue = nullptr);

  // kNotFound when there is no such run.
  boost::asio::awaitable<store::StoreResult<RunReport>> Report(int64_t run_id) const;

  // Run `run_id` against `baseline_run_id`, or — when that is null — a side-by-side run's build
  // against its baseline_build (its own launches, split by the plan), any other run against the
  // latest successful run before it of the same package, device model and mode (like with
  // like). A side-by-side run on either side of a comparison of two runs counts with its
  // candidate build's launches. kNotFound when either run is missing or there is no earlier run
  // to compare with, with a message that says which. Of `metric`, a series metric
  // (IsSeriesMetric; the caller checks).
  boost::asio::awaitable<store::StoreResult<RunComparison>> CompareWithBaseline(
      int64_t run_id, std::optional<int64_t> baseline_run_id,
      bool allow_different_conditions = false, std::string metric = "displayed_ms") const;

 private:
  store::AsyncStore store_;
  const RunQueue* queue_;
};

}  // namespace droidlab::orchestrator
