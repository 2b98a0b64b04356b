// RAII handles over SQLite, after Chromium's //sql: Database (one connection), Statement
// (prepared once, reused: Database::Cached hands out the connection's copy, reset when the
// scope ends so no statement keeps a read transaction open), Transaction (rolls back unless
// committed). Internal to store/: nothing outside store/ includes this header, and sqlite3.h
// stays out of it.
//
// Threading: a Database and its statements are used by one thread at a time (SQLite is built
// multi-thread; the store gives each connection one owner thread).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace droidlab::store {

// Maps a SQLite result code (extended or primary) to a StoreError. `what` says what was being
// done ("inserting launches into /var/lib/droidlab.db"); SQLite's own message is appended.
StoreError SqliteError(int rc, sqlite3* db, std::string_view what);
StoreErrorCode SqliteErrorCode(int rc);

class Statement {
 public:
  enum class Step { kRow, kDone, kError };

  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in the SQL (?1, ?2, ...). Text is bound without a copy: it must
  // stay alive until the statement is reset.
  void BindNull(int index);
  void BindInt64(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindText(int index, std::string_view value);
  void BindBool(int index, bool value) { BindInt64(index, value ? 1 : 0); }
  template <class T>
  void BindOptional(int index, const std::optional<T>& value) {
    if (!value) {
      BindNull(index);
    } else if constexpr (std::is_same_v<T, bool>) {
      BindBool(index, *value);
    } else if constexpr (std::is_floating_point_v<T>) {
      BindDouble(index, *value);
    } else if constexpr (std::is_integral_v<T>) {
      BindInt64(index, static_cast<int64_t>(*value));
    } else {
      BindText(index, *value);
    }
  }

  Step StepOnce();
  // Steps a statement that returns no rows to the end; the error names `what` on failure.
  Status Run(std::string_view what);
  // The result code of the last failed step (extended), 0 if none.
  int last_error() const { return last_rc_; }
  StoreError Error(std::string_view what) const;
  void Reset();  // and clears the bindings

  // Columns are 0-based, as in sqlite3_column_*.
  bool ColumnIsNull(int col) const;
  int64_t ColumnInt64(int col) const;
  double ColumnDouble(int col) const;
  std::string_view ColumnText(int col) const;  // valid until the next step or reset
  std::string ColumnString(int col) const { return std::string(ColumnText(col)); }
  std::optional<int64_t> ColumnOptionalInt64(int col) const;
  std::optional<double> ColumnOptionalDouble(int col) const;
  std::optional<std::string> ColumnOptionalString(int col) const;

  bool valid() const { return stmt_ != nullptr; }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  int last_rc_ = 0;
};

// A cached statement borrowed for one use: reset (bindings cleared, read lock released) when
// the scope ends.
class ScopedStatement {
 public:
  explicit ScopedStatement(Statement* statement) : statement_(statement) {}
  ~ScopedStatement() {
    if (statement_ != nullptr) statement_->Reset();
  }
  ScopedStatement(ScopedStatement&& other) noexcept : statement_(other.statement_) {
    other.statement_ = nullptr;
  }
  ScopedStatement& operator=(ScopedStatement&&) = delete;
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;

  Statement* operator->() { return statement_; }
  Statement& operator*() { return *statement_; }

 private:
  Statement* statement_;
};

class Database {
 public:
  enum class Mode { kReadWriteCreate, kReadWrite, kReadOnly };

  Database() = default;
  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Opens `path` (no URI, no shared cache). Errors: kCannotOpen with the path and the reason.
  static StoreResult<Database> Open(const std::string& path, Mode mode);

  // Runs one or more statements that return no rows (migrations, pragmas).
  Status Execute(std::string_view sql, std::string_view what);
  // A one-off statement, not cached.
  StoreResult<Statement> Prepare(std::string_view sql);
  // This connection's prepared copy of `sql`, prepared on first use. `sql` is a string
  // literal: the cache is keyed by its address, so each call site has its own statement.
  StoreResult<ScopedStatement> Cached(const char* sql);
  // The single integer a pragma or query returns ("PRAGMA user_version").
  StoreResult<int64_t> QueryInt64(const char* sql, std::string_view what);

  void SetBusyTimeout(int ms);
  bool IsReadOnly() const;
  int64_t LastInsertRowId() const;
  int Changes() const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  // unique_ptr: ScopedStatement holds pointers that must survive the map's rebalancing moves.
  std::map<const char*, std::unique_ptr<Statement>> cache_;
};

// BEGIN ... COMMIT that rolls back unless Commit() was called and succeeded.
class Transaction {
 public:
  enum class Kind { kDeferred, kImmediate };
  explicit Transaction(Database& db) : db_(db) {}
  ~Transaction() { Rollback(); }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status Begin(Kind kind = Kind::kImmediate);
  Status Commit();
  void Rollback();
  bool active() const { return active_; }

 private:
  Database& db_;
  bool active_ = false;
};

}  // namespace droidlab::store
