#include "store/sqlite_reader.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "base/parse_int.h"
#include "store/looper_stats_columns.h"
#include "store/sql/audit_log.h"
#include "store/sql/builds.h"
#include "store/sql/device_health.h"
#include "store/sql/device_restores.h"
#include "store/sql/devices.h"
#include "store/sql/iteration_faults.h"
#include "store/sql/iteration_frames.h"
#include "store/sql/iteration_memory.h"
#include "store/sql/launches.h"
#include "store/sql/looper_stats.h"
#include "store/sql/proc_samples.h"
#include "store/sql/run_summaries.h"
#include "store/sql/runs.h"
#include "store/sql/schedules.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store {

namespace {

Run ReadRun(const Statement& st) {
  Run run;
  run.id = st.ColumnInt64(0);
  run.spec_json = st.ColumnString(1);
  run.serial = st.ColumnString(2);
  run.device_model = st.ColumnOptionalString(3);
  run.package = st.ColumnString(4);
  run.activity = st.ColumnOptionalString(5);
  run.mode = st.ColumnString(6);
  run.iterations = st.ColumnInt64(7);
  run.status = RunStatusFromName(st.ColumnText(8)).value_or(RunStatus::kFailed);
  run.error = st.ColumnOptionalString(9);
  run.created_at = st.ColumnInt64(10);
  run.started_at = st.ColumnOptionalInt64(11);
  run.finished_at = st.ColumnOptionalInt64(12);
  run.schedule_id = st.ColumnOptionalInt64(13);
  run.fingerprint = st.ColumnOptionalString(14);
  run.preflight_json = st.ColumnOptionalString(15);
  run.host = st.ColumnOptionalString(16);
  run.lease_until = st.ColumnOptionalInt64(17);
  run.cancel_requested = st.ColumnInt64(18) != 0;
  run.pool = st.ColumnInt64(19) != 0;
  return run;
}

Device ReadDevice(const Statement& st) {
  Device device;
  device.serial = st.ColumnString(0);
  device.model = st.ColumnOptionalString(1);
  device.manufacturer = st.ColumnOptionalString(2);
  device.sdk = st.ColumnOptionalInt64(3);
  device.release = st.ColumnOptionalString(4);
  device.abi = st.ColumnOptionalString(5);
  device.fingerprint = st.ColumnOptionalString(6);
  device.state = st.ColumnString(7);
  device.first_seen = st.ColumnInt64(8);
  device.last_seen = st.ColumnInt64(9);
  device.host = st.ColumnOptionalString(10);
  device.labels = SplitDeviceLabels(st.ColumnOptionalString(11));
  device.quarantined_at = st.ColumnOptionalInt64(12);
  device.quarantine_reason = st.ColumnOptionalString(13);
  return device;
}

Launch ReadLaunch(const Statement& st) {
  Launch launch;
  launch.run_id = st.ColumnInt64(0);
  launch.iteration = st.ColumnInt64(1);
  launch.displayed_ms = st.ColumnOptionalInt64(2);
  launch.fully_drawn_ms = st.ColumnOptionalInt64(3);
  launch.total_time_ms = st.ColumnOptionalInt64(4);
  launch.wait_time_ms = st.ColumnOptionalInt64(5);
  launch.launch_state = st.ColumnOptionalString(6);
  launch.pid = st.ColumnOptionalInt64(7);
  launch.intent_at_ms = st.ColumnOptionalInt64(8);
  launch.fork_at_ms = st.ColumnOptionalInt64(9);
  launch.displayed_at_ms = st.ColumnOptionalInt64(10);
  launch.valid = st.ColumnInt64(11) != 0;
  launch.invalid_reason = st.ColumnOptionalString(12);
  launch.warmup = st.ColumnInt64(13) != 0;
  launch.thermal_status = st.ColumnOptionalString(14);
  launch.battery_temp_tenths_c = st.ColumnOptionalInt64(15);
  launch.cooldown_wait_ms = st.ColumnOptionalInt64(16);
  launch.build_id = st.ColumnOptionalInt64(17);
  return launch;
}

LooperStatsRow ReadLooperStatsRow(const Statement& st) {
  LooperStatsRow row;
  ForEachLooperRowColumn(
      [&](const auto& column, int index) { ReadColumn(st, index, row.*column.member); });
  return row;
}

ProcSample ReadProcSample(const Statement& st) {
  ProcSample sample;
  sample.run_id = st.ColumnInt64(0);
  sample.t_ms = st.ColumnInt64(1);
  sample.pid = st.ColumnInt64(2);
  sample.utime = st.ColumnInt64(3);
  sample.stime = st.ColumnInt64(4);
  sample.cpu_pct = st.ColumnOptionalDouble(5);
  sample.rss_kb = st.ColumnInt64(6);
  sample.num_threads = st.ColumnInt64(7);
  return sample;
}

IterationFrames ReadIterationFrames(const Statement& st) {
  IterationFrames f;
  int c = 0;
  f.run_id = st.ColumnInt64(c++);
  f.iteration = st.ColumnInt64(c++);
  f.total_frames = st.ColumnOptionalInt64(c++);
  f.janky_frames = st.ColumnOptionalInt64(c++);
  f.gfx_p50_ms = st.ColumnOptionalInt64(c++);
  f.gfx_p90_ms = st.ColumnOptionalInt64(c++);
  f.gfx_p95_ms = st.ColumnOptionalInt64(c++);
  f.gfx_p99_ms = st.ColumnOptionalInt64(c++);
  f.frame_rows = st.ColumnInt64(c++);
  f.counted = st.ColumnInt64(c++);
  f.refresh_period_ns = st.ColumnInt64(c++);
  f.p50_ms = st.ColumnOptionalDouble(c++);
  f.p90_ms = st.ColumnOptionalDouble(c++);
  f.p95_ms = st.ColumnOptionalDouble(c++);
  f.p99_ms = st.ColumnOptionalDouble(c++);
  f.over_16_7ms = st.ColumnInt64(c++);
  f.over_33ms = st.ColumnInt64(c++);
  f.over_50ms = st.ColumnInt64(c++);
  f.matrix_normal = st.ColumnInt64(c++);
  f.matrix_middle = st.ColumnInt64(c++);
  f.matrix_high = st.ColumnInt64(c++);
  f.matrix_frozen = st.ColumnInt64(c++);
  f.dropped_frames = st.ColumnInt64(c++);
  f.jank = st.ColumnInt64(c++);
  f.big_jank = st.ColumnInt64(c++);
  f.columns_json = st.ColumnString(c++);
  f.rows_json = st.ColumnString(c++);
  f.over_1_vsync = st.ColumnOptionalInt64(c++);
  f.over_2_vsyncs = st.ColumnOptionalInt64(c++);
  f.over_3_vsyncs = st.ColumnOptionalInt64(c++);
  return f;
}

IterationFault ReadIterationFault(const Statement& st) {
  IterationFault f;
  int c = 0;
  f.run_id = st.ColumnInt64(c++);
  f.iteration = st.ColumnInt64(c++);
  f.seq = st.ColumnInt64(c++);
  f.kind = st.ColumnString(c++);
  f.time = st.ColumnString(c++);
  f.at_ms = st.ColumnOptionalInt64(c++);
  f.pid = st.ColumnOptionalInt64(c++);
  f.process_name = st.ColumnString(c++);
  f.reason = st.ColumnString(c++);
  const std::string stack = st.ColumnString(c++);
  for (size_t at = 0; at < stack.size();) {
    size_t end = stack.find('\n', at);
    if (end == std::string::npos) end = stack.size();
    f.stack.push_back(stack.substr(at, end - at));
    at = end + 1;
  }
  f.duration_ms = st.ColumnOptionalInt64(c++);
  return f;
}

IterationMemory ReadIterationMemory(const Statement& st) {
  IterationMemory m;
  int c = 0;
  m.run_id = st.ColumnInt64(c++);
  m.iteration = st.ColumnInt64(c++);
  m.pid = st.ColumnInt64(c++);
  for (std::optional<int64_t>* v :
       {&m.total_pss_kb, &m.total_rss_kb, &m.total_swap_pss_kb, &m.java_heap_kb,
        &m.native_heap_kb, &m.code_kb, &m.stack_kb, &m.graphics_kb, &m.private_other_kb,
        &m.system_kb, &m.views, &m.view_root_impl, &m.app_contexts, &m.activities, &m.assets,
        &m.asset_managers, &m.local_binders, &m.proxy_binders, &m.death_recipients,
        &m.webviews}) {
    *v = st.ColumnOptionalInt64(c++);
  }
  return m;
}

Schedule ReadSchedule(const Statement& st) {
  Schedule schedule;
  schedule.id = st.ColumnInt64(0);
  schedule.cron = st.ColumnString(1);
  schedule.timezone = st.ColumnString(2);
  schedule.run_spec_json = st.ColumnString(3);
  schedule.enabled = st.ColumnInt64(4) != 0;
  schedule.last_fired_at = st.ColumnOptionalInt64(5);
  schedule.created_at = st.ColumnInt64(6);
  return schedule;
}

Build ReadBuild(const Statement& st) {
  Build build;
  build.id = st.ColumnInt64(0);
  build.sha256 = st.ColumnString(1);
  build.package = st.ColumnString(2);
  build.version_code = st.ColumnInt64(3);
  build.version_name = st.ColumnOptionalString(4);
  build.min_sdk = st.ColumnOptionalInt64(5);
  build.target_sdk = st.ColumnOptionalInt64(6);
  build.size = st.ColumnInt64(7);
  build.file_name = st.ColumnOptionalString(8);
  build.created_at = st.ColumnInt64(9);
  build.signature = st.ColumnOptionalString(10);
  return build;
}

DeviceInstalledBuild ReadInstalledBuild(const Statement& st) {
  DeviceInstalledBuild installed;
  installed.package = st.ColumnString(0);
  installed.build_id = st.ColumnInt64(1);
  installed.version_code = st.ColumnOptionalInt64(2);
  installed.sha256 = st.ColumnOptionalString(3);
  installed.install_method = st.ColumnOptionalString(4);
  installed.at = st.ColumnOptionalInt64(5);
  installed.run_id = st.ColumnInt64(6);
  return installed;
}

DeviceRestore ReadDeviceRestore(const Statement& st) {
  DeviceRestore restore;
  restore.id = st.ColumnInt64(0);
  restore.serial = st.ColumnString(1);
  restore.kind = st.ColumnString(2);
  restore.name = st.ColumnString(3);
  restore.previous = st.ColumnOptionalString(4);
  restore.run_id = st.ColumnOptionalInt64(5);
  restore.created_at = st.ColumnInt64(6);
  restore.paid_at = st.ColumnOptionalInt64(7);
  return restore;
}

// Steps `st` to the end, turning each row into a T with `read`.
template <class T, class ReadRow>
StoreResult<std::vector<T>> CollectRows(ScopedStatement& st, ReadRow read, std::string_view what) {
  std::vector<T> rows;
  for (;;) {
    switch (st->StepOnce()) {
      case Statement::Step::kRow:
        rows.push_back(read(*st));
        continue;
      case Statement::Step::kDone:
        return rows;
      case Statement::Step::kError:
        return st->Error(what);
    }
  }
}

template <class T, class ReadRow>
StoreResult<std::optional<T>> OneRow(ScopedStatement& st, ReadRow read, std::string_view what) {
  switch (st->StepOnce()) {
    case Statement::Step::kRow:
      return std::optional<T>(read(*st));
    case Statement::Step::kDone:
      return std::optional<T>();
    case Statement::Step::kError:
      break;
  }
  return st->Error(what);
}

// The one number a `SELECT count(*) …` gives.
StoreResult<int64_t> CountOf(ScopedStatement& st, std::string_view what) {
  auto n = OneRow<int64_t>(st, [](const Statement& row) { return row.ColumnInt64(0); }, what);
  if (!n) return n.error();
  return n->value_or(0);
}

// A page of one run's rows by keyset: `sql` binds the run as ?1, the key of the last row sent
// as ?2..?(1 + Keys) and the limit after them, and selects the row's key as its Keys columns
// from `key_column` on. The cursor is `prefix` and each key in 16 hex digits, as ListRuns' cursor.
template <class Row, int Keys, class ReadRow>
StoreResult<RowPage<Row>> PageOfRows(Database& db, const char* sql, int64_t run_id,
                                     const RowPageQuery& query, std::string_view prefix,
                                     int key_column, ReadRow read, std::string_view what) {
  std::array<int64_t, Keys> after;
  after.fill(std::numeric_limits<int64_t>::min());
  if (!query.cursor.empty() && !DecodeKeyCursor(query.cursor, prefix, after)) {
    return NotACursorOfThisList(query.cursor);
  }
  auto st = db.Cached(sql);
  if (!st) return st.error();
  (*st)->BindInt64(1, run_id);
  for (int k = 0; k < Keys; ++k) (*st)->BindInt64(2 + k, after[static_cast<size_t>(k)]);
  // One more than asked tells whether there is a next page.
  (*st)->BindInt64(2 + Keys, query.limit < 0 ? -1 : query.limit + 1);
  RowPage<Row> page;
  for (;;) {
    switch ((*st)->StepOnce()) {
      case Statement::Step::kRow:
        if (query.limit >= 0 && page.rows.size() == static_cast<size_t>(query.limit)) {
          // A row past the page: the cursor is the key of the page's last row, kept in `after`.
          page.next_cursor = EncodeKeyCursor(prefix, after);
          return page;
        }
        page.rows.push_back(read(**st));
        for (int k = 0; k < Keys; ++k) {
          after[static_cast<size_t>(k)] = (*st)->ColumnInt64(key_column + k);
        }
        continue;
      case Statement::Step::kDone:
        return page;
      case Statement::Step::kError:
        return (*st)->Error(what);
    }
  }
}

}  // namespace

