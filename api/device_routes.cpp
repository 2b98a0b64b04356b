// GET /devices and /devices/{serial}: the stored devices with the registry's live view over them;
// one device also with what droidlab installed on it (issue 14 §2: per package, the last build a
// run recorded there).
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"

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

}  // namespace

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
