#include "store/pg/write_session.h"

#include <libpq-fe.h>

#include <charconv>
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "store/pg/alert_writes.h"
#include "store/pg/audit_writes.h"
#include "store/pg/build_writes.h"
#include "store/pg/claim_writes.h"
#include "store/pg/device_health_writes.h"
#include "store/pg/device_writes.h"
#include "store/pg/measurement_writes.h"
#include "store/pg/retention.h"
#include "store/pg/run_writes.h"
#include "store/pg/schedule_writes.h"

namespace droidlab::store::pg {

PgWriteSession::PgWriteSession(Connection connection, std::string url, ConnectOptions options)
    : connection_(std::move(connection)), url_(std::move(url)), options_(std::move(options)) {}
PgWriteSession::~PgWriteSession() = default;

Status PgWriteSession::BeginBatch(bool durable) {
  batch_xid_.reset();
  transaction_ = std::make_unique<Transaction>(connection_);
  // The transaction's id, so that a COMMIT whose answer a broken connection lost can be looked
  // up on the next connection (LostCommitTookEffect). Ordinary batches do not wait for the
  // server's WAL flush (set_config(..., true) is SET LOCAL). BEGIN and both in one round trip
  // (a simple query: the id comes back as text).
  auto xid = transaction_->BeginWith(durable ? "SELECT txid_current()::text AS xid"
                                             : "SELECT txid_current()::text AS xid,"
                                               " set_config('synchronous_commit', 'off', true)",
                                     "beginning a batch");
  Status begun = OkStatus();
  auto text = xid ? xid->Text(0, "xid") : StoreResult<std::string>(xid.error());
  int64_t value = 0;
  if (!text) {
    begun = text.error();
  } else if (std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc()) {
    begun = MakeStoreError(StoreErrorCode::kInternal,
                           "beginning a batch: transaction id \"" + *text + "\" is not a number");
  } else {
    batch_xid_ = value;
    batch_backend_pid_ = PQbackendPID(connection_.handle());
  }
  if (!begun) transaction_.reset();  // rolls back what BEGIN opened
  return begun;
}

Status PgWriteSession::Reconnect() {
  // Its transaction ended with the old connection (rolled back by the server, or committed).
  transaction_.reset();
  connection_.DropDeferred();
  auto connection = Connection::Open(url_, options_);
  if (!connection) return connection.error();
  connection_ = std::move(connection).value();
  return OkStatus();
}

StoreResult<bool> PgWriteSession::LostCommitTookEffect() {
  if (!batch_xid_) return false;  // no transaction had begun
  Params xid;
  xid.Int64(*batch_xid_);
  for (int attempt = 1;; ++attempt) {
    auto status = connection_.Query("SELECT txid_status($1) AS status", xid,
                                    "asking whether a lost commit took effect");
    if (!status) return status.error();
    auto text = status->OptionalText(0, "status");
    if (!text) return text.error();
    if (!*text) {
      return MakeStoreError(StoreErrorCode::kInternal, "the server no longer knows transaction " +
                                                           std::to_string(*batch_xid_) +
                                                           " of the lost connection");
    }
    if (**text == "committed") return true;
    if (**text == "aborted") return false;
    // "in progress": the old backend has not ended it yet — a killed one ends in moments; one
    // whose client vanished (a network cut) may wait for TCP to notice, so after a second it is
    // ended here (only if it still runs that transaction), and its COMMIT either landed or not.
    if (attempt == 20) {
      Params old;
      old.Int64(batch_backend_pid_).Int64(*batch_xid_ % (int64_t{1} << 32));
      (void)connection_.Query(
          "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
          " WHERE pid = $1 AND backend_xid::text = $2::text",
          old, "ending the lost connection's backend");
    }
    if (attempt == 40) {
      return MakeStoreError(StoreErrorCode::kUnavailable,
                            "transaction " + std::to_string(*batch_xid_) + " of the lost " +
                                "connection to " + name() + " is still in progress");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// A task's SAVEPOINT and RELEASE are deferred (Connection::Defer): they go out in front of the
// task's first statement and the next task's (or the COMMIT), so a task costs no round trip of
// its own beyond its writes. A failure of either is the error of the statement they went with,
// and ends the batch the same way (a broken connection) — neither fails otherwise.
Status PgWriteSession::Savepoint() {
  connection_.Defer("SAVEPOINT task");
  return OkStatus();
}

Status PgWriteSession::ReleaseSavepoint() {
  // A task that sent nothing: its savepoint was never sent either.
  if (!connection_.TakeBackDeferred("SAVEPOINT task")) connection_.Defer("RELEASE SAVEPOINT task");
  return OkStatus();
}

Status PgWriteSession::RollbackToSavepoint() {
  // A task that failed before sending anything has nothing to undo.
  if (connection_.TakeBackDeferred("SAVEPOINT task")) return OkStatus();
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
StoreResult<std::optional<int64_t>> PgWriteSession::ClaimRun(const RunClaim& claim) {
  return writes::ClaimRun(connection_, claim);
}
StoreResult<RenewedLeases> PgWriteSession::RenewLeases(std::string_view host, int64_t lease_until) {
  return writes::RenewLeases(connection_, host, lease_until);
}
StoreResult<ExpiredLeases> PgWriteSession::ExpireLeases(const LeaseExpiry& expiry) {
  return writes::ExpireLeases(connection_, expiry);
}
StoreResult<CancelRequest> PgWriteSession::RequestRunCancel(int64_t run_id, std::string_view reason,
                                                            int64_t now_ms) {
  return writes::RequestRunCancel(connection_, run_id, reason, now_ms);
}

StoreResult<bool> PgWriteSession::ReleaseClaim(int64_t run_id, std::string_view host) {
  return writes::ReleaseClaim(connection_, run_id, host);
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
Status PgWriteSession::UpsertHost(const Host& host) {
  return writes::UpsertHost(connection_, host);
}
Status PgWriteSession::InsertAuditEntry(const AuditEntry& entry) {
  return writes::InsertAuditEntry(connection_, entry);
}
Status PgWriteSession::SetDeviceLabels(std::string_view serial,
                                       const std::vector<std::string>& labels) {
  return writes::SetDeviceLabels(connection_, serial, labels);
}
StoreResult<int64_t> PgWriteSession::InsertDeviceRestore(const DeviceRestore& restore) {
  return writes::InsertDeviceRestore(connection_, restore);
}
Status PgWriteSession::MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at) {
  return writes::MarkDeviceRestorePaid(connection_, restore_id, paid_at);
}
Status PgWriteSession::InsertDeviceHealth(const DeviceHealthSample& sample) {
  return writes::InsertDeviceHealth(connection_, sample);
}
Status PgWriteSession::InsertDeviceEvent(const DeviceEvent& event) {
  return writes::InsertDeviceEvent(connection_, event);
}
Status PgWriteSession::QuarantineDevice(const DeviceEvent& event) {
  return writes::QuarantineDevice(connection_, event);
}
Status PgWriteSession::ReleaseDevice(const DeviceEvent& event) {
  return writes::ReleaseDevice(connection_, event);
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
