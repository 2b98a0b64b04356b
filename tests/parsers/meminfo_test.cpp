// `dumpsys meminfo PKG` (parsers/meminfo.h), per Android version. The header and "No process
// found for:" come from ActivityManagerService.dumpApplicationMemoryUsage
// (services/core/java/com/android/server/am/), the tables from ActivityThread.dumpMemInfoTable
// (core/java/android/app/ActivityThread.java). Files under tests/data/meminfo are real output
// (README there); the 6-15 layouts below print numbers through ActivityThread's own printRow
// format strings, quoted next to each line.
#include "parsers/meminfo.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// ActivityThread's ONE_COUNT_COLUMN "%21s %8d" and TWO_COUNT_COLUMNS "%21s %8d %21s %8d".
std::string One(const char* a, long long b) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%21s %8lld\n", a, b);
  return buf;
}
std::string Two(const char* a, long long b, const char* c, long long d) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%21s %8lld %21s %8lld\n", a, b, c, d);
  return buf;
}

std::string Head(int pid, const char* pkg) {
  return "Applications Memory Usage (in Kilobytes):\nUptime: 105113 Realtime: 105113\n\n"
         "** MEMINFO in pid " +
         std::to_string(pid) + " [" + pkg + "] **\n" +
         "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap\n"
         "                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free\n"
         "                ------   ------   ------   ------   ------   ------   ------   ------\n"
         "  Native Heap    10468    10408        0        0    12000    24576    13345    11230\n"
         "        TOTAL    46150    21736     3620        0    98000    40960    19985    "
         "20974\n\n";
}

std::string Objects() {
  return std::string(" Objects\n") + Two("Views:", 37, "ViewRootImpl:", 1) +
         Two("AppContexts:", 5, "Activities:", 1) + Two("Assets:", 8, "AssetManagers:", 0) +
         Two("Local Binders:", 16, "Proxy Binders:", 33) +
         Two("Parcel memory:", 4, "Parcel count:", 18) +
         Two("Death Recipients:", 1, "OpenSSL Sockets:", 0) + One("WebViews:", 0) + "\n SQL\n" +
         One("MEMORY_USED:", 0) + Two("PAGECACHE_OVERFLOW:", 0, "MALLOC_SIZE:", 0) + "\n";
}

// Android 6-10: ONE_COUNT_COLUMN_HEADER "%21s %8s" ("", "Pss(KB)"), the rows ONE_COUNT_COLUMN,
// the total TWO_COUNT_COLUMNS ("TOTAL:", pss, "TOTAL SWAP PSS:" | "TOTAL SWAP (KB):", n).
std::string Android6To10(bool swap_pss) {
  char header[64];
  std::snprintf(header, sizeof header, "%21s %8s\n%21s %8s\n", "", "Pss(KB)", "", "------");
  return Head(4566, "com.example") + " App Summary\n" + header + One("Java Heap:", 3764) +
         One("Native Heap:", 10408) + One("Code:", 6176) + One("Stack:", 92) +
         One("Graphics:", 3988) + One("Private Other:", 3104) + One("System:", 14962) + " \n" +
         Two("TOTAL:", 46150, swap_pss ? "TOTAL SWAP PSS:" : "TOTAL SWAP (KB):", 39) + "\n" +
         Objects();
}

// Android 11-15: TWO_COUNT_COLUMN_HEADER ("", "Pss(KB)", "", "Rss(KB)"), heap rows
// TWO_COUNT_COLUMNS (label, pss, "", rss), "Unknown:" ONE_ALT_COUNT_COLUMN ("%21s %8s %21s %8d":
// only an Rss), THREE_COUNT_COLUMNS totals (some releases print the middle value with %8s:
// framework jars of both forms are public; the text is the same).
std::string Android11Plus(bool middle_as_string) {
  char header[128];
  std::snprintf(header, sizeof header, "%21s %8s %21s %8s\n%21s %8s %21s %8s\n", "", "Pss(KB)", "",
                "Rss(KB)", "", "------", "", "------");
  char unknown[96];
  std::snprintf(unknown, sizeof unknown, "%21s %8s %21s %8d\n", "Unknown:", "", "", 2100);
  char totals[160];
  if (middle_as_string) {  // THREE_COUNT_COLUMNS "%21s %8d %21s %8s %21s %8d"
    std::snprintf(totals, sizeof totals, "%21s %8d %21s %8s %21s %8d\n", "TOTAL PSS:", 46150,
                  "TOTAL RSS:", "98000", "TOTAL SWAP PSS:", 39);
  } else {  // "%21s %8d %21s %8d %21s %8d"
    std::snprintf(totals, sizeof totals, "%21s %8d %21s %8d %21s %8d\n", "TOTAL PSS:", 46150,
                  "TOTAL RSS:", 98000, "TOTAL SWAP PSS:", 39);
  }
  return Head(4566, "com.example") + " App Summary\n" + header +
         Two("Java Heap:", 3764, "", 14000) + Two("Native Heap:", 10408, "", 12000) +
         Two("Code:", 6176, "", 30000) + Two("Stack:", 92, "", 92) +
         Two("Graphics:", 3988, "", 3988) + One("Private Other:", 3104) + One("System:", 14962) +
         unknown + " \n" + totals + "\n" + Objects();
}

