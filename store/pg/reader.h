// PgReader: the API's queries on one PostgreSQL connection — the same calls, arguments, results,
// orders, cursors and errors as the SQLite Reader (../reader.h, whose comments say what each
// returns), in PostgreSQL's dialect (sql/). Text is ordered with COLLATE "C", byte order like
// SQLite's, so both backends list the same rows in the same order whatever the server's locale.
//
// Threading: used by one thread at a time (a pooled connection); calls block on the server.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/reader.h"
#include "store/records.h"

namespace droidlab::store::pg {

class PgReader final : public Reader {
 public:
  // How a new connection is opened when this one broke (the store's: read-only, like the first).
  using Reopen = std::function<StoreResult<Connection>()>;

  explicit PgReader(Connection connection, Reopen reopen = nullptr)
      : connection_(std::move(connection)), reopen_(std::move(reopen)) {}

  // A connection libpq saw break (a query on it failed with kUnavailable) is replaced by a new
  // one, one attempt a call; the store's pool calls it before each lend, so the query after the
  // one that met the break runs on a new connection. While the server is still away the broken
  // one stays and the next query fails with kUnavailable. True when it reconnected.
  bool ReconnectIfBroken();

  // Every device ever seen, by serial.
  StoreResult<std::vector<Device>> ListDevices() override;
  // kNotFound if never seen.
  StoreResult<Device> GetDevice(std::string_view serial) override;
  StoreResult<std::vector<Host>> ListHosts() override;
  // A device's health samples since a time and its events (schema 0019), newest first (at, then
  // id), at most `limit` (1..10000).
  StoreResult<std::vector<DeviceHealthSample>> ListDeviceHealth(std::string_view serial,
                                                                int64_t since,
                                                                int64_t limit) override;
  StoreResult<std::vector<DeviceEvent>> ListDeviceEvents(std::string_view serial,
                                                         int64_t limit) override;
  StoreResult<AuditPage> ListAudit(int64_t limit, std::string_view cursor) override;
  // A device's state changes, oldest first.
  StoreResult<std::vector<DeviceStateChange>> ListDeviceStateChanges(
      std::string_view serial) override;

  // Newest first (created_at, then id), at most query.limit; next_cursor continues after the
  // last run returned (keyset paging: stable while runs are added). kInvalidArgument for a
  // cursor this store did not issue or a limit outside 1..1000.
  StoreResult<RunPage> ListRuns(const RunQuery& query) override;
  StoreResult<Run> GetRun(int64_t run_id) override;  // kNotFound
  // The last run of the same package on the same device model in the same mode that succeeded
  // and was created before `before_created_at`: the default baseline. nullopt if none.
  StoreResult<std::optional<Run>> PreviousSuccessfulRun(
      std::string_view package, const std::optional<std::string>& device_model,
      std::string_view mode, int64_t before_created_at) override;

  // A package's succeeded calibration runs (an A/A of one build), newest first, at most
  // `limit`; a model or mode not given matches any.
  StoreResult<std::vector<Run>> CalibrationRuns(std::string_view package,
                                                const std::optional<std::string>& device_model,
                                                const std::optional<std::string>& mode,
                                                int limit) override;

  // A run's rows, all of them, in iteration / dump / time order. Empty for an unknown run.
  StoreResult<std::vector<Launch>> ListLaunches(int64_t run_id) override;
  StoreResult<std::vector<LooperStatsRow>> ListLooperStats(int64_t run_id) override;
  StoreResult<std::vector<ProcSample>> ListProcSamples(int64_t run_id) override;
  // A run's frames per iteration (schema 0011), in iteration order; a run of 1,000 iterations
  // of 120 frames is ~1,000 rows of ~10 KB: no paging.
  StoreResult<std::vector<IterationFrames>> ListIterationFrames(int64_t run_id) override;
  // The same figures with columns_json and rows_json left "[]": for summaries and verdicts.
  StoreResult<std::vector<IterationFrames>> ListIterationFrameFigures(int64_t run_id) override;
  // A run's faults (schema 0012), in iteration order and each iteration's as they came; a run
  // has at most a few per iteration: no paging.
  StoreResult<std::vector<IterationFault>> ListIterationFaults(int64_t run_id) override;
  // A run's memory per iteration (schema 0013), in iteration order; one small row each.
  StoreResult<std::vector<IterationMemory>> ListIterationMemory(int64_t run_id) override;
  // The same rows a page at a time (the API's rows routes: no request reads an hour of 10 ms
  // samples at once). Keyset paging, each cursor opaque and of its own list: the iteration
  // ("i1" + hex), the dump order ("e1" + hex), the time and row ("p1" + hex) of the last row
  // sent, so a page costs the same at the end of a run as at its start, and rows added while a
  // client pages are neither skipped nor repeated. kInvalidArgument for a cursor not of this list.
  StoreResult<RowPage<Launch>> PageLaunches(int64_t run_id, const RowPageQuery& query) override;
  StoreResult<RowPage<LooperStatsRow>> PageLooperStats(int64_t run_id,
                                                       const RowPageQuery& query) override;
  StoreResult<RowPage<ProcSample>> PageProcSamples(int64_t run_id,
                                                   const RowPageQuery& query) override;

