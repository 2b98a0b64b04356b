// PgReader's reads of devices (with their health and events), runs, their high-rate rows, the
// launch history, schedules and restores (the rest: history_reads.cpp, build_reads.cpp,
// alert_reads.cpp). Each is the SQLite Reader's (../reader.cpp): same results in the same order,
// same cursors, same errors.
#include "store/pg/reader.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "store/looper_stats_columns.h"
#include "store/pg/result_row.h"
#include "store/pg/sql/audit_log.h"
#include "store/pg/sql/device_health.h"
#include "store/pg/sql/device_restores.h"
#include "store/pg/sql/devices.h"
#include "store/pg/sql/launches.h"
#include "store/pg/sql/looper_stats.h"
#include "store/pg/sql/proc_samples.h"
#include "store/pg/sql/runs.h"
#include "store/pg/sql/schedules.h"

namespace droidlab::store::pg {

namespace {

Run ReadRun(ResultRow& row) {
  Run run;
  run.id = row.Int64("id");
  run.spec_json = row.Text("spec");
  run.serial = row.Text("serial");
  run.device_model = row.OptionalText("device_model");
  run.package = row.Text("package");
  run.activity = row.OptionalText("activity");
  run.mode = row.Text("mode");
  run.iterations = row.Int64("iterations");
  run.status = RunStatusFromName(row.Text("status")).value_or(RunStatus::kFailed);
  run.error = row.OptionalText("error");
  run.created_at = row.Int64("created_at");
  run.started_at = row.OptionalInt64("started_at");
  run.finished_at = row.OptionalInt64("finished_at");
  run.schedule_id = row.OptionalInt64("schedule_id");
  run.fingerprint = row.OptionalText("fingerprint");
  run.preflight_json = row.OptionalText("preflight");
  run.host = row.OptionalText("host");
  run.lease_until = row.OptionalInt64("lease_until");
  run.cancel_requested = row.Int64("cancel_requested") != 0;
  run.pool = row.Int64("pool") != 0;
  return run;
}

Device ReadDevice(ResultRow& row) {
  Device device;
  device.serial = row.Text("serial");
  device.model = row.OptionalText("model");
  device.manufacturer = row.OptionalText("manufacturer");
  device.sdk = row.OptionalInt64("sdk");
  device.release = row.OptionalText("release");
  device.abi = row.OptionalText("abi");
  device.fingerprint = row.OptionalText("fingerprint");
  device.state = row.Text("state");
  device.first_seen = row.Int64("first_seen");
  device.last_seen = row.Int64("last_seen");
  device.host = row.OptionalText("host");
  device.labels = SplitDeviceLabels(row.OptionalText("labels"));
  device.quarantined_at = row.OptionalInt64("quarantined_at");
  device.quarantine_reason = row.OptionalText("quarantine_reason");
  return device;
}

Launch ReadLaunch(ResultRow& row) {
  Launch launch;
  launch.run_id = row.Int64("run_id");
  launch.iteration = row.Int64("iteration");
  launch.displayed_ms = row.OptionalInt64("displayed_ms");
  launch.fully_drawn_ms = row.OptionalInt64("fully_drawn_ms");
  launch.total_time_ms = row.OptionalInt64("total_time_ms");
  launch.wait_time_ms = row.OptionalInt64("wait_time_ms");
  launch.launch_state = row.OptionalText("launch_state");
  launch.pid = row.OptionalInt64("pid");
  launch.intent_at_ms = row.OptionalInt64("intent_at_ms");
  launch.fork_at_ms = row.OptionalInt64("fork_at_ms");
  launch.displayed_at_ms = row.OptionalInt64("displayed_at_ms");
  launch.valid = row.Flag("valid");
  launch.invalid_reason = row.OptionalText("invalid_reason");
  launch.warmup = row.Flag("warmup");
  launch.thermal_status = row.OptionalText("thermal_status");
  launch.battery_temp_tenths_c = row.OptionalInt64("battery_temp_tenths_c");
  launch.cooldown_wait_ms = row.OptionalInt64("cooldown_wait_ms");
  launch.build_id = row.OptionalInt64("build_id");
  return launch;
}

LooperStatsRow ReadLooperStatsRow(ResultRow& row) {
  LooperStatsRow stats;
  ForEachLooperRowColumn(
      [&](const auto& column, int) { row.Read(column.name, stats.*column.member); });
  return stats;
}

ProcSample ReadProcSample(ResultRow& row) {
  ProcSample sample;
  sample.run_id = row.Int64("run_id");
  sample.t_ms = row.Int64("t_ms");
  sample.pid = row.Int64("pid");
  sample.utime = row.Int64("utime");
  sample.stime = row.Int64("stime");
  sample.cpu_pct = row.OptionalDouble("cpu_pct");
  sample.rss_kb = row.Int64("rss_kb");
  sample.num_threads = row.Int64("num_threads");
  return sample;
}

Schedule ReadSchedule(ResultRow& row) {
  Schedule schedule;
  schedule.id = row.Int64("id");
  schedule.cron = row.Text("cron");
  schedule.timezone = row.Text("timezone");
  schedule.run_spec_json = row.Text("run_spec");
  schedule.enabled = row.Flag("enabled");
  schedule.last_fired_at = row.OptionalInt64("last_fired_at");
  schedule.created_at = row.Int64("created_at");
  return schedule;
}

DeviceRestore ReadDeviceRestore(ResultRow& row) {
  DeviceRestore restore;
  restore.id = row.Int64("id");
  restore.serial = row.Text("serial");
  restore.kind = row.Text("kind");
  restore.name = row.Text("name");
  restore.previous = row.OptionalText("previous");
  restore.run_id = row.OptionalInt64("run_id");
  restore.created_at = row.Int64("created_at");
  restore.paid_at = row.OptionalInt64("paid_at");
  return restore;
}

// The first row of `result` read with `read`, or nullopt when there is none.
template <class T, class Read>
StoreResult<std::optional<T>> OneRow(const Result& result, Read read, std::string_view what) {
  if (result.rows() == 0) return std::optional<T>();
  ResultRow row(result, 0);
  T value = read(row);
  if (auto s = row.status(what); !s) return s.error();
  return std::optional<T>(std::move(value));
}

// The query's rows read with `read`.
template <class T, class Read>
StoreResult<std::vector<T>> QueryRows(Connection& db, const char* sql, const Params& params,
                                      Read read, std::string_view what) {
  auto result = db.Query(sql, params, what);
  if (!result) return result.error();
  return CollectRows<T>(*result, read, what);
}

// SQLite's LIMIT -1 (or any negative: no limit) is PostgreSQL's LIMIT NULL; a negative LIMIT is
// an error there.
void AddLimit(Params& params, int64_t limit) {
  if (limit < 0) {
    params.Null();
  } else {
    params.Int64(limit);
  }
}

// A page of one run's rows by keyset, as ../reader.cpp's PageOfRows: `sql` takes the run as $1,
// the key of the last row sent as $2..$(1 + Keys) and the limit after them, and selects the
// key as the columns `key_columns`. The cursor is `prefix` and each key in 16 hex digits.
template <class Row, size_t Keys, class ReadRow>
StoreResult<RowPage<Row>> PageOfRows(Connection& db, const char* sql, int64_t run_id,
                                     const RowPageQuery& query, std::string_view prefix,
                                     const std::array<const char*, Keys>& key_columns, ReadRow read,
                                     std::string_view what) {
  std::array<int64_t, Keys> after;
  after.fill(std::numeric_limits<int64_t>::min());
  if (!query.cursor.empty() && !DecodeKeyCursor(query.cursor, prefix, after)) {
    return NotACursorOfThisList(query.cursor);
  }
  Params params;
  params.Int64(run_id);
  for (int64_t key : after) params.Int64(key);
  // One more than asked tells whether there is a next page.
  AddLimit(params, query.limit < 0 ? -1 : query.limit + 1);
  auto result = db.Query(sql, params, what);
  if (!result) return result.error();
  RowPage<Row> page;
  for (int r = 0; r < result->rows(); ++r) {
    if (query.limit >= 0 && page.rows.size() == static_cast<size_t>(query.limit)) {
      // A row past the page: the cursor is the key of the page's last row, kept in `after`.
      page.next_cursor = EncodeKeyCursor(prefix, after);
      return page;
    }
    ResultRow row(*result, r);
    page.rows.push_back(read(row));
    for (size_t k = 0; k < Keys; ++k) after[k] = row.Int64(key_columns[k]);
    if (auto s = row.status(what); !s) return s.error();
  }
  return page;
}

constexpr std::array<const char*, 1> kIterationKey = {"iteration"};
constexpr std::array<const char*, 1> kRowidKey = {"rowid"};
constexpr std::array<const char*, 2> kTimeAndRowidKey = {"t_ms", "rowid"};

}  // namespace

StoreResult<std::vector<Device>> PgReader::ListDevices() {
  return QueryRows<Device>(connection_, sql::kDevices, Params(), ReadDevice, "listing devices");
}

StoreResult<Device> PgReader::GetDevice(std::string_view serial) {
  Params params;
  params.Text(serial);
  auto result = connection_.Query(sql::kDeviceBySerial, params, "reading a device");
  if (!result) return result.error();
  auto device = OneRow<Device>(*result, ReadDevice, "reading a device");
  if (!device) return device.error();
  if (!*device) {
    return MakeStoreError(StoreErrorCode::kNotFound,
                          "no device " + std::string(serial) + " has ever been seen");
  }
  return std::move(**device);
}

StoreResult<std::vector<Host>> PgReader::ListHosts() {
  return QueryRows<Host>(
      connection_, sql::kHosts, Params(),
      [](ResultRow& row) {
        Host host;
        host.name = row.Text("name");
        host.address = row.Text("address");
        host.version = row.Text("version");
        host.started_at = row.Int64("started_at");
        host.heartbeat_at = row.Int64("heartbeat_at");
        return host;
      },
      "listing hosts");
}

StoreResult<std::vector<DeviceHealthSample>> PgReader::ListDeviceHealth(std::string_view serial,
                                                                        int64_t since,
                                                                        int64_t limit) {
  if (auto s = CheckDeviceHistoryLimit(limit); !s) return s.error();
  Params params;
  params.Text(serial).Int64(since).Int64(limit);
  return QueryRows<DeviceHealthSample>(
      connection_, sql::kDeviceHealth, params,
      [](ResultRow& row) {
        DeviceHealthSample sample;
        sample.id = row.Int64("id");
        sample.serial = row.Text("serial");
        sample.host = row.Text("host");
        sample.at = row.Int64("at");
        sample.battery_level = row.OptionalInt64("battery_level");
        sample.battery_temp = row.OptionalInt64("battery_temp");
        sample.thermal_status = row.OptionalInt64("thermal_status");
        sample.uptime_ms = row.OptionalInt64("uptime_ms");
        sample.adb_commands = row.Int64("adb_commands");
        sample.adb_errors = row.Int64("adb_errors");
        sample.adb_ms = row.Int64("adb_ms");
        return sample;
      },
      "listing the health of a device");
}

StoreResult<std::vector<DeviceEvent>> PgReader::ListDeviceEvents(std::string_view serial,
                                                                 int64_t limit) {
  if (auto s = CheckDeviceHistoryLimit(limit); !s) return s.error();
  Params params;
  params.Text(serial).Int64(limit);
  return QueryRows<DeviceEvent>(
      connection_, sql::kDeviceEvents, params,
      [](ResultRow& row) {
        DeviceEvent event;
        event.id = row.Int64("id");
        event.serial = row.Text("serial");
        event.host = row.Text("host");
        event.at = row.Int64("at");
        event.kind = row.Text("kind");
        event.detail = row.Text("detail");
        return event;
      },
      "listing the events of a device");
}

StoreResult<AuditPage> PgReader::ListAudit(int64_t limit, std::string_view cursor) {
  auto before = AuditPageStart(limit, cursor);
  if (!before) return before.error();
  Params params;
  params.Int64(*before).Int64(limit + 1);  // one more tells whether there is a next page
  auto entries = QueryRows<AuditEntry>(
      connection_, sql::kAuditPage, params,
      [](ResultRow& row) {
        AuditEntry entry;
        entry.id = row.Int64("id");
        entry.at = row.Int64("at");
        entry.caller = row.Text("caller");
        entry.remote = row.Text("remote");
        entry.method = row.Text("method");
        entry.path = row.Text("path");
        entry.status = row.Int64("status");
        entry.location = row.OptionalText("location");
        return entry;
      },
      "listing the audit log");
  if (!entries) return entries.error();
  AuditPage page;
  page.entries = std::move(*entries);
  CutAuditPage(limit, page);
  return page;
}

StoreResult<std::vector<DeviceStateChange>> PgReader::ListDeviceStateChanges(
    std::string_view serial) {
  Params params;
  params.Text(serial);
  return QueryRows<DeviceStateChange>(
      connection_, sql::kDeviceStateChanges, params,
      [](ResultRow& row) {
        DeviceStateChange change;
        change.serial = row.Text("serial");
        change.state = row.Text("state");
        change.changed_at = row.Int64("changed_at");
        return change;
      },
      "listing device state changes");
}

StoreResult<RunPage> PgReader::ListRuns(const RunQuery& query) {
  if (query.limit < 1 || query.limit > 1000) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "limit must be between 1 and 1000, got " + std::to_string(query.limit));
  }
  int64_t cursor_at = std::numeric_limits<int64_t>::max();
  int64_t cursor_id = std::numeric_limits<int64_t>::max();
  if (!query.cursor.empty() && !DecodeRunCursor(query.cursor, cursor_at, cursor_id)) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "cursor \"" + query.cursor +
                              "\" is not one this server issued: pass next_cursor as returned");
  }
  Params params;
  params.Int64(query.since.value_or(std::numeric_limits<int64_t>::min()))
      .Int64(cursor_at)
      .Int64(cursor_id);
  if (query.status) {
    params.Text(RunStatusName(*query.status));
  } else {
    params.Null();
  }
  params.Optional(query.serial).Optional(query.package);
  params.Int64(query.limit + 1);  // one more tells whether there is a next page
  auto runs = QueryRows<Run>(connection_, sql::kRunsPage, params, ReadRun, "listing runs");
  if (!runs) return runs.error();
  RunPage page;
  page.runs = std::move(runs).value();
  if (page.runs.size() > static_cast<size_t>(query.limit)) {
    page.runs.pop_back();
    page.next_cursor = EncodeRunCursor(page.runs.back().created_at, page.runs.back().id);
  }
  return page;
}

