// Reader: the queries the API needs, on one read-only connection of either backend — SQLite
// (sqlite_reader.h: each statement prepared once per connection) or PostgreSQL (pg/reader.h).
// Both answer each call alike: the same rows in the same order, the same cursors, the same
// errors (one test suite runs against each). Reads see the last committed batch and never wait
// for the writer.
//
// Threading: a Reader is used by one thread at a time; Store hands them out from a small pool
// (Store::Read, Store::PostRead). Calls block on the database: never call them on an io_context
// thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

// Which of a run's rows: at most `limit` (-1: all) after `cursor` (empty: from the first).
struct RowPageQuery {
  std::string cursor;
  int64_t limit = -1;
};

// A page of a run's rows; `next_cursor` continues after its last row (empty: no more rows).
template <class Row>
struct RowPage {
  std::vector<Row> rows;
  std::string next_cursor;
};

class Reader {
 public:
  Reader() = default;
  virtual ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Every device ever seen, by serial.
  virtual StoreResult<std::vector<Device>> ListDevices() = 0;
  // kNotFound if never seen.
  virtual StoreResult<Device> GetDevice(std::string_view serial) = 0;
  // A device's state changes, oldest first.
  virtual StoreResult<std::vector<DeviceStateChange>> ListDeviceStateChanges(
      std::string_view serial) = 0;
  // The lab's hosts (schema 0016), by name.
  virtual StoreResult<std::vector<Host>> ListHosts() = 0;
  // A device's health samples taken at or after `since` (ms), newest first, at most `limit`
  // (1..10000; kInvalidArgument otherwise). An unknown serial has none.
  virtual StoreResult<std::vector<DeviceHealthSample>> ListDeviceHealth(std::string_view serial,
                                                                        int64_t since,
                                                                        int64_t limit) = 0;
  // A device's events (schema 0019), newest first (at, then id), at most `limit` (1..10000).
  virtual StoreResult<std::vector<DeviceEvent>> ListDeviceEvents(std::string_view serial,
                                                                 int64_t limit) = 0;
  // The audit log (schema 0017), newest first, at most `limit` (1..1000) entries after `cursor`
  // ("" for the first page; kInvalidArgument for one this list did not issue).
  virtual StoreResult<AuditPage> ListAudit(int64_t limit, std::string_view cursor) = 0;

  // Newest first (created_at, then id), at most query.limit; next_cursor continues after the
  // last run returned (keyset paging: stable while runs are added). kInvalidArgument for a
  // cursor this store did not issue or a limit outside 1..1000.
  virtual StoreResult<RunPage> ListRuns(const RunQuery& query) = 0;
  virtual StoreResult<Run> GetRun(int64_t run_id) = 0;  // kNotFound
  // The last run of the same package on the same device model in the same mode that succeeded
  // and was created before `before_created_at`: the default baseline. nullopt if none.
  virtual StoreResult<std::optional<Run>> PreviousSuccessfulRun(
      std::string_view package, const std::optional<std::string>& device_model,
      std::string_view mode, int64_t before_created_at) = 0;

  // A package's succeeded calibration runs (an A/A of one build), newest first, at most
  // `limit`; a model or mode not given matches any.
  virtual StoreResult<std::vector<Run>> CalibrationRuns(
      std::string_view package, const std::optional<std::string>& device_model,
      const std::optional<std::string>& mode, int limit) = 0;

