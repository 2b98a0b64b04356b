// The PostgreSQL migrations runner: the rules of the SQLite one (store/open.cpp) on a server
// several daemons share. The version lives in a one-row table, droidlab_schema (SQLite keeps it
// in PRAGMA user_version); a database whose schema has tables but no droidlab_schema is not
// droidlab's and is refused untouched, as a SQLite file without droidlab's application_id is.
// Each migration runs in its own transaction with the version's bump, holding the transaction's
// advisory lock kMigrationLockKey: daemons starting together queue on it, and each reads the
// version only once it holds the lock, so a migration runs once. Internal to store/.
#pragma once

#include <cstdint>
#include <span>

#include "schema/migrations.h"
#include "store/error.h"
#include "store/pg/connection.h"

namespace droidlab::store::pg {

// pg_advisory_xact_lock's key while migrating: "drlb", SQLite's application_id.
inline constexpr int64_t kMigrationLockKey = 0x64726c62;

// Brings the connection's database (its current schema) to the last of `migrations` and returns
// that version. Errors: kNotADatabase (tables, but not droidlab's), kTooNew (a version above the
// last of `migrations`: the message names both, as SQLite's), kMigrationFailed (that migration
// rolled back; the message says the version the database stays at), kUnavailable (the
// connection broke: what was not committed was rolled back by the server).
StoreResult<int64_t> MigratePostgres(
    Connection& connection,
    std::span<const schema::Migration> migrations = schema::PostgresMigrations());

// The database's schema version without changing anything: 0 for an empty one; the refusals of
// MigratePostgres (kNotADatabase, kTooNew against `known` versions).
StoreResult<int64_t> PostgresSchemaVersion(Connection& connection, int64_t known);

}  // namespace droidlab::store::pg
