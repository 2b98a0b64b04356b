// The numbered migrations of schema/, embedded into the binary at build time
// (schema/embed_sql.cmake writes the definition). Migration N takes a database from
// PRAGMA user_version N-1 to N; store/open.cpp runs the pending ones when it opens a database.
#pragma once

#include <span>
#include <string_view>

namespace droidlab::schema {

struct Migration {
  int version;            // 1, 2, ...: the user_version once it has run
  std::string_view name;  // the file name without .sql: "0001_init"
  std::string_view sql;   // the whole file
};

// Every migration, in order: Migrations()[i].version == i + 1.
std::span<const Migration> Migrations();

// The schema version this binary writes: the number of the last migration.
inline int CurrentVersion() { return static_cast<int>(Migrations().size()); }

}  // namespace droidlab::schema
