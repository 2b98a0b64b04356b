// RowReader: one row of a pg::Result read by column name into a record's members, the first
// error kept (a missing column, a type the getter does not read) so that a record is read in
// straight lines and checked once. Internal to store/pg: the reads (reader.cpp) and the writes
// that read back an id share it.
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

class RowReader {
 public:
  RowReader(const Result& result, int row) : result_(result), row_(row) {}

  int64_t Int64(std::string_view column) { return Take(result_.Int64(row_, column)); }
  double Double(std::string_view column) { return Take(result_.Double(row_, column)); }
  std::string Text(std::string_view column) { return Take(result_.Text(row_, column)); }
  // BIGINT 0 / 1 columns (valid, warmup, enabled, is_app), as SQLite stores them.
  bool Flag(std::string_view column) { return Int64(column) != 0; }
  std::optional<int64_t> OptionalInt64(std::string_view column) {
    return Take(result_.OptionalInt64(row_, column));
  }
  std::optional<double> OptionalDouble(std::string_view column) {
    return Take(result_.OptionalDouble(row_, column));
  }
  std::optional<std::string> OptionalText(std::string_view column) {
    return Take(result_.OptionalText(row_, column));
  }
  std::optional<bool> OptionalFlag(std::string_view column) {
    auto value = OptionalInt64(column);
    return value ? std::optional<bool>(*value != 0) : std::nullopt;
  }

  // A member by its type, as ../statements.h's ReadColumn reads SQLite's.
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

  // OK, or the first error met, `what` in front.
  Status status(std::string_view what) const {
    if (!error_) return OkStatus();
    return MakeStoreError(error_->code, std::string(what) + ": " + error_->message);
  }

 private:
  template <class T>
  T Take(StoreResult<T> value) {
    if (value) return std::move(value).value();
    if (!error_) error_ = value.error();
    return T{};
  }

  const Result& result_;
  int row_;
  std::optional<StoreError> error_;
};

// Every row of `result` read with `read(RowReader&)`, or the first error.
template <class T, class Read>
StoreResult<std::vector<T>> ReadRows(const Result& result, Read read, std::string_view what) {
  std::vector<T> rows;
  rows.reserve(static_cast<size_t>(result.rows()));
  for (int row = 0; row < result.rows(); ++row) {
    RowReader reader(result, row);
    rows.push_back(read(reader));
    if (auto s = reader.status(what); !s) return s.error();
  }
  return rows;
}

}  // namespace droidlab::store::pg
