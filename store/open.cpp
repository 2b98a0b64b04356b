#include "store/open.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace droidlab::store {

namespace {

constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);
constexpr int64_t kSqliteHeaderSize = 100;

// What a look at the file (without SQLite) says. Done first, so a file that is not ours is
// refused before SQLite has a chance to write to it (e.g. journal_mode=WAL rewrites the header).
Status CheckFileBeforeOpen(const std::string& path, const OpenOptions& options, bool& exists) {
  namespace fs = std::filesystem;
  const fs::path file(path);
  fs::path folder = file.parent_path();
  if (folder.empty()) folder = ".";

  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      return MakeStoreError(StoreErrorCode::kCannotOpen,
                            "cannot open database " + path + ": " + std::strerror(errno));
    }
    exists = false;
    if (!options.create_if_missing) {
      return MakeStoreError(StoreErrorCode::kCannotOpen,
                            "database " + path + " does not exist (and creating it was not asked for)");
    }
    if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return MakeStoreError(StoreErrorCode::kCannotOpen,
                            "cannot create database " + path + ": folder " + folder.string() +
                                " does not exist");
    }
  } else {
    exists = true;
    if (!S_ISREG(st.st_mode)) {
      return MakeStoreError(StoreErrorCode::kCannotOpen,
                            "database " + path + " is not a regular file");
    }
    if (access(path.c_str(), R_OK | W_OK) != 0) {
      return MakeStoreError(StoreErrorCode::kReadOnly,
                            "database " + path + " is not writable by this user (" +
                                std::strerror(errno) + "): fix its owner or mode");
    }
    const auto size = static_cast<int64_t>(st.st_size);
    // An empty file is an empty database to SQLite too (e.g. made by `touch`).
    if (size > 0) {
      std::string head(kSqliteMagic.size(), '\0');
      std::ifstream in(path, std::ios::binary);
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
      const auto got = static_cast<size_t>(in.gcount());
      if (head.compare(0, got, kSqliteMagic.substr(0, got)) != 0) {
        return MakeStoreError(StoreErrorCode::kNotADatabase,
                              "refusing " + path +
                                  ": not a SQLite database (its first bytes are not \"SQLite "
                                  "format 3\"); left untouched");
      }
      if (size < kSqliteHeaderSize) {
        return MakeStoreError(StoreErrorCode::kCorrupt,
                              "refusing " + path + ": truncated SQLite file (" +
                                  std::to_string(size) +
                                  " bytes, shorter than its 100-byte header); left untouched, "
                                  "restore it from a backup");
      }
    }
  }
  // SQLite creates PATH-wal and PATH-shm beside the file.
  if (access(folder.c_str(), W_OK) != 0) {
    return MakeStoreError(StoreErrorCode::kReadOnly,
                          "folder " + folder.string() + " of database " + path +
                              " is not writable (SQLite keeps its -wal and -shm files there)");
  }
  return OkStatus();
}

// Rewords what SQLite said while reading the file's first pages into a start-up error.
StoreError OpenError(const StoreError& error, const std::string& path) {
  switch (error.code) {
    case StoreErrorCode::kLocked:
      return MakeStoreError(StoreErrorCode::kLocked,
                            "database " + path +
                                " is locked by another process (another droidlab on the same "
                                "file?): " + error.message);
    case StoreErrorCode::kNotADatabase:
      return MakeStoreError(StoreErrorCode::kNotADatabase,
                            "refusing " + path + ": " + error.message + "; left untouched");
    case StoreErrorCode::kCorrupt:
      return MakeStoreError(StoreErrorCode::kCorrupt,
                            "database " + path + " is corrupt: " + error.message +
                                "; left untouched, restore it from a backup");
    default:
      return error;
  }
}

// The header and schema as droidlab's: refuses a database of another program and one written
// by a newer droidlab (its user_version above `current`). The first time SQLite reads the file.
// Its schema version.
StoreResult<int64_t> CheckDroidlabDatabase(Database& db, const std::string& path, int64_t current) {
  auto application_id = db.QueryInt64("PRAGMA application_id", "reading " + path);
  if (!application_id) return OpenError(application_id.error(), path);
  auto version = db.QueryInt64("PRAGMA user_version", "reading " + path);
  if (!version) return OpenError(version.error(), path);
  auto objects = db.QueryInt64("SELECT count(*) FROM sqlite_schema", "reading the schema of " + path);
  if (!objects) return OpenError(objects.error(), path);
  if (*application_id != kApplicationId) {
    if (*application_id != 0 || *version != 0 || *objects != 0) {
      return MakeStoreError(
          StoreErrorCode::kNotADatabase,
          "refusing " + path + ": a SQLite database but not droidlab's (application_id " +
              std::to_string(*application_id) + ", user_version " + std::to_string(*version) +
              ", " + std::to_string(*objects) + " schema objects); left untouched");
    }
  }
  if (*version > current) {
    return MakeStoreError(StoreErrorCode::kTooNew,
                          "database " + path + " has schema version " + std::to_string(*version) +
                              ", written by a newer droidlab; this binary knows versions up to " +
                              std::to_string(current) +
                              ": run the newer droidlab or restore an older backup");
  }
  return *version;
}

}  // namespace

