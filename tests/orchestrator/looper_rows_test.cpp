// LooperStatsRowsFromDump: a parsed dump becomes the run's rows, owned, with the orchestrator's
// judgement of which rows are the app's (the package split out of work_source_uid is exactly the
// run's package) and the dump's unknown columns kept as JSON.
#include "orchestrator/run/looper_rows.h"

#include <gtest/gtest.h>

#include <string>

#include "parsers/looper_stats.h"

namespace droidlab::orchestrator {
namespace {

TEST(LooperRowsTest, EveryEntryIsKeptAndOnlyTheAppsRowsAreMarked) {
  const std::string dump =
      "Start time: 2022-04-09 02:53:46\n"
      "On battery time (ms): 29576717\n"
      "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
      "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
      "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
      "exception_count,new_column\n"
      "-1,PowerManagerService,android.os.Handler,0x2,false,559,2,381,307,370,297,2,1,1,0,x\n"
      "com.example.app/u0a139,android.ui,android.os.Handler,0x20053,true,9,1,31576,31576,9055,"
      "9055,1,1,1,0,y\n"
      "com.android.systemui/u0a140,android.fg,android.os.Handler,0x1,false,3,1,10,10,5,5,1,0,0,"
      "0,z\n"
      "com.example.app.extra/u0a141,android.fg,android.os.Handler,0x1,false,3,1,10,10,5,5,1,0,0,"
      "0,w\n";
  auto parsed = parsers::ParseLooperStats(dump);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto rows = LooperStatsRowsFromDump(42, "com.example.app", *parsed);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].run_id, 42);
  EXPECT_EQ(rows[0].work_source_uid, "-1");
  EXPECT_FALSE(rows[0].package.has_value());
  EXPECT_FALSE(rows[0].uid.has_value());
  EXPECT_FALSE(rows[0].is_app);
  EXPECT_EQ(rows[0].message_count, 559);
  EXPECT_EQ(rows[1].package, "com.example.app");
  EXPECT_EQ(rows[1].uid, 10139);
  EXPECT_TRUE(rows[1].is_app);
  EXPECT_EQ(rows[1].is_interactive, true);
  EXPECT_EQ(rows[1].total_latency_micros, 31576);
  EXPECT_EQ(rows[1].extra_json, R"({"new_column":"y"})");
  EXPECT_FALSE(rows[2].is_app);
  EXPECT_EQ(rows[2].message_name, "0x1");
  EXPECT_FALSE(rows[3].is_app);  // a package that only starts with the run's is not the app
}

TEST(LooperRowsTest, NoPackageMeansNoRowIsTheApps) {
  const std::string dump =
      "work_source_uid,thread_name,handler_class,message_name,is_interactive,message_count,"
      "recorded_message_count,total_latency_micros,max_latency_micros,total_cpu_micros,"
      "max_cpu_micros,recorded_delay_message_count,total_delay_millis,max_delay_millis,"
      "exception_count\n"
      "com.example.app/u0a139,android.ui,android.os.Handler,0x20053,true,9,1,31576,31576,9055,"
      "9055,1,1,1,0\n";
  auto parsed = parsers::ParseLooperStats(dump);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto rows = LooperStatsRowsFromDump(1, "", *parsed);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].is_app);
  EXPECT_FALSE(rows[0].extra_json.has_value());
}

}  // namespace
}  // namespace droidlab::orchestrator
