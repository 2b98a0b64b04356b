#include "store/pg/build_writes.h"

#include <string>

#include "store/pg/sql/builds.h"

namespace droidlab::store::pg::writes {

StoreResult<AddedBuild> InsertBuild(Connection& connection, const NewBuild& build) {
  const std::string what = "storing build " + build.sha256;
  Params p;
  p.Text(build.sha256).Text(build.package).Int64(build.version_code).Optional(build.version_name);
  p.Optional(build.min_sdk).Optional(build.target_sdk).Int64(build.size).Optional(build.file_name);
  p.Int64(build.created_at).Optional(build.signature);
  auto inserted = connection.Query(sql::kInsertBuild, p, what);
  if (!inserted) return inserted.error();
  AddedBuild added;
  // ON CONFLICT DO NOTHING returns no row for a sha256 kept already.
  added.created = inserted->rows() > 0;
  if (!added.created) {
    auto kept = connection.Query(sql::kBuildIdBySha256, Params().Text(build.sha256), what);
    if (!kept) return kept.error();
    auto id = kept->Int64(0, 0);
    if (!id) return MakeStoreError(id.error().code, what + ": " + id.error().message);
    added.id = *id;
    return added;
  }
  auto id = inserted->Int64(0, "id");
  if (!id) return MakeStoreError(id.error().code, what + ": " + id.error().message);
  added.id = *id;
  for (size_t i = 0; i < build.files.size(); ++i) {
    const BuildFile& file = build.files[i];
    Params f;
    f.Int64(added.id).Int64(static_cast<int64_t>(i)).Text(file.name).Text(file.kind);
    f.Optional(file.split).Text(file.sha256).Int64(file.size);
    if (auto stored = connection.Query(sql::kInsertBuildFile, f, what); !stored) {
      return stored.error();
    }
  }
  return added;
}

Status DeleteBuild(Connection& connection, int64_t build_id) {
  const std::string what = "deleting build " + std::to_string(build_id);
  // No foreign keys (as in SQLite, store/README.md): the files' rows go first, by hand.
  if (auto files = connection.Query(sql::kDeleteBuildFiles, Params().Int64(build_id), what);
      !files) {
    return files.error();
  }
  auto deleted = connection.Query(sql::kDeleteBuild, Params().Int64(build_id), what);
  if (!deleted) return deleted.error();
  if (deleted->affected() == 0) {
    return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such build");
  }
  return OkStatus();
}

}  // namespace droidlab::store::pg::writes
