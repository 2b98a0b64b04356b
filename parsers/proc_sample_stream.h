// The proc sampler's stream: what droidlab's sampling loop (orchestrator/run/device_commands.h,
// ProcSamplingLoop) prints on the phone, one frame per tick, read back line by line.
//
//   @proc 82044.14 215440.94
//   12345 (com.example.app) S 567 567 0 0 -1 1077952832 6380 0 0 0 52 17 0 0 10 -10 23 0 ...
//   @end
//
// The first line is the frame's start and its time: `@proc ` and the line of /proc/uptime
// (CLOCK_BOOTTIME, fs/proc/uptime.c), read by the loop just before the stat. Then the app's
// /proc/PID/stat line (fs/proc/array.c, do_task_stat; proc_stat.h), or an empty line when the
// app has no process at that tick (between a force-stop and the next cold launch). `@end` closes
// the frame: the stat line is only believed inside a closed frame, so a frame cut by the stream's
// end, by a lost packet or by another writer on the same stream is dropped, never half-read. A
// stat line always starts with a digit (its pid), so neither marker can be taken for one.
// Lines may end in "\r" (a pty's newline): it is ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/proc_stat.h"

namespace droidlab::parsers {

// One closed frame. `stat` is nullopt when the app had no process; its comm views into the
// reader's own copy of the line and is valid until the next AddLine.
struct ProcStreamSample {
  ProcUptime uptime;
  std::optional<ProcPidStat> stat;
};

// Reads the stream line by line (lines without their '\n'); not thread-safe, one per stream.
// Every line that is not part of a good frame is counted, never fatal: the stream goes on.
class ProcStreamReader {
 public:
  // A sample when `line` closes a frame whose lines all read, else nullopt.
  std::optional<ProcStreamSample> AddLine(std::string_view line);

  uint64_t frames() const { return frames_; }  // closed, good frames returned
  // Frames begun and never closed (a new start came first), or closed with a line that did not
  // read (a bad uptime, a stat line that ParseProcPidStat refused, a second stat line).
  uint64_t bad_frames() const { return bad_frames_; }
  // Lines outside any frame (an `@end` with no start, text before the first start).
  uint64_t stray_lines() const { return stray_lines_; }
  // The last reason a frame or line was refused, for the log; empty when none.
  const std::string& last_problem() const { return last_problem_; }

 private:
  void Drop(std::string problem);

  bool open_ = false;
  bool bad_ = false;
  bool has_stat_line_ = false;
  ProcUptime uptime_;
  std::string stat_line_;  // owned: the caller's line is gone by the frame's end
  uint64_t frames_ = 0;
  uint64_t bad_frames_ = 0;
  uint64_t stray_lines_ = 0;
  std::string last_problem_;
};

}  // namespace droidlab::parsers
