// Output of `dumpsys gfxinfo PKG` and `dumpsys gfxinfo PKG framestats`, Android 6 (API 23) to 15.
//
// ActivityManagerService prints "Applications Graphics Acceleration Info:" and, per process of
// that name, "** Graphics info for pid N [PKG] **"; the app then dumps hwui's jank statistics
// (libs/hwui/JankTracker.cpp dumpData → libs/hwui/ProfileData.cpp dump on 8+; JankTracker itself
// on 6–7), caches and memory, "Profile data in ms:" with one entry per window, and with
// `framestats` each window's frame ring (libs/hwui/renderthread/CanvasContext.cpp / JankTracker
// dumpFrames). Android 9 on a Pixel-class device (real, KazuCocoa/droid-monitor issue 36):
//
//   ** Graphics info for pid 2720 [com.android.chrome] **
//
//   Stats since: 101382312046230ns
//   Total frames rendered: 43
//   Janky frames: 7 (16.28%)
//   50th percentile: 5ms
//   90th percentile: 69ms
//   95th percentile: 150ms
//   99th percentile: 200ms
//   Number Missed Vsync: 5
//   Number High input latency: 14
//   Number Slow UI thread: 5
//   Number Slow bitmap uploads: 0
//   Number Slow issue draw commands: 1
//   Number Frame deadline missed: 5
//   HISTOGRAM: 5ms=33 6ms=1 7ms=0 … 4950ms=0
//
// What grew by version (ProfileData.cpp / JankTracker.cpp of each release):
//   6:   no "50th percentile", no HISTOGRAM; one early build says "Number Slow draw" for
//        "Number Slow issue draw commands" (mapbox-gl-native PR 9616's paste).
//   7–8: "50th percentile", "HISTOGRAM: 5ms=N 6ms=N …" (1 ms buckets to 32, 2 ms to 48, 4 ms to
//        133, then 50 ms buckets from 150 to 4950).
//   9:   "Number Frame deadline missed"; a block may be preceded by "Package: NAME" or
//        "Window: NAME" (JankTracker dumpData's description). With `framestats`, newer releases
//        (CanvasContext::dumpFrames = JankTracker dumpStats then dumpFrames, read in the 10+
//        versions) print each window's own block, "Window: NAME" and its stats, right before
//        that window's framestats.
//   10+: "50th gpu percentile: Nms" … "99th", "GPU HISTOGRAM: 1ms=N … 25ms=N 4950ms=N".
//   12+: "Janky frames (legacy): N (P%)", "Number Frame deadline missed (legacy): N".
//
// The framestats block is a CSV whose header names the columns (libs/hwui/FrameInfo.cpp
// FrameInfoNames), each header field and each row field followed by ',':
//
//   ---PROFILEDATA---
//   Flags,IntendedVsync,Vsync,…,FrameCompleted,
//   0,255187871931,255187871931,…,255192411307,
//   ---PROFILEDATA---
//
// The columns changed with versions (6–8: Flags … FrameCompleted; 9+: DequeueBufferDuration,
// QueueBufferDuration; 12+: FrameTimelineVsyncId, InputEventId in place of Oldest/NewestInputEvent,
// FrameDeadline, FrameStartTime, GpuCompleted, SwapBuffersCompleted, DisplayPresentTime; 13+:
// FrameInterval, CommandSubmissionCompleted), so rows are read by the header's own names. Frames
// whose SyncStart is 0 are never printed (dumpFrames skips them).
//
// One correction: Android 13–14's FrameInfoNames label two columns in the wrong order —
// "FrameDeadline,FrameInterval,FrameStartTime" — while FrameInfoIndex (FrameInfo.h), the order
// the values are printed in, is FrameDeadline, FrameStartTime, FrameInterval. Real rows show it
// (smart-test-ti/SoloX issue 249: the "FrameInterval" column holds a timestamp, 255188826099,
// and "FrameStartTime" the 16.66 ms period, 16656453). Newer headers print the enum's order. A
// header with FrameInterval directly before FrameStartTime is read with the two names swapped
// back, so each value is under its meaning; `names_corrected` says so.
//
// What is counted in skipped_lines: a line inside a profile block or a framestats block that
// cannot be read — a stats line whose number does not parse, a HISTOGRAM line with a bad
// bucket, a framestats row whose field count differs from its header's, that holds a
// non-integer or that lacks the ',' dumpFrames prints after its last value (a cut row), framestats
// rows with no profile block of their process to belong to, a block with no "Total frames
// rendered". The dump's other sections (caches, GPU memory, the view hierarchy, the
// Draw/Prepare/Process/Execute table of "Profile GPU rendering") are not this parser's and are
// passed over without being counted.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

struct GfxinfoHistogramBucket {
  int64_t ms = 0;     // the bucket's frame time as printed ("5ms=33" → 5)
  int64_t count = 0;  // frames in it
};

