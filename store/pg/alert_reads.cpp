// PgReader's queries of alerts and their deliveries (schema 0010): ../alert_reads.cpp's, on
// PostgreSQL, with the same cursor ("a1" + the last id in 16 hex digits).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/pg/reader.h"
#include "store/pg/result_row.h"
#include "store/pg/sql/alerts.h"

namespace droidlab::store::pg {

namespace {

// An alert row and its explained_by as the JSON text the row holds.
struct AlertRow {
  Alert alert;
  std::string explained_by_json;
};

// Reads the columns of sql::kAlertsPage.
AlertRow ReadAlert(ResultRow& row) {
  AlertRow read;
  Alert& alert = read.alert;
  row.Get(alert.id);
  for (std::string* v : {&alert.kind, &alert.package, &alert.model, &alert.mode, &alert.metric}) {
    row.Get(*v);
  }
  for (std::optional<double>* v : {&alert.delta, &alert.delta_pct, &alert.ci_low, &alert.ci_high}) {
    row.Get(*v);
  }
  for (std::optional<int64_t>* v : {&alert.run_id, &alert.build_id, &alert.version_code}) {
    row.Get(*v);
  }
  row.Get(read.explained_by_json);
  row.Get(alert.state);
  row.Get(alert.created_at);
  row.Get(alert.resolved_at);
  return read;
}

AlertDelivery ReadAlertDelivery(ResultRow& row) {
  AlertDelivery d;
  row.Get(d.id);
  row.Get(d.alert_id);
  row.Get(d.url);
  row.Get(d.delivery_id);
  row.Get(d.status);
  row.Get(d.attempts);
  row.Get(d.next_attempt_at);
  row.Get(d.created_at);
  row.Get(d.finished_at);
  return d;
}

AlertDeliveryAttempt ReadAttempt(ResultRow& row) {
  AlertDeliveryAttempt a;
  row.Get(a.attempt);
  row.Get(a.started_at);
  row.Get(a.duration_ms);
  row.Get(a.http_status);
  row.Get(a.error);
  return a;
}

// The alert rows `sql` selects with `params`.
StoreResult<std::vector<AlertRow>> AlertRows(Connection& connection, const char* sql,
                                             const Params& params, std::string_view what) {
  auto result = connection.Query(sql, params, what);
  if (!result) return result.error();
  return CollectRows<AlertRow>(*result, ReadAlert, what);
}

// Fills an alert's explained_by from its JSON, and (with_deliveries) its deliveries with their
// attempts.
Status FillAlert(Connection& connection, Alert& alert, const std::string& explained_by_json,
                 bool with_deliveries) {
  {
    const std::string_view what = "reading an alert's explanation";
    auto result = connection.Query(sql::kAlertExplainedBy, Params().Text(explained_by_json), what);
    if (!result) return result.error();
    auto explained_by = CollectRows<std::string>(
        *result, [](ResultRow& row) { return row.Next<std::string>(); }, what);
    if (!explained_by) return explained_by.error();
    alert.explained_by = std::move(explained_by).value();
  }
  if (!with_deliveries) return OkStatus();
  {
    const std::string_view what = "reading an alert's deliveries";
    auto result = connection.Query(sql::kAlertDeliveriesOfAlert, Params().Int64(alert.id), what);
    if (!result) return result.error();
    auto deliveries = CollectRows<AlertDelivery>(*result, ReadAlertDelivery, what);
    if (!deliveries) return deliveries.error();
    alert.deliveries = std::move(deliveries).value();
  }
  for (AlertDelivery& delivery : alert.deliveries) {
    const std::string_view what = "reading a delivery's attempts";
    auto result =
        connection.Query(sql::kAlertAttemptsOfDelivery, Params().Int64(delivery.id), what);
    if (!result) return result.error();
    auto attempts = CollectRows<AlertDeliveryAttempt>(*result, ReadAttempt, what);
    if (!attempts) return attempts.error();
    delivery.attempt_log = std::move(attempts).value();
  }
  return OkStatus();
}

}  // namespace

StoreResult<AlertPage> PgReader::ListAlerts(const AlertQuery& query) {
  if (query.limit < 1 || query.limit > 1000) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "limit must be between 1 and 1000, got " + std::to_string(query.limit));
  }
  if (query.state && *query.state != "open" && *query.state != "resolved") {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "state must be open or resolved, got \"" + *query.state + "\"");
  }
  int64_t before = std::numeric_limits<int64_t>::max();
  if (!query.cursor.empty()) {
    auto decoded = DecodeAlertCursor(query.cursor);
    if (!decoded) return NotACursorOfThisList(query.cursor);
    before = *decoded;
  }
  Params p;
  p.Int64(before).Int64(query.limit + 1);  // one more tells whether there is a next page
  if (query.state) p.Text(*query.state);
  auto read = AlertRows(connection_, query.state ? sql::kAlertsPageByState : sql::kAlertsPage, p,
                        "listing alerts");
  if (!read) return read.error();
  AlertPage page;
  if (read->size() > static_cast<size_t>(query.limit)) {
    read->pop_back();
    page.next_cursor = EncodeAlertCursor(read->back().alert.id);
  }
  for (AlertRow& row : *read) {
    if (Status filled = FillAlert(connection_, row.alert, row.explained_by_json, true); !filled) {
      return filled.error();
    }
    page.alerts.push_back(std::move(row.alert));
  }
  return page;
}

