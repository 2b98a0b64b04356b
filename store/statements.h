// What the store's SQL code shares over sqlite.h: running one cached statement, and binding and
// reading a record's member by its type (the column tables use these). Internal to store/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/error.h"
#include "store/sqlite.h"

namespace droidlab::store {

// Runs one cached statement with `bind` applied; the error names `what`.
template <class Bind>
Status RunCached(Database& db, const char* sql, Bind bind, std::string_view what) {
  auto st = db.Cached(sql);
  if (!st) return st.error();
  bind(**st);
  return (*st)->Run(what);
}

// Steps a cached statement that returns rows, `row` called on each; the error names `what`.
template <class Bind, class Row>
Status EachRow(Database& db, const char* sql, Bind bind, Row row, std::string_view what) {
  auto st = db.Cached(sql);
  if (!st) return st.error();
  bind(**st);
  for (;;) {
    switch ((*st)->StepOnce()) {
      case Statement::Step::kRow:
        row(**st);
        break;
      case Statement::Step::kDone:
        return OkStatus();
      case Statement::Step::kError:
        return (*st)->Error(what);
    }
  }
}

// kNotFound (naming `what`) when the last statement changed no row.
inline Status NotFoundUnlessChanged(Database& db, std::string_view what) {
  if (db.Changes() == 0) return MakeStoreError(StoreErrorCode::kNotFound, std::string(what));
  return OkStatus();
}

// A member as a parameter (1-based): NOT NULL types as they are, optionals NULL when absent.
inline void BindColumn(Statement& st, int index, int64_t value) { st.BindInt64(index, value); }
inline void BindColumn(Statement& st, int index, bool value) { st.BindBool(index, value); }
inline void BindColumn(Statement& st, int index, const std::string& value) {
  st.BindText(index, value);
}
template <class T>
void BindColumn(Statement& st, int index, const std::optional<T>& value) {
  st.BindOptional(index, value);
}

// A result column (0-based) into a member of its type.
inline void ReadColumn(const Statement& st, int col, int64_t& value) {
  value = st.ColumnInt64(col);
}
inline void ReadColumn(const Statement& st, int col, bool& value) {
  value = st.ColumnInt64(col) != 0;
}
inline void ReadColumn(const Statement& st, int col, std::string& value) {
  value = st.ColumnString(col);
}
inline void ReadColumn(const Statement& st, int col, std::optional<int64_t>& value) {
  value = st.ColumnOptionalInt64(col);
}
inline void ReadColumn(const Statement& st, int col, std::optional<bool>& value) {
  if (auto stored = st.ColumnOptionalInt64(col)) {
    value = *stored != 0;
  } else {
    value.reset();
  }
}
inline void ReadColumn(const Statement& st, int col, std::optional<std::string>& value) {
  value = st.ColumnOptionalString(col);
}

}  // namespace droidlab::store
