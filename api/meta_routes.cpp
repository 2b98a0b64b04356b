// What is not a lab resource: health, the OpenAPI document, /metrics, the dashboard's files, and
// the placeholder of the event stream (the server streams it itself).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"
#include "api/lab_metrics.h"
#include "api/web_assets.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

HttpResponse HealthResponse(const std::optional<int>& adb, const std::string& version) {
  Json body = {{"status", "ok"}, {"version", version}};
  body["adb_server"] = {{"reachable", adb.has_value()}, {"version", nullptr}};
  if (adb) body["adb_server"]["version"] = *adb;
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

// A label value as the text format wants it: backslash, double quote and newline escaped.
std::string LabelValue(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// One gauge or counter per phone, of what fleet health's monitor and the adb client counted
// (orchestrator/lab/device_health.h): a phone not yet checked, or with no such reading, has no
// sample of that series.
struct PhoneSeries {
  const char* name;
  const char* type;
  const char* help;
};

void AppendMonitoredHealth(const RouteContext& ctx,
                           const std::vector<orchestrator::DeviceSnapshot>& phones,
                           std::string& text) {
  std::map<std::string, std::string> model_of;
  for (const auto& d : phones) {
    model_of[d.serial] = d.properties && d.properties->model ? *d.properties->model : "";
  }
  auto labels = [&model_of](const std::string& serial) {
    auto it = model_of.find(serial);
    const std::string model = it == model_of.end() ? "" : it->second;
    return "{serial=\"" + LabelValue(serial) + "\",model=\"" + LabelValue(model) + "\"}";
  };
  auto header = [&text](const PhoneSeries& s) {
    text +=
        std::string("# HELP ") + s.name + " " + s.help + "\n# TYPE " + s.name + " " + s.type + "\n";
  };
  if (ctx.services.adb_tally != nullptr) {
    const auto totals = ctx.services.adb_tally->Totals();
    if (!totals.empty()) {
      const PhoneSeries commands{"droidlab_device_adb_commands_total", "counter",
                                 "adb commands this daemon sent the phone."};
      const PhoneSeries errors{"droidlab_device_adb_command_errors_total", "counter",
                               "Those that failed (timeouts included)."};
      const PhoneSeries seconds{"droidlab_device_adb_command_seconds_total", "counter",
                                "Their round trips summed (rate over the commands' rate: the "
                                "mean latency)."};
      header(commands);
      for (const auto& [serial, c] : totals) {
        text +=
            std::string(commands.name) + labels(serial) + " " + std::to_string(c.commands) + "\n";
      }
      header(errors);
      for (const auto& [serial, c] : totals) {
        text += std::string(errors.name) + labels(serial) + " " + std::to_string(c.errors) + "\n";
      }
      header(seconds);
      for (const auto& [serial, c] : totals) {
        text += std::string(seconds.name) + labels(serial) + " " + MetricValue(c.seconds) + "\n";
      }
    }
  }
  if (ctx.services.health == nullptr) return;
  const std::vector<orchestrator::DeviceHealthSnapshot> health = ctx.services.health->Snapshot();
  if (health.empty()) return;
  using Snapshot = orchestrator::DeviceHealthSnapshot;
  struct Gauge {
    PhoneSeries series;
    std::function<std::optional<double>(const Snapshot&)> value;
  };
  auto opt = [](const std::optional<int64_t>& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  const std::vector<Gauge> gauges = {
      {{"droidlab_device_battery_level_percent", "gauge", "The battery's level at the last check."},
       [&](const Snapshot& s) { return opt(s.battery_level); }},
      {{"droidlab_device_battery_temperature_celsius", "gauge",
        "The battery's temperature at the last check."},
       [](const Snapshot& s) -> std::optional<double> {
         if (!s.battery_temp_tenths) return std::nullopt;
         return static_cast<double>(*s.battery_temp_tenths) / 10.0;
       }},
      {{"droidlab_device_thermal_status", "gauge",
        "PowerManager's thermal status at the last check: 0 none, 1 light, 2 moderate, 3 "
        "severe, 4 critical, 5 emergency, 6 shutdown."},
       [&](const Snapshot& s) { return opt(s.thermal_status); }},
      {{"droidlab_device_answering", "gauge",
        "Whether the phone answered its last check (1) or not (0)."},
       [](const Snapshot& s) -> std::optional<double> { return s.answering ? 1.0 : 0.0; }},
      {{"droidlab_device_quarantined", "gauge",
        "Whether the phone is quarantined: out of every pool until an operator releases it."},
       [](const Snapshot& s) -> std::optional<double> { return s.quarantined_at ? 1.0 : 0.0; }},
      {{"droidlab_device_reconnects_total", "counter",
        "Times adb listed the phone as a device again after another state."},
       [](const Snapshot& s) -> std::optional<double> {
         return static_cast<double>(s.reconnects);
       }},
      {{"droidlab_device_reboots_total", "counter",
        "Reboots seen (its uptime went back), whoever rebooted it."},
       [](const Snapshot& s) -> std::optional<double> { return static_cast<double>(s.reboots); }},
      {{"droidlab_device_runs_failed_total", "counter",
        "Runs that failed for a device reason: gone, offline, unauthorized, or no answer."},
       [](const Snapshot& s) -> std::optional<double> {
         return static_cast<double>(s.runs_failed);
       }},
  };
  for (const Gauge& g : gauges) {
    header(g.series);
    for (const Snapshot& s : health) {
      if (auto v = g.value(s))
        text += std::string(g.series.name) + labels(s.serial) + " " + MetricValue(*v) + "\n";
    }
  }
  const PhoneSeries steps{"droidlab_device_recovery_steps_total", "counter",
                          "Rungs of the recovery ladder taken for the phone, by step."};
  header(steps);
  for (const Snapshot& s : health) {
    std::string l = labels(s.serial);
    l.pop_back();
    text += std::string(steps.name) + l + ",step=\"reconnect_transport\"} " +
            std::to_string(s.transport_reconnects) + "\n";
    text += std::string(steps.name) + l + ",step=\"reconnect_device\"} " +
            std::to_string(s.device_reconnects) + "\n";
    text += std::string(steps.name) + l + ",step=\"reboot\"} " + std::to_string(s.reboot_requests) +
            "\n";
  }
}

// Issue 17 §3, fleet health: each phone of this host's adb server as the registry sees it now —
// one series per phone, exported by the host that holds it (another host's phones are that
// host's to export), so a lab's Prometheus sums the hosts without counting a phone twice.
void AppendDeviceHealth(const RouteContext& ctx, std::string& text) {
  if (!ctx.services.registry) return;
  const std::vector<orchestrator::DeviceSnapshot> phones = ctx.services.registry->Snapshot();
  if (phones.empty()) return;
  auto labels = [](const orchestrator::DeviceSnapshot& d) {
    std::string model = d.properties && d.properties->model ? *d.properties->model : "";
    return "{serial=\"" + LabelValue(d.serial) + "\",model=\"" + LabelValue(model) + "\"}";
  };
  text +=
      "# HELP droidlab_device_up Whether the phone answers adb as a device now (1), or is "
      "offline, unauthorized or gone (0).\n# TYPE droidlab_device_up gauge\n";
  for (const auto& d : phones) {
    text += "droidlab_device_up" + labels(d) + (d.state == "device" ? " 1\n" : " 0\n");
  }
  text +=
      "# HELP droidlab_device_last_seen_timestamp_seconds When this host's adb server last "
      "listed the phone.\n# TYPE droidlab_device_last_seen_timestamp_seconds gauge\n";
  for (const auto& d : phones) {
    text += "droidlab_device_last_seen_timestamp_seconds" + labels(d) + " " +
            std::to_string(d.last_seen / 1000) + "\n";
  }
  text +=
      "# HELP droidlab_device_state_changes_total adb state changes of the phone since the "
      "daemon started (a reconnect or a reboot passes through offline or gone).\n"
      "# TYPE droidlab_device_state_changes_total counter\n";
  for (const auto& d : phones) {
    text += "droidlab_device_state_changes_total" + labels(d) + " " +
            std::to_string(d.state_changes) + "\n";
  }
  text +=
      "# HELP droidlab_device_properties_failing Whether the last read of the phone's "
      "properties (getprop) failed.\n# TYPE droidlab_device_properties_failing gauge\n";
  for (const auto& d : phones) {
    text +=
        "droidlab_device_properties_failing" + labels(d) + (d.properties_error ? " 1\n" : " 0\n");
  }
  AppendMonitoredHealth(ctx, phones, text);
}

std::string MetricsExposition(const RouteContext& ctx, const std::vector<store::Device>& devices,
                              const std::vector<std::pair<std::string, int64_t>>& runs,
                              const std::vector<store::OpenRegressionCount>& regressions) {
  std::map<std::string, int64_t> by_state;
  for (const auto& d : devices) {
    auto live = ctx.Live(d.serial);
    ++by_state[live ? live->state : d.state];
  }
  std::string text;
  text += "# HELP droidlab_devices Devices by adb state (disconnected: seen, gone now).\n";
  text += "# TYPE droidlab_devices gauge\n";
  for (const auto& [state, n] : by_state) {
    text += "droidlab_devices{state=\"" + state + "\"} " + std::to_string(n) + "\n";
  }
  AppendDeviceHealth(ctx, text);
  text += "# HELP droidlab_runs Runs in the history by status.\n# TYPE droidlab_runs gauge\n";
  for (const auto& [status, n] : runs) {
    text += "droidlab_runs{status=\"" + status + "\"} " + std::to_string(n) + "\n";
  }
  text += "# HELP droidlab_open_regressions Open alerts that are regressions (a regression "
          "verdict, or a change point that made the metric larger), by package and phone model.\n";
  text += "# TYPE droidlab_open_regressions gauge\n";
  for (const auto& r : regressions) {
    text += "droidlab_open_regressions{package=\"" + LabelValue(r.package) + "\",model=\"" +
            LabelValue(r.model) + "\"} " + std::to_string(r.count) + "\n";
  }
  const store::StoreStats stats = ctx.store.stats();
  text += "# HELP droidlab_store_queue_records Records waiting for the store's writer.\n";
  text += "# TYPE droidlab_store_queue_records gauge\n";
  text += "droidlab_store_queue_records " + std::to_string(stats.queued_records) + "\n";
  text += "# HELP droidlab_store_records_committed_total Records the writer committed.\n";
  text += "# TYPE droidlab_store_records_committed_total counter\n";
  text +=
      "droidlab_store_records_committed_total " + std::to_string(stats.records_committed) + "\n";
  text += "# HELP droidlab_store_records_lost_total Records a failed batch lost.\n";
  text += "# TYPE droidlab_store_records_lost_total counter\n";
  text += "droidlab_store_records_lost_total " + std::to_string(stats.records_lost) + "\n";
  // PostgreSQL: a lost connection is retried, its batch kept; 0 on SQLite.
  text +=
      "# HELP droidlab_store_connection_losses_total Times the store writer's connection "
      "broke (its batch kept and written again once reconnected).\n";
  text += "# TYPE droidlab_store_connection_losses_total counter\n";
  text +=
      "droidlab_store_connection_losses_total " + std::to_string(stats.connection_losses) + "\n";
  text +=
      "# HELP droidlab_store_reconnects_total New connections the store made after losing "
      "one, by connection.\n";
  text += "# TYPE droidlab_store_reconnects_total counter\n";
  text += "droidlab_store_reconnects_total{connection=\"writer\"} " +
          std::to_string(stats.reconnects) + "\n";
  text += "droidlab_store_reconnects_total{connection=\"reader\"} " +
          std::to_string(stats.reader_reconnects) + "\n";
  text += "# HELP droidlab_http_requests_total HTTP requests by route and status code.\n";
  text += "# TYPE droidlab_http_requests_total counter\n";
  for (const auto& [key, n] : ctx.metrics.requests()) {
    text += "droidlab_http_requests_total{route=\"" + key.first + "\",code=\"" +
            std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
  }
  text += "# HELP droidlab_event_streams Open Server-Sent-Event streams.\n";
  text += "# TYPE droidlab_event_streams gauge\n";
  text += "droidlab_event_streams " + std::to_string(ctx.metrics.sse_clients) + "\n";
  if (ctx.services.lab_metrics) text += ctx.services.lab_metrics->Exposition();
  return text;
}

}  // namespace

asio::awaitable<HttpResponse> Health(const HttpRequest&, const PathParams&,
                                     const RouteContext& ctx) {
  std::optional<int> adb;
  if (ctx.services.adb_version) adb = co_await ctx.services.adb_version();
  co_return HealthResponse(adb, ctx.services.version);
}

asio::awaitable<HttpResponse> EventsPlaceholder(const HttpRequest&, const PathParams&,
                                                const RouteContext&) {
  co_return JsonError(500, "internal", "events are streamed by the server");
}

asio::awaitable<HttpResponse> Dashboard(const HttpRequest&, const PathParams&,
                                        const RouteContext&) {
  const WebAsset* index = FindWebAsset("/");
  if (!index) co_return NotFound("this build has no dashboard");
  co_return WebAssetResponse(*index);
}

asio::awaitable<HttpResponse> DashboardFile(const HttpRequest& request, const PathParams&,
                                            const RouteContext&) {
  const WebAsset* asset = FindWebAsset(request.path);
  if (!asset || asset->path == "/") co_return NotFound("no such file: " + request.path);
  co_return WebAssetResponse(*asset);
}

asio::awaitable<HttpResponse> OpenApi(const HttpRequest&, const PathParams&, const RouteContext&) {
  co_return JsonResponse(200, OpenApiDocument());
}

asio::awaitable<HttpResponse> MetricsText(const HttpRequest&, const PathParams&,
                                          const RouteContext& ctx) {
  struct Counts {
    std::vector<store::Device> devices;
    std::vector<std::pair<std::string, int64_t>> runs;
    std::vector<store::OpenRegressionCount> regressions;
  };
  auto read = [](store::Reader& r) -> store::StoreResult<Counts> {
    Counts c;
    auto d = r.ListDevices();
    if (!d) return d.error();
    auto runs = r.CountRunsByStatus();
    if (!runs) return runs.error();
    auto regressions = r.OpenRegressionCounts();
    if (!regressions) return regressions.error();
    c.devices = std::move(*d);
    c.runs = std::move(*runs);
    c.regressions = std::move(*regressions);
    return c;
  };
  auto reading = ctx.store.Read(std::move(read));
  auto counts = co_await std::move(reading);
  if (!counts) co_return StoreFailure(counts.error());
  std::string text = MetricsExposition(ctx, counts->devices, counts->runs, counts->regressions);
  HttpResponse response = JsonResponse(200, std::move(text));
  response.content_type = "text/plain; version=0.0.4; charset=utf-8";
  co_return response;
}

}  // namespace droidlab::api
