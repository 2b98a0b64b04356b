// Schedules: list, create (the body checked: cron, time zone, run spec), delete; the scheduler is
// woken after each change.
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"
#include "base/wall_clock.h"
#include "orchestrator/lab/schedule_spec.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

// A schedule body, parsed once, → the schedule to store, or the 400 that says why not.
BasicResult<store::NewSchedule, HttpResponse> ScheduleFromBody(const HttpRequest& request,
                                                               int64_t now_ms) {
  auto body = JsonBody(request);
  if (!body) return body.error();
  auto spec = orchestrator::ParseScheduleSpecValue(*body);
  if (!spec) return BodyError(spec.error());
  store::NewSchedule schedule;
  schedule.enabled = spec->enabled;
  schedule.cron = std::move(spec->cron);
  schedule.timezone = std::move(spec->timezone);
  schedule.run_spec_json = orchestrator::RunSpecToJson(spec->run);
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
  auto parsed = ScheduleFromBody(request, WallNowMs());
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
