// The numbered migrations of schema/, embedded into the binary at build time by
// cmake/EmbedFiles.cmake (called from store/CMakeLists.txt, which also checks their numbering);
// schema/migrations.cpp numbers them. Migration N takes a database from PRAGMA user_version N-1
// to N; store/open.cpp runs the pending ones when it opens a database.
#pragma once

#include <span>
#include <string_view>

#include "base/embedded_file.h"

namespace droidlab::schema {

struct Migration {
  int version;            // 1, 2, ...: the user_version once it has run
  std::string_view name;  // the file name without .sql: "0001_init"
  std::string_view sql;   // the whole file
};

// Every migration, in order: Migrations()[i].version == i + 1.
std::span<const Migration> Migrations();

// schema/*.sql as the build embedded them, in order, named "0001_init" (generated source).
std::span<const EmbeddedFile> MigrationFiles();

// The schema version this binary writes: the number of the last migration.
inline int CurrentVersion() { return static_cast<int>(Migrations().size()); }

// The PostgreSQL form of each migration (schema/postgresql/, same names and numbers: the build
// checks it), run by store/pg/migrate.cpp; the version is the one droidlab_schema records.
// Defined in schema/pg_migrations.cpp, part of droidlab_store_pg only.
std::span<const Migration> PostgresMigrations();
std::span<const EmbeddedFile> PostgresMigrationFiles();

}  // namespace droidlab::schema