void ExpectSummaryAndObjects(const Meminfo& m) {
  EXPECT_EQ(m.pid, 4566);
  EXPECT_EQ(m.package, "com.example");
  EXPECT_EQ(m.total_pss_kb, 46150);
  EXPECT_EQ(m.summary.java_heap_kb, 3764);
  EXPECT_EQ(m.summary.native_heap_kb, 10408);
  EXPECT_EQ(m.summary.code_kb, 6176);
  EXPECT_EQ(m.summary.stack_kb, 92);
  EXPECT_EQ(m.summary.graphics_kb, 3988);
  EXPECT_EQ(m.summary.private_other_kb, 3104);
  EXPECT_EQ(m.summary.system_kb, 14962);
  EXPECT_EQ(m.objects.views, 37);
  EXPECT_EQ(m.objects.view_root_impl, 1);
  EXPECT_EQ(m.objects.app_contexts, 5);
  EXPECT_EQ(m.objects.activities, 1);
  EXPECT_EQ(m.objects.assets, 8);
  EXPECT_EQ(m.objects.asset_managers, 0);
  EXPECT_EQ(m.objects.local_binders, 16);
  EXPECT_EQ(m.objects.proxy_binders, 33);
  EXPECT_EQ(m.objects.death_recipients, 1);
  EXPECT_EQ(m.objects.webviews, 0);
  EXPECT_EQ(m.skipped_lines, 0u);
}

TEST(MeminfoTest, Android6To10Layout) {
  auto m = ParseMeminfo(Android6To10(true));
  ASSERT_TRUE(m.ok()) << m.error().message;
  ExpectSummaryAndObjects(*m);
  EXPECT_EQ(m->total_rss_kb, std::nullopt);
  EXPECT_EQ(m->total_swap_pss_kb, 39);
}

// "TOTAL SWAP (KB):" (no SwapPss in the kernel) is swap, not its PSS.
TEST(MeminfoTest, Android6To10SwapWithoutPss) {
  auto m = ParseMeminfo(Android6To10(false));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->total_pss_kb, 46150);
  EXPECT_EQ(m->total_swap_pss_kb, std::nullopt);
}

TEST(MeminfoTest, Android11PlusLayoutMiddleAsString) {
  auto m = ParseMeminfo(Android11Plus(true));
  ASSERT_TRUE(m.ok()) << m.error().message;
  ExpectSummaryAndObjects(*m);
  EXPECT_EQ(m->total_rss_kb, 98000);
  EXPECT_EQ(m->total_swap_pss_kb, 39);
}

TEST(MeminfoTest, Android11PlusLayout) {
  auto m = ParseMeminfo(Android11Plus(false));
  ASSERT_TRUE(m.ok()) << m.error().message;
  ExpectSummaryAndObjects(*m);
  EXPECT_EQ(m->total_rss_kb, 98000);
  EXPECT_EQ(m->total_swap_pss_kb, 39);
}

