// Every route of API.md as a handler over the daemon's services. Handlers run on the io thread;
// store reads and schedule writes go through the store's awaitable door (store/async_store.h:
// the store's reader and writer threads), runs through the RunQueue: nothing blocks the io
// thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/lab_metrics.h"
#include "api/metrics.h"
#include "api/router.h"
#include "base/embedded_file.h"
#include "orchestrator/builds/build_library.h"
#include "orchestrator/lab/device_health.h"
#include "orchestrator/lab/device_registry.h"
#include "orchestrator/lab/run_queue.h"
#include "orchestrator/lab/scheduler.h"
#include "store/store.h"

namespace droidlab::api {

struct Services {
  store::Store* store = nullptr;                      // required
  orchestrator::RunQueue* queue = nullptr;            // null: POST/DELETE runs answer 503
  orchestrator::DeviceRegistry* registry = nullptr;   // null: devices from the store only
  orchestrator::Scheduler* scheduler = nullptr;       // woken after schedule changes
  // The adb server's protocol version, or nullopt when it does not answer (health).
  std::function<boost::asio::awaitable<std::optional<int>>()> adb_version;
  std::string version;  // droidlab's
  std::string host_name = "local";  // this daemon's host in the lab (device events name it)
  // Launch and adb histograms the daemon feeds (io thread); null: /metrics has none.
  const LabMetrics* lab_metrics = nullptr;
  // The builds under test (uploads are spooled into it); null: the builds routes answer 503.
  orchestrator::BuildLibrary* builds = nullptr;
  // Fleet health (issue 17 §3): each phone's checks, ladder and quarantine since the daemon
  // started, and the adb commands sent to it; null: /metrics has no such series (the device's
  // stored health and events are read from the store either way).
  const orchestrator::DeviceHealthMonitor* health = nullptr;
  const orchestrator::AdbCommandTally* adb_tally = nullptr;
};

// The one route whose body the server streams to a file (the builds library's), not memory.
inline constexpr char kSpooledRouteMethod[] = "POST";
inline constexpr char kSpooledRoutePath[] = "/api/v1/builds";

// Adds the routes. `metrics` is read by GET /metrics. GET /api/v1/events is routed to a
// placeholder: the server streams it itself.
void AddRoutes(Router& router, const Services& services, const Metrics& metrics);

// Whether `path` is one of the dashboard's static files (GET / and /ui/...): served without the
// API token, since they hold no data; the page asks for the token and sends it on every call.
bool IsDashboardPath(std::string_view path);

// The OpenAPI document served at /api/v1/openapi.json (api/openapi.json, embedded).
const std::string& OpenApiDocument();
// api/openapi.json as the build embedded it (generated source).
std::span<const EmbeddedFile> OpenApiFile();

}  // namespace droidlab::api