StoreResult<Run> PgReader::GetRun(int64_t run_id) {
  Params params;
  params.Int64(run_id);
  auto result = connection_.Query(sql::kRunById, params, "reading a run");
  if (!result) return result.error();
  auto run = OneRow<Run>(*result, ReadRun, "reading a run");
  if (!run) return run.error();
  if (!*run) return MakeStoreError(StoreErrorCode::kNotFound, "no run " + std::to_string(run_id));
  return std::move(**run);
}

StoreResult<std::optional<Run>> PgReader::PreviousSuccessfulRun(
    std::string_view package, const std::optional<std::string>& device_model, std::string_view mode,
    int64_t before_created_at) {
  Params params;
  params.Text(package).Int64(before_created_at).Optional(device_model).Text(mode);
  auto result =
      connection_.Query(sql::kPreviousSuccessfulRun, params, "finding the previous successful run");
  if (!result) return result.error();
  return OneRow<Run>(*result, ReadRun, "finding the previous successful run");
}

StoreResult<std::vector<Run>> PgReader::CalibrationRuns(
    std::string_view package, const std::optional<std::string>& device_model,
    const std::optional<std::string>& mode, int limit) {
  Params params;
  params.Text(package).Optional(device_model).Optional(mode);
  AddLimit(params, limit);
  return QueryRows<Run>(connection_, sql::kCalibrationRuns, params, ReadRun,
                        "listing calibration runs");
}

