// A webhook's URL (config `alerts.webhooks`): parsed for the transport, and redacted for the
// API. Pure, its own target (droidlab_webhook_url) so that the daemon's config loader checks
// URLs without linking the orchestrator.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace droidlab::orchestrator {

// An http:// URL, split for the transport. https:// is refused (see ParseWebhookUrl).
struct WebhookUrl {
  std::string host;  // a name or an address; IPv6 without its brackets
  uint16_t port = 80;
  std::string target;  // path and query, "/" when none
};

// "http://HOST[:PORT][/PATH[?QUERY]]". Errors name what is wrong: another scheme (https:// among
// them: droidlab carries no TLS for webhooks yet — a receiver or relay on the lab's own network
// takes plain HTTP), user info, a fragment, no host, a bad port, spaces or control characters.
BasicResult<WebhookUrl, std::string> ParseWebhookUrl(std::string_view url);

// What the API shows of a webhook: scheme, host and port only. A webhook URL often is a secret
// itself (Slack's are), so neither its path nor its query is shown.
std::string RedactedWebhookUrl(std::string_view url);

}  // namespace droidlab::orchestrator