SqliteReader::SqliteReader(std::unique_ptr<Database> db) : db_(std::move(db)) {}
SqliteReader::~SqliteReader() = default;

StoreResult<std::vector<Device>> SqliteReader::ListDevices() {
  auto st = db_->Cached(sql::kDevices);
  if (!st) return st.error();
  return CollectRows<Device>(*st, ReadDevice, "listing devices");
}

StoreResult<Device> SqliteReader::GetDevice(std::string_view serial) {
  auto st = db_->Cached(sql::kDeviceBySerial);
  if (!st) return st.error();
  (*st)->BindText(1, serial);
  auto device = OneRow<Device>(*st, ReadDevice, "reading a device");
  if (!device) return device.error();
  if (!*device) {
    return MakeStoreError(StoreErrorCode::kNotFound,
                          "no device " + std::string(serial) + " has ever been seen");
  }
  return std::move(**device);
}

StoreResult<std::vector<Host>> SqliteReader::ListHosts() {
  auto st = db_->Cached(sql::kHosts);
  if (!st) return st.error();
  return CollectRows<Host>(
      *st,
      [](const Statement& row) {
        Host host;
        host.name = row.ColumnString(0);
        host.address = row.ColumnString(1);
        host.version = row.ColumnString(2);
        host.started_at = row.ColumnInt64(3);
        host.heartbeat_at = row.ColumnInt64(4);
        return host;
      },
      "listing hosts");
}

