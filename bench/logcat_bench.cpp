// Logcat launch-event extraction against `grep -F -c Displayed`, measured in the same run.
//
//   logcat_bench [--quick] [--dense] [PATH_TO_DROIDLAB]
//
// Generates (or reuses) a `-v threadtime` logcat in /tmp: 256 MiB (8 MiB with --quick) of
// ~120-byte lines from many tags, one launch line (START / Start proc / Displayed / Fully drawn)
// per 2,000 lines, a lookalike
// "I MyApp: Displayed …" per 10,000, fixed seed. With --dense (issue 16's dense log), one line in
// 40 is also a START or a Start proc line (alternately): ~56,000 more events, where writing the
// events as JSON is most of `droidlab parse logcat`'s work. Then, best of 3 each:
//   (a) grep: `LC_ALL=C grep -F -c Displayed FILE` as a child process (fork/exec, wall time);
//   (b) ours: read() in 1 MiB chunks, LineSplitter + LogcatReader, in process, counting events;
//   (b') the same reader also collecting app faults (what `droidlab parse logcat` reads; the
//        command hands the reader whole chunks, LogcatReader::AddChunk, with no JSON here);
//   (c) with PATH_TO_DROIDLAB: `droidlab parse logcat FILE > /dev/null` as a child, wall time and
//       peak RSS (wait4 ru_maxrss).
// Prints MB/s for each, the ratios against grep, and the event count. Goal: (b)/(a) >= 1.0.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/line_splitter.h"
#include "parsers/logcat.h"

