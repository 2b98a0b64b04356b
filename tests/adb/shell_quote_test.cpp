// Quoting as packages/modules/adb adb_utils.cpp escape_arg does (' -> '\''), with safe words bare.
#include "adb/shell_quote.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::adb {
namespace {

using namespace std::literals;

std::string Quote(std::initializer_list<std::string_view> argv) {
  auto c = BuildShellCommand(argv);
  EXPECT_TRUE(c) << (c ? "" : c.error().message);
  return c ? c->str() : "";
}

TEST(ShellQuoteTest, PlainWordsStayBare) {
  EXPECT_EQ(Quote({"pm", "path", "com.example.app"}), "pm path com.example.app");
  EXPECT_EQ(Quote({"am", "start", "-W", "-n", "com.example.app/.Main"}),
            "am start -W -n com.example.app/.Main");
  EXPECT_EQ(Quote({"cat", "/proc/1234/stat"}), "cat /proc/1234/stat");
  EXPECT_EQ(Quote({"logcat", "-v", "threadtime,epoch"}), "logcat -v threadtime,epoch");
}

TEST(ShellQuoteTest, EqualsIsQuoted) {
  EXPECT_EQ(Quote({"settings", "put", "global", "looper_stats",
                   "enabled=true,sampling_interval=1,ignore_battery_status=true"}),
            "settings put global looper_stats "
            "'enabled=true,sampling_interval=1,ignore_battery_status=true'");
  EXPECT_EQ(Quote({"A=B", "id"}), "'A=B' id");
}

TEST(ShellQuoteTest, EmptyArgument) { EXPECT_EQ(Quote({"echo", ""}), "echo ''"); }

TEST(ShellQuoteTest, SingleQuoteAsEscapeArg) {
  EXPECT_EQ(Quote({"echo", "it's"}), R"(echo 'it'\''s')");
  EXPECT_EQ(Quote({"'"}), R"(''\''')");
  EXPECT_EQ(Quote({"''"}), R"(''\'''\''')");
}

TEST(ShellQuoteTest, ComponentWithDollarIsQuoted) {
  EXPECT_EQ(Quote({"am", "start", "-n", "com.example.app/.Outer$Inner"}),
            "am start -n 'com.example.app/.Outer$Inner'");
}

// Each attempt stays one harmless argument: the exact text the device's sh will see.
struct InjectionCase {
  const char* name;
  std::string arg;
  std::string quoted;
};

class ShellQuoteInjectionTest : public ::testing::TestWithParam<InjectionCase> {};

TEST_P(ShellQuoteInjectionTest, OneHarmlessArgument) {
  EXPECT_EQ(Quote({"pm", "path", GetParam().arg}), "pm path " + GetParam().quoted);
}

INSTANTIATE_TEST_SUITE_P(
    Attempts, ShellQuoteInjectionTest,
    ::testing::Values(
        InjectionCase{"Semicolon", "com.x; reboot", "'com.x; reboot'"},
        InjectionCase{"CommandSubstitution", "$(reboot)", "'$(reboot)'"},
        InjectionCase{"Backticks", "`reboot`", "'`reboot`'"},
        InjectionCase{"Newline", "com.x\nreboot", "'com.x\nreboot'"},
        InjectionCase{"CarriageReturn", "com.x\rreboot", "'com.x\rreboot'"},
        InjectionCase{"QuoteBreakout", "x'; reboot; echo '", R"('x'\''; reboot; echo '\''')"},
        InjectionCase{"DoubleQuotes", "\"$(reboot)\"", "'\"$(reboot)\"'"},
        InjectionCase{"Backslash", "a\\'b", R"('a\'\''b')"},
        InjectionCase{"AndOr", "a && reboot || reboot", "'a && reboot || reboot'"},
        InjectionCase{"Pipe", "a|reboot", "'a|reboot'"},
        InjectionCase{"Redirect", ">/data/x", "'>/data/x'"},
        InjectionCase{"Variable", "$HOME${IFS}x", "'$HOME${IFS}x'"},
        InjectionCase{"Glob", "/data/*", "'/data/*'"}, InjectionCase{"Tilde", "~/x", "'~/x'"},
        InjectionCase{"Comment", "#x", "'#x'"}, InjectionCase{"Background", "reboot&", "'reboot&'"},
        InjectionCase{"Unicode", "com.\xc3\xa9", "'com.\xc3\xa9'"},
        InjectionCase{"RightToLeft", "a\u202eb", "'a\u202eb'"},
        InjectionCase{"Escape", "\x1b[2J", "'\x1b[2J'"},
        InjectionCase{"LeadingDash", "-rf", "-rf"}),
    [](const ::testing::TestParamInfo<InjectionCase>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(ShellQuoteTest, NulRefused) {
  auto c = BuildShellCommand({"echo", "com.x\0reboot"sv});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, AdbErrc::kInvalidArgument);
  EXPECT_EQ(c.error().message, "shell argument 1 holds a NUL byte");
}

TEST(ShellQuoteTest, EmptyArgvRefused) {
  auto c = BuildShellCommand(std::vector<std::string>{});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, AdbErrc::kInvalidArgument);
}

TEST(ShellQuoteTest, VectorOverload) {
  std::vector<std::string> argv = {"input", "keyevent", "KEYCODE_HOME"};
  auto c = BuildShellCommand(argv);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->str(), "input keyevent KEYCODE_HOME");
}

TEST(ShellQuoteTest, JoinedCommandsEachEndWithTheirMarkAndExitStatus) {
  const std::vector<std::vector<std::string>> argvs = {{"am", "force-stop", "com.x"},
                                                       {"echo", "a; reboot"}};
  auto c = BuildJoinedShellCommand(argvs, "dl-0f3a");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(
      c->str(),
      R"(am force-stop com.x 2>&1; echo "dl-0f3a $?"; echo 'a; reboot' 2>&1; echo "dl-0f3a $?")");
}

TEST(ShellQuoteTest, JoinedCommandsRefuseAMarkThatIsNotAWordAndAnyBadArgv) {
  const std::vector<std::vector<std::string>> one = {{"pidof", "com.x"}};
  for (std::string_view mark : {""sv, "a b"sv, "a\"$(reboot)"sv, "a;b"sv}) {
    auto c = BuildJoinedShellCommand(one, mark);
    ASSERT_FALSE(c) << mark;
    EXPECT_EQ(c.error().code, AdbErrc::kInvalidArgument);
  }
  EXPECT_FALSE(BuildJoinedShellCommand({}, "m"));
  const std::vector<std::vector<std::string>> with_empty = {{"pidof", "com.x"}, {}};
  EXPECT_FALSE(BuildJoinedShellCommand(with_empty, "m"));
  const std::vector<std::vector<std::string>> with_nul = {{"echo", "a\0b"s}};
  EXPECT_FALSE(BuildJoinedShellCommand(with_nul, "m"));
}

TEST(ShellQuoteTest, Literal) {
  EXPECT_EQ(ShellCommand::FromLiteral("dumpsys battery reset").str(), "dumpsys battery reset");
}

}  // namespace
}  // namespace droidlab::adb
