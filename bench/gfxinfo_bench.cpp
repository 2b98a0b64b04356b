// ParseGfxinfo over framestats rows against a minimal reference CSV reader, in the same run
// (issue 16's speed goal: framestats parsed at >= 5 M rows/s).
//
// Both read the same generated `dumpsys gfxinfo PKG framestats` text: an Android 14 process
// block, then ---PROFILEDATA--- blocks of 120 rows (hwui's ring) with the 23 columns of
// FrameInfoNames, each value followed by ','; ~1,000,000 rows in all (8,334 blocks, as if one
// dump held that many windows — the parser's per-row path is what is measured). The reference
// splits each row at ',' and from_chars every field into one reused vector: it reads every
// value and keeps none, the floor for any reader. Ours parses the stats, finds each block,
// checks the header and every value, and keeps every row (each block's rows in one array: 184 MB
// for a million rows of 23 values, the memory the reference does not fill). Best of 5 runs each.
// `--quick`: 60,000 rows.
//
// With PATH_TO_DROIDLAB, first the command as a user runs it: `droidlab parse gfxinfo FILE >
// /dev/null` as a child (reading the file, parsing, writing the JSON: every row twice, ~1.4 KB
// of JSON a row) on a 50,000-row dump (13.8 MB: `parse` reads at most 16 MiB of gfxinfo), best
// of 5 by wall-clock and by its CPU time (wait4), with its peak RSS; beside the reference reader
// on the same 50,000 rows in this process.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/gfxinfo.h"

