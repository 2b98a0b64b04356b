#include "store/pg/write_session.h"

#include <libpq-fe.h>

#include <utility>

#include "store/pg/alert_writes.h"
#include "store/pg/build_writes.h"
#include "store/pg/device_writes.h"
#include "store/pg/measurement_writes.h"
#include "store/pg/retention.h"
#include "store/pg/run_writes.h"
#include "store/pg/schedule_writes.h"

namespace droidlab::store::pg {

PgWriteSession::PgWriteSession(Connection connection) : connection_(std::move(connection)) {}
PgWriteSession::~PgWriteSession() = default;

Status PgWriteSession::BeginBatch(bool durable) {
  transaction_ = std::make_unique<Transaction>(connection_);
  Status begun = transaction_->Begin();
  // Ordinary batches do not wait for the server's WAL flush; a durable one does (the server's
  // own setting, on by default, is left to it).
  if (begun && !durable) {
    begun = connection_.Execute("SET LOCAL synchronous_commit TO OFF",
                                "choosing an ordinary batch's durability");
  }
  if (!begun) transaction_.reset();
  return begun;
}

Status PgWriteSession::Savepoint() {
  return connection_.Execute("SAVEPOINT task", "opening a savepoint");
}

Status PgWriteSession::ReleaseSavepoint() {
  return connection_.Execute("RELEASE SAVEPOINT task", "releasing a savepoint");
}

Status PgWriteSession::RollbackToSavepoint() {
  if (Status undone = connection_.Execute("ROLLBACK TO SAVEPOINT task", "rolling back a task");
      !undone) {
    return undone;
  }
  return ReleaseSavepoint();
}

bool PgWriteSession::InTransaction() {
  // In error still counts: ROLLBACK TO SAVEPOINT brings it back.
  const PGTransactionStatusType status = PQtransactionStatus(connection_.handle());
  return status == PQTRANS_INTRANS || status == PQTRANS_INERROR;
}

Status PgWriteSession::CommitBatch() {
  Status committed = transaction_ ? transaction_->Commit() : OkStatus();
  transaction_.reset();
  return committed;
}

void PgWriteSession::RollbackBatch() {
  if (transaction_) transaction_->Rollback();
  transaction_.reset();
}

StoreResult<int64_t> PgWriteSession::InsertRun(const NewRun& run) {
  return writes::InsertRun(connection_, run);
}
Status PgWriteSession::UpdateRunStatus(const RunStatusUpdate& update) {
  return writes::UpdateRunStatus(connection_, update);
}
StoreResult<int64_t> PgWriteSession::InterruptRunningRuns(std::string_view reason, int64_t now_ms) {
  return writes::InterruptRunningRuns(connection_, reason, now_ms);
}
Status PgWriteSession::InsertLaunches(const std::vector<Launch>& launches) {
  return writes::InsertLaunches(connection_, launches);
}
Status PgWriteSession::InsertLooperStats(const std::vector<LooperStatsRow>& rows) {
  return writes::InsertLooperStats(connection_, rows);
}
Status PgWriteSession::InsertProcSamples(const std::vector<ProcSample>& samples) {
  return writes::InsertProcSamples(connection_, samples);
}
Status PgWriteSession::InsertIterationFrames(const std::vector<IterationFrames>& frames) {
  return writes::InsertIterationFrames(connection_, frames);
}
Status PgWriteSession::InsertIterationFaults(const std::vector<IterationFault>& faults) {
  return writes::InsertIterationFaults(connection_, faults);
}
Status PgWriteSession::InsertIterationMemory(const std::vector<IterationMemory>& memory) {
  return writes::InsertIterationMemory(connection_, memory);
}
Status PgWriteSession::InsertLateIterationFaults(int64_t run_id, int64_t iteration,
                                                 const std::vector<IterationFault>& faults,
                                                 const std::string& invalid_reason) {
  return writes::InsertLateIterationFaults(connection_, run_id, iteration, faults, invalid_reason);
}
Status PgWriteSession::InsertRunSummaries(const std::vector<RunSummary>& summaries) {
  return writes::InsertRunSummaries(connection_, summaries);
}
Status PgWriteSession::UpsertDevice(const Device& device) {
  return writes::UpsertDevice(connection_, device);
}
Status PgWriteSession::RecordDeviceState(const DeviceStateChange& change) {
  return writes::RecordDeviceState(connection_, change);
}
StoreResult<int64_t> PgWriteSession::InsertDeviceRestore(const DeviceRestore& restore) {
  return writes::InsertDeviceRestore(connection_, restore);
}
Status PgWriteSession::MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at) {
  return writes::MarkDeviceRestorePaid(connection_, restore_id, paid_at);
}
StoreResult<int64_t> PgWriteSession::InsertSchedule(const NewSchedule& schedule) {
  return writes::InsertSchedule(connection_, schedule);
}
Status PgWriteSession::DeleteSchedule(int64_t schedule_id) {
  return writes::DeleteSchedule(connection_, schedule_id);
}
Status PgWriteSession::SetScheduleEnabled(int64_t schedule_id, bool enabled) {
  return writes::SetScheduleEnabled(connection_, schedule_id, enabled);
}
Status PgWriteSession::MarkScheduleFired(int64_t schedule_id, int64_t fired_at) {
  return writes::MarkScheduleFired(connection_, schedule_id, fired_at);
}
StoreResult<AddedBuild> PgWriteSession::InsertBuild(const NewBuild& build) {
  return writes::InsertBuild(connection_, build);
}
Status PgWriteSession::DeleteBuild(int64_t build_id) {
  return writes::DeleteBuild(connection_, build_id);
}
StoreResult<int64_t> PgWriteSession::InsertAlert(const NewAlert& alert,
                                                 const std::vector<NewAlertDelivery>& deliveries) {
  return writes::InsertAlert(connection_, alert, deliveries);
}
Status PgWriteSession::RecordAlertAttempt(const AlertAttemptRecord& record) {
  return writes::RecordAlertAttempt(connection_, record);
}
Status PgWriteSession::ResolveAlert(int64_t alert_id, int64_t resolved_at) {
  return writes::ResolveAlert(connection_, alert_id, resolved_at);
}
StoreResult<PruneStepResult> PgWriteSession::PruneStep(const RetentionPolicy& policy) {
  return pg::PruneStep(connection_, policy);
}

}  // namespace droidlab::store::pg
