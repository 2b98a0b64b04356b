// The client commands' front door, in-process: what they do before any call to a daemon.
#include "daemon/client_commands.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace droidlab::daemon {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

// Runs a command with its stdout and stderr in memory.
Outcome RunCommand(const std::string& command, const std::vector<std::string>& args,
            const ClientEnvironment& env = {}) {
  char* out_text = nullptr;
  char* err_text = nullptr;
  size_t out_size = 0, err_size = 0;
  std::FILE* out = open_memstream(&out_text, &out_size);
  std::FILE* err = open_memstream(&err_text, &err_size);
  Outcome o;
  o.exit_code = RunClientCommand(command, args, env, out, err);
  std::fclose(out);
  std::fclose(err);
  o.out.assign(out_text, out_size);
  o.err.assign(err_text, err_size);
  std::free(out_text);
  std::free(err_text);
  return o;
}

TEST(ClientCommandsTest, HelpAnywhereIsTheUsageOnStdout) {
  auto help = RunCommand("run", {"--serial", "S", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("droidlab run --serial S --package P"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("3 regression"), std::string::npos) << help.out;
  EXPECT_EQ(help.err, "");
}

TEST(ClientCommandsTest, UsageErrorsAreOneLineAndExitTwo) {
  auto o =
      RunCommand("run", {"--serial", "S", "--package", "com.a", "--mode", "tepid", "--iterations", "3"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "droidlab run: --mode: expected cold, warm or hot, got 'tepid'\n");
}

TEST(ClientCommandsTest, ABadServerFromTheEnvironmentIsAUsageError) {
  ClientEnvironment env;
  env.server = "https://lab:8765";
  auto o = RunCommand("devices", {}, env);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err,
            "droidlab devices: DROIDLAB_SERVER: https is not supported: the daemon speaks plain "
            "HTTP, got 'https://lab:8765'\n");
}

TEST(ClientCommandsTest, AnUnreadableTokenFileIsAUsageError) {
  auto o = RunCommand("devices", {"--token-file", "/nonexistent/droidlab-token"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "droidlab devices: --token-file: cannot read /nonexistent/droidlab-token\n");
}

TEST(ClientCommandsTest, OnlyTheClientCommandsAreClaimed) {
  for (const char* name : {"devices", "runs", "run", "watch", "schedules"}) {
    EXPECT_TRUE(IsClientCommand(name)) << name;
  }
  for (const char* name : {"serve", "parse", "migrate", "device", ""}) {
    EXPECT_FALSE(IsClientCommand(name)) << name;
  }
}

}  // namespace
}  // namespace droidlab::daemon
