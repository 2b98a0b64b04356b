// `dumpsys looper_stats`, as printed by LooperStatsService.dump (frameworks/base,
// services/core/java/com/android/server/LooperStatsService.java), Android 10 and later. The same
// 15 columns and printf are in AOSP main, in an AOSP fork of the Android 11 era, in decompiled
// Android 12+ services.jar and in Samsung's Android 14 tree (which adds only the
// ignore_battery_status setting, not a column); published Android 12 output matches:
//
//   Start time: 2022-04-09 02:53:46
//   On battery time (ms): 29576717
//   work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,exception_count
//   -1,PowerManagerService,android.os.Handler,0x2,false,559,2,381,307,370,297,2,1,1,0
//   com.android.systemui/u0a139,WifiHandlerThread,com.android.wifi.x.com.android.internal.util.StateMachine$SmHandler,0x20053,false,9,1,31576,31576,9055,9055,1,1,1,0
//   -1,,,OVERFLOW,false,1234,2,410,300,380,290,1,0,0,0
//
// Rows are printf("%s,%s,...\n") with no quoting or escaping; booleans are Java's "true"/"false",
// numbers are Java longs in decimal. The parser finds the header by its content, maps columns by
// name once per dump (so other column sets work: unknown columns land in `extra`, missing ones
// stay absent), and counts rows whose field count differs from the header's, or that hold a bad
// or negative number, in skipped_lines instead of guessing. A thread or message name that itself
// holds a comma is therefore skipped and counted: no split of such a row is provably right.
//
// OVERFLOW (more than 1,500 distinct entries) and HASH_COLLISION rows come from LooperStats'
// special entries: work_source_uid -1, empty thread_name and handler_class, message_name naming
// the kind. They are ordinary rows here; IsSpecialEntry() tells them apart.
//
// work_source_uid is AppIdToPackageMap.mapUid(uid): "<package>/<UserHandle.formatUid(uid)>" when
// the app id maps to a package ("shared:<sharedUserId>" when several packages share it), else the
// bare formatUid text. See SplitWorkSourceUid for how it is split.
//
// Lines before the header: "Start time:" and "On battery time (ms):" are read; anything else
// (dumpsys banners such as "DUMP OF SERVICE looper_stats:", blank lines, adb warnings) is ignored
// and counted in preamble_lines, not skipped_lines, because no row was lost. After the header,
// blank lines and an exact repeat of the header are ignored; every other line that is not a
// valid row is counted in skipped_lines.
//
// A device without the service (Android 9 and older) prints "Can't find service: looper_stats"
// (dumpsys.cpp, on stderr: feed stderr too); a caller without android.permission.DUMP gets
// DumpUtils.checkDumpPermission's "Permission Denial: can't dump LooperStatsService from from
// pid=…, uid=… due to missing android.permission.DUMP permission". Before any header, these come
// back as kServiceMissing / kPermissionDenied; no header and neither line is kNotThisFormat.
//
// LooperStatsEntry holds string_views INTO THE INPUT TEXT: keep the text alive while you use the
// entries. LooperStatsDump's own fields (start time, column names) are owned copies.
//
// Not thread-safe: one reader per stream. No I/O, no logging, no allocation per row except
// `extra` when the header has unknown columns.
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
  // As printed: "-1", "com.pkg/u0a123", "shared:android.uid.system/1000"; "" if no such column.
  std::string_view work_source_uid;
  std::optional<std::string_view> package;  // split out of work_source_uid where it has one
  std::optional<int64_t> uid;               // "u0a123" -> 10123, "1000" -> 1000, "-1" -> absent
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
  std::vector<std::string> columns;          // the header's column names, in order
  std::vector<size_t> extra_column_indexes;  // indexes into `columns` of unknown columns
  std::vector<LooperStatsEntry> entries;
  uint64_t skipped_lines = 0;   // rows with the wrong field count or bad numbers
  uint64_t preamble_lines = 0;  // lines before the header that are neither known line nor header
};

// True for LooperStats' catch-all rows: "OVERFLOW" (entry cap reached) and "HASH_COLLISION".
bool IsSpecialEntry(const LooperStatsEntry& entry);

LooperStatsColumn LooperStatsColumnFromName(std::string_view name);

// Splits work_source_uid into package and uid where it has them, as mapUid printed it:
//   "com.pkg/u0a123"                 -> package "com.pkg", uid 10123
//   "shared:android.uid.system/1000" -> package "shared:android.uid.system" (kept as printed: a
//                                       sharedUserId, not one package), uid 1000
//   "1000", "u0a123"                 -> no package (uninstalled or unmapped app id), uid
//   "-1"                             -> neither: Message.UID_NONE, work not attributed to any app
//                                       (the message did not carry a work source)
// Text of no such form sets neither; work_source_uid keeps the text as printed either way.
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
  // For a last line that had no newline (LineSplitter::Finish delivers it). LooperStatsService
  // ends every row with '\n', so a row without one was cut off mid-way (device unplugged, adb
  // killed) and may hold a truncated number: it is counted in skipped_lines, never trusted. A
  // header or preamble line is handled as by AddLine. Never produces an entry, so the line need
  // not outlive the call.
  void AddUnterminatedLastLine(std::string_view line);
  // After the last line: an error if no header was ever seen (or the service is missing /
  // permission was denied), else the dump.
  Result<LooperStatsDump> Finish();
  const LooperStatsDump& dump() const { return dump_; }
  LooperStatsDump& mutable_dump() { return dump_; }
  bool header_seen() const { return header_seen_; }

 private:
  void AddPreambleLine(std::string_view line);
  bool AddRow(std::string_view line);

  // What to do with each header column, resolved once per header: the entry member a counting
  // column or a text column fills (nullptr if neither), so rows never compare names.
  struct ColumnSlot {
    LooperStatsColumn kind;
    std::optional<int64_t> LooperStatsEntry::*count;
    std::optional<std::string_view> LooperStatsEntry::*text;
  };

  LooperStatsDump dump_;
  std::vector<LooperStatsColumn> column_kinds_;
  std::vector<ColumnSlot> columns_;  // per header column; duplicates are kUnknown
  std::string header_line_;          // to ignore a repeated header (two dumps in one capture)
  size_t extra_count_ = 0;           // columns of kind kUnknown: reserve `extra` once per row
  bool header_seen_ = false;
  std::optional<ParseError> device_error_;
  uint64_t lines_before_header_ = 0;
};

}  // namespace droidlab::parsers
