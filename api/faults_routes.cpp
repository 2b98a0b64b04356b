// GET /api/v1/runs/{id}/faults: a run's app faults per iteration (issue 16 §3; found by the run
// engine in the run's logcat stream, orchestrator/run/iteration_faults.h; schema/0012): the ANRs,
// crashes and native crashes of its package, each with the first lines of its trace.
#include <nlohmann/json.hpp>

#include "api/handlers.h"
#include "api/json.h"
#include "store/reader.h"

namespace droidlab::api {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

json FaultJson(const store::IterationFault& f) {
  return json{
      {"iteration", f.iteration}, {"kind", f.kind},       {"time", f.time},
      {"at_ms", OrNull(f.at_ms)}, {"pid", OrNull(f.pid)}, {"process_name", f.process_name},
      {"reason", f.reason},       {"stack", f.stack},     {"duration_ms", OrNull(f.duration_ms)}};
}

HttpResponse FaultsResponse(const std::vector<store::IterationFault>& faults) {
  json list = json::array();
  for (const store::IterationFault& f : faults) list.push_back(FaultJson(f));
  return Ok(json{{"faults", std::move(list)}});
}

}  // namespace

asio::awaitable<HttpResponse> Faults(const HttpRequest&, const PathParams& p,
                                     const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  const int64_t run_id = *id;
  auto reading = ctx.store.Read(
      [run_id](store::Reader& r) -> store::StoreResult<std::vector<store::IterationFault>> {
        auto run = r.GetRun(run_id);  // kNotFound: 404
        if (!run) return run.error();
        return r.ListIterationFaults(run_id);
      });
  auto faults = co_await std::move(reading);
  if (!faults) co_return StoreFailure(faults.error());
  co_return FaultsResponse(*faults);
}

}  // namespace droidlab::api
