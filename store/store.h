// Store: droidlab's history in one SQLite file — the only code that speaks SQL (DESIGN.md).
//
// Threading model. The store's writing connection lives on ONE thread, the writer's, which it
// owns; every write is a task posted to it through a bounded queue and committed in batches
// (1,000 records or 50 ms by default). Reads use a small pool of read-only connections (WAL:
// they see the last committed batch and never wait for the writer), each with a thread of its
// own; an online backup runs on the store's maintenance thread. All member functions are
// thread-safe. Every call comes in two forms:
//   - blocking (Push-style writes when the queue is full, CreateRun, UpdateRunStatus, the
//     Reader queries through Read(), Backup, Prune, Flush) — for main(), worker threads and
//     tests, never for an io_context thread;
//   - *Async and PostRead: take a completion (UniqueFunction: a move-only Asio handler fits as
//     is) and return at once. Completions run on the writer thread, a reader thread or the
//     maintenance thread. Coroutines use them through AsyncStore (async_store.h), the store's
//     one awaitable door, which keeps Asio out of this header and out of droidlab_store.
// Completions must not throw and must not block for long (they hold up the writer).
//
// Durability. WAL with synchronous=NORMAL: a commit survives the process being killed (kill -9);
// a power loss may undo the last commits before a checkpoint. Run state changes (CreateRun,
// UpdateRunStatus, InterruptRunningRuns), schedule changes, device restores and alerts are committed at
// once and with synchronous=FULL (set before the batch's BEGIN: SQLite refuses it inside a
// transaction) before their completion runs: what was reported is on disk.
//
// Errors: StoreResult / Status with a StoreErrorCode (error.h); nothing throws out of here.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/error.h"
#include "store/reader.h"
#include "store/records.h"
#include "store/unique_function.h"

