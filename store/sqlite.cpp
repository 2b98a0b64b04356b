#include "store/sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace droidlab::store {

StoreErrorCode SqliteErrorCode(int rc) {
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return StoreErrorCode::kDiskFull;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StoreErrorCode::kLocked;
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return StoreErrorCode::kReadOnly;
    case SQLITE_NOTADB:
      return StoreErrorCode::kNotADatabase;
    case SQLITE_CORRUPT:
      return StoreErrorCode::kCorrupt;
    case SQLITE_CANTOPEN:
      return StoreErrorCode::kCannotOpen;
    case SQLITE_IOERR:
      return StoreErrorCode::kIo;
    case SQLITE_CONSTRAINT:
      return StoreErrorCode::kConstraint;
    default:
      return StoreErrorCode::kInternal;
  }
}

StoreError SqliteError(int rc, sqlite3* db, std::string_view what) {
  std::string message(what);
  message += ": ";
  // sqlite3_errmsg is the connection's last error; errstr(rc) when there is no connection or
  // the connection's message belongs to another call.
  const char* detail = db != nullptr && sqlite3_extended_errcode(db) == rc ? sqlite3_errmsg(db)
                                                                            : sqlite3_errstr(rc);
  message += detail;
  if (SqliteErrorCode(rc) == StoreErrorCode::kDiskFull) {
    message += " (free space on the database's file system, or lower the retention)";
  }
  return MakeStoreError(SqliteErrorCode(rc), std::move(message));
}

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      last_rc_(other.last_rc_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    db_ = std::exchange(other.db_, nullptr);
    stmt_ = std::exchange(other.stmt_, nullptr);
    last_rc_ = other.last_rc_;
  }
  return *this;
}

void Statement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }
void Statement::BindInt64(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void Statement::BindDouble(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void Statement::BindText(int index, std::string_view value) {
  // data() of an empty view may be null, which SQLite would store as NULL: bind "" instead.
  sqlite3_bind_text(stmt_, index, value.empty() ? "" : value.data(),
                    static_cast<int>(value.size()), SQLITE_STATIC);
}

Statement::Step Statement::StepOnce() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return Step::kRow;
  if (rc == SQLITE_DONE) return Step::kDone;
  last_rc_ = sqlite3_extended_errcode(db_);
  if (last_rc_ == SQLITE_OK) last_rc_ = rc;
  return Step::kError;
}

Status Statement::Run(std::string_view what) {
  switch (StepOnce()) {
    case Step::kDone:
    case Step::kRow:
      return OkStatus();
    case Step::kError:
      break;
  }
  return Error(what);
}

StoreError Statement::Error(std::string_view what) const { return SqliteError(last_rc_, db_, what); }

void Statement::Reset() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::ColumnIsNull(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}
int64_t Statement::ColumnInt64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::ColumnDouble(int col) const { return sqlite3_column_double(stmt_, col); }
std::string_view Statement::ColumnText(int col) const {
  const auto* text = sqlite3_column_text(stmt_, col);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text),
          static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}
std::optional<int64_t> Statement::ColumnOptionalInt64(int col) const {
  if (ColumnIsNull(col)) return std::nullopt;
  return ColumnInt64(col);
}
std::optional<double> Statement::ColumnOptionalDouble(int col) const {
  if (ColumnIsNull(col)) return std::nullopt;
  return ColumnDouble(col);
}
std::optional<std::string> Statement::ColumnOptionalString(int col) const {
  if (ColumnIsNull(col)) return std::nullopt;
  return ColumnString(col);
}

Database::~Database() {
  cache_.clear();  // statements first: sqlite3_close refuses while any is unfinalized
  if (db_ != nullptr) sqlite3_close(db_);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      cache_(std::move(other.cache_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    cache_.clear();
    if (db_ != nullptr) sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    cache_ = std::move(other.cache_);
  }
  return *this;
}

StoreResult<Database> Database::Open(const std::string& path, Mode mode) {
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE;
  switch (mode) {
    case Mode::kReadWriteCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case Mode::kReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case Mode::kReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      break;
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database db;
  db.db_ = raw;  // closed by ~Database even when the open failed
  db.path_ = path;
  if (rc != SQLITE_OK) {
    return SqliteError(rc, raw, "cannot open database " + path);
  }
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

Status Database::Execute(std::string_view sql, std::string_view what) {
  const std::string text(sql);  // sqlite3_exec wants a NUL-terminated string
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);  // the same text is in sqlite3_errmsg
  if (rc != SQLITE_OK) return SqliteError(sqlite3_extended_errcode(db_), db_, what);
  return OkStatus();
}

StoreResult<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return SqliteError(sqlite3_extended_errcode(db_), db_,
                       "preparing \"" + std::string(sql.substr(0, 60)) + "\"");
  }
  return Statement(db_, stmt);
}

StoreResult<ScopedStatement> Database::Cached(const char* sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    auto prepared = Prepare(sql);
    if (!prepared) return prepared.error();
    it = cache_.emplace(sql, std::make_unique<Statement>(std::move(prepared).value())).first;
  }
  return ScopedStatement(it->second.get());
}

StoreResult<int64_t> Database::QueryInt64(const char* sql, std::string_view what) {
  auto statement = Cached(sql);
  if (!statement) return statement.error();
  auto& st = *statement;
  switch (st->StepOnce()) {
    case Statement::Step::kRow:
      return st->ColumnInt64(0);
    case Statement::Step::kDone:
      return MakeStoreError(StoreErrorCode::kInternal, std::string(what) + ": no row");
    case Statement::Step::kError:
      break;
  }
  return st->Error(what);
}

void Database::SetBusyTimeout(int ms) { sqlite3_busy_timeout(db_, ms); }
bool Database::IsReadOnly() const { return sqlite3_db_readonly(db_, "main") == 1; }
int64_t Database::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
int Database::Changes() const { return sqlite3_changes(db_); }

Status Transaction::Begin(Kind kind) {
  auto st = db_.Cached(kind == Kind::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  if (!st) return st.error();
  auto status = (*st)->Run("beginning a transaction on " + db_.path());
  if (status) active_ = true;
  return status;
}

Status Transaction::Commit() {
  auto st = db_.Cached("COMMIT");
  if (!st) return st.error();
  auto status = (*st)->Run("committing to " + db_.path());
  // A failed COMMIT (SQLITE_BUSY, SQLITE_FULL) may leave the transaction open: Rollback() in the
  // destructor ends it either way.
  if (status) active_ = false;
  return status;
}

void Transaction::Rollback() {
  if (!active_) return;
  active_ = false;
  if (sqlite3_get_autocommit(db_.handle()) != 0) return;  // SQLite already rolled back
  auto st = db_.Cached("ROLLBACK");
  if (st) (void)(*st)->Run("rolling back");
}

}  // namespace droidlab::store
