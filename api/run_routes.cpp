// The runs: queue one (POST /runs), list, read, cancel, their rows (launches, looper stats, proc
// samples) and their comparison with a baseline — each mapped to the orchestrator's answer.
#include <algorithm>
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"
#include "base/parse_int.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

HttpResponse RunsPage(const store::RunPage& page) {
  Json runs = Json::array();
  for (const auto& run : page.runs) runs.push_back(RunJson(run));
  Json body = {{"runs", std::move(runs)}, {"next_cursor", nullptr}};
  if (!page.next_cursor.empty()) body["next_cursor"] = page.next_cursor;
  return JsonResponse(200, Dump(body));
}

HttpResponse QueueFailure(const orchestrator::RunQueueError& e) {
  using Code = orchestrator::RunQueueError::Code;
  switch (e.code) {
    case Code::kInvalidArgument:
      return BadRequest(FieldMessage(e.field, e.message));
    case Code::kNotFound:
      return NotFound(e.message);
    case Code::kConflict:
      return JsonError(409, "conflict", e.message);
    case Code::kUnavailable:
      break;
  }
  return Unavailable(e.message);
}

// A run's rows, all of them (as API.md shows) or, with `?limit=N` (1 to 100,000), a page and
// "next_cursor" (null on the last page) to pass as `?cursor=` for the next. Read, mapped and
// serialised on a reader thread: an hour of 10 ms proc samples is tens of MB of JSON, never
// built on the io thread. The cursor is the offset of the next row ("o1200"): rows are only
// ever appended in their order (iteration, dump order, time), so it stays valid as a run goes.
constexpr int64_t kMaxRowsPage = 100'000;

template <class Row, class ToJson>
asio::awaitable<HttpResponse> RunRows(
    const HttpRequest& request, const RouteContext& ctx, const PathParams& p, const char* key,
    store::StoreResult<std::vector<Row>> (store::Reader::*list_rows)(int64_t, store::RowWindow),
    ToJson to_json) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  const int64_t run_id = *id;
  store::RowWindow window;
  if (auto limit = Query(request, "limit")) {
    auto value = ParseId(*limit);
    if (!value || *value > kMaxRowsPage) {
      co_return BadRequest("limit: expected 1 to 100000, got '" + *limit + "'");
    }
    window.limit = *value + 1;  // one more than asked: whether a next page exists
  }
  if (auto cursor = Query(request, "cursor")) {
    std::optional<int64_t> offset;
    if (cursor->size() > 1 && cursor->front() == 'o') offset = ParseInt<int64_t>(cursor->substr(1));
    if (!offset || *offset < 0) {
      co_return BadRequest("cursor: '" + *cursor + "' is not a cursor of this list");
    }
    window.offset = *offset;
  }
  const std::string name = key;
  auto read = [run_id, list_rows, to_json, window, name](store::Reader& r)
      -> store::StoreResult<std::string> {
    auto run = r.GetRun(run_id);
    if (!run) return run.error();
    auto rows = (r.*list_rows)(run_id, window);
    if (!rows) return rows.error();
    const bool paged = window.limit > 0;
    const size_t count =
        paged ? std::min(rows->size(), static_cast<size_t>(window.limit - 1)) : rows->size();
    Json list = Json::array();
    for (size_t i = 0; i < count; ++i) list.push_back(to_json((*rows)[i]));
    Json body = Json::object();
    body[name] = std::move(list);
    if (paged) {
      body["next_cursor"] = nullptr;
      if (rows->size() > count) {
        body["next_cursor"] = "o" + std::to_string(window.offset + static_cast<int64_t>(count));
      }
    }
    return Dump(body);
  };
  auto reading = ctx.store.Read(std::move(read));
  auto body = co_await std::move(reading);
  if (!body) co_return StoreFailure(body.error());
  co_return JsonResponse(200, std::move(*body));
}

struct LaunchToJson {
  Json operator()(const store::Launch& l) const { return LaunchJson(l); }
};

struct LooperToJson {
  Json operator()(const store::LooperStatsRow& r) const { return LooperStatsRowJson(r); }
};

struct SampleToJson {
  Json operator()(const store::ProcSample& s) const { return ProcSampleJson(s); }
};

// The body, parsed once, → a checked run spec, or the 400 that says why not.
BasicResult<orchestrator::RunSpec, HttpResponse> RunSpecFromBody(const HttpRequest& request) {
  auto body = JsonBody(request);
  if (!body) return body.error();
  auto spec = orchestrator::ParseRunSpecValue(*body);
  if (!spec) return BodyError(spec.error());
  return std::move(*spec);
}

}  // namespace