namespace droidlab::store {

class WriteSession;
class Writer;
class ReaderPool;
class TaskThread;

struct StoreOptions {
  std::string path;  // a SQLite file, or a postgresql:// URL (pg::IsPostgresUrl)
  bool create_if_missing = true;
  int busy_timeout_ms = 5000;     // waiting on another process's lock before kLocked
  size_t reader_connections = 2;  // the read pool, and the threads PostRead runs on
  size_t queue_capacity_records = 50'000;
  size_t batch_max_records = 1'000;
  // Looper-stats dumps waiting in the queue are joined into one write of up to this many rows
  // (joined_looper_stats.h); 0: never (each call its own statement, as before joining).
  size_t join_max_records = 25'000;
  std::chrono::milliseconds batch_max_delay{50};
  std::optional<int64_t> max_page_count;  // a size cap in pages (tests use it to fill the disk)
  // Test-only: on the writer thread, inside each batch's transaction right before its COMMIT,
  // with whether a durable write is in it (tests read the synchronous level in force there).
  std::function<void(WriteSession&, bool durable)> before_commit;
};

struct RetentionResult {
  int64_t runs_deleted = 0;
  int64_t steps = 0;
  // With max_age: device state changes (each device keeps its last), paid restores, audit
  // entries, device health samples and device events deleted.
  int64_t history_rows_deleted = 0;
};

struct BackupOptions {
  int pages_per_step = 1024;
  // Pause between steps, so the writer and readers get the disk too.
  std::chrono::milliseconds pause{0};
};

// `droidlab backup`: copies the database at `path` — a daemon may be writing to it — to
// `destination`, as it is: refused when it is missing, not droidlab's, corrupt or newer than
// this binary; never created, migrated nor written to (an older schema is backed up older).
// The copy is synced to disk before it is renamed into place, and its folder after.
Status BackupDatabaseAt(const std::string& path, const std::string& destination,
                        const BackupOptions& options);

// A store's path as it may be printed: the file, or the PostgreSQL URL with its password
// redacted (pg::RedactUrl).
std::string PrintableLocation(const std::string& path);

struct StoreStats {
  uint64_t batches_committed = 0;
  uint64_t records_committed = 0;
  uint64_t batches_lost = 0;
  uint64_t records_lost = 0;
  uint64_t tasks_failed = 0;
  uint64_t writes_joined = 0;  // looper-stats writes joined into a queued one's statement
  size_t queued_records = 0;
  // PostgreSQL: the writer's connection broke (each logged; its batch kept and applied again),
  // the new connections it made, and the readers' (a reader reconnects when next lent).
  uint64_t connection_losses = 0;
  uint64_t reconnects = 0;
  uint64_t reader_reconnects = 0;
};

using Completion = UniqueFunction<void(const Status&)>;

class Store {
 public:
  // Opens (creating if allowed) and migrates the database; starts the writer thread and the
  // reader pool. The errors of OpenWriterDatabase (open.h): kCannotOpen, kReadOnly, kLocked,
  // kNotADatabase, kCorrupt, kTooNew, kMigrationFailed — each names the file and the reason, and
  // a refused file is never written to. A `path` that is a postgresql:// URL opens PostgreSQL
  // instead (pg/): its database must exist; the errors of pg::Connection::Open and
  // pg::MigratePostgres, the URL named with its password redacted.
  static StoreResult<std::unique_ptr<Store>> Open(const StoreOptions& options);
  ~Store();  // finishes and commits every queued write, then closes
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // ---- Run state: committed durably before the result is returned / the completion runs.
  StoreResult<int64_t> CreateRun(const NewRun& run);  // the new run's id; status "queued"
  void CreateRunAsync(NewRun run, UniqueFunction<void(StoreResult<int64_t>)> done);
  // A queued or running run only: kNotFound for an unknown run, kConstraint for one that has
  // ended (its end is kept — one another host wrote when this one lost its claim, say).
  Status UpdateRunStatus(const RunStatusUpdate& update);
  void UpdateRunStatusAsync(RunStatusUpdate update, Completion done);
  // Start-up after a crash: every run left `running` becomes `interrupted` with `reason` as its
  // error (queued runs stay queued: the orchestrator decides whether to start them). Returns
  // how many.
  StoreResult<int64_t> InterruptRunningRuns(std::string_view reason, int64_t now_ms);
  void InterruptRunningRunsAsync(std::string reason, int64_t now_ms,
                                 UniqueFunction<void(StoreResult<int64_t>)> done);

  // ---- Runs claimed by hosts (schema 0018: several daemons on one database): durable, like
  // run state. A host claims a queued run for one of its phones (records.h's RunClaim: the
  // oldest for that serial or for a pool the phone matches, or one run by id); it renews the
  // claims it holds; any host ends the claims that lapsed (ExpiredLeases); a cancel asked
  // through a daemon that does not run the run is a flag its host reads at its next renewal.
  StoreResult<std::optional<int64_t>> ClaimRun(const RunClaim& claim);
  StoreResult<RenewedLeases> RenewLeases(std::string_view host, int64_t lease_until);
  StoreResult<ExpiredLeases> ExpireLeases(const LeaseExpiry& expiry);
  StoreResult<CancelRequest> RequestRunCancel(int64_t run_id, std::string_view reason,
                                              int64_t now_ms);  // kNotFound
  // A claimed run `host` has not started given back, unclaimed (a pool run's phone forgotten):
  // a phone quarantined with runs already claimed for it. Whether it was such a run.
  StoreResult<bool> ReleaseClaim(int64_t run_id, std::string_view host);
  void ReleaseClaimAsync(int64_t run_id, std::string host,
                         UniqueFunction<void(StoreResult<bool>)> done);
  void ClaimRunAsync(RunClaim claim,
                     UniqueFunction<void(StoreResult<std::optional<int64_t>>)> done);
  // One claim per phone (RunClaim without run_id), all in one durable commit: what a host's idle
  // phones do every second costs one commit, not one per phone.
  StoreResult<std::vector<PhoneClaim>> ClaimRunsForPhones(std::string_view host,
                                                          std::vector<std::string> serials,
                                                          int64_t lease_until);
  void ClaimRunsForPhonesAsync(std::string host, std::vector<std::string> serials,
                               int64_t lease_until,
                               UniqueFunction<void(StoreResult<std::vector<PhoneClaim>>)> done);
  void RenewLeasesAsync(std::string host, int64_t lease_until,
                        UniqueFunction<void(StoreResult<RenewedLeases>)> done);
  void ExpireLeasesAsync(LeaseExpiry expiry, UniqueFunction<void(StoreResult<ExpiredLeases>)> done);
  void RequestRunCancelAsync(int64_t run_id, std::string reason, int64_t now_ms,
                             UniqueFunction<void(StoreResult<CancelRequest>)> done);

