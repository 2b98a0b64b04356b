// GET /api/v1/runs/{id}/frames: a run's frames per iteration (issue 16 §2; stored by the run
// engine, orchestrator/run/frames_collector.h; schema/0011): hwui's own figures from `dumpsys
// gfxinfo`, droidlab's from the framestats rows (analysis/frames.h), and the rows as printed,
// under their header's names.
#include <nlohmann/json.hpp>

#include "api/handlers.h"
#include "api/json.h"
#include "store/reader.h"

namespace droidlab::api {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

json IterationFramesJson(const store::IterationFrames& f) {
  json j = json::object();
  j["iteration"] = f.iteration;
  j["total_frames"] = OrNull(f.total_frames);
  j["janky_frames"] = OrNull(f.janky_frames);
  j["gfx_percentiles_ms"] = {{"50", OrNull(f.gfx_p50_ms)},
                             {"90", OrNull(f.gfx_p90_ms)},
                             {"95", OrNull(f.gfx_p95_ms)},
                             {"99", OrNull(f.gfx_p99_ms)}};
  j["frame_rows"] = f.frame_rows;
  j["counted"] = f.counted;
  j["refresh_period_ms"] = static_cast<double>(f.refresh_period_ns) / 1e6;
  j["percentiles_ms"] = {{"50", OrNull(f.p50_ms)},
                         {"90", OrNull(f.p90_ms)},
                         {"95", OrNull(f.p95_ms)},
                         {"99", OrNull(f.p99_ms)}};
  j["over_16_7ms"] = f.over_16_7ms;
  j["over_33ms"] = f.over_33ms;
  j["over_50ms"] = f.over_50ms;
  j["over_vsyncs"] = {{"1", OrNull(f.over_1_vsync)},
                      {"2", OrNull(f.over_2_vsyncs)},
                      {"3", OrNull(f.over_3_vsyncs)}};
  j["matrix"] = {{"normal", f.matrix_normal},
                 {"middle", f.matrix_middle},
                 {"high", f.matrix_high},
                 {"frozen", f.matrix_frozen},
                 {"dropped_frames", f.dropped_frames}};
  j["jank"] = f.jank;
  j["big_jank"] = f.big_jank;
  // Stored by the run engine from nlohmann's own dump: a parse failure would be a bug.
  j["columns"] = json::parse(f.columns_json, nullptr, false);
  j["rows"] = json::parse(f.rows_json, nullptr, false);
  return j;
}

HttpResponse FramesResponse(const std::vector<store::IterationFrames>& frames) {
  json iterations = json::array();
  for (const store::IterationFrames& f : frames) iterations.push_back(IterationFramesJson(f));
  return Ok(json{{"iterations", std::move(iterations)}});
}

}  // namespace

asio::awaitable<HttpResponse> Frames(const HttpRequest&, const PathParams& p,
                                     const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  const int64_t run_id = *id;
  auto reading = ctx.store.Read(
      [run_id](store::Reader& r) -> store::StoreResult<std::vector<store::IterationFrames>> {
        auto run = r.GetRun(run_id);  // kNotFound: 404
        if (!run) return run.error();
        return r.ListIterationFrames(run_id);
      });
  auto frames = co_await std::move(reading);
  if (!frames) co_return StoreFailure(frames.error());
  co_return FramesResponse(*frames);
}

}  // namespace droidlab::api
