// Run summaries: each succeeded run summarised per metric and stored (schema 0009), so that a
// series (GET /api/v1/series) is one range read instead of the medians and bootstrap CIs of
// 10,000 runs computed per request (~1.5 ms a run: 15 s).
//
// A run is summarised once, when it succeeds (RunQueue, before its end is announced), from what
// the store holds; runs that succeeded before the migration — or whose summary a stopped daemon
// never wrote — are summarised by BackfillRunSummaries, which the daemon starts at start-up.
// Both go through the store's one writer; the summarising itself runs on a reader thread.
//
// Threading: the coroutines may be awaited on any executor; store reads and the statistics run
// on the store's reader threads, writes on its writer; the caller resumes where it started.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/async_store.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// A metric a series can be of, and how a launch gives it. A later per-run metric (jank,
// memory) is one more entry here with its own source; the store keeps one row per metric.
struct SeriesMetric {
  std::string_view name;
  std::optional<int64_t> (*value)(const store::Launch& launch);
};

// displayed_ms, fully_drawn_ms, total_time_ms.
std::span<const SeriesMetric> SeriesMetrics();
bool IsSeriesMetric(std::string_view name);
// "displayed_ms, fully_drawn_ms, total_time_ms": for the messages that refuse another name.
std::string SeriesMetricNames();
// Pure: the values of series metric `metric` over the counted launches among `launches` (none
// when `metric` is no series metric) — what a run's summary and its history verdict are of.
std::vector<double> CountedMetricValues(std::string_view metric,
                                        std::span<const store::Launch> launches);

// Pure: a run's summary per metric (every metric, count 0 where no counted launch has it), over
// its counted launches — valid, not warm-ups, and of a side-by-side run only the candidate
// build's (MeasuredLaunches); none of a calibration run's — with analysis::Summarize; the
// conditions from the run (MeasuredConditionsOf).
std::vector<store::RunSummary> SummarizeRunForSeries(const store::Run& run,
                                                     std::vector<store::Launch> launches);

// Reads run `run_id` and its launches, summarises them and stores the summaries (durably).
boost::asio::awaitable<store::Status> RecordRunSummaries(store::AsyncStore store, int64_t run_id);

struct BackfillResult {
  int64_t runs = 0;                  // runs summarised
  std::optional<std::string> error;  // the store error that stopped it
};

// Summarises every succeeded run that has no summary, `page` runs per trip to the reader and
// per write, oldest first, until none is left or the caller's cancellation (checked between
// pages) stops it.
boost::asio::awaitable<BackfillResult> BackfillRunSummaries(store::AsyncStore store,
                                                            int64_t page = 100);

}  // namespace droidlab::orchestrator
