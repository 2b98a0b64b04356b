// The looper_stats table's columns, spelled out once. The store's INSERT and SELECT column lists
// (store/sql/looper_stats.h), its binding and reading of a LooperStatsRow, and the API's JSON of
// a row (api/json.cpp) are all made from kLooperRowColumns; the table itself is
// schema/0001_init.sql's (a new column is a migration, then one line here).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "store/records.h"

namespace droidlab::store {

// Where a column's value comes from. The API's JSON follows it: a row is the dump's own row.
enum class LooperColumnOrigin {
  kRun,      // run_id: the row's run (not in a row's JSON: the request names the run)
  kDerived,  // package, uid, is_app: worked out by droidlab; in the JSON always (null: unknown)
  kDump,     // a column of `dumpsys looper_stats`, same name; in the JSON when the dump had it
  kExtra,    // the dump's columns this version does not know, as a JSON object merged in
};

template <class T>
struct LooperRowColumn {
  const char* name;  // the SQL column and the JSON field
  T LooperStatsRow::*member;
  LooperColumnOrigin origin;
};

// In the schema's order. The types are the record's: std::string is NOT NULL, std::optional
// is NULL when absent, bool is 0 / 1.
inline constexpr auto kLooperRowColumns = std::make_tuple(
    LooperRowColumn<int64_t>{"run_id", &LooperStatsRow::run_id, LooperColumnOrigin::kRun},
    LooperRowColumn<std::string>{"work_source_uid", &LooperStatsRow::work_source_uid,
                                 LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<std::string>>{"package", &LooperStatsRow::package,
                                                LooperColumnOrigin::kDerived},
    LooperRowColumn<std::optional<int64_t>>{"uid", &LooperStatsRow::uid,
                                            LooperColumnOrigin::kDerived},
    LooperRowColumn<bool>{"is_app", &LooperStatsRow::is_app, LooperColumnOrigin::kDerived},
    LooperRowColumn<std::optional<std::string>>{"thread_name", &LooperStatsRow::thread_name,
                                                LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<std::string>>{"handler_class", &LooperStatsRow::handler_class,
                                                LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<std::string>>{"message_name", &LooperStatsRow::message_name,
                                                LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<bool>>{"is_interactive", &LooperStatsRow::is_interactive,
                                         LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{"message_count", &LooperStatsRow::message_count,
                                            LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{"recorded_message_count",
                                            &LooperStatsRow::recorded_message_count,
                                            LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{
        "total_latency_micros", &LooperStatsRow::total_latency_micros, LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{
        "max_latency_micros", &LooperStatsRow::max_latency_micros, LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{"total_cpu_micros", &LooperStatsRow::total_cpu_micros,
                                            LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{"max_cpu_micros", &LooperStatsRow::max_cpu_micros,
                                            LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{"recorded_delay_message_count",
                                            &LooperStatsRow::recorded_delay_message_count,
                                            LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{
        "total_delay_millis", &LooperStatsRow::total_delay_millis, LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{"max_delay_millis", &LooperStatsRow::max_delay_millis,
                                            LooperColumnOrigin::kDump},
    LooperRowColumn<std::optional<int64_t>>{"exception_count", &LooperStatsRow::exception_count,
                                            LooperColumnOrigin::kDump},
    // The SQL column is `extra`; the record's member says what it holds.
    LooperRowColumn<std::optional<std::string>>{"extra", &LooperStatsRow::extra_json,
                                                LooperColumnOrigin::kExtra});

inline constexpr size_t kLooperRowColumnCount = std::tuple_size_v<decltype(kLooperRowColumns)>;

// Calls visit(column, index) for each column in order, index 0-based.
template <class Visit>
constexpr void ForEachLooperRowColumn(Visit&& visit) {
  std::apply(
      [&visit](const auto&... column) {
        int index = 0;
        (visit(column, index++), ...);
      },
      kLooperRowColumns);
}

}  // namespace droidlab::store