// Android 7-10, real (com.android.home), with every run of blanks collapsed by the page.
TEST(MeminfoTest, Android7To10RealCollapsed) {
  auto m = ParseMeminfo(ReadTestData("meminfo/android7_10_collapsed.txt"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->pid, 5049);
  EXPECT_EQ(m->package, "com.android.home");
  EXPECT_EQ(m->total_pss_kb, 135623);
  EXPECT_EQ(m->total_rss_kb, std::nullopt);
  EXPECT_EQ(m->total_swap_pss_kb, 0);
  EXPECT_EQ(m->summary.java_heap_kb, 7700);
  EXPECT_EQ(m->summary.native_heap_kb, 63204);
  EXPECT_EQ(m->summary.code_kb, 28140);
  EXPECT_EQ(m->summary.stack_kb, 56);
  EXPECT_EQ(m->summary.graphics_kb, 18636);
  EXPECT_EQ(m->summary.private_other_kb, 5528);
  EXPECT_EQ(m->summary.system_kb, 12359);
  EXPECT_EQ(m->objects.views, 789);
  EXPECT_EQ(m->objects.view_root_impl, 1);
  EXPECT_EQ(m->objects.app_contexts, 8);
  EXPECT_EQ(m->objects.assets, 13);
  EXPECT_EQ(m->objects.local_binders, 62);
  EXPECT_EQ(m->objects.proxy_binders, 40);
  EXPECT_EQ(m->objects.death_recipients, 2);
  EXPECT_EQ(m->objects.webviews, 0);
  EXPECT_EQ(m->skipped_lines, 0u);
}

// Android 11+, real (com.android.settings, whitespace as posted): the Rss column, three totals, a
// large SwapPss, the SQL and DATABASES sections after Objects.
TEST(MeminfoTest, Android11PlusReal) {
  auto m = ParseMeminfo(ReadTestData("meminfo/android11plus_settings.txt"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->pid, 5865);
  EXPECT_EQ(m->package, "com.android.settings");
  EXPECT_EQ(m->total_pss_kb, 96354);
  EXPECT_EQ(m->total_rss_kb, 181492);
  EXPECT_EQ(m->total_swap_pss_kb, 68605);
  EXPECT_EQ(m->summary.java_heap_kb, 592);  // the Pss column, not the Rss one (32960)
  EXPECT_EQ(m->summary.native_heap_kb, 696);
  EXPECT_EQ(m->summary.code_kb, 15688);
  EXPECT_EQ(m->summary.stack_kb, 372);
  EXPECT_EQ(m->summary.graphics_kb, 0);
  EXPECT_EQ(m->summary.private_other_kb, 856);
  EXPECT_EQ(m->summary.system_kb, 78150);
  EXPECT_EQ(m->objects.views, 819);
  EXPECT_EQ(m->objects.view_root_impl, 4);
  EXPECT_EQ(m->objects.app_contexts, 28);
  EXPECT_EQ(m->objects.activities, 8);
  EXPECT_EQ(m->objects.assets, 38);
  EXPECT_EQ(m->objects.asset_managers, 0);
  EXPECT_EQ(m->objects.local_binders, 68);
  EXPECT_EQ(m->objects.proxy_binders, 117);
  EXPECT_EQ(m->objects.death_recipients, 4);
  EXPECT_EQ(m->objects.webviews, 0);
  EXPECT_EQ(m->skipped_lines, 0u);
}

// Android 6, real (Chrome), cut inside the main table: TOTAL row's Pss, no summary.
TEST(MeminfoTest, Android6RealTableOnly) {
  auto m = ParseMeminfo(ReadTestData("meminfo/android6_chrome_table.txt"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->pid, 9702);
  EXPECT_EQ(m->package, "com.android.chrome");
  EXPECT_EQ(m->total_pss_kb, 8828);
  EXPECT_EQ(m->summary.java_heap_kb, std::nullopt);
  EXPECT_EQ(m->objects.views, std::nullopt);
}

TEST(MeminfoTest, NoProcessFound) {
  auto m = ParseMeminfo("No process found for: com.not.running\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ParseErrorCode::kEmpty);
  EXPECT_NE(m.error().message.find("com.not.running"), std::string::npos);
}

TEST(MeminfoTest, NotMeminfo) {
  for (const char* text :
       {"", "Applications Memory Usage (in Kilobytes):\n", "** MEMINFO in pid x [com.a] **\n",
        "** MEMINFO in pid 12 [] **\n", "Can't find service: meminfo\n"}) {
    auto m = ParseMeminfo(text);
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_EQ(m.error().code, ParseErrorCode::kNotThisFormat) << text;
  }
}

// Two processes of the package: the first is read; a label with a broken number is counted.
TEST(MeminfoTest, FirstProcessOnlyAndSkippedLines) {
  std::string text = Android6To10(true);
  text.insert(text.find(" App Summary\n") + 13, "           Java Heap:     12x4\n");
  text += "** MEMINFO in pid 999 [com.example:remote] **\n App Summary\n" +
          Two("TOTAL:", 1, "TOTAL SWAP PSS:", 1);
  auto m = ParseMeminfo(text);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->pid, 4566);
  EXPECT_EQ(m->total_pss_kb, 46150);
  EXPECT_EQ(m->summary.java_heap_kb, 3764);  // the good row after the broken one
  EXPECT_EQ(m->skipped_lines, 1u);
}

TEST(MeminfoTest, CrlfLineEnds) {
  std::string text = Android11Plus(false);
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto m = ParseMeminfo(crlf);
  ASSERT_TRUE(m.ok());
  ExpectSummaryAndObjects(*m);
}

}  // namespace
}  // namespace droidlab::parsers
