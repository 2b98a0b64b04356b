#include "api/routes.h"

#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>

#include "api/json.h"
#include "api/web_assets.h"
#include "orchestrator/lab/cron.h"
#include "orchestrator/lab/run_reports.h"
#include "base/parse_int.h"
#include "base/wall_clock.h"
#include "orchestrator/spec/run_spec.h"
#include "store/async_store.h"

namespace droidlab::api {

namespace asio = boost::asio;

namespace {

using Json = nlohmann::json;

// g++ 12 destroys twice the temporaries of a co_await full-expression (store/async_store.h):
// every store operation below is built in its own statement from named arguments, then awaited.

std::optional<int64_t> ParseId(std::string_view text) {
  const std::optional<int64_t> value = ParseInt<int64_t>(text);
  if (!value || *value <= 0) return std::nullopt;
  return value;
}

HttpResponse Ok(const Json& body, int status = 200) { return JsonResponse(status, Dump(body)); }
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
HttpResponse Wrapped(const char* key, Json value, int status = 200) {
  Json body = Json::object();
  body[key] = std::move(value);
  return JsonResponse(status, Dump(body));
}

HttpResponse HealthResponse(const std::optional<int>& adb, const std::string& version) {
  Json body = {{"status", "ok"}, {"version", version}};
  body["adb_server"] = {{"reachable", adb.has_value()}, {"version", nullptr}};
  if (adb) body["adb_server"]["version"] = *adb;
  return JsonResponse(200, Dump(body));
}

std::string FieldMessage(const std::string& field, const std::string& message) {
  if (field.empty()) return message;
  return field + ": " + message;
}

HttpResponse RunsPage(const store::RunPage& page) {
  Json runs = Json::array();
  for (const auto& run : page.runs) runs.push_back(RunJson(run));
  Json body = {{"runs", std::move(runs)}, {"next_cursor", nullptr}};
  if (!page.next_cursor.empty()) body["next_cursor"] = page.next_cursor;
  return JsonResponse(200, Dump(body));
}

// A dashboard file: revalidated on each load (the server adds its ETag, so an unchanged file is a
// 304), confined to this origin by its CSP.
HttpResponse WebAssetResponse(const WebAsset& asset) {
  HttpResponse response;
  response.content_type = std::string(asset.content_type);
  response.body = std::string(asset.body);
  response.headers.emplace_back("Cache-Control", "no-cache");
  response.headers.emplace_back("Content-Security-Policy", std::string(kDashboardCsp));
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  return response;
}

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

class Routes {
 public:
  Routes(const Services& services, const Metrics& metrics)
      : s_(services), store_(*services.store), reports_(*services.store, services.queue),
        metrics_(metrics) {}

  void AddTo(Router& router) {
    auto bind = [this](auto method) {
      return [this, method](const HttpRequest& r, const PathParams& p) {
        return (this->*method)(r, p);
      };
    };
    router.Add("GET", "/api/v1/health", bind(&Routes::Health));
    router.Add("GET", "/api/v1/devices", bind(&Routes::Devices));
    router.Add("GET", "/api/v1/devices/{serial}", bind(&Routes::Device));
    router.Add("POST", "/api/v1/runs", bind(&Routes::CreateRun));
    router.Add("GET", "/api/v1/runs", bind(&Routes::ListRuns));
    router.Add("GET", "/api/v1/runs/{id}", bind(&Routes::GetRun));
    router.Add("DELETE", "/api/v1/runs/{id}", bind(&Routes::CancelRun));
    router.Add("GET", "/api/v1/runs/{id}/launches", bind(&Routes::Launches));
    router.Add("GET", "/api/v1/runs/{id}/looper-stats", bind(&Routes::LooperStats));
    router.Add("GET", "/api/v1/runs/{id}/proc-samples", bind(&Routes::ProcSamples));
    router.Add("GET", "/api/v1/runs/{id}/compare", bind(&Routes::Compare));
    router.Add("GET", "/api/v1/schedules", bind(&Routes::ListSchedules));
    router.Add("POST", "/api/v1/schedules", bind(&Routes::CreateSchedule));
    router.Add("DELETE", "/api/v1/schedules/{id}", bind(&Routes::DeleteSchedule));
    router.Add("GET", "/api/v1/events", bind(&Routes::EventsPlaceholder));
    router.Add("GET", "/api/v1/openapi.json", bind(&Routes::OpenApi));
    router.Add("GET", "/metrics", bind(&Routes::MetricsText));
    router.Add("GET", "/", bind(&Routes::Dashboard));
    router.Add("GET", "/ui/{file}", bind(&Routes::DashboardFile));
  }

