#include "store/alert_writes.h"

#include <string>

#include "store/sql/alerts.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store {

std::string ExplainedByJson(const std::vector<std::string>& explained_by) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "[";
  for (size_t i = 0; i < explained_by.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (const char c : explained_by[i]) {
      const auto byte = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (byte < 0x20) {
        out += "\\u00";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xf];
      } else {
        out += c;
      }
    }
    out += '"';
  }
  out += ']';
  return out;
}

namespace writes {

StoreResult<int64_t> InsertAlert(Database& db, const NewAlert& alert,
                                 const std::vector<NewAlertDelivery>& deliveries) {
  const std::string explained_by = ExplainedByJson(alert.explained_by);
  auto s = RunCached(
      db, sql::kInsertAlert,
      [&](Statement& st) {
        st.BindText(1, alert.kind);
        st.BindText(2, alert.package);
        st.BindText(3, alert.model);
        st.BindText(4, alert.mode);
        st.BindText(5, alert.metric);
        st.BindOptional(6, alert.delta);
        st.BindOptional(7, alert.delta_pct);
        st.BindOptional(8, alert.ci_low);
        st.BindOptional(9, alert.ci_high);
        st.BindOptional(10, alert.run_id);
        st.BindOptional(11, alert.build_id);
        st.BindOptional(12, alert.version_code);
        st.BindText(13, explained_by);
        st.BindInt64(14, alert.created_at);
      },
      "storing an alert");
  if (!s) return s.error();
  const int64_t alert_id = db.LastInsertRowId();
  for (const NewAlertDelivery& delivery : deliveries) {
    auto d = RunCached(
        db, sql::kInsertAlertDelivery,
        [&](Statement& st) {
          st.BindInt64(1, alert_id);
          st.BindText(2, delivery.url);
          st.BindText(3, delivery.delivery_id);
          st.BindInt64(4, alert.created_at);
        },
        "storing an alert's delivery");
    if (!d) return d.error();
  }
  return alert_id;
}

Status RecordAlertAttempt(Database& db, const AlertAttemptRecord& record) {
  const std::string what = "recording attempt " + std::to_string(record.attempt.attempt) +
                           " of alert delivery " + std::to_string(record.delivery_id);
  auto updated = RunCached(
      db, sql::kUpdateAlertDelivery,
      [&](Statement& st) {
        st.BindInt64(1, record.delivery_id);
        st.BindText(2, record.status_after);
        st.BindInt64(3, record.attempt.attempt);
        st.BindOptional(4, record.next_attempt_at);
        std::optional<int64_t> finished_at;
        if (record.status_after != "pending") {
          finished_at = record.attempt.started_at + record.attempt.duration_ms;
        }
        st.BindOptional(5, finished_at);
      },
      what);
  if (!updated) return updated;
  if (auto s = NotFoundUnlessChanged(db, what + ": not pending, or not its next attempt"); !s) {
    return s;
  }
  return RunCached(
      db, sql::kInsertAlertAttempt,
      [&](Statement& st) {
        st.BindInt64(1, record.delivery_id);
        st.BindInt64(2, record.attempt.attempt);
        st.BindInt64(3, record.attempt.started_at);
        st.BindInt64(4, record.attempt.duration_ms);
        st.BindOptional(5, record.attempt.http_status);
        st.BindOptional(6, record.attempt.error);
      },
      what);
}

Status ResolveAlert(Database& db, int64_t alert_id, int64_t resolved_at) {
  const std::string what = "resolving alert " + std::to_string(alert_id);
  auto s = RunCached(
      db, sql::kResolveAlert,
      [&](Statement& st) {
        st.BindInt64(1, alert_id);
        st.BindInt64(2, resolved_at);
      },
      what);
  if (!s) return s;
  return NotFoundUnlessChanged(db, what + ": no open alert by that id");
}

}  // namespace writes
}  // namespace droidlab::store
