#include "store/pg/connection.h"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <utility>

namespace droidlab::store::pg {

namespace {

// pg_type.h's OIDs (server headers are not in libpq-dev); stable since PostgreSQL 7.
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kNameOid = 19;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kTextOid = 25;
constexpr Oid kJsonOid = 114;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kBpcharOid = 1042;
constexpr Oid kVarcharOid = 1043;
constexpr Oid kJsonbOid = 3802;

// A COPY's data goes out in blocks of this size. The writer's COPY is a batch of ~1,000 rows
// (~200 KB of looper rows), and Finish waits for the server to have taken them all: smaller
// blocks start the server sooner and leave it less to do after the last one. 16 KiB against
// 64 KiB: the store's ingest 166-204 k rows/s against 144-165 k (bench/pg_store_bench.cpp).
constexpr size_t kCopyBlock = 16 * 1024;

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The passwords a URL carries: the user part's ("user:secret@") and ?password=secret's.
std::vector<std::string> PasswordsIn(std::string_view url) {
  std::vector<std::string> found;
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    const std::string_view rest = url.substr(scheme + 3);
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?"));
    const size_t at = authority.rfind('@');
    if (at != std::string_view::npos) {
      const std::string_view user_info = authority.substr(0, at);
      const size_t colon = user_info.find(':');
      if (colon != std::string_view::npos && colon + 1 < user_info.size()) {
        found.emplace_back(user_info.substr(colon + 1));
      }
    }
  }
  const size_t query = url.find('?');
  if (query != std::string_view::npos) {
    std::string_view params = url.substr(query + 1);
    while (!params.empty()) {
      const size_t amp = params.find('&');
      const std::string_view param = params.substr(0, amp);
      if (StartsWith(param, "password=") && param.size() > 9) found.emplace_back(param.substr(9));
      if (amp == std::string_view::npos) break;
      params.remove_prefix(amp + 1);
    }
  }
  return found;
}

// `text` with every password of `url` replaced by "***".
std::string Scrub(std::string text, std::string_view url) {
  for (const std::string& password : PasswordsIn(url)) {
    for (size_t at = text.find(password); at != std::string::npos;
         at = text.find(password, at + 3)) {
      text.replace(at, password.size(), "***");
    }
  }
  return text;
}

// libpq's messages end in '\n' and may run over lines (DETAIL, HINT): one line for a log.
std::string OneLine(std::string_view message) {
  std::string line;
  for (char c : message) {
    if (c == '\n') {
      line += "; ";
    } else {
      line += c;
    }
  }
  while (line.size() >= 2 && line.ends_with("; ")) line.resize(line.size() - 2);
  return line;
}

StoreErrorCode CodeOfSqlState(std::string_view state) {
  if (state == "53100") return StoreErrorCode::kDiskFull;            // disk_full
  if (StartsWith(state, "23")) return StoreErrorCode::kConstraint;   // integrity
  if (StartsWith(state, "08")) return StoreErrorCode::kUnavailable;  // connection
  if (state == "57P01" || state == "57P02" || state == "57P03") {    // shutdown, starting
    return StoreErrorCode::kUnavailable;
  }
  if (state == "55P03" || state == "40P01" || state == "40001") {  // lock, deadlock,
    return StoreErrorCode::kLocked;                                // serialization
  }
  if (state == "25006") return StoreErrorCode::kReadOnly;  // read-only txn
  if (StartsWith(state, "28") || state == "3D000") {       // auth, no database
    return StoreErrorCode::kCannotOpen;
  }
  if (StartsWith(state, "22")) return StoreErrorCode::kInvalidArgument;  // data exception
  if (StartsWith(state, "58") || StartsWith(state, "53")) return StoreErrorCode::kIo;
  if (StartsWith(state, "XX")) return StoreErrorCode::kCorrupt;  // internal, corrupt
  return StoreErrorCode::kInternal;
}

void DropNotice(void* /*arg*/, const char* message) {
  spdlog::debug("postgresql: {}", OneLine(message));
}

template <class T>
std::string BigEndian(T value) {
  auto bits = std::bit_cast<std::array<char, sizeof(T)>>(value);
  if constexpr (std::endian::native == std::endian::little) {
    std::array<char, sizeof(T)> swapped{};
    for (size_t i = 0; i < sizeof(T); ++i) swapped[i] = bits[sizeof(T) - 1 - i];
    bits = swapped;
  }
  return std::string(bits.data(), bits.size());
}

template <class T>
T FromBigEndian(std::string_view bytes) {
  std::array<char, sizeof(T)> bits{};
  for (size_t i = 0; i < sizeof(T); ++i) {
    bits[i] = std::endian::native == std::endian::little ? bytes[sizeof(T) - 1 - i] : bytes[i];
  }
  return std::bit_cast<T>(bits);
}

}  // namespace