 private:
  asio::awaitable<HttpResponse> Health(const HttpRequest&, const PathParams&) {
    std::optional<int> adb;
    if (s_.adb_version) adb = co_await s_.adb_version();
    co_return HealthResponse(adb, s_.version);
  }

  std::optional<orchestrator::DeviceSnapshot> Live(const std::string& serial) const {
    if (!s_.registry) return std::nullopt;
    return s_.registry->Find(serial);
  }

  HttpResponse DevicesResponse(const std::vector<store::Device>& devices) const {
    Json list = Json::array();
    for (const auto& d : devices) list.push_back(DeviceJson(d, Live(d.serial)));
    return Wrapped("devices", std::move(list));
  }

  asio::awaitable<HttpResponse> Devices(const HttpRequest&, const PathParams&) {
    auto listing = store_.ListDevices();
    auto devices = co_await std::move(listing);
    if (!devices) co_return StoreFailure(devices.error());
    co_return DevicesResponse(*devices);
  }

  asio::awaitable<HttpResponse> Device(const HttpRequest&, const PathParams& p) {
    const std::string serial = p.at("serial");
    auto reading = store_.GetDevice(serial);
    auto device = co_await std::move(reading);
    if (!device) {
      if (device.error().code == store::StoreErrorCode::kNotFound) {
        co_return NotFound("no device '" + serial + "' has been seen");
      }
      co_return StoreFailure(device.error());
    }
    co_return Ok(DeviceJson(*device, Live(serial)));
  }

  asio::awaitable<HttpResponse> CreateRun(const HttpRequest& request, const PathParams&) {
    auto spec = orchestrator::ParseRunSpec(request.body);
    if (!spec) co_return BadRequest(FieldMessage(spec.error().field, spec.error().message));
    if (!s_.queue) co_return Unavailable("this daemon runs no queue");
    std::optional<std::string> model;
    if (auto live = Live(spec->serial); live && live->properties) model = live->properties->model;
    if (!model) {
      const std::string serial = spec->serial;
      auto reading = store_.GetDevice(serial);
      auto stored = co_await std::move(reading);
      if (stored) model = stored->model;
    }
    std::optional<int64_t> no_schedule;
    auto run = co_await s_.queue->Submit(std::move(*spec), std::move(model), no_schedule);
    if (!run) co_return QueueFailure(run.error());
    HttpResponse response = Ok(RunJson(*run), 201);
    response.headers.emplace_back("Location", "/api/v1/runs/" + std::to_string(run->id));
    co_return response;
  }

  static HttpResponse QueueFailure(const orchestrator::RunQueueError& e) {
    using Code = orchestrator::RunQueueError::Code;
    switch (e.code) {
      case Code::kInvalidArgument:
        return BadRequest(FieldMessage(e.field, e.message));
      case Code::kNotFound:
        return NotFound(e.message);
      case Code::kConflict:
        return JsonError(409, "conflict", e.message);
      case Code::kUnavailable:
        break;
    }
    return Unavailable(e.message);
  }

