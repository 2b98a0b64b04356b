// GET /api/v1/audit: the audit log (api/audit.h, schema 0017), newest first: `limit` 1–1000
// (default 50) and the store's keyset `cursor`, as GET /alerts pages.
#include <string>

#include "api/handlers.h"
#include "api/json.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

HttpResponse AuditResponse(const store::AuditPage& page) {
  Json entries = Json::array();
  for (const store::AuditEntry& e : page.entries) {
    entries.push_back(Json{{"id", e.id},
                           {"at", e.at},
                           {"caller", e.caller},
                           {"remote", e.remote},
                           {"method", e.method},
                           {"path", e.path},
                           {"status", e.status},
                           {"location", e.location ? Json(*e.location) : Json(nullptr)}});
  }
  Json body = {{"entries", std::move(entries)},
               {"next_cursor", page.next_cursor ? Json(*page.next_cursor) : Json(nullptr)}};
  return Ok(body);
}

}  // namespace

asio::awaitable<HttpResponse> ListAudit(const HttpRequest& request, const PathParams&,
                                        const RouteContext& ctx) {
  int64_t limit = 50;
  if (auto given = Query(request, "limit")) {
    auto value = ParseId(*given);
    if (!value || *value > 1000) {
      co_return BadRequest("limit: expected 1 to 1000, got '" + *given + "'");
    }
    limit = *value;
  }
  std::string cursor = Query(request, "cursor").value_or("");
  auto listing = ctx.store.ListAudit(limit, std::move(cursor));
  auto page = co_await std::move(listing);
  if (!page) {
    if (page.error().code == store::StoreErrorCode::kInvalidArgument) {
      co_return BadRequest("cursor: " + page.error().message);
    }
    co_return StoreFailure(page.error());
  }
  co_return AuditResponse(*page);
}

}  // namespace droidlab::api