// ---- URLs ----------------------------------------------------------------------------------

bool IsPostgresUrl(std::string_view text) {
  return StartsWith(text, "postgresql://") || StartsWith(text, "postgres://");
}

std::string RedactUrl(std::string_view url) { return Scrub(std::string(url), url); }

Status ValidateUrl(std::string_view url) {
  if (!IsPostgresUrl(url)) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "\"" + RedactUrl(url) +
                              "\" is not a PostgreSQL URL: write postgresql://USER@HOST:PORT/"
                              "DATABASE (or postgres://...)");
  }
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(std::string(url).c_str(), &error);
  if (options == nullptr) {
    std::string why = error != nullptr ? OneLine(error) : "out of memory";
    PQfreemem(error);
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "invalid PostgreSQL URL " + RedactUrl(url) + ": " + Scrub(why, url));
  }
  PQconninfoFree(options);
  return OkStatus();
}

// ---- Params --------------------------------------------------------------------------------

void Params::Add(unsigned int type, std::string bytes, int format) {
  types_.push_back(type);
  values_.push_back(std::move(bytes));
  null_.push_back(false);
  formats_.push_back(format);
}

Params& Params::Null() {
  Add(0, {}, 0);
  null_.back() = true;
  return *this;
}
Params& Params::Int64(int64_t value) {
  Add(kInt8Oid, BigEndian(value), 1);
  return *this;
}
Params& Params::Double(double value) {
  Add(kFloat8Oid, BigEndian(value), 1);
  return *this;
}
Params& Params::Bool(bool value) {
  Add(kBoolOid, std::string(1, value ? '\1' : '\0'), 1);
  return *this;
}
Params& Params::Text(std::string_view value) {
  Add(0, std::string(value), 0);
  return *this;
}
Params& Params::Bytes(std::string_view value) {
  Add(kByteaOid, std::string(value), 1);
  return *this;
}

// ---- Result --------------------------------------------------------------------------------

Result::Result(pg_result* result) : result_(result) {
  if (result_ == nullptr) return;
  rows_ = PQntuples(result_);
  columns_ = PQnfields(result_);
  // Each column's type and format once, not at every cell: a series of 10,000 points is
  // 130,000 cells, and libpq's accessors were most of the client's time reading it.
  if (rows_ > 0) {
    shapes_.reserve(static_cast<size_t>(columns_));
    for (int col = 0; col < columns_; ++col) {
      shapes_.push_back(ColumnShape{PQftype(result_, col), PQfformat(result_, col) == 1});
    }
  }
}
Result::~Result() {
  if (result_ != nullptr) PQclear(result_);
}
Result::Result(Result&& other) noexcept
    : result_(std::exchange(other.result_, nullptr)),
      rows_(std::exchange(other.rows_, 0)),
      columns_(std::exchange(other.columns_, 0)),
      shapes_(std::exchange(other.shapes_, {})) {}
Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
    rows_ = std::exchange(other.rows_, 0);
    columns_ = std::exchange(other.columns_, 0);
    shapes_ = std::exchange(other.shapes_, {});
  }
  return *this;
}

int Result::rows() const { return rows_; }
int Result::columns() const { return columns_; }

StoreResult<int> Result::Column(std::string_view name) const {
  for (int col = 0; col < columns(); ++col) {
    if (name == PQfname(result_, col)) return col;
  }
  return MakeStoreError(StoreErrorCode::kInvalidArgument,
                        "the result has no column \"" + std::string(name) + "\"");
}

