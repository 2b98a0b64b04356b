// GET /api/v1/runs/{id}/memory: a run's memory per iteration (issue 16 §5; stored by the run
// engine, orchestrator/run/memory_collector.h; schema/0013) — `dumpsys meminfo PKG` at each
// iteration's end — and whether its Activities (or ViewRootImpl, AppContexts) kept growing from
// one iteration to the next in one process: a suspected leak (analysis/leak.h says the rule).
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/leak.h"
#include "api/handlers.h"
#include "api/json.h"
#include "store/reader.h"

namespace droidlab::api {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

json IterationMemoryJson(const store::IterationMemory& m) {
  json j = json::object();
  j["iteration"] = m.iteration;
  j["pid"] = m.pid;
  j["total_pss_kb"] = OrNull(m.total_pss_kb);
  j["total_rss_kb"] = OrNull(m.total_rss_kb);
  j["total_swap_pss_kb"] = OrNull(m.total_swap_pss_kb);
  j["java_heap_kb"] = OrNull(m.java_heap_kb);
  j["native_heap_kb"] = OrNull(m.native_heap_kb);
  j["code_kb"] = OrNull(m.code_kb);
  j["stack_kb"] = OrNull(m.stack_kb);
  j["graphics_kb"] = OrNull(m.graphics_kb);
  j["private_other_kb"] = OrNull(m.private_other_kb);
  j["system_kb"] = OrNull(m.system_kb);
  j["objects"] = {{"views", OrNull(m.views)},
                  {"view_root_impl", OrNull(m.view_root_impl)},
                  {"app_contexts", OrNull(m.app_contexts)},
                  {"activities", OrNull(m.activities)},
                  {"assets", OrNull(m.assets)},
                  {"asset_managers", OrNull(m.asset_managers)},
                  {"local_binders", OrNull(m.local_binders)},
                  {"proxy_binders", OrNull(m.proxy_binders)},
                  {"death_recipients", OrNull(m.death_recipients)},
                  {"webviews", OrNull(m.webviews)}};
  return j;
}

HttpResponse MemoryResponse(const std::vector<store::IterationMemory>& memory) {
  json iterations = json::array();
  std::vector<analysis::MemoryCounts> counts;
  for (const store::IterationMemory& m : memory) {
    iterations.push_back(IterationMemoryJson(m));
    counts.push_back({m.iteration, m.pid, m.activities, m.view_root_impl, m.app_contexts});
  }
  const analysis::LeakVerdict verdict = analysis::CheckActivityLeak(counts);
  json leak = nullptr;
  if (verdict.suspected) {
    const analysis::LeakSuspicion& s = *verdict.suspected;
    leak = {{"metric", s.metric},
            {"from", s.from},
            {"to", s.to},
            {"slope_per_iteration", s.slope_per_iteration},
            {"first_iteration", s.first_iteration},
            {"last_iteration", s.last_iteration},
            {"pid", s.pid}};
  }
  return Ok(json{{"iterations", std::move(iterations)},
                 {"leak_check", analysis::LeakCheckName(verdict.check)},
                 {"leak_suspected", std::move(leak)}});
}

}  // namespace

asio::awaitable<HttpResponse> Memory(const HttpRequest&, const PathParams& p,
                                     const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  const int64_t run_id = *id;
  auto reading = ctx.store.Read(
      [run_id](store::Reader& r) -> store::StoreResult<std::vector<store::IterationMemory>> {
        auto run = r.GetRun(run_id);  // kNotFound: 404
        if (!run) return run.error();
        return r.ListIterationMemory(run_id);
      });
  auto memory = co_await std::move(reading);
  if (!memory) co_return StoreFailure(memory.error());
  co_return MemoryResponse(*memory);
}

}  // namespace droidlab::api
