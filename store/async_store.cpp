#include "store/async_store.h"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace droidlab::store {

namespace asio = boost::asio;

namespace {

// `start(done)` must call exactly one Store *Async function (or PostRead) passing `done` as its
// completion; `done` takes the completion's argument and resumes the caller with it, on the
// caller's executor (the store runs completions on its own threads).
template <class T, class Start>
asio::awaitable<T> AwaitCompletion(Start start) {
  // Tracked: a store call in flight is outstanding work, so the caller's io_context does not
  // run out of work (and stop) before the result is posted back to it.
  auto executor =
      asio::prefer(co_await asio::this_coro::executor, asio::execution::outstanding_work.tracked);
  auto initiation = [executor, start = std::move(start)](auto handler) mutable {
    start([executor, handler = std::move(handler)](T value) mutable {
      asio::post(executor, [handler = std::move(handler), value = std::move(value)]() mutable {
        std::move(handler)(std::move(value));
      });
    });
  };
  // Named, then awaited: see the g++ 12 note in async_store.h.
  auto completion = asio::async_initiate<decltype(asio::use_awaitable), void(T)>(
      std::move(initiation), asio::use_awaitable);
  co_return co_await std::move(completion);
}

// The measurements' and devices' async forms: resume once accepted, `committed` kept for later.
template <class Push>
asio::awaitable<Status> AwaitAccepted(Push push) {
  auto start = [&push](auto accepted) { push(std::move(accepted)); };
  auto accepting = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(accepting);
}

}  // namespace

// ---- Run state

AsyncStore::Awaitable<StoreResult<int64_t>> AsyncStore::CreateRun(NewRun run) const {
  auto start = [this, &run](auto done) { store_->CreateRunAsync(std::move(run), std::move(done)); };
  auto creating = AwaitCompletion<StoreResult<int64_t>>(std::move(start));
  co_return co_await std::move(creating);
}

AsyncStore::Awaitable<Status> AsyncStore::UpdateRunStatus(RunStatusUpdate update) const {
  auto start = [this, &update](auto done) {
    store_->UpdateRunStatusAsync(std::move(update), std::move(done));
  };
  auto updating = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(updating);
}

AsyncStore::Awaitable<StoreResult<int64_t>> AsyncStore::InterruptRunningRuns(std::string reason,
                                                                             int64_t now_ms) const {
  auto start = [this, &reason, now_ms](auto done) {
    store_->InterruptRunningRunsAsync(std::move(reason), now_ms, std::move(done));
  };
  auto interrupting = AwaitCompletion<StoreResult<int64_t>>(std::move(start));
  co_return co_await std::move(interrupting);
}

AsyncStore::Awaitable<StoreResult<std::optional<int64_t>>> AsyncStore::ClaimRun(
    RunClaim claim) const {
  auto start = [this, &claim](auto done) {
    store_->ClaimRunAsync(std::move(claim), std::move(done));
  };
  auto claiming = AwaitCompletion<StoreResult<std::optional<int64_t>>>(std::move(start));
  co_return co_await std::move(claiming);
}

AsyncStore::Awaitable<StoreResult<std::vector<PhoneClaim>>> AsyncStore::ClaimRunsForPhones(
    std::string host, std::vector<std::string> serials, int64_t lease_until) const {
  auto start = [this, &host, &serials, lease_until](auto done) {
    store_->ClaimRunsForPhonesAsync(std::move(host), std::move(serials), lease_until,
                                    std::move(done));
  };
  auto claiming = AwaitCompletion<StoreResult<std::vector<PhoneClaim>>>(std::move(start));
  co_return co_await std::move(claiming);
}

AsyncStore::Awaitable<StoreResult<RenewedLeases>> AsyncStore::RenewLeases(
    std::string host, int64_t lease_until) const {
  auto start = [this, &host, lease_until](auto done) {
    store_->RenewLeasesAsync(std::move(host), lease_until, std::move(done));
  };
  auto renewing = AwaitCompletion<StoreResult<RenewedLeases>>(std::move(start));
  co_return co_await std::move(renewing);
}

