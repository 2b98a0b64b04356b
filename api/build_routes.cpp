// Builds under test (issue 14 §1): an APK uploaded as the request body, or a build's files (base
// APK, splits, a .dm) as multipart/form-data (the server spooled the body to the builds
// library's disk, hashed; the library reads the parts from there), read and kept; listed, read
// and deleted.
#include <string>
#include <vector>

#include "api/handlers.h"
#include "api/json.h"
#include "base/wall_clock.h"

namespace droidlab::api {

namespace asio = boost::asio;
using Json = nlohmann::json;

namespace {

Json FileJson(const store::BuildFile& f) {
  return Json{{"name", f.name},
              {"kind", f.kind},
              {"split", f.split ? Json(*f.split) : Json(nullptr)},
              {"sha256", f.sha256},
              {"size", f.size}};
}

Json BuildJson(const store::Build& b) {
  Json files = Json::array();
  for (const store::BuildFile& f : b.files) files.push_back(FileJson(f));
  return Json{{"id", b.id},
              {"package", b.package},
              {"version_code", b.version_code},
              {"version_name", b.version_name ? Json(*b.version_name) : Json(nullptr)},
              {"min_sdk", b.min_sdk ? Json(*b.min_sdk) : Json(nullptr)},
              {"target_sdk", b.target_sdk ? Json(*b.target_sdk) : Json(nullptr)},
              {"sha256", b.sha256},
              {"size", b.size},
              {"signature", b.signature ? Json(*b.signature) : Json(nullptr)},
              {"files", std::move(files)},
              {"created_at", b.created_at}};
}

HttpResponse BuildsResponse(const std::vector<store::Build>& builds) {
  Json list = Json::array();
  for (const auto& b : builds) list.push_back(BuildJson(b));
  return Wrapped("builds", std::move(list));
}

HttpResponse KeptResponse(const orchestrator::KeptBuild& kept) {
  HttpResponse response = Ok(BuildJson(kept.build), kept.created ? 201 : 200);
  response.headers.emplace_back("Location", "/api/v1/builds/" + std::to_string(kept.build.id));
  return response;
}

HttpResponse BuildFailure(const orchestrator::BuildError& e) {
  switch (e.kind) {
    case orchestrator::BuildError::Kind::kInvalid:
      return BadRequest(e.message);
    case orchestrator::BuildError::Kind::kNotFound:
      return NotFound(e.message);
    case orchestrator::BuildError::Kind::kInUse:
      return JsonError(409, "conflict", e.message);
    case orchestrator::BuildError::Kind::kFailed:
      break;
  }
  return JsonError(500, "internal", e.message);
}

constexpr char kNoBuilds[] = "this daemon keeps no builds";

}  // namespace

asio::awaitable<HttpResponse> CreateBuild(const HttpRequest& request, const PathParams&,
                                          const RouteContext& ctx) {
  if (ctx.services.builds == nullptr || !request.spooled) co_return Unavailable(kNoBuilds);
  orchestrator::SpooledFile file{request.spooled->path, request.spooled->size,
                                 request.spooled->sha256};
  if (request.content_type.starts_with("multipart/form-data")) {
    std::string content_type = request.content_type;
    auto adding_files =
        ctx.services.builds->AddMultipart(std::move(file), std::move(content_type), WallNowMs());
    auto kept_files = co_await std::move(adding_files);
    if (!kept_files) co_return BuildFailure(kept_files.error());
    co_return KeptResponse(*kept_files);
  }
  std::optional<std::string> name;
  if (!request.file_name.empty()) name = request.file_name;
  auto adding = ctx.services.builds->Add(std::move(file), std::move(name), WallNowMs());
  auto kept = co_await std::move(adding);
  if (!kept) co_return BuildFailure(kept.error());
  co_return KeptResponse(*kept);
}

asio::awaitable<HttpResponse> ListBuilds(const HttpRequest&, const PathParams&,
                                         const RouteContext& ctx) {
  auto listing = ctx.store.ListBuilds();
  auto builds = co_await std::move(listing);
  if (!builds) co_return StoreFailure(builds.error());
  co_return BuildsResponse(*builds);
}

asio::awaitable<HttpResponse> GetBuild(const HttpRequest&, const PathParams& p,
                                       const RouteContext& ctx) {
  auto id = ParseId(p.at("id"));
  if (!id) co_return NotFound("no build '" + p.at("id") + "'");
  auto reading = ctx.store.GetBuild(*id);
  auto build = co_await std::move(reading);
  if (!build) co_return StoreFailure(build.error());
  co_return Ok(BuildJson(*build));
}

asio::awaitable<HttpResponse> DeleteBuild(const HttpRequest&, const PathParams& p,
                                          const RouteContext& ctx) {
  if (ctx.services.builds == nullptr) co_return Unavailable(kNoBuilds);
  auto id = ParseId(p.at("id"));
  if (!id) co_return NotFound("no build '" + p.at("id") + "'");
  const int64_t build_id = *id;
  auto deleting = ctx.services.builds->Delete(build_id);
  auto deleted = co_await std::move(deleting);
  if (!deleted) co_return BuildFailure(deleted.error());
  co_return DeletedResponse(build_id);
}

}  // namespace droidlab::api
