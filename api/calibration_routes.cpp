// GET /api/v1/calibration: the noise floors learnt from calibration runs (issue 15 §3,
// orchestrator/lab/calibration_report.h), per device model × mode of a package.
#include <nlohmann/json.hpp>

#include "api/handlers.h"
#include "orchestrator/lab/calibration_report.h"

namespace droidlab::api {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

json Percent(const std::optional<double>& fraction) {
  return fraction ? json(*fraction * 100) : json(nullptr);
}

json CalibrationJson(const std::string& package, const orchestrator::CalibrationGroup& g) {
  const analysis::Calibration& c = g.calibration;
  json j = json::object();
  j["package"] = package;
  j["model"] = g.device_model ? json(*g.device_model) : json(nullptr);
  j["mode"] = g.mode;
  j["metric"] = "displayed_ms";
  j["runs"] = g.run_ids;
  j["pairs"] = c.pairs_used;
  j["pairs_skipped"] = c.pairs_skipped;
  j["floor_percent"] = Percent(c.floor_fraction);
  // What a verdict on this series uses: the floor learnt, or the fixed 5 % until enough pairs.
  j["floor_used_percent"] = c.floor_fraction ? *c.floor_fraction * 100 : 5.0;
  j["floor_source"] = c.floor_fraction ? "calibration" : "fixed";
  j["run_spread_percent"] = c.run_spread_percent ? json(*c.run_spread_percent) : json(nullptr);
  j["false_alarms"] = c.false_alarms;
  j["false_alarm_rate"] = c.false_alarm_rate ? json(*c.false_alarm_rate) : json(nullptr);
  return j;
}

}  // namespace

asio::awaitable<HttpResponse> Calibration(const HttpRequest& request, const PathParams&,
                                          const RouteContext& ctx) {
  const std::optional<std::string> package = Query(request, "package");
  if (!package || package->empty()) co_return BadRequest("package: is required");
  std::optional<std::string> model = Query(request, "model");
  std::optional<std::string> mode = Query(request, "mode");
  if (mode && *mode != "cold" && *mode != "warm" && *mode != "hot") {
    co_return BadRequest("mode: expected cold, warm or hot, got '" + *mode + "'");
  }
  auto reading = orchestrator::CalibrationsOf(ctx.store, *package, model, mode);
  auto groups = co_await std::move(reading);
  if (!groups) co_return StoreFailure(groups.error());
  json list = json::array();
  for (const auto& g : *groups) list.push_back(CalibrationJson(*package, g));
  co_return Wrapped("calibrations", std::move(list));
}

}  // namespace droidlab::api
