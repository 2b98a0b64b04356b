#include "api/audit.h"

namespace droidlab::api {

std::optional<std::string> CallerOf(const std::optional<std::string>& token,
                                    const std::vector<NamedToken>& tokens,
                                    std::string_view authorization) {
  if (!token && tokens.empty()) return "local";
  if (authorization.size() <= 7 || authorization.substr(0, 7) != "Bearer ") return std::nullopt;
  const std::string_view given = authorization.substr(7);
  // Every token is compared, matched or not: the time taken says nothing of which one matched.
  std::optional<std::string> caller;
  if (token && TokenMatches(given, *token)) caller = "token";
  for (const NamedToken& named : tokens) {
    if (TokenMatches(given, named.token) && !caller) caller = named.name;
  }
  return caller;
}

bool ChangesState(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "DELETE";
}

store::AuditEntry AuditEntryOf(const HttpRequest& request, const HttpResponse& response,
                               int64_t now_ms) {
  store::AuditEntry entry;
  entry.at = now_ms;
  entry.caller = request.caller;
  entry.remote = request.remote;
  entry.method = request.method;
  entry.path = request.path;
  entry.status = response.status;
  for (const auto& [name, value] : response.headers) {
    if (name == "Location") entry.location = value;
  }
  return entry;
}

}  // namespace droidlab::api