std::string Result::ColumnName(int col) const {
  return col >= 0 && col < columns() ? PQfname(result_, col) : "";
}

int64_t Result::affected() const {
  if (result_ == nullptr) return 0;
  const char* tuples = PQcmdTuples(result_);
  int64_t count = 0;
  std::from_chars(tuples, tuples + std::strlen(tuples), count);
  return count;
}

bool Result::IsNull(int row, int col) const {
  return row < 0 || row >= rows() || col < 0 || col >= columns() ||
         PQgetisnull(result_, row, col) != 0;
}

StoreResult<std::optional<std::string_view>> Result::CellOrNull(
    int row, int col, std::span<const unsigned int> types, std::string_view wanted) const {
  if (col < 0 || col >= columns()) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "the result has no column " + std::to_string(col));
  }
  if (row < 0 || row >= rows()) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument, "the result has no row " +
                                                                std::to_string(row) + " (it has " +
                                                                std::to_string(rows()) + ")");
  }
  // NULL before the type, as the optional getters always read it: a bare NULL in a select list
  // is of type text whatever the record's member is.
  if (PQgetisnull(result_, row, col) != 0) return std::optional<std::string_view>();
  const ColumnShape& shape = shapes_[static_cast<size_t>(col)];
  bool fits = false;
  for (unsigned int t : types) fits = fits || t == shape.type;
  // A simple query's rows come in the text format (Connection::ExecuteForResult): the same
  // bytes as the binary one for text, not for the other types.
  if (!fits || (!shape.binary && shape.type != kTextOid)) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "column \"" + ColumnName(col) + "\" is of type oid " +
                              std::to_string(shape.type) + ", not " + std::string(wanted));
  }
  return std::optional<std::string_view>(std::in_place, PQgetvalue(result_, row, col),
                                         static_cast<size_t>(PQgetlength(result_, row, col)));
}

StoreResult<std::string_view> Result::Cell(int row, int col, std::span<const unsigned int> types,
                                           std::string_view wanted) const {
  auto cell = CellOrNull(row, col, types, wanted);
  if (!cell) return cell.error();
  if (!*cell) {
    return MakeStoreError(
        StoreErrorCode::kInvalidArgument,
        "column \"" + ColumnName(col) + "\" is NULL in row " + std::to_string(row));
  }
  return **cell;
}

namespace {

constexpr std::array<unsigned int, 3> kIntegerTypes{kInt2Oid, kInt4Oid, kInt8Oid};
constexpr std::array<unsigned int, 2> kFloatTypes{kFloat4Oid, kFloat8Oid};
constexpr std::array<unsigned int, 6> kTextTypes{kTextOid, kVarcharOid, kBpcharOid,
                                                 kNameOid, kJsonOid,    kJsonbOid};

}  // namespace

StoreResult<int64_t> Result::DecodeInt64(std::string_view cell, int col) const {
  switch (cell.size()) {
    case 2:
      return FromBigEndian<int16_t>(cell);
    case 4:
      return FromBigEndian<int32_t>(cell);
    case 8:
      return FromBigEndian<int64_t>(cell);
    default:
      return MakeStoreError(StoreErrorCode::kInternal, "column \"" + ColumnName(col) +
                                                           "\": an integer of " +
                                                           std::to_string(cell.size()) + " bytes");
  }
}

StoreResult<double> Result::DecodeDouble(std::string_view cell, int col) const {
  if (cell.size() == 4) return static_cast<double>(FromBigEndian<float>(cell));
  if (cell.size() == 8) return FromBigEndian<double>(cell);
  return MakeStoreError(
      StoreErrorCode::kInternal,
      "column \"" + ColumnName(col) + "\": a float of " + std::to_string(cell.size()) + " bytes");
}

