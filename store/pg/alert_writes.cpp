#include "store/pg/alert_writes.h"

#include <optional>
#include <string>

#include "store/alert_writes.h"
#include "store/pg/sql/alerts.h"

namespace droidlab::store::pg::writes {

StoreResult<int64_t> InsertAlert(Connection& connection, const NewAlert& alert,
                                 const std::vector<NewAlertDelivery>& deliveries) {
  Params p;
  p.Text(alert.kind).Text(alert.package).Text(alert.model).Text(alert.mode).Text(alert.metric);
  p.Optional(alert.delta).Optional(alert.delta_pct).Optional(alert.ci_low).Optional(alert.ci_high);
  p.Optional(alert.run_id).Optional(alert.build_id).Optional(alert.version_code);
  // The same JSON text SQLite keeps; the column is JSONB, so a string with a NUL (\u0000, which
  // JSONB cannot hold) is refused, kInvalidArgument.
  p.Text(ExplainedByJson(alert.explained_by)).Int64(alert.created_at);
  auto inserted = connection.Query(sql::kInsertAlert, p, "storing an alert");
  if (!inserted) return inserted.error();
  auto alert_id = inserted->Int64(0, "id");
  if (!alert_id) {
    return MakeStoreError(alert_id.error().code, "storing an alert: " + alert_id.error().message);
  }
  for (const NewAlertDelivery& delivery : deliveries) {
    Params d;
    d.Int64(*alert_id).Text(delivery.url).Text(delivery.delivery_id).Int64(alert.created_at);
    if (auto stored = connection.Query(sql::kInsertAlertDelivery, d, "storing an alert's delivery");
        !stored) {
      return stored.error();
    }
  }
  return *alert_id;
}

Status RecordAlertAttempt(Connection& connection, const AlertAttemptRecord& record) {
  const std::string what = "recording attempt " + std::to_string(record.attempt.attempt) +
                           " of alert delivery " + std::to_string(record.delivery_id);
  std::optional<int64_t> finished_at;
  if (record.status_after != "pending") {
    finished_at = record.attempt.started_at + record.attempt.duration_ms;
  }
  Params u;
  u.Int64(record.delivery_id).Text(record.status_after).Int64(record.attempt.attempt);
  u.Optional(record.next_attempt_at).Optional(finished_at);
  auto updated = connection.Query(sql::kUpdateAlertDelivery, u, what);
  if (!updated) return updated.error();
  if (updated->affected() == 0) {
    return MakeStoreError(StoreErrorCode::kNotFound,
                          what + ": not pending, or not its next attempt");
  }
  Params a;
  a.Int64(record.delivery_id).Int64(record.attempt.attempt).Int64(record.attempt.started_at);
  a.Int64(record.attempt.duration_ms).Optional(record.attempt.http_status);
  a.Optional(record.attempt.error);
  auto stored = connection.Query(sql::kInsertAlertAttempt, a, what);
  if (!stored) return stored.error();
  return OkStatus();
}

Status ResolveAlert(Connection& connection, int64_t alert_id, int64_t resolved_at) {
  const std::string what = "resolving alert " + std::to_string(alert_id);
  auto resolved =
      connection.Query(sql::kResolveAlert, Params().Int64(alert_id).Int64(resolved_at), what);
  if (!resolved) return resolved.error();
  if (resolved->affected() == 0) {
    return MakeStoreError(StoreErrorCode::kNotFound, what + ": no open alert by that id");
  }
  return OkStatus();
}

}  // namespace droidlab::store::pg::writes
