#include "api/route_context.h"

#include "api/json.h"
#include "base/parse_int.h"
#include "orchestrator/spec/json_body.h"

namespace droidlab::api {

RouteContext::RouteContext(const Services& s, const Metrics& m)
    : services(s), store(*s.store), reports(*s.store, s.queue), metrics(m) {}

std::optional<orchestrator::DeviceSnapshot> RouteContext::Live(const std::string& serial) const {
  if (!services.registry) return std::nullopt;
  return services.registry->Find(serial);
}

std::optional<int64_t> ParseId(std::string_view text) {
  const std::optional<int64_t> value = ParseInt<int64_t>(text);
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

HttpResponse Ok(const nlohmann::json& body, int status) { return JsonResponse(status, Dump(body)); }

HttpResponse BadRequest(std::string_view message) {
  return JsonError(400, "invalid_argument", message);
}

HttpResponse NotFound(std::string_view message) { return JsonError(404, "not_found", message); }

HttpResponse Unavailable(std::string_view message) {
  return JsonError(503, "unavailable", message);
}

HttpResponse StoreFailure(const store::StoreError& e) {
  if (e.code == store::StoreErrorCode::kNotFound) return NotFound(e.message);
  return Unavailable("the history database: " + e.message);
}

// JSON is built in plain functions, never in a coroutine's body: g++ 12 also destroys twice the
// temporaries of initializer lists and of `?:` over class types inside coroutines.
HttpResponse DeletedResponse(int64_t id) {
  nlohmann::json body = {{"id", id}, {"deleted", true}};
  return JsonResponse(200, Dump(body));
}

HttpResponse Wrapped(const char* key, nlohmann::json value, int status) {
  nlohmann::json body = nlohmann::json::object();
  body[key] = std::move(value);
  return JsonResponse(status, Dump(body));
}

std::string FieldMessage(const std::string& field, const std::string& message) {
  if (field.empty()) return message;
  return field + ": " + message;
}

HttpResponse BodyError(const orchestrator::FieldError& error) {
  return BadRequest(FieldMessage(error.field.empty() ? "body" : error.field, error.message));
}

BasicResult<nlohmann::json, HttpResponse> JsonBody(const HttpRequest& request) {
  auto parsed = orchestrator::ParseJsonBody(request.body);
  if (!parsed) return BodyError(parsed.error());
  return std::move(*parsed);
}

std::optional<std::string> Query(const HttpRequest& request, const std::string& key) {
  auto it = request.query.find(key);
  if (it == request.query.end()) return std::nullopt;
  return it->second;
}

// The run named by the path, or the response that says why there is none.
BasicResult<int64_t, HttpResponse> RunIdOf(const PathParams& params) {
  auto id = ParseId(params.at("id"));
  if (!id) return NotFound("no run '" + params.at("id") + "' (run ids are positive integers)");
  return *id;
}

}  // namespace droidlab::api
