// PgReader's queries of builds and their files (schema 0005, 0007, 0008) and of what droidlab
// installed on a device: ../reader.cpp's, on PostgreSQL.
#include <string>
#include <utility>
#include <vector>

#include "store/pg/reader.h"
#include "store/pg/result_row.h"
#include "store/pg/sql/builds.h"

namespace droidlab::store::pg {

namespace {

Build ReadBuild(ResultRow& row) {
  Build build;
  row.Get(build.id);
  row.Get(build.sha256);
  row.Get(build.package);
  row.Get(build.version_code);
  row.Get(build.version_name);
  row.Get(build.min_sdk);
  row.Get(build.target_sdk);
  row.Get(build.size);
  row.Get(build.file_name);
  row.Get(build.created_at);
  row.Get(build.signature);
  return build;
}

BuildFile ReadBuildFile(ResultRow& row) {
  BuildFile file;
  row.Get(file.name);
  row.Get(file.kind);
  row.Get(file.split);
  row.Get(file.sha256);
  row.Get(file.size);
  return file;
}

DeviceInstalledBuild ReadInstalledBuild(ResultRow& row) {
  DeviceInstalledBuild installed;
  row.Get(installed.package);
  row.Get(installed.build_id);
  row.Get(installed.version_code);
  row.Get(installed.sha256);
  row.Get(installed.install_method);
  row.Get(installed.at);
  row.Get(installed.run_id);
  return installed;
}

// Reads each build's files (build_files, in their order) into it.
Status FillBuildFiles(Connection& connection, std::vector<Build>& builds) {
  const std::string_view what = "reading a build's files";
  for (Build& build : builds) {
    auto result = connection.Query(sql::kBuildFiles, Params().Int64(build.id), what);
    if (!result) return result.error();
    auto files = CollectRows<BuildFile>(*result, ReadBuildFile, what);
    if (!files) return files.error();
    build.files = std::move(files).value();
  }
  return OkStatus();
}

// The builds `sql` selects with `params`, each with its files.
StoreResult<std::vector<Build>> BuildsOf(Connection& connection, const char* sql,
                                         const Params& params, std::string_view what) {
  auto result = connection.Query(sql, params, what);
  if (!result) return result.error();
  auto builds = CollectRows<Build>(*result, ReadBuild, what);
  if (!builds) return builds;
  if (Status filled = FillBuildFiles(connection, *builds); !filled) return filled.error();
  return builds;
}

// The one build `sql` selects, with its files; kNotFound saying `not_found`.
StoreResult<Build> OneBuild(Connection& connection, const char* sql, const Params& params,
                            std::string not_found) {
  auto builds = BuildsOf(connection, sql, params, "reading a build");
  if (!builds) return builds.error();
  if (builds->empty()) return MakeStoreError(StoreErrorCode::kNotFound, std::move(not_found));
  return std::move(builds->front());
}

}  // namespace

StoreResult<std::vector<Build>> PgReader::ListBuilds() {
  return BuildsOf(connection_, sql::kBuilds, Params(), "listing builds");
}

StoreResult<Build> PgReader::GetBuild(int64_t build_id) {
  return OneBuild(connection_, sql::kBuildById, Params().Int64(build_id),
                  "no build " + std::to_string(build_id));
}

StoreResult<Build> PgReader::GetBuildBySha256(std::string_view sha256) {
  return OneBuild(connection_, sql::kBuildBySha256, Params().Text(sha256),
                  "no build with sha256 " + std::string(sha256));
}

StoreResult<std::vector<Build>> PgReader::ListBuildsCreatedBefore(int64_t created_at) {
  return BuildsOf(connection_, sql::kBuildsCreatedBefore, Params().Int64(created_at),
                  "listing old builds");
}

StoreResult<int64_t> PgReader::CountRunsUsingBuild(int64_t build_id) {
  const std::string_view what = "counting the runs of a build";
  auto result = connection_.Query(sql::kBuildInUse, Params().Int64(build_id), what);
  if (!result) return result.error();
  return CountOf(*result, what);
}

StoreResult<int64_t> PgReader::CountBuildsWithFile(std::string_view sha256) {
  const std::string_view what = "counting the builds of a file";
  auto result = connection_.Query(sql::kBuildFileUsers, Params().Text(sha256), what);
  if (!result) return result.error();
  return CountOf(*result, what);
}

StoreResult<std::vector<DeviceInstalledBuild>> PgReader::InstalledBuildsOnDevice(
    std::string_view serial) {
  const std::string_view what = "reading what droidlab installed on a device";
  auto result = connection_.Query(sql::kInstalledBuildsOnDevice, Params().Text(serial), what);
  if (!result) return result.error();
  return CollectRows<DeviceInstalledBuild>(*result, ReadInstalledBuild, what);
}

}  // namespace droidlab::store::pg