StoreResult<std::vector<DeviceHealthSample>> SqliteReader::ListDeviceHealth(std::string_view serial,
                                                                            int64_t since,
                                                                            int64_t limit) {
  if (auto s = CheckDeviceHistoryLimit(limit); !s) return s.error();
  auto st = db_->Cached(sql::kDeviceHealth);
  if (!st) return st.error();
  (*st)->BindText(1, serial);
  (*st)->BindInt64(2, since);
  (*st)->BindInt64(3, limit);
  return CollectRows<DeviceHealthSample>(
      *st,
      [](const Statement& row) {
        DeviceHealthSample sample;
        sample.id = row.ColumnInt64(0);
        sample.serial = row.ColumnString(1);
        sample.host = row.ColumnString(2);
        sample.at = row.ColumnInt64(3);
        sample.battery_level = row.ColumnOptionalInt64(4);
        sample.battery_temp = row.ColumnOptionalInt64(5);
        sample.thermal_status = row.ColumnOptionalInt64(6);
        sample.uptime_ms = row.ColumnOptionalInt64(7);
        sample.adb_commands = row.ColumnInt64(8);
        sample.adb_errors = row.ColumnInt64(9);
        sample.adb_ms = row.ColumnInt64(10);
        return sample;
      },
      "listing the health of a device");
}

