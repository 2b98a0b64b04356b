// The SQL of the `looper_stats` table (schema/0001_init.sql). Internal to store/. The insert
// and select column lists are composed at compile time from kLooperRowColumns
// (store/looper_stats_columns.h), the table's one spelling; no SQL is built at run time.
#pragma once

#include <array>
#include <cstddef>

#include "store/looper_stats_columns.h"

namespace droidlab::store::sql {

namespace looper_stats_text {

// Appends text to `out`, or only counts when `out` is null (the first pass sizes the array).
struct TextWriter {
  char* out = nullptr;
  size_t size = 0;
  constexpr void Add(const char* text) {
    for (; *text != '\0'; ++text, ++size) {
      if (out != nullptr) out[size] = *text;
    }
  }
  constexpr void AddColumnNames() {
    ForEachLooperRowColumn([this](const auto& column, int index) {
      if (index > 0) Add(", ");
      Add(column.name);
    });
  }
};

constexpr size_t ComposeInsert(char* out) {
  TextWriter w{out};
  w.Add("INSERT INTO looper_stats (");
  w.AddColumnNames();
  w.Add(") VALUES (");
  ForEachLooperRowColumn([&w](const auto&, int index) { w.Add(index > 0 ? ", ?" : "?"); });
  w.Add(")");
  return w.size;
}

constexpr size_t ComposeSelectOfRun(char* out) {
  TextWriter w{out};
  w.Add("SELECT ");
  w.AddColumnNames();
  w.Add(", rowid FROM looper_stats WHERE run_id = ?1 AND rowid > ?2 ORDER BY rowid LIMIT ?3");
  return w.size;
}

template <size_t (*Compose)(char*)>
constexpr auto Text() {
  std::array<char, Compose(nullptr) + 1> text{};  // zero-filled: the last char ends the string
  Compose(text.data());
  return text;
}

inline constexpr auto kInsert = Text<ComposeInsert>();
inline constexpr auto kSelectOfRun = Text<ComposeSelectOfRun>();

}  // namespace looper_stats_text

// Binds the columns in kLooperRowColumns' order, as `?` 1..N.
inline constexpr const char* kInsertLooperStats = looper_stats_text::kInsert.data();
// One run's rows in dump order after rowid ?2, at most ?3 (-1: all); columns in
// kLooperRowColumns' order, then the page key (rowid).
inline constexpr const char* kLooperStatsOfRun = looper_stats_text::kSelectOfRun.data();

inline constexpr char kDeleteLooperStatsOfRun[] = "DELETE FROM looper_stats WHERE run_id = ?1";

}  // namespace droidlab::store::sql
