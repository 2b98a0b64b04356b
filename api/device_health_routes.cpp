// Fleet health (issue 17 §3): GET /devices/{serial}/health — the phone's stored health samples
// and events (the recovery ladder's steps, reboots seen, quarantine and release, runs failed for
// a device reason), its quarantine, and what this daemon's monitor saw since it started when
// this host holds the phone; POST /devices/{serial}/release — an operator lets a quarantined
// phone take runs again (the audit log records who; the device's history says so too).
#include <string>
#include <utility>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"
#include "base/wall_clock.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

constexpr int64_t kDefaultSamples = 1440;  // a day of checks a minute apart

Json SampleJson(const store::DeviceHealthSample& s) {
  return Json{{"at", s.at},
              {"host", s.host},
              {"answered", s.uptime_ms.has_value()},
              {"uptime_ms", OrNull(s.uptime_ms)},
              {"battery_level", OrNull(s.battery_level)},
              {"battery_temp_tenths_c", OrNull(s.battery_temp)},
              {"thermal_status", OrNull(s.thermal_status)},
              {"adb_commands", s.adb_commands},
              {"adb_errors", s.adb_errors},
              {"adb_ms", s.adb_ms}};
}

Json EventJson(const store::DeviceEvent& e) {
  return Json{{"id", e.id}, {"at", e.at}, {"host", e.host}, {"kind", e.kind},
              {"detail", e.detail}};
}

Json MonitorJson(const orchestrator::DeviceHealthSnapshot& s) {
  return Json{{"checked_at", OrNull(s.checked_at)},
              {"answering", s.answering},
              {"recovering", s.recovering},
              {"checks", s.checks},
              {"unanswered_checks", s.unanswered_checks},
              {"reconnects", s.reconnects},
              {"reboots", s.reboots},
              {"runs_failed_for_device", s.runs_failed},
              {"ladder", {{"reconnect_transport", s.transport_reconnects},
                          {"reconnect_device", s.device_reconnects},
                          {"reboot", s.reboot_requests}}}};
}

struct HealthHistory {
  store::Device device;
  std::vector<store::DeviceHealthSample> samples;
  std::vector<store::DeviceEvent> events;
};

}  // namespace

asio::awaitable<HttpResponse> DeviceHealth(const HttpRequest& request, const PathParams& p,
                                           const RouteContext& ctx) {
  const std::string serial = p.at("serial");
  int64_t since = 0;
  if (auto given = Query(request, "since")) {
    auto value = ParseId(*given);
    if (!value) co_return BadRequest("since: expected ms since the epoch, got '" + *given + "'");
    since = *value;
  }
  int64_t limit = kDefaultSamples;
  if (auto given = Query(request, "limit")) {
    auto value = ParseId(*given);
    if (!value || *value < 1 || *value > 10000) {
      co_return BadRequest("limit: expected 1 to 10000, got '" + *given + "'");
    }
    limit = *value;
  }
  auto query = [serial, since, limit](store::Reader& r) -> store::StoreResult<HealthHistory> {
    HealthHistory h;
    auto device = r.GetDevice(serial);
    if (!device) return device.error();
    auto samples = r.ListDeviceHealth(serial, since, limit);
    if (!samples) return samples.error();
    auto events = r.ListDeviceEvents(serial, 200);
    if (!events) return events.error();
    h.device = std::move(*device);
    h.samples = std::move(*samples);
    h.events = std::move(*events);
    return h;
  };
  auto reading = ctx.store.Read(query);
  auto history = co_await std::move(reading);
  if (!history) {
    if (history.error().code == store::StoreErrorCode::kNotFound) {
      co_return NotFound("no device '" + serial + "' has been seen");
    }
    co_return StoreFailure(history.error());
  }
  Json samples = Json::array();
  for (const auto& s : history->samples) samples.push_back(SampleJson(s));
  Json events = Json::array();
  for (const auto& e : history->events) events.push_back(EventJson(e));
  Json body = {{"serial", serial},
               {"quarantine", QuarantineJson(history->device)},
               {"samples", std::move(samples)},
               {"events", std::move(events)},
               {"monitor", nullptr}};
  if (ctx.services.health != nullptr) {
    for (const auto& s : ctx.services.health->Snapshot()) {
      if (s.serial == serial) body["monitor"] = MonitorJson(s);
    }
  }
  co_return Ok(std::move(body));
}

asio::awaitable<HttpResponse> ReleaseDevice(const HttpRequest& request, const PathParams& p,
                                            const RouteContext& ctx) {
  const std::string serial = p.at("serial");
  store::DeviceEvent event;
  event.serial = serial;
  event.host = ctx.services.host_name;
  event.at = WallNowMs();
  event.kind = "released";
  event.detail = "released by " + request.caller + " (" + request.remote + ")";
  auto releasing = ctx.store.ReleaseDevice(std::move(event));
  auto released = co_await std::move(releasing);
  if (!released) {
    if (released.error().code == store::StoreErrorCode::kInvalidArgument) {
      co_return JsonError(409, "conflict", released.error().message);
    }
    if (released.error().code == store::StoreErrorCode::kNotFound) {
      co_return NotFound("no device '" + serial + "' has been seen");
    }
    co_return StoreFailure(released.error());
  }
  auto reading = ctx.store.GetDevice(serial);
  auto device = co_await std::move(reading);
  if (!device) co_return StoreFailure(device.error());
  co_return Ok(DeviceJson(*device, ctx.Live(device->serial)));
}

}  // namespace droidlab::api
