// RAII handles over libpq for the PostgreSQL store (issue 17 §1): Connection (one PGconn, opened
// from a postgresql:// URL), Params (a statement's parameters, bound in binary), Result (one
// PGresult, read by column name and type), Transaction (rolls back unless committed) and CopyIn
// (COPY ... FROM STDIN, the batched write). Internal to store/: nothing outside store/ includes
// this header, and libpq-fe.h stays in store/pg's .cpp files.
//
// Every error is a StoreError (store/error.h) mapped from the SQLSTATE: a broken key is
// kConstraint, a server that cannot be reached or a connection lost is kUnavailable, a full
// disk kDiskFull, and so on (store/pg/README.md's table). A URL's password never appears in a
// message: URLs are printed through RedactUrl.
//
// Threading: a Connection and what it hands out are used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "store/error.h"

struct pg_conn;
struct pg_result;

namespace droidlab::store::pg {

// "postgresql://" or "postgres://": the --db values that name a PostgreSQL database (anything
// else is a SQLite path).
bool IsPostgresUrl(std::string_view text);

// The URL with its password, in the user part or as ?password=, replaced by "***": the only
// form in which a URL reaches a log line or an error message.
std::string RedactUrl(std::string_view url);

// kInvalidArgument unless `url` is a postgresql:// (or postgres://) URL libpq can parse; the
// message says what is wrong and shows the URL redacted.
Status ValidateUrl(std::string_view url);

// A statement's parameters, $1, $2, ... in the order added. Integers, doubles, booleans and
// bytes go in binary (exact, and bytes need no escaping); text goes as text with its type left
// to the server, so that one text parameter fills a TEXT or a JSONB column alike.
namespace detail {

// A value or NULL into `to` (Params or CopyIn), by its type: bool, floating point, integral, text.
template <class To, class T>
To& AddOptional(To& to, const std::optional<T>& value) {
  if (!value) return to.Null();
  if constexpr (std::is_same_v<T, bool>) {
    return to.Bool(*value);
  } else if constexpr (std::is_floating_point_v<T>) {
    return to.Double(*value);
  } else if constexpr (std::is_integral_v<T>) {
    return to.Int64(static_cast<int64_t>(*value));
  } else {
    return to.Text(*value);
  }
}

}  // namespace detail

class Params {
 public:
  Params& Null();
  Params& Int64(int64_t value);
  Params& Double(double value);
  Params& Bool(bool value);
  Params& Text(std::string_view value);
  Params& Bytes(std::string_view value);  // BYTEA
  template <class T>
  Params& Optional(const std::optional<T>& value) {
    return detail::AddOptional(*this, value);
  }

  int size() const { return static_cast<int>(values_.size()); }

 private:
  friend class Connection;
  void Add(unsigned int type, std::string bytes, int format);

  std::vector<unsigned int> types_;  // Oid; 0: the server infers it
  std::vector<std::string> values_;
  std::vector<bool> null_;
  std::vector<int> formats_;  // 0 text, 1 binary
};

// The rows of one query, in binary form, read by column name (or index) and type. A getter
// checks the column's type: an integer getter reads smallint, integer and bigint, Double reads
// real and double precision, Text reads text, varchar, name, json and jsonb; a mismatch, an
// unknown column or a row out of range is kInvalidArgument naming the column.
class Result {
 public:
  Result() = default;
  explicit Result(pg_result* result);
  ~Result();
  Result(Result&& other) noexcept;
  Result& operator=(Result&& other) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  int rows() const;
  int columns() const;
  // The column's index, or kInvalidArgument naming it.
  StoreResult<int> Column(std::string_view name) const;
  std::string ColumnName(int col) const;
  // Rows a command changed (INSERT, UPDATE, DELETE, COPY); 0 for others.
  int64_t affected() const;

  bool IsNull(int row, int col) const;
  StoreResult<int64_t> Int64(int row, int col) const;
  StoreResult<double> Double(int row, int col) const;
  StoreResult<bool> Bool(int row, int col) const;
  StoreResult<std::string> Text(int row, int col) const;
  StoreResult<std::string> Bytes(int row, int col) const;
  StoreResult<std::optional<int64_t>> OptionalInt64(int row, int col) const;
  StoreResult<std::optional<double>> OptionalDouble(int row, int col) const;
  StoreResult<std::optional<std::string>> OptionalText(int row, int col) const;

  // The same, by column name.
  bool IsNull(int row, std::string_view name) const;
  StoreResult<int64_t> Int64(int row, std::string_view name) const;
  StoreResult<double> Double(int row, std::string_view name) const;
  StoreResult<bool> Bool(int row, std::string_view name) const;
  StoreResult<std::string> Text(int row, std::string_view name) const;
  StoreResult<std::string> Bytes(int row, std::string_view name) const;
  StoreResult<std::optional<int64_t>> OptionalInt64(int row, std::string_view name) const;
  StoreResult<std::optional<double>> OptionalDouble(int row, std::string_view name) const;
  StoreResult<std::optional<std::string>> OptionalText(int row, std::string_view name) const;

 private:
  friend class Connection;
  friend class Transaction;
  // The cell's bytes, or nullopt for NULL, after checking row, column and that its type is one
  // of `types`; Cell: the same with NULL an error.
  StoreResult<std::optional<std::string_view>> CellOrNull(int row, int col,
                                                          std::span<const unsigned int> types,
                                                          std::string_view wanted) const;
  StoreResult<std::string_view> Cell(int row, int col, std::span<const unsigned int> types,
                                     std::string_view wanted) const;
  // A binary cell of column `col` as the getter's type.
  StoreResult<int64_t> DecodeInt64(std::string_view cell, int col) const;
  StoreResult<double> DecodeDouble(std::string_view cell, int col) const;
  StoreResult<std::string> DecodeText(std::string_view cell, int col) const;