namespace {

using droidlab::parsers::LaunchEvent;
using droidlab::parsers::LineSplitter;
using droidlab::parsers::LogcatReader;
using Clock = std::chrono::steady_clock;

struct NoiseSource {
  const char* tag;
  char priority;
  const char* message;  // one "%d" for variety
};

// Tags and messages of a busy device (system_server, SurfaceFlinger, apps, vendor daemons).
constexpr NoiseSource kNoise[] = {
    {"ActivityManager", 'I',
     "Killing %d:com.google.android.apps.photos/u0a147 (adj 985): empty #17"},
    {"ActivityTaskManager", 'I', "Removing activity ActivityRecord{%d u0 com.pkg/.Main t42 f}"},
    {"WindowManager", 'V',
     "Relayout Window{%d u0 com.android.systemui/.StatusBar}: viewVisibility=0"},
    {"SurfaceFlinger", 'D', "id=%d Removed ActivityRecord#0 (121) layer stack updated"},
    {"Layer", 'I', "id=%d removedFromDrawingState ActivityRecord{9055bfe u0 io.example}#0"},
    {"chatty", 'I', "uid=1000(system) Binder:1234_5 identical %d lines"},
    {"ConnectivityService", 'D', "handleInetConditionChange: no active default network %d"},
    {"NetworkStats", 'W', "bandwidth controls disabled, unable to track stats (%d)"},
    {"BatteryService", 'I', "update: level=%d scale=100 status=2 health=2 present=true"},
    {"PowerManagerService", 'D', "acquireWakeLockInternal: lock=%d flags=0x1 tag=\"*alarm*\""},
    {"AlarmManager", 'V', "Triggering alarm #%d: 2 when=+1s0ms com.google.android.gms"},
    {"Zygote", 'D', "Forked child process %d"},
    {"art", 'I', "Background concurrent copying GC freed %d(13MB) AllocSpace objects"},
    {"OpenGLRenderer", 'D', "Davey! duration=%dms; Flags=0, IntendedVsync=1234567"},
    {"Choreographer", 'I', "Skipped %d frames!  The application may be doing too much work"},
    {"InputDispatcher", 'W', "channel 'a1b2 com.pkg/com.pkg.Main' ~ Consumer closed %d"},
    {"AudioFlinger", 'D', "mixer(0x%d) throttle end: throttle time(10)"},
    {"wpa_supplicant", 'I', "wlan0: CTRL-EVENT-SIGNAL-CHANGE above=1 signal=-%d noise=9999"},
    {"ThermalEngine", 'I', "sensor:tsens_tz_sensor%d Reading:37 Threshold:45 Action:none"},
    {"GnssLocationProvider", 'D', "reportStatus status: %d satellites in view 12"},
    {"BluetoothAdapter", 'D', "getState() returned STATE_ON for uid %d"},
    {"PackageManager", 'I', "Update package com.example.app code path %d"},
    {"MyApp", 'I', "onResume took %dms, layout inflated from cache"},
    {"ReactNativeJS", 'I', "Running \"main\" with {\"rootTag\":%d,\"initialProps\":{}}"},
    {"okhttp.OkHttpClient", 'D', "<-- 200 https://api.example.com/v1/items (%dms, 12kB body)"},
    {"Pageboost", 'I', "Launch time gathered : pid %d com.minimalapp 1071"},
    {"vendor.qti.hardware.perf@2.2-service", 'E', "perf_lock_acq: client_pid=%d, duration=2000"},
    {"libprocessgroup", 'I', "Successfully killed process cgroup uid 10147 pid %d in 0ms"},
};

struct Launch {
  const char* tag;
  const char* format;  // one "%d"
};

constexpr Launch kLaunches[] = {
    {"ActivityTaskManager",
     "START u0 {act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] "
     "flg=0x10200000 cmp=com.example.app/.MainActivity} from uid %d"},
    {"ActivityManager",
     "Start proc %d:com.example.app/u0a173 for pre-top-activity "
     "{com.example.app/com.example.app.MainActivity}"},
    {"ActivityTaskManager", "Displayed com.example.app/.MainActivity for user 0: +%dms"},
    {"ActivityTaskManager", "Fully drawn com.example.app/.MainActivity: +1s%dms"},
};

// Appends `message` with its "%d" replaced by `value` (-Wformat=2 rules out non-literal formats).
int AppendMessage(char* out, size_t room, std::string_view message, int value) {
  size_t at = message.find("%d");
  std::string_view head = message.substr(0, at);
  std::string_view tail =
      at == std::string_view::npos ? std::string_view() : message.substr(at + 2);
  char num[16];
  int num_len = std::snprintf(num, sizeof(num), "%d", value);
  size_t total = head.size() + static_cast<size_t>(num_len) + tail.size();
  if (total >= room) return 0;
  std::memcpy(out, head.data(), head.size());
  std::memcpy(out + head.size(), num, static_cast<size_t>(num_len));
  std::memcpy(out + head.size() + static_cast<size_t>(num_len), tail.data(), tail.size());
  return static_cast<int>(total);
}

bool Generate(const std::string& path, uint64_t target_bytes, bool dense) {
  std::string tmp = path + ".partial";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return false;
  std::mt19937_64 rng(20261122);
  std::string buf;
  buf.reserve(4 << 20);
  char line[512];
  uint64_t written = 0;
  uint64_t ms = 0;
  uint64_t n = 0;
  while (written < target_bytes) {
    ms += rng() % 7;
    const unsigned h = static_cast<unsigned>((ms / 3600000) % 24);
    const unsigned m = static_cast<unsigned>((ms / 60000) % 60);
    const unsigned s = static_cast<unsigned>((ms / 1000) % 60);
    const unsigned frac = static_cast<unsigned>(ms % 1000);
    int len = 0;
    const int arg = static_cast<int>(rng() % 30000);
    if (n % 10000 == 4999) {  // a lookalike launch line from an app: grep counts it, we do not
      len = std::snprintf(
          line, sizeof(line),
          "11-22 %02u:%02u:%02u.%03u  4321  4321 I MyApp   : Displayed com.fake/.X: +%dms", h, m, s,
          frac, arg % 900 + 1);
    } else if (n % 2000 == 1999 || (dense && n % 40 == 19)) {
      const Launch& l = n % 2000 == 1999 ? kLaunches[(n / 2000) % std::size(kLaunches)]
                                         : kLaunches[(n / 40) % 2];  // START, Start proc
      len = std::snprintf(line, sizeof(line), "11-22 %02u:%02u:%02u.%03u  1573  1602 I %-8s: ", h,
                          m, s, frac, l.tag);
      len += AppendMessage(line + len, sizeof(line) - static_cast<size_t>(len) - 1, l.format,
                           arg % 4000 + 1);
    } else {
      const NoiseSource& src = kNoise[rng() % std::size(kNoise)];
      const unsigned pid = static_cast<unsigned>(100 + rng() % 32000);
      const unsigned tid = pid + static_cast<unsigned>(rng() % 64);
      len = std::snprintf(line, sizeof(line), "11-22 %02u:%02u:%02u.%03u %5u %5u %c %-8s: ", h, m,
                          s, frac, pid, tid, src.priority, src.tag);
      len +=
          AppendMessage(line + len, sizeof(line) - static_cast<size_t>(len) - 1, src.message, arg);
    }
    line[len++] = '\n';
    buf.append(line, static_cast<size_t>(len));
    written += static_cast<uint64_t>(len);
    ++n;
    if (buf.size() > (4u << 20) - 1024) {
      if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) return false;
      buf.clear();
    }
  }
  if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) return false;
  if (std::fclose(f) != 0) return false;
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

struct ChildRun {
  double seconds = 0;
  long max_rss_kb = 0;
  int status = -1;
  std::string out;
};

// fork/exec argv with stdout to a pipe (captured) or /dev/null; wall time and peak RSS by wait4.
ChildRun RunChild(const std::vector<std::string>& argv, bool capture, bool c_locale) {
  ChildRun run;
  int fds[2] = {-1, -1};
  if (capture && pipe(fds) != 0) return run;
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    if (capture) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
    } else {
      int null_fd = open("/dev/null", O_WRONLY);
      dup2(null_fd, STDOUT_FILENO);
    }
    if (c_locale) setenv("LC_ALL", "C", 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  if (capture) {
    close(fds[1]);
    char buf[256];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0) run.out.append(buf, static_cast<size_t>(n));
    close(fds[0]);
  }
  struct rusage usage {};
  wait4(pid, &run.status, 0, &usage);
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.max_rss_kb = usage.ru_maxrss;
  return run;
}

