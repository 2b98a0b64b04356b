// dumpsys looper_stats, as printed by LooperStatsService.dump
// (frameworks/base services/core/java/com/android/server/LooperStatsService.java) with rows from
// LooperStats.getEntries (core/java/com/android/internal/os/LooperStats.java) and
// work_source_uid from AppIdToPackageMap.mapUid + UserHandle.formatUid. The 15-column header and
// the printf format are the same in Android 10, 11, 12 and 14 (checked in each tree). Samples by
// version are in tests/data/looper_stats/.
#include "parsers/looper_stats.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "parsers/line_splitter.h"
#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

constexpr std::string_view kHeader =
    "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
    "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
    "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
    "exception_count";

std::string Dump(std::initializer_list<std::string_view> rows) {
  std::string out = "Start time: 2024-03-18 09:41:07\nOn battery time (ms): 612904\n";
  out += kHeader;
  out += '\n';
  for (std::string_view row : rows) {
    out += row;
    out += '\n';
  }
  return out;
}

// Android 10 (QP1A), LooperStatsService.java android10-release: the whole sample, every kind of
// work_source_uid, the special rows first (uid -1 and empty thread name sort first).
TEST(LooperStatsTest, Android10SampleAllRows) {
  const std::string text = ReadTestData("looper_stats/android10.txt");
  Result<LooperStatsDump> r = ParseLooperStats(text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->start_time, "2019-11-05 10:12:41");
  EXPECT_EQ(r->on_battery_time_ms, 1843211);
  EXPECT_EQ(r->columns.size(), 15u);
  EXPECT_TRUE(r->extra_column_indexes.empty());
  EXPECT_EQ(r->skipped_lines, 0u);
  EXPECT_EQ(r->preamble_lines, 0u);
  ASSERT_EQ(r->entries.size(), 15u);

  const LooperStatsEntry& collision = r->entries[0];
  EXPECT_TRUE(IsSpecialEntry(collision));
  EXPECT_EQ(collision.work_source_uid, "-1");
  EXPECT_FALSE(collision.package.has_value());
  EXPECT_FALSE(collision.uid.has_value());
  EXPECT_EQ(collision.thread_name, "");
  EXPECT_EQ(collision.handler_class, "");
  EXPECT_EQ(collision.message_name, "HASH_COLLISION");
  EXPECT_EQ(collision.message_count, 37);

  const LooperStatsEntry& overflow = r->entries[1];
  EXPECT_EQ(overflow.message_name, "OVERFLOW");
  EXPECT_EQ(overflow.is_interactive, false);
  EXPECT_EQ(overflow.message_count, 5120);
  EXPECT_EQ(overflow.recorded_message_count, 6);
  EXPECT_EQ(overflow.total_latency_micros, 9312);
  EXPECT_EQ(overflow.max_latency_micros, 4410);
  EXPECT_EQ(overflow.total_cpu_micros, 7020);
  EXPECT_EQ(overflow.max_cpu_micros, 3127);
  EXPECT_EQ(overflow.recorded_delay_message_count, 5);
  EXPECT_EQ(overflow.total_delay_millis, 12);
  EXPECT_EQ(overflow.max_delay_millis, 7);
  EXPECT_EQ(overflow.exception_count, 1);

  const LooperStatsEntry& lambda = r->entries[7];  // Android 10's -$$Lambda$ callback names
  EXPECT_EQ(lambda.thread_name, "android.fg");
  EXPECT_EQ(lambda.handler_class, "android.os.Handler");
  EXPECT_EQ(lambda.message_name,
            "com.android.server.wm.-$$Lambda$WindowManagerService$fE-GqTiC3fJ3xRwrFVwVbbTVWvs");
  EXPECT_FALSE(IsSpecialEntry(lambda));

  const LooperStatsEntry& shared = r->entries[8];
  EXPECT_EQ(shared.work_source_uid, "shared:android.uid.system/1000");
  EXPECT_EQ(shared.package, "shared:android.uid.system");
  EXPECT_EQ(shared.uid, 1000);

  const LooperStatsEntry& bare_system_uid = r->entries[10];  // audioserver: no package
  EXPECT_EQ(bare_system_uid.work_source_uid, "1041");
  EXPECT_FALSE(bare_system_uid.package.has_value());
  EXPECT_EQ(bare_system_uid.uid, 1041);

  const LooperStatsEntry& app = r->entries[12];
  EXPECT_EQ(app.work_source_uid, "com.android.systemui/u0a139");
  EXPECT_EQ(app.package, "com.android.systemui");
  EXPECT_EQ(app.uid, 10139);
  EXPECT_EQ(app.thread_name, "ActivityManager");
  EXPECT_EQ(app.handler_class, "com.android.server.am.ActivityManagerService$MainHandler");
  EXPECT_EQ(app.message_name, "0x3d");
  EXPECT_EQ(app.total_latency_micros, 31576);

  const LooperStatsEntry& unmapped = r->entries[14];  // app id with no package (uninstalled)
  EXPECT_EQ(unmapped.work_source_uid, "u0a250");
  EXPECT_FALSE(unmapped.package.has_value());
  EXPECT_EQ(unmapped.uid, 10250);
}

