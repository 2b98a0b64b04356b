// AsyncStore: the one door to the store for coroutines. Every call the store has — run state,
// measurements, devices, schedules, reads, retention, backup — as an awaitable that never blocks
// the awaiting thread: the work runs on threads the store owns (its writer thread, its reader
// pool, its maintenance thread) and the caller resumes on its own executor with the result.
//
//   store::AsyncStore door(store);
//   auto updating = door.UpdateRunStatus(std::move(update));   // named: see below
//   store::Status updated = co_await std::move(updating);
//   auto listing = door.ListRuns(query);
//   auto page = co_await std::move(listing);
//
// Shaped as the store's interface (records in, records out, StoreResult errors), never as
// SQLite's: a second backend goes behind the same calls. An AsyncStore is a handle (a pointer
// to the Store; its calls are const): cheap to copy, valid while the Store lives. Thread-safe like the Store.
//
// g++ 12 (Debian 12's compiler) destroys TWICE a temporary with a non-trivial destructor that
// is part of a co_await full-expression (a record copied into an argument, a lambda capturing a
// string, a std::string built in the argument list). Build each operation in its own statement
// from named arguments, then `co_await std::move(op)`, as above; tools/checks/co_await_check.py
// rejects the other shapes.
//
// Not cancellable: a store call finishes in milliseconds (a retention or a backup in seconds),
// and abandoning it would leave its completion to resume a coroutine frame that is gone.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "store/error.h"
#include "store/reader.h"
#include "store/records.h"
#include "store/store.h"
#include "store/unique_function.h"

namespace droidlab::store {

class AsyncStore {
 public:
  template <class T>
  using Awaitable = boost::asio::awaitable<T>;

  explicit AsyncStore(Store& store) : store_(&store) {}

  // ---- Run state: resumes once committed durably (Store::CreateRun, UpdateRunStatus).
  Awaitable<StoreResult<int64_t>> CreateRun(NewRun run) const;
  Awaitable<Status> UpdateRunStatus(RunStatusUpdate update) const;
  Awaitable<StoreResult<int64_t>> InterruptRunningRuns(std::string reason, int64_t now_ms) const;
  // Claims of runs by hosts (Store::ClaimRun, RenewLeases, ExpireLeases, RequestRunCancel).
  Awaitable<StoreResult<std::optional<int64_t>>> ClaimRun(RunClaim claim) const;
  Awaitable<StoreResult<std::vector<PhoneClaim>>> ClaimRunsForPhones(
      std::string host, std::vector<std::string> serials, int64_t lease_until) const;
  Awaitable<StoreResult<RenewedLeases>> RenewLeases(std::string host, int64_t lease_until) const;
  Awaitable<StoreResult<ExpiredLeases>> ExpireLeases(LeaseExpiry expiry) const;
  Awaitable<StoreResult<CancelRequest>> RequestRunCancel(int64_t run_id, std::string reason,
                                                         int64_t now_ms) const;
  Awaitable<StoreResult<bool>> ReleaseClaim(int64_t run_id, std::string host) const;

  // ---- Measurements and devices: resume once the writer's queue took the records (back-
  // pressure); `committed` (may be null) runs on the writer thread once they are on disk, or
  // with the error that lost them.
  Awaitable<Status> AddLaunches(std::vector<Launch> launches, Completion committed) const;
  Awaitable<Status> AddLooperStats(std::vector<LooperStatsRow> rows, Completion committed) const;
  Awaitable<Status> AddProcSamples(std::vector<ProcSample> samples, Completion committed) const;
  Awaitable<Status> AddIterationFrames(std::vector<IterationFrames> frames,
                                       Completion committed) const;
  Awaitable<Status> AddIterationFaults(std::vector<IterationFault> faults,
                                       Completion committed) const;
  Awaitable<Status> AddIterationMemory(std::vector<IterationMemory> memory,
                                       Completion committed) const;
  Awaitable<Status> AddLateIterationFaults(int64_t run_id, int64_t iteration,
                                           std::vector<IterationFault> faults,
                                           std::string invalid_reason, Completion committed) const;
  Awaitable<Status> UpsertDevice(Device device, Completion committed) const;
  Awaitable<Status> RecordDeviceState(DeviceStateChange change, Completion committed) const;

  // ---- Builds: resume once committed durably.
  // Durable: resumes once committed (Store::AddRunSummaries).
  Awaitable<Status> AddRunSummaries(std::vector<RunSummary> summaries) const;
  Awaitable<StoreResult<AddedBuild>> AddBuild(NewBuild build) const;
  Awaitable<Status> DeleteBuild(int64_t build_id) const;
  Awaitable<StoreResult<std::vector<Build>>> ListBuilds() const;
  Awaitable<StoreResult<Build>> GetBuild(int64_t build_id) const;
  Awaitable<StoreResult<Build>> GetBuildBySha256(std::string sha256) const;
  Awaitable<StoreResult<std::vector<Build>>> ListBuildsCreatedBefore(int64_t created_at) const;
  Awaitable<StoreResult<int64_t>> CountRunsUsingBuild(int64_t build_id) const;
  Awaitable<StoreResult<int64_t>> CountBuildsWithFile(std::string sha256) const;
  Awaitable<StoreResult<std::vector<DeviceInstalledBuild>>> InstalledBuildsOnDevice(
      std::string serial) const;

