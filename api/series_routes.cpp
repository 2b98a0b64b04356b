// A series (issue 15 §1): one package × device model × mode × metric, a point per succeeded run
// from the store's run summaries (schema 0009), and the series a package has. Each response is
// read, mapped, serialised and hashed for its ETag on a reader thread: 10,000 points are ~2 MB
// of JSON, too much work for the io thread.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "api/handlers.h"
#include "api/http.h"
#include "api/json.h"
#include "base/parse_int.h"
#include "orchestrator/lab/history_verdict.h"
#include "orchestrator/lab/run_summaries.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

struct SeriesBody {
  std::string json;
  std::string etag;
};

// A series' points are written straight into the body, not built as nlohmann values first:
// an uncached request for 10,000 points cost the daemon 49.5 ms of CPU with nlohmann values
// (10,000 objects of 11 keys built, then dumped), 11.7 ms written straight with the word-wise ETag
// (bench/README.md). Numbers in their shortest round-trip form (std::to_chars), printable ASCII
// strings as they are, any other string escaped by nlohmann's own dump, so the text parses to
// what the JSON mapping would have made.
void AppendNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";  // as nlohmann writes a NaN; Summarize drops non-finite samples anyway
    return;
  }
  char buffer[32];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, written.ptr);
}

void AppendNumber(std::string& out, int64_t value) {
  char buffer[24];
  const auto written = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, written.ptr);
}

void AppendValue(std::string& out, const std::string& value) {
  // Fingerprints, compiler filters and model names are printable ASCII: as they are. Anything
  // else (a quote, a control byte, UTF-8, bad UTF-8) goes through nlohmann's escaping.
  const bool plain = std::all_of(value.begin(), value.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) {
    out += Dump(Json(value));
    return;
  }
  out += '"';
  out += value;
  out += '"';
}

template <class T>
void AppendValue(std::string& out, const std::optional<T>& value) {
  if (!value) {
    out += "null";
  } else if constexpr (std::is_same_v<T, std::string>) {
    AppendValue(out, *value);
  } else {
    AppendNumber(out, *value);
  }
}

void AppendPoint(std::string& out, const store::RunSummary& s) {
  out += "{\"run_id\":";
  AppendNumber(out, s.run_id);
  out += ",\"t\":";
  AppendNumber(out, s.t);
  out += ",\"median\":";
  AppendValue(out, s.median);
  out += ",\"p90\":";
  AppendValue(out, s.p90);
  out += ",\"count\":";
  AppendNumber(out, s.count);
  out += ",\"ci_low\":";
  AppendValue(out, s.ci_low);
  out += ",\"ci_high\":";
  AppendValue(out, s.ci_high);
  out += ",\"build_id\":";
  AppendValue(out, s.build_id);
  out += ",\"version_code\":";
  AppendValue(out, s.version_code);
  out += ",\"fingerprint\":";
  AppendValue(out, s.fingerprint);
  out += ",\"compilation\":";
  AppendValue(out, s.compilation);
  out += ",\"hot_launches\":";
  AppendValue(out, s.hot_launches);
  // The history's own rule (OutOfRange), so that no client keeps a copy of it.
  out += ",\"out_of_range\":";
  out += orchestrator::OutOfRange(s) ? "true" : "false";
  out += '}';
}

// The change points of a series, oldest first, and the shift of its newest runs if any: the
// analysis library's method over the points' medians and counts, each change explained by what
// else changed at its run (orchestrator/lab/history_verdict.h). On the reader thread, like the
// rest of the body.
struct SeriesChanges {
  Json change_points = Json::array();
  Json emerging;
};
SeriesChanges ChangesJson(const std::vector<store::RunSummary>& points) {
  analysis::ChangePointAnalysis analysis = orchestrator::ChangePointsOf(points);
  SeriesChanges out;
  for (const auto& change : analysis.change_points) {
    out.change_points.push_back(ChangePointJson(change));
  }
  out.emerging = EmergingJson(analysis.emerging);
  return out;
}

std::string ModeList() { return "cold, warm or hot"; }

// A time bound: milliseconds since the Unix epoch.
std::optional<int64_t> TimeParam(const HttpRequest& request, const std::string& key,
                                 std::string& error) {
  auto text = Query(request, key);
  if (!text) return std::nullopt;
  const std::optional<int64_t> value = ParseInt<int64_t>(*text);
  if (!value || *value < 0) {
    error = key + ": expected milliseconds since the Unix epoch, got '" + *text + "'";
    return std::nullopt;
  }
  return value;
}

