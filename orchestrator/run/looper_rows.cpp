#include "orchestrator/run/looper_rows.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace droidlab::orchestrator {

std::vector<store::LooperStatsRow> LooperStatsRowsFromDump(int64_t run_id,
                                                           std::string_view app_package,
                                                           const parsers::LooperStatsDump& dump) {
  auto own = [](const std::optional<std::string_view>& v) -> std::optional<std::string> {
    if (!v) return std::nullopt;
    return std::string(*v);
  };
  std::vector<store::LooperStatsRow> rows;
  rows.reserve(dump.entries.size());
  for (const parsers::LooperStatsEntry& e : dump.entries) {
    store::LooperStatsRow row;
    row.run_id = run_id;
    row.work_source_uid = std::string(e.work_source_uid);
    row.package = own(e.package);
    row.uid = e.uid;
    row.is_app = e.package && !app_package.empty() && *e.package == app_package;
    row.thread_name = own(e.thread_name);
    row.handler_class = own(e.handler_class);
    row.message_name = own(e.message_name);
    row.is_interactive = e.is_interactive;
    row.message_count = e.message_count;
    row.recorded_message_count = e.recorded_message_count;
    row.total_latency_micros = e.total_latency_micros;
    row.max_latency_micros = e.max_latency_micros;
    row.total_cpu_micros = e.total_cpu_micros;
    row.max_cpu_micros = e.max_cpu_micros;
    row.recorded_delay_message_count = e.recorded_delay_message_count;
    row.total_delay_millis = e.total_delay_millis;
    row.max_delay_millis = e.max_delay_millis;
    row.exception_count = e.exception_count;
    if (!e.extra.empty()) {
      nlohmann::json extra = nlohmann::json::object();
      for (size_t i = 0; i < e.extra.size() && i < dump.extra_column_indexes.size(); ++i) {
        extra[dump.columns[dump.extra_column_indexes[i]]] = std::string(e.extra[i]);
      }
      row.extra_json = extra.dump();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace droidlab::orchestrator
