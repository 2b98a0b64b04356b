// GET /devices and /devices/{serial}: the stored devices with the registry's live view over them.
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
  co_return Ok(DeviceJson(*device, ctx.Live(serial)));
}

}  // namespace droidlab::api
