// Reader's queries of alerts and their deliveries (schema/0010_alerts.sql).
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/parse_int.h"
#include "store/sqlite_reader.h"
#include "store/sql/alerts.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store {

namespace {

// Reads the columns of sql::kAlertsPage; explained_by (column 13) is left in `explained_by_json`.
Alert ReadAlert(const Statement& st, std::string& explained_by_json) {
  Alert alert;
  alert.id = st.ColumnInt64(0);
  alert.kind = st.ColumnString(1);
  alert.package = st.ColumnString(2);
  alert.model = st.ColumnString(3);
  alert.mode = st.ColumnString(4);
  alert.metric = st.ColumnString(5);
  alert.delta = st.ColumnOptionalDouble(6);
  alert.delta_pct = st.ColumnOptionalDouble(7);
  alert.ci_low = st.ColumnOptionalDouble(8);
  alert.ci_high = st.ColumnOptionalDouble(9);
  alert.run_id = st.ColumnOptionalInt64(10);
  alert.build_id = st.ColumnOptionalInt64(11);
  alert.version_code = st.ColumnOptionalInt64(12);
  explained_by_json = st.ColumnString(13);
  alert.state = st.ColumnString(14);
  alert.created_at = st.ColumnInt64(15);
  alert.resolved_at = st.ColumnOptionalInt64(16);
  return alert;
}

AlertDelivery ReadAlertDelivery(const Statement& st) {
  AlertDelivery d;
  d.id = st.ColumnInt64(0);
  d.alert_id = st.ColumnInt64(1);
  d.url = st.ColumnString(2);
  d.delivery_id = st.ColumnString(3);
  d.status = st.ColumnString(4);
  d.attempts = st.ColumnInt64(5);
  d.next_attempt_at = st.ColumnOptionalInt64(6);
  d.created_at = st.ColumnInt64(7);
  d.finished_at = st.ColumnOptionalInt64(8);
  return d;
}

AlertDeliveryAttempt ReadAttempt(const Statement& st) {
  AlertDeliveryAttempt a;
  a.attempt = st.ColumnInt64(0);
  a.started_at = st.ColumnInt64(1);
  a.duration_ms = st.ColumnInt64(2);
  a.http_status = st.ColumnOptionalInt64(3);
  a.error = st.ColumnOptionalString(4);
  return a;
}

// Steps `st` to its end, handing each row to `row`.
template <class Row>
Status EachRow(ScopedStatement& st, Row row, std::string_view what) {
  for (;;) {
    switch (st->StepOnce()) {
      case Statement::Step::kRow:
        row(*st);
        continue;
      case Statement::Step::kDone:
        return OkStatus();
      case Statement::Step::kError:
        return st->Error(what);
    }
  }
}

}  // namespace

Status SqliteReader::FillAlert(Alert& alert, const std::string& explained_by_json, bool with_deliveries) {
  {
    auto st = db_->Cached(sql::kAlertExplainedBy);
    if (!st) return st.error();
    (*st)->BindText(1, explained_by_json);
    auto read = EachRow(
        *st, [&](const Statement& row) { alert.explained_by.push_back(row.ColumnString(0)); },
        "reading an alert's explanation");
    if (!read) return read;
  }
  if (!with_deliveries) return OkStatus();
  {
    auto st = db_->Cached(sql::kAlertDeliveriesOfAlert);
    if (!st) return st.error();
    (*st)->BindInt64(1, alert.id);
    auto read = EachRow(
        *st, [&](const Statement& row) { alert.deliveries.push_back(ReadAlertDelivery(row)); },
        "reading an alert's deliveries");
    if (!read) return read;
  }
  for (AlertDelivery& delivery : alert.deliveries) {
    auto st = db_->Cached(sql::kAlertAttemptsOfDelivery);
    if (!st) return st.error();
    (*st)->BindInt64(1, delivery.id);
    auto read = EachRow(
        *st, [&](const Statement& row) { delivery.attempt_log.push_back(ReadAttempt(row)); },
        "reading a delivery's attempts");
    if (!read) return read;
  }
  return OkStatus();
}

