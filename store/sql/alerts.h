// The SQL of `alerts`, `alert_deliveries` and `alert_delivery_attempts`
// (schema/0010_alerts.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertAlert[] =
    "INSERT INTO alerts (kind, package, model, mode, metric, delta, delta_pct, ci_low, ci_high,"
    " run_id, build_id, version_code, explained_by, created_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
// A new delivery is due at once: next_attempt_at is its creation.
inline constexpr char kInsertAlertDelivery[] =
    "INSERT INTO alert_deliveries (alert_id, url, delivery_id, status, attempts, next_attempt_at,"
    " created_at) VALUES (?1, ?2, ?3, 'pending', 0, ?4, ?4)";
inline constexpr char kResolveAlert[] =
    "UPDATE alerts SET state = 'resolved', resolved_at = ?2 WHERE id = ?1 AND state = 'open'";
inline constexpr char kInsertAlertAttempt[] =
    "INSERT INTO alert_delivery_attempts (delivery_id, attempt, started_at, duration_ms,"
    " http_status, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
// Only a pending delivery takes an attempt, and only the next one in order.
inline constexpr char kUpdateAlertDelivery[] =
    "UPDATE alert_deliveries SET status = ?2, attempts = ?3, next_attempt_at = ?4,"
    " finished_at = ?5 WHERE id = ?1 AND status = 'pending' AND attempts = ?3 - 1";

// ReadAlert in alert_reads.cpp reads DROIDLAB_ALERT_COLUMNS in this order.
#define DROIDLAB_ALERT_COLUMNS                                                                   \
  "id, kind, package, model, mode, metric, delta, delta_pct, ci_low, ci_high, run_id, build_id," \
  " version_code, explained_by, state, created_at, resolved_at"
// Newest first, after the cursor's id (?1), at most ?2 rows; by state (?3) on its index.
inline constexpr char kAlertsPage[] =
    "SELECT " DROIDLAB_ALERT_COLUMNS " FROM alerts WHERE id < ?1 ORDER BY id DESC LIMIT ?2";
inline constexpr char kAlertsPageByState[] =
    "SELECT " DROIDLAB_ALERT_COLUMNS
    " FROM alerts WHERE state = ?3 AND id < ?1 ORDER BY id DESC LIMIT ?2";
inline constexpr char kAlertById[] = "SELECT " DROIDLAB_ALERT_COLUMNS " FROM alerts WHERE id = ?1";
#undef DROIDLAB_ALERT_COLUMNS
// The strings of an alert's explained_by (a JSON array), in order.
inline constexpr char kAlertExplainedBy[] = "SELECT value FROM json_each(?1) ORDER BY key";

// ReadAlertDelivery in alert_reads.cpp reads DROIDLAB_DELIVERY_COLUMNS in this order.
#define DROIDLAB_DELIVERY_COLUMNS \
  "id, alert_id, url, delivery_id, status, attempts, next_attempt_at, created_at, finished_at"
inline constexpr char kAlertDeliveriesOfAlert[] =
    "SELECT " DROIDLAB_DELIVERY_COLUMNS " FROM alert_deliveries WHERE alert_id = ?1 ORDER BY id";
// The pending deliveries, soonest due first (the partial index alert_deliveries_pending).
inline constexpr char kPendingAlertDeliveries[] = "SELECT " DROIDLAB_DELIVERY_COLUMNS
                                                  " FROM alert_deliveries WHERE status = 'pending'"
                                                  " ORDER BY next_attempt_at, id LIMIT ?1";
#undef DROIDLAB_DELIVERY_COLUMNS
inline constexpr char kAlertAttemptsOfDelivery[] =
    "SELECT attempt, started_at, duration_ms, http_status, error FROM alert_delivery_attempts"
    " WHERE delivery_id = ?1 ORDER BY attempt";

// An open alert counts as an open regression when it is a regression verdict, or a change point
// that made the metric larger (every metric so far is a time or a count: larger is worse).
inline constexpr char kOpenRegressionCounts[] =
    "SELECT package, model, count(*) FROM alerts WHERE state = 'open'"
    " AND (kind = 'regression' OR delta > 0) GROUP BY package, model ORDER BY package, model";

// Retention by age (Store::Prune's last step): an alert resolved before ?1 none of whose
// deliveries is still pending goes, with its deliveries and their attempts (in that order: the
// condition reads the deliveries). An open alert stays, whatever its age.
#define DROIDLAB_ALERT_PRUNABLE                                                 \
  "SELECT a.id FROM alerts a WHERE a.state = 'resolved' AND a.resolved_at < ?1" \
  " AND NOT EXISTS (SELECT 1 FROM alert_deliveries p WHERE p.alert_id = a.id"   \
  " AND p.status = 'pending')"
inline constexpr char kDeletePrunableAlertAttempts[] =
    "DELETE FROM alert_delivery_attempts WHERE delivery_id IN (SELECT d.id FROM"
    " alert_deliveries d WHERE d.alert_id IN (" DROIDLAB_ALERT_PRUNABLE "))";
inline constexpr char kDeletePrunableAlertDeliveries[] =
    "DELETE FROM alert_deliveries WHERE alert_id IN (" DROIDLAB_ALERT_PRUNABLE ")";
inline constexpr char kDeletePrunableAlerts[] =
    "DELETE FROM alerts WHERE id IN (" DROIDLAB_ALERT_PRUNABLE ")";
#undef DROIDLAB_ALERT_PRUNABLE

}  // namespace droidlab::store::sql
