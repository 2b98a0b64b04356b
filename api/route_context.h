// What every route handler is given — the daemon's services, the store's door, the orchestrator's
// run reports, the server's counters — and the answers handlers share (the error shapes, ids and
// query values read from the request). A handler is a function of (request, path params,
// context): see handlers.h.
//
// Threading: the context is built once by AddRoutes and read on the io thread; its parts are
// thread-safe as their own headers say.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/http.h"
#include "api/router.h"
#include "api/routes.h"
#include "base/result.h"
#include "orchestrator/lab/run_reports.h"
#include "orchestrator/spec/run_spec.h"
#include "store/async_store.h"

namespace droidlab::api {

struct RouteContext {
  RouteContext(const Services& services, const Metrics& metrics);

  Services services;
  store::AsyncStore store;
  orchestrator::RunReports reports;
  const Metrics& metrics;

  // The registry's live view of a device, when the daemon has a registry and knows the serial.
  std::optional<orchestrator::DeviceSnapshot> Live(const std::string& serial) const;
};

HttpResponse Ok(const nlohmann::json& body, int status = 200);
HttpResponse BadRequest(std::string_view message);      // 400 invalid_argument
HttpResponse NotFound(std::string_view message);        // 404 not_found
HttpResponse Unavailable(std::string_view message);     // 503 unavailable
HttpResponse StoreFailure(const store::StoreError& e);  // 404 for kNotFound, else 503
// {"KEY": value}.
HttpResponse Wrapped(const char* key, nlohmann::json value, int status = 200);
// DELETE's answer: {"id": id, "deleted": true}.
HttpResponse DeletedResponse(int64_t id);
// "field: message", or the message alone when no field is named.
std::string FieldMessage(const std::string& field, const std::string& message);
// The 400 for a body's FieldError: "package: is given more than once"; "" names "body".
HttpResponse BodyError(const orchestrator::FieldError& error);
// A POST's body, parsed once (orchestrator/spec/json_body.h: at most 64 levels deep, no key
// twice), or the 400 that says why not. Every route that reads a JSON body goes through this.
BasicResult<nlohmann::json, HttpResponse> JsonBody(const HttpRequest& request);

// A positive integer id, or nothing.
std::optional<int64_t> ParseId(std::string_view text);
// The query parameter `key`, percent-decoded, or nothing.
std::optional<std::string> Query(const HttpRequest& request, const std::string& key);
// The run named by the path's {id}, or the 404 that says why there is none.
BasicResult<int64_t, HttpResponse> RunIdOf(const PathParams& params);

}  // namespace droidlab::api