// The query of GET /series, or the 400 naming the parameter that is wrong.
BasicResult<store::SeriesQuery, HttpResponse> SeriesQueryOf(const HttpRequest& request) {
  store::SeriesQuery query;
  auto package = Query(request, "package");
  if (!package || package->empty()) return BadRequest("package: is required");
  query.package = *package;
  // A series is of one model and one mode: mixing phones or launch modes would make a change
  // point of a phone swap. Both are required; GET /packages/{package}/series lists them.
  auto model = Query(request, "model");
  if (!model) {
    return BadRequest(
        "model: is required (a series is one package × model × mode × metric; GET "
        "/api/v1/packages/" +
        query.package +
        "/series lists them; model= empty selects runs on phones whose model was "
        "not known)");
  }
  if (!model->empty()) query.device_model = *model;
  auto mode = Query(request, "mode");
  if (!mode) return BadRequest("mode: is required: " + ModeList());
  if (*mode != "cold" && *mode != "warm" && *mode != "hot") {
    return BadRequest("mode: '" + *mode + "' is not " + ModeList());
  }
  query.mode = *mode;
  query.metric = Query(request, "metric").value_or("displayed_ms");
  if (!orchestrator::IsSeriesMetric(query.metric)) {
    return BadRequest("metric: '" + query.metric + "' is not one of " + orchestrator::SeriesMetricNames());
  }
  std::string error;
  if (auto since = TimeParam(request, "since", error)) query.since = *since;
  if (!error.empty()) return BadRequest(error);
  if (auto until = TimeParam(request, "until", error)) query.until = *until;
  if (!error.empty()) return BadRequest(error);
  if (query.since > query.until) {
    return BadRequest("until: is before since (" + std::to_string(query.until) + " < " +
                      std::to_string(query.since) + ")");
  }
  return query;
}

// On a reader thread.
store::StoreResult<SeriesBody> ReadSeriesBody(store::Reader& r, const store::SeriesQuery& query) {
  auto points = r.Series(query);
  if (!points) return points.error();
  SeriesBody out;
  std::string& body = out.json;
  body.reserve(256 + points->size() * 240);
  body += "{\"package\":";
  AppendValue(body, query.package);
  body += ",\"model\":";
  AppendValue(body, query.device_model);
  body += ",\"mode\":";
  AppendValue(body, query.mode);
  body += ",\"metric\":";
  AppendValue(body, query.metric);
  body += ",\"points\":[";
  for (size_t i = 0; i < points->size(); ++i) {
    if (i > 0) body += ',';
    AppendPoint(body, (*points)[i]);
  }
  const SeriesChanges changes = ChangesJson(*points);
  body += "],\"change_points\":";
  body += Dump(changes.change_points);
  body += ",\"emerging\":";
  body += Dump(changes.emerging);
  body += '}';
  out.etag = EtagOf(out.json);
  return out;
}

Json SeriesKeysJson(const std::string& package, const std::vector<store::SeriesKey>& keys) {
  Json list = Json::array();
  for (const store::SeriesKey& k : keys) {
    Json key = Json::object();
    key["model"] = OrNull(k.device_model);
    key["mode"] = k.mode;
    key["metric"] = k.metric;
    key["points"] = k.points;
    key["first_t"] = k.first_t;
    key["last_t"] = k.last_t;
    list.push_back(std::move(key));
  }
  Json body = Json::object();
  body["package"] = package;
  body["series"] = std::move(list);
  return body;
}

}  // namespace

asio::awaitable<HttpResponse> Series(const HttpRequest& request, const PathParams&,
                                     const RouteContext& ctx) {
  auto query = SeriesQueryOf(request);
  if (!query) co_return query.error();
  auto read = [q = std::move(*query)](store::Reader& r) { return ReadSeriesBody(r, q); };
  auto reading = ctx.store.Read(std::move(read));
  auto body = co_await std::move(reading);
  if (!body) co_return StoreFailure(body.error());
  HttpResponse response = JsonResponse(200, std::move(body->json));
  response.etag = std::move(body->etag);
  co_return response;
}

asio::awaitable<HttpResponse> PackageSeries(const HttpRequest&, const PathParams& p,
                                            const RouteContext& ctx) {
  const std::string package = p.at("package");
  auto listing = ctx.store.SeriesOfPackage(package);
  auto keys = co_await std::move(listing);
  if (!keys) co_return StoreFailure(keys.error());
  co_return Ok(SeriesKeysJson(package, *keys));
}

}  // namespace droidlab::api
