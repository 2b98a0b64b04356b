// hwui's frame statistics of one app process and `dumpsys gfxinfo PKG [framestats] [reset]` as
// each Android version prints them (frameworks/base libs/hwui ProfileData.cpp, JankTracker.cpp,
// FrameInfo.cpp; ActivityManagerService dumpGraphicsHardwareUsage for the header).
//
// The app renders frames (RenderFrames) on launches and inputs; the process keeps ProfileData's
// counters since its start or the last reset, and the last kFrameRingSize frames for framestats
// (CanvasContext's RingBuffer<FrameInfo, 120>). A dump is a pure function of that state.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "tools/devsim/android/scenario.h"

namespace droidlab::devsim {

inline constexpr std::size_t kFrameRingSize = 120;

struct RenderedFrame {
  std::int64_t intended_vsync_ns = 0;  // CLOCK_MONOTONIC, the device's uptime
  std::int64_t duration_ns = 0;        // FrameCompleted - IntendedVsync
  std::int64_t interval_ns = 0;        // the vsync period it was rendered for
  std::int64_t vsync_id = 0;           // FrameTimelineVsyncId (12+)
  bool window_changed = false;         // Flags = 1 (FrameInfoFlags::WindowLayoutChanged)
};

struct FrameStats {
  std::int64_t stats_since_ns = 0;         // "Stats since": process start or last reset
  std::vector<RenderedFrame> since_reset;  // every frame ProfileData has counted
  std::deque<RenderedFrame> ring;          // the frames framestats prints
  long rendered = 0;                       // since the process started: jank_every counts these
  std::int64_t next_vsync_ns = 0;
  std::int64_t next_vsync_id = 1000;
};

// A new process: empty statistics since `now_ns`.
void StartFrameStats(FrameStats& stats, std::int64_t now_ns);
// `dumpsys gfxinfo PKG reset`: CanvasContext::resetFrameStats, counters and ring cleared.
void ResetFrameStats(FrameStats& stats, std::int64_t now_ns);
// `count` frames from `now_ns` on (or after the last frame), one per vsync; a frame longer than
// a period pushes the next to the following vsync.
void RenderFrames(FrameStats& stats, const FrameSpec& spec, int count, std::int64_t now_ns,
                  bool window_changed);

struct GfxinfoProcess {
  int pid = 0;
  std::string package;
  std::string activity_class;  // full class name of its window's activity
};

// "Applications Graphics Acceleration Info:" through the process's block; `framestats` adds the
// window's block (10+) and the ---PROFILEDATA--- CSV. `uptime_ms`: SystemClock.uptimeMillis.
std::string FormatGfxinfo(int sdk, long uptime_ms, const GfxinfoProcess& process,
                          const FrameStats& stats, bool framestats);

// FrameInfoNames of the version, in header order (13–14's two swapped labels included).
std::vector<std::string> FrameInfoHeader(int sdk);

}  // namespace droidlab::devsim
