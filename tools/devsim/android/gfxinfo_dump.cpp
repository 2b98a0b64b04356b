#include "tools/devsim/android/gfxinfo_dump.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <string_view>

namespace droidlab::devsim {
namespace {

constexpr std::int64_t kNsPerMs = 1'000'000;
// hwui reports a GPU time per frame from 10 on; devsim's GPU always takes 1.5 ms (bucket "2ms"),
// so the GPU lines are fixed and the tests' arithmetic stays on the CPU frame times.
constexpr std::int64_t kGpuNs = 1'500'000;

// ProfileData.cpp's bucketing (8+): 1 ms buckets from 5 to 32 ms, 2 ms to 48, 4 ms to 133 —
// 57 buckets — then 50 ms "slow" buckets from 150 to 4950 ms (97).
constexpr std::size_t kFrameBuckets = 57;
constexpr std::size_t kSlowBuckets = 97;
constexpr std::size_t kGpuBuckets = 26;

std::uint32_t FrameBucket(std::int64_t duration_ns) {
  auto index = static_cast<std::uint32_t>(duration_ns / kNsPerMs);
  if (index <= 5) return 0;
  if (index > 48) index = (index - 48) / 2 + 48;
  if (index > 32) index = (index - 32) / 2 + 32;
  return index - 5;
}

std::uint32_t BucketMs(std::uint32_t index) {
  index += 5;
  if (index > 32) index += index - 32;
  if (index > 48) index += index - 48 + 1;
  return index;
}

struct Profile {
  std::uint32_t total = 0;
  std::uint32_t janky = 0;
  std::array<std::uint32_t, kFrameBuckets> frames{};
  std::array<std::uint32_t, kSlowBuckets> slow{};
  std::array<std::uint32_t, kGpuBuckets> gpu{};
};

Profile Count(const std::vector<RenderedFrame>& frames) {
  Profile p;
  for (const RenderedFrame& frame : frames) {
    ++p.total;
    if (frame.duration_ns > frame.interval_ns) ++p.janky;
    // ProfileData::reportFrame tests `bucket <= size()`, writing one past the array for frames
    // of 134–149 ms; devsim counts those as slow frames instead.
    if (const std::uint32_t bucket = FrameBucket(frame.duration_ns); bucket < kFrameBuckets) {
      ++p.frames[bucket];
    } else {
      const auto ms = static_cast<std::uint32_t>(frame.duration_ns / kNsPerMs);
      const std::uint32_t slow = ms < 150 ? 0 : (ms - 150) / 50;
      ++p.slow[std::min<std::size_t>(slow, kSlowBuckets - 1)];
    }
    ++p.gpu[std::min<std::int64_t>(kGpuNs / kNsPerMs, kGpuBuckets - 1)];
  }
  return p;
}

// ProfileData::findPercentile: walk down from the slowest bucket until `remaining` frames.
std::uint32_t Percentile(const Profile& p, int percentile) {
  const int pos = percentile * static_cast<int>(p.total) / 100;
  int remaining = static_cast<int>(p.total) - pos;
  for (int i = kSlowBuckets - 1; i >= 0; --i) {
    remaining -= static_cast<int>(p.slow[i]);
    if (remaining <= 0) return i * 50 + 150;
  }
  for (int i = kFrameBuckets - 1; i >= 0; --i) {
    remaining -= static_cast<int>(p.frames[i]);
    if (remaining <= 0) return BucketMs(i);
  }
  return 0;
}

std::uint32_t GpuPercentile(const Profile& p, int percentile) {
  int total = 0;
  for (std::uint32_t count : p.gpu) total += static_cast<int>(count);
  int remaining = total - percentile * total / 100;
  for (int i = kGpuBuckets - 1; i >= 0; --i) {
    remaining -= static_cast<int>(p.gpu[i]);
    if (remaining <= 0) return i != 25 ? i + 1 : 4950;
  }
  return 0;
}

std::string Percent(std::uint32_t part, std::uint32_t total, int sdk) {
  // 6–7 (JankTracker::dumpData) divide without a guard: 0/0 prints "nan"; 8+ print 0.00.
  if (total == 0 && sdk < 26) return "nan";
  const float value =
      total == 0 ? 0.0f : static_cast<float>(part) / static_cast<float>(total) * 100.0f;
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(value));
  return text;
}

// JankTracker::dumpData: the description line, then ProfileData::dump (each line starts with
// '\n'), then "\n".
std::string StatsBlock(int sdk, const FrameStats& stats, std::string_view window) {
  const Profile p = Count(stats.since_reset);
  std::string out;
  auto line = [&out](const std::string& text) { out += "\n" + text; };
  if (!window.empty()) line("Window: " + std::string(window));
  line("Stats since: " + std::to_string(stats.stats_since_ns) + "ns");
  line("Total frames rendered: " + std::to_string(p.total));
  line("Janky frames: " + std::to_string(p.janky) + " (" + Percent(p.janky, p.total, sdk) + "%)");
  // 12+: "legacy" is the pre-12 rule (longer than a period); devsim's frames miss their
  // deadline by the same rule, so both counts are the same.
  if (sdk >= 31) {
    line("Janky frames (legacy): " + std::to_string(p.janky) + " (" +
         Percent(p.janky, p.total, sdk) + "%)");
  }
  for (int percentile : {50, 90, 95, 99}) {
    if (percentile == 50 && sdk < 24) continue;  // 6 prints 90th–99th only
    line(std::to_string(percentile) +
         "th percentile: " + std::to_string(Percentile(p, percentile)) + "ms");
  }
  // Every janky frame is blamed on the UI thread; nothing else is simulated.
  line("Number Missed Vsync: 0");
  line("Number High input latency: 0");
  line("Number Slow UI thread: " + std::to_string(p.janky));
  line("Number Slow bitmap uploads: 0");
  line("Number Slow issue draw commands: 0");
  if (sdk >= 28) line("Number Frame deadline missed: " + std::to_string(p.janky));
  if (sdk >= 31) line("Number Frame deadline missed (legacy): " + std::to_string(p.janky));
  if (sdk >= 24) {
    line("HISTOGRAM:");
    for (std::size_t i = 0; i < kFrameBuckets; ++i) {
      out += " " + std::to_string(BucketMs(i)) + "ms=" + std::to_string(p.frames[i]);
    }
    for (std::size_t i = 0; i < kSlowBuckets; ++i) {
      out += " " + std::to_string(i * 50 + 150) + "ms=" + std::to_string(p.slow[i]);
    }
  }
  if (sdk >= 29) {
    for (int percentile : {50, 90, 95, 99}) {
      line(std::to_string(percentile) +
           "th gpu percentile: " + std::to_string(GpuPercentile(p, percentile)) + "ms");
    }
    line("GPU HISTOGRAM:");
    for (std::size_t i = 0; i < kGpuBuckets; ++i) {
      out += " " + std::to_string(i != 25 ? i + 1 : 4950) + "ms=" + std::to_string(p.gpu[i]);
    }
  }
  out += "\n\n";
  return out;
}

// FrameInfoIndex of the version (FrameInfo.h), the order values are printed in.
std::vector<std::string> EnumNames(int sdk) {
  if (sdk < 31) {
    std::vector<std::string> names = {"Flags",
                                      "IntendedVsync",
                                      "Vsync",
                                      "OldestInputEvent",
                                      "NewestInputEvent",
                                      "HandleInputStart",
                                      "AnimationStart",
                                      "PerformTraversalsStart",
                                      "DrawStart",
                                      "SyncQueued",
                                      "SyncStart",
                                      "IssueDrawCommandsStart",
                                      "SwapBuffers",
                                      "FrameCompleted"};
    if (sdk >= 28) {
      names.push_back("DequeueBufferDuration");
      names.push_back("QueueBufferDuration");
    }
    return names;
  }
  std::vector<std::string> names = {"Flags",          "FrameTimelineVsyncId",   "IntendedVsync",
                                    "Vsync",          "InputEventId",           "HandleInputStart",
                                    "AnimationStart", "PerformTraversalsStart", "DrawStart",
                                    "FrameDeadline",  "FrameStartTime"};
  if (sdk >= 33) names.push_back("FrameInterval");
  for (const char* name : {"SyncQueued", "SyncStart", "IssueDrawCommandsStart", "SwapBuffers",
                           "FrameCompleted", "DequeueBufferDuration", "QueueBufferDuration",
                           "GpuCompleted", "SwapBuffersCompleted", "DisplayPresentTime"}) {
    names.push_back(name);
  }
  if (sdk >= 33) names.push_back("CommandSubmissionCompleted");
  return names;
}

std::int64_t Value(std::string_view name, const RenderedFrame& f) {
  const std::int64_t i = f.intended_vsync_ns;
  const std::int64_t d = f.duration_ns;
  if (name == "Flags") return f.window_changed ? 1 : 0;
  if (name == "FrameTimelineVsyncId") return f.vsync_id;
  if (name == "IntendedVsync" || name == "Vsync") return i;
  // 6–11: no input event in the frame is INT64_MAX / 0 (as real rows show).
  if (name == "OldestInputEvent") return std::numeric_limits<std::int64_t>::max();
  if (name == "NewestInputEvent" || name == "InputEventId") return 0;
  if (name == "HandleInputStart") return i + d / 20;
  if (name == "AnimationStart") return i + d / 10;
  if (name == "PerformTraversalsStart") return i + d / 8;
  if (name == "DrawStart") return i + d / 4;
  if (name == "FrameDeadline") return i + f.interval_ns;
  if (name == "FrameStartTime") return i + 50'000;
  if (name == "FrameInterval") return f.interval_ns;
  if (name == "SyncQueued") return i + d / 2;
  if (name == "SyncStart") return i + d / 2 + d / 50;
  if (name == "IssueDrawCommandsStart") return i + d * 6 / 10;
  if (name == "SwapBuffers" || name == "CommandSubmissionCompleted") return i + d * 8 / 10;
  if (name == "SwapBuffersCompleted") return i + d * 9 / 10;
  if (name == "FrameCompleted" || name == "GpuCompleted") return i + d;
  if (name == "DequeueBufferDuration") return 10'000;
  if (name == "QueueBufferDuration") return 20'000;
  if (name == "DisplayPresentTime") return i + d + f.interval_ns;
  return 0;
}

}  // namespace

