#include "api/request_guard.h"

#include <algorithm>

#include "base/parse_int.h"

namespace droidlab::api {

namespace {

bool IsIpv4Loopback(std::string_view host) {
  int parts = 0;
  bool first_is_127 = false;
  while (true) {
    const size_t dot = host.find('.');
    const std::string_view part = host.substr(0, dot);
    if (part.empty() || part.size() > 3) return false;
    const std::optional<int> value = ParseInt<int>(part);
    if (!value || *value > 255) return false;
    if (parts == 0) first_is_127 = *value == 127;
    ++parts;
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
  }
  return parts == 4 && first_is_127;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
           return lower(x) == lower(y);
         });
}

// Not one of HTTP's safe methods (RFC 9110 §9.2.1): a browser's cross-site request of this kind
// must be refused.
bool IsUnsafeMethod(std::string_view method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

}  // namespace

bool IsLoopbackName(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return EqualsIgnoringCase(host, "localhost") || host == "::1" || IsIpv4Loopback(host);
}

std::string_view HostWithoutPort(std::string_view host_header) {
  if (!host_header.empty() && host_header.front() == '[') {
    const size_t close = host_header.find(']');
    return close == std::string_view::npos ? host_header : host_header.substr(0, close + 1);
  }
  return host_header.substr(0, host_header.find(':'));
}

std::optional<GuardRefusal> CheckHostAndOrigin(const GuardPolicy& policy, std::string_view method,
                                               std::string_view host, std::string_view origin) {
  if (policy.has_token) return std::nullopt;
  if (policy.loopback_listener && !host.empty() && !IsLoopbackName(HostWithoutPort(host))) {
    return GuardRefusal{403, "forbidden",
                        "Host '" + std::string(host) +
                            "' is not this daemon's: with no token it answers only to loopback "
                            "names (localhost, 127.0.0.1, [::1])"};
  }
  if (!IsUnsafeMethod(method) || origin.empty()) return std::nullopt;
  if (!host.empty() && EqualsIgnoringCase(origin, "http://" + std::string(host))) return std::nullopt;
  if (policy.cors_origins) {
    for (const auto& allowed : *policy.cors_origins) {
      if (allowed == origin || allowed == "*") return std::nullopt;  // "*": the operator's choice
    }
  }
  return GuardRefusal{403, "forbidden",
                      "a " + std::string(method) + " from origin '" + std::string(origin) +
                          "' is refused: with no token only this daemon's own pages and the "
                          "configured CORS origins may change anything"};
}

}  // namespace droidlab::api