StoreResult<std::string> Result::DecodeText(std::string_view cell, int col) const {
  // jsonb's binary form is a version byte (1) and the document's text.
  if (shapes_[static_cast<size_t>(col)].type == kJsonbOid) {
    if (cell.empty() || cell[0] != '\1') {
      return MakeStoreError(StoreErrorCode::kInternal,
                            "column \"" + ColumnName(col) + "\": unknown jsonb version");
    }
    return std::string(cell.substr(1));
  }
  return std::string(cell);
}

StoreResult<int64_t> Result::Int64(int row, int col) const {
  auto cell = Cell(row, col, kIntegerTypes, "an integer");
  if (!cell) return cell.error();
  return DecodeInt64(*cell, col);
}

StoreResult<double> Result::Double(int row, int col) const {
  auto cell = Cell(row, col, kFloatTypes, "real or double precision");
  if (!cell) return cell.error();
  return DecodeDouble(*cell, col);
}

StoreResult<bool> Result::Bool(int row, int col) const {
  static constexpr std::array<unsigned int, 1> kTypes{kBoolOid};
  auto cell = Cell(row, col, kTypes, "boolean");
  if (!cell) return cell.error();
  return !cell->empty() && (*cell)[0] != '\0';
}

StoreResult<std::string> Result::Text(int row, int col) const {
  auto cell = Cell(row, col, kTextTypes, "text");
  if (!cell) return cell.error();
  return DecodeText(*cell, col);
}

StoreResult<std::string> Result::Bytes(int row, int col) const {
  static constexpr std::array<unsigned int, 1> kTypes{kByteaOid};
  auto cell = Cell(row, col, kTypes, "bytea");
  if (!cell) return cell.error();
  return std::string(*cell);
}

StoreResult<std::optional<int64_t>> Result::OptionalInt64(int row, int col) const {
  auto cell = CellOrNull(row, col, kIntegerTypes, "an integer");
  if (!cell) return cell.error();
  if (!*cell) return std::optional<int64_t>();
  auto value = DecodeInt64(**cell, col);
  if (!value) return value.error();
  return std::optional<int64_t>(*value);
}

StoreResult<std::optional<double>> Result::OptionalDouble(int row, int col) const {
  auto cell = CellOrNull(row, col, kFloatTypes, "real or double precision");
  if (!cell) return cell.error();
  if (!*cell) return std::optional<double>();
  auto value = DecodeDouble(**cell, col);
  if (!value) return value.error();
  return std::optional<double>(*value);
}

StoreResult<std::optional<std::string>> Result::OptionalText(int row, int col) const {
  auto cell = CellOrNull(row, col, kTextTypes, "text");
  if (!cell) return cell.error();
  if (!*cell) return std::optional<std::string>();
  auto value = DecodeText(**cell, col);
  if (!value) return value.error();
  return std::optional<std::string>(std::move(value).value());
}

#define DROIDLAB_BY_NAME(Type, Name)                                     \
  StoreResult<Type> Result::Name(int row, std::string_view name) const { \
    auto col = Column(name);                                             \
    if (!col) return col.error();                                        \
    return Name(row, *col);                                              \
  }
DROIDLAB_BY_NAME(int64_t, Int64)
DROIDLAB_BY_NAME(double, Double)
DROIDLAB_BY_NAME(bool, Bool)
DROIDLAB_BY_NAME(std::string, Text)
DROIDLAB_BY_NAME(std::string, Bytes)
DROIDLAB_BY_NAME(std::optional<int64_t>, OptionalInt64)
DROIDLAB_BY_NAME(std::optional<double>, OptionalDouble)
DROIDLAB_BY_NAME(std::optional<std::string>, OptionalText)
#undef DROIDLAB_BY_NAME

bool Result::IsNull(int row, std::string_view name) const {
  auto col = Column(name);
  return !col || IsNull(row, *col);
}

// ---- Connection ----------------------------------------------------------------------------

Connection::~Connection() {
  if (conn_ != nullptr) PQfinish(conn_);
}
Connection::Connection(Connection&& other) noexcept
    : conn_(std::exchange(other.conn_, nullptr)),
      redacted_url_(std::move(other.redacted_url_)),
      deferred_(std::exchange(other.deferred_, {})) {}
Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = std::exchange(other.conn_, nullptr);
    redacted_url_ = std::move(other.redacted_url_);
    deferred_ = std::exchange(other.deferred_, {});
  }
  return *this;
}

