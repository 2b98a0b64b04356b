#include "store/backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <thread>

#include "store/open.h"
#include "store/sqlite.h"

namespace droidlab::store {

namespace {

// fsync of a file or a folder: the copy's bytes before the rename that makes it the backup, and
// the folder after it, so that a power cut leaves the old backup or the new one, whole.
Status SyncToDisk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return MakeStoreError(StoreErrorCode::kIo, "cannot open " + path + " to sync it");
  }
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0) return MakeStoreError(StoreErrorCode::kIo, "cannot sync " + path + " to disk");
  return OkStatus();
}

}  // namespace

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
  if (auto synced = SyncToDisk(partial); !synced) {
    fs::remove(partial, ec);
    return synced;
  }
  fs::rename(partial, destination, ec);
  if (ec) {
    return MakeStoreError(StoreErrorCode::kIo,
                          "cannot rename " + partial + " to " + destination + ": " + ec.message());
  }
  fs::path folder = fs::path(destination).parent_path();
  if (folder.empty()) folder = ".";
  return SyncToDisk(folder.string());
}

Status BackupDatabaseAt(const std::string& path, const std::string& destination,
                        const BackupOptions& options) {
  constexpr int kBusyTimeoutMs = 5000;
  {
    auto checked = OpenExistingReadOnly(path, kBusyTimeoutMs);
    if (!checked) return checked.error();
  }
  return BackupDatabase(path, kBusyTimeoutMs, destination, options);
}

}  // namespace droidlab::store