  // ---- Measurements: batched. The blocking forms wait only for room in the queue (back-
  // pressure), not for the commit; `committed` (optional) runs once the batch holding the
  // records is committed, or with the error that lost it (kDiskFull, kConstraint, ...).
  Status AddLaunches(std::vector<Launch> launches, Completion committed = nullptr);
  Status AddLooperStats(std::vector<LooperStatsRow> rows, Completion committed = nullptr);
  Status AddProcSamples(std::vector<ProcSample> samples, Completion committed = nullptr);
  Status AddIterationFrames(std::vector<IterationFrames> frames, Completion committed = nullptr);
  Status AddIterationFaults(std::vector<IterationFault> faults, Completion committed = nullptr);
  Status AddIterationMemory(std::vector<IterationMemory> memory, Completion committed = nullptr);
  Status AddLateIterationFaults(int64_t run_id, int64_t iteration,
                                std::vector<IterationFault> faults, std::string invalid_reason,
                                Completion committed = nullptr);
  // Async forms: `accepted` runs when the queue took the records (at once, on this thread, if
  // there is room; else later on the writer thread) — await it for back-pressure.
  void AddLaunchesAsync(std::vector<Launch> launches, Completion accepted, Completion committed);
  void AddLooperStatsAsync(std::vector<LooperStatsRow> rows, Completion accepted,
                           Completion committed);
  void AddProcSamplesAsync(std::vector<ProcSample> samples, Completion accepted,
                           Completion committed);
  void AddIterationFramesAsync(std::vector<IterationFrames> frames, Completion accepted,
                               Completion committed);
  void AddIterationFaultsAsync(std::vector<IterationFault> faults, Completion accepted,
                               Completion committed);
  void AddIterationMemoryAsync(std::vector<IterationMemory> memory, Completion accepted,
                               Completion committed);
  // Faults of an iteration stored earlier (a late ANR: all of `faults` must carry `run_id` and
  // `iteration`, and seqs after the ones stored), and that iteration's launch made invalid
  // (`invalid_reason`, unless it had one): both or neither.
  void AddLateIterationFaultsAsync(int64_t run_id, int64_t iteration,
                                   std::vector<IterationFault> faults, std::string invalid_reason,
                                   Completion accepted, Completion committed);

  // ---- Devices: batched like measurements.
  // Inserts or updates by serial; first_seen is kept from the first time.
  Status UpsertDevice(const Device& device, Completion committed = nullptr);
  // Appends to the device's history and sets devices.state / last_seen (the device must have
  // been upserted; kNotFound otherwise, through `committed`).
  Status RecordDeviceState(const DeviceStateChange& change, Completion committed = nullptr);
  // Async forms: `accepted` as for measurements.
  void UpsertDeviceAsync(Device device, Completion accepted, Completion committed);
  void RecordDeviceStateAsync(DeviceStateChange change, Completion accepted, Completion committed);

  // ---- Hosts and device labels (schema 0016, issue 17 §2): durable, like schedules.
  // Registers this daemon's host, or moves its heartbeat.
  Status UpsertHost(const Host& host);
  // Replaces a device's labels (checked by the caller); kNotFound for a device never seen.
  Status SetDeviceLabels(std::string serial, std::vector<std::string> labels);
  void UpsertHostAsync(Host host, Completion done);
  // The audit log (schema 0017): durable, committed before the request's answer is sent.
  Status AddAuditEntry(const AuditEntry& entry);
  void AddAuditEntryAsync(AuditEntry entry, Completion done);
  void SetDeviceLabelsAsync(std::string serial, std::vector<std::string> labels, Completion done);

