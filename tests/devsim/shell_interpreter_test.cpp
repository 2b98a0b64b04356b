#include "tools/devsim/shell_interpreter.h"

#include <gtest/gtest.h>

namespace droidlab::devsim {
namespace {

// Records the argv of every command and answers "ran:ARGV" (exit 0), or fails for "fail".
class RecordingRunner : public CommandRunner {
 public:
  CommandOutput Run(const std::vector<std::string>& argv) override {
    calls.push_back(argv);
    CommandOutput output;
    if (argv[0] == "fail") {
      output.Err("failed\n");
      output.exit_code = 7;
      return output;
    }
    std::string text = "ran:";
    for (const auto& arg : argv) text += "[" + arg + "]";
    output.Out(text + "\n");
    return output;
  }
  std::vector<std::vector<std::string>> calls;
};

CommandOutput RunScript(std::string_view script, RecordingRunner& runner) {
  ShellEnvironment env;
  return RunShellScript(script, env, runner);
}

TEST(ShellInterpreterTest, WhatAdbLogcatSends) {
  RecordingRunner runner;
  ShellEnvironment env;
  const auto output = RunShellScript("export ANDROID_LOG_TAGS=\"''\"; exec logcat -d", env, runner);
  EXPECT_EQ(env.variables["ANDROID_LOG_TAGS"], "''");
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0], (std::vector<std::string>{"logcat", "-d"}));
  EXPECT_EQ(output.exit_code, 0);
}

TEST(ShellInterpreterTest, ExitSetsStatusAndStops) {
  RecordingRunner runner;
  const auto output = RunScript("exit 3; getprop", runner);
  EXPECT_EQ(output.exit_code, 3);
  EXPECT_TRUE(runner.calls.empty());
}

TEST(ShellInterpreterTest, QuotesAndEscapes) {
  RecordingRunner runner;
  const auto output = RunScript(R"(am start -n 'com.x/.A b' "two words" a\ b "q\"q")", runner);
  ASSERT_EQ(runner.calls.size(), 1u);
  EXPECT_EQ(runner.calls[0], (std::vector<std::string>{"am", "start", "-n", "com.x/.A b",
                                                       "two words", "a b", "q\"q"}));
}

TEST(ShellInterpreterTest, AndOrAndStatus) {
  RecordingRunner runner;
  const auto output = RunScript("fail && getprop a; fail || getprop b; echo $?", runner);
  ASSERT_EQ(runner.calls.size(), 3u);  // fail, fail, getprop b
  EXPECT_EQ(runner.calls[2], (std::vector<std::string>{"getprop", "b"}));
  EXPECT_EQ(output.Stdout(), "ran:[getprop][b]\n0\n");
  EXPECT_EQ(output.Stderr(), "failed\nfailed\n");
}

TEST(ShellInterpreterTest, LastCommandStatusIsTheScriptStatus) {
  RecordingRunner runner;
  EXPECT_EQ(RunScript("getprop; fail", runner).exit_code, 7);
  EXPECT_EQ(RunScript("fail; exit", runner).exit_code, 7);
}

TEST(ShellInterpreterTest, Redirections) {
  RecordingRunner runner;
  EXPECT_EQ(RunScript("fail 2>/dev/null", runner).Stderr(), "");
  const auto merged = RunScript("fail 2>&1", runner);
  EXPECT_EQ(merged.Stdout(), "failed\n");
  EXPECT_EQ(RunScript("echo hi >/dev/null", runner).Stdout(), "");
}

TEST(ShellInterpreterTest, UnterminatedQuoteIsASyntaxError) {
  RecordingRunner runner;
  const auto output = RunScript("echo 'oops", runner);
  EXPECT_EQ(output.exit_code, 1);
  EXPECT_NE(output.Stderr().find("syntax error"), std::string::npos);
}

TEST(ShellInterpreterTest, PipesAreRefusedClearly) {
  RecordingRunner runner;
  const auto output = RunScript("ps -A | grep x", runner);
  EXPECT_EQ(output.exit_code, 2);
  EXPECT_TRUE(runner.calls.empty());
}

TEST(ShellInterpreterTest, EchoAndSleepTiming) {
  RecordingRunner runner;
  const auto output = RunScript("echo -n a; sleep 2; echo b", runner);
  EXPECT_EQ(output.Stdout(), "ab\n");
  ASSERT_EQ(output.chunks.size(), 2u);
  EXPECT_EQ(output.chunks[1].delay, std::chrono::seconds(2));
  EXPECT_EQ(output.chunks[1].data, "b\n");
}

}  // namespace
}  // namespace droidlab::devsim
