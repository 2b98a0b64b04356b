#include "tools/devsim/shell_interpreter.h"

#include <gtest/gtest.h>

#include <map>

namespace droidlab::devsim {
namespace {

// Records the argv of every command and answers "ran:ARGV" (exit 0), or fails for "fail"; `cat`
// and `pidof` answer from `files` and `pids` as devsim's do (exit 1 when there is none).
class RecordingRunner : public CommandRunner {
 public:
  CommandOutput Run(const std::vector<std::string>& argv) override {
    calls.push_back(argv);
    CommandOutput output;
    if (argv[0] == "cat" || argv[0] == "pidof") {
      const auto& table = argv[0] == "cat" ? files : pids;
      const auto it = table.find(argv.back());
      if (it == table.end()) {
        if (argv[0] == "cat") output.Err("cat: " + argv.back() + ": No such file or directory\n");
        output.exit_code = 1;
      } else {
        output.Out(it->second);
      }
      return output;
    }
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
  void ProcessStarted() override { ++processes; }
  std::vector<std::vector<std::string>> calls;
  std::map<std::string, std::string> files;
  std::map<std::string, std::string> pids;
  int processes = 0;
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

// toybox sleep takes fractions and suffixes (toys/posix/sleep.c with SLEEP_FLOAT, xparsetime).
TEST(ShellInterpreterTest, SleepFractionsAndSuffixes) {
  RecordingRunner runner;
  auto output = RunScript("sleep 0.1; sleep 0.250; sleep 1.5s; sleep 2m", runner);
  ASSERT_EQ(output.chunks.size(), 4u);
  EXPECT_EQ(output.chunks[0].delay, std::chrono::milliseconds(100));
  EXPECT_EQ(output.chunks[1].delay, std::chrono::milliseconds(250));
  EXPECT_EQ(output.chunks[2].delay, std::chrono::milliseconds(1500));
  EXPECT_EQ(output.chunks[3].delay, std::chrono::minutes(2));
  EXPECT_EQ(output.exit_code, 0);
  output = RunScript("sleep x", runner);
  EXPECT_EQ(output.exit_code, 1);
}

// Variables are expanded when the command runs, not when the script is read.
TEST(ShellInterpreterTest, ExpansionWhenTheCommandRuns) {
  RecordingRunner runner;
  EXPECT_EQ(RunScript("a=1; echo $a; a=2; echo \"$a\" ${a}", runner).Stdout(), "1\n2 2\n");
}

// $(…): its output without trailing newlines; an assignment alone takes its status (POSIX).
TEST(ShellInterpreterTest, CommandSubstitution) {
  RecordingRunner runner;
  runner.pids["com.x"] = "123\n";
  auto output = RunScript("p=$(pidof -s com.x) && echo \"pid=$p\"", runner);
  EXPECT_EQ(output.Stdout(), "pid=123\n");
  output = RunScript("p=$(pidof -s com.y) && echo yes || echo \"none:$p:\"", runner);
  EXPECT_EQ(output.Stdout(), "none::\n");
}

// mksh's read: one line from a redirected file, blanks trimmed; a file that cannot be opened
// is status 1 with the variable untouched, its message silenced by 2>/dev/null.
TEST(ShellInterpreterTest, ReadFromAFile) {
  RecordingRunner runner;
  runner.files["/proc/uptime"] = "82044.14 215440.94\n";
  auto output = RunScript("read -r u </proc/uptime && echo \"[$u]\"", runner);
  EXPECT_EQ(output.Stdout(), "[82044.14 215440.94]\n");
  output = RunScript("read -r a b </proc/uptime; echo \"$b $a\"", runner);
  EXPECT_EQ(output.Stdout(), "215440.94 82044.14\n");
  output = RunScript("s=old; read -r s 2>/dev/null </proc//stat || echo \"failed $s\"", runner);
  EXPECT_EQ(output.Stdout(), "failed old\n");
  EXPECT_EQ(output.Stderr(), "");
  output = RunScript("read -r s </proc/1/stat", runner);
  EXPECT_EQ(output.exit_code, 1);
  EXPECT_NE(output.Stderr().find("can't open /proc/1/stat"), std::string::npos);
}

TEST(ShellInterpreterTest, IfElseAndNegation) {
  RecordingRunner runner;
  EXPECT_EQ(RunScript("if true; then echo a; else echo b; fi", runner).Stdout(), "a\n");
  EXPECT_EQ(RunScript("if ! true; then echo a; else echo b; fi", runner).Stdout(), "b\n");
  EXPECT_EQ(RunScript("if false; then echo a; fi; echo $?", runner).Stdout(), "0\n");
  EXPECT_EQ(RunScript("{ echo a; echo b; }", runner).Stdout(), "a\nb\n");
  EXPECT_EQ(RunScript("if true; then echo a", runner).exit_code, 1);  // no fi
}

// A loop runs one iteration per slice: the output of each comes with `next`, so a loop that
// never ends streams, paced by its sleep.
TEST(ShellInterpreterTest, LoopRunsOneIterationAtATime) {
  RecordingRunner runner;
  ShellEnvironment env;
  auto output = RunShellScript("n=; while :; do echo \"tick$n\"; n=$n.; sleep 0.1; done", env,
                               runner);
  EXPECT_EQ(output.Stdout(), "tick\n");
  ASSERT_TRUE(output.next);
  output = output.next();
  ASSERT_EQ(output.chunks.size(), 2u);
  EXPECT_EQ(output.chunks[0].data, "tick.\n");
  EXPECT_EQ(output.chunks[1].delay, std::chrono::milliseconds(100));
  ASSERT_TRUE(output.next);
  EXPECT_EQ(output.next().Stdout(), "tick..\n");
}

// A loop that ends runs what follows it; RunShellScriptToEnd follows it to the end, or stops
// one that never ends at its step limit.
TEST(ShellInterpreterTest, LoopThatEndsAndOneThatDoesNot) {
  RecordingRunner runner;
  ShellEnvironment env;
  const auto ended =
      RunShellScriptToEnd("while false; do echo never; done; echo after", env, runner);
  EXPECT_EQ(ended.Stdout(), "after\n");
  EXPECT_EQ(ended.exit_code, 0);
  const auto endless = RunShellScriptToEnd("while :; do echo x; done; echo after", env, runner, 5);
  EXPECT_EQ(endless.Stdout(), "x\nx\nx\nx\nx\nx\n");
  EXPECT_EQ(endless.exit_code, 2);
  EXPECT_NE(endless.Stderr().find("loop did not end"), std::string::npos);
}

// `sh -c SCRIPT NAME ARGS`: $0 is NAME, $1… the arguments; its exit ends it, not the caller.
TEST(ShellInterpreterTest, NestedShellWithPositionalParameters) {
  RecordingRunner runner;
  const auto output =
      RunScript("sh -c 'echo \"$0:$1:$2\"; exit 4' name 'a b' c; echo \"after $?\"", runner);
  EXPECT_EQ(output.Stdout(), "name:a b:c\nafter 4\n");
}

// droidlab's sampling loop (orchestrator/run/device_commands.cpp) as the host sends it: the
// stat read with read, the pid found again by pidof -s when the read fails, one frame a tick.
TEST(ShellInterpreterTest, ProcSamplingLoopFollowsThePid) {
  RecordingRunner runner;
  runner.files["/proc/uptime"] = "100.00 600.00\n";
  runner.pids["com.x"] = "123\n";
  runner.files["/proc/123/stat"] = "123 (com.x) S 1\n";
  ShellEnvironment env;
  const std::string loop =
      "p=\nwhile :; do\nif ! read -r s 2>/dev/null </proc/$p/stat; then\n"
      "p=$(pidof -s \"$1\") && read -r s 2>/dev/null </proc/$p/stat || s=\nfi\n"
      "read -r u </proc/uptime\necho \"@proc $u\n$s\n@end\"\nsleep \"$2\"\ndone";
  const std::string script = "sh -c '" + loop + "' droidlab-proc com.x 0.100";
  auto output = RunShellScript(script, env, runner);
  EXPECT_EQ(output.Stdout(), "@proc 100.00 600.00\n123 (com.x) S 1\n@end\n");
  ASSERT_TRUE(output.next);
  // The app is killed: an empty stat line, no error on stderr.
  runner.files.erase("/proc/123/stat");
  runner.pids.erase("com.x");
  output = output.next();
  EXPECT_EQ(output.Stdout(), "@proc 100.00 600.00\n\n@end\n");
  EXPECT_EQ(output.Stderr(), "");
  // A new process: found by pidof within the same tick.
  runner.pids["com.x"] = "456\n";
  runner.files["/proc/456/stat"] = "456 (com.x) S 1\n";
  output = output.next();
  EXPECT_EQ(output.Stdout(), "@proc 100.00 600.00\n456 (com.x) S 1\n@end\n");
  // Steady state: one process a tick (sleep), no pidof, no cat.
  const int processes = runner.processes;
  const size_t calls = runner.calls.size();
  output = output.next();
  EXPECT_EQ(runner.processes - processes, 1);
  for (size_t i = calls; i < runner.calls.size(); ++i) EXPECT_NE(runner.calls[i][0], "pidof");
}

}  // namespace
}  // namespace droidlab::devsim
