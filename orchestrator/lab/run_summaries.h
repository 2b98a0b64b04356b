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
#include "store/reader.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// What a run stored per iteration beside its launches, as the metrics read it: each iteration's
// frame figures (without the rows) and its memory.
struct IterationTables {
  std::vector<store::IterationFrames> frames;
  std::vector<store::IterationMemory> memory;
};

// Reads run `run_id`'s (on a reader thread).
store::StoreResult<IterationTables> ReadIterationTables(store::Reader& r, int64_t run_id);

// One iteration as a metric sees it: its launch and, when they were read, its frames and memory.
struct IterationView {
  const store::Launch& launch;
  const store::IterationFrames* frames = nullptr;
  const store::IterationMemory* memory = nullptr;
};

// A metric a series can be of, and how an iteration gives it. A later per-iteration metric
// (memory) is one more entry here with its own source; the store keeps one row per metric.
struct SeriesMetric {
  std::string_view name;
  std::optional<double> (*value)(const IterationView& iteration);
};

// displayed_ms, fully_drawn_ms, total_time_ms (the launch); frame_p90_ms, frame_p99_ms (the
// 90th / 99th percentile of the iteration's counted framestats rows, analysis/frames.h) and
// janky_pct (hwui's own "Janky frames" over "Total frames rendered", in %) — the jank figures;
// pss_kb (the app's total PSS at the iteration's end, dumpsys meminfo).
std::span<const SeriesMetric> SeriesMetrics();
bool IsSeriesMetric(std::string_view name);
// "displayed_ms, fully_drawn_ms, …": for the messages that refuse another name.
std::string SeriesMetricNames();
// Pure: the values of series metric `metric` over the counted launches among `launches` (none
// when `metric` is no series metric), each with its iteration's rows from `tables` (any order;
// an iteration without frames or memory gives no value of their metrics) — what a run's
// summary, a comparison and a history verdict are of.
std::vector<double> CountedMetricValues(std::string_view metric,
                                        std::span<const store::Launch> launches,
                                        const IterationTables& tables = {});

// Pure: a run's summary per metric (every metric, count 0 where no counted launch has it), over
// its counted launches — valid, not warm-ups, and of a side-by-side run only the candidate
// build's (MeasuredLaunches); none of a calibration run's — with analysis::Summarize; the
// conditions from the run (MeasuredConditionsOf).
std::vector<store::RunSummary> SummarizeRunForSeries(
    const store::Run& run, std::vector<store::Launch> launches,
    const IterationTables& tables = {});

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
