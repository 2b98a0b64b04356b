#include "orchestrator/alerts/webhook_url.h"

#include "base/parse_int.h"

namespace droidlab::orchestrator {

BasicResult<WebhookUrl, std::string> ParseWebhookUrl(std::string_view url) {
  const std::string quoted = "'" + std::string(url) + "'";
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return quoted + ": a URL has no spaces or control characters";
    }
  }
  constexpr std::string_view kHttp = "http://";
  constexpr std::string_view kHttps = "https://";
  WebhookUrl parsed;
  std::string_view rest;
  if (url.starts_with(kHttps)) {
    parsed.tls = true;
    parsed.port = 443;
    rest = url.substr(kHttps.size());
  } else if (url.starts_with(kHttp)) {
    rest = url.substr(kHttp.size());
  } else {
    return quoted + ": expected an http:// or https:// URL";
  }
  if (rest.find('#') != std::string_view::npos) return quoted + ": a webhook URL has no fragment";
  const size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
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

}  // namespace droidlab::orchestrator
