#include "orchestrator/lab/run_summaries.h"

#include <algorithm>
#include <array>
#include <boost/asio/this_coro.hpp>
#include <utility>

#include "analysis/statistics.h"
#include "orchestrator/lab/comparability.h"
#include "orchestrator/lab/run_reports.h"
#include "orchestrator/lab/side_by_side_launches.h"

namespace droidlab::orchestrator {

namespace {

namespace asio = boost::asio;

std::optional<double> AsDouble(std::optional<int64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

// hwui's "Janky frames" share: the figure `dumpsys gfxinfo` prints as "(x%)" beside the count.
std::optional<double> JankyPct(const store::IterationFrames& f) {
  if (!f.janky_frames || !f.total_frames || *f.total_frames <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(*f.janky_frames) / static_cast<double>(*f.total_frames);
}

constexpr std::array<SeriesMetric, 7> kSeriesMetrics{{
    {"displayed_ms", [](const IterationView& i) { return AsDouble(i.launch.displayed_ms); }},
    {"fully_drawn_ms", [](const IterationView& i) { return AsDouble(i.launch.fully_drawn_ms); }},
    {"total_time_ms", [](const IterationView& i) { return AsDouble(i.launch.total_time_ms); }},
    {"frame_p90_ms",
     [](const IterationView& i) { return i.frames ? i.frames->p90_ms : std::nullopt; }},
    {"frame_p99_ms",
     [](const IterationView& i) { return i.frames ? i.frames->p99_ms : std::nullopt; }},
    {"janky_pct",
     [](const IterationView& i) { return i.frames ? JankyPct(*i.frames) : std::nullopt; }},
    {"pss_kb",
     [](const IterationView& i) {
       return i.memory ? AsDouble(i.memory->total_pss_kb) : std::nullopt;
     }},
}};

// `rows` by iteration, for a binary search (the store lists them in order; tests may not).
template <class Row>
std::vector<const Row*> ByIteration(std::span<const Row> rows) {
  std::vector<const Row*> out;
  out.reserve(rows.size());
  for (const Row& r : rows) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(),
                   [](const Row* a, const Row* b) { return a->iteration < b->iteration; });
  return out;
}

template <class Row>
const Row* RowOf(std::span<const Row* const> sorted, int64_t iteration) {
  const auto at = std::lower_bound(sorted.begin(), sorted.end(), iteration,
                                   [](const Row* r, int64_t i) { return r->iteration < i; });
  if (at == sorted.end() || (*at)->iteration != iteration) return nullptr;
  return *at;
}

// On a reader thread: the run's summaries, or the error that stopped the reading.
store::StoreResult<std::vector<store::RunSummary>> ReadAndSummarize(store::Reader& r,
                                                                    int64_t run_id) {
  auto run = r.GetRun(run_id);
  if (!run) return run.error();
  auto launches = r.ListLaunches(run_id);
  if (!launches) return launches.error();
  auto tables = ReadIterationTables(r, run_id);
  if (!tables) return tables.error();
  return SummarizeRunForSeries(*run, std::move(*launches), *tables);
}

// One page of the back-fill, on a reader thread.
struct BackfillPage {
  std::vector<store::RunSummary> summaries;
  int64_t runs = 0;
  int64_t last_run_id = 0;
};

store::StoreResult<BackfillPage> ReadBackfillPage(store::Reader& r, int64_t after, int64_t page) {
  auto ids = r.RunsWithoutSummaries(after, page);
  if (!ids) return ids.error();
  BackfillPage out;
  out.last_run_id = after;
  for (int64_t id : *ids) {
    auto summaries = ReadAndSummarize(r, id);
    out.last_run_id = id;
    // A run deleted by retention since the page was listed has nothing left to summarise.
    if (!summaries && summaries.error().code == store::StoreErrorCode::kNotFound) continue;
    if (!summaries) return summaries.error();
    for (auto& s : *summaries) out.summaries.push_back(std::move(s));
    ++out.runs;
  }
  return out;
}

}  // namespace

store::StoreResult<IterationTables> ReadIterationTables(store::Reader& r, int64_t run_id) {
  IterationTables tables;
  auto frames = r.ListIterationFrameFigures(run_id);
  if (!frames) return frames.error();
  auto memory = r.ListIterationMemory(run_id);
  if (!memory) return memory.error();
  tables.frames = std::move(*frames);
  tables.memory = std::move(*memory);
  return tables;
}

std::span<const SeriesMetric> SeriesMetrics() { return kSeriesMetrics; }

bool IsSeriesMetric(std::string_view name) {
  for (const SeriesMetric& m : kSeriesMetrics) {
    if (m.name == name) return true;
  }
  return false;
}

std::string SeriesMetricNames() {
  std::string names;
  for (const SeriesMetric& m : kSeriesMetrics) {
    if (!names.empty()) names += ", ";
    names += m.name;
  }
  return names;
}

std::vector<double> CountedMetricValues(std::string_view metric,
                                        std::span<const store::Launch> launches,
                                        const IterationTables& tables) {
  std::vector<double> values;
  for (const SeriesMetric& m : kSeriesMetrics) {
    if (m.name != metric) continue;
    const auto frames = ByIteration(std::span<const store::IterationFrames>(tables.frames));
    const auto memory = ByIteration(std::span<const store::IterationMemory>(tables.memory));
    for (const store::Launch& l : launches) {
      if (!l.counted()) continue;
      const IterationView iteration{
          l, RowOf(std::span<const store::IterationFrames* const>(frames), l.iteration),
          RowOf(std::span<const store::IterationMemory* const>(memory), l.iteration)};
      if (auto v = m.value(iteration)) values.push_back(*v);
    }
  }
  return values;
}

std::vector<store::RunSummary> SummarizeRunForSeries(
    const store::Run& run, std::vector<store::Launch> launches,
    const IterationTables& tables) {
  // A calibration run (an A/A of one build) is the noise floor's, no point of the series.
  const std::optional<RunSpec> side_by_side = SideBySideSpec(run);
  if (side_by_side && side_by_side->calibration) launches.clear();
  const std::vector<store::Launch> measured = MeasuredLaunches(run, std::move(launches));
  const MeasuredConditions conditions = MeasuredConditionsOf(run);
  const int64_t hot_launches = LaunchesMeasuredTooHot(run, measured);
  std::vector<store::RunSummary> out;
  for (const SeriesMetric& metric : kSeriesMetrics) {
    const std::vector<double> values = CountedMetricValues(metric.name, measured, tables);
    store::RunSummary s;
    s.run_id = run.id;
    s.metric = std::string(metric.name);
    s.t = run.created_at;
    s.build_id = conditions.build_id;
    s.version_code = conditions.version_code;
    s.fingerprint = conditions.fingerprint;
    s.compilation = conditions.compilation;
    s.hot_launches = hot_launches;
    if (!values.empty()) {
      const analysis::Summary summary = analysis::Summarize(values);
      s.count = static_cast<int64_t>(summary.count);
      s.median = summary.median;
      s.p90 = summary.p90;
      if (summary.median_ci) {
        s.ci_low = summary.median_ci->lower;
        s.ci_high = summary.median_ci->upper;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

asio::awaitable<store::Status> RecordRunSummaries(store::AsyncStore store, int64_t run_id) {
  auto summarize = [run_id](store::Reader& r) { return ReadAndSummarize(r, run_id); };
  auto summarizing = store.Read(summarize);
  auto summaries = co_await std::move(summarizing);
  if (!summaries) co_return summaries.error();
  auto storing = store.AddRunSummaries(std::move(*summaries));
  co_return co_await std::move(storing);
}

asio::awaitable<BackfillResult> BackfillRunSummaries(store::AsyncStore store, int64_t page) {
  co_await asio::this_coro::throw_if_cancelled(false);
  BackfillResult result;
  int64_t after = 0;
  for (;;) {
    auto read_page = [after, page](store::Reader& r) { return ReadBackfillPage(r, after, page); };
    auto reading = store.Read(read_page);
    auto next = co_await std::move(reading);
    if (!next) {
      result.error = next.error().message;
      co_return result;
    }
    if (next->last_run_id == after) co_return result;  // none left
    after = next->last_run_id;
    if (!next->summaries.empty()) {
      auto storing = store.AddRunSummaries(std::move(next->summaries));
      const store::Status stored = co_await std::move(storing);
      if (!stored) {
        result.error = stored.error().message;
        co_return result;
      }
    }
    result.runs += next->runs;
    if ((co_await asio::this_coro::cancellation_state).cancelled() !=
        asio::cancellation_type::none) {
      co_return result;
    }
  }
}

}  // namespace droidlab::orchestrator