StoreResult<AlertPage> SqliteReader::ListAlerts(const AlertQuery& query) {
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
  std::vector<std::pair<Alert, std::string>> read;
  {
    auto st = db_->Cached(query.state ? sql::kAlertsPageByState : sql::kAlertsPage);
    if (!st) return st.error();
    (*st)->BindInt64(1, before);
    (*st)->BindInt64(2, query.limit + 1);  // one more tells whether there is a next page
    if (query.state) (*st)->BindText(3, *query.state);
    auto rows = EachRow(
        *st,
        [&](const Statement& row) {
          std::string json;
          Alert alert = ReadAlert(row, json);
          read.emplace_back(std::move(alert), std::move(json));
        },
        "listing alerts");
    if (!rows) return rows.error();
  }
  AlertPage page;
  if (read.size() > static_cast<size_t>(query.limit)) {
    read.pop_back();
    page.next_cursor = EncodeAlertCursor(read.back().first.id);
  }
  for (auto& [alert, json] : read) {
    if (auto filled = FillAlert(alert, json, true); !filled) return filled.error();
    page.alerts.push_back(std::move(alert));
  }
  return page;
}

StoreResult<Alert> SqliteReader::GetAlert(int64_t alert_id) {
  std::optional<std::pair<Alert, std::string>> found;
  {
    auto st = db_->Cached(sql::kAlertById);
    if (!st) return st.error();
    (*st)->BindInt64(1, alert_id);
    auto rows = EachRow(
        *st,
        [&](const Statement& row) {
          std::string json;
          Alert alert = ReadAlert(row, json);
          found.emplace(std::move(alert), std::move(json));
        },
        "reading an alert");
    if (!rows) return rows.error();
  }
  if (!found) {
    return MakeStoreError(StoreErrorCode::kNotFound, "no alert " + std::to_string(alert_id));
  }
  if (auto filled = FillAlert(found->first, found->second, true); !filled) return filled.error();
  return std::move(found->first);
}

StoreResult<std::vector<PendingAlertDelivery>> SqliteReader::PendingAlertDeliveries(int64_t limit) {
  std::vector<PendingAlertDelivery> pending;
  {
    auto st = db_->Cached(sql::kPendingAlertDeliveries);
    if (!st) return st.error();
    (*st)->BindInt64(1, limit);
    auto rows = EachRow(
        *st,
        [&](const Statement& row) {
          PendingAlertDelivery p;
          p.delivery = ReadAlertDelivery(row);
          pending.push_back(std::move(p));
        },
        "listing pending alert deliveries");
    if (!rows) return rows.error();
  }
  for (PendingAlertDelivery& p : pending) {
    std::optional<std::pair<Alert, std::string>> found;
    auto st = db_->Cached(sql::kAlertById);
    if (!st) return st.error();
    (*st)->BindInt64(1, p.delivery.alert_id);
    auto rows = EachRow(
        *st,
        [&](const Statement& row) {
          std::string json;
          Alert alert = ReadAlert(row, json);
          found.emplace(std::move(alert), std::move(json));
        },
        "reading a pending delivery's alert");
    if (!rows) return rows.error();
    if (!found) {
      return MakeStoreError(StoreErrorCode::kNotFound,
                            "alert delivery " + std::to_string(p.delivery.id) + " names alert " +
                                std::to_string(p.delivery.alert_id) + ", which is gone");
    }
    if (auto filled = FillAlert(found->first, found->second, false); !filled) {
      return filled.error();
    }
    p.alert = std::move(found->first);
  }
  return pending;
}

StoreResult<std::vector<OpenRegressionCount>> SqliteReader::OpenRegressionCounts() {
  auto st = db_->Cached(sql::kOpenRegressionCounts);
  if (!st) return st.error();
  std::vector<OpenRegressionCount> counts;
  auto rows = EachRow(
      *st,
      [&](const Statement& row) {
        OpenRegressionCount c;
        c.package = row.ColumnString(0);
        c.model = row.ColumnString(1);
        c.count = row.ColumnInt64(2);
        counts.push_back(std::move(c));
      },
      "counting open regressions");
  if (!rows) return rows.error();
  return counts;
}

}  // namespace droidlab::store
