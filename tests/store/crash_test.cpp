// kill -9 at random moments while a child process ingests at full speed: afterwards the file
// passes PRAGMA integrity_check, and every record the child was told was committed is there.
//
// The child reports each commit on a pipe as it is told of it (a line per record kind: the run
// creation returned, a launch's or a looper batch's completion ran, a status change returned).
// The parent kills it after a random delay, reads what was reported, reopens the store the way
// the daemon would, and checks. Twenty rounds on the same file, so each round also recovers the
// WAL the previous kill left behind.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "store/store.h"
#include "tests/common/temp_dir.h"

namespace droidlab::store {
namespace {

void WriteLine(int fd, const std::string& line) {
  // One write per line, shorter than PIPE_BUF: atomic even from two threads.
  (void)!write(fd, line.data(), line.size());
}

[[noreturn]] void IngestForever(const std::string& path, int fd) {
  StoreOptions options;
  options.path = path;
  auto opened = Store::Open(options);
  if (!opened.ok()) {
    WriteLine(fd, "E " + opened.error().message + "\n");
    _exit(2);
  }
  Store& store = **opened;
  for (int64_t round = 0;; ++round) {
    NewRun run;
    run.spec_json = R"({"mode":"cold"})";
    run.serial = "emulator-5554";
    run.package = "com.example.app";
    run.mode = "cold";
    run.iterations = 50;
    run.created_at = round;
    auto id = store.CreateRun(run);
    if (!id.ok()) _exit(3);
    const int64_t run_id = *id;
    WriteLine(fd, "R " + std::to_string(run_id) + "\n");
    for (int64_t i = 0; i < 50; ++i) {
      Launch launch;
      launch.run_id = run_id;
      launch.iteration = i;
      launch.displayed_ms = 500 + i;
      (void)store.AddLaunches({launch}, [fd, run_id, i](const Status& s) {
        if (s.ok()) WriteLine(fd, "L " + std::to_string(run_id) + " " + std::to_string(i) + "\n");
      });
      if (i % 10 == 0) {
        std::vector<LooperStatsRow> rows(100);
        for (auto& row : rows) {
          row.run_id = run_id;
          row.work_source_uid = "com.example.app/u0a123";
          row.thread_name = "android.ui";
          row.handler_class = "android.view.Choreographer$FrameHandler";
          row.message_count = i;
        }
        (void)store.AddLooperStats(std::move(rows), [fd, run_id](const Status& s) {
          if (s.ok()) WriteLine(fd, "S " + std::to_string(run_id) + " 100\n");
        });
      }
    }
    RunStatusUpdate done;
    done.run_id = run_id;
    done.status = RunStatus::kSucceeded;
    done.finished_at = round;
    if (store.UpdateRunStatus(done).ok()) WriteLine(fd, "U " + std::to_string(run_id) + "\n");
  }
}

struct Reported {
  std::set<int64_t> runs;
  std::set<int64_t> succeeded;
  std::map<int64_t, std::set<int64_t>> launches;
  std::map<int64_t, int64_t> looper_rows;
  std::string error;
};

Reported Parse(const std::string& text) {
  Reported r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a line cut by the kill: the child was not done writing it
    std::istringstream fields(line);
    char kind = 0;
    int64_t a = 0;
    int64_t b = 0;
    fields >> kind;
    if (kind == 'E') {
      r.error = line;
      continue;
    }
    fields >> a;
    switch (kind) {
      case 'R':
        r.runs.insert(a);
        break;
      case 'U':
        r.succeeded.insert(a);
        break;
      case 'L':
        fields >> b;
        r.launches[a].insert(b);
        break;
      case 'S':
        fields >> b;
        r.looper_rows[a] += b;
        break;
      default:
        break;
    }
  }
  return r;
}

// Reads from `fd` until `deadline` (or EOF when deadline is max).
void ReadUntil(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) return;
    out.append(buffer, static_cast<size_t>(n));
  }
}

TEST(CrashTest, KillNineWhileIngestingLosesNothingReported) {
  testutil::TempDir dir;
  const std::string path = dir.File("crash.db");
  std::random_device seed_source;
  const unsigned seed = seed_source();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_ms(5, 400);
  SCOPED_TRACE("seed " + std::to_string(seed));

  int64_t total_launches = 0;
  for (int round = 0; round < 20; ++round) {
    const int delay = delay_ms(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ", kill after " + std::to_string(delay) + " ms");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      IngestForever(path, fds[1]);
    }
    close(fds[1]);
    std::string text;
    ReadUntil(fds[0], text, std::chrono::steady_clock::now() + std::chrono::milliseconds(delay));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the child ended before the kill: " << text;
    ReadUntil(fds[0], text, std::chrono::steady_clock::time_point::max());
    close(fds[0]);
    const Reported reported = Parse(text);
    ASSERT_TRUE(reported.error.empty()) << reported.error;

    StoreOptions options;
    options.path = path;
    auto store = Store::Open(options);
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto check = (*store)->Read([](Reader& r) { return r.IntegrityCheck(); });
    ASSERT_TRUE(check.ok());
    EXPECT_EQ(*check, "ok");
    for (int64_t run_id : reported.runs) {
      auto run = (*store)->Read([&](Reader& r) { return r.GetRun(run_id); });
      ASSERT_TRUE(run.ok()) << "run " << run_id << " was reported created: " << run.error().message;
      if (reported.succeeded.count(run_id) != 0) {
        EXPECT_EQ(run->status, RunStatus::kSucceeded) << "run " << run_id;
      }
    }
    for (const auto& [run_id, iterations] : reported.launches) {
      auto stored = (*store)->Read([&, id = run_id](Reader& r) { return r.ListLaunches(id); });
      ASSERT_TRUE(stored.ok());
      std::set<int64_t> have;
      for (const Launch& l : *stored) have.insert(l.iteration);
      for (int64_t i : iterations) {
        EXPECT_EQ(have.count(i), 1u) << "launch " << i << " of run " << run_id << " lost";
      }
      total_launches += static_cast<int64_t>(iterations.size());
    }
    for (const auto& [run_id, rows] : reported.looper_rows) {
      auto stored = (*store)->Read([&, id = run_id](Reader& r) { return r.ListLooperStats(id); });
      ASSERT_TRUE(stored.ok());
      EXPECT_GE(static_cast<int64_t>(stored->size()), rows) << "looper rows of run " << run_id;
    }
  }
  // The kills must have landed mid-ingest, not all before the first commit.
  EXPECT_GT(total_launches, 100);
  std::printf("[ crash    ] 20 kills, seed %u, %lld launches reported committed, all present\n",
              seed, static_cast<long long>(total_launches));
}

}  // namespace
}  // namespace droidlab::store