StoreResult<Connection> Connection::Open(std::string_view url, const ConnectOptions& options) {
  if (auto valid = ValidateUrl(url); !valid) return valid.error();
  const std::string url_string(url);
  const std::string timeout = std::to_string(options.connect_timeout_s);
  // Defaults first: with expand_dbname the URL (the dbname value) is expanded in its place, and
  // a later value of the same keyword wins, so the URL's own settings override these.
  const std::array<const char*, 4> keywords{"connect_timeout", "application_name", "dbname",
                                            nullptr};
  const std::array<const char*, 4> values{timeout.c_str(), options.application_name.c_str(),
                                          url_string.c_str(), nullptr};
  Connection connection;
  connection.redacted_url_ = RedactUrl(url);
  connection.conn_ = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  if (connection.conn_ == nullptr) {
    return MakeStoreError(StoreErrorCode::kInternal, "libpq: out of memory");
  }
  if (PQstatus(connection.conn_) != CONNECTION_OK) {
    const std::string why = Scrub(OneLine(PQerrorMessage(connection.conn_)), url);
    // No SQLSTATE comes with a failed connection. A server that answered and refused (password,
    // unknown user or database: "FATAL:") is not worth retrying; nothing answering, a timeout,
    // or a server starting up or shutting down is (kUnavailable).
    const bool refused = why.find("FATAL:") != std::string::npos &&
                         why.find("starting up") == std::string::npos &&
                         why.find("shutting down") == std::string::npos;
    const bool needs_password = PQconnectionNeedsPassword(connection.conn_) != 0;
    return MakeStoreError(
        refused || needs_password ? StoreErrorCode::kCannotOpen : StoreErrorCode::kUnavailable,
        "cannot connect to PostgreSQL at " + connection.redacted_url_ + ": " + why);
  }
  PQsetNoticeProcessor(connection.conn_, DropNotice, nullptr);
  return connection;
}

bool Connection::ok() const { return conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK; }

StoreError Connection::Error(pg_result* result, std::string_view what) const {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string message = result != nullptr && *PQresultErrorMessage(result) != '\0'
                            ? OneLine(PQresultErrorMessage(result))
                            : (conn_ != nullptr ? OneLine(PQerrorMessage(conn_)) : "not connected");
  StoreErrorCode code = StoreErrorCode::kInternal;
  if (!ok()) {
    code = StoreErrorCode::kUnavailable;
    message += " (connection to " + redacted_url_ + " lost)";
  } else if (state != nullptr) {
    code = CodeOfSqlState(state);
    message += " [SQLSTATE " + std::string(state) + "]";
  }
  return MakeStoreError(code, std::string(what) + ": " + message);
}

void Connection::Defer(std::string_view sql) {
  deferred_ += sql;
  deferred_ += "; ";
}

bool Connection::TakeBackDeferred(std::string_view sql) {
  const std::string last = std::string(sql) + "; ";
  if (deferred_.size() < last.size() ||
      deferred_.compare(deferred_.size() - last.size(), last.size(), last) != 0) {
    return false;
  }
  // A whole statement, not the end of one ("RELEASE SAVEPOINT task" ends in "SAVEPOINT task").
  const size_t start = deferred_.size() - last.size();
  if (start != 0 && deferred_.compare(start - 2, 2, "; ") != 0) return false;
  deferred_.resize(deferred_.size() - last.size());
  return true;
}

std::string Connection::TakeDeferredWith(std::string_view sql) {
  std::string text = std::move(deferred_);
  deferred_.clear();
  text += sql;
  return text;
}

StoreResult<Result> Connection::ExecuteForResult(std::string_view sql, std::string_view what) {
  if (conn_ == nullptr) return Error(nullptr, what);
  // A simple query of several statements: PQexec returns the last result, or the failed
  // statement's (the server skips the rest of the message after an error).
  Result result(PQexec(conn_, TakeDeferredWith(sql).c_str()));
  const ExecStatusType status = PQresultStatus(result.result_);
  if (result.result_ == nullptr || (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)) {
    return Error(result.result_, what);
  }
  return result;
}

