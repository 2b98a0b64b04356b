// The checks a request meets before its body is read, for a daemon that a web page on the same
// machine could reach: who may ask (the token), and — with no token — whether the request comes
// from this daemon's own name and origin.
//
// Without a token, the API's only guard is that it listens on loopback. Two kinds of web page
// can still reach it there through the operator's browser:
//  - a DNS-rebinding page: evil.example resolves to 127.0.0.1 after the page loaded, so its
//    scripts read and post as a same-origin page. Its requests carry `Host: evil.example`: on a
//    loopback listener, a Host that is not a loopback name is refused (every method: reads leak
//    the lab's data too).
//  - a cross-site page posting a form or a `text/plain` fetch (no CORS preflight): it carries
//    `Origin: https://evil.example`. A state-changing request (any method but GET, HEAD,
//    OPTIONS) with an Origin that is neither this daemon's (`http://` + its Host) nor a
//    configured CORS origin is refused; the 415 for a POST that is not JSON (server.cpp) is the
//    second fence.
// With a token neither check applies: the browser never attaches the token by itself, so a
// foreign page cannot use it, and a reverse proxy may name the daemon as it likes.
// Listening beyond loopback with no token (`serve --insecure`), any Host is the daemon's: it
// cannot know the names the network gives it, and whoever reaches the port may use the API
// anyway. The Origin check stays; a rebinding page (its Origin and Host both its own name) is
// what --insecure accepts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::api {

// localhost, 127.0.0.0/8 written as four decimal parts, ::1 (bare or in brackets).
bool IsLoopbackName(std::string_view host);

// The host of a Host header value: "localhost:8765" → "localhost", "[::1]:8765" → "[::1]".
std::string_view HostWithoutPort(std::string_view host_header);

struct GuardPolicy {
  bool has_token = false;
  bool loopback_listener = false;  // the daemon listens on a loopback address
  const std::vector<std::string>* cors_origins = nullptr;
};

struct GuardRefusal {
  int status;           // 403
  std::string code;     // "forbidden"
  std::string message;  // names the Host or Origin refused and why
};

// Nothing when the request may go on; else why not. `host` and `origin` are the headers' values
// ("" when absent: HTTP/1.0 clients send no Host; same-origin GETs often no Origin).
std::optional<GuardRefusal> CheckHostAndOrigin(const GuardPolicy& policy, std::string_view method,
                                               std::string_view host, std::string_view origin);

}  // namespace droidlab::api
