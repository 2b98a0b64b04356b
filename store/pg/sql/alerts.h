// The PostgreSQL SQL of `alerts`, `alert_deliveries` and `alert_delivery_attempts`
// (schema/postgresql/0010_alerts.sql): ../../sql/alerts.h in PostgreSQL's dialect. Internal to
// store/.
#pragma once

namespace droidlab::store::pg::sql {

// explained_by ($13) is the JSON text of ExplainedByJson (store/alert_writes.h), into JSONB.
inline constexpr char kInsertAlert[] =
    "INSERT INTO alerts (kind, package, model, mode, metric, delta, delta_pct, ci_low, ci_high,"
    " run_id, build_id, version_code, explained_by, created_at)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id";
// A new delivery is due at once: next_attempt_at is its creation.
inline constexpr char kInsertAlertDelivery[] =
    "INSERT INTO alert_deliveries (alert_id, url, delivery_id, status, attempts, next_attempt_at,"
    " created_at) VALUES ($1, $2, $3, 'pending', 0, $4, $4)";
inline constexpr char kResolveAlert[] =
    "UPDATE alerts SET state = 'resolved', resolved_at = $2 WHERE id = $1 AND state = 'open'";
inline constexpr char kInsertAlertAttempt[] =
    "INSERT INTO alert_delivery_attempts (delivery_id, attempt, started_at, duration_ms,"
    " http_status, error) VALUES ($1, $2, $3, $4, $5, $6)";
// Only a pending delivery takes an attempt, and only the next one in order.
inline constexpr char kUpdateAlertDelivery[] =
    "UPDATE alert_deliveries SET status = $2, attempts = $3, next_attempt_at = $4,"
    " finished_at = $5 WHERE id = $1 AND status = 'pending' AND attempts = $3 - 1";

// ReadAlert in alert_reads.cpp reads DROIDLAB_PG_ALERT_COLUMNS in this order.
#define DROIDLAB_PG_ALERT_COLUMNS                                                                \
  "id, kind, package, model, mode, metric, delta, delta_pct, ci_low, ci_high, run_id, build_id," \
  " version_code, explained_by, state, created_at, resolved_at"
// Newest first, after the cursor's id ($1), at most $2 rows; by state ($3) on its index.
inline constexpr char kAlertsPage[] =
    "SELECT " DROIDLAB_PG_ALERT_COLUMNS " FROM alerts WHERE id < $1 ORDER BY id DESC LIMIT $2";
inline constexpr char kAlertsPageByState[] =
    "SELECT " DROIDLAB_PG_ALERT_COLUMNS
    " FROM alerts WHERE state = $3 AND id < $1 ORDER BY id DESC LIMIT $2";
inline constexpr char kAlertById[] =
    "SELECT " DROIDLAB_PG_ALERT_COLUMNS " FROM alerts WHERE id = $1";
#undef DROIDLAB_PG_ALERT_COLUMNS
// The strings of an alert's explained_by (a JSON array), in order (SQLite: json_each's key).
inline constexpr char kAlertExplainedBy[] =
    "SELECT e.value FROM jsonb_array_elements_text($1::jsonb) WITH ORDINALITY AS e(value, n)"
    " ORDER BY e.n";

// ReadAlertDelivery in alert_reads.cpp reads DROIDLAB_PG_DELIVERY_COLUMNS in this order.
#define DROIDLAB_PG_DELIVERY_COLUMNS \
  "id, alert_id, url, delivery_id, status, attempts, next_attempt_at, created_at, finished_at"
inline constexpr char kAlertDeliveriesOfAlert[] = "SELECT " DROIDLAB_PG_DELIVERY_COLUMNS
                                                  " FROM alert_deliveries WHERE alert_id = $1"
                                                  " ORDER BY id";
// The pending deliveries, soonest due first. NULLS FIRST is SQLite's order of a NULL
// next_attempt_at (a pending delivery recorded without one); it costs the partial index's order
// (alert_deliveries_pending), so the few pending rows are sorted. A negative limit is SQLite's
// "no limit".
inline constexpr char kPendingAlertDeliveries[] =
    "SELECT " DROIDLAB_PG_DELIVERY_COLUMNS
    " FROM alert_deliveries WHERE status = 'pending'"
    " ORDER BY next_attempt_at NULLS FIRST, id LIMIT CASE WHEN $1 < 0 THEN NULL ELSE $1 END";
#undef DROIDLAB_PG_DELIVERY_COLUMNS
inline constexpr char kAlertAttemptsOfDelivery[] =
    "SELECT attempt, started_at, duration_ms, http_status, error FROM alert_delivery_attempts"
    " WHERE delivery_id = $1 ORDER BY attempt";

// An open alert counts as an open regression when it is a regression verdict, or a change point
// that made the metric larger (every metric so far is a time or a count: larger is worse).
// Package and model in byte order, as SQLite groups and orders them.
inline constexpr char kOpenRegressionCounts[] =
    "SELECT package, model, count(*) FROM alerts WHERE state = 'open'"
    " AND (kind = 'regression' OR delta > 0) GROUP BY package, model"
    " ORDER BY package COLLATE \"C\", model COLLATE \"C\"";

// Retention by age (Store::Prune's last step): an alert resolved before $1 none of whose
// deliveries is still pending goes, with its deliveries and their attempts (in that order: the
// condition reads the deliveries). An open alert stays, whatever its age.
#define DROIDLAB_PG_ALERT_PRUNABLE                                              \
  "SELECT a.id FROM alerts a WHERE a.state = 'resolved' AND a.resolved_at < $1" \
  " AND NOT EXISTS (SELECT 1 FROM alert_deliveries p WHERE p.alert_id = a.id"   \
  " AND p.status = 'pending')"
inline constexpr const char* kDeletePrunableAlertAttempts =
    "DELETE FROM alert_delivery_attempts WHERE delivery_id IN (SELECT d.id FROM"
    " alert_deliveries d WHERE d.alert_id IN (" DROIDLAB_PG_ALERT_PRUNABLE "))";
inline constexpr const char* kDeletePrunableAlertDeliveries =
    "DELETE FROM alert_deliveries WHERE alert_id IN (" DROIDLAB_PG_ALERT_PRUNABLE ")";
inline constexpr const char* kDeletePrunableAlerts =
    "DELETE FROM alerts WHERE id IN (" DROIDLAB_PG_ALERT_PRUNABLE ")";
#undef DROIDLAB_PG_ALERT_PRUNABLE

}  // namespace droidlab::store::pg::sql