std::vector<std::string> FrameInfoHeader(int sdk) {
  std::vector<std::string> names = EnumNames(sdk);
  // Android 13–14's FrameInfoNames list FrameInterval before FrameStartTime while FrameInfoIndex
  // has them the other way round (parsers/gfxinfo.h): the header is printed mislabelled.
  if (sdk == 33 || sdk == 34) std::swap(names[10], names[11]);
  return names;
}

void StartFrameStats(FrameStats& stats, std::int64_t now_ns) {
  stats = FrameStats{};
  stats.stats_since_ns = now_ns;
  stats.next_vsync_ns = now_ns;
}

void ResetFrameStats(FrameStats& stats, std::int64_t now_ns) {
  stats.since_reset.clear();
  stats.ring.clear();
  stats.stats_since_ns = now_ns;
}

void RenderFrames(FrameStats& stats, const FrameSpec& spec, int count, std::int64_t now_ns,
                  bool window_changed) {
  const std::int64_t interval = 1'000'000'000 / spec.refresh_hz;
  std::int64_t vsync = std::max(now_ns, stats.next_vsync_ns);
  for (int k = 0; k < count; ++k) {
    ++stats.rendered;
    const bool jank = spec.jank_every > 0 && stats.rendered % spec.jank_every == 0;
    RenderedFrame frame;
    frame.intended_vsync_ns = vsync;
    frame.duration_ns = static_cast<std::int64_t>(jank ? spec.jank_ms : spec.ms) * kNsPerMs;
    frame.interval_ns = interval;
    frame.vsync_id = stats.next_vsync_id++;
    frame.window_changed = window_changed && k == 0;
    stats.since_reset.push_back(frame);
    stats.ring.push_back(frame);
    if (stats.ring.size() > kFrameRingSize) stats.ring.pop_front();
    // The next frame starts on the first vsync after this one completes.
    vsync += interval * std::max<std::int64_t>(1, (frame.duration_ns + interval - 1) / interval);
  }
  stats.next_vsync_ns = vsync;
}

