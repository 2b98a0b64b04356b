#include "store/backup.h"

#include <sqlite3.h>

#include <filesystem>
#include <system_error>
#include <thread>

#include "store/open.h"
#include "store/sqlite.h"

namespace droidlab::store {

Status BackupDatabase(const std::string& source_path, int busy_timeout_ms,
                      const std::string& destination, const BackupOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (destination.empty()) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument, "no backup path given");
  }
  if (fs::weakly_canonical(destination, ec) == fs::weakly_canonical(source_path, ec)) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "backup path " + destination + " is the database itself");
  }
  const std::string partial = destination + ".partial";
  fs::remove(partial, ec);

  auto source = OpenReaderDatabase(source_path, busy_timeout_ms);
  if (!source) return source.error();
  // One read transaction across every step: the copy is one snapshot, and the writer's commits
  // meanwhile neither restart the backup nor end up half in it.
  Transaction snapshot(*source);
  if (auto s = snapshot.Begin(Transaction::Kind::kDeferred); !s) return s;
  if (auto s = source->QueryInt64("SELECT count(*) FROM sqlite_schema", "starting the backup");
      !s) {
    return s.error();
  }

  Status result = OkStatus();
  {
    auto target = Database::Open(partial, Database::Mode::kReadWriteCreate);
    if (!target) return target.error();
    sqlite3_backup* backup =
        sqlite3_backup_init(target->handle(), "main", source->handle(), "main");
    if (backup == nullptr) {
      return SqliteError(sqlite3_extended_errcode(target->handle()), target->handle(),
                         "starting a backup to " + partial);
    }
    int rc = SQLITE_OK;
    for (;;) {
      rc = sqlite3_backup_step(backup, options.pages_per_step);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
      if (options.pause.count() > 0) std::this_thread::sleep_for(options.pause);
    }
    const int finished = sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE) {
      result = SqliteError(rc, target->handle(), "backing up " + source_path + " to " + partial);
    } else if (finished != SQLITE_OK) {
      result = SqliteError(finished, target->handle(), "finishing the backup to " + partial);
    }
  }
  snapshot.Rollback();
  if (!result) {
    fs::remove(partial, ec);
    return result;
  }
  fs::rename(partial, destination, ec);
  if (ec) {
    return MakeStoreError(StoreErrorCode::kIo,
                          "cannot rename " + partial + " to " + destination + ": " + ec.message());
  }
  return OkStatus();
}

}  // namespace droidlab::store
