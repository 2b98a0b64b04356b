// MatchLaunch (orchestrator/run/launch_matcher.h) on real logcat lines: the tests/data/logcat
// samples (Android 9 and 10+ threadtime) and lines in the layouts ActivityStarter, ProcessList
// and ActivityMetricsLogger print on Android 13 (`logcat -v epoch`, logprint.cpp).
#include "orchestrator/run/launch_matcher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parsers/logcat.h"
#include "tests/common/test_data.h"

namespace droidlab::orchestrator {
namespace {

std::vector<parsers::LaunchEvent> Events(const std::string& text) {
  parsers::LogcatReader reader;
  std::vector<parsers::LaunchEvent> events;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    reader.AddLine(std::string_view(text).substr(at, nl - at), events);
    at = nl + 1;
  }
  return events;
}

const LaunchTarget kApp{"com.example.app", "com.example.app.MainActivity"};

// One Android 13 launch in `-v epoch`, with noise, garbage and another app's launch around it.
const char kAndroid13Epoch[] =
    "  1763891234.100  1501  1545 I ActivityTaskManager: START u0 {flg=0x10000000 "
    "cmp=com.example.app/.MainActivity} from uid 2000\n"
    "  1763891234.102  1501  1545 I ActivityTaskManager: START u0 {flg=0x10000000 "
    "cmp=com.android.settings/.Settings} from uid 2000\n"
    "\x01\xff garbage that is not logcat\n"
    "  1763891234.104   612   612 D Zygote  : Forked child process 4300\n"
    "  1763891234.115  1501  1528 I ActivityManager: Start proc 4301:com.example.app:remote/"
    "u0a123 for service {com.example.app/com.example.app.Sync}\n"
    "  1763891234.116  1501  1528 I ActivityManager: Start proc 4300:com.example.app/u0a123 for "
    "pre-top-activity {com.example.app/com.example.app.MainActivity}\n"
    "  1763891234.300  1501  1532 I ActivityTaskManager: Displayed "
    "com.android.settings/.Settings for user 0: +198ms\n"
    "  1763891234.400  4300  4300 I MyApp   : Displayed com.example.app/.MainActivity for user "
    "0: +1ms\n"
    "  1763891234.901  1501  1532 I ActivityTaskManager: Displayed "
    "com.example.app/.MainActivity for user 0: +800ms\n"
    "  1763891235.335  1501  1532 I ActivityTaskManager: Fully drawn "
    "com.example.app/.MainActivity: +1s234ms\n"
    "  1763891236.000  1501  1545 I ActivityTaskManager: START u0 {flg=0x10000000 "
    "cmp=com.example.app/.MainActivity} from uid 2000\n"
    "  1763891236.500  1501  1532 I ActivityTaskManager: Displayed "
    "com.example.app/.MainActivity for user 0: +499ms\n";

TEST(LaunchMatcherTest, PicksTheComponentsLinesOutOfNoiseAndOtherApps) {
  const auto events = Events(kAndroid13Epoch);
  const MatchedLaunch m = MatchLaunch(events, kApp);
  ASSERT_TRUE(m.start);
  EXPECT_EQ(m.start->time, "1763891234.100");
  ASSERT_TRUE(m.process_start);
  EXPECT_EQ(m.process_start->process_pid, 4300);  // the main process, not ":remote"
  ASSERT_TRUE(m.displayed);
  EXPECT_EQ(m.displayed->duration_ms, 800);  // not Settings' 198, not the app's own lookalike
  ASSERT_TRUE(m.fully_drawn);
  EXPECT_EQ(m.fully_drawn->duration_ms, 1234);
  EXPECT_TRUE(m.next_launch_seen);  // the second START begins the next launch
}

TEST(LaunchMatcherTest, IgnoresTheLateLinesOfThePreviousLaunch) {
  const std::string text =
      "  1763891233.950  1501  1532 I ActivityTaskManager: Fully drawn "
      "com.example.app/.MainActivity: +900ms\n"
      "  1763891233.990  1501  1532 I ActivityTaskManager: Displayed "
      "com.example.app/.MainActivity for user 0: +700ms\n" +
      std::string(kAndroid13Epoch);
  const MatchedLaunch m = MatchLaunch(Events(text), kApp);
  ASSERT_TRUE(m.displayed);
  EXPECT_EQ(m.displayed->duration_ms, 800);
  EXPECT_EQ(m.fully_drawn->duration_ms, 1234);
}

TEST(LaunchMatcherTest, FullyDrawnBeforeDisplayedIsNotThisLaunchs) {
  const auto events = Events(
      "  1763891234.100  1501  1545 I ActivityTaskManager: START u0 {flg=0x10000000 "
      "cmp=com.example.app/.MainActivity} from uid 2000\n"
      "  1763891234.120  1501  1532 I ActivityTaskManager: Fully drawn "
      "com.example.app/.MainActivity: +300ms\n"
      "  1763891234.200  1501  1532 I ActivityTaskManager: Displayed "
      "com.example.app/.MainActivity for user 0: +99ms\n");
  const MatchedLaunch m = MatchLaunch(events, kApp);
  ASSERT_TRUE(m.displayed);
  EXPECT_FALSE(m.fully_drawn);
}

TEST(LaunchMatcherTest, NoDisplayedYet) {
  const auto events = Events(
      "  1763891234.100  1501  1545 I ActivityTaskManager: START u0 {flg=0x10000000 "
      "cmp=com.example.app/.MainActivity} from uid 2000\n");
  const MatchedLaunch m = MatchLaunch(events, kApp);
  EXPECT_TRUE(m.start);
  EXPECT_FALSE(m.displayed);
  EXPECT_FALSE(m.process_start);
}

// Android 9 threadtime (ActivityManager tag, no "for user"), from tests/data/logcat.
TEST(LaunchMatcherTest, Android9SampleWithoutStartLine) {
  const auto events = Events(testutil::ReadTestData("logcat/android9_threadtime.txt"));
  const MatchedLaunch m = MatchLaunch(
      events, {"org.androworks.meteorgram", "org.androworks.meteorgram.MeteorgramActivity"});
  EXPECT_FALSE(m.start);
  ASSERT_TRUE(m.displayed);
  EXPECT_EQ(m.displayed->duration_ms, 580);
  EXPECT_EQ(m.displayed->tag, "ActivityManager");
}

// Android 10+ threadtime sample: Start proc (pre-top-activity) of one app among many.
TEST(LaunchMatcherTest, Android10PlusSampleStartProc) {
  const auto events = Events(testutil::ReadTestData("logcat/android10plus_threadtime.txt"));
  const MatchedLaunch vending =
      MatchLaunch(events, {"com.android.vending", "com.android.vending.AssetBrowserActivity"});
  ASSERT_TRUE(vending.process_start);
  EXPECT_EQ(vending.process_start->process_pid, 4567);
  const MatchedLaunch minimal =
      MatchLaunch(events, {"com.minimalapp", "com.minimalapp.wear.MainActivity"});
  ASSERT_TRUE(minimal.displayed);
  EXPECT_EQ(minimal.displayed->duration_ms, 1071);
  EXPECT_FALSE(MatchLaunch(events, kApp).displayed);
}

}  // namespace
}  // namespace droidlab::orchestrator
