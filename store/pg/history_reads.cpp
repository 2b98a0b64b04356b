// PgReader's queries of a run's per-iteration measurements (schema 0011-0014) and of run
// summaries and series (0009): ../reader.cpp's, on PostgreSQL.
#include <string>
#include <utility>
#include <vector>

#include "store/pg/reader.h"
#include "store/pg/result_row.h"
#include "store/pg/sql/iteration_faults.h"
#include "store/pg/sql/iteration_frames.h"
#include "store/pg/sql/iteration_memory.h"
#include "store/pg/sql/run_summaries.h"

namespace droidlab::store::pg {

namespace {

IterationFrames ReadIterationFrames(ResultRow& row) {
  IterationFrames f;
  for (int64_t* v : {&f.run_id, &f.iteration}) row.Get(*v);
  for (std::optional<int64_t>* v : {&f.total_frames, &f.janky_frames, &f.gfx_p50_ms, &f.gfx_p90_ms,
                                    &f.gfx_p95_ms, &f.gfx_p99_ms}) {
    row.Get(*v);
  }
  for (int64_t* v : {&f.frame_rows, &f.counted, &f.refresh_period_ns}) row.Get(*v);
  for (std::optional<double>* v : {&f.p50_ms, &f.p90_ms, &f.p95_ms, &f.p99_ms}) row.Get(*v);
  for (int64_t* v : {&f.over_16_7ms, &f.over_33ms, &f.over_50ms, &f.matrix_normal, &f.matrix_middle,
                     &f.matrix_high, &f.matrix_frozen, &f.dropped_frames, &f.jank, &f.big_jank}) {
    row.Get(*v);
  }
  row.Get(f.columns_json);
  row.Get(f.rows_json);
  for (std::optional<int64_t>* v : {&f.over_1_vsync, &f.over_2_vsyncs, &f.over_3_vsyncs}) {
    row.Get(*v);
  }
  return f;
}

IterationFault ReadIterationFault(ResultRow& row) {
  IterationFault f;
  row.Get(f.run_id);
  row.Get(f.iteration);
  row.Get(f.seq);
  row.Get(f.kind);
  row.Get(f.time);
  row.Get(f.at_ms);
  row.Get(f.pid);
  row.Get(f.process_name);
  row.Get(f.reason);
  // One text, a line each (measurement_writes.cpp), split as the SQLite reader splits it.
  const auto stack = row.Next<std::string>();
  for (size_t at = 0; at < stack.size();) {
    size_t end = stack.find('\n', at);
    if (end == std::string::npos) end = stack.size();
    f.stack.push_back(stack.substr(at, end - at));
    at = end + 1;
  }
  row.Get(f.duration_ms);
  return f;
}

IterationMemory ReadIterationMemory(ResultRow& row) {
  IterationMemory m;
  row.Get(m.run_id);
  row.Get(m.iteration);
  row.Get(m.pid);
  for (std::optional<int64_t>* v : {&m.total_pss_kb,     &m.total_rss_kb,   &m.total_swap_pss_kb,
                                    &m.java_heap_kb,     &m.native_heap_kb, &m.code_kb,
                                    &m.stack_kb,         &m.graphics_kb,    &m.private_other_kb,
                                    &m.system_kb,        &m.views,          &m.view_root_impl,
                                    &m.app_contexts,     &m.activities,     &m.assets,
                                    &m.asset_managers,   &m.local_binders,  &m.proxy_binders,
                                    &m.death_recipients, &m.webviews}) {
    row.Get(*v);
  }
  return m;
}

RunSummary ReadRunSummary(ResultRow& row) {
  RunSummary s;
  row.Get(s.run_id);
  row.Get(s.metric);
  row.Get(s.t);
  row.Get(s.count);
  for (std::optional<double>* v : {&s.median, &s.p90, &s.ci_low, &s.ci_high}) row.Get(*v);
  row.Get(s.build_id);
  row.Get(s.version_code);
  row.Get(s.fingerprint);
  row.Get(s.compilation);
  row.Get(s.hot_launches);
  return s;
}

// The rows of `sql` run with the one parameter `run_id`, each read by `read`.
template <class T, class ReadRow>
StoreResult<std::vector<T>> RowsOfRun(Connection& connection, const char* sql, int64_t run_id,
                                      ReadRow read, std::string_view what) {
  auto result = connection.Query(sql, Params().Int64(run_id), what);
  if (!result) return result.error();
  return CollectRows<T>(*result, read, what);
}

}  // namespace

StoreResult<std::vector<IterationFrames>> PgReader::ListIterationFrames(int64_t run_id) {
  return RowsOfRun<IterationFrames>(connection_, sql::kIterationFramesOfRun, run_id,
                                    ReadIterationFrames, "listing a run's frames");
}

StoreResult<std::vector<IterationFrames>> PgReader::ListIterationFrameFigures(int64_t run_id) {
  return RowsOfRun<IterationFrames>(connection_, sql::kIterationFrameFiguresOfRun, run_id,
                                    ReadIterationFrames, "listing a run's frame figures");
}

StoreResult<std::vector<IterationFault>> PgReader::ListIterationFaults(int64_t run_id) {
  return RowsOfRun<IterationFault>(connection_, sql::kIterationFaultsOfRun, run_id,
                                   ReadIterationFault, "listing a run's faults");
}

StoreResult<std::vector<IterationMemory>> PgReader::ListIterationMemory(int64_t run_id) {
  return RowsOfRun<IterationMemory>(connection_, sql::kIterationMemoryOfRun, run_id,
                                    ReadIterationMemory, "listing a run's memory");
}

StoreResult<std::vector<RunSummary>> PgReader::Series(const SeriesQuery& query) {
  // run_summaries files a run whose model was unknown under '' (0009_run_summaries.sql).
  Params p;
  p.Text(query.package).Text(query.device_model.value_or(std::string())).Text(query.mode);
  p.Text(query.metric).Int64(query.since).Int64(query.until);
  auto result = connection_.Query(sql::kSeries, p, "reading a series");
  if (!result) return result.error();
  return CollectRows<RunSummary>(*result, ReadRunSummary, "reading a series");
}

StoreResult<std::vector<SeriesKey>> PgReader::SeriesOfPackage(std::string_view package) {
  const std::string_view what = "listing a package's series";
  auto result = connection_.Query(sql::kSeriesOfPackage, Params().Text(package), what);
  if (!result) return result.error();
  return CollectRows<SeriesKey>(
      *result,
      [](ResultRow& row) {
        SeriesKey key;
        auto model = row.Next<std::string>();
        if (!model.empty()) key.device_model = std::move(model);
        row.Get(key.mode);
        row.Get(key.metric);
        row.Get(key.points);
        row.Get(key.first_t);
        row.Get(key.last_t);
        return key;
      },
      what);
}

StoreResult<std::vector<RunSummary>> PgReader::RunSummaries(int64_t run_id) {
  return RowsOfRun<RunSummary>(connection_, sql::kRunSummariesOfRun, run_id, ReadRunSummary,
                               "reading a run's summaries");
}

StoreResult<std::vector<int64_t>> PgReader::RunsWithoutSummaries(int64_t after_run_id,
                                                                 int64_t limit) {
  const std::string_view what = "finding runs without a summary";
  auto result = connection_.Query(sql::kRunsWithoutSummaries,
                                  Params().Int64(after_run_id).Int64(limit), what);
  if (!result) return result.error();
  return CollectRows<int64_t>(
      *result, [](ResultRow& row) { return row.Next<int64_t>(); }, what);
}

}  // namespace droidlab::store::pg
