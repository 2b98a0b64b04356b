// Start-up against bad files: each is refused with a message naming the file and the reason, and
// the file's bytes are the same afterwards.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "store/open.h"
#include "store/store.h"
#include "tests/common/temp_dir.h"

namespace droidlab::store {
namespace {

using testutil::ReadFileBytes;
using testutil::TempDir;
using testutil::WriteFileBytes;

StoreOptions OptionsFor(const std::string& path) {
  StoreOptions options;
  options.path = path;
  options.busy_timeout_ms = 200;
  return options;
}

// Makes a real droidlab database at `path` and closes it.
void MakeDroidlabDatabase(const std::string& path) {
  auto store = Store::Open(OptionsFor(path));
  ASSERT_TRUE(store.ok()) << store.error().message;
  NewRun run;
  run.spec_json = "{}";
  run.serial = "emulator-5554";
  run.package = "com.example.app";
  run.mode = "cold";
  run.created_at = 1000;
  ASSERT_TRUE((*store)->CreateRun(run).ok());
}

// Runs raw SQL on a file through SQLite directly (the test plays another program).
void RawExec(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << error;
  sqlite3_close(db);
}

void ExpectRefusedUnchanged(const std::string& path, StoreErrorCode code,
                            const std::string& words) {
  const std::string before = ReadFileBytes(path);
  auto store = Store::Open(OptionsFor(path));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, code) << store.error().message;
  EXPECT_NE(store.error().message.find(path), std::string::npos) << store.error().message;
  EXPECT_NE(store.error().message.find(words), std::string::npos) << store.error().message;
  EXPECT_EQ(ReadFileBytes(path), before) << "the refused file was altered";
}

TEST(OpenTest, CreatesANewDatabaseInWalMode) {
  TempDir dir;
  const std::string path = dir.File("new.db");
  MakeDroidlabDatabase(path);
  const std::string bytes = ReadFileBytes(path);
  ASSERT_GE(bytes.size(), 100u);
  EXPECT_EQ(bytes.substr(0, 15), "SQLite format 3");
  EXPECT_EQ(bytes[18], 2) << "file format 2 is WAL";
  auto store = Store::Open(OptionsFor(path));
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto page = (*store)->Read([](Reader& r) { return r.ListRuns({}); });
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->runs.size(), 1u);
}

TEST(OpenTest, EmptyFileIsANewDatabase) {
  TempDir dir;
  const std::string path = dir.File("empty.db");
  WriteFileBytes(path, "");
  auto store = Store::Open(OptionsFor(path));
  EXPECT_TRUE(store.ok()) << store.error().message;
}

TEST(OpenTest, MissingFolderIsCannotOpen) {
  TempDir dir;
  auto store = Store::Open(OptionsFor(dir.File("no/such/folder/x.db")));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, StoreErrorCode::kCannotOpen);
  EXPECT_NE(store.error().message.find("does not exist"), std::string::npos);
}

TEST(OpenTest, MissingFileWithoutCreateIsCannotOpen) {
  TempDir dir;
  auto options = OptionsFor(dir.File("x.db"));
  options.create_if_missing = false;
  auto store = Store::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, StoreErrorCode::kCannotOpen);
  EXPECT_FALSE(std::filesystem::exists(dir.File("x.db")));
}

TEST(OpenTest, GarbageFileIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("garbage.db");
  std::string garbage;
  for (int i = 0; i < 8192; ++i) garbage += static_cast<char>((i * 7919) % 251);
  WriteFileBytes(path, garbage);
  ExpectRefusedUnchanged(path, StoreErrorCode::kNotADatabase, "not a SQLite database");
}

TEST(OpenTest, TextFileIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("notes.db");
  WriteFileBytes(path, "these are my notes, not a database\n");
  ExpectRefusedUnchanged(path, StoreErrorCode::kNotADatabase, "not a SQLite database");
}

TEST(OpenTest, TruncatedHeaderIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("truncated.db");
  MakeDroidlabDatabase(path);
  WriteFileBytes(path, ReadFileBytes(path).substr(0, 60));
  ExpectRefusedUnchanged(path, StoreErrorCode::kCorrupt, "truncated");
}

TEST(OpenTest, DamagedSchemaPageIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("damaged.db");
  MakeDroidlabDatabase(path);
  std::string bytes = ReadFileBytes(path);
  ASSERT_GT(bytes.size(), 4096u);
  // Page 1 after the 100-byte header holds sqlite_schema: overwrite its b-tree page header.
  for (size_t i = 100; i < 140; ++i) bytes[i] = '\xff';
  WriteFileBytes(path, bytes);
  ExpectRefusedUnchanged(path, StoreErrorCode::kCorrupt, "corrupt");
}