std::string FormatGfxinfo(int sdk, long uptime_ms, const GfxinfoProcess& process,
                          const FrameStats& stats, bool framestats) {
  const std::string window = process.package + "/" + process.activity_class;
  const std::string root = window + "/android.view.ViewRootImpl@5c3a1e2";
  std::string out = "Applications Graphics Acceleration Info:\n";
  out += "Uptime: " + std::to_string(uptime_ms) + " Realtime: " + std::to_string(uptime_ms) + "\n";
  out += "\n** Graphics info for pid " + std::to_string(process.pid) + " [" + process.package +
         "] **\n";
  out += StatsBlock(sdk, stats, "");
  if (sdk >= 28) out += "Pipeline=Skia (OpenGL)\n";
  out += "Profile data in ms:\n\n\t" + root + " (visibility=0)\n";
  if (framestats) {
    // 10+: the window's own JankTracker block before its frames (one window: the same numbers).
    if (sdk >= 29) out += StatsBlock(sdk, stats, window).substr(1);
    out += "---PROFILEDATA---\n";
    for (const std::string& name : FrameInfoHeader(sdk)) out += name + ",";
    const std::vector<std::string> names = EnumNames(sdk);
    for (const RenderedFrame& frame : stats.ring) {
      out += "\n";
      for (const std::string& name : names) out += std::to_string(Value(name, frame)) + ",";
    }
    out += "\n---PROFILEDATA---\n";
  }
  out += "\nView hierarchy:\n\n  " + root + "\n  27 views, 31.25 kB of render nodes\n\n";
  out += "Total ViewRootImpl   : 1\nTotal attached Views : 27\n";
  out += "Total RenderNode     : 31.25 kB (used) / 31.25 kB (capacity)\n";
  return out;
}

}  // namespace droidlab::devsim
