// GET /devices and /devices/{serial}: the stored devices with the registry's live view over them;
// one device also with what droidlab installed on it (issue 14 §2: per package, the last build a
// run recorded there). PUT /devices/{serial}/labels: an operator's labels (issue 17 §2). GET
// /hosts: the lab's hosts (schema 0016), alive or not, each with the devices it holds.
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"
#include "base/wall_clock.h"
#include "orchestrator/lab/host_registration.h"
#include "orchestrator/spec/device_labels.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

HttpResponse DevicesResponse(const RouteContext& ctx, const std::vector<store::Device>& devices) {
  Json list = Json::array();
  for (const auto& d : devices) list.push_back(DeviceJson(d, ctx.Live(d.serial)));
  return Wrapped("devices", std::move(list));
}

Json InstalledBuildsJson(const std::vector<store::DeviceInstalledBuild>& installed) {
  Json list = Json::array();
  for (const auto& i : installed) {
    list.push_back(Json{{"package", i.package},
                        {"build_id", i.build_id},
                        {"version_code", i.version_code ? Json(*i.version_code) : Json(nullptr)},
                        {"sha256", i.sha256 ? Json(*i.sha256) : Json(nullptr)},
                        {"install_method", i.install_method ? Json(*i.install_method) : Json(nullptr)},
                        {"at", i.at ? Json(*i.at) : Json(nullptr)},
                        {"run_id", i.run_id}});
  }
  return list;
}

HttpResponse DeviceResponse(const RouteContext& ctx, const store::Device& device,
                            const std::vector<store::DeviceInstalledBuild>& installed) {
  Json body = DeviceJson(device, ctx.Live(device.serial));
  body["installed_builds"] = InstalledBuildsJson(installed);
  return Ok(std::move(body));
}

struct HostsAndDevices {
  std::vector<store::Host> hosts;
  std::vector<store::Device> devices;
};

HttpResponse HostsResponse(const HostsAndDevices& lab, int64_t now_ms) {
  Json list = Json::array();
  for (const store::Host& h : lab.hosts) {
    int64_t held = 0;
    for (const store::Device& d : lab.devices) {
      if (d.host == h.name && d.state != "disconnected") ++held;
    }
    list.push_back(Json{{"name", h.name},
                        {"address", h.address},
                        {"version", h.version},
                        {"started_at", h.started_at},
                        {"heartbeat_at", h.heartbeat_at},
                        {"alive", orchestrator::IsHostAlive(h, now_ms)},
                        {"devices", held}});
  }
  return Wrapped("hosts", std::move(list));
}

}  // namespace

asio::awaitable<HttpResponse> Hosts(const HttpRequest&, const PathParams&,
                                    const RouteContext& ctx) {
  auto query = [](store::Reader& r) -> store::StoreResult<HostsAndDevices> {
    HostsAndDevices lab;
    auto hosts = r.ListHosts();
    if (!hosts) return hosts.error();
    auto devices = r.ListDevices();
    if (!devices) return devices.error();
    lab.hosts = std::move(*hosts);
    lab.devices = std::move(*devices);
    return lab;
  };
  auto reading = ctx.store.Read(query);
  auto lab = co_await std::move(reading);
  if (!lab) co_return StoreFailure(lab.error());
  co_return HostsResponse(*lab, WallNowMs());
}

asio::awaitable<HttpResponse> SetDeviceLabels(const HttpRequest& request, const PathParams& p,
                                              const RouteContext& ctx) {
  const std::string serial = p.at("serial");
  auto body = JsonBody(request);
  if (!body) co_return body.error();
  auto labels = orchestrator::ParseDeviceLabelsBody(*body);
  if (!labels) co_return BodyError(labels.error());
  auto setting = ctx.store.SetDeviceLabels(serial, std::move(*labels));
  auto set = co_await std::move(setting);
  if (!set) co_return StoreFailure(set.error());
  auto reading = ctx.store.GetDevice(serial);
  auto device = co_await std::move(reading);
  if (!device) co_return StoreFailure(device.error());
  co_return Ok(DeviceJson(*device, ctx.Live(device->serial)));
}

asio::awaitable<HttpResponse> Devices(const HttpRequest&, const PathParams&,
                                      const RouteContext& ctx) {
  auto listing = ctx.store.ListDevices();
  auto devices = co_await std::move(listing);
  if (!devices) co_return StoreFailure(devices.error());
  co_return DevicesResponse(ctx, *devices);
}

asio::awaitable<HttpResponse> Device(const HttpRequest&, const PathParams& p,
                                     const RouteContext& ctx) {
  const std::string serial = p.at("serial");
  auto reading = ctx.store.GetDevice(serial);
  auto device = co_await std::move(reading);
  if (!device) {
    if (device.error().code == store::StoreErrorCode::kNotFound) {
      co_return NotFound("no device '" + serial + "' has been seen");
    }
    co_return StoreFailure(device.error());
  }
  auto reading_installed = ctx.store.InstalledBuildsOnDevice(serial);
  auto installed = co_await std::move(reading_installed);
  if (!installed) co_return StoreFailure(installed.error());
  co_return DeviceResponse(ctx, *device, *installed);
}

}  // namespace droidlab::api
