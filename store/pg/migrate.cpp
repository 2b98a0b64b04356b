#include "store/pg/migrate.h"

#include <optional>
#include <string>

namespace droidlab::store::pg {

namespace {

constexpr char kCreateVersionTable[] =
    "CREATE TABLE droidlab_schema ("
    " singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),"
    " version BIGINT NOT NULL);"
    "INSERT INTO droidlab_schema (version) VALUES (0)";

// The version, nullopt when droidlab_schema does not exist; kNotADatabase when other tables do.
StoreResult<std::optional<int64_t>> ReadVersion(Connection& connection) {
  const std::string& where = connection.redacted_url();
  auto tables = connection.Query(
      "SELECT count(*) FILTER (WHERE tablename = 'droidlab_schema') AS ours, count(*) AS tables"
      " FROM pg_tables WHERE schemaname = current_schema()",
      "reading the tables of " + where);
  if (!tables) return tables.error();
  auto ours = tables->Int64(0, "ours");
  auto all = tables->Int64(0, "tables");
  if (!ours) return ours.error();
  if (!all) return all.error();
  if (*ours == 0) {
    if (*all != 0) {
      return MakeStoreError(StoreErrorCode::kNotADatabase,
                            "refusing " + where + ": its schema has " + std::to_string(*all) +
                                " tables but no droidlab_schema: not droidlab's; left untouched");
    }
    return std::optional<int64_t>();
  }
  auto version = connection.Query("SELECT version FROM droidlab_schema",
                                  "reading the schema version of " + where);
  if (!version) return version.error();
  if (version->rows() != 1) {
    return MakeStoreError(StoreErrorCode::kCorrupt, "database " + where + ": droidlab_schema has " +
                                                        std::to_string(version->rows()) +
                                                        " rows, not 1");
  }
  auto value = version->Int64(0, "version");
  if (!value) return value.error();
  return std::optional<int64_t>(*value);
}

Status CheckNotNewer(int64_t version, int64_t known, const std::string& where) {
  if (version <= known) return OkStatus();
  return MakeStoreError(StoreErrorCode::kTooNew,
                        "database " + where + " has schema version " + std::to_string(version) +
                            ", written by a newer droidlab; this binary knows versions up to " +
                            std::to_string(known) +
                            ": run the newer droidlab or restore an older backup");
}

}  // namespace

StoreResult<int64_t> PostgresSchemaVersion(Connection& connection, int64_t known) {
  auto version = ReadVersion(connection);
  if (!version) return version.error();
  const int64_t at = version->value_or(0);
  if (auto s = CheckNotNewer(at, known, connection.redacted_url()); !s) return s.error();
  return at;
}

StoreResult<int64_t> MigratePostgres(Connection& connection,
                                     std::span<const schema::Migration> migrations) {
  const std::string& where = connection.redacted_url();
  const auto current = static_cast<int64_t>(migrations.size());
  for (;;) {
    Transaction transaction(connection);
    if (auto s = transaction.Begin(); !s) return s.error();
    // Held until this transaction ends; the version is read after it is taken, so a daemon that
    // waited here sees what the one before it committed.
    auto locked =
        connection.Query("SELECT pg_advisory_xact_lock($1)", Params().Int64(kMigrationLockKey),
                         "waiting for the migration lock on " + where);
    if (!locked) return locked.error();
    auto read = ReadVersion(connection);
    if (!read) return read.error();
    const int64_t at = read->value_or(0);
    if (auto s = CheckNotNewer(at, current, where); !s) return s.error();
    if (at == current) return at;  // nothing written: the transaction rolls back

    const schema::Migration& migration = migrations[static_cast<size_t>(at)];
    const std::string what = "migration " + std::string(migration.name) + " on " + where;
    Status applied = OkStatus();
    if (!read->has_value()) applied = connection.Execute(kCreateVersionTable, what);
    if (applied) applied = connection.Execute(migration.sql, what);
    if (applied) {
      auto bumped = connection.Query("UPDATE droidlab_schema SET version = $1",
                                     Params().Int64(migration.version), what);
      if (!bumped) applied = bumped.error();
    }
    if (applied) applied = transaction.Commit();
    if (!applied) {
      if (applied.error().code == StoreErrorCode::kUnavailable) return applied.error();
      return MakeStoreError(
          StoreErrorCode::kMigrationFailed,
          applied.error().message + "; the database stays at version " + std::to_string(at));
    }
  }
}

}  // namespace droidlab::store::pg