  struct ColumnShape {
    unsigned int type;  // Oid
    bool binary;
  };

  pg_result* result_ = nullptr;
  int rows_ = 0;
  int columns_ = 0;
  std::vector<ColumnShape> shapes_;  // a column's type and format, when there are rows
};

class CopyIn;

struct ConnectOptions {
  int connect_timeout_s = 10;  // libpq's connect_timeout, unless the URL sets its own
  std::string application_name = "droidlab";
};

class Connection {
 public:
  Connection() = default;
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects to `url` (validated first). Errors: kInvalidArgument (not a PostgreSQL URL, or one
  // libpq cannot parse), kUnavailable (no server answers there), kCannotOpen (the server refused:
  // password, unknown database or user), each naming the URL redacted.
  static StoreResult<Connection> Open(std::string_view url, const ConnectOptions& options = {});

  // Runs one or more statements with no parameters and no rows wanted (migrations, SET ...).
  Status Execute(std::string_view sql, std::string_view what);
  // One statement with parameters; the rows come back in binary form.
  StoreResult<Result> Query(std::string_view sql, const Params& params, std::string_view what);
  StoreResult<Result> Query(std::string_view sql, std::string_view what) {
    return Query(sql, Params(), what);
  }
  // COPY table (columns...) FROM STDIN: rows are sent as they are built, in the text format.
  StoreResult<CopyIn> BeginCopy(std::string_view table, std::span<const std::string> columns,
                                std::string_view what);

  // Statements with no parameters and no rows wanted whose answer can wait: they are sent in
  // front of the next Execute, BeginCopy or Commit, in the same simple-query message, so that
  // the writer's SAVEPOINT and RELEASE cost no round trip of their own (a Query, whose
  // parameters need the extended protocol, sends them alone first). Run in order; when one
  // fails the server skips the rest and the next call returns that error.
  void Defer(std::string_view sql);
  // Takes back the last deferred statement if it is `sql` and still unsent (a savepoint whose
  // task sent nothing needs no RELEASE, nor itself); whether it did.
  bool TakeBackDeferred(std::string_view sql);
  // Forgets what is deferred (the transaction they belonged to is being rolled back or is gone).
  void DropDeferred() { deferred_.clear(); }
  // Statements with no parameters sent as one simple query after anything deferred; the last
  // one's result, in the text format (Result::Text reads a text column of it).
  StoreResult<Result> ExecuteForResult(std::string_view sql, std::string_view what);

  // False once libpq has seen the connection break.
  bool ok() const;
  // The URL this connection was opened with, password redacted.
  const std::string& redacted_url() const { return redacted_url_; }
  pg_conn* handle() const { return conn_; }

 private:
  friend class CopyIn;
  // The error of a failed call on this connection: from `result` when there is one (its
  // SQLSTATE), else from the connection's state (a broken connection is kUnavailable).
  StoreError Error(pg_result* result, std::string_view what) const;

  // What is deferred, and the sql to send: the deferred statements and then `sql`.
  std::string TakeDeferredWith(std::string_view sql);

  pg_conn* conn_ = nullptr;
  std::string redacted_url_;
  std::string deferred_;  // "stmt; stmt; " (Defer)
};

// COPY FROM STDIN in progress. Each row is its fields, then EndRow(); the data is sent in
// blocks of about 16 KiB. Finish() ends the COPY and returns the rows the server took; a CopyIn
// destroyed unfinished abandons the COPY (the server discards every row of it).
class CopyIn {
 public:
  CopyIn(CopyIn&& other) noexcept;
  CopyIn& operator=(CopyIn&&) = delete;
  CopyIn(const CopyIn&) = delete;
  CopyIn& operator=(const CopyIn&) = delete;
  ~CopyIn();

  CopyIn& Null();
  CopyIn& Int64(int64_t value);
  CopyIn& Double(double value);
  CopyIn& Bool(bool value);
  CopyIn& Text(std::string_view value);
  CopyIn& Bytes(std::string_view value);
  template <class T>
  CopyIn& Optional(const std::optional<T>& value) {
    return detail::AddOptional(*this, value);
  }
  Status EndRow();
  StoreResult<int64_t> Finish();

 private:
  friend class Connection;
  CopyIn(Connection* connection, std::string what)
      : connection_(connection), what_(std::move(what)) {}
  void Separator();
  Status Send();
  void Abandon();

  Connection* connection_;
  std::string what_;
  std::string buffer_;
  bool first_field_ = true;
  bool done_ = false;
};

// BEGIN ... COMMIT that rolls back unless Commit() was called and succeeded.
class Transaction {
 public:
  explicit Transaction(Connection& connection) : connection_(connection) {}
  ~Transaction() { Rollback(); }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status Begin();
  // BEGIN and `sql` in one round trip (statements with no parameters): the last one's result as
  // ExecuteForResult gives it. The transaction is open when BEGIN ran, even if `sql` failed.
  StoreResult<Result> BeginWith(std::string_view sql, std::string_view what);
  Status Commit();
  void Rollback();
  bool active() const { return active_; }

 private:
  Connection& connection_;
  bool active_ = false;
};

}  // namespace droidlab::store::pg
