#include "orchestrator/alerts/webhook.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>


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