StoreResult<std::vector<DeviceEvent>> SqliteReader::ListDeviceEvents(std::string_view serial,
                                                                     int64_t limit) {
  if (auto s = CheckDeviceHistoryLimit(limit); !s) return s.error();
  auto st = db_->Cached(sql::kDeviceEvents);
  if (!st) return st.error();
  (*st)->BindText(1, serial);
  (*st)->BindInt64(2, limit);
  return CollectRows<DeviceEvent>(
      *st,
      [](const Statement& row) {
        DeviceEvent event;
        event.id = row.ColumnInt64(0);
        event.serial = row.ColumnString(1);
        event.host = row.ColumnString(2);
        event.at = row.ColumnInt64(3);
        event.kind = row.ColumnString(4);
        event.detail = row.ColumnString(5);
        return event;
      },
      "listing the events of a device");
}

StoreResult<AuditPage> SqliteReader::ListAudit(int64_t limit, std::string_view cursor) {
  auto before = AuditPageStart(limit, cursor);
  if (!before) return before.error();
  auto st = db_->Cached(sql::kAuditPage);
  if (!st) return st.error();
  (*st)->BindInt64(1, *before);
  (*st)->BindInt64(2, limit + 1);  // one more tells whether there is a next page
  auto entries = CollectRows<AuditEntry>(
      *st,
      [](const Statement& row) {
        AuditEntry entry;
        entry.id = row.ColumnInt64(0);
        entry.at = row.ColumnInt64(1);
        entry.caller = row.ColumnString(2);
        entry.remote = row.ColumnString(3);
        entry.method = row.ColumnString(4);
        entry.path = row.ColumnString(5);
        entry.status = row.ColumnInt64(6);
        entry.location = row.ColumnOptionalString(7);
        return entry;
      },
      "listing the audit log");
  if (!entries) return entries.error();
  AuditPage page;
  page.entries = std::move(*entries);
  CutAuditPage(limit, page);
  return page;
}

