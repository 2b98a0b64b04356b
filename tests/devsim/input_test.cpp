// `input` and `monkey` on the simulated phone: what they print, that each input reaches the app
// on top (its frames, read back through `dumpsys gfxinfo`), and devsim's own `devsim-input-log`.
#include <gtest/gtest.h>

#include "parsers/gfxinfo.h"
#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

class InputTest : public PinnedClockPhoneTest {
 protected:
  void Make(int sdk) {
    Scenario scenario = OnSdk(sdk);
    scenario.noise_lines_per_s = 0;
    for (PackageSpec& package : scenario.packages) {
      package.frames.per_launch = 10;
      package.frames.per_input = 3;
    }
    MakePhone(scenario);
  }
  std::uint64_t Frames() {
    auto parsed = parsers::ParseGfxinfo(Sh("dumpsys gfxinfo com.example.app").Stdout());
    return parsed.ok() && !parsed->profiles.empty() ? parsed->profiles[0].total_frames : 0;
  }
};

// frameworks/base cmds/input Input.java (Android 9–11) and InputShellCommand (12+): tap, swipe
// (300 ms without a duration), text ("%s" is a space, sendText), keyevent. Android 13.
TEST_F(InputTest, Android13InputsAreLoggedInOrderAndDrawFrames) {
  ASSERT_NO_FATAL_FAILURE(Make(33));
  Sh("am start -W -n com.example.app/.MainActivity");
  EXPECT_EQ(Frames(), 10u);
  EXPECT_EQ(Sh("input tap 540 1200").exit_code, 0);
  EXPECT_EQ(Sh("input touchscreen swipe 1 2 3 4").exit_code, 0);
  EXPECT_EQ(Sh("input swipe 1 2 3 4 500").exit_code, 0);
  EXPECT_EQ(Sh("input text hello%sworld").exit_code, 0);
  EXPECT_EQ(Sh("input keyevent KEYCODE_BACK").exit_code, 0);
  EXPECT_EQ(Frames(), 10u + 5 * 3);
  EXPECT_EQ(Sh("devsim-input-log").Stdout(),
            "tap 540 1200\n"
            "swipe 1 2 3 4 300\n"
            "swipe 1 2 3 4 500\n"
            "text hello world\n"
            "keyevent KEYCODE_BACK\n");
  // BACK finished the activity: a tap now reaches no app.
  Sh("input tap 1 1");
  Sh("am start -W -n com.example.app/.MainActivity");
  EXPECT_EQ(Frames(), 10u + 5 * 3 + 10);
  Sh("devsim-input-log clear");
  EXPECT_EQ(Sh("devsim-input-log").Stdout(), "");
}

// Input.java INVALID_ARGUMENTS ("Error: Invalid arguments for command: ") and its usage; Android
// 11's Input.java throws it out of main (devsim: exit 1), and nothing is delivered.
TEST_F(InputTest, Android11BadArgumentsFailAndDeliverNothing) {
  ASSERT_NO_FATAL_FAILURE(Make(30));
  for (const char* bad :
       {"input tap 540", "input tap x 1", "input swipe 1 2 3", "input text", "input keyevent"}) {
    const auto out = Sh(bad);
    EXPECT_NE(out.exit_code, 0) << bad;
    EXPECT_TRUE(out.Stderr().starts_with("Error: Invalid arguments for command: ")) << bad;
  }
  EXPECT_NE(Sh("input fly 1").exit_code, 0);
  EXPECT_EQ(Sh("devsim-input-log").Stdout(), "");
}

// frameworks/base services/core/java/com/android/server/input/InputShellCommand.java (Android 12+,
// run by `cmd input`): a missing argument is ShellCommand.getNextArgRequired's exception, a bad
// number INVALID_ARGUMENTS; BasicShellCommandHandler prints them, exit 255; an unknown command is
// handleDefaultCommands' "Unknown command: X" on stdout. Android 13.
TEST_F(InputTest, Android13BadArgumentsAreShellCommandExceptions) {
  ASSERT_NO_FATAL_FAILURE(Make(33));
  auto out = Sh("input tap 540");
  EXPECT_EQ(out.exit_code, 255);
  EXPECT_EQ(out.Stderr(),
            "Exception occurred while executing 'tap':\n"
            "java.lang.IllegalArgumentException: Argument expected after \"540\"\n");
  out = Sh("input swipe 1 2 x 4");
  EXPECT_EQ(out.exit_code, 255);
  EXPECT_EQ(out.Stderr(),
            "Exception occurred while executing 'swipe':\n"
            "java.lang.IllegalArgumentException: Error: Invalid arguments for command: swipe\n");
  out = Sh("input fly");
  EXPECT_EQ(out.exit_code, 255);
  EXPECT_EQ(out.Stdout(), "Unknown command: fly\n");
  EXPECT_EQ(Sh("devsim-input-log").Stdout(), "");
}

// Android 9's Input.java prints the error and its usage on stderr and returns from main: the
// shell sees exit 0.
TEST_F(InputTest, Android9BadArgumentsExitZero) {
  ASSERT_NO_FATAL_FAILURE(Make(28));
  const auto out = Sh("input tap 540");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_TRUE(out.Stderr().starts_with("Error: Invalid arguments for command: tap\nUsage: input"));
  EXPECT_EQ(Sh("devsim-input-log").Stdout(), "");
}

// development/cmds/monkey Monkey.java: with -v the ":Monkey: seed=… count=…", ":AllowPackage:",
// ":IncludeCategory:" lines, "Events injected: N" (always), ":Dropped: …", the network stats
// (MonkeyNetworkMonitor.dump) and "// Monkey finished"; the first event starts the app, the
// others are inputs to it. Android 14.
TEST_F(InputTest, Android14MonkeyStartsTheAppAndSendsEvents) {
  ASSERT_NO_FATAL_FAILURE(Make(34));
  const auto out = Sh("monkey -p com.example.app -s 7 --throttle 100 --pct-syskeys 0 -v 200");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.Stdout(),
            ":Monkey: seed=7 count=200\n"
            ":AllowPackage: com.example.app\n"
            ":IncludeCategory: android.intent.category.LAUNCHER\n"
            ":IncludeCategory: android.intent.category.MONKEY\n"
            "Events injected: 200\n"
            ":Dropped: keys=0 pointers=0 trackballs=0 flips=0 rotations=0\n"
            "## Network stats: elapsed time=20200ms (0ms mobile, 0ms wifi, 20200ms not "
            "connected)\n"
            "// Monkey finished\n");
  EXPECT_EQ(Frames(), 10u + 199 * 3);
  EXPECT_EQ(Sh("devsim-input-log").Stdout(), "monkey com.example.app 200\n");
  // Without -v only the events and the network stats.
  EXPECT_EQ(Sh("monkey -p com.example.app 5").Stdout(),
            "Events injected: 5\n## Network stats: elapsed time=5ms (0ms mobile, 0ms wifi, 5ms "
            "not connected)\n");
  const auto no_count = Sh("monkey -p com.example.app");
  EXPECT_EQ(no_count.exit_code, 255);
  EXPECT_TRUE(no_count.Stderr().starts_with("** Error: Count not specified\nusage: monkey"));
  const auto unknown = Sh("monkey -p com.nowhere 5");
  EXPECT_EQ(unknown.exit_code, 255);
  EXPECT_EQ(unknown.Stdout(), "** No activities found to run, monkey aborted.\n");
}

}  // namespace
}  // namespace droidlab::devsim