StoreResult<RowPage<Launch>> PgReader::PageLaunches(int64_t run_id, const RowPageQuery& query) {
  return PageOfRows<Launch>(connection_, sql::kLaunchesOfRun, run_id, query, "i1", kIterationKey,
                            ReadLaunch, "listing a run's launches");
}

StoreResult<RowPage<LooperStatsRow>> PgReader::PageLooperStats(int64_t run_id,
                                                               const RowPageQuery& query) {
  return PageOfRows<LooperStatsRow>(connection_, sql::kLooperStatsOfRun, run_id, query, "e1",
                                    kRowidKey, ReadLooperStatsRow, "listing a run's looper stats");
}

StoreResult<RowPage<ProcSample>> PgReader::PageProcSamples(int64_t run_id,
                                                           const RowPageQuery& query) {
  return PageOfRows<ProcSample>(connection_, sql::kProcSamplesOfRun, run_id, query, "p1",
                                kTimeAndRowidKey, ReadProcSample, "listing a run's proc samples");
}

StoreResult<std::vector<Launch>> PgReader::ListLaunches(int64_t run_id) {
  auto page = PageLaunches(run_id, {});
  if (!page) return page.error();
  return std::move(page->rows);
}

StoreResult<std::vector<LooperStatsRow>> PgReader::ListLooperStats(int64_t run_id) {
  auto page = PageLooperStats(run_id, {});
  if (!page) return page.error();
  return std::move(page->rows);
}