TEST(OpenTest, AnotherProgramsDatabaseIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("other.db");
  RawExec(path, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
                "INSERT INTO customers (name) VALUES ('Ada');");
  ExpectRefusedUnchanged(path, StoreErrorCode::kNotADatabase, "not droidlab's");
}

TEST(OpenTest, ForeignApplicationIdIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("foreign.db");
  RawExec(path, "PRAGMA application_id = 1234;");
  ExpectRefusedUnchanged(path, StoreErrorCode::kNotADatabase, "application_id 1234");
}

TEST(OpenTest, NewerVersionIsRefusedNamingBothVersions) {
  TempDir dir;
  const std::string path = dir.File("newer.db");
  MakeDroidlabDatabase(path);
  const int newer = schema::CurrentVersion() + 5;
  RawExec(path, ("PRAGMA user_version = " + std::to_string(newer)).c_str());
  const std::string before = ReadFileBytes(path);
  auto store = Store::Open(OptionsFor(path));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, StoreErrorCode::kTooNew);
  EXPECT_NE(store.error().message.find("version " + std::to_string(newer)), std::string::npos)
      << store.error().message;
  EXPECT_NE(store.error().message.find("up to " + std::to_string(schema::CurrentVersion())),
            std::string::npos)
      << store.error().message;
  EXPECT_EQ(ReadFileBytes(path), before);
}

TEST(OpenTest, ExclusiveLockByAnotherConnectionIsLocked) {
  TempDir dir;
  const std::string path = dir.File("locked.db");
  MakeDroidlabDatabase(path);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  const std::string before = ReadFileBytes(path);
  auto store = Store::Open(OptionsFor(path));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, StoreErrorCode::kLocked) << store.error().message;
  EXPECT_NE(store.error().message.find(path), std::string::npos);
  EXPECT_NE(store.error().message.find("locked by another process"), std::string::npos);
  EXPECT_EQ(ReadFileBytes(path), before);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_TRUE(Store::Open(OptionsFor(path)).ok()) << "usable once the lock is gone";
}

TEST(OpenTest, ExclusiveLockOnARollbackJournalDatabaseIsLocked) {
  TempDir dir;
  const std::string path = dir.File("locked-rollback.db");
  MakeDroidlabDatabase(path);
  RawExec(path, "PRAGMA journal_mode = DELETE;");
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE; UPDATE runs SET error = 'x';", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  const std::string before = ReadFileBytes(path);
  auto store = Store::Open(OptionsFor(path));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, StoreErrorCode::kLocked) << store.error().message;
  EXPECT_EQ(ReadFileBytes(path), before);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
}

// Root ignores file modes: as root, the open runs in a child that has become `nobody`.
TEST(OpenTest, UnwritableFileIsReadOnly) {
  TempDir dir;
  const std::string path = dir.File("readonly.db");
  MakeDroidlabDatabase(path);
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  const std::string before = ReadFileBytes(path);
  std::string message;
  StoreErrorCode code = StoreErrorCode::kInternal;
  if (geteuid() != 0) {
    auto store = Store::Open(OptionsFor(path));
    ASSERT_FALSE(store.ok());
    code = store.error().code;
    message = store.error().message;
  } else {
    const passwd* nobody = getpwnam("nobody");
    if (nobody == nullptr) GTEST_SKIP() << "running as root and no user 'nobody'";
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(pipe_fds[0]);
      if (setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0) _exit(3);
      auto store = Store::Open(OptionsFor(path));
      const std::string out =
          store.ok() ? std::string("opened") : std::string(StoreErrorCodeName(store.error().code)) +
                                                   "\n" + store.error().message;
      (void)!write(pipe_fds[1], out.data(), out.size());
      _exit(0);
    }
    close(pipe_fds[1]);
    char buffer[4096];
    ssize_t n;
    while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) message.append(buffer, static_cast<size_t>(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child could not drop root";
    ASSERT_NE(message, "opened");
    const auto newline = message.find('\n');
    ASSERT_NE(newline, std::string::npos);
    EXPECT_EQ(message.substr(0, newline), "read_only");
    code = StoreErrorCode::kReadOnly;
    message = message.substr(newline + 1);
  }
  EXPECT_EQ(code, StoreErrorCode::kReadOnly) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("not writable"), std::string::npos) << message;
  EXPECT_EQ(ReadFileBytes(path), before);
}

}  // namespace
}  // namespace droidlab::store
