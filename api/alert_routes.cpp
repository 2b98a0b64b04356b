// Alerts: GET /api/v1/alerts — the alerts raised (orchestrator/alerts/alert_center.h), newest
// first, paged, each with its deliveries to the webhooks and every attempt. A webhook is shown
// by its scheme, host and port only: its URL may itself be a secret.
// POST /api/v1/alerts/{id}/resolve — an operator closes an open alert (seen, dealt with): it
// leaves the dashboard's open regressions and /metrics' gauge. Nothing is sent to the webhooks.
#include <string>

#include "api/handlers.h"
#include "base/wall_clock.h"
#include "api/json.h"
#include "orchestrator/alerts/webhook.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

Json AttemptJson(const store::AlertDeliveryAttempt& a) {
  Json j;
  j["attempt"] = a.attempt;
  j["started_at"] = a.started_at;
  j["duration_ms"] = a.duration_ms;
  j["http_status"] = OrNull(a.http_status);
  j["error"] = OrNull(a.error);
  return j;
}

Json DeliveryJson(const store::AlertDelivery& d) {
  Json j;
  j["delivery_id"] = d.delivery_id;
  j["webhook"] = orchestrator::RedactedWebhookUrl(d.url);
  j["status"] = d.status;
  j["attempts"] = d.attempts;
  j["next_attempt_at"] = d.status == "pending" ? OrNull(d.next_attempt_at) : Json(nullptr);
  j["created_at"] = d.created_at;
  j["finished_at"] = OrNull(d.finished_at);
  Json log = Json::array();
  for (const auto& a : d.attempt_log) log.push_back(AttemptJson(a));
  j["attempt_log"] = std::move(log);
  return j;
}

HttpResponse AlertsPage(const store::AlertPage& page) {
  Json alerts = Json::array();
  for (const store::Alert& alert : page.alerts) {
    Json j = orchestrator::AlertJson(alert);
    Json deliveries = Json::array();
    for (const auto& d : alert.deliveries) deliveries.push_back(DeliveryJson(d));
    j["deliveries"] = std::move(deliveries);
    alerts.push_back(std::move(j));
  }
  Json body = {{"alerts", std::move(alerts)}, {"next_cursor", nullptr}};
  if (!page.next_cursor.empty()) body["next_cursor"] = page.next_cursor;
  return JsonResponse(200, Dump(body));
}

Json ResolvedJson(int64_t id, int64_t resolved_at) {
  return Json{{"id", id}, {"state", "resolved"}, {"resolved_at", resolved_at}};
}

}  // namespace

asio::awaitable<HttpResponse> ResolveAlert(const HttpRequest&, const PathParams& p,
                                           const RouteContext& ctx) {
  auto id = ParseId(p.at("id"));
  if (!id) co_return NotFound("no alert '" + p.at("id") + "'");
  const int64_t alert_id = *id;
  const int64_t now = WallNowMs();
  auto resolving = ctx.store.ResolveAlert(alert_id, now);
  auto resolved = co_await std::move(resolving);
  if (!resolved) {
    if (resolved.error().code == store::StoreErrorCode::kNotFound) {
      co_return NotFound("no open alert " + std::to_string(alert_id));
    }
    co_return StoreFailure(resolved.error());
  }
  co_return JsonResponse(200, Dump(ResolvedJson(alert_id, now)));
}

asio::awaitable<HttpResponse> ListAlerts(const HttpRequest& request, const PathParams&,
                                         const RouteContext& ctx) {
  store::AlertQuery query;
  if (auto state = Query(request, "state")) {
    if (*state != "open" && *state != "resolved") {
      co_return BadRequest("state: '" + *state + "' is not one of open, resolved");
    }
    query.state = *state;
  }
  if (auto limit = Query(request, "limit")) {
    auto value = ParseId(*limit);
    if (!value || *value > 1000) {
      co_return BadRequest("limit: expected 1 to 1000, got '" + *limit + "'");
    }
    query.limit = *value;
  }
  if (auto cursor = Query(request, "cursor")) query.cursor = *cursor;
  auto listing = ctx.store.ListAlerts(query);
  auto page = co_await std::move(listing);
  if (!page) {
    if (page.error().code == store::StoreErrorCode::kInvalidArgument) {
      co_return BadRequest("cursor: " + page.error().message);
    }
    co_return StoreFailure(page.error());
  }
  co_return AlertsPage(*page);
}

}  // namespace droidlab::api