StoreResult<std::vector<ProcSample>> PgReader::ListProcSamples(int64_t run_id) {
  auto page = PageProcSamples(run_id, {});
  if (!page) return page.error();
  return std::move(page->rows);
}

StoreResult<std::vector<LaunchHistoryPoint>> PgReader::LaunchHistory(
    const LaunchHistoryQuery& query) {
  constexpr std::string_view kWhat = "reading launch history";
  Params params;
  params.Text(query.package).Int64(query.since).Optional(query.device_model).Optional(query.mode);
  auto result = connection_.Query(sql::kLaunchHistory, params, kWhat);
  if (!result) return result.error();

  // One row a run, its launches summarised by the server (sql::kLaunchHistory).
  std::vector<LaunchHistoryPoint> points;
  points.reserve(static_cast<size_t>(result->rows()));
  for (int r = 0; r < result->rows(); ++r) {
    ResultRow row(*result, r);
    LaunchHistoryPoint& p = points.emplace_back();
    p.run_id = row.Int64("id");
    p.serial = row.Text("serial");
    p.device_model = row.OptionalText("device_model");
    p.mode = row.Text("mode");
    p.run_created_at = row.Int64("created_at");
    p.launches = row.Int64("launches");
    p.displayed_min_ms = row.OptionalInt64("displayed_min_ms");
    p.displayed_median_ms = row.OptionalDouble("displayed_median_ms");
    p.displayed_mean_ms = row.OptionalDouble("displayed_mean_ms");
    p.displayed_max_ms = row.OptionalInt64("displayed_max_ms");
    p.total_time_median_ms = row.OptionalDouble("total_time_median_ms");
    p.fully_drawn_median_ms = row.OptionalDouble("fully_drawn_median_ms");
    if (auto s = row.status(kWhat); !s) return s.error();
  }
  return points;
}

