// SqliteReader: the Reader (reader.h, whose comments say what each query returns) on one
// read-only SQLite connection, each statement prepared once per connection. Internal to store/.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/reader.h"

namespace droidlab::store {

class Database;
class ScopedStatement;

class SqliteReader final : public Reader {
 public:
  explicit SqliteReader(std::unique_ptr<Database> db);
  ~SqliteReader() override;

  StoreResult<std::vector<Device>> ListDevices() override;
  StoreResult<Device> GetDevice(std::string_view serial) override;
  StoreResult<std::vector<Host>> ListHosts() override;
  StoreResult<std::vector<DeviceHealthSample>> ListDeviceHealth(std::string_view serial,
                                                                int64_t since,
                                                                int64_t limit) override;
  StoreResult<std::vector<DeviceEvent>> ListDeviceEvents(std::string_view serial,
                                                         int64_t limit) override;
  StoreResult<AuditPage> ListAudit(int64_t limit, std::string_view cursor) override;
  StoreResult<std::vector<DeviceStateChange>> ListDeviceStateChanges(
      std::string_view serial) override;
  StoreResult<RunPage> ListRuns(const RunQuery& query) override;
  StoreResult<Run> GetRun(int64_t run_id) override;
  StoreResult<std::optional<Run>> PreviousSuccessfulRun(
      std::string_view package, const std::optional<std::string>& device_model,
      std::string_view mode, int64_t before_created_at) override;
  StoreResult<std::vector<Run>> CalibrationRuns(std::string_view package,
                                                const std::optional<std::string>& device_model,
                                                const std::optional<std::string>& mode,
                                                int limit) override;
  StoreResult<std::vector<Launch>> ListLaunches(int64_t run_id) override;
  StoreResult<std::vector<LooperStatsRow>> ListLooperStats(int64_t run_id) override;
  StoreResult<std::vector<ProcSample>> ListProcSamples(int64_t run_id) override;
  StoreResult<std::vector<IterationFrames>> ListIterationFrames(int64_t run_id) override;
  StoreResult<std::vector<IterationFrames>> ListIterationFrameFigures(int64_t run_id) override;
  StoreResult<std::vector<IterationFault>> ListIterationFaults(int64_t run_id) override;
  StoreResult<std::vector<IterationMemory>> ListIterationMemory(int64_t run_id) override;
  StoreResult<RowPage<Launch>> PageLaunches(int64_t run_id, const RowPageQuery& query) override;
  StoreResult<RowPage<LooperStatsRow>> PageLooperStats(int64_t run_id,
                                                       const RowPageQuery& query) override;
  StoreResult<RowPage<ProcSample>> PageProcSamples(int64_t run_id,
                                                   const RowPageQuery& query) override;
  StoreResult<std::vector<LaunchHistoryPoint>> LaunchHistory(
      const LaunchHistoryQuery& query) override;
  StoreResult<std::vector<RunSummary>> Series(const SeriesQuery& query) override;
  StoreResult<std::vector<SeriesKey>> SeriesOfPackage(std::string_view package) override;
  StoreResult<std::vector<RunSummary>> RunSummaries(int64_t run_id) override;
  StoreResult<std::vector<int64_t>> RunsWithoutSummaries(int64_t after_run_id,
                                                         int64_t limit) override;
  StoreResult<std::vector<Build>> ListBuilds() override;
  StoreResult<Build> GetBuild(int64_t build_id) override;
  StoreResult<Build> GetBuildBySha256(std::string_view sha256) override;
  StoreResult<std::vector<Build>> ListBuildsCreatedBefore(int64_t created_at) override;
  StoreResult<int64_t> CountRunsUsingBuild(int64_t build_id) override;
  StoreResult<int64_t> CountBuildsWithFile(std::string_view sha256) override;
  StoreResult<std::vector<DeviceInstalledBuild>> InstalledBuildsOnDevice(
      std::string_view serial) override;
  StoreResult<std::vector<Schedule>> ListSchedules() override;
  StoreResult<std::vector<std::pair<std::string, int64_t>>> CountRunsByStatus() override;
  StoreResult<std::optional<int64_t>> DatabaseClockMs() override {
    return std::optional<int64_t>();
  }
  StoreResult<Schedule> GetSchedule(int64_t schedule_id) override;
  StoreResult<std::vector<DeviceRestore>> ListOwedRestores(std::string_view serial) override;
  StoreResult<AlertPage> ListAlerts(const AlertQuery& query) override;
  StoreResult<Alert> GetAlert(int64_t alert_id) override;
  StoreResult<std::vector<PendingAlertDelivery>> PendingAlertDeliveries(int64_t limit) override;
  StoreResult<std::vector<OpenRegressionCount>> OpenRegressionCounts() override;
  StoreResult<std::string> IntegrityCheck() override;

 private:
  // Reads each build's files (build_files) into it.
  Status FillBuildFiles(std::vector<Build>& builds);
  // The build `st` selects, with its files; kNotFound saying `not_found`.
  StoreResult<Build> ReadOneBuild(ScopedStatement& st, std::string not_found);
  // Fills an alert's explained_by from its JSON, and (with_deliveries) its deliveries.
  Status FillAlert(Alert& alert, const std::string& explained_by_json, bool with_deliveries);
  std::unique_ptr<Database> db_;
};

}  // namespace droidlab::store
