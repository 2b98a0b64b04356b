// ResultRow: one row of a pg::Result read into a record's members — column after column by the
// member's type (Get, Next), or by column name (Int64("id"), Read("id", run.id)) — keeping the
// first error (a missing column, a column of an unexpected type, a NULL where the record has no
// optional), so a record is read in straight lines and checked once. What Statement::Column* is
// to the SQLite readers, with errors kept rather than coerced: a query that returns a type the
// record does not expect fails loudly. Internal to store/pg: the reads and the writes that read
// back an id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/error.h"
#include "store/pg/connection.h"

namespace droidlab::store::pg {

class ResultRow {
 public:
  ResultRow(const Result& result, int row) : result_(result), row_(row) {}

  void Get(int64_t& value) { Take(result_.Int64(row_, column_++), value); }
  // The 0/1 BIGINT columns both schemas keep booleans in.
  void Get(bool& value) {
    int64_t stored = 0;
    Get(stored);
    value = stored != 0;
  }
  void Get(double& value) { Take(result_.Double(row_, column_++), value); }
  void Get(std::string& value) { Take(result_.Text(row_, column_++), value); }
  void Get(std::optional<int64_t>& value) { Take(result_.OptionalInt64(row_, column_++), value); }
  void Get(std::optional<double>& value) { Take(result_.OptionalDouble(row_, column_++), value); }
  void Get(std::optional<std::string>& value) {
    Take(result_.OptionalText(row_, column_++), value);
  }

  // The next column as a T.
  template <class T>
  T Next() {
    T value{};
    Get(value);
    return value;
  }

  // By column name.
  int64_t Int64(std::string_view column) { return Value(result_.Int64(row_, column)); }
  double Double(std::string_view column) { return Value(result_.Double(row_, column)); }
  std::string Text(std::string_view column) { return Value(result_.Text(row_, column)); }
  // BIGINT 0 / 1 columns (valid, warmup, enabled, is_app), as SQLite stores them.
  bool Flag(std::string_view column) { return Int64(column) != 0; }
  std::optional<int64_t> OptionalInt64(std::string_view column) {
    return Value(result_.OptionalInt64(row_, column));
  }
  std::optional<double> OptionalDouble(std::string_view column) {
    return Value(result_.OptionalDouble(row_, column));
  }
  std::optional<std::string> OptionalText(std::string_view column) {
    return Value(result_.OptionalText(row_, column));
  }
  std::optional<bool> OptionalFlag(std::string_view column) {
    auto value = OptionalInt64(column);
    return value ? std::optional<bool>(*value != 0) : std::nullopt;
  }
  // A member by its type and column name, as ../statements.h's ReadColumn reads SQLite's.
  void Read(std::string_view column, int64_t& value) { value = Int64(column); }
  void Read(std::string_view column, bool& value) { value = Flag(column); }
  void Read(std::string_view column, std::string& value) { value = Text(column); }
  void Read(std::string_view column, std::optional<int64_t>& value) {
    value = OptionalInt64(column);
  }
  void Read(std::string_view column, std::optional<bool>& value) { value = OptionalFlag(column); }
  void Read(std::string_view column, std::optional<double>& value) {
    value = OptionalDouble(column);
  }
  void Read(std::string_view column, std::optional<std::string>& value) {
    value = OptionalText(column);
  }

  // OkStatus, or the first column's error, naming `what` (the query).
  Status status(std::string_view what) const {
    if (!error_) return OkStatus();
    return MakeStoreError(error_->code, std::string(what) + ": " + error_->message);
  }

 private:
  template <class T>
  T Value(StoreResult<T> read) {
    if (read) return std::move(read).value();
    if (!error_) error_ = read.error();
    return T{};
  }
  template <class T>
  void Take(StoreResult<T> read, T& value) {
    if (read) {
      value = std::move(read).value();
    } else if (!error_) {
      error_ = read.error();
    }
  }

  const Result& result_;
  int row_;
  int column_ = 0;
  std::optional<StoreError> error_;
};

// Each row of `result` made into a T by `read(ResultRow&)`; the first column error fails all.
template <class T, class ReadRow>
StoreResult<std::vector<T>> CollectRows(const Result& result, ReadRow read, std::string_view what) {
  std::vector<T> rows;
  rows.reserve(static_cast<size_t>(result.rows()));
  for (int r = 0; r < result.rows(); ++r) {
    ResultRow row(result, r);
    rows.push_back(read(row));
    if (Status read_ok = row.status(what); !read_ok) return read_ok.error();
  }
  return rows;
}

// The count a `SELECT count(*) ...` gives.
inline StoreResult<int64_t> CountOf(const Result& result, std::string_view what) {
  ResultRow row(result, 0);
  const auto count = row.Next<int64_t>();
  if (Status read_ok = row.status(what); !read_ok) return read_ok.error();
  return count;
}

}  // namespace droidlab::store::pg