AsyncStore::Awaitable<StoreResult<ExpiredLeases>> AsyncStore::ExpireLeases(
    LeaseExpiry expiry) const {
  auto start = [this, &expiry](auto done) {
    store_->ExpireLeasesAsync(std::move(expiry), std::move(done));
  };
  auto expiring = AwaitCompletion<StoreResult<ExpiredLeases>>(std::move(start));
  co_return co_await std::move(expiring);
}

AsyncStore::Awaitable<StoreResult<bool>> AsyncStore::ReleaseClaim(int64_t run_id,
                                                                  std::string host) const {
  auto start = [this, run_id, &host](auto done) {
    store_->ReleaseClaimAsync(run_id, std::move(host), std::move(done));
  };
  auto releasing = AwaitCompletion<StoreResult<bool>>(std::move(start));
  co_return co_await std::move(releasing);
}

AsyncStore::Awaitable<StoreResult<CancelRequest>> AsyncStore::RequestRunCancel(
    int64_t run_id, std::string reason, int64_t now_ms) const {
  auto start = [this, run_id, &reason, now_ms](auto done) {
    store_->RequestRunCancelAsync(run_id, std::move(reason), now_ms, std::move(done));
  };
  auto requesting = AwaitCompletion<StoreResult<CancelRequest>>(std::move(start));
  co_return co_await std::move(requesting);
}

// ---- Measurements and devices