StoreResult<Database> OpenExistingReadOnly(const std::string& path, int busy_timeout_ms,
                                           std::span<const schema::Migration> migrations) {
  if (path.empty()) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument, "no database path given");
  }
  OpenOptions options;
  options.create_if_missing = false;
  bool exists = false;
  if (auto checked = CheckFileBeforeOpen(path, options, exists); !checked) return checked.error();
  auto opened = Database::Open(path, Database::Mode::kReadOnly);
  if (!opened) return opened.error();
  opened->SetBusyTimeout(busy_timeout_ms);
  const int64_t current = static_cast<int64_t>(migrations.size());
  if (auto version = CheckDroidlabDatabase(*opened, path, current); !version) return version.error();
  return opened;
}

StoreResult<Database> OpenWriterDatabase(const std::string& path, const OpenOptions& options,
                                         std::span<const schema::Migration> migrations) {
  if (path.empty()) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument, "no database path given");
  }
  bool exists = false;
  if (auto checked = CheckFileBeforeOpen(path, options, exists); !checked) return checked.error();

  auto opened = Database::Open(
      path, exists ? Database::Mode::kReadWrite : Database::Mode::kReadWriteCreate);
  if (!opened) return opened.error();
  Database db = std::move(opened).value();
  if (db.IsReadOnly()) {
    return MakeStoreError(StoreErrorCode::kReadOnly,
                          "database " + path + " opened read-only: check its mode and owner");
  }
  db.SetBusyTimeout(options.busy_timeout_ms);

  const int64_t current = static_cast<int64_t>(migrations.size());
  auto version = CheckDroidlabDatabase(db, path, current);
  if (!version) return version.error();

  // WAL: readers never wait for the writer, and the writer's commits are appends. NORMAL
  // synchronisation in WAL mode loses no committed transaction when the process dies (kill -9);
  // on power loss the last commits before a checkpoint may roll back. Run state changes and
  // schedules are committed with synchronous=FULL (writer.cpp) so what was reported survives.
  {
    auto mode = db.Prepare("PRAGMA journal_mode=WAL");
    if (!mode) return OpenError(mode.error(), path);
    if (mode->StepOnce() != Statement::Step::kRow) {
      return OpenError(mode->Error("switching " + path + " to WAL mode"), path);
    }
    if (mode->ColumnText(0) != "wal") {
      return MakeStoreError(StoreErrorCode::kIo, "database " + path +
                                                      " cannot use WAL mode (journal_mode is " +
                                                      mode->ColumnString(0) + ")");
    }
  }
  if (auto s = db.Execute("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;",
                          "setting pragmas on " + path);
      !s) {
    return s.error();
  }

  // Each pending migration in its own transaction with its user_version. With none pending,
  // the empty write transaction still proves nobody else holds the write lock.
  int64_t at = *version;
  do {
    Transaction transaction(db);
    if (auto s = transaction.Begin(Transaction::Kind::kImmediate); !s) {
      return OpenError(s.error(), path);
    }
    if (at < current) {
      const schema::Migration& migration = migrations[static_cast<size_t>(at)];
      const std::string what = "migration " + std::string(migration.name) + " on " + path;
      Status applied = OkStatus();
      if (at == 0) {
        applied = db.Execute("PRAGMA application_id=" + std::to_string(kApplicationId), what);
      }
      if (applied) applied = db.Execute(migration.sql, what);
      // A pragma takes no bound parameter; the number is ours, not input.
      if (applied) {
        applied =
            db.Execute("PRAGMA user_version=" + std::to_string(migration.version), what);
      }
      if (applied) applied = transaction.Commit();
      if (!applied) {
        if (applied.error().code == StoreErrorCode::kLocked) return OpenError(applied.error(), path);
        return MakeStoreError(StoreErrorCode::kMigrationFailed,
                              applied.error().message + "; the database stays at version " +
                                  std::to_string(at));
      }
      ++at;
    } else if (auto s = transaction.Commit(); !s) {
      return OpenError(s.error(), path);
    }
  } while (at < current);

  if (options.max_page_count) {
    if (auto s = db.Execute("PRAGMA max_page_count=" + std::to_string(*options.max_page_count),
                            "setting max_page_count on " + path);
        !s) {
      return s.error();
    }
  }
  return db;
}

StoreResult<Database> OpenReaderDatabase(const std::string& path, int busy_timeout_ms) {
  auto opened = Database::Open(path, Database::Mode::kReadOnly);
  if (!opened) return opened.error();
  opened->SetBusyTimeout(busy_timeout_ms);
  return opened;
}

}  // namespace droidlab::store