struct OurRun {
  double seconds = 0;
  uint64_t events = 0;
  uint64_t lines = 0;
  uint64_t skipped = 0;
};

OurRun RunOurs(const std::string& path, bool faults) {
  OurRun run;
  auto start = Clock::now();
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return run;
  std::vector<char> buf(1 << 20);
  LineSplitter splitter;
  LogcatReader reader;
  std::vector<LaunchEvent> events;
  std::vector<droidlab::parsers::FaultEvent> fault_events;
  auto sink = [&](std::string_view line) {
    if (faults) {
      reader.AddLine(line, events, fault_events);
    } else {
      reader.AddLine(line, events);
    }
  };
  ssize_t n;
  while ((n = read(fd, buf.data(), buf.size())) > 0) {
    splitter.Feed(std::string_view(buf.data(), static_cast<size_t>(n)), sink);
    run.events += events.size() + fault_events.size();
    events.clear();
    fault_events.clear();
  }
  splitter.Finish(sink);
  reader.Finish(events, fault_events);
  run.events += events.size() + fault_events.size();
  close(fd);
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.lines = reader.lines();
  run.skipped = reader.skipped_lines();
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool dense = false;
  std::string droidlab;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--dense") == 0) {
      dense = true;
    } else {
      droidlab = argv[i];
    }
  }
  const uint64_t target = quick ? (8ull << 20) : (256ull << 20);
  const std::string path = std::string("/tmp/droidlab_logcat_bench_") +
                           (quick ? "8MiB" : "256MiB") + (dense ? "_dense" : "") + ".txt";
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_size) < target) {
    std::printf("generating %s ...\n", path.c_str());
    if (!Generate(path, target, dense) || stat(path.c_str(), &st) != 0) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
  }
  const double mb = static_cast<double>(st.st_size) / 1e6;
  constexpr int kRuns = 3;

  double grep_best = 1e30, ours_best = 1e30, faults_best = 1e30, droidlab_best = 1e30;
  long droidlab_rss = 0;
  std::string grep_count;
  OurRun ours;
  for (int i = 0; i < kRuns; ++i) {
    ChildRun g = RunChild({"grep", "-F", "-c", "Displayed", path}, true, true);
    if (!WIFEXITED(g.status) || WEXITSTATUS(g.status) > 1) {
      std::fprintf(stderr, "grep failed\n");
      return 1;
    }
    grep_best = std::min(grep_best, g.seconds);
    grep_count = g.out.substr(0, g.out.find('\n'));
    OurRun o = RunOurs(path, false);
    if (o.seconds < ours_best) {
      ours_best = o.seconds;
      ours = o;
    }
    faults_best = std::min(faults_best, RunOurs(path, true).seconds);
    if (!droidlab.empty()) {
      ChildRun d = RunChild({droidlab, "parse", "logcat", path}, false, false);
      if (!WIFEXITED(d.status) || WEXITSTATUS(d.status) != 0) {
        std::fprintf(stderr, "droidlab parse logcat failed (status %d)\n", d.status);
        return 1;
      }
      droidlab_best = std::min(droidlab_best, d.seconds);
      droidlab_rss = std::max(droidlab_rss, d.max_rss_kb);
    }
  }
  std::printf("file: %s, %.1f MB, %" PRIu64 " lines, %" PRIu64 " skipped\n", path.c_str(), mb,
              ours.lines, ours.skipped);
  std::printf("grep -F -c Displayed (LC_ALL=C, child): %.0f MB/s (%.3f s, best of %d, %s lines)\n",
              mb / grep_best, grep_best, kRuns, grep_count.c_str());
  std::printf(
      "ours LineSplitter+LogcatReader (in process): %.0f MB/s (%.3f s, best of %d), %" PRIu64
      " events\n",
      mb / ours_best, ours_best, kRuns, ours.events);
  std::printf("ratio ours/grep: %.2f\n", grep_best / ours_best);
  std::printf("ours with faults (in process): %.0f MB/s (%.3f s, best of %d)\n", mb / faults_best,
              faults_best, kRuns);
  std::printf("ratio ours-with-faults/grep: %.2f\n", grep_best / faults_best);
  if (!droidlab.empty()) {
    std::printf("droidlab parse logcat (child): %.0f MB/s (%.3f s, best of %d), peak RSS %ld KiB\n",
                mb / droidlab_best, droidlab_best, kRuns, droidlab_rss);
    std::printf("ratio droidlab/grep: %.2f\n", grep_best / droidlab_best);
  }
  return 0;
}