AsyncStore::Awaitable<Status> AsyncStore::AddLaunches(std::vector<Launch> launches,
                                                      Completion committed) const {
  auto push = [this, &launches, &committed](auto accepted) {
    store_->AddLaunchesAsync(std::move(launches), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::AddLooperStats(std::vector<LooperStatsRow> rows,
                                                         Completion committed) const {
  auto push = [this, &rows, &committed](auto accepted) {
    store_->AddLooperStatsAsync(std::move(rows), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::AddIterationFrames(std::vector<IterationFrames> frames,
                                                             Completion committed) const {
  auto push = [this, &frames, &committed](auto accepted) {
    store_->AddIterationFramesAsync(std::move(frames), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::AddIterationFaults(std::vector<IterationFault> faults,
                                                             Completion committed) const {
  auto push = [this, &faults, &committed](auto accepted) {
    store_->AddIterationFaultsAsync(std::move(faults), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::AddLateIterationFaults(
    int64_t run_id, int64_t iteration, std::vector<IterationFault> faults,
    std::string invalid_reason, Completion committed) const {
  auto push = [this, run_id, iteration, &faults, &invalid_reason, &committed](auto accepted) {
    store_->AddLateIterationFaultsAsync(run_id, iteration, std::move(faults),
                                        std::move(invalid_reason), std::move(accepted),
                                        std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::AddIterationMemory(std::vector<IterationMemory> memory,
                                                             Completion committed) const {
  auto push = [this, &memory, &committed](auto accepted) {
    store_->AddIterationMemoryAsync(std::move(memory), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::AddProcSamples(std::vector<ProcSample> samples,
                                                         Completion committed) const {
  auto push = [this, &samples, &committed](auto accepted) {
    store_->AddProcSamplesAsync(std::move(samples), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::UpsertDevice(Device device, Completion committed) const {
  auto push = [this, &device, &committed](auto accepted) {
    store_->UpsertDeviceAsync(std::move(device), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

AsyncStore::Awaitable<Status> AsyncStore::RecordDeviceState(DeviceStateChange change,
                                                            Completion committed) const {
  auto push = [this, &change, &committed](auto accepted) {
    store_->RecordDeviceStateAsync(std::move(change), std::move(accepted), std::move(committed));
  };
  auto accepting = AwaitAccepted(std::move(push));
  co_return co_await std::move(accepting);
}

// ---- Hosts and device labels

AsyncStore::Awaitable<Status> AsyncStore::UpsertHost(Host host) const {
  auto start = [this, &host](auto done) {
    store_->UpsertHostAsync(std::move(host), std::move(done));
  };
  auto registering = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(registering);
}

AsyncStore::Awaitable<Status> AsyncStore::AddAuditEntry(AuditEntry entry) const {
  auto start = [this, &entry](auto done) {
    store_->AddAuditEntryAsync(std::move(entry), std::move(done));
  };
  auto recording = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(recording);
}

AsyncStore::Awaitable<Status> AsyncStore::SetDeviceLabels(std::string serial,
                                                          std::vector<std::string> labels) const {
  auto start = [this, &serial, &labels](auto done) {
    store_->SetDeviceLabelsAsync(std::move(serial), std::move(labels), std::move(done));
  };
  auto setting = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(setting);
}

// ---- Fleet health

AsyncStore::Awaitable<Status> AsyncStore::RecordDeviceHealth(DeviceHealthSample sample) const {
  auto start = [this, &sample](auto done) {
    store_->RecordDeviceHealthAsync(std::move(sample), std::move(done));
  };
  auto recording = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(recording);
}

AsyncStore::Awaitable<Status> AsyncStore::RecordDeviceEvent(DeviceEvent event) const {
  auto start = [this, &event](auto done) {
    store_->RecordDeviceEventAsync(std::move(event), std::move(done));
  };
  auto recording = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(recording);
}

AsyncStore::Awaitable<Status> AsyncStore::QuarantineDevice(DeviceEvent event) const {
  auto start = [this, &event](auto done) {
    store_->QuarantineDeviceAsync(std::move(event), std::move(done));
  };
  auto quarantining = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(quarantining);
}

AsyncStore::Awaitable<Status> AsyncStore::ReleaseDevice(DeviceEvent event) const {
  auto start = [this, &event](auto done) {
    store_->ReleaseDeviceAsync(std::move(event), std::move(done));
  };
  auto releasing = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(releasing);
}

// ---- Device restores

AsyncStore::Awaitable<StoreResult<int64_t>> AsyncStore::RecordDeviceRestore(
    DeviceRestore restore) const {
  auto start = [this, &restore](auto done) {
    store_->RecordDeviceRestoreAsync(std::move(restore), std::move(done));
  };
  auto recording = AwaitCompletion<StoreResult<int64_t>>(std::move(start));
  co_return co_await std::move(recording);
}

AsyncStore::Awaitable<Status> AsyncStore::MarkDeviceRestorePaid(int64_t restore_id,
                                                                int64_t paid_at) const {
  auto start = [this, restore_id, paid_at](auto done) {
    store_->MarkDeviceRestorePaidAsync(restore_id, paid_at, std::move(done));
  };
  auto marking = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(marking);
}

// ---- Builds

AsyncStore::Awaitable<StoreResult<AddedBuild>> AsyncStore::AddBuild(NewBuild build) const {
  auto start = [this, &build](auto done) {
    store_->AddBuildAsync(std::move(build), std::move(done));
  };
  auto adding = AwaitCompletion<StoreResult<AddedBuild>>(std::move(start));
  co_return co_await std::move(adding);
}

AsyncStore::Awaitable<Status> AsyncStore::DeleteBuild(int64_t build_id) const {
  auto start = [this, build_id](auto done) { store_->DeleteBuildAsync(build_id, std::move(done)); };
  auto deleting = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(deleting);
}

AsyncStore::Awaitable<Status> AsyncStore::AddRunSummaries(
    std::vector<RunSummary> summaries) const {
  auto start = [this, &summaries](auto done) {
    store_->AddRunSummariesAsync(std::move(summaries), std::move(done));
  };
  auto storing = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(storing);
}

AsyncStore::Awaitable<StoreResult<std::vector<Build>>> AsyncStore::ListBuilds() const {
  auto query = [](Reader& r) { return r.ListBuilds(); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<Build>> AsyncStore::GetBuild(int64_t build_id) const {
  auto query = [build_id](Reader& r) { return r.GetBuild(build_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<Build>> AsyncStore::GetBuildBySha256(std::string sha256) const {
  auto query = [sha256](Reader& r) { return r.GetBuildBySha256(sha256); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<Build>>> AsyncStore::ListBuildsCreatedBefore(
    int64_t created_at) const {
  auto query = [created_at](Reader& r) { return r.ListBuildsCreatedBefore(created_at); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<int64_t>> AsyncStore::CountRunsUsingBuild(int64_t build_id) const {
  auto query = [build_id](Reader& r) { return r.CountRunsUsingBuild(build_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<int64_t>> AsyncStore::CountBuildsWithFile(std::string sha256) const {
  auto query = [sha256 = std::move(sha256)](Reader& r) { return r.CountBuildsWithFile(sha256); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<DeviceInstalledBuild>>>
AsyncStore::InstalledBuildsOnDevice(std::string serial) const {
  auto query = [serial](Reader& r) { return r.InstalledBuildsOnDevice(serial); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

// ---- Schedules

AsyncStore::Awaitable<StoreResult<int64_t>> AsyncStore::CreateSchedule(NewSchedule schedule) const {
  auto start = [this, &schedule](auto done) {
    store_->CreateScheduleAsync(std::move(schedule), std::move(done));
  };
  auto creating = AwaitCompletion<StoreResult<int64_t>>(std::move(start));
  co_return co_await std::move(creating);
}

AsyncStore::Awaitable<Status> AsyncStore::DeleteSchedule(int64_t schedule_id) const {
  auto start = [this, schedule_id](auto done) {
    store_->DeleteScheduleAsync(schedule_id, std::move(done));
  };
  auto deleting = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(deleting);
}

AsyncStore::Awaitable<Status> AsyncStore::SetScheduleEnabled(int64_t schedule_id,
                                                             bool enabled) const {
  auto start = [this, schedule_id, enabled](auto done) {
    store_->SetScheduleEnabledAsync(schedule_id, enabled, std::move(done));
  };
  auto enabling = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(enabling);
}

AsyncStore::Awaitable<Status> AsyncStore::MarkScheduleFired(int64_t schedule_id,
                                                            int64_t fired_at) const {
  auto start = [this, schedule_id, fired_at](auto done) {
    store_->MarkScheduleFiredAsync(schedule_id, fired_at, std::move(done));
  };
  auto marking = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(marking);
}

// ---- Alerts

AsyncStore::Awaitable<StoreResult<int64_t>> AsyncStore::CreateAlert(
    NewAlert alert, std::vector<NewAlertDelivery> deliveries) const {
  auto start = [this, &alert, &deliveries](auto done) {
    store_->CreateAlertAsync(std::move(alert), std::move(deliveries), std::move(done));
  };
  auto creating = AwaitCompletion<StoreResult<int64_t>>(std::move(start));
  co_return co_await std::move(creating);
}

AsyncStore::Awaitable<Status> AsyncStore::RecordAlertAttempt(AlertAttemptRecord record) const {
  auto start = [this, &record](auto done) {
    store_->RecordAlertAttemptAsync(std::move(record), std::move(done));
  };
  auto recording = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(recording);
}

AsyncStore::Awaitable<Status> AsyncStore::ResolveAlert(int64_t alert_id,
                                                       int64_t resolved_at) const {
  auto start = [this, alert_id, resolved_at](auto done) {
    store_->ResolveAlertAsync(alert_id, resolved_at, std::move(done));
  };
  auto resolving = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(resolving);
}

AsyncStore::Awaitable<Status> AsyncStore::Flush() const {
  auto start = [this](auto done) { store_->FlushAsync(std::move(done)); };
  auto flushing = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(flushing);
}

// ---- Reads

AsyncStore::Awaitable<void> AsyncStore::OnReaderThread(UniqueFunction<void(Reader&)> task) const {
  auto start = [this, &task](auto done) {
    store_->PostRead([task = std::move(task), done = std::move(done)](Reader& reader) mutable {
      task(reader);
      done(true);
    });
  };
  auto reading = AwaitCompletion<bool>(std::move(start));
  co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<Device>>> AsyncStore::ListDevices() const {
  auto query = [](Reader& r) { return r.ListDevices(); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<Device>> AsyncStore::GetDevice(std::string serial) const {
  auto query = [&serial](Reader& r) { return r.GetDevice(serial); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<DeviceStateChange>>>
AsyncStore::ListDeviceStateChanges(std::string serial) const {
  auto query = [&serial](Reader& r) { return r.ListDeviceStateChanges(serial); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<Host>>> AsyncStore::ListHosts() const {
  auto query = [](Reader& r) { return r.ListHosts(); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<DeviceHealthSample>>> AsyncStore::ListDeviceHealth(
    std::string serial, int64_t since, int64_t limit) const {
  auto query = [&serial, since, limit](Reader& r) {
    return r.ListDeviceHealth(serial, since, limit);
  };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<DeviceEvent>>> AsyncStore::ListDeviceEvents(
    std::string serial, int64_t limit) const {
  auto query = [&serial, limit](Reader& r) { return r.ListDeviceEvents(serial, limit); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<AuditPage>> AsyncStore::ListAudit(int64_t limit,
                                                                    std::string cursor) const {
  auto query = [limit, &cursor](Reader& r) { return r.ListAudit(limit, cursor); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<RunPage>> AsyncStore::ListRuns(RunQuery query) const {
  auto list = [&query](Reader& r) { return r.ListRuns(query); };
  auto reading = Read(list);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<Run>> AsyncStore::GetRun(int64_t run_id) const {
  auto query = [run_id](Reader& r) { return r.GetRun(run_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<Launch>>> AsyncStore::ListLaunches(
    int64_t run_id) const {
  auto query = [run_id](Reader& r) { return r.ListLaunches(run_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<LooperStatsRow>>> AsyncStore::ListLooperStats(
    int64_t run_id) const {
  auto query = [run_id](Reader& r) { return r.ListLooperStats(run_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<ProcSample>>> AsyncStore::ListProcSamples(
    int64_t run_id) const {
  auto query = [run_id](Reader& r) { return r.ListProcSamples(run_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<IterationFrames>>> AsyncStore::ListIterationFrames(
    int64_t run_id) const {
  auto query = [run_id](Reader& r) { return r.ListIterationFrames(run_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<IterationMemory>>> AsyncStore::ListIterationMemory(
    int64_t run_id) const {
  auto query = [run_id](Reader& r) { return r.ListIterationMemory(run_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<LaunchHistoryPoint>>> AsyncStore::LaunchHistory(
    LaunchHistoryQuery query) const {
  auto history = [&query](Reader& r) { return r.LaunchHistory(query); };
  auto reading = Read(history);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<RunSummary>>> AsyncStore::Series(
    SeriesQuery query) const {
  auto series = [query = std::move(query)](Reader& r) { return r.Series(query); };
  auto reading = Read(std::move(series));
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<SeriesKey>>> AsyncStore::SeriesOfPackage(
    std::string package) const {
  auto keys = [package = std::move(package)](Reader& r) { return r.SeriesOfPackage(package); };
  auto reading = Read(std::move(keys));
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<RunSummary>>> AsyncStore::RunSummaries(
    int64_t run_id) const {
  auto summaries = [run_id](Reader& r) { return r.RunSummaries(run_id); };
  auto reading = Read(summaries);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<DeviceRestore>>> AsyncStore::ListOwedRestores(
    std::string serial) const {
  auto query = [serial = std::move(serial)](Reader& r) { return r.ListOwedRestores(serial); };
  auto reading = Read(std::move(query));
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<Schedule>>> AsyncStore::ListSchedules() const {
  auto query = [](Reader& r) { return r.ListSchedules(); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<Schedule>> AsyncStore::GetSchedule(int64_t schedule_id) const {
  auto query = [schedule_id](Reader& r) { return r.GetSchedule(schedule_id); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<std::pair<std::string, int64_t>>>>
AsyncStore::CountRunsByStatus() const {
  auto query = [](Reader& r) { return r.CountRunsByStatus(); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<AlertPage>> AsyncStore::ListAlerts(AlertQuery query) const {
  auto list = [&query](Reader& r) { return r.ListAlerts(query); };
  auto reading = Read(list);
  co_return co_await std::move(reading);
}

AsyncStore::Awaitable<StoreResult<std::vector<PendingAlertDelivery>>>
AsyncStore::PendingAlertDeliveries(int64_t limit) const {
  auto query = [limit](Reader& r) { return r.PendingAlertDeliveries(limit); };
  auto reading = Read(query);
  co_return co_await std::move(reading);
}

// ---- Maintenance

AsyncStore::Awaitable<StoreResult<RetentionResult>> AsyncStore::Prune(
    RetentionPolicy policy) const {
  auto start = [this, &policy](auto done) { store_->PruneAsync(policy, std::move(done)); };
  auto pruning = AwaitCompletion<StoreResult<RetentionResult>>(std::move(start));
  co_return co_await std::move(pruning);
}

AsyncStore::Awaitable<Status> AsyncStore::Backup(std::string destination,
                                                 BackupOptions options) const {
  auto start = [this, &destination, &options](auto done) {
    store_->BackupAsync(std::move(destination), options, std::move(done));
  };
  auto copying = AwaitCompletion<Status>(std::move(start));
  co_return co_await std::move(copying);
}

}  // namespace droidlab::store