  // ---- Fleet health (schema 0019, issue 17 §3): durable, like schedules.
  // Appends a health sample / an event (ids are the store's). The device need not be known.
  Status RecordDeviceHealth(const DeviceHealthSample& sample);
  Status RecordDeviceEvent(const DeviceEvent& event);
  // Quarantines the device (quarantined_at = event.at, quarantine_reason = event.detail) and
  // appends `event` (kind "quarantined"), in one transaction; a device already quarantined keeps
  // its first reason and time, the event is still appended. kNotFound for a device never seen.
  Status QuarantineDevice(const DeviceEvent& event);
  // Clears the quarantine and appends `event` (kind "released"), in one transaction. kNotFound
  // for a device never seen; kInvalidArgument ("… is not quarantined") when it was not, and then
  // nothing is appended.
  Status ReleaseDevice(const DeviceEvent& event);
  void RecordDeviceHealthAsync(DeviceHealthSample sample, Completion done);
  void RecordDeviceEventAsync(DeviceEvent event, Completion done);
  void QuarantineDeviceAsync(DeviceEvent event, Completion done);
  void ReleaseDeviceAsync(DeviceEvent event, Completion done);

  // ---- Run summaries (schema 0009, the points of a series): durable, so that a run's end is
  // announced with its point in place. Each replaces the run's row of its metric.
  Status AddRunSummaries(std::vector<RunSummary> summaries);
  void AddRunSummariesAsync(std::vector<RunSummary> summaries, Completion done);
  // ---- Builds: durable. AddBuild gives the id of the build already kept with that sha256.
  StoreResult<AddedBuild> AddBuild(const NewBuild& build);
  Status DeleteBuild(int64_t build_id);  // kNotFound
  void AddBuildAsync(NewBuild build, UniqueFunction<void(StoreResult<AddedBuild>)> done);
  void DeleteBuildAsync(int64_t build_id, Completion done);

  // ---- Schedules: durable, like run state.
  StoreResult<int64_t> CreateSchedule(const NewSchedule& schedule);
  Status DeleteSchedule(int64_t schedule_id);  // kNotFound
  Status SetScheduleEnabled(int64_t schedule_id, bool enabled);
  // Recorded before the run it starts is queued, so a restart never fires it twice; a firing is
  // recorded once: kConstraint when it (or a later one) is recorded already — two daemons of a
  // lab that both believed they did the lab's chores fire it once. kNotFound.
  Status MarkScheduleFired(int64_t schedule_id, int64_t fired_at);
  // Async forms: `done` runs once committed durably, or with the error.
  void CreateScheduleAsync(NewSchedule schedule, UniqueFunction<void(StoreResult<int64_t>)> done);
  void DeleteScheduleAsync(int64_t schedule_id, Completion done);
  void SetScheduleEnabledAsync(int64_t schedule_id, bool enabled, Completion done);
  void MarkScheduleFiredAsync(int64_t schedule_id, int64_t fired_at, Completion done);

  // ---- Device restores (schema/0002): durable, like run state — recorded before the change
  // it undoes is sent to the device, so a crash right after still finds it. Listed with
  // Reader::ListOwedRestores.
  StoreResult<int64_t> RecordDeviceRestore(const DeviceRestore& restore);  // the new id
  Status MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at);       // kNotFound
  void RecordDeviceRestoreAsync(DeviceRestore restore,
                                UniqueFunction<void(StoreResult<int64_t>)> done);
  void MarkDeviceRestorePaidAsync(int64_t restore_id, int64_t paid_at, Completion done);