StoreResult<std::vector<DeviceStateChange>> SqliteReader::ListDeviceStateChanges(
    std::string_view serial) {
  auto st = db_->Cached(sql::kDeviceStateChanges);
  if (!st) return st.error();
  (*st)->BindText(1, serial);
  return CollectRows<DeviceStateChange>(
      *st,
      [](const Statement& row) {
        return DeviceStateChange{row.ColumnString(0), row.ColumnString(1), row.ColumnInt64(2)};
      },
      "listing device state changes");
}

StoreResult<RunPage> SqliteReader::ListRuns(const RunQuery& query) {
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
  const char* page_sql = sql::kRunsAll;
  if (query.serial) {
    page_sql = sql::kRunsBySerial;
  } else if (query.package) {
    page_sql = sql::kRunsByPackage;
  } else if (query.status) {
    page_sql = sql::kRunsByStatus;
  }
  auto st = db_->Cached(page_sql);
  if (!st) return st.error();
  (*st)->BindInt64(1, query.since.value_or(std::numeric_limits<int64_t>::min()));
  (*st)->BindInt64(2, cursor_at);
  (*st)->BindInt64(3, cursor_id);
  if (query.status) (*st)->BindText(4, RunStatusName(*query.status));
  if (query.serial) (*st)->BindText(5, *query.serial);
  if (query.package) (*st)->BindText(6, *query.package);
  (*st)->BindInt64(7, query.limit + 1);  // one more tells whether there is a next page
  auto runs = CollectRows<Run>(*st, ReadRun, "listing runs");
  if (!runs) return runs.error();
  RunPage page;
  page.runs = std::move(runs).value();
  if (page.runs.size() > static_cast<size_t>(query.limit)) {
    page.runs.pop_back();
    page.next_cursor = EncodeRunCursor(page.runs.back().created_at, page.runs.back().id);
  }
  return page;
}

StoreResult<Run> SqliteReader::GetRun(int64_t run_id) {
  auto st = db_->Cached(sql::kRunById);
  if (!st) return st.error();
  (*st)->BindInt64(1, run_id);
  auto run = OneRow<Run>(*st, ReadRun, "reading a run");
  if (!run) return run.error();
  if (!*run) {
    return MakeStoreError(StoreErrorCode::kNotFound, "no run " + std::to_string(run_id));
  }
  return std::move(**run);
}

StoreResult<std::optional<Run>> SqliteReader::PreviousSuccessfulRun(
    std::string_view package, const std::optional<std::string>& device_model, std::string_view mode,
    int64_t before_created_at) {
  auto st = db_->Cached(sql::kPreviousSuccessfulRun);
  if (!st) return st.error();
  (*st)->BindText(1, package);
  (*st)->BindInt64(2, before_created_at);
  (*st)->BindOptional(3, device_model);
  (*st)->BindText(4, mode);
  return OneRow<Run>(*st, ReadRun, "finding the previous successful run");
}

StoreResult<std::vector<Run>> SqliteReader::CalibrationRuns(std::string_view package,
                                                      const std::optional<std::string>& device_model,
                                                      const std::optional<std::string>& mode,
                                                      int limit) {
  auto st = db_->Cached(sql::kCalibrationRuns);
  if (!st) return st.error();
  (*st)->BindText(1, package);
  (*st)->BindOptional(2, device_model);
  (*st)->BindOptional(3, mode);
  (*st)->BindInt64(4, limit);
  return CollectRows<Run>(*st, ReadRun, "listing calibration runs");
}

StoreResult<RowPage<Launch>> SqliteReader::PageLaunches(int64_t run_id, const RowPageQuery& query) {
  return PageOfRows<Launch, 1>(*db_, sql::kLaunchesOfRun, run_id, query, "i1", 18, ReadLaunch,
                               "listing a run's launches");
}

StoreResult<RowPage<LooperStatsRow>> SqliteReader::PageLooperStats(int64_t run_id,
                                                             const RowPageQuery& query) {
  return PageOfRows<LooperStatsRow, 1>(*db_, sql::kLooperStatsOfRun, run_id, query, "e1",
                                       static_cast<int>(kLooperRowColumnCount),
                                       ReadLooperStatsRow, "listing a run's looper stats");
}

StoreResult<RowPage<ProcSample>> SqliteReader::PageProcSamples(int64_t run_id,
                                                         const RowPageQuery& query) {
  return PageOfRows<ProcSample, 2>(*db_, sql::kProcSamplesOfRun, run_id, query, "p1", 8,
                                   ReadProcSample, "listing a run's proc samples");
}

