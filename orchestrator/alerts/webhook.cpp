#include "orchestrator/alerts/webhook.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>

#include "base/parse_int.h"

namespace droidlab::orchestrator {

namespace {

using Json = nlohmann::json;

std::string Hex(const unsigned char* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

Json Optional(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
Json Optional(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

BasicResult<WebhookUrl, std::string> ParseWebhookUrl(std::string_view url) {
  const std::string quoted = "'" + std::string(url) + "'";
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return quoted + ": a URL has no spaces or control characters";
    }
  }
  constexpr std::string_view kHttp = "http://";
  if (url.starts_with("https://")) {
    return quoted +
           ": https is not supported for webhooks yet; use http:// (behind a TLS-terminating "
           "proxy beyond a closed lab network)";
  }
  if (!url.starts_with(kHttp)) return quoted + ": expected an http:// URL";
  std::string_view rest = url.substr(kHttp.size());
  if (rest.find('#') != std::string_view::npos) return quoted + ": a webhook URL has no fragment";
  const size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
  WebhookUrl parsed;
  parsed.target = path_at == std::string_view::npos ? "/" : std::string(rest.substr(path_at));
  if (parsed.target.front() == '?') parsed.target.insert(0, "/");
  if (authority.find('@') != std::string_view::npos) {
    return quoted + ": user info in a URL is not sent; put the credential in the path or query";
  }
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return quoted + ": unclosed '[' in the host";
    parsed.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return quoted + ": expected ':PORT' after ']'";
      port_text = after.substr(1);
      if (port_text.empty()) return quoted + ": empty port";
    }
  } else {
    const size_t colon = authority.rfind(':');
    parsed.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return quoted + ": empty port";
    }
  }
  if (parsed.host.empty()) return quoted + ": no host";
  if (!port_text.empty()) {
    const std::optional<int64_t> port = ParseInt<int64_t>(port_text);
    if (!port || *port < 1 || *port > 65535) return quoted + ": port must be 1 to 65535";
    parsed.port = static_cast<uint16_t>(*port);
  }
  return parsed;
}

std::string RedactedWebhookUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  const size_t path_at = url.find_first_of("/?#", scheme + 3);
  std::string shown(url.substr(0, path_at));
  if (path_at != std::string_view::npos) shown += "/…";
  return shown;
}

std::string SignWebhookBody(std::string_view secret, std::string_view body) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac.data(), &length);
  return "sha256=" + Hex(mac.data(), length);
}

std::string NewDeliveryId() {
  std::array<unsigned char, 16> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    // OpenSSL's generator is seeded from the kernel; a failure here is not recoverable.
    std::abort();
  }
  return Hex(bytes.data(), bytes.size());
}

Json AlertJson(const store::Alert& alert) {
  Json j;
  j["id"] = alert.id;
  j["kind"] = alert.kind;
  j["state"] = alert.state;
  j["package"] = alert.package;
  j["model"] = alert.model;
  j["mode"] = alert.mode;
  j["metric"] = alert.metric;
  j["delta"] = Optional(alert.delta);
  j["delta_pct"] = Optional(alert.delta_pct);
  j["ci_low"] = Optional(alert.ci_low);
  j["ci_high"] = Optional(alert.ci_high);
  j["run_id"] = Optional(alert.run_id);
  j["build_id"] = Optional(alert.build_id);
  j["version_code"] = Optional(alert.version_code);
  j["explained_by"] = alert.explained_by;
  j["created_at"] = alert.created_at;
  j["resolved_at"] = Optional(alert.resolved_at);
  return j;
}

std::string WebhookBody(const store::Alert& alert, const store::AlertDelivery& delivery,
                        int64_t attempt, int64_t sent_at_ms) {
  Json body;
  body["delivery"] = {{"id", delivery.delivery_id}, {"attempt", attempt}, {"sent_at", sent_at_ms}};
  body["alert"] = AlertJson(alert);
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::chrono::milliseconds RetryDelay(int64_t attempt, std::chrono::milliseconds first,
                                     std::chrono::milliseconds most) {
  std::chrono::milliseconds delay = first;
  for (int64_t i = 1; i < attempt && delay < most; ++i) delay *= 2;
  return std::min(delay, most);
}

}  // namespace droidlab::orchestrator