  asio::awaitable<HttpResponse> ListRuns(const HttpRequest& request, const PathParams&) {
    store::RunQuery query;
    query.serial = Query(request, "serial");
    query.package = Query(request, "package");
    if (auto status = Query(request, "status")) {
      query.status = store::RunStatusFromName(*status);
      if (!query.status) {
        co_return BadRequest("status: '" + *status +
                             "' is not one of queued, running, succeeded, failed, cancelled, "
                             "interrupted");
      }
    }
    if (auto since = Query(request, "since")) {
      const std::optional<int64_t> value = ParseInt<int64_t>(*since);
      if (!value || *value < 0) {
        co_return BadRequest("since: expected milliseconds since the Unix epoch, got '" + *since +
                             "'");
      }
      query.since = *value;
    }
    if (auto limit = Query(request, "limit")) {
      auto value = ParseId(*limit);
      if (!value || *value > 1000) {
        co_return BadRequest("limit: expected 1 to 1000, got '" + *limit + "'");
      }
      query.limit = static_cast<int>(*value);
    }
    if (auto cursor = Query(request, "cursor")) query.cursor = *cursor;
    auto listing = store_.ListRuns(query);
    auto page = co_await std::move(listing);
    if (!page) {
      if (page.error().code == store::StoreErrorCode::kInvalidArgument) {
        co_return BadRequest("cursor: " + page.error().message);
      }
      co_return StoreFailure(page.error());
    }
    co_return RunsPage(*page);
  }

  asio::awaitable<HttpResponse> GetRun(const HttpRequest&, const PathParams& p) {
    auto id = RunIdOf(p);
    if (!id) co_return id.error();
    auto report_of_run = reports_.Report(*id);
    auto report = co_await std::move(report_of_run);
    if (!report) co_return StoreFailure(report.error());
    co_return Ok(RunDetailJson(*report));
  }

  asio::awaitable<HttpResponse> CancelRun(const HttpRequest&, const PathParams& p) {
    auto id = RunIdOf(p);
    if (!id) co_return id.error();
    if (!s_.queue) co_return Unavailable("this daemon runs no queue");
    auto run = co_await s_.queue->Cancel(*id);
    if (!run) co_return QueueFailure(run.error());
    co_return Ok(RunJson(*run));
  }

  // The run's rows of one kind under `key`; 404 when the run does not exist.
  template <class ReadRows, class ToJson>
  asio::awaitable<HttpResponse> RunRows(const PathParams& p, const char* key, ReadRows read_rows,
                                        ToJson to_json) {
    auto id = RunIdOf(p);
    if (!id) co_return id.error();
    const int64_t run_id = *id;
    auto read = [run_id, read_rows, to_json](store::Reader& r) -> store::StoreResult<Json> {
      auto run = r.GetRun(run_id);
      if (!run) return run.error();
      auto rows = read_rows(r, run_id);
      if (!rows) return rows.error();
      Json list = Json::array();
      for (const auto& row : *rows) list.push_back(to_json(row));
      return list;
    };
    auto reading = store_.Read(std::move(read));
    auto rows = co_await std::move(reading);
    if (!rows) co_return StoreFailure(rows.error());
    co_return Wrapped(key, std::move(*rows));
  }

  struct LaunchToJson {
    Json operator()(const store::Launch& l) const { return LaunchJson(l); }
  };
  struct LooperToJson {
    Json operator()(const store::LooperStatsRow& r) const { return LooperStatsRowJson(r); }
  };
  struct SampleToJson {
    Json operator()(const store::ProcSample& s) const { return ProcSampleJson(s); }
  };

  asio::awaitable<HttpResponse> Launches(const HttpRequest&, const PathParams& p) {
    auto rows = [](store::Reader& r, int64_t id) { return r.ListLaunches(id); };
    co_return co_await RunRows(p, "launches", rows, LaunchToJson{});
  }
  asio::awaitable<HttpResponse> LooperStats(const HttpRequest&, const PathParams& p) {
    auto rows = [](store::Reader& r, int64_t id) { return r.ListLooperStats(id); };
    co_return co_await RunRows(p, "entries", rows, LooperToJson{});
  }
  asio::awaitable<HttpResponse> ProcSamples(const HttpRequest&, const PathParams& p) {
    auto rows = [](store::Reader& r, int64_t id) { return r.ListProcSamples(id); };
    co_return co_await RunRows(p, "samples", rows, SampleToJson{});
  }