// A framestats block's rows in one contiguous array, `width` values a row: row r is
// values()[r * width, (r + 1) * width). One allocation per block instead of one per row (a
// million rows of 23 values kept as vectors took ~250 MB and a million allocations; flat,
// 184 MB: bench/gfxinfo_bench.cpp).
// rows[r][c], rows.size() and `for (auto row : rows)` read it as a table of rows.
class GfxinfoRows {
 public:
  using Row = std::span<const int64_t>;

  class Iterator {
   public:
    using value_type = Row;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    Iterator(const int64_t* at, size_t width) : at_(at), width_(width) {}
    Row operator*() const { return Row(at_, width_); }
    Iterator& operator++() {
      at_ += width_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    const int64_t* at_ = nullptr;
    size_t width_ = 0;
  };

  GfxinfoRows() = default;
  explicit GfxinfoRows(size_t width) : width_(width) {}

  size_t width() const { return width_; }
  size_t size() const { return width_ == 0 ? 0 : values_.size() / width_; }
  bool empty() const { return values_.empty(); }
  Row operator[](size_t r) const { return Row(values_.data() + r * width_, width_); }
  Iterator begin() const { return Iterator(values_.data(), width_); }
  Iterator end() const { return Iterator(values_.data() + values_.size(), width_); }
  const std::vector<int64_t>& values() const { return values_; }

  // For the parser: room for `rows` rows; a new row of width() values, to be written in place
  // (valid until the next AddRow); the last row taken back (a row that turned out unreadable).
  void Reserve(size_t rows) { values_.reserve(rows * width_); }
  int64_t* AddRow() {
    values_.resize(values_.size() + width_);
    return values_.data() + values_.size() - width_;
  }
  void DropLastRow() { values_.resize(values_.size() - width_); }

 private:
  size_t width_ = 0;
  std::vector<int64_t> values_;
};

// One ---PROFILEDATA--- block: its header's column names and its rows, each row exactly
// columns.size() integers (rows of another width were skipped and counted).
struct GfxinfoFramestats {
  std::vector<std::string> columns;
  bool names_corrected = false;  // FrameInterval/FrameStartTime swapped back (13–14, see above)
  GfxinfoRows rows;              // rows.width() == columns.size()

  // The index of the column named `name`, or nullopt when this version does not print it.
  std::optional<size_t> Column(std::string_view name) const;
};

// The percentiles hwui prints: 50th (7+), 90th, 95th, 99th, in this order.
inline constexpr std::array<int, 4> kGfxinfoPercentiles = {50, 90, 95, 99};

// One block of ProfileData (the process's, or a window's on 9+), with the framestats blocks
// printed after it in the same process. Optional fields are absent when the version (or a cut
// dump) does not print them.
struct GfxinfoProfile {
  std::optional<std::string> package;  // from "** Graphics info for pid N [PKG] **"
  std::optional<int64_t> pid;
  std::optional<std::string> description;  // "Package: NAME" / "Window: NAME" (9+)
  std::optional<uint64_t> stats_since_ns;  // "Stats since: Nns", CLOCK_MONOTONIC
  uint64_t total_frames = 0;               // "Total frames rendered: N"
  std::optional<uint64_t> janky_frames;
  // As printed, "(16.28%)" → 16.28; NaN when 6–7 print "(nan%)" for a block with no frames.
  std::optional<double> janky_percent;
  std::optional<uint64_t> janky_frames_legacy;  // 12+
  std::optional<double> janky_percent_legacy;
  std::array<std::optional<int64_t>, 4> percentiles_ms;      // see kGfxinfoPercentiles
  std::array<std::optional<int64_t>, 4> gpu_percentiles_ms;  // 10+
  std::optional<uint64_t> missed_vsync;
  std::optional<uint64_t> high_input_latency;
  std::optional<uint64_t> slow_ui_thread;
  std::optional<uint64_t> slow_bitmap_uploads;
  std::optional<uint64_t> slow_draw_commands;     // "Slow issue draw commands" (or "Slow draw")
  std::optional<uint64_t> frame_deadline_missed;  // 9+
  std::optional<uint64_t> frame_deadline_missed_legacy;  // 12+
  std::vector<GfxinfoHistogramBucket> histogram;         // 7+
  std::vector<GfxinfoHistogramBucket> gpu_histogram;     // 10+
  std::vector<GfxinfoFramestats> framestats;             // with `framestats`
};

struct Gfxinfo {
  std::vector<GfxinfoProfile> profiles;  // in dump order; never empty on success
  uint64_t skipped_lines = 0;
};

// Thread-safe (pure function); the result owns its strings.
// Errors: kServiceMissing for "No process found for: PKG" with nothing else; kNotThisFormat
// when no block has a readable "Total frames rendered: N" (no profile data).
Result<Gfxinfo> ParseGfxinfo(std::string_view output);

}  // namespace droidlab::parsers