StoreResult<std::vector<Schedule>> PgReader::ListSchedules() {
  return QueryRows<Schedule>(connection_, sql::kSchedules, Params(), ReadSchedule,
                             "listing schedules");
}

StoreResult<std::optional<int64_t>> PgReader::DatabaseClockMs() {
  auto result = connection_.Query(sql::kDatabaseClockMs, "reading the database server's clock");
  if (!result) return result.error();
  auto now = result->Int64(0, "now_ms");
  if (!now) return now.error();
  return std::optional<int64_t>(*now);
}

StoreResult<std::vector<std::pair<std::string, int64_t>>> PgReader::CountRunsByStatus() {
  return QueryRows<std::pair<std::string, int64_t>>(
      connection_, sql::kRunCountsByStatus, Params(),
      [](ResultRow& row) { return std::make_pair(row.Text("status"), row.Int64("runs")); },
      "counting runs");
}

StoreResult<Schedule> PgReader::GetSchedule(int64_t schedule_id) {
  Params params;
  params.Int64(schedule_id);
  auto result = connection_.Query(sql::kScheduleById, params, "reading a schedule");
  if (!result) return result.error();
  auto schedule = OneRow<Schedule>(*result, ReadSchedule, "reading a schedule");
  if (!schedule) return schedule.error();
  if (!*schedule) {
    return MakeStoreError(StoreErrorCode::kNotFound, "no schedule " + std::to_string(schedule_id));
  }
  return std::move(**schedule);
}

StoreResult<std::vector<DeviceRestore>> PgReader::ListOwedRestores(std::string_view serial) {
  Params params;
  params.Text(serial);
  return QueryRows<DeviceRestore>(connection_, sql::kOwedDeviceRestores, params, ReadDeviceRestore,
                                  "listing owed restores");
}

StoreResult<std::string> PgReader::IntegrityCheck() {
  // PostgreSQL checks its own pages (checksums, WAL); a request can only ask whether the
  // connection answers. SQLite's PRAGMA integrity_check answers "ok" when healthy.
  auto result = connection_.Query("SELECT 'ok'::text AS integrity", "checking integrity");
  if (!result) return result.error();
  if (result->rows() == 0) return std::string("no result");
  return result->Text(0, "integrity");
}

bool PgReader::ReconnectIfBroken() {
  if (connection_.ok() || !reopen_) return false;
  auto reopened = reopen_();
  if (!reopened) {
    spdlog::warn("store: a reader's connection to {} is lost and reconnecting failed: {}",
                 connection_.redacted_url(), reopened.error().message);
    return false;
  }
  connection_ = std::move(reopened).value();
  spdlog::warn("store: a reader's connection to {} was lost; reconnected",
               connection_.redacted_url());
  return true;
}

}  // namespace droidlab::store::pg