// Android 12: rows as published from a device (jianshu.com/p/9098585e6a72), same format.
TEST(LooperStatsTest, Android12PublishedRows) {
  const std::string text = ReadTestData("looper_stats/android12.txt");
  Result<LooperStatsDump> r = ParseLooperStats(text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->start_time, "2022-04-09 02:53:46");
  EXPECT_EQ(r->on_battery_time_ms, 29576717);
  ASSERT_EQ(r->entries.size(), 6u);
  EXPECT_EQ(r->skipped_lines, 0u);
  const LooperStatsEntry& e = r->entries[3];
  EXPECT_EQ(e.message_name,
            "android.app.LoadedApk$ReceiverDispatcher$Args$$ExternalSyntheticLambda0");
  EXPECT_EQ(e.message_count, 62);
  const LooperStatsEntry& wifi = r->entries[5];
  EXPECT_EQ(wifi.package, "com.android.systemui");
  EXPECT_EQ(wifi.uid, 10139);
  EXPECT_EQ(wifi.handler_class,
            "com.android.wifi.x.com.android.internal.util.StateMachine$SmHandler");
  EXPECT_EQ(wifi.message_name, "0x20053");
}

// Android 14 (UP1A), with track_screen_state=true: is_interactive true/false rows, isolated and
// secondary-user uids, an OVERFLOW row.
TEST(LooperStatsTest, Android14InteractiveAndUserUids) {
  const std::string text = ReadTestData("looper_stats/android14.txt");
  Result<LooperStatsDump> r = ParseLooperStats(text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->entries.size(), 13u);
  EXPECT_EQ(r->skipped_lines, 0u);
  EXPECT_EQ(r->entries[0].message_name, "OVERFLOW");
  EXPECT_EQ(r->entries[0].exception_count, 3);
  EXPECT_EQ(r->entries[1].is_interactive, true);
  EXPECT_EQ(r->entries[2].is_interactive, false);
  EXPECT_EQ(r->entries[1].message_name, r->entries[2].message_name);

  auto find = [&](std::string_view wsu) -> const LooperStatsEntry& {
    for (const LooperStatsEntry& e : r->entries) {
      if (e.work_source_uid == wsu) return e;
    }
    ADD_FAILURE() << "no row for " << wsu;
    return r->entries[0];
  };
  EXPECT_EQ(find("u0i7").uid, 99007);
  EXPECT_FALSE(find("u0i7").package.has_value());
  EXPECT_EQ(find("shared:android.uid.system/u10s1000").uid, 1001000);
  EXPECT_EQ(find("com.google.android.apps.maps/u10a151").uid, 1010151);
  EXPECT_EQ(find("com.google.android.apps.maps/u10a151").package, "com.google.android.apps.maps");
  EXPECT_EQ(find("com.google.android.apps.maps/u10a151").exception_count, 1);
  EXPECT_EQ(find("com.example.lab/u0a287").uid, 10287);
}

