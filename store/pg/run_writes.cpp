#include "store/pg/run_writes.h"

#include <array>
#include <cmath>
#include <string>

#include "store/looper_stats_columns.h"
#include "store/pg/sql/launches.h"
#include "store/pg/sql/proc_samples.h"
#include "store/pg/sql/runs.h"
#include "store/run_ended.h"

namespace droidlab::store::pg::writes {

namespace {

template <size_t N>
std::vector<std::string> ColumnList(const std::array<const char*, N>& columns) {
  return std::vector<std::string>(columns.begin(), columns.end());
}

// A record's member as one COPY field. The 0 / 1 columns are BIGINT, as SQLite's: a bool goes
// as an integer (COPY's text format would read "t" into a BIGINT as an error).
void CopyField(CopyIn& copy, int64_t value) { copy.Int64(value); }
void CopyField(CopyIn& copy, bool value) { copy.Int64(value ? 1 : 0); }
// SQLite stores a NaN bound as a double as NULL; so does this, so both read back nullopt.
void CopyField(CopyIn& copy, double value) {
  if (std::isnan(value)) {
    copy.Null();
  } else {
    copy.Double(value);
  }
}
void CopyField(CopyIn& copy, const std::string& value) { copy.Text(value); }
template <class T>
void CopyField(CopyIn& copy, const std::optional<T>& value) {
  if (value) {
    CopyField(copy, *value);
  } else {
    copy.Null();
  }
}

// COPY `table` (`columns`) of `rows`, each written by `write(CopyIn&, const Row&)`.
template <class Row, class Write>
Status CopyRows(Connection& db, std::string_view table, const std::vector<std::string>& columns,
                const std::vector<Row>& rows, Write write, const std::string& what) {
  if (rows.empty()) return OkStatus();
  auto copy = db.BeginCopy(table, columns, what);
  if (!copy) return copy.error();
  for (const Row& row : rows) {
    write(*copy, row);
    if (auto s = copy->EndRow(); !s) return s;
  }
  auto copied = copy->Finish();
  if (!copied) return copied.error();
  return OkStatus();
}

}  // namespace

StoreResult<int64_t> InsertRun(Connection& db, const NewRun& run) {
  Params params;
  params.Text(run.spec_json)
      .Text(run.serial)
      .Optional(run.device_model)
      .Text(run.package)
      .Optional(run.activity)
      .Text(run.mode)
      .Int64(run.iterations)
      .Int64(run.created_at)
      .Optional(run.schedule_id)
      .Int64(run.pool ? 1 : 0);  // BIGINT 0 / 1, as SQLite's
  if (run.pool) {
    params.Optional(run.pool->model).Optional(run.pool->sdk);
  } else {
    params.Null().Null();
  }
  auto result = db.Query(
      sql::kInsertRun, params,
      "queuing a run of " + run.package + " on " + (run.pool ? std::string("a pool") : run.serial));
  if (!result) return result.error();
  auto id = result->Int64(0, "id");
  if (!id || !run.pool) return id;
  for (const std::string& label : run.pool->labels) {
    Params label_params;
    label_params.Int64(*id).Text(label);
    auto stored = db.Query(sql::kInsertPoolLabel, label_params,
                           "storing the pool labels of run " + std::to_string(*id));
    if (!stored) return stored.error();
  }
  return id;
}

Status UpdateRunStatus(Connection& db, const RunStatusUpdate& update) {
  const std::string what =
      "setting run " + std::to_string(update.run_id) + " to " + RunStatusName(update.status);
  Params params;
  params.Int64(update.run_id)
      .Text(RunStatusName(update.status))
      .Optional(update.error)
      .Optional(update.started_at)
      .Optional(update.finished_at)
      .Optional(update.fingerprint)
      .Optional(update.preflight_json);
  auto result = db.Query(sql::kUpdateRunStatus, params, what);
  if (!result) return result.error();
  if (result->affected() > 0) return OkStatus();
  Params id;
  id.Int64(update.run_id);
  auto status = db.Query(sql::kRunStatusOf, id, what);
  if (!status) return status.error();
  std::optional<std::string> ended;
  if (status->rows() > 0) {
    auto text = status->Text(0, "status");
    if (!text) return text.error();
    ended = *text;
  }
  return RunEndedOrMissing(what, ended);
}

StoreResult<int64_t> InterruptRunningRuns(Connection& db, std::string_view reason, int64_t now_ms) {
  Params params;
  params.Text(reason).Int64(now_ms);
  auto result = db.Query(sql::kInterruptRunning, params, "marking running runs interrupted");
  if (!result) return result.error();
  return result->affected();
}

Status InsertLaunches(Connection& db, const std::vector<Launch>& launches) {
  static const std::vector<std::string> kColumns = ColumnList(sql::kLaunchCopyColumns);
  // Named as SQLite names the row it stores ("storing launch 3 of run 7"); a refused key among
  // several is then named by the server's DETAIL ("Key (run_id, iteration)=(7, 3)").
  std::string what;
  if (launches.size() == 1) {
    what = "storing launch " + std::to_string(launches.front().iteration) + " of run " +
           std::to_string(launches.front().run_id);
  } else if (!launches.empty()) {
    what = "storing launches " + std::to_string(launches.front().iteration) + " to " +
           std::to_string(launches.back().iteration) + " of run " +
           std::to_string(launches.front().run_id);
  }
  return CopyRows(
      db, "launches", kColumns, launches,
      [](CopyIn& copy, const Launch& l) {
        CopyField(copy, l.run_id);
        CopyField(copy, l.iteration);
        CopyField(copy, l.displayed_ms);
        CopyField(copy, l.fully_drawn_ms);
        CopyField(copy, l.total_time_ms);
        CopyField(copy, l.wait_time_ms);
        CopyField(copy, l.launch_state);
        CopyField(copy, l.pid);
        CopyField(copy, l.intent_at_ms);
        CopyField(copy, l.fork_at_ms);
        CopyField(copy, l.displayed_at_ms);
        CopyField(copy, l.valid);
        CopyField(copy, l.invalid_reason);
        CopyField(copy, l.warmup);
        CopyField(copy, l.thermal_status);
        CopyField(copy, l.battery_temp_tenths_c);
        CopyField(copy, l.cooldown_wait_ms);
        CopyField(copy, l.build_id);
      },
      what);
}

Status InsertLooperStats(Connection& db, const std::vector<LooperStatsRow>& rows) {
  static const std::vector<std::string> kColumns = [] {
    std::vector<std::string> names;
    ForEachLooperRowColumn([&](const auto& column, int) { names.emplace_back(column.name); });
    return names;
  }();
  const std::string what =
      rows.empty() ? std::string()
                   : "storing looper stats of run " + std::to_string(rows.front().run_id);
  return CopyRows(
      db, "looper_stats", kColumns, rows,
      [](CopyIn& copy, const LooperStatsRow& r) {
        ForEachLooperRowColumn([&](const auto& column, int) { CopyField(copy, r.*column.member); });
      },
      what);
}

Status InsertProcSamples(Connection& db, const std::vector<ProcSample>& samples) {
  static const std::vector<std::string> kColumns = ColumnList(sql::kProcSampleCopyColumns);
  const std::string what =
      samples.empty() ? std::string()
                      : "storing proc samples of run " + std::to_string(samples.front().run_id);
  return CopyRows(
      db, "proc_samples", kColumns, samples,
      [](CopyIn& copy, const ProcSample& p) {
        CopyField(copy, p.run_id);
        CopyField(copy, p.t_ms);
        CopyField(copy, p.pid);
        CopyField(copy, p.utime);
        CopyField(copy, p.stime);
        CopyField(copy, p.cpu_pct);
        CopyField(copy, p.rss_kb);
        CopyField(copy, p.num_threads);
      },
      what);
}

Status DeleteRunAndRows(Connection& db, int64_t run_id) {
  Params params;
  params.Int64(run_id);
  auto result = db.Query(sql::kDeleteRunAndRows, params, "deleting run " + std::to_string(run_id));
  if (!result) return result.error();
  return OkStatus();
}

}  // namespace droidlab::store::pg::writes
