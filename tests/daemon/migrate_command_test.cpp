// `droidlab migrate`: the store's start-up checks as an operator meets them — the real binary,
// its exit code, one line on stderr, and a refused file left byte for byte as it was.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "schema/migrations.h"
#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"

namespace droidlab {
namespace {

using testutil::ProcessResult;
using testutil::ReadFileBytes;
using testutil::RunProcess;
using testutil::TempDir;
using testutil::WriteFileBytes;

ProcessResult Migrate(const std::string& db) {
  return RunProcess({DROIDLAB_BINARY, "migrate", "--db", db});
}

bool IsOneLine(const std::string& text) {
  return !text.empty() && text.find('\n') == text.size() - 1;
}

TEST(MigrateCommandTest, CreatesThenFindsNothingToDo) {
  TempDir dir;
  const std::string db = dir.File("droidlab.db");
  ProcessResult first = Migrate(db);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string current = std::to_string(schema::CurrentVersion());
  EXPECT_EQ(first.out, db + ": schema version " + current + " (current)\n");
  ProcessResult again = Migrate(db);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, first.out);
}

TEST(MigrateCommandTest, RefusesAFileThatIsNotADatabaseAndLeavesItAlone) {
  TempDir dir;
  const std::string path = dir.File("notes.db");
  const std::string bytes = "these are somebody's notes, not a database\n";
  WriteFileBytes(path, bytes);
  ProcessResult r = Migrate(path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(IsOneLine(r.err)) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_EQ(ReadFileBytes(path), bytes);
}

TEST(MigrateCommandTest, RefusesADatabaseFromANewerDroidlabNamingBothVersions) {
  TempDir dir;
  const std::string db = dir.File("droidlab.db");
  ASSERT_EQ(Migrate(db).exit_code, 0);
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(handle, "PRAGMA user_version = 42", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(handle);
  const std::string before = ReadFileBytes(db);

  ProcessResult r = Migrate(db);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(IsOneLine(r.err)) << r.err;
  EXPECT_NE(r.err.find("schema version 42"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("up to " + std::to_string(schema::CurrentVersion())), std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFileBytes(db), before);
}

TEST(MigrateCommandTest, MissingFolderAndBadUsage) {
  TempDir dir;
  ProcessResult r = Migrate(dir.File("no/such/folder/droidlab.db"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(RunProcess({DROIDLAB_BINARY, "migrate", "--frobnicate"}).exit_code, 2);
}

}  // namespace
}  // namespace droidlab
