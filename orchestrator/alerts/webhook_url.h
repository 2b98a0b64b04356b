// A webhook's URL (config `alerts.webhooks`): parsed for the transport, and redacted for the
// API. Pure, its own target (droidlab_webhook_url) so that the daemon's config loader checks
// URLs without linking the orchestrator.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace droidlab::orchestrator {

// An http:// or https:// URL, split for the transport.
struct WebhookUrl {
  bool tls = false;  // https://
  std::string host;  // a name or an address; IPv6 without its brackets
  uint16_t port = 80;  // 443 for https:// without a port
  std::string target;  // path and query, "/" when none
};

// "http[s]://HOST[:PORT][/PATH[?QUERY]]". Errors name what is wrong: another scheme, user info, a
// fragment, no host, a bad port, spaces or control characters.
BasicResult<WebhookUrl, std::string> ParseWebhookUrl(std::string_view url);

// What the API shows of a webhook: scheme, host and port only. A webhook URL often is a secret
// itself (Slack's are), so neither its path nor its query is shown.
std::string RedactedWebhookUrl(std::string_view url);

}  // namespace droidlab::orchestrator
