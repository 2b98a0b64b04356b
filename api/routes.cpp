#include "api/routes.h"

#include <memory>

#include "api/handlers.h"

namespace droidlab::api {

namespace {

struct RouteEntry {
  const char* method;
  const char* pattern;
  ContextHandler handler;
};

// API.md's routes, in its order.
constexpr RouteEntry kRoutes[] = {
    {"GET", "/api/v1/health", Health},
    {"GET", "/api/v1/devices", Devices},
    {"GET", "/api/v1/devices/{serial}", Device},
    {"PUT", "/api/v1/devices/{serial}/labels", SetDeviceLabels},
    {"GET", "/api/v1/devices/{serial}/health", DeviceHealth},
    {"POST", "/api/v1/devices/{serial}/release", ReleaseDevice},
    {"GET", "/api/v1/hosts", Hosts},
    {"GET", "/api/v1/audit", ListAudit},
    {"POST", "/api/v1/runs", CreateRun},
    {"GET", "/api/v1/runs", ListRuns},
    {"GET", "/api/v1/runs/{id}", GetRun},
    {"DELETE", "/api/v1/runs/{id}", CancelRun},
    {"GET", "/api/v1/runs/{id}/launches", Launches},
    {"GET", "/api/v1/runs/{id}/looper-stats", LooperStats},
    {"GET", "/api/v1/runs/{id}/proc-samples", ProcSamples},
    {"GET", "/api/v1/runs/{id}/frames", Frames},
    {"GET", "/api/v1/runs/{id}/faults", Faults},
    {"GET", "/api/v1/runs/{id}/memory", Memory},
    {"GET", "/api/v1/runs/{id}/compare", Compare},
    {"GET", "/api/v1/runs/{id}/verdict", Verdict},
    {"GET", "/api/v1/series", Series},
    {"GET", "/api/v1/packages/{package}/series", PackageSeries},
    {"POST", "/api/v1/builds", CreateBuild},
    {"GET", "/api/v1/builds", ListBuilds},
    {"GET", "/api/v1/builds/{id}", GetBuild},
    {"DELETE", "/api/v1/builds/{id}", DeleteBuild},
    {"GET", "/api/v1/schedules", ListSchedules},
    {"POST", "/api/v1/schedules", CreateSchedule},
    {"DELETE", "/api/v1/schedules/{id}", DeleteSchedule},
    {"GET", "/api/v1/calibration", Calibration},
    {"GET", "/api/v1/alerts", ListAlerts},
    {"POST", "/api/v1/alerts/{id}/resolve", ResolveAlert},
    {"GET", "/api/v1/events", EventsPlaceholder},
    {"GET", "/api/v1/openapi.json", OpenApi},
    {"GET", "/metrics", MetricsText},
    {"GET", "/", Dashboard},
    {"GET", "/ui/{file}", DashboardFile},
};

}  // namespace

const std::string& OpenApiDocument() {
  static const std::string kDocument(OpenApiFile().front().bytes);
  return kDocument;
}

bool IsDashboardPath(std::string_view path) {
  return path == "/" || (path.starts_with("/ui/") && path.find('/', 4) == std::string_view::npos);
}

void AddRoutes(Router& router, const Services& services, const Metrics& metrics) {
  // The context lives as long as the router's handlers: owned by them through a shared_ptr.
  auto ctx = std::make_shared<const RouteContext>(services, metrics);
  for (const RouteEntry& route : kRoutes) {
    Handler handler = [ctx, fn = route.handler](const HttpRequest& r, const PathParams& p) {
      return fn(r, p, *ctx);
    };
    router.Add(route.method, route.pattern, std::move(handler));
  }
}

}  // namespace droidlab::api
