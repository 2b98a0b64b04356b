// Opening the database file: the checks that refuse a file that is not ours (or is damaged,
// locked, unwritable, from a newer droidlab) before anything is written to it, WAL mode, and the
// migrations runner. Internal to store/.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "schema/migrations.h"
#include "store/error.h"
#include "store/sqlite.h"

namespace droidlab::store {

// PRAGMA application_id of a droidlab database: "drlb".
inline constexpr int64_t kApplicationId = 0x64726c62;

struct OpenOptions {
  bool create_if_missing = true;
  int busy_timeout_ms = 5000;  // how long to wait for another connection's lock
  // Caps the file at this many pages (PRAGMA max_page_count): a quota, and how tests make the
  // disk fill up.
  std::optional<int64_t> max_page_count;
};

// The writer's connection: validated, in WAL mode, migrated to the last of `migrations` (the
// embedded schema unless a test passes its own). Refuses, without writing to the file:
// kInvalidArgument (empty path), kCannotOpen (missing folder, not a regular file), kReadOnly,
// kNotADatabase (not SQLite; SQLite with tables but no droidlab application_id), kCorrupt
// (truncated header, damaged schema pages), kTooNew (user_version above the last migration),
// kLocked (another connection holds the write lock for longer than busy_timeout_ms).
// kMigrationFailed when a migration fails: it is rolled back, the version stays where it was.
StoreResult<Database> OpenWriterDatabase(
    const std::string& path, const OpenOptions& options,
    std::span<const schema::Migration> migrations = schema::Migrations());

// A database as it is, for reading only (`droidlab backup`): the writer's refusals (missing,
// not a regular file, not droidlab's, corrupt, newer than this binary), but never created,
// migrated nor written to — an older schema is left older.
StoreResult<Database> OpenExistingReadOnly(
    const std::string& path, int busy_timeout_ms,
    std::span<const schema::Migration> migrations = schema::Migrations());

// A read-only connection to a database OpenWriterDatabase has opened.
StoreResult<Database> OpenReaderDatabase(const std::string& path, int busy_timeout_ms);

}  // namespace droidlab::store
