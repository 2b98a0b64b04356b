// The PostgreSQL SQL of the `builds` and `build_files` tables (schema/postgresql/0005_builds.sql,
// 0007_build_files.sql, 0008_build_signature.sql): ../../sql/builds.h in PostgreSQL's dialect.
// Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

// A build already kept (the same sha256) is not inserted again: no row comes back, and its id
// is read with kBuildIdBySha256.
inline constexpr char kInsertBuild[] =
    "INSERT INTO builds (sha256, package, version_code, version_name, min_sdk, target_sdk, size,"
    " file_name, created_at, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    " ON CONFLICT (sha256) DO NOTHING RETURNING id";
inline constexpr char kBuildIdBySha256[] = "SELECT id FROM builds WHERE sha256 = $1";
inline constexpr char kDeleteBuild[] = "DELETE FROM builds WHERE id = $1";
inline constexpr char kInsertBuildFile[] =
    "INSERT INTO build_files (build_id, position, name, kind, split, sha256, size)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7)";
inline constexpr char kDeleteBuildFiles[] = "DELETE FROM build_files WHERE build_id = $1";
inline constexpr char kBuildFiles[] =
    "SELECT name, kind, split, sha256, size FROM build_files WHERE build_id = $1"
    " ORDER BY position";
// How many builds keep a file with these bytes (a file shared by two builds stays on disk).
inline constexpr char kBuildFileUsers[] =
    "SELECT count(DISTINCT build_id) FROM build_files WHERE sha256 = $1";

// A queued or running run that names the build in its spec ("build" or a side-by-side run's
// "baseline_build", RunSpec). spec is JSON, always valid (SQLite's json_valid); as jsonb, a JSON
// number equals the id as SQLite's json_extract(...) = ?1 compares it (5 and 5.0 alike), a string
// "5" does not.
inline constexpr char kBuildInUse[] =
    "SELECT count(*) FROM runs WHERE status IN ('queued', 'running')"
    " AND ((spec -> 'build')::jsonb = to_jsonb($1::bigint)"
    " OR (spec -> 'baseline_build')::jsonb = to_jsonb($1::bigint))";

// ReadBuild in build_reads.cpp reads DROIDLAB_PG_BUILD_COLUMNS in this order.
#define DROIDLAB_PG_BUILD_COLUMNS                                                          \
  "id, sha256, package, version_code, version_name, min_sdk, target_sdk, size, file_name," \
  " created_at, signature"
inline constexpr char kBuilds[] =
    "SELECT " DROIDLAB_PG_BUILD_COLUMNS " FROM builds ORDER BY created_at DESC, id DESC";
inline constexpr char kBuildById[] =
    "SELECT " DROIDLAB_PG_BUILD_COLUMNS " FROM builds WHERE id = $1";
inline constexpr char kBuildBySha256[] =
    "SELECT " DROIDLAB_PG_BUILD_COLUMNS " FROM builds WHERE sha256 = $1";
inline constexpr char kBuildsCreatedBefore[] =
    "SELECT " DROIDLAB_PG_BUILD_COLUMNS " FROM builds WHERE created_at < $1 ORDER BY id";
#undef DROIDLAB_PG_BUILD_COLUMNS

// What droidlab installed on a phone: per package, the newest run on that serial whose preflight
// recorded a build (installed, or found already installed). #>> gives SQL NULL for a JSON null
// as json_extract does. ReadInstalledBuild reads the columns in this order.
inline constexpr char kInstalledBuildsOnDevice[] =
    "SELECT r.package, (r.preflight #>> '{build,id}')::bigint,"
    " (r.preflight #>> '{build,version_code}')::bigint, r.preflight #>> '{build,sha256}',"
    " r.preflight #>> '{build,install_method}', r.started_at, r.id FROM runs r"
    " WHERE r.serial = $1 AND r.id = (SELECT max(n.id) FROM runs n WHERE n.serial = r.serial"
    " AND n.package = r.package AND n.preflight #>> '{build,id}' IS NOT NULL)"
    " ORDER BY r.package COLLATE \"C\"";

}  // namespace droidlab::store::pg::sql
