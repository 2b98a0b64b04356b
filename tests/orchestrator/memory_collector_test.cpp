// An iteration's memory from `dumpsys meminfo PKG` (orchestrator/run/memory_collector.h): a real
// Android 11+ dump (tests/data/meminfo/android11plus_settings.txt, com.android.settings, printed
// by frameworks/base core/java/android/app/ActivityThread.java dumpMemInfoTable with its Rss
// column) mapped field by field into the stored record, and a dump of another process refused.
#include "orchestrator/run/memory_collector.h"

#include <gtest/gtest.h>

#include "tests/common/test_data.h"

namespace droidlab::orchestrator {
namespace {

TEST(MemoryCollectorTest, ARealDumpMappedFieldByField) {
  auto dump = parsers::ParseMeminfo(testutil::ReadTestData("meminfo/android11plus_settings.txt"));
  ASSERT_TRUE(dump) << dump.error().message;
  auto memory = IterationMemoryOf(*dump, "com.android.settings", 7, 3);
  ASSERT_TRUE(memory) << memory.error();
  const store::IterationMemory& m = *memory;
  EXPECT_EQ(m.run_id, 7);
  EXPECT_EQ(m.iteration, 3);
  EXPECT_EQ(m.pid, 5865);
  EXPECT_EQ(m.total_pss_kb, 96354);
  EXPECT_EQ(m.total_rss_kb, 181492);
  EXPECT_EQ(m.total_swap_pss_kb, 68605);
  EXPECT_EQ(m.java_heap_kb, 592);
  EXPECT_EQ(m.native_heap_kb, 696);
  EXPECT_EQ(m.code_kb, 15688);
  EXPECT_EQ(m.stack_kb, 372);
  EXPECT_EQ(m.graphics_kb, 0);
  EXPECT_EQ(m.private_other_kb, 856);
  EXPECT_EQ(m.system_kb, 78150);
  EXPECT_EQ(m.views, 819);
  EXPECT_EQ(m.view_root_impl, 4);
  EXPECT_EQ(m.app_contexts, 28);
  EXPECT_EQ(m.activities, 8);
  EXPECT_EQ(m.assets, 38);
  EXPECT_EQ(m.asset_managers, 0);
  EXPECT_EQ(m.local_binders, 68);
  EXPECT_EQ(m.proxy_binders, 117);
  EXPECT_EQ(m.death_recipients, 4);
  EXPECT_EQ(m.webviews, 0);
}

TEST(MemoryCollectorTest, ADumpOfAnotherProcessIsRefused) {
  auto dump = parsers::ParseMeminfo(testutil::ReadTestData("meminfo/android11plus_settings.txt"));
  ASSERT_TRUE(dump) << dump.error().message;
  auto memory = IterationMemoryOf(*dump, "com.example.app", 7, 3);
  ASSERT_FALSE(memory);
  EXPECT_NE(memory.error().find("com.android.settings"), std::string::npos) << memory.error();
}

}  // namespace
}  // namespace droidlab::orchestrator