StoreResult<std::vector<Launch>> SqliteReader::ListLaunches(int64_t run_id) {
  auto page = PageLaunches(run_id, {});
  if (!page) return page.error();
  return std::move(page->rows);
}

StoreResult<std::vector<LooperStatsRow>> SqliteReader::ListLooperStats(int64_t run_id) {
  auto page = PageLooperStats(run_id, {});
  if (!page) return page.error();
  return std::move(page->rows);
}

StoreResult<std::vector<ProcSample>> SqliteReader::ListProcSamples(int64_t run_id) {
  auto page = PageProcSamples(run_id, {});
  if (!page) return page.error();
  return std::move(page->rows);
}

StoreResult<std::vector<LaunchHistoryPoint>> SqliteReader::LaunchHistory(
    const LaunchHistoryQuery& query) {
  auto st = db_->Cached(sql::kLaunchHistory);
  if (!st) return st.error();
  (*st)->BindText(1, query.package);
  (*st)->BindInt64(2, query.since);
  (*st)->BindOptional(3, query.device_model);
  (*st)->BindOptional(4, query.mode);

  std::vector<LaunchHistoryPoint> points;
  std::vector<int64_t> displayed;
  std::vector<int64_t> total;
  std::vector<int64_t> fully_drawn;
  auto median = [](std::vector<int64_t>& v) -> std::optional<double> {
    if (v.empty()) return std::nullopt;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const auto upper = static_cast<double>(v[mid]);
    if (v.size() % 2 == 1) return upper;
    const auto lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return (static_cast<double>(lower) + upper) / 2;
  };
  auto close_point = [&] {
    if (points.empty()) return;
    LaunchHistoryPoint& p = points.back();
    p.launches = static_cast<int64_t>(displayed.size());
    if (!displayed.empty()) {
      int64_t sum = 0;
      for (int64_t v : displayed) sum += v;
      p.displayed_mean_ms = static_cast<double>(sum) / static_cast<double>(displayed.size());
      p.displayed_min_ms = *std::min_element(displayed.begin(), displayed.end());
      p.displayed_max_ms = *std::max_element(displayed.begin(), displayed.end());
    }
    p.displayed_median_ms = median(displayed);
    p.total_time_median_ms = median(total);
    p.fully_drawn_median_ms = median(fully_drawn);
    displayed.clear();
    total.clear();
    fully_drawn.clear();
  };
  for (;;) {
    const auto step = (*st)->StepOnce();
    if (step == Statement::Step::kError) return (*st)->Error("reading launch history");
    if (step == Statement::Step::kDone) break;
    const Statement& row = **st;
    const int64_t run_id = row.ColumnInt64(0);
    if (points.empty() || points.back().run_id != run_id) {
      close_point();
      LaunchHistoryPoint point;
      point.run_id = run_id;
      point.serial = row.ColumnString(1);
      point.device_model = row.ColumnOptionalString(2);
      point.mode = row.ColumnString(3);
      point.run_created_at = row.ColumnInt64(4);
      points.push_back(std::move(point));
    }
    if (auto v = row.ColumnOptionalInt64(5)) displayed.push_back(*v);
    if (auto v = row.ColumnOptionalInt64(6)) fully_drawn.push_back(*v);
    if (auto v = row.ColumnOptionalInt64(7)) total.push_back(*v);
  }
  close_point();
  return points;
}

namespace {

RunSummary ReadRunSummary(const Statement& st) {
  RunSummary s;
  s.run_id = st.ColumnInt64(0);
  s.metric = st.ColumnString(1);
  s.t = st.ColumnInt64(2);
  s.count = st.ColumnInt64(3);
  s.median = st.ColumnOptionalDouble(4);
  s.p90 = st.ColumnOptionalDouble(5);
  s.ci_low = st.ColumnOptionalDouble(6);
  s.ci_high = st.ColumnOptionalDouble(7);
  s.build_id = st.ColumnOptionalInt64(8);
  s.version_code = st.ColumnOptionalInt64(9);
  s.fingerprint = st.ColumnOptionalString(10);
  s.compilation = st.ColumnOptionalString(11);
  s.hot_launches = st.ColumnOptionalInt64(12);
  return s;
}

}  // namespace

