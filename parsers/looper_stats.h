// `dumpsys looper_stats`, as printed by LooperStatsService.dump (frameworks/base,
// services/core/java/com/android/server/LooperStatsService.java), Android 10+:
//
//   Start time: 2019-06-12 14:33:05
//   On battery time (ms): 0
//   work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,exception_count
//   com.pkg/u0a164,android.bg,com.android.server.am.ActivityManagerService$MainHandler,0x1,true,12,1,283,283,250,250,1,3,3,0
//
// Rows are printed with no quoting or escaping. The parser finds the header by its content,
// maps columns by name (so other column sets work), and counts rows whose field count differs
// from the header's instead of guessing. OVERFLOW and HASH_COLLISION rows are ordinary rows
// whose text fields say so.
//
// A device without the service prints "Can't find service: looper_stats"; a caller without
// permission gets "Permission Denial: …". Both come back as ParseErrors with their own codes.
//
// LooperStatsEntry holds string_views INTO THE INPUT TEXT: keep the text alive while you use the
// entries. LooperStatsDump's own fields (start time, column names) are owned copies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

// The columns this version of droidlab knows by name. Unknown columns are still kept (extra).
enum class LooperStatsColumn {
  kWorkSourceUid,
  kThreadName,
  kHandlerClass,
  kMessageName,
  kIsInteractive,
  kMessageCount,
  kRecordedMessageCount,
  kTotalLatencyMicros,
  kMaxLatencyMicros,
  kTotalCpuMicros,
  kMaxCpuMicros,
  kRecordedDelayMessageCount,
  kTotalDelayMillis,
  kMaxDelayMillis,
  kExceptionCount,
  kUnknown,
};

struct LooperStatsEntry {
  std::string_view work_source_uid;  // as printed: "-1", "com.pkg/u0a123", "shared:android.uid.system/1000"
  std::optional<std::string_view> package;  // split out of work_source_uid where it has one
  std::optional<int64_t> uid;               // "u0a123" -> 10123, "1000" -> 1000
  std::optional<std::string_view> thread_name;
  std::optional<std::string_view> handler_class;
  std::optional<std::string_view> message_name;
  std::optional<bool> is_interactive;
  std::optional<int64_t> message_count;
  std::optional<int64_t> recorded_message_count;
  std::optional<int64_t> total_latency_micros;
  std::optional<int64_t> max_latency_micros;
  std::optional<int64_t> total_cpu_micros;
  std::optional<int64_t> max_cpu_micros;
  std::optional<int64_t> recorded_delay_message_count;
  std::optional<int64_t> total_delay_millis;
  std::optional<int64_t> max_delay_millis;
  std::optional<int64_t> exception_count;
  // Values of columns not in LooperStatsColumn, in header order; names are in
  // LooperStatsDump::columns at the matching positions of LooperStatsDump::extra_column_indexes.
  std::vector<std::string_view> extra;
};

struct LooperStatsDump {
  std::optional<std::string> start_time;  // as printed: "2019-06-12 14:33:05"
  std::optional<int64_t> on_battery_time_ms;
  std::vector<std::string> columns;            // the header's column names, in order
  std::vector<size_t> extra_column_indexes;    // indexes into `columns` of unknown columns
  std::vector<LooperStatsEntry> entries;
  uint64_t skipped_lines = 0;                  // rows with the wrong field count or bad numbers
};

LooperStatsColumn LooperStatsColumnFromName(std::string_view name);

// Splits work_source_uid into package and uid where it has them.
void SplitWorkSourceUid(std::string_view work_source_uid, LooperStatsEntry& entry);

// Parses a whole dump. Errors: kNotThisFormat when no header line is found, kServiceMissing,
// kPermissionDenied.
Result<LooperStatsDump> ParseLooperStats(std::string_view dump);

// Line-at-a-time form for streams and for the benchmark: feed lines in order.
class LooperStatsReader {
 public:
  // Returns true when `line` produced an entry (appended to dump().entries). Views in the entry
  // point into `line`: the caller keeps lines alive (ParseLooperStats does, over one buffer).
  bool AddLine(std::string_view line);
  // After the last line: an error if no header was ever seen (or the service is missing /
  // permission was denied), else the dump.
  Result<LooperStatsDump> Finish();
  const LooperStatsDump& dump() const { return dump_; }
  LooperStatsDump& mutable_dump() { return dump_; }
  bool header_seen() const { return header_seen_; }

 private:
  LooperStatsDump dump_;
  std::vector<LooperStatsColumn> column_kinds_;
  bool header_seen_ = false;
  std::optional<ParseError> device_error_;
  uint64_t lines_before_header_ = 0;
};

}  // namespace droidlab::parsers