  // ---- Schedules: resume once committed durably.
  Awaitable<StoreResult<int64_t>> CreateSchedule(NewSchedule schedule) const;
  Awaitable<Status> DeleteSchedule(int64_t schedule_id) const;
  Awaitable<Status> SetScheduleEnabled(int64_t schedule_id, bool enabled) const;
  Awaitable<Status> MarkScheduleFired(int64_t schedule_id, int64_t fired_at) const;
  // ---- Hosts and device labels: resume once committed durably.
  Awaitable<Status> UpsertHost(Host host) const;
  Awaitable<Status> AddAuditEntry(AuditEntry entry) const;
  Awaitable<Status> SetDeviceLabels(std::string serial, std::vector<std::string> labels) const;
  // ---- Fleet health (schema 0019): resume once committed durably (Store::QuarantineDevice, …).
  Awaitable<Status> RecordDeviceHealth(DeviceHealthSample sample) const;
  Awaitable<Status> RecordDeviceEvent(DeviceEvent event) const;
  Awaitable<Status> QuarantineDevice(DeviceEvent event) const;
  Awaitable<Status> ReleaseDevice(DeviceEvent event) const;
  // ---- Device restores: resume once committed durably (Store::RecordDeviceRestore).
  Awaitable<StoreResult<int64_t>> RecordDeviceRestore(DeviceRestore restore) const;
  Awaitable<Status> MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at) const;
  // ---- Alerts: resume once committed durably (Store::CreateAlert, ...).
  Awaitable<StoreResult<int64_t>> CreateAlert(NewAlert alert,
                                              std::vector<NewAlertDelivery> deliveries) const;
  Awaitable<Status> RecordAlertAttempt(AlertAttemptRecord record) const;
  Awaitable<Status> ResolveAlert(int64_t alert_id, int64_t resolved_at) const;
  // Resumes once everything queued before it is committed (durably).
  Awaitable<Status> Flush() const;

  // ---- Reads, each on a reader thread (Reader's calls, same errors).
  Awaitable<StoreResult<std::vector<Device>>> ListDevices() const;
  Awaitable<StoreResult<Device>> GetDevice(std::string serial) const;
  Awaitable<StoreResult<std::vector<DeviceStateChange>>> ListDeviceStateChanges(
      std::string serial) const;
  Awaitable<StoreResult<std::vector<Host>>> ListHosts() const;
  Awaitable<StoreResult<std::vector<DeviceHealthSample>>> ListDeviceHealth(std::string serial,
                                                                            int64_t since,
                                                                            int64_t limit) const;
  Awaitable<StoreResult<std::vector<DeviceEvent>>> ListDeviceEvents(std::string serial,
                                                                    int64_t limit) const;
  Awaitable<StoreResult<AuditPage>> ListAudit(int64_t limit, std::string cursor) const;
  Awaitable<StoreResult<RunPage>> ListRuns(RunQuery query) const;
  Awaitable<StoreResult<Run>> GetRun(int64_t run_id) const;
  Awaitable<StoreResult<std::vector<Launch>>> ListLaunches(int64_t run_id) const;
  Awaitable<StoreResult<std::vector<LooperStatsRow>>> ListLooperStats(int64_t run_id) const;
  Awaitable<StoreResult<std::vector<ProcSample>>> ListProcSamples(int64_t run_id) const;
  Awaitable<StoreResult<std::vector<IterationFrames>>> ListIterationFrames(int64_t run_id) const;
  Awaitable<StoreResult<std::vector<IterationMemory>>> ListIterationMemory(int64_t run_id) const;
  Awaitable<StoreResult<std::vector<LaunchHistoryPoint>>> LaunchHistory(
      LaunchHistoryQuery query) const;
  Awaitable<StoreResult<std::vector<RunSummary>>> Series(SeriesQuery query) const;
  Awaitable<StoreResult<std::vector<SeriesKey>>> SeriesOfPackage(std::string package) const;
  Awaitable<StoreResult<std::vector<RunSummary>>> RunSummaries(int64_t run_id) const;
  Awaitable<StoreResult<std::vector<Schedule>>> ListSchedules() const;
  Awaitable<StoreResult<Schedule>> GetSchedule(int64_t schedule_id) const;
  Awaitable<StoreResult<std::vector<std::pair<std::string, int64_t>>>> CountRunsByStatus() const;
  Awaitable<StoreResult<std::vector<DeviceRestore>>> ListOwedRestores(std::string serial) const;
  Awaitable<StoreResult<AlertPage>> ListAlerts(AlertQuery query) const;
  Awaitable<StoreResult<std::vector<PendingAlertDelivery>>> PendingAlertDeliveries(
      int64_t limit) const;
  // Several queries in one trip to a reader thread: `query(reader)` runs there (it must not
  // block on anything but the reader) and its result is returned.
  template <class Query>
  auto Read(Query query) const -> Awaitable<std::invoke_result_t<Query&, Reader&>>;

  // ---- Maintenance.
  // Retention in the writer's small steps (Store::Prune); resumes when the last step committed.
  Awaitable<StoreResult<RetentionResult>> Prune(RetentionPolicy policy) const;
  // An online backup (Store::Backup) on the store's maintenance thread.
  Awaitable<Status> Backup(std::string destination, BackupOptions options) const;

  StoreStats stats() const { return store_->stats(); }

 private:
  // Runs `task` on a reader thread; resumes the caller on its executor once it has run.
  Awaitable<void> OnReaderThread(UniqueFunction<void(Reader&)> task) const;

  Store* store_;
};

template <class Query>
auto AsyncStore::Read(Query query) const -> Awaitable<std::invoke_result_t<Query&, Reader&>> {
  using T = std::invoke_result_t<Query&, Reader&>;
  // Written on the reader thread, read here after the resumption that the task's end posts
  // (the post orders the two).
  std::optional<T> result;
  UniqueFunction<void(Reader&)> task = [&result, query = std::move(query)](Reader& reader) mutable {
    result.emplace(query(reader));
  };
  auto reading = OnReaderThread(std::move(task));
  co_await std::move(reading);
  co_return std::move(*result);
}

}  // namespace droidlab::store
