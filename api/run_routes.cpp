// The runs: queue one (POST /runs), list, read, cancel, their rows (launches, looper stats, proc
// samples) and their comparison with a baseline — each mapped to the orchestrator's answer.
#include <algorithm>
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/http.h"
#include "api/json.h"
#include "base/parse_int.h"
#include "orchestrator/lab/run_summaries.h"
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

// A run's rows a page at a time: `?limit=N` (1 to 10,000, the default 10,000), `?cursor=` from
// the last page's "next_cursor" (null on the last page), beside API.md's `launches` / `entries`
// / `samples` key. The bound keeps any one response near 1 MB: an hour of 10 ms proc samples is
// 360,000 rows, ~30 MB of JSON, which no request may make the daemon build at once. Each page is
// read, mapped, serialised and hashed for its ETag on a reader thread (a 10,000-sample page takes
// a few ms to serialise: measured in bench/rows_page_bench.cpp); the io thread only sends it.
constexpr int64_t kMaxRowsPage = 10'000;

struct RowsBody {
  std::string json;
  std::string etag;
};

template <class Row, class ToJson>
asio::awaitable<HttpResponse> RunRows(
    const HttpRequest& request, const RouteContext& ctx, const PathParams& p, const char* key,
    store::StoreResult<store::RowPage<Row>> (store::Reader::*page_rows)(int64_t,
                                                                        const store::RowPageQuery&),
    ToJson to_json) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  const int64_t run_id = *id;
  store::RowPageQuery query;
  query.limit = kMaxRowsPage;
  if (auto limit = Query(request, "limit")) {
    auto value = ParseId(*limit);
    if (!value || *value > kMaxRowsPage) {
      co_return BadRequest("limit: expected 1 to " + std::to_string(kMaxRowsPage) + ", got '" +
                           *limit + "'");
    }
    query.limit = *value;
  }
  if (auto cursor = Query(request, "cursor")) {
    if (cursor->empty()) co_return BadRequest("cursor: empty; pass next_cursor as returned");
    query.cursor = *cursor;
  }
  const std::string name = key;
  auto read = [run_id, page_rows, to_json, query, name](store::Reader& r)
      -> store::StoreResult<RowsBody> {
    auto run = r.GetRun(run_id);
    if (!run) return run.error();
    auto page = (r.*page_rows)(run_id, query);
    if (!page) return page.error();
    Json list = Json::array();
    for (const Row& row : page->rows) list.push_back(to_json(row));
    Json body = Json::object();
    body[name] = std::move(list);
    body["next_cursor"] = nullptr;
    if (!page->next_cursor.empty()) body["next_cursor"] = page->next_cursor;
    RowsBody out;
    out.json = Dump(body);
    out.etag = EtagOf(out.json);
    return out;
  };
  auto reading = ctx.store.Read(std::move(read));
  auto body = co_await std::move(reading);
  if (!body) {
    if (body.error().code == store::StoreErrorCode::kInvalidArgument) {
      co_return BadRequest("cursor: " + body.error().message);
    }
    co_return StoreFailure(body.error());
  }
  HttpResponse response = JsonResponse(200, std::move(body->json));
  response.etag = std::move(body->etag);
  co_return response;
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

// The most runs one request of a pool asks for ("devices").
constexpr int64_t kMaxPoolRuns = 100;

struct RunRequest {
  orchestrator::RunSpec spec;
  int64_t runs = 1;  // "devices": a pool's runs, each on a phone of its own
};

// The body, parsed once, → a checked run spec and how many runs of it, or the 400 that says why
// not. "devices" is the request's, not the run's: only with "pool".
BasicResult<RunRequest, HttpResponse> RunRequestFromBody(const HttpRequest& request) {
  auto body = JsonBody(request);
  if (!body) return body.error();
  RunRequest parsed;
  if (body->is_object()) {
    if (auto devices = body->find("devices"); devices != body->end()) {
      if (!devices->is_number_integer() || devices->get<int64_t>() < 1 ||
          devices->get<int64_t>() > kMaxPoolRuns) {
        return BodyError({"devices", "must be 1 to " + std::to_string(kMaxPoolRuns) +
                                         ": the runs of the pool, each on a phone of its own"});
      }
      parsed.runs = devices->get<int64_t>();
      body->erase(devices);
      auto pool = body->find("pool");
      if (pool == body->end() || pool->is_null()) {
        return BodyError({"devices", "is only for a run of a \"pool\""});
      }
    }
  }
  auto spec = orchestrator::ParseRunSpecValue(*body);
  if (!spec) return BodyError(spec.error());
  parsed.spec = std::move(*spec);
  return parsed;
}

// A build a run names (as `field`) must be kept and be of the package measured (checked again
// when it runs); the 400 that says why not.
asio::awaitable<std::optional<HttpResponse>> CheckBuild(const RouteContext& ctx, std::string field,
                                                        int64_t build_id, std::string package) {
  auto reading_build = ctx.store.GetBuild(build_id);
  auto build = co_await std::move(reading_build);
  if (!build) {
    if (build.error().code == store::StoreErrorCode::kNotFound) {
      co_return BadRequest(field + ": no build " + std::to_string(build_id));
    }
    co_return StoreFailure(build.error());
  }
  if (build->package != package) {
    co_return BadRequest(field + ": build " + std::to_string(build_id) + " is " + build->package +
                         ", not the run's package " + package);
  }
  co_return std::nullopt;
}

}  // namespace

