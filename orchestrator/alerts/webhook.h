// What a webhook delivery is made of, with no socket in it: the URL it goes to (http[s]://),
// the JSON body of an alert, its HMAC-SHA256 signature, the back-off between attempts, and the
// transport a delivery is handed to (WebhookSender: the daemon gives api/'s Beast client; tests
// may give their own). The receiver's side of the contract is in orchestrator/README.md
// ("Alerts and webhooks").
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "orchestrator/alerts/webhook_url.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// One configured webhook (config `alerts.webhooks`).
struct WebhookTarget {
  std::string url;
  std::string secret;  // the HMAC key; never stored in the database nor shown by the API
};

// "sha256=" + lower-case hex of HMAC-SHA256(secret, body): the X-Droidlab-Signature header.
std::string SignWebhookBody(std::string_view secret, std::string_view body);

// 32 lower-case hex digits from OpenSSL's CSPRNG: a delivery's id, sent with each attempt.
std::string NewDeliveryId();

// The alert as JSON (the API's shape, without the deliveries).
nlohmann::json AlertJson(const store::Alert& alert);

// The exact body of one attempt: {"delivery":{"id","attempt","sent_at"},"alert":{…}}. The
// signature covers it whole, so the delivery id and the send time are signed with the alert.
std::string WebhookBody(const store::Alert& alert, const store::AlertDelivery& delivery,
                        int64_t attempt, int64_t sent_at_ms);

// The wait after failed attempt `attempt` (1-based): first × 2^(attempt-1), at most `most`.
std::chrono::milliseconds RetryDelay(int64_t attempt, std::chrono::milliseconds first,
                                     std::chrono::milliseconds most);

// One POST for the transport to make: connect, send, read the answer's status, all within
// `timeout`.
struct WebhookPost {
  WebhookUrl url;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Host and Content-Length
  std::string body;
  std::chrono::milliseconds timeout{10'000};
};

// What came back: the HTTP status, or none and why (refused, timed out, not HTTP, cancelled).
struct WebhookAnswer {
  std::optional<int> http_status;
  std::string error;
};

// The transport. Must honour the awaiting coroutine's cancellation (terminal) and the timeout.
using WebhookSender = std::function<boost::asio::awaitable<WebhookAnswer>(WebhookPost)>;

}  // namespace droidlab::orchestrator
