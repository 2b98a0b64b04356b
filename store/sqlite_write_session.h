// SqliteWriteSession: the WriteSession (write_session.h) on the SQLite file's one writing
// connection. Its batches are BEGIN IMMEDIATE transactions whose durability is chosen before
// BEGIN (SQLite refuses to change PRAGMA synchronous inside a transaction); its writes are the
// functions of *_writes.h and retention.h. Internal to store/.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "store/sqlite.h"
#include "store/write_session.h"

namespace droidlab::store {

class SqliteWriteSession final : public WriteSession {
 public:
  explicit SqliteWriteSession(Database db);
  ~SqliteWriteSession() override;

  // Tests read PRAGMAs in force through it (StoreOptions::before_commit).
  Database& database() { return db_; }

  const std::string& name() const override { return db_.path(); }
  Status BeginBatch(bool durable) override;
  Status Savepoint() override;
  Status ReleaseSavepoint() override;
  Status RollbackToSavepoint() override;
  bool InTransaction() override;
  Status CommitBatch() override;
  void RollbackBatch() override;

  StoreResult<int64_t> InsertRun(const NewRun& run) override;
  Status UpdateRunStatus(const RunStatusUpdate& update) override;
  StoreResult<int64_t> InterruptRunningRuns(std::string_view reason, int64_t now_ms) override;
  StoreResult<std::optional<int64_t>> ClaimRun(const RunClaim& claim) override;
  StoreResult<RenewedLeases> RenewLeases(std::string_view host, int64_t lease_until) override;
  StoreResult<ExpiredLeases> ExpireLeases(const LeaseExpiry& expiry) override;
  StoreResult<CancelRequest> RequestRunCancel(int64_t run_id, std::string_view reason,
                                              int64_t now_ms) override;
  StoreResult<bool> ReleaseClaim(int64_t run_id, std::string_view host) override;
  Status InsertLaunches(const std::vector<Launch>& launches) override;
  Status InsertLooperStats(const std::vector<LooperStatsRow>& rows) override;
  Status InsertProcSamples(const std::vector<ProcSample>& samples) override;
  Status InsertIterationFrames(const std::vector<IterationFrames>& frames) override;
  Status InsertIterationFaults(const std::vector<IterationFault>& faults) override;
  Status InsertIterationMemory(const std::vector<IterationMemory>& memory) override;
  Status InsertLateIterationFaults(int64_t run_id, int64_t iteration,
                                   const std::vector<IterationFault>& faults,
                                   const std::string& invalid_reason) override;
  Status InsertRunSummaries(const std::vector<RunSummary>& summaries) override;
  Status UpsertDevice(const Device& device) override;
  Status RecordDeviceState(const DeviceStateChange& change) override;
  Status UpsertHost(const Host& host) override;
  Status InsertAuditEntry(const AuditEntry& entry) override;
  Status SetDeviceLabels(std::string_view serial, const std::vector<std::string>& labels) override;
  StoreResult<int64_t> InsertDeviceRestore(const DeviceRestore& restore) override;
  Status MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at) override;
  Status InsertDeviceHealth(const DeviceHealthSample& sample) override;
  Status InsertDeviceEvent(const DeviceEvent& event) override;
  Status QuarantineDevice(const DeviceEvent& event) override;
  Status ReleaseDevice(const DeviceEvent& event) override;
  StoreResult<int64_t> InsertSchedule(const NewSchedule& schedule) override;
  Status DeleteSchedule(int64_t schedule_id) override;
  Status SetScheduleEnabled(int64_t schedule_id, bool enabled) override;
  Status MarkScheduleFired(int64_t schedule_id, int64_t fired_at) override;
  StoreResult<AddedBuild> InsertBuild(const NewBuild& build) override;
  Status DeleteBuild(int64_t build_id) override;
  StoreResult<int64_t> InsertAlert(const NewAlert& alert,
                                   const std::vector<NewAlertDelivery>& deliveries) override;
  Status RecordAlertAttempt(const AlertAttemptRecord& record) override;
  Status ResolveAlert(int64_t alert_id, int64_t resolved_at) override;
  StoreResult<PruneStepResult> PruneStep(const RetentionPolicy& policy) override;

 private:
  // Sets PRAGMA synchronous (FULL or NORMAL) unless already so; outside a transaction only.
  Status SetSynchronous(bool full);
  Status RunCached(const char* sql, const char* what);

  Database db_;
  std::unique_ptr<Transaction> transaction_;
  std::optional<bool> synchronous_full_;  // the connection's level as last set (unknown: unset)
};

}  // namespace droidlab::store