StoreResult<std::vector<RunSummary>> SqliteReader::Series(const SeriesQuery& query) {
  auto st = db_->Cached(sql::kSeries);
  if (!st) return st.error();
  (*st)->BindText(1, query.package);
  // run_summaries files a run whose model was unknown under '' (0009_run_summaries.sql). Held
  // here: SQLite reads a bound text until the statement is reset, not a temporary's lifetime.
  const std::string model = query.device_model.value_or(std::string());
  (*st)->BindText(2, model);
  (*st)->BindText(3, query.mode);
  (*st)->BindText(4, query.metric);
  (*st)->BindInt64(5, query.since);
  (*st)->BindInt64(6, query.until);
  return CollectRows<RunSummary>(*st, ReadRunSummary, "reading a series");
}

StoreResult<std::vector<SeriesKey>> SqliteReader::SeriesOfPackage(std::string_view package) {
  auto st = db_->Cached(sql::kSeriesOfPackage);
  if (!st) return st.error();
  (*st)->BindText(1, package);
  return CollectRows<SeriesKey>(
      *st,
      [](const Statement& row) {
        SeriesKey key;
        std::string model = row.ColumnString(0);
        if (!model.empty()) key.device_model = std::move(model);
        key.mode = row.ColumnString(1);
        key.metric = row.ColumnString(2);
        key.points = row.ColumnInt64(3);
        key.first_t = row.ColumnInt64(4);
        key.last_t = row.ColumnInt64(5);
        return key;
      },
      "listing a package's series");
}

StoreResult<std::vector<RunSummary>> SqliteReader::RunSummaries(int64_t run_id) {
  auto st = db_->Cached(sql::kRunSummariesOfRun);
  if (!st) return st.error();
  (*st)->BindInt64(1, run_id);
  return CollectRows<RunSummary>(*st, ReadRunSummary, "reading a run's summaries");
}

StoreResult<std::vector<int64_t>> SqliteReader::RunsWithoutSummaries(int64_t after_run_id,
                                                               int64_t limit) {
  auto st = db_->Cached(sql::kRunsWithoutSummaries);
  if (!st) return st.error();
  (*st)->BindInt64(1, after_run_id);
  (*st)->BindInt64(2, limit);
  return CollectRows<int64_t>(
      *st, [](const Statement& row) { return row.ColumnInt64(0); },
      "finding runs without a summary");
}

Status SqliteReader::FillBuildFiles(std::vector<Build>& builds) {
  for (Build& build : builds) {
    auto st = db_->Cached(sql::kBuildFiles);
    if (!st) return st.error();
    (*st)->BindInt64(1, build.id);
    auto files = CollectRows<BuildFile>(
        *st,
        [](const Statement& row) {
          BuildFile file;
          file.name = row.ColumnString(0);
          file.kind = row.ColumnString(1);
          file.split = row.ColumnOptionalString(2);
          file.sha256 = row.ColumnString(3);
          file.size = row.ColumnInt64(4);
          return file;
        },
        "reading a build's files");
    if (!files) return files.error();
    build.files = std::move(*files);
  }
  return OkStatus();
}

StoreResult<std::vector<Build>> SqliteReader::ListBuilds() {
  auto st = db_->Cached(sql::kBuilds);
  if (!st) return st.error();
  auto builds = CollectRows<Build>(*st, ReadBuild, "listing builds");
  if (!builds) return builds;
  if (auto filled = FillBuildFiles(*builds); !filled) return filled.error();
  return builds;
}

StoreResult<Build> SqliteReader::GetBuild(int64_t build_id) {
  auto st = db_->Cached(sql::kBuildById);
  if (!st) return st.error();
  (*st)->BindInt64(1, build_id);
  return ReadOneBuild(*st, "no build " + std::to_string(build_id));
}

StoreResult<Build> SqliteReader::GetBuildBySha256(std::string_view sha256) {
  auto st = db_->Cached(sql::kBuildBySha256);
  if (!st) return st.error();
  (*st)->BindText(1, sha256);
  return ReadOneBuild(*st, "no build with sha256 " + std::string(sha256));
}

StoreResult<Build> SqliteReader::ReadOneBuild(ScopedStatement& st, std::string not_found) {
  auto build = OneRow<Build>(st, ReadBuild, "reading a build");
  if (!build) return build.error();
  if (!*build) return MakeStoreError(StoreErrorCode::kNotFound, std::move(not_found));
  std::vector<Build> one = {std::move(**build)};
  if (auto filled = FillBuildFiles(one); !filled) return filled.error();
  return std::move(one.front());
}

StoreResult<std::vector<Build>> SqliteReader::ListBuildsCreatedBefore(int64_t created_at) {
  auto st = db_->Cached(sql::kBuildsCreatedBefore);
  if (!st) return st.error();
  (*st)->BindInt64(1, created_at);
  auto builds = CollectRows<Build>(*st, ReadBuild, "listing old builds");
  if (!builds) return builds;
  if (auto filled = FillBuildFiles(*builds); !filled) return filled.error();
  return builds;
}