  // ---- Alerts (schema/0010): durable, like run state. CreateAlert stores the alert and one
  // pending delivery per webhook in one transaction (its id); RecordAlertAttempt stores an
  // attempt and the delivery's state after it (kNotFound: not pending, or not its next
  // attempt); ResolveAlert closes an open alert (kNotFound otherwise). Read with
  // Reader::ListAlerts, PendingAlertDeliveries, OpenRegressionCounts.
  StoreResult<int64_t> CreateAlert(const NewAlert& alert,
                                   const std::vector<NewAlertDelivery>& deliveries);
  Status RecordAlertAttempt(const AlertAttemptRecord& record);
  Status ResolveAlert(int64_t alert_id, int64_t resolved_at);
  void CreateAlertAsync(NewAlert alert, std::vector<NewAlertDelivery> deliveries,
                        UniqueFunction<void(StoreResult<int64_t>)> done);
  void RecordAlertAttemptAsync(AlertAttemptRecord record, Completion done);
  void ResolveAlertAsync(int64_t alert_id, int64_t resolved_at, Completion done);

  // Blocks until everything queued before it is committed (durably).
  Status Flush();
  void FlushAsync(Completion done);

  // ---- Reads. Read() runs `query` on the calling thread with a pooled connection (blocking;
  // waits for a free connection). PostRead runs it on a reader thread and returns at once.
  template <class F>
  auto Read(F&& query) -> decltype(query(std::declval<Reader&>()));
  void PostRead(UniqueFunction<void(Reader&)> task);

  // ---- Maintenance.
  // Deletes finished runs (succeeded, failed, cancelled, interrupted) older than max_age and
  // beyond the newest max_runs, with their launches, looper rows and samples, runs_per_step runs
  // per writer transaction, queued behind other writes so none waits long. Queued and running
  // runs are never deleted.
  StoreResult<RetentionResult> Prune(const RetentionPolicy& policy);
  void PruneAsync(const RetentionPolicy& policy,
                  UniqueFunction<void(StoreResult<RetentionResult>)> done);
  // An online copy of the database to `destination` (SQLite's backup API in steps, from one
  // read snapshot, while the writer goes on). Written to destination + ".partial" and renamed,
  // so `destination` is either the old file or a complete backup. Blocking.
  Status Backup(const std::string& destination, const BackupOptions& options = {});
  // The same on the store's maintenance thread; `done` runs there.
  void BackupAsync(std::string destination, BackupOptions options, Completion done);

  StoreStats stats() const;
  // The file, or the PostgreSQL URL as given (its password too: log it through pg::RedactUrl).
  const std::string& path() const { return options_.path; }

 private:
  explicit Store(StoreOptions options);
  Status PushWrite(size_t records, bool durable, UniqueFunction<Status(WriteSession&)> apply,
                   Completion committed);
  void PushWriteAsync(size_t records, bool durable, UniqueFunction<Status(WriteSession&)> apply,
                      Completion accepted, Completion committed);
  // One durable write whose `done` runs once committed, or with the error that refused or lost
  // it; the form with a value hands on what `apply` returned (an id, a count).
  template <class T>
  void PushDurableAsync(UniqueFunction<StoreResult<T>(WriteSession&)> apply,
                        UniqueFunction<void(StoreResult<T>)> done);
  void PushDurableAsync(UniqueFunction<Status(WriteSession&)> apply, Completion done,
                        size_t records = 1);
  std::unique_ptr<Reader> AcquireReader();
  void ReleaseReader(std::unique_ptr<Reader> reader);

  StoreOptions options_;
  std::unique_ptr<ReaderPool> readers_;
  std::unique_ptr<TaskThread> maintenance_;
  std::unique_ptr<Writer> writer_;
};

template <class F>
auto Store::Read(F&& query) -> decltype(query(std::declval<Reader&>())) {
  std::unique_ptr<Reader> reader = AcquireReader();
  struct Release {
    Store* store;
    std::unique_ptr<Reader>& reader;
    ~Release() { store->ReleaseReader(std::move(reader)); }
  } release{this, reader};
  return query(*reader);
}

}  // namespace droidlab::store