  // A package's succeeded runs created since query.since (optionally of one device model and
  // mode), oldest first, each with its valid launches summarised. Group by device_model on the
  // caller's side when no model is given.
  StoreResult<std::vector<LaunchHistoryPoint>> LaunchHistory(
      const LaunchHistoryQuery& query) override;

  // One series (schema 0009): the succeeded runs of a package on a model in a mode created in
  // [since, until] that have counted launches of the metric, oldest first (t, then run id).
  // A range of run_summaries' primary key: 10,000 points take milliseconds (bench/README.md).
  StoreResult<std::vector<RunSummary>> Series(const SeriesQuery& query) override;
  // The series a package has, by model (unknown first), mode and metric.
  StoreResult<std::vector<SeriesKey>> SeriesOfPackage(std::string_view package) override;
  // A run's summaries, by metric; empty when it has none (yet).
  StoreResult<std::vector<RunSummary>> RunSummaries(int64_t run_id) override;
  // Succeeded runs with no summary, ids above `after_run_id`, at most `limit`, by id: the pages
  // of the back-fill (orchestrator/lab/run_summaries.h).
  StoreResult<std::vector<int64_t>> RunsWithoutSummaries(int64_t after_run_id,
                                                         int64_t limit) override;

  // Builds, newest first; one by id or by its sha256 (kNotFound); those created before a time.
  StoreResult<std::vector<Build>> ListBuilds() override;
  StoreResult<Build> GetBuild(int64_t build_id) override;
  StoreResult<Build> GetBuildBySha256(std::string_view sha256) override;
  StoreResult<std::vector<Build>> ListBuildsCreatedBefore(int64_t created_at) override;
  // How many queued or running runs name the build (a build in use is not deleted).
  StoreResult<int64_t> CountRunsUsingBuild(int64_t build_id) override;
  // How many builds keep a file with these bytes (deleting a build removes a file none keeps).
  StoreResult<int64_t> CountBuildsWithFile(std::string_view sha256) override;
  // Per package, the build droidlab last put on the device (runs' preflight.build), by package.
  StoreResult<std::vector<DeviceInstalledBuild>> InstalledBuildsOnDevice(
      std::string_view serial) override;

  StoreResult<std::vector<Schedule>> ListSchedules() override;
  // How many runs there are of each status present ("queued", ...), by status name.
  StoreResult<std::vector<std::pair<std::string, int64_t>>> CountRunsByStatus() override;
  // The server's clock_timestamp() in ms.
  StoreResult<std::optional<int64_t>> DatabaseClockMs() override;
  StoreResult<Schedule> GetSchedule(int64_t schedule_id) override;  // kNotFound
  // The restores `serial` owes (recorded, not paid), oldest first.
  StoreResult<std::vector<DeviceRestore>> ListOwedRestores(std::string_view serial) override;

  // Alerts (schema 0010), newest first, each with its deliveries and their attempts; keyset
  // paging by id (cursor "a1" + hex). kInvalidArgument for a limit outside 1..1000, a cursor not
  // of this list, or a state other than "open" / "resolved". Defined in alert_reads.cpp.
  StoreResult<AlertPage> ListAlerts(const AlertQuery& query) override;
  StoreResult<Alert> GetAlert(int64_t alert_id) override;  // kNotFound; with its deliveries
  // The pending deliveries, soonest due first (due or not), at most `limit`, each with its
  // alert (without its deliveries).
  StoreResult<std::vector<PendingAlertDelivery>> PendingAlertDeliveries(int64_t limit) override;
  // Open regressions (a regression verdict, or a change point that made the metric larger) by
  // package and model, for /metrics.
  StoreResult<std::vector<OpenRegressionCount>> OpenRegressionCounts() override;

  // For tests and the operator: "ok" when the connection answers (PostgreSQL checks its own
  // pages; amcheck is an operator's tool, not a request's).
  StoreResult<std::string> IntegrityCheck() override;

  Connection& connection() { return connection_; }

 private:
  Connection connection_;
  Reopen reopen_;
};

}  // namespace droidlab::store::pg
