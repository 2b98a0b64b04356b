// `droidlab serve`'s safe defaults on a network (issue 13, §4), through the real binary as an
// operator meets them: no token and an address beyond loopback is refused unless --insecure is
// said, a token file others can read is refused — each before anything is opened or created.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <string>

#include "tests/common/child_process.h"
#include "tests/common/subprocess.h"
#include "tests/common/temp_dir.h"

namespace droidlab {
namespace {

using testutil::ChildProcess;
using testutil::RunProcess;
using testutil::TempDir;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string TokenFile(TempDir& dir, mode_t mode) {
  const std::string path = dir.File("token");
  testutil::WriteFileBytes(path, "s3cret-token\n");
  ::chmod(path.c_str(), mode);
  return path;
}

// No adb server is needed to be refused, nor to start: the daemon keeps looking for one.
std::vector<std::string> Serve(const std::string& db, std::vector<std::string> more) {
  std::vector<std::string> argv{DROIDLAB_BINARY, "serve", "--db", db, "--adb-path", "",
                                "--adb-server", "tcp:127.0.0.1:1"};
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

TEST(ServeSafetyTest, BeyondLoopbackWithoutATokenIsRefusedAndNothingIsCreated) {
  TempDir dir;
  const std::string db = dir.File("droidlab.db");
  ::unsetenv("DROIDLAB_TOKEN");
  auto refused = RunProcess(Serve(db, {"--listen", "0.0.0.0:0"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("refusing to listen on 0.0.0.0:0 without a token"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("--insecure"), std::string::npos) << refused.err;
  EXPECT_FALSE(Exists(db));
  EXPECT_FALSE(Exists(db + ".lock"));
}

TEST(ServeSafetyTest, InsecureSaidInSoManyWordsServesTheNetworkWithAWarning) {
  TempDir dir;
  ::unsetenv("DROIDLAB_TOKEN");
  ChildProcess daemon(Serve(dir.File("droidlab.db"), {"--listen", "0.0.0.0:0", "--insecure"}));
  auto line = daemon.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("droidlab serve: listening on http://0.0.0.0:"), std::string::npos) << *line;
  EXPECT_EQ(daemon.Stop(), 0);
}

// SIGTERM after SIGTERM (systemd, tini and test harnesses may each send one): the daemon still
// ends by itself with exit 0, never killed by a second signal halfway through its teardown. The
// signals come as fast as kill(2) can send them, so that a moment of the teardown where the
// default action is back, however short, is hit (it was, once in a while, at one every 10 ms).
TEST(ServeSafetyTest, RepeatedSigtermsStillEndInACleanExit) {
  TempDir dir;
  for (int attempt = 0; attempt < 5; ++attempt) {
    ChildProcess daemon(Serve(dir.File("droidlab.db"), {"--listen", "127.0.0.1:0"}));
    ASSERT_TRUE(daemon.ReadLine(std::chrono::seconds(20)));
    std::optional<int> status;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!status && std::chrono::steady_clock::now() < deadline) {
      ::kill(daemon.pid(), SIGTERM);
      status = daemon.Wait(std::chrono::milliseconds(0));
    }
    ASSERT_TRUE(status) << "the daemon did not stop";
    EXPECT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status);
    if (WIFEXITED(*status)) {
      EXPECT_EQ(WEXITSTATUS(*status), 0);
    }
  }
}

TEST(ServeSafetyTest, ATokenFileOthersCanReadIsRefused) {
  TempDir dir;
  const std::string db = dir.File("droidlab.db");
  const std::string token = TokenFile(dir, 0644);
  auto refused = RunProcess(Serve(db, {"--listen", "0.0.0.0:0", "--token-file", token}));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("permissions 0644"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("chmod o-rw"), std::string::npos) << refused.err;
  EXPECT_FALSE(Exists(db));
}

TEST(ServeSafetyTest, ATokenFileOfItsOwnerAndGroupServesTheNetwork) {
  TempDir dir;
  const std::string token = TokenFile(dir, 0640);
  ChildProcess daemon(
      Serve(dir.File("droidlab.db"), {"--listen", "0.0.0.0:0", "--token-file", token}));
  auto line = daemon.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("; token required"), std::string::npos) << *line;
  EXPECT_EQ(daemon.Stop(), 0);
}

// Said at start-up, before anything else can go wrong: here the database's folder is missing, so
// the daemon exits 1 right after, and its stderr is what an operator's journal would hold.
TEST(ServeSafetyTest, RootAndInsecureAreEachSaidInAWarning) {
  if (::geteuid() != 0) GTEST_SKIP() << "not run as root";
  TempDir dir;
  ::unsetenv("DROIDLAB_TOKEN");
  auto ended = RunProcess(
      Serve(dir.File("missing/droidlab.db"), {"--listen", "0.0.0.0:0", "--insecure"}));
  EXPECT_EQ(ended.exit_code, 1) << ended.err;
  EXPECT_NE(ended.err.find(" running as root"), std::string::npos) << ended.err;
  EXPECT_NE(ended.err.find("--insecure: the API has no token"), std::string::npos) << ended.err;
}

}  // namespace
}  // namespace droidlab
