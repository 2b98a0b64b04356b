// Who made a request, and the audit log of what changed (issue 17 §3). A daemon may hold several
// named tokens (a tokens file of `name:token` lines): the name of the one a request carried is
// its caller. Every request that changed something — POST, PUT or DELETE answered 2xx — is
// committed to the store's audit log (schema 0017) before its answer is sent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http.h"
#include "store/records.h"

namespace droidlab::api {

struct NamedToken {
  std::string name;  // "ci", "alice": letters, digits, '.', '_', '-'
  std::string token;
};

// The name of the token `authorization` ("Bearer TOKEN") carries among `tokens` (and `token`,
// named "token"), compared in constant time; "local" when there is no token at all; nullopt when
// a token is needed and this is not one.
std::optional<std::string> CallerOf(const std::optional<std::string>& token,
                                    const std::vector<NamedToken>& tokens,
                                    std::string_view authorization);

// POST, PUT, DELETE: what the audit log records when answered 2xx.
bool ChangesState(std::string_view method);

// The entry for `request` answered with `response` at `now_ms`: its Location header, if any,
// says what it made.
store::AuditEntry AuditEntryOf(const HttpRequest& request, const HttpResponse& response,
                               int64_t now_ms);

}  // namespace droidlab::api