StoreResult<int64_t> SqliteReader::CountBuildsWithFile(std::string_view sha256) {
  auto st = db_->Cached(sql::kBuildFileUsers);
  if (!st) return st.error();
  (*st)->BindText(1, sha256);
  return CountOf(*st, "counting the builds of a file");
}

StoreResult<int64_t> SqliteReader::CountRunsUsingBuild(int64_t build_id) {
  auto st = db_->Cached(sql::kBuildInUse);
  if (!st) return st.error();
  (*st)->BindInt64(1, build_id);
  return CountOf(*st, "counting the runs of a build");
}

StoreResult<std::vector<DeviceInstalledBuild>> SqliteReader::InstalledBuildsOnDevice(
    std::string_view serial) {
  auto st = db_->Cached(sql::kInstalledBuildsOnDevice);
  if (!st) return st.error();
  (*st)->BindText(1, serial);
  return CollectRows<DeviceInstalledBuild>(*st, ReadInstalledBuild,
                                           "reading what droidlab installed on a device");
}

StoreResult<std::vector<IterationFrames>> SqliteReader::ListIterationFrames(int64_t run_id) {
  auto st = db_->Cached(sql::kIterationFramesOfRun);
  if (!st) return st.error();
  (*st)->BindInt64(1, run_id);
  return CollectRows<IterationFrames>(*st, ReadIterationFrames, "listing a run's frames");
}

StoreResult<std::vector<IterationFrames>> SqliteReader::ListIterationFrameFigures(int64_t run_id) {
  auto st = db_->Cached(sql::kIterationFrameFiguresOfRun);
  if (!st) return st.error();
  (*st)->BindInt64(1, run_id);
  return CollectRows<IterationFrames>(*st, ReadIterationFrames,
                                      "listing a run's frame figures");
}

StoreResult<std::vector<IterationFault>> SqliteReader::ListIterationFaults(int64_t run_id) {
  auto st = db_->Cached(sql::kIterationFaultsOfRun);
  if (!st) return st.error();
  (*st)->BindInt64(1, run_id);
  return CollectRows<IterationFault>(*st, ReadIterationFault, "listing a run's faults");
}

StoreResult<std::vector<IterationMemory>> SqliteReader::ListIterationMemory(int64_t run_id) {
  auto st = db_->Cached(sql::kIterationMemoryOfRun);
  if (!st) return st.error();
  (*st)->BindInt64(1, run_id);
  return CollectRows<IterationMemory>(*st, ReadIterationMemory, "listing a run's memory");
}

StoreResult<std::vector<Schedule>> SqliteReader::ListSchedules() {
  auto st = db_->Cached(sql::kSchedules);
  if (!st) return st.error();
  return CollectRows<Schedule>(*st, ReadSchedule, "listing schedules");
}

StoreResult<std::vector<std::pair<std::string, int64_t>>> SqliteReader::CountRunsByStatus() {
  auto st = db_->Cached(sql::kRunCountsByStatus);
  if (!st) return st.error();
  return CollectRows<std::pair<std::string, int64_t>>(
      *st,
      [](const Statement& row) { return std::make_pair(row.ColumnString(0), row.ColumnInt64(1)); },
      "counting runs");
}

StoreResult<Schedule> SqliteReader::GetSchedule(int64_t schedule_id) {
  auto st = db_->Cached(sql::kScheduleById);
  if (!st) return st.error();
  (*st)->BindInt64(1, schedule_id);
  auto schedule = OneRow<Schedule>(*st, ReadSchedule, "reading a schedule");
  if (!schedule) return schedule.error();
  if (!*schedule) {
    return MakeStoreError(StoreErrorCode::kNotFound, "no schedule " + std::to_string(schedule_id));
  }
  return std::move(**schedule);
}

StoreResult<std::vector<DeviceRestore>> SqliteReader::ListOwedRestores(std::string_view serial) {
  auto st = db_->Cached(sql::kOwedDeviceRestores);
  if (!st) return st.error();
  (*st)->BindText(1, serial);
  return CollectRows<DeviceRestore>(*st, ReadDeviceRestore, "listing owed restores");
}

StoreResult<std::string> SqliteReader::IntegrityCheck() {
  auto st = db_->Cached("PRAGMA integrity_check");
  if (!st) return st.error();
  auto first = OneRow<std::string>(
      *st, [](const Statement& row) { return row.ColumnString(0); }, "checking integrity");
  if (!first) return first.error();
  return first->value_or("no result");
}

}  // namespace droidlab::store