namespace {

constexpr const char* kHeader =
    "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,"
    "AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameStartTime,FrameInterval,"
    "SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,"
    "DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,"
    "DisplayPresentTime,CommandSubmissionCompleted,";

std::string GenerateDump(size_t rows) {
  std::string out =
      "Applications Graphics Acceleration Info:\nUptime: 88123456 Realtime: 99123456\n\n"
      "** Graphics info for pid 31337 [com.example.app] **\n\n"
      "Stats since: 88000000000000ns\nTotal frames rendered: 100\nJanky frames: 6 (6.00%)\n"
      "50th percentile: 8ms\n90th percentile: 12ms\n95th percentile: 17ms\n"
      "99th percentile: 40ms\nNumber Missed Vsync: 2\nNumber High input latency: 31\n"
      "Number Slow UI thread: 4\nNumber Slow bitmap uploads: 0\n"
      "Number Slow issue draw commands: 3\nNumber Frame deadline missed: 6\n\n";
  int64_t vsync = 88'000'600'000'000;
  size_t written = 0;
  char buf[64];
  while (written < rows) {
    out += "---PROFILEDATA---\n";
    out += kHeader;
    out += '\n';
    for (int r = 0; r < 120 && written < rows; ++r, ++written) {
      const int64_t done = vsync + 8'000'000 + (written % 10 == 0 ? 32'000'000 : 0);
      const int64_t values[23] = {r == 0 ? 1 : 0, 700 + r, vsync, vsync, 0, vsync + 100'000,
                                  vsync + 200'000, vsync + 300'000, vsync + 400'000,
                                  vsync + 16'666'666, vsync + 50'000, 16'666'666,
                                  vsync + 1'000'000, vsync + 1'100'000, vsync + 1'200'000,
                                  vsync + 2'000'000, done, 10'000, 20'000, done, vsync + 2'500'000,
                                  0, vsync + 2'400'000};
      for (int64_t v : values) {
        const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
        out.append(buf, end);
        out += ',';
      }
      out += '\n';
      vsync += 16'666'666;
    }
    out += "---PROFILEDATA---\n\n";
  }
  return out;
}

// The reference: every value of every row between the markers, into a reused vector.
size_t MinimalRows(std::string_view text, int64_t& checksum) {
  size_t rows = 0;
  std::vector<int64_t> values;
  bool in_block = false;
  bool header_next = false;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    if (line == "---PROFILEDATA---") {
      in_block = !in_block;
      header_next = in_block;
      continue;
    }
    if (!in_block) continue;
    if (header_next) {
      header_next = false;
      continue;
    }
    values.clear();
    const char* p = line.data();
    const char* end = p + line.size();
    while (p < end) {
      int64_t v = 0;
      const auto r = std::from_chars(p, end, v);
      if (r.ec != std::errc()) break;
      values.push_back(v);
      p = r.ptr + 1;  // the ',' after each value
    }
    checksum += values.empty() ? 0 : values.back();
    ++rows;
  }
  return rows;
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Best of 5 runs, by wall time and by this thread's CPU time: on the shared machine the wall
// time also counts the time other processes held the core.
struct Rate {
  double wall = 0;  // rows per second
  double cpu = 0;   // rows per CPU second
};

template <class Fn>
Rate BestRowsPerSecond(size_t rows, Fn&& parse) {
  Rate best;
  for (int run = 0; run < 5; ++run) {
    const double cpu0 = ThreadCpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    parse();
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    const double cpu = ThreadCpuSeconds() - cpu0;
    best.wall = std::max(best.wall, static_cast<double>(rows) / dt.count());
    best.cpu = std::max(best.cpu, static_cast<double>(rows) / cpu);
  }
  return best;
}

struct ChildRun {
  double wall = 0;  // seconds
  double cpu = 0;   // user + system seconds
  long max_rss_kb = 0;
  bool ok = false;
};

// `droidlab parse gfxinfo PATH` with stdout to /dev/null.
ChildRun RunParse(const std::string& droidlab, const std::string& path) {
  ChildRun run;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_WRONLY);
    dup2(null_fd, STDOUT_FILENO);
    execl(droidlab.c_str(), droidlab.c_str(), "parse", "gfxinfo", path.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  run.max_rss_kb = usage.ru_maxrss;
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

// The command's figures (see the top of this file); false when it failed.
bool MeasureCommand(const std::string& droidlab) {
  constexpr size_t kRows = 50'000;
  std::string dump = GenerateDump(kRows);
  const std::string path = "/tmp/droidlab_gfxinfo_bench_50k.txt";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(dump.data(), 1, dump.size(), f) != dump.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "gfxinfo_bench: cannot write %s\n", path.c_str());
    return false;
  }
  int64_t ref_sum = 0;
  const Rate ref = BestRowsPerSecond(kRows, [&] { MinimalRows(dump, ref_sum); });
  const double megabytes = static_cast<double>(dump.size()) / 1e6;
  // A child's peak RSS (wait4) counts what it held before exec, this process's pages: measured
  // first in main and with the dump freed, so that the figure is the command's own.
  std::string().swap(dump);
  ChildRun best;
  best.wall = best.cpu = 1e30;
  for (int run = 0; run < 5; ++run) {
    const ChildRun r = RunParse(droidlab, path);
    if (!r.ok) {
      std::fprintf(stderr, "gfxinfo_bench: droidlab parse gfxinfo %s failed\n", path.c_str());
      return false;
    }
    best.wall = std::min(best.wall, r.wall);
    best.cpu = std::min(best.cpu, r.cpu);
    best.max_rss_kb = std::max(best.max_rss_kb, r.max_rss_kb);
  }
  const double rows = static_cast<double>(kRows);
  std::printf(
      "droidlab parse gfxinfo FILE (child, %zu rows, %.1f MB, JSON to /dev/null), best of 5\n",
      kRows, megabytes);
  std::printf("                                   wall-clock       CPU time\n");
  std::printf("  reference (in process, no file): %6.2f M rows/s  %6.2f M rows/s\n", ref.wall / 1e6,
              ref.cpu / 1e6);
  std::printf(
      "  droidlab parse gfxinfo:          %6.2f M rows/s  %6.2f M rows/s  peak RSS %ld KiB\n",
      rows / best.wall / 1e6, rows / best.cpu / 1e6, best.max_rss_kb);
  std::printf("  ratio command/reference:         %6.2f          %6.2f\n",
              rows / best.wall / ref.wall, rows / best.cpu / ref.cpu);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string droidlab;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--quick") {
      quick = true;
    } else {
      droidlab = argv[i];
    }
  }
  if (!droidlab.empty() && !MeasureCommand(droidlab)) return 1;
  const size_t rows = quick ? 60'000 : 1'000'000;
  const std::string dump = GenerateDump(rows);

  int64_t ref_sum = 0;
  size_t ref_rows = 0;
  const Rate ref = BestRowsPerSecond(rows, [&] { ref_rows = MinimalRows(dump, ref_sum); });
  size_t our_rows = 0;
  bool failed = false;
  const Rate ours = BestRowsPerSecond(rows, [&] {
    auto parsed = droidlab::parsers::ParseGfxinfo(dump);
    if (!parsed) {
      failed = true;
      return;
    }
    our_rows = 0;
    for (const auto& profile : parsed->profiles) {
      for (const auto& block : profile.framestats) our_rows += block.rows.size();
    }
  });
  if (failed || our_rows != rows || ref_rows != rows) {
    std::fprintf(stderr, "gfxinfo_bench: rows read: ours %zu, reference %zu, of %zu%s\n", our_rows,
                 ref_rows, rows, failed ? " (ours failed)" : "");
    return 1;
  }
  std::printf("gfxinfo framestats, %zu rows of 23 columns (%.1f MB), best of 5\n", rows,
              dump.size() / 1e6);
  std::printf("                                   wall-clock       CPU time\n");
  std::printf("  reference (split + from_chars):  %6.2f M rows/s  %6.2f M rows/s\n", ref.wall / 1e6,
              ref.cpu / 1e6);
  std::printf("  ours (ParseGfxinfo):             %6.2f M rows/s  %6.2f M rows/s\n", ours.wall / 1e6,
              ours.cpu / 1e6);
  std::printf("  ratio ours/reference:            %6.2f          %6.2f   (goal: >= 5 M rows/s)\n",
              ours.wall / ref.wall, ours.cpu / ref.cpu);
  return 0;
}
