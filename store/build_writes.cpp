#include "store/build_writes.h"

#include <string>

#include "store/sql/builds.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

StoreResult<AddedBuild> InsertBuild(Database& db, const NewBuild& build) {
  const std::string what = "storing build " + build.sha256;
  auto s = RunCached(
      db, sql::kInsertBuild,
      [&](Statement& st) {
        st.BindText(1, build.sha256);
        st.BindText(2, build.package);
        st.BindInt64(3, build.version_code);
        st.BindOptional(4, build.version_name);
        st.BindOptional(5, build.min_sdk);
        st.BindOptional(6, build.target_sdk);
        st.BindInt64(7, build.size);
        st.BindOptional(8, build.file_name);
        st.BindInt64(9, build.created_at);
        st.BindOptional(10, build.signature);
      },
      what);
  if (!s) return s.error();
  AddedBuild added;
  added.created = db.Changes() > 0;
  if (added.created) {
    added.id = db.LastInsertRowId();
    for (size_t i = 0; i < build.files.size(); ++i) {
      const BuildFile& file = build.files[i];
      auto f = RunCached(
          db, sql::kInsertBuildFile,
          [&](Statement& st) {
            st.BindInt64(1, added.id);
            st.BindInt64(2, static_cast<int64_t>(i));
            st.BindText(3, file.name);
            st.BindText(4, file.kind);
            st.BindOptional(5, file.split);
            st.BindText(6, file.sha256);
            st.BindInt64(7, file.size);
          },
          what);
      if (!f) return f.error();
    }
    return added;
  }
  auto st = db.Cached(sql::kBuildIdBySha256);
  if (!st) return st.error();
  (*st)->BindText(1, build.sha256);
  if ((*st)->StepOnce() != Statement::Step::kRow) return (*st)->Error(what);
  added.id = (*st)->ColumnInt64(0);
  return added;
}

Status DeleteBuild(Database& db, int64_t build_id) {
  const std::string what = "deleting build " + std::to_string(build_id);
  // Foreign keys are off (store/open.cpp): the files' rows go first, by hand.
  if (auto s = RunCached(db, sql::kDeleteBuildFiles,
                         [&](Statement& st) { st.BindInt64(1, build_id); }, what);
      !s) {
    return s;
  }
  if (auto s = RunCached(db, sql::kDeleteBuild, [&](Statement& st) { st.BindInt64(1, build_id); },
                         what);
      !s) {
    return s;
  }
  return NotFoundUnlessChanged(db, what + ": no such build");
}

}  // namespace droidlab::store::writes