Status Connection::Execute(std::string_view sql, std::string_view what) {
  auto result = ExecuteForResult(sql, what);
  if (!result) return result.error();
  return OkStatus();
}

StoreResult<Result> Connection::Query(std::string_view sql, const Params& params,
                                      std::string_view what) {
  if (conn_ == nullptr) return Error(nullptr, what);
  // The extended protocol carries one statement: what is deferred goes first, on its own.
  if (!deferred_.empty()) {
    if (Status sent = Execute("", what); !sent) return sent.error();
  }
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.values_.size());
  lengths.reserve(params.values_.size());
  for (size_t i = 0; i < params.values_.size(); ++i) {
    values.push_back(params.null_[i] ? nullptr : params.values_[i].data());
    lengths.push_back(static_cast<int>(params.values_[i].size()));
  }
  Result result(PQexecParams(conn_, std::string(sql).c_str(), params.size(), params.types_.data(),
                             values.data(), lengths.data(), params.formats_.data(),
                             /*resultFormat=*/1));
  const ExecStatusType status = PQresultStatus(result.result_);
  if (result.result_ == nullptr || (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)) {
    return Error(result.result_, what);
  }
  return result;
}

StoreResult<CopyIn> Connection::BeginCopy(std::string_view table,
                                          std::span<const std::string> columns,
                                          std::string_view what) {
  if (conn_ == nullptr) return Error(nullptr, what);
  // Our own table and column names, never input.
  std::string sql = "COPY " + std::string(table) + " (";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += columns[i];
  }
  sql += ") FROM STDIN";
  // PQexec stops at the COPY's result: anything deferred ran before it, or failed instead.
  Result result(PQexec(conn_, TakeDeferredWith(sql).c_str()));
  if (PQresultStatus(result.result_) != PGRES_COPY_IN) return Error(result.result_, what);
  return CopyIn(this, std::string(what));
}

// ---- CopyIn --------------------------------------------------------------------------------

CopyIn::CopyIn(CopyIn&& other) noexcept
    : connection_(other.connection_),
      what_(std::move(other.what_)),
      buffer_(std::move(other.buffer_)),
      first_field_(other.first_field_),
      done_(std::exchange(other.done_, true)) {}

CopyIn::~CopyIn() { Abandon(); }

void CopyIn::Separator() {
  if (!first_field_) buffer_ += '\t';
  first_field_ = false;
}

CopyIn& CopyIn::Null() {
  Separator();
  buffer_ += "\\N";
  return *this;
}

CopyIn& CopyIn::Int64(int64_t value) {
  Separator();
  std::array<char, 24> digits{};
  auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
  buffer_.append(digits.data(), end);
  return *this;
}

CopyIn& CopyIn::Double(double value) {
  Separator();
  // Shortest form that reads back to the same double; "inf", "-inf" and "nan" are accepted by
  // float8in as they are.
  std::array<char, 32> digits{};
  auto end = std::to_chars(digits.data(), digits.data() + digits.size(), value).ptr;
  buffer_.append(digits.data(), end);
  return *this;
}

CopyIn& CopyIn::Bool(bool value) {
  Separator();
  buffer_ += value ? 't' : 'f';
  return *this;
}

CopyIn& CopyIn::Text(std::string_view value) {
  Separator();
  // COPY's text format: backslash, tab, newline and carriage return escaped; nothing else. The
  // runs between them are appended whole: a character at a time (a capacity check per byte) was
  // the writer thread's largest cost on looper rows (bench/pg_store_bench.cpp, perf).
  const char* run = value.data();
  const char* const end = value.data() + value.size();
  for (const char* p = run; p != end; ++p) {
    const char c = *p;
    if (c != '\\' && c != '\t' && c != '\n' && c != '\r') continue;
    buffer_.append(run, p);
    buffer_ += '\\';
    buffer_ += c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
    run = p + 1;
  }
  buffer_.append(run, end);
  return *this;
}

