// Schedules: list, create (the body checked: cron, time zone, run spec), delete; the scheduler is
// woken after each change.
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"
#include "base/wall_clock.h"
#include "orchestrator/lab/cron.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

HttpResponse DeletedResponse(int64_t id) {
  Json body = {{"id", id}, {"deleted", true}};
  return JsonResponse(200, Dump(body));
}

// A schedule body → the schedule to store, or the 400 that says why not.
BasicResult<store::NewSchedule, HttpResponse> ScheduleFromBody(const std::string& text,
                                                               int64_t now_ms) {
  Json body = Json::parse(text, nullptr, false);
  if (body.is_discarded() || !body.is_object()) return BadRequest("body: not a JSON object");
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (it.key() != "cron" && it.key() != "timezone" && it.key() != "run" &&
        it.key() != "enabled") {
      return BadRequest(it.key() + ": not a schedule field (cron, timezone, run, enabled)");
    }
  }
  if (!body.contains("cron") || !body["cron"].is_string()) {
    return BadRequest("cron: required, a string of 5 fields");
  }
  auto cron = orchestrator::ParseCron(body["cron"].get<std::string>());
  if (!cron) return BadRequest("cron: " + cron.error().message);
  std::string zone_name = "UTC";
  if (body.contains("timezone")) {
    if (!body["timezone"].is_string()) return BadRequest("timezone: must be a string");
    zone_name = body["timezone"].get<std::string>();
  }
  auto zone = orchestrator::TimeZone::Find(zone_name);
  if (!zone) return BadRequest(zone.error().message);
  if (!body.contains("run")) return BadRequest("run: required, a run body");
  auto spec = orchestrator::ParseRunSpec(Dump(body["run"]));
  if (!spec) return BadRequest("run." + FieldMessage(spec.error().field, spec.error().message));
  store::NewSchedule schedule;
  if (body.contains("enabled")) {
    if (!body["enabled"].is_boolean()) return BadRequest("enabled: must be true or false");
    schedule.enabled = body["enabled"].get<bool>();
  }
  schedule.cron = cron->text();
  schedule.timezone = zone->name();
  schedule.run_spec_json = orchestrator::RunSpecToJson(*spec);
  schedule.created_at = now_ms;
  return schedule;
}

HttpResponse SchedulesResponse(const std::vector<store::Schedule>& schedules) {
  Json list = Json::array();
  for (const auto& s : schedules) list.push_back(ScheduleJson(s));
  return Wrapped("schedules", std::move(list));
}

}  // namespace

asio::awaitable<HttpResponse> ListSchedules(const HttpRequest&, const PathParams&,
                                            const RouteContext& ctx) {
  auto listing = ctx.store.ListSchedules();
  auto schedules = co_await std::move(listing);
  if (!schedules) co_return StoreFailure(schedules.error());
  co_return SchedulesResponse(*schedules);
}

asio::awaitable<HttpResponse> CreateSchedule(const HttpRequest& request, const PathParams&,
                                             const RouteContext& ctx) {
  auto parsed = ScheduleFromBody(request.body, WallNowMs());
  if (!parsed) co_return parsed.error();
  store::NewSchedule schedule = std::move(*parsed);
  auto creating = ctx.store.CreateSchedule(std::move(schedule));
  auto id = co_await std::move(creating);
  if (!id) co_return StoreFailure(id.error());
  if (ctx.services.scheduler) ctx.services.scheduler->Wake();
  const int64_t new_id = *id;
  auto reading = ctx.store.GetSchedule(new_id);
  auto stored = co_await std::move(reading);
  if (!stored) co_return StoreFailure(stored.error());
  HttpResponse response = Ok(ScheduleJson(*stored), 201);
  response.headers.emplace_back("Location", "/api/v1/schedules/" + std::to_string(new_id));
  co_return response;
}

asio::awaitable<HttpResponse> DeleteSchedule(const HttpRequest&, const PathParams& p,
                                             const RouteContext& ctx) {
  auto id = ParseId(p.at("id"));
  if (!id) co_return NotFound("no schedule '" + p.at("id") + "'");
  const int64_t schedule_id = *id;
  auto deleting = ctx.store.DeleteSchedule(schedule_id);
  auto deleted = co_await std::move(deleting);
  if (!deleted) co_return StoreFailure(deleted.error());
  if (ctx.services.scheduler) ctx.services.scheduler->Wake();
  co_return DeletedResponse(schedule_id);
}

}  // namespace droidlab::api
