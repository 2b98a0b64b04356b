// The API's view of HTTP: plain request and response values, with no Beast in them, so that
// handlers are functions of values (and Beast stays in server.cpp, compiled once).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace droidlab::api {

// A request body the server streamed to a file instead of memory (POST /api/v1/builds).
struct SpooledBody {
  std::string path;
  int64_t size = 0;
  std::string sha256;  // lower-case hex
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target without its query, still percent-encoded
  std::string target;  // as sent: path and query
  std::map<std::string, std::string> query;  // decoded; a repeated key keeps its last value
  std::string body;
  std::string authorization;  // the header's value, "" when absent
  std::string if_none_match;
  std::string origin;
  std::string content_type;  // the header's value, "" when absent
  std::string host;          // the Host header's value, "" when absent
  // Set instead of `body` for a route whose body is spooled to disk (server.h).
  std::optional<SpooledBody> spooled;
  std::string file_name;  // X-File-Name: the uploaded file's name, for people; "" when absent
  // Set by the server once the token is checked: the token's name ("local" with no token), and
  // the client's address. What the audit log records (api/audit.h).
  std::string caller;
  std::string remote;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type/Length
  std::string etag;  // set once known (a cached response); else computed from the body for GETs
  // A cached body, shared with the cache instead of copied (`body` is then empty).
  std::shared_ptr<const std::string> shared_body;
};

// {"error":{"code":CODE,"message":MESSAGE}} with `status`.
HttpResponse JsonError(int status, std::string_view code, std::string_view message);
HttpResponse JsonResponse(int status, std::string body);

// Percent-decoding ('+' stays '+': it is a space only in forms). nullopt for a bad escape.
std::optional<std::string> PercentDecode(std::string_view text);
// "a=1&b=x%20y" → {a:1, b:"x y"}; nullopt when an escape is bad.
std::optional<std::map<std::string, std::string>> ParseQuery(std::string_view query);

// A strong ETag of a body: "\"<16 hex digits>\"" (FNV-1a 64 over 8-byte words, then the tail).
std::string EtagOf(std::string_view body);
// Whether an If-None-Match value (a list, or *) names `etag`.
bool IfNoneMatchHits(std::string_view if_none_match, std::string_view etag);

// Whether a Content-Type value names JSON: "application/json", any case, parameters allowed
// ("application/json; charset=utf-8").
bool IsJsonMediaType(std::string_view content_type);

// Constant-time comparison of a request's token with the configured one.
bool TokenMatches(std::string_view given, std::string_view expected);

}  // namespace droidlab::api