asio::awaitable<HttpResponse> CreateRun(const HttpRequest& request, const PathParams&,
                                        const RouteContext& ctx) {
  auto spec = RunSpecFromBody(request);
  if (!spec) co_return spec.error();
  if (!ctx.services.queue) co_return Unavailable("this daemon runs no queue");
  std::optional<std::string> model;
  if (auto live = ctx.Live(spec->serial); live && live->properties) model = live->properties->model;
  if (!model) {
    const std::string serial = spec->serial;
    auto reading = ctx.store.GetDevice(serial);
    auto stored = co_await std::move(reading);
    if (stored) model = stored->model;
  }
  std::optional<int64_t> no_schedule;
  auto run = co_await ctx.services.queue->Submit(std::move(*spec), std::move(model), no_schedule);
  if (!run) co_return QueueFailure(run.error());
  HttpResponse response = Ok(RunJson(*run), 201);
  response.headers.emplace_back("Location", "/api/v1/runs/" + std::to_string(run->id));
  co_return response;
}

asio::awaitable<HttpResponse> ListRuns(const HttpRequest& request, const PathParams&,
                                       const RouteContext& ctx) {
  store::RunQuery query;
  query.serial = Query(request, "serial");
  query.package = Query(request, "package");
  if (auto status = Query(request, "status")) {
    query.status = store::RunStatusFromName(*status);
    if (!query.status) {
      co_return BadRequest("status: '" + *status +
                           "' is not one of queued, running, succeeded, failed, cancelled, "
                           "interrupted");
    }
  }
  if (auto since = Query(request, "since")) {
    const std::optional<int64_t> value = ParseInt<int64_t>(*since);
    if (!value || *value < 0) {
      co_return BadRequest("since: expected milliseconds since the Unix epoch, got '" + *since +
                           "'");
    }
    query.since = *value;
  }
  if (auto limit = Query(request, "limit")) {
    auto value = ParseId(*limit);
    if (!value || *value > 1000) {
      co_return BadRequest("limit: expected 1 to 1000, got '" + *limit + "'");
    }
    query.limit = static_cast<int>(*value);
  }
  if (auto cursor = Query(request, "cursor")) query.cursor = *cursor;
  auto listing = ctx.store.ListRuns(query);
  auto page = co_await std::move(listing);
  if (!page) {
    if (page.error().code == store::StoreErrorCode::kInvalidArgument) {
      co_return BadRequest("cursor: " + page.error().message);
    }
    co_return StoreFailure(page.error());
  }
  co_return RunsPage(*page);
}

asio::awaitable<HttpResponse> GetRun(const HttpRequest&, const PathParams& p,
                                     const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  auto report_of_run = ctx.reports.Report(*id);
  auto report = co_await std::move(report_of_run);
  if (!report) co_return StoreFailure(report.error());
  co_return Ok(RunDetailJson(*report));
}

asio::awaitable<HttpResponse> CancelRun(const HttpRequest&, const PathParams& p,
                                        const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  if (!ctx.services.queue) co_return Unavailable("this daemon runs no queue");
  auto run = co_await ctx.services.queue->Cancel(*id);
  if (!run) co_return QueueFailure(run.error());
  co_return Ok(RunJson(*run));
}

asio::awaitable<HttpResponse> Launches(const HttpRequest& request, const PathParams& p,
                                  const RouteContext& ctx) {
  co_return co_await RunRows(request, ctx, p, "launches", &store::Reader::ListLaunches, LaunchToJson{});
}

asio::awaitable<HttpResponse> LooperStats(const HttpRequest& request, const PathParams& p,
                                  const RouteContext& ctx) {
  co_return co_await RunRows(request, ctx, p, "entries", &store::Reader::ListLooperStats, LooperToJson{});
}

asio::awaitable<HttpResponse> ProcSamples(const HttpRequest& request, const PathParams& p,
                                  const RouteContext& ctx) {
  co_return co_await RunRows(request, ctx, p, "samples", &store::Reader::ListProcSamples, SampleToJson{});
}

asio::awaitable<HttpResponse> Compare(const HttpRequest& request, const PathParams& p,
                                      const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  const std::string baseline = Query(request, "baseline").value_or("previous");
  std::optional<int64_t> baseline_id;  // null: the previous successful run, like with like
  if (baseline != "previous") {
    baseline_id = ParseId(baseline);
    if (!baseline_id) {
      co_return BadRequest("baseline: expected a run id or 'previous', got '" + baseline + "'");
    }
  }
  auto compare_with_baseline = ctx.reports.CompareWithBaseline(*id, baseline_id);
  auto comparison = co_await std::move(compare_with_baseline);
  if (!comparison) co_return StoreFailure(comparison.error());
  co_return Ok(ComparisonJson(*comparison));
}

}  // namespace droidlab::api