  asio::awaitable<HttpResponse> Compare(const HttpRequest& request, const PathParams& p) {
    auto id = RunIdOf(p);
    if (!id) co_return id.error();
    const std::string baseline = Query(request, "baseline").value_or("previous");
    std::optional<int64_t> baseline_id;  // null: the previous successful run, like with like
    if (baseline != "previous") {
      baseline_id = ParseId(baseline);
      if (!baseline_id) {
        co_return BadRequest("baseline: expected a run id or 'previous', got '" + baseline + "'");
      }
    }
    auto compare_with_baseline = reports_.CompareWithBaseline(*id, baseline_id);
    auto comparison = co_await std::move(compare_with_baseline);
    if (!comparison) co_return StoreFailure(comparison.error());
    co_return Ok(ComparisonJson(*comparison));
  }

  asio::awaitable<HttpResponse> ListSchedules(const HttpRequest&, const PathParams&) {
    auto listing = store_.ListSchedules();
    auto schedules = co_await std::move(listing);
    if (!schedules) co_return StoreFailure(schedules.error());
    co_return SchedulesResponse(*schedules);
  }

  static HttpResponse SchedulesResponse(const std::vector<store::Schedule>& schedules) {
    Json list = Json::array();
    for (const auto& s : schedules) list.push_back(ScheduleJson(s));
    return Wrapped("schedules", std::move(list));
  }

  asio::awaitable<HttpResponse> CreateSchedule(const HttpRequest& request, const PathParams&) {
    auto parsed = ScheduleFromBody(request.body, WallNowMs());
    if (!parsed) co_return parsed.error();
    store::NewSchedule schedule = std::move(*parsed);
    auto creating = store_.CreateSchedule(std::move(schedule));
    auto id = co_await std::move(creating);
    if (!id) co_return StoreFailure(id.error());
    if (s_.scheduler) s_.scheduler->Wake();
    const int64_t new_id = *id;
    auto reading = store_.GetSchedule(new_id);
    auto stored = co_await std::move(reading);
    if (!stored) co_return StoreFailure(stored.error());
    HttpResponse response = Ok(ScheduleJson(*stored), 201);
    response.headers.emplace_back("Location", "/api/v1/schedules/" + std::to_string(new_id));
    co_return response;
  }

  asio::awaitable<HttpResponse> DeleteSchedule(const HttpRequest&, const PathParams& p) {
    auto id = ParseId(p.at("id"));
    if (!id) co_return NotFound("no schedule '" + p.at("id") + "'");
    const int64_t schedule_id = *id;
    auto deleting = store_.DeleteSchedule(schedule_id);
    auto deleted = co_await std::move(deleting);
    if (!deleted) co_return StoreFailure(deleted.error());
    if (s_.scheduler) s_.scheduler->Wake();
    co_return DeletedResponse(schedule_id);
  }

  asio::awaitable<HttpResponse> EventsPlaceholder(const HttpRequest&, const PathParams&) {
    co_return JsonError(500, "internal", "events are streamed by the server");
  }

  asio::awaitable<HttpResponse> Dashboard(const HttpRequest&, const PathParams&) {
    const WebAsset* index = FindWebAsset("/");
    if (!index) co_return NotFound("this build has no dashboard");
    co_return WebAssetResponse(*index);
  }

  asio::awaitable<HttpResponse> DashboardFile(const HttpRequest& request, const PathParams&) {
    const WebAsset* asset = FindWebAsset(request.path);
    if (!asset || asset->path == "/") co_return NotFound("no such file: " + request.path);
    co_return WebAssetResponse(*asset);
  }

  asio::awaitable<HttpResponse> OpenApi(const HttpRequest&, const PathParams&) {
    co_return JsonResponse(200, OpenApiDocument());
  }