asio::awaitable<HttpResponse> CreateRun(const HttpRequest& request, const PathParams&,
                                        const RouteContext& ctx) {
  auto parsed = RunRequestFromBody(request);
  if (!parsed) co_return parsed.error();
  orchestrator::RunSpec* spec = &parsed->spec;
  if (!ctx.services.queue) co_return Unavailable("this daemon runs no queue");
  std::optional<std::string> model;  // a pool run's is its phone's, set when it is claimed
  if (auto live = ctx.Live(spec->serial); !spec->pool && live && live->properties) {
    model = live->properties->model;
  }
  if (!model && !spec->pool) {
    const std::string serial = spec->serial;
    auto reading = ctx.store.GetDevice(serial);
    auto stored = co_await std::move(reading);
    if (stored) model = stored->model;
  }
  if (spec->build) {
    auto checking = CheckBuild(ctx, "build", *spec->build, spec->package);
    std::optional<HttpResponse> refused = co_await std::move(checking);
    if (refused) co_return std::move(*refused);
  }
  if (spec->baseline_build) {
    auto checking = CheckBuild(ctx, "baseline_build", *spec->baseline_build, spec->package);
    std::optional<HttpResponse> refused = co_await std::move(checking);
    if (refused) co_return std::move(*refused);
  }
  std::optional<int64_t> no_schedule;
  if (spec->pool) {
    // N runs of one pool, each claimed by a phone of its own; the answer lists them.
    nlohmann::json runs = nlohmann::json::array();
    for (int64_t i = 0; i < parsed->runs; ++i) {
      auto submitting = ctx.services.queue->Submit(*spec, std::nullopt, no_schedule);
      auto run = co_await std::move(submitting);
      if (!run) co_return QueueFailure(run.error());
      runs.push_back(RunJson(*run));
    }
    co_return Ok(nlohmann::json{{"runs", std::move(runs)}}, 201);
  }
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
  auto rows = RunRows(request, ctx, p, "launches", &store::Reader::PageLaunches, LaunchToJson{});
  co_return co_await std::move(rows);
}

asio::awaitable<HttpResponse> LooperStats(const HttpRequest& request, const PathParams& p,
                                  const RouteContext& ctx) {
  auto rows = RunRows(request, ctx, p, "entries", &store::Reader::PageLooperStats, LooperToJson{});
  co_return co_await std::move(rows);
}

asio::awaitable<HttpResponse> ProcSamples(const HttpRequest& request, const PathParams& p,
                                  const RouteContext& ctx) {
  auto rows = RunRows(request, ctx, p, "samples", &store::Reader::PageProcSamples, SampleToJson{});
  co_return co_await std::move(rows);
}

asio::awaitable<HttpResponse> Compare(const HttpRequest& request, const PathParams& p,
                                      const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  const std::string baseline = Query(request, "baseline").value_or("previous");
  // null: a side-by-side run's own two builds, else the previous successful run, like with like
  std::optional<int64_t> baseline_id;
  if (baseline != "previous") {
    baseline_id = ParseId(baseline);
    if (!baseline_id) {
      co_return BadRequest("baseline: expected a run id or 'previous', got '" + baseline + "'");
    }
  }
  const std::string allow = Query(request, "allow_different_conditions").value_or("false");
  if (allow != "true" && allow != "false") {
    co_return BadRequest("allow_different_conditions: expected true or false, got '" + allow +
                         "'");
  }
  std::string metric = "displayed_ms";
  if (auto asked = Query(request, "metric")) {
    if (!orchestrator::IsSeriesMetric(*asked)) {
      co_return BadRequest("metric: '" + *asked + "' is not one of " +
                           orchestrator::SeriesMetricNames());
    }
    metric = *asked;
  }
  auto compare_with_baseline =
      ctx.reports.CompareWithBaseline(*id, baseline_id, allow == "true", std::move(metric));
  auto comparison = co_await std::move(compare_with_baseline);
  if (!comparison) co_return StoreFailure(comparison.error());
  co_return Ok(ComparisonJson(*comparison));
}

asio::awaitable<HttpResponse> Verdict(const HttpRequest& request, const PathParams& p,
                                      const RouteContext& ctx) {
  auto id = RunIdOf(p);
  if (!id) co_return id.error();
  std::string metric = orchestrator::kVerdictMetric;
  if (auto asked = Query(request, "metric")) {
    if (!orchestrator::IsSeriesMetric(*asked)) {
      co_return BadRequest("metric: '" + *asked + "' is not one of " +
                           orchestrator::SeriesMetricNames());
    }
    metric = *asked;
  }
  auto judging = orchestrator::VerdictOf(ctx.store, *id, std::move(metric));
  auto verdict = co_await std::move(judging);
  if (!verdict) co_return StoreFailure(verdict.error());
  co_return Ok(VerdictJson(*verdict));
}

}  // namespace droidlab::api