  // A run's rows, all of them, in iteration / dump / time order. Empty for an unknown run.
  virtual StoreResult<std::vector<Launch>> ListLaunches(int64_t run_id) = 0;
  virtual StoreResult<std::vector<LooperStatsRow>> ListLooperStats(int64_t run_id) = 0;
  virtual StoreResult<std::vector<ProcSample>> ListProcSamples(int64_t run_id) = 0;
  // A run's frames per iteration (schema 0011), in iteration order; a run of 1,000 iterations
  // of 120 frames is ~1,000 rows of ~10 KB: no paging.
  virtual StoreResult<std::vector<IterationFrames>> ListIterationFrames(int64_t run_id) = 0;
  // The same figures with columns_json and rows_json left "[]": for summaries and verdicts.
  virtual StoreResult<std::vector<IterationFrames>> ListIterationFrameFigures(int64_t run_id) = 0;
  // A run's faults (schema 0012), in iteration order and each iteration's as they came; a run
  // has at most a few per iteration: no paging.
  virtual StoreResult<std::vector<IterationFault>> ListIterationFaults(int64_t run_id) = 0;
  // A run's memory per iteration (schema 0013), in iteration order; one small row each.
  virtual StoreResult<std::vector<IterationMemory>> ListIterationMemory(int64_t run_id) = 0;
  // The same rows a page at a time (the API's rows routes: no request reads an hour of 10 ms
  // samples at once). Keyset paging, each cursor opaque and of its own list: the iteration
  // ("i1" + hex), the dump order ("e1" + hex), the time and row ("p1" + hex) of the last row
  // sent, so a page costs the same at the end of a run as at its start, and rows added while a
  // client pages are neither skipped nor repeated. kInvalidArgument for a cursor not of this list.
  virtual StoreResult<RowPage<Launch>> PageLaunches(int64_t run_id, const RowPageQuery& query) = 0;
  virtual StoreResult<RowPage<LooperStatsRow>> PageLooperStats(int64_t run_id,
                                                               const RowPageQuery& query) = 0;
  virtual StoreResult<RowPage<ProcSample>> PageProcSamples(int64_t run_id,
                                                           const RowPageQuery& query) = 0;

  // A package's succeeded runs created since query.since (optionally of one device model and
  // mode), oldest first, each with its valid launches summarised. Group by device_model on the
  // caller's side when no model is given.
  virtual StoreResult<std::vector<LaunchHistoryPoint>> LaunchHistory(
      const LaunchHistoryQuery& query) = 0;

  // One series (schema 0009): the succeeded runs of a package on a model in a mode created in
  // [since, until] that have counted launches of the metric, oldest first (t, then run id).
  // A range of run_summaries' primary key: 10,000 points take milliseconds (bench/README.md).
  virtual StoreResult<std::vector<RunSummary>> Series(const SeriesQuery& query) = 0;
  // The series a package has, by model (unknown first), mode and metric.
  virtual StoreResult<std::vector<SeriesKey>> SeriesOfPackage(std::string_view package) = 0;
  // A run's summaries, by metric; empty when it has none (yet).
  virtual StoreResult<std::vector<RunSummary>> RunSummaries(int64_t run_id) = 0;
  // Succeeded runs with no summary, ids above `after_run_id`, at most `limit`, by id: the pages
  // of the back-fill (orchestrator/lab/run_summaries.h).
  virtual StoreResult<std::vector<int64_t>> RunsWithoutSummaries(int64_t after_run_id,
                                                                 int64_t limit) = 0;

  // Builds, newest first; one by id or by its sha256 (kNotFound); those created before a time.
  virtual StoreResult<std::vector<Build>> ListBuilds() = 0;
  virtual StoreResult<Build> GetBuild(int64_t build_id) = 0;
  virtual StoreResult<Build> GetBuildBySha256(std::string_view sha256) = 0;
  virtual StoreResult<std::vector<Build>> ListBuildsCreatedBefore(int64_t created_at) = 0;
  // How many queued or running runs name the build (a build in use is not deleted).
  virtual StoreResult<int64_t> CountRunsUsingBuild(int64_t build_id) = 0;
  // How many builds keep a file with these bytes (deleting a build removes a file none keeps).
  virtual StoreResult<int64_t> CountBuildsWithFile(std::string_view sha256) = 0;
  // Per package, the build droidlab last put on the device (runs' preflight.build), by package.
  virtual StoreResult<std::vector<DeviceInstalledBuild>> InstalledBuildsOnDevice(
      std::string_view serial) = 0;