  std::string MetricsExposition(const std::vector<store::Device>& devices,
                                const std::vector<std::pair<std::string, int64_t>>& runs) const {
    std::map<std::string, int64_t> by_state;
    for (const auto& d : devices) {
      auto live = Live(d.serial);
      ++by_state[live ? live->state : d.state];
    }
    std::string text;
    text += "# HELP droidlab_devices Devices by adb state (disconnected: seen, gone now).\n";
    text += "# TYPE droidlab_devices gauge\n";
    for (const auto& [state, n] : by_state) {
      text += "droidlab_devices{state=\"" + state + "\"} " + std::to_string(n) + "\n";
    }
    text += "# HELP droidlab_runs Runs in the history by status.\n# TYPE droidlab_runs gauge\n";
    for (const auto& [status, n] : runs) {
      text += "droidlab_runs{status=\"" + status + "\"} " + std::to_string(n) + "\n";
    }
    const store::StoreStats stats = store_.stats();
    text += "# HELP droidlab_store_queue_records Records waiting for the store's writer.\n";
    text += "# TYPE droidlab_store_queue_records gauge\n";
    text += "droidlab_store_queue_records " + std::to_string(stats.queued_records) + "\n";
    text += "# HELP droidlab_store_records_committed_total Records the writer committed.\n";
    text += "# TYPE droidlab_store_records_committed_total counter\n";
    text += "droidlab_store_records_committed_total " + std::to_string(stats.records_committed) +
            "\n";
    text += "# HELP droidlab_store_records_lost_total Records a failed batch lost.\n";
    text += "# TYPE droidlab_store_records_lost_total counter\n";
    text += "droidlab_store_records_lost_total " + std::to_string(stats.records_lost) + "\n";
    text += "# HELP droidlab_http_requests_total HTTP requests by route and status code.\n";
    text += "# TYPE droidlab_http_requests_total counter\n";
    for (const auto& [key, n] : metrics_.requests()) {
      text += "droidlab_http_requests_total{route=\"" + key.first + "\",code=\"" +
              std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
    }
    text += "# HELP droidlab_event_streams Open Server-Sent-Event streams.\n";
    text += "# TYPE droidlab_event_streams gauge\n";
    text += "droidlab_event_streams " + std::to_string(metrics_.sse_clients) + "\n";
    if (s_.lab_metrics) text += s_.lab_metrics->Exposition();
    return text;
  }

  asio::awaitable<HttpResponse> MetricsText(const HttpRequest&, const PathParams&) {
    struct Counts {
      std::vector<store::Device> devices;
      std::vector<std::pair<std::string, int64_t>> runs;
    };
    auto read = [](store::Reader& r) -> store::StoreResult<Counts> {
      Counts c;
      auto d = r.ListDevices();
      if (!d) return d.error();
      auto runs = r.CountRunsByStatus();
      if (!runs) return runs.error();
      c.devices = std::move(*d);
      c.runs = std::move(*runs);
      return c;
    };
    auto reading = store_.Read(std::move(read));
    auto counts = co_await std::move(reading);
    if (!counts) co_return StoreFailure(counts.error());
    std::string text = MetricsExposition(counts->devices, counts->runs);
    HttpResponse response = JsonResponse(200, std::move(text));
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    co_return response;
  }

  Services s_;
  store::AsyncStore store_;
  orchestrator::RunReports reports_;
  const Metrics& metrics_;
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
  // The routes live as long as the router's handlers: owned by them through a shared_ptr.
  auto routes = std::make_shared<Routes>(services, metrics);
  Router local;
  routes->AddTo(local);
  for (const Route& route : local.routes()) {
    Handler handler = [routes, inner = route.handler](const HttpRequest& r, const PathParams& p) {
      return inner(r, p);
    };
    router.Add(route.method, route.pattern, std::move(handler));
  }
}

}  // namespace droidlab::api
