#include "store/sqlite_write_session.h"

#include <sqlite3.h>

#include <utility>

#include "store/alert_writes.h"
#include "store/audit_writes.h"
#include "store/build_writes.h"
#include "store/claim_writes.h"
#include "store/device_health_writes.h"
#include "store/device_writes.h"
#include "store/retention.h"
#include "store/run_writes.h"
#include "store/schedule_writes.h"

namespace droidlab::store {

WriteSession::~WriteSession() = default;

Status WriteSession::Reconnect() {
  return MakeStoreError(StoreErrorCode::kUnavailable, name() + " cannot reconnect");
}

StoreResult<bool> WriteSession::LostCommitTookEffect() {
  return MakeStoreError(StoreErrorCode::kUnavailable,
                        name() + " cannot tell whether a lost commit took effect");
}

SqliteWriteSession::SqliteWriteSession(Database db) : db_(std::move(db)) {}
SqliteWriteSession::~SqliteWriteSession() = default;

Status SqliteWriteSession::RunCached(const char* sql, const char* what) {
  auto statement = db_.Cached(sql);
  if (!statement) return statement.error();
  return (*statement)->Run(what);
}

Status SqliteWriteSession::SetSynchronous(bool full) {
  if (synchronous_full_ && *synchronous_full_ == full) return OkStatus();
  // Only outside a transaction: inside one SQLite refuses it ("Safety level may not be changed
  // inside a transaction").
  const char* sql = full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
  Status set = RunCached(sql, sql);
  if (!set) {
    synchronous_full_.reset();  // unknown: set it again next time
    return set;
  }
  synchronous_full_ = full;
  return OkStatus();
}

Status SqliteWriteSession::BeginBatch(bool durable) {
  // Durable: this batch's commit is synced to disk before anyone is told (WAL + NORMAL syncs
  // only at checkpoints). The level is chosen before BEGIN, when SQLite accepts it.
  if (Status set = SetSynchronous(durable); !set) return set;
  transaction_ = std::make_unique<Transaction>(db_);
  Status begun = transaction_->Begin(Transaction::Kind::kImmediate);
  if (!begun) transaction_.reset();
  return begun;
}

Status SqliteWriteSession::Savepoint() {
  return RunCached("SAVEPOINT task", "opening a savepoint");
}

Status SqliteWriteSession::ReleaseSavepoint() {
  return RunCached("RELEASE task", "releasing a savepoint");
}

Status SqliteWriteSession::RollbackToSavepoint() {
  if (Status undone = RunCached("ROLLBACK TO task", "rolling back a task"); !undone) return undone;
  return ReleaseSavepoint();
}

bool SqliteWriteSession::InTransaction() { return sqlite3_get_autocommit(db_.handle()) == 0; }

Status SqliteWriteSession::CommitBatch() {
  Status committed = transaction_ ? transaction_->Commit() : OkStatus();
  if (committed) transaction_.reset();
  return committed;
}

void SqliteWriteSession::RollbackBatch() {
  if (transaction_) transaction_->Rollback();
  transaction_.reset();
}

StoreResult<int64_t> SqliteWriteSession::InsertRun(const NewRun& run) {
  return writes::InsertRun(db_, run);
}
Status SqliteWriteSession::UpdateRunStatus(const RunStatusUpdate& update) {
  return writes::UpdateRunStatus(db_, update);
}
StoreResult<int64_t> SqliteWriteSession::InterruptRunningRuns(std::string_view reason,
                                                              int64_t now_ms) {
  return writes::InterruptRunningRuns(db_, reason, now_ms);
}
StoreResult<std::optional<int64_t>> SqliteWriteSession::ClaimRun(const RunClaim& claim) {
  return writes::ClaimRun(db_, claim);
}
StoreResult<RenewedLeases> SqliteWriteSession::RenewLeases(std::string_view host,
                                                           int64_t lease_until) {
  return writes::RenewLeases(db_, host, lease_until);
}
StoreResult<ExpiredLeases> SqliteWriteSession::ExpireLeases(const LeaseExpiry& expiry) {
  return writes::ExpireLeases(db_, expiry);
}
StoreResult<CancelRequest> SqliteWriteSession::RequestRunCancel(int64_t run_id,
                                                                std::string_view reason,
                                                                int64_t now_ms) {
  return writes::RequestRunCancel(db_, run_id, reason, now_ms);
}
StoreResult<bool> SqliteWriteSession::ReleaseClaim(int64_t run_id, std::string_view host) {
  return writes::ReleaseClaim(db_, run_id, host);
}
Status SqliteWriteSession::InsertLaunches(const std::vector<Launch>& launches) {
  return writes::InsertLaunches(db_, launches);
}
Status SqliteWriteSession::InsertLooperStats(const std::vector<LooperStatsRow>& rows) {
  return writes::InsertLooperStats(db_, rows);
}
Status SqliteWriteSession::InsertProcSamples(const std::vector<ProcSample>& samples) {
  return writes::InsertProcSamples(db_, samples);
}
Status SqliteWriteSession::InsertIterationFrames(const std::vector<IterationFrames>& frames) {
  return writes::InsertIterationFrames(db_, frames);
}
Status SqliteWriteSession::InsertIterationFaults(const std::vector<IterationFault>& faults) {
  return writes::InsertIterationFaults(db_, faults);
}
Status SqliteWriteSession::InsertIterationMemory(const std::vector<IterationMemory>& memory) {
  return writes::InsertIterationMemory(db_, memory);
}
Status SqliteWriteSession::InsertLateIterationFaults(int64_t run_id, int64_t iteration,
                                                     const std::vector<IterationFault>& faults,
                                                     const std::string& invalid_reason) {
  return writes::InsertLateIterationFaults(db_, run_id, iteration, faults, invalid_reason);
}
Status SqliteWriteSession::InsertRunSummaries(const std::vector<RunSummary>& summaries) {
  return writes::InsertRunSummaries(db_, summaries);
}
Status SqliteWriteSession::UpsertDevice(const Device& device) {
  return writes::UpsertDevice(db_, device);
}
Status SqliteWriteSession::RecordDeviceState(const DeviceStateChange& change) {
  return writes::RecordDeviceState(db_, change);
}
Status SqliteWriteSession::UpsertHost(const Host& host) { return writes::UpsertHost(db_, host); }
Status SqliteWriteSession::InsertAuditEntry(const AuditEntry& entry) {
  return writes::InsertAuditEntry(db_, entry);
}
Status SqliteWriteSession::SetDeviceLabels(std::string_view serial,
                                           const std::vector<std::string>& labels) {
  return writes::SetDeviceLabels(db_, serial, labels);
}
StoreResult<int64_t> SqliteWriteSession::InsertDeviceRestore(const DeviceRestore& restore) {
  return writes::InsertDeviceRestore(db_, restore);
}
Status SqliteWriteSession::MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at) {
  return writes::MarkDeviceRestorePaid(db_, restore_id, paid_at);
}
Status SqliteWriteSession::InsertDeviceHealth(const DeviceHealthSample& sample) {
  return writes::InsertDeviceHealth(db_, sample);
}
Status SqliteWriteSession::InsertDeviceEvent(const DeviceEvent& event) {
  return writes::InsertDeviceEvent(db_, event);
}
Status SqliteWriteSession::QuarantineDevice(const DeviceEvent& event) {
  return writes::QuarantineDevice(db_, event);
}
Status SqliteWriteSession::ReleaseDevice(const DeviceEvent& event) {
  return writes::ReleaseDevice(db_, event);
}
StoreResult<int64_t> SqliteWriteSession::InsertSchedule(const NewSchedule& schedule) {
  return writes::InsertSchedule(db_, schedule);
}
Status SqliteWriteSession::DeleteSchedule(int64_t schedule_id) {
  return writes::DeleteSchedule(db_, schedule_id);
}
Status SqliteWriteSession::SetScheduleEnabled(int64_t schedule_id, bool enabled) {
  return writes::SetScheduleEnabled(db_, schedule_id, enabled);
}
Status SqliteWriteSession::MarkScheduleFired(int64_t schedule_id, int64_t fired_at) {
  return writes::MarkScheduleFired(db_, schedule_id, fired_at);
}
StoreResult<AddedBuild> SqliteWriteSession::InsertBuild(const NewBuild& build) {
  return writes::InsertBuild(db_, build);
}
Status SqliteWriteSession::DeleteBuild(int64_t build_id) {
  return writes::DeleteBuild(db_, build_id);
}
StoreResult<int64_t> SqliteWriteSession::InsertAlert(
    const NewAlert& alert, const std::vector<NewAlertDelivery>& deliveries) {
  return writes::InsertAlert(db_, alert, deliveries);
}
Status SqliteWriteSession::RecordAlertAttempt(const AlertAttemptRecord& record) {
  return writes::RecordAlertAttempt(db_, record);
}
Status SqliteWriteSession::ResolveAlert(int64_t alert_id, int64_t resolved_at) {
  return writes::ResolveAlert(db_, alert_id, resolved_at);
}
StoreResult<PruneStepResult> SqliteWriteSession::PruneStep(const RetentionPolicy& policy) {
  return writes::PruneStep(db_, policy);
}

}  // namespace droidlab::store
