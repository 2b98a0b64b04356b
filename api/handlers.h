// Every route's handler, as a function of (request, path params, context): routes.cpp puts
// them in the router's table. Each file named below holds one group and the JSON it answers with
// (built in plain functions: g++ 12 destroys twice the temporaries of initializer lists inside
// coroutines). Handlers run on the io thread and never block it: the store through its door,
// runs through the RunQueue.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "api/route_context.h"

namespace droidlab::api {

using ContextHandler = boost::asio::awaitable<HttpResponse> (*)(const HttpRequest&,
                                                                const PathParams&,
                                                                const RouteContext&);

// meta_routes.cpp
boost::asio::awaitable<HttpResponse> Health(const HttpRequest& request, const PathParams& params,
                                            const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> EventsPlaceholder(const HttpRequest& request,
                                                       const PathParams& params,
                                                       const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> OpenApi(const HttpRequest& request, const PathParams& params,
                                             const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> MetricsText(const HttpRequest& request,
                                                 const PathParams& params, const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> Dashboard(const HttpRequest& request, const PathParams& params,
                                               const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> DashboardFile(const HttpRequest& request,
                                                   const PathParams& params,
                                                   const RouteContext& ctx);

// device_routes.cpp
boost::asio::awaitable<HttpResponse> Devices(const HttpRequest& request, const PathParams& params,
                                             const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> SetDeviceLabels(const HttpRequest& request,
                                                     const PathParams& params,
                                                     const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> ListAudit(const HttpRequest& request, const PathParams& params,
                                               const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> DeviceHealth(const HttpRequest& request,
                                                  const PathParams& params,
                                                  const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> ReleaseDevice(const HttpRequest& request,
                                                   const PathParams& params,
                                                   const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> Hosts(const HttpRequest& request, const PathParams& params,
                                           const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> Device(const HttpRequest& request, const PathParams& params,
                                            const RouteContext& ctx);

// run_routes.cpp
boost::asio::awaitable<HttpResponse> CreateRun(const HttpRequest& request, const PathParams& params,
                                               const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> ListRuns(const HttpRequest& request, const PathParams& params,
                                              const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> GetRun(const HttpRequest& request, const PathParams& params,
                                            const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> CancelRun(const HttpRequest& request, const PathParams& params,
                                               const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> Launches(const HttpRequest& request, const PathParams& params,
                                              const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> LooperStats(const HttpRequest& request,
                                                 const PathParams& params, const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> ProcSamples(const HttpRequest& request,
                                                 const PathParams& params, const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> Compare(const HttpRequest& request, const PathParams& params,
                                             const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> Verdict(const HttpRequest& request, const PathParams& params,
                                             const RouteContext& ctx);

// series_routes.cpp
boost::asio::awaitable<HttpResponse> Series(const HttpRequest& request, const PathParams& params,
                                            const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> PackageSeries(const HttpRequest& request,
                                                   const PathParams& params,
                                                   const RouteContext& ctx);

// build_routes.cpp
boost::asio::awaitable<HttpResponse> CreateBuild(const HttpRequest& request,
                                                 const PathParams& params, const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> ListBuilds(const HttpRequest& request, const PathParams& params,
                                                const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> GetBuild(const HttpRequest& request, const PathParams& params,
                                              const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> DeleteBuild(const HttpRequest& request,
                                                 const PathParams& params, const RouteContext& ctx);

// schedule_routes.cpp
boost::asio::awaitable<HttpResponse> ListSchedules(const HttpRequest& request,
                                                   const PathParams& params,
                                                   const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> CreateSchedule(const HttpRequest& request,
                                                    const PathParams& params,
                                                    const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> DeleteSchedule(const HttpRequest& request,
                                                    const PathParams& params,
                                                    const RouteContext& ctx);

// frames_routes.cpp
boost::asio::awaitable<HttpResponse> Frames(const HttpRequest& request, const PathParams& params,
                                            const RouteContext& ctx);

// faults_routes.cpp
boost::asio::awaitable<HttpResponse> Faults(const HttpRequest& request, const PathParams& params,
                                            const RouteContext& ctx);

// memory_routes.cpp
boost::asio::awaitable<HttpResponse> Memory(const HttpRequest& request, const PathParams& params,
                                            const RouteContext& ctx);

// calibration_routes.cpp
boost::asio::awaitable<HttpResponse> Calibration(const HttpRequest& request,
                                                 const PathParams& params, const RouteContext& ctx);

// alert_routes.cpp
boost::asio::awaitable<HttpResponse> ListAlerts(const HttpRequest& request,
                                                const PathParams& params, const RouteContext& ctx);
boost::asio::awaitable<HttpResponse> ResolveAlert(const HttpRequest& request,
                                                  const PathParams& params,
                                                  const RouteContext& ctx);

}  // namespace droidlab::api