  virtual StoreResult<std::vector<Schedule>> ListSchedules() = 0;
  // How many runs there are of each status present ("queued", ...), by status name.
  virtual StoreResult<std::vector<std::pair<std::string, int64_t>>> CountRunsByStatus() = 0;
  // The database server's clock, ms since the epoch (PostgreSQL's clock_timestamp()): the one
  // clock all the hosts of a lab share, so the one their claims' leases are kept in. None for
  // SQLite, whose file only this host uses: its clock is this host's.
  virtual StoreResult<std::optional<int64_t>> DatabaseClockMs() = 0;
  virtual StoreResult<Schedule> GetSchedule(int64_t schedule_id) = 0;  // kNotFound
  // The restores `serial` owes (recorded, not paid), oldest first.
  virtual StoreResult<std::vector<DeviceRestore>> ListOwedRestores(std::string_view serial) = 0;

  // Alerts (schema 0010), newest first, each with its deliveries and their attempts; keyset
  // paging by id (cursor "a1" + hex). kInvalidArgument for a limit outside 1..1000, a cursor not
  // of this list, or a state other than "open" / "resolved". Defined in alert_reads.cpp.
  virtual StoreResult<AlertPage> ListAlerts(const AlertQuery& query) = 0;
  virtual StoreResult<Alert> GetAlert(int64_t alert_id) = 0;  // kNotFound; with its deliveries
  // The pending deliveries, soonest due first (due or not), at most `limit`, each with its
  // alert (without its deliveries).
  virtual StoreResult<std::vector<PendingAlertDelivery>> PendingAlertDeliveries(int64_t limit) = 0;
  // Open regressions (a regression verdict, or a change point that made the metric larger) by
  // package and model, for /metrics.
  virtual StoreResult<std::vector<OpenRegressionCount>> OpenRegressionCounts() = 0;

  // For tests and the operator: "ok" when healthy (SQLite: PRAGMA integrity_check's first
  // line; PostgreSQL: the server answers — it checks its own pages).
  virtual StoreResult<std::string> IntegrityCheck() = 0;
};

// The opaque keyset cursors, one format for both backends: a list's two-letter prefix ("r1"
// runs, "i1" launches, "e1" looper stats, "p1" proc samples, "a1" alerts, "u1" the audit log), then
// each key of the last row sent in 16 hex digits. A cursor of another list, or not one at all, is
// refused.
std::string EncodeKeyCursor(std::string_view prefix, std::span<const int64_t> keys);
// False unless `cursor` is `prefix` and exactly keys.size() keys.
bool DecodeKeyCursor(std::string_view cursor, std::string_view prefix, std::span<int64_t> keys);
// kInvalidArgument naming the cursor that is not one of the list asked for.
StoreError NotACursorOfThisList(std::string_view cursor);

// ListRuns' cursor: (created_at, id) of the last run of a page.
std::string EncodeRunCursor(int64_t created_at, int64_t id);
bool DecodeRunCursor(std::string_view cursor, int64_t& created_at, int64_t& id);
// A device's labels as both backends' queries aggregate them (joined by newlines, or NULL for
// none), split and sorted bytewise.
std::vector<std::string> SplitDeviceLabels(const std::optional<std::string>& joined);

// ListAudit's paging, shared by both backends: the limit checked and the cursor read into the
// id to read below (kInvalidArgument otherwise); then, with one entry more than the limit read,
// the page cut and its cursor set.
StoreResult<int64_t> AuditPageStart(int64_t limit, std::string_view cursor);
void CutAuditPage(int64_t limit, AuditPage& page);

// ListDeviceHealth's and ListDeviceEvents' limit, shared by both backends: kInvalidArgument
// outside 1..10000.
Status CheckDeviceHistoryLimit(int64_t limit);

// ListAlerts' cursor: the id of the last alert of a page (never negative).
std::string EncodeAlertCursor(int64_t id);
std::optional<int64_t> DecodeAlertCursor(std::string_view cursor);

}  // namespace droidlab::store