// Android 13: reset just before the dump, nothing dispatched yet: header, no rows.
TEST(LooperStatsTest, HeaderWithoutRowsIsAnEmptyDump) {
  Result<LooperStatsDump> r = ParseLooperStats(ReadTestData("looper_stats/android13_empty.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->entries.empty());
  EXPECT_EQ(r->on_battery_time_ms, 0);
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 9 and older have no LooperStatsService: dumpsys.cpp says so (on stderr).
TEST(LooperStatsTest, Android9NoService) {
  Result<LooperStatsDump> r = ParseLooperStats(ReadTestData("looper_stats/android9_no_service.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kServiceMissing);
  EXPECT_NE(r.error().message.find("looper_stats"), std::string::npos);
}

// DumpUtils.checkDumpPermission(mContext, TAG = "LooperStatsService", pw) for a caller without
// android.permission.DUMP ("from from" is AOSP's own text).
TEST(LooperStatsTest, PermissionDenied) {
  Result<LooperStatsDump> r = ParseLooperStats(ReadTestData("looper_stats/permission_denied.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kPermissionDenied);
  EXPECT_NE(r.error().message.find("uid=10287"), std::string::npos);
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

// Handler.getMessageName may be overridden and thread names are free text: a comma in either
// shifts the fields. LooperStatsService does not escape, so the row is skipped and counted.
TEST(LooperStatsTest, CommaInMessageNameIsSkippedAndCounted) {
  Result<LooperStatsDump> r = ParseLooperStats(Dump({
      "-1,android.bg,android.os.Handler,0x1,false,3,1,10,10,9,9,1,0,0,0",
      "-1,android.bg,com.example.H,MSG_A,B,false,3,1,10,10,9,9,1,0,0,0",
      "1000,android.bg,android.os.Handler,0x2,false,4,1,11,11,9,9,1,0,0,0",
  }));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->entries.size(), 2u);
  EXPECT_EQ(r->skipped_lines, 1u);
}

TEST(LooperStatsTest, BadNumbersAndBooleansAreSkippedAndCounted) {
  Result<LooperStatsDump> r = ParseLooperStats(Dump({
      "-1,a,b,0x1,false,3x,1,10,10,9,9,1,0,0,0",                    // not a number
      "-1,a,b,0x1,false,-3,1,10,10,9,9,1,0,0,0",                    // counts are never negative
      "-1,a,b,0x1,False,3,1,10,10,9,9,1,0,0,0",                     // Java prints "false"
      "-1,a,b,0x1,false,3,1,10,10,9,9,1,0,0,99999999999999999999",  // over int64
      "-1,a,b,0x1,false,, 1,10,10,9,9,1,0,0,0",                     // empty and spaced
      "-1,a,b,0x1,false,3,1,10,10,9,9,1,0,0,0",
  }));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->entries.size(), 1u);
  EXPECT_EQ(r->skipped_lines, 5u);
}

// Java longs: INT64_MAX is the largest value a row can hold; one more, or 20 digits, is damage.
TEST(LooperStatsTest, Int64Limits) {
  Result<LooperStatsDump> r = ParseLooperStats(Dump({
      "-1,a,b,0x1,false,9223372036854775807,1,10,10,9,9,1,0,0,0",
      "-1,a,b,0x1,false,9223372036854775808,1,10,10,9,9,1,0,0,0",
      "-1,a,b,0x1,false,1,1,10,10,9,9,1,0,0,18446744073709551616",
      "-1,a,b,0x1,false,1,1,10,10,9,9,1,0,0,9999999999999999999",
      "-1,a,b,0x1,false,0,0,0,0,0,0,0,0,0,1000000000000000000",
  }));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->entries.size(), 2u);
  EXPECT_EQ(r->entries[0].message_count, INT64_MAX);
  EXPECT_EQ(r->entries[1].exception_count, 1000000000000000000);
  EXPECT_EQ(r->skipped_lines, 3u);
}

// adb shell over a pty (adb < 7 or `adb shell -t`) turns "\n" into "\r\n".
TEST(LooperStatsTest, CrlfLines) {
  std::string text = ReadTestData("looper_stats/android10.txt");
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  Result<LooperStatsDump> r = ParseLooperStats(crlf);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->start_time, "2019-11-05 10:12:41");
  ASSERT_EQ(r->entries.size(), 15u);
  EXPECT_EQ(r->skipped_lines, 0u);
  EXPECT_EQ(r->entries.back().exception_count, 0);
  EXPECT_EQ(r->entries.back().work_source_uid, "u0a250");
}

// The device went away mid-dump: the last row has no newline. Cut inside a text field (fewer
// fields) or inside the last number (same field count, wrong value): either way it is skipped.
TEST(LooperStatsTest, DumpCutInTheMiddleOfARow) {
  const std::string text = ReadTestData("looper_stats/android10.txt");
  const size_t last_row = text.rfind('\n', text.size() - 2) + 1;
  for (size_t cut = last_row + 1; cut < text.size() - 1; ++cut) {
    Result<LooperStatsDump> r = ParseLooperStats(std::string_view(text).substr(0, cut));
    ASSERT_TRUE(r.ok()) << cut;
    EXPECT_EQ(r->entries.size(), 14u) << "cut at " << cut;
    EXPECT_EQ(r->skipped_lines, 1u) << "cut at " << cut;
  }
  // Whole and newline-terminated: nothing lost.
  EXPECT_EQ(ParseLooperStats(text)->entries.size(), 15u);
}

TEST(LooperStatsTest, RandomBytesAreNotThisFormat) {
  std::mt19937 rng(20240318);
  for (int round = 0; round < 200; ++round) {
    std::string bytes(1 + rng() % 2000, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    Result<LooperStatsDump> r = ParseLooperStats(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ParseErrorCode::kNotThisFormat);
  }
  Result<LooperStatsDump> empty = ParseLooperStats("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ParseErrorCode::kNotThisFormat);
}

TEST(LooperStatsTest, OtherDumpIsNotThisFormatWithOneLineMessage) {
  Result<LooperStatsDump> r = ParseLooperStats(
      "Binder call stats:\n  Sampling interval period: 1000\n  Sampling enabled: true\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  EXPECT_NE(r.error().message.find("header"), std::string::npos);
}

// A future release adding a column, and one reordering: unknown columns are kept in `extra` with
// their names at extra_column_indexes; columns the header lacks stay absent.
TEST(LooperStatsTest, UnknownExtraColumnKeptAndMissingColumnsAbsent) {
  Result<LooperStatsDump> r = ParseLooperStats(
      "thread_name,message_name,message_count,is_interactive,total_queue_micros\n"
      "android.bg,0x1,12,true,4410\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->extra_column_indexes.size(), 1u);
  EXPECT_EQ(r->columns[r->extra_column_indexes[0]], "total_queue_micros");
  ASSERT_EQ(r->entries.size(), 1u);
  const LooperStatsEntry& e = r->entries[0];
  EXPECT_EQ(e.thread_name, "android.bg");
  EXPECT_EQ(e.message_name, "0x1");
  EXPECT_EQ(e.message_count, 12);
  EXPECT_EQ(e.is_interactive, true);
  ASSERT_EQ(e.extra.size(), 1u);
  EXPECT_EQ(e.extra[0], "4410");
  EXPECT_EQ(e.work_source_uid, "");
  EXPECT_FALSE(e.uid.has_value());
  EXPECT_FALSE(e.handler_class.has_value());
  EXPECT_FALSE(e.recorded_message_count.has_value());
  EXPECT_FALSE(e.exception_count.has_value());
  EXPECT_FALSE(r->start_time.has_value());
  EXPECT_FALSE(r->on_battery_time_ms.has_value());
}

// `adb shell dumpsys` (all services) wraps each dump in banners; an adb warning can come first.
TEST(LooperStatsTest, PreambleLinesIgnoredButCounted) {
  std::string text =
      "-------------------------------------------------------------------------------\n"
      "DUMP OF SERVICE looper_stats:\n" +
      Dump({"-1,android.bg,android.os.Handler,0x1,false,3,1,10,10,9,9,1,0,0,0"}) +
      "--------- 0.012s was the duration of dumpsys looper_stats, ending at: 2024-03-18 09:41:07\n"
      "\n";
  Result<LooperStatsDump> r = ParseLooperStats(text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->preamble_lines, 2u);
  EXPECT_EQ(r->entries.size(), 1u);
  EXPECT_EQ(r->skipped_lines, 1u);  // the duration banner after the rows is not a row
}

TEST(LooperStatsTest, RepeatedHeaderAndBlankLinesAfterHeaderIgnored) {
  Result<LooperStatsDump> r = ParseLooperStats(
      Dump({"", std::string_view(kHeader), "-1,a,b,0x1,false,3,1,10,10,9,9,1,0,0,0"}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->entries.size(), 1u);
  EXPECT_EQ(r->skipped_lines, 0u);
}

TEST(LooperStatsTest, BadBatteryTimeCounted) {
  Result<LooperStatsDump> r =
      ParseLooperStats("On battery time (ms): soon\n" + std::string(kHeader) + "\n");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->on_battery_time_ms.has_value());
  EXPECT_EQ(r->skipped_lines, 1u);
}

// UserHandle.formatUid: uid < 10000 plain; else u<user> then a/s/i/ai and the app-id offset.
// The stream form over LineSplitter, fed in small chunks, agrees with the whole-buffer form.
TEST(LooperStatsTest, ReaderOverChunkedStreamAgrees) {
  const std::string text = ReadTestData("looper_stats/android14.txt");
  for (size_t chunk : {1u, 7u, 64u, 4096u}) {
    LooperStatsReader reader;
    LineSplitter splitter;
    std::vector<std::string> kept;  // the reader's views need their lines alive
    kept.reserve(64);
    size_t produced = 0;
    for (size_t i = 0; i < text.size(); i += chunk) {
      splitter.Feed(std::string_view(text).substr(i, chunk), [&](std::string_view line) {
        kept.emplace_back(line);
        produced += reader.AddLine(kept.back()) ? 1 : 0;
      });
    }
    splitter.Finish([&](std::string_view line) { reader.AddUnterminatedLastLine(line); });
    Result<LooperStatsDump> r = reader.Finish();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->entries.size(), 13u);
    EXPECT_EQ(produced, 13u);
    EXPECT_EQ(r->entries[5].thread_name, "binder:1673_3");
  }
}

TEST(LooperStatsTest, WorkSourceUidWithoutAReadableUidSplitsToNothing) {
  // LooperStats.java renders work_source_uid as "package/formatUid"; anything else keeps neither.
  LooperStatsEntry e;
  SplitWorkSourceUid("/u0a1", e);
  EXPECT_FALSE(e.package.has_value());
  EXPECT_FALSE(e.uid.has_value());
  SplitWorkSourceUid("com.pkg/banana", e);
  EXPECT_FALSE(e.package.has_value());
  EXPECT_FALSE(e.uid.has_value());
}

}  // namespace
}  // namespace droidlab::parsers