CopyIn& CopyIn::Bytes(std::string_view value) {
  Separator();
  // bytea's hex input, "\x0a1b...", its backslash escaped for COPY.
  static constexpr char kHex[] = "0123456789abcdef";
  buffer_ += "\\\\x";
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    buffer_ += kHex[byte >> 4];
    buffer_ += kHex[byte & 0xf];
  }
  return *this;
}

Status CopyIn::EndRow() {
  buffer_ += '\n';
  first_field_ = true;
  if (buffer_.size() >= kCopyBlock) return Send();
  return OkStatus();
}

Status CopyIn::Send() {
  if (buffer_.empty()) return OkStatus();
  if (PQputCopyData(connection_->handle(), buffer_.data(), static_cast<int>(buffer_.size())) != 1) {
    return connection_->Error(nullptr, what_);
  }
  buffer_.clear();
  return OkStatus();
}

StoreResult<int64_t> CopyIn::Finish() {
  if (done_)
    return MakeStoreError(StoreErrorCode::kInvalidArgument, what_ + ": COPY already ended");
  done_ = true;
  pg_conn* conn = connection_->handle();
  Status sent = Send();
  if (!sent) {
    PQputCopyEnd(conn, "droidlab could not send a block");
  } else if (PQputCopyEnd(conn, nullptr) != 1) {
    sent = connection_->Error(nullptr, what_);
  }
  // The COPY's own result, then the end of the results.
  std::optional<StoreError> failed;
  if (!sent) failed = sent.error();
  int64_t rows = 0;
  while (pg_result* raw = PQgetResult(conn)) {
    Result result(raw);
    if (PQresultStatus(raw) == PGRES_COMMAND_OK) {
      rows = result.affected();
    } else if (!failed) {
      failed = connection_->Error(raw, what_);
    }
  }
  if (failed) return *failed;
  return rows;
}

void CopyIn::Abandon() {
  if (done_) return;
  done_ = true;
  pg_conn* conn = connection_->handle();
  PQputCopyEnd(conn, "abandoned by droidlab");
  while (pg_result* raw = PQgetResult(conn)) PQclear(raw);
}

// ---- Transaction ---------------------------------------------------------------------------

Status Transaction::Begin() {
  if (auto s = connection_.Execute("BEGIN", "beginning a transaction"); !s) return s;
  active_ = true;
  return OkStatus();
}

StoreResult<Result> Transaction::BeginWith(std::string_view sql, std::string_view what) {
  auto result = connection_.ExecuteForResult("BEGIN; " + std::string(sql), what);
  const PGTransactionStatusType status = PQtransactionStatus(connection_.handle());
  active_ = status == PQTRANS_INTRANS || status == PQTRANS_INERROR;
  return result;
}

Status Transaction::Commit() {
  if (!active_) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument, "commit without a transaction");
  }
  active_ = false;
  // With what is deferred (the last task's RELEASE) in the same round trip.
  auto result = connection_.ExecuteForResult("COMMIT", "committing");
  if (!result) {
    // A deferred statement that failed kept the COMMIT from running: the transaction is still
    // open (aborted) on the server, and the next BEGIN must not find it.
    const PGTransactionStatusType status = PQtransactionStatus(connection_.handle());
    if (status == PQTRANS_INTRANS || status == PQTRANS_INERROR) {
      (void)connection_.Execute("ROLLBACK", "rolling back");
    }
    return result.error();
  }
  // COMMIT of a transaction a statement has already failed succeeds as "ROLLBACK".
  if (std::string_view(PQcmdStatus(result->result_)) == "ROLLBACK") {
    return MakeStoreError(StoreErrorCode::kInternal,
                          "committing: the transaction had failed and was rolled back");
  }
  return OkStatus();
}

void Transaction::Rollback() {
  // What is deferred belonged to this transaction.
  connection_.DropDeferred();
  if (!active_) return;
  active_ = false;
  // A lost connection has rolled the transaction back on the server already.
  if (connection_.ok()) (void)connection_.Execute("ROLLBACK", "rolling back");
}

}  // namespace droidlab::store::pg