StoreResult<Alert> PgReader::GetAlert(int64_t alert_id) {
  auto read = AlertRows(connection_, sql::kAlertById, Params().Int64(alert_id), "reading an alert");
  if (!read) return read.error();
  if (read->empty()) {
    return MakeStoreError(StoreErrorCode::kNotFound, "no alert " + std::to_string(alert_id));
  }
  AlertRow& row = read->front();
  if (Status filled = FillAlert(connection_, row.alert, row.explained_by_json, true); !filled) {
    return filled.error();
  }
  return std::move(row.alert);
}

StoreResult<std::vector<PendingAlertDelivery>> PgReader::PendingAlertDeliveries(int64_t limit) {
  const std::string_view what = "listing pending alert deliveries";
  auto result = connection_.Query(sql::kPendingAlertDeliveries, Params().Int64(limit), what);
  if (!result) return result.error();
  auto deliveries = CollectRows<AlertDelivery>(*result, ReadAlertDelivery, what);
  if (!deliveries) return deliveries.error();
  std::vector<PendingAlertDelivery> pending;
  for (AlertDelivery& delivery : *deliveries) {
    auto read = AlertRows(connection_, sql::kAlertById, Params().Int64(delivery.alert_id),
                          "reading a pending delivery's alert");
    if (!read) return read.error();
    if (read->empty()) {
      return MakeStoreError(StoreErrorCode::kNotFound,
                            "alert delivery " + std::to_string(delivery.id) + " names alert " +
                                std::to_string(delivery.alert_id) + ", which is gone");
    }
    AlertRow& row = read->front();
    if (Status filled = FillAlert(connection_, row.alert, row.explained_by_json, false); !filled) {
      return filled.error();
    }
    PendingAlertDelivery p;
    p.delivery = std::move(delivery);
    p.alert = std::move(row.alert);
    pending.push_back(std::move(p));
  }
  return pending;
}

StoreResult<std::vector<OpenRegressionCount>> PgReader::OpenRegressionCounts() {
  const std::string_view what = "counting open regressions";
  auto result = connection_.Query(sql::kOpenRegressionCounts, what);
  if (!result) return result.error();
  return CollectRows<OpenRegressionCount>(
      *result,
      [](ResultRow& row) {
        OpenRegressionCount c;
        row.Get(c.package);
        row.Get(c.model);
        row.Get(c.count);
        return c;
      },
      what);
}

}  // namespace droidlab::store::pg
