// WriteSession: the writer's one connection, of either backend — SQLite (sqlite_write_session.h)
// or PostgreSQL (pg/write_session.h) — and every write droidlab makes. The writer (writer.h)
// owns it on its thread: it opens a batch, wraps each task in a savepoint, and commits; the
// tasks Store builds call the writes. Both backends take the same records and refuse the same
// ones with the same codes (kNotFound, kConstraint), so everything above store/ is the same on
// either. Internal to store/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/alert_records.h"
#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

// One retention step: runs deleted (with their rows), and, on the last step of a policy with a
// max_age, the device state changes, paid restores, audit entries, device health samples and
// device events older than it.
struct PruneStepResult {
  int64_t runs_deleted = 0;
  int64_t history_rows_deleted = 0;
};

class WriteSession {
 public:
  WriteSession() = default;
  virtual ~WriteSession();
  WriteSession(const WriteSession&) = delete;
  WriteSession& operator=(const WriteSession&) = delete;

  // For log lines: the file's path, or the URL with its password redacted.
  virtual const std::string& name() const = 0;

  // ---- The writer's batch: one transaction at a time, a savepoint per task inside it.
  // A durable batch's commit survives a power cut before it returns (SQLite: synchronous=FULL,
  // set before BEGIN; PostgreSQL: synchronous_commit on); the others survive a crash of the
  // process (SQLite: WAL + NORMAL; PostgreSQL: synchronous_commit off, which may lose the last
  // commits on a crash of the server, never half of one).
  virtual Status BeginBatch(bool durable) = 0;
  virtual Status Savepoint() = 0;
  virtual Status ReleaseSavepoint() = 0;
  virtual Status RollbackToSavepoint() = 0;
  // False once the database ended the open transaction on its own (SQLite after some errors,
  // PostgreSQL when the connection broke): nothing of the batch can be kept.
  virtual bool InTransaction() = 0;
  virtual Status CommitBatch() = 0;
  virtual void RollbackBatch() = 0;

  // ---- A lost connection (kUnavailable). PostgreSQL's server rolls the open transaction back
  // when the connection breaks, so the writer makes a new connection and applies the batch
  // again; a SQLite file is never "lost", so its session cannot reconnect and the batch is
  // reported lost as any other.
  virtual bool CanReconnect() const { return false; }
  // A new connection in place of the broken one (the open batch, if any, went with the old).
  // The attempt's error while the server is still away.
  virtual Status Reconnect();
  // After a CommitBatch that failed with kUnavailable, then a Reconnect: whether that COMMIT
  // took effect on the server before the connection broke (the error cannot tell), so that a
  // committed batch is not applied twice nor an uncommitted one reported committed.
  virtual StoreResult<bool> LostCommitTookEffect();

  // ---- Runs and their measurements. The new run's id; its status "queued".
  virtual StoreResult<int64_t> InsertRun(const NewRun& run) = 0;
  virtual Status UpdateRunStatus(const RunStatusUpdate& update) = 0;  // kNotFound
  // How many runs were `running` (now `interrupted`, `reason` their error).
  virtual StoreResult<int64_t> InterruptRunningRuns(std::string_view reason, int64_t now_ms) = 0;
  // Claims of runs by hosts (schema 0018, claim_writes.h): the run claimed or none; the runs
  // the host still holds; the lapsed claims ended; a cancel asked of any run (kNotFound).
  virtual StoreResult<std::optional<int64_t>> ClaimRun(const RunClaim& claim) = 0;
  virtual StoreResult<RenewedLeases> RenewLeases(std::string_view host, int64_t lease_until) = 0;
  virtual StoreResult<ExpiredLeases> ExpireLeases(const LeaseExpiry& expiry) = 0;
  virtual StoreResult<CancelRequest> RequestRunCancel(int64_t run_id, std::string_view reason,
                                                      int64_t now_ms) = 0;
  virtual StoreResult<bool> ReleaseClaim(int64_t run_id, std::string_view host) = 0;
  virtual Status InsertLaunches(const std::vector<Launch>& launches) = 0;
  virtual Status InsertLooperStats(const std::vector<LooperStatsRow>& rows) = 0;
  virtual Status InsertProcSamples(const std::vector<ProcSample>& samples) = 0;
  virtual Status InsertIterationFrames(const std::vector<IterationFrames>& frames) = 0;
  virtual Status InsertIterationFaults(const std::vector<IterationFault>& faults) = 0;
  virtual Status InsertIterationMemory(const std::vector<IterationMemory>& memory) = 0;
  // Faults of an iteration already stored, and its launch made invalid: both or neither.
  virtual Status InsertLateIterationFaults(int64_t run_id, int64_t iteration,
                                           const std::vector<IterationFault>& faults,
                                           const std::string& invalid_reason) = 0;
  // Each replaces the run's row of its metric, filed under the run's package, model and mode.
  virtual Status InsertRunSummaries(const std::vector<RunSummary>& summaries) = 0;

  // ---- Devices and what undoes a change to one.
  virtual Status UpsertDevice(const Device& device) = 0;
  virtual Status RecordDeviceState(const DeviceStateChange& change) = 0;  // kNotFound
  virtual Status UpsertHost(const Host& host) = 0;
  virtual Status InsertAuditEntry(const AuditEntry& entry) = 0;
  virtual Status SetDeviceLabels(std::string_view serial,
                                 const std::vector<std::string>& labels) = 0;  // kNotFound
  virtual StoreResult<int64_t> InsertDeviceRestore(const DeviceRestore& restore) = 0;
  virtual Status MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at) = 0;  // kNotFound
  // Fleet health (schema 0019, device_health_writes.h): samples and events appended; a
  // quarantine set (kept when set already) or cleared, each with its event (kNotFound; a release
  // of a device not quarantined kInvalidArgument).
  virtual Status InsertDeviceHealth(const DeviceHealthSample& sample) = 0;
  virtual Status InsertDeviceEvent(const DeviceEvent& event) = 0;
  virtual Status QuarantineDevice(const DeviceEvent& event) = 0;
  virtual Status ReleaseDevice(const DeviceEvent& event) = 0;

  // ---- Schedules (kNotFound for an unknown id).
  virtual StoreResult<int64_t> InsertSchedule(const NewSchedule& schedule) = 0;
  virtual Status DeleteSchedule(int64_t schedule_id) = 0;
  virtual Status SetScheduleEnabled(int64_t schedule_id, bool enabled) = 0;
  virtual Status MarkScheduleFired(int64_t schedule_id, int64_t fired_at) = 0;

  // ---- Builds: the same sha256 is the same build.
  virtual StoreResult<AddedBuild> InsertBuild(const NewBuild& build) = 0;
  virtual Status DeleteBuild(int64_t build_id) = 0;  // kNotFound

  // ---- Alerts: the alert and one pending delivery per webhook, both or neither; an attempt
  // only as the pending delivery's next one (kNotFound otherwise); an open alert resolved.
  virtual StoreResult<int64_t> InsertAlert(const NewAlert& alert,
                                           const std::vector<NewAlertDelivery>& deliveries) = 0;
  virtual Status RecordAlertAttempt(const AlertAttemptRecord& record) = 0;
  virtual Status ResolveAlert(int64_t alert_id, int64_t resolved_at) = 0;

  // ---- Retention: one step of at most policy.runs_per_step runs (at least one); queued and
  // running runs are never deleted.
  virtual StoreResult<PruneStepResult> PruneStep(const RetentionPolicy& policy) = 0;
};

}  // namespace droidlab::store
