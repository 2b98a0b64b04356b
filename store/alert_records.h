// The records of alerts and their webhook deliveries (schema/0010_alerts.sql), in and out of
// the store. Owned values, like the rest of records.h (which includes this file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace droidlab::store {

// What an alert says: found what, where, how much, since which run and build, explained by
// what else changed there. Raised by the orchestrator (orchestrator/alerts/alert_center.h).
struct NewAlert {
  std::string kind;     // "change_point" | "regression"
  std::string package;  // where: the series
  std::string model;
  std::string mode;
  std::string metric;               // "displayed_ms", ...
  std::optional<double> delta;      // after - before, in the metric's unit
  std::optional<double> delta_pct;  // 100 × delta / before
  std::optional<double> ci_low;     // the CI of delta_pct
  std::optional<double> ci_high;
  std::optional<int64_t> run_id;  // the first run after the change
  std::optional<int64_t> build_id;
  std::optional<int64_t> version_code;
  std::vector<std::string> explained_by;  // e.g. "fingerprint", "compilation"; empty: nothing
  int64_t created_at = 0;
};

// One webhook an alert is to be sent to, as the alert is raised.
struct NewAlertDelivery {
  std::string url;
  std::string delivery_id;  // unique; sent with every attempt so receivers can dedupe
};

struct AlertDeliveryAttempt {
  int64_t attempt = 0;  // 1, 2, ...
  int64_t started_at = 0;
  int64_t duration_ms = 0;
  std::optional<int64_t> http_status;  // none: no answer (refused, timed out, ...)
  std::optional<std::string> error;    // why it failed, when it did
};

struct AlertDelivery {
  int64_t id = 0;
  int64_t alert_id = 0;
  std::string url;
  std::string delivery_id;
  std::string status;  // "pending" | "delivered" | "failed"
  int64_t attempts = 0;
  std::optional<int64_t> next_attempt_at;  // while pending
  int64_t created_at = 0;
  std::optional<int64_t> finished_at;             // delivered or failed
  std::vector<AlertDeliveryAttempt> attempt_log;  // oldest first (ListAlerts only)
};

struct Alert : NewAlert {
  int64_t id = 0;
  std::string state;  // "open" | "resolved"
  std::optional<int64_t> resolved_at;
  std::vector<AlertDelivery> deliveries;  // in the order they were raised (ListAlerts only)
};

// An attempt to record, and what it leaves the delivery as.
struct AlertAttemptRecord {
  int64_t delivery_id = 0;
  AlertDeliveryAttempt attempt;
  std::string status_after;                // "pending" | "delivered" | "failed"
  std::optional<int64_t> next_attempt_at;  // when pending after it
};

// GET /alerts: newest first, optionally of one state.
struct AlertQuery {
  std::optional<std::string> state;
  int64_t limit = 50;  // 1..1000
  std::string cursor;  // empty: from the newest
};

struct AlertPage {
  std::vector<Alert> alerts;
  std::string next_cursor;  // empty: no more
};

// A delivery due to be attempted, with its alert (the body is made from it).
struct PendingAlertDelivery {
  AlertDelivery delivery;
  Alert alert;
};

// /metrics: open regressions by package and model.
struct OpenRegressionCount {
  std::string package;
  std::string model;
  int64_t count = 0;
};

}  // namespace droidlab::store
