// Launch events from logcat text, in every `logcat -v` format a lab will meet.
//
// Formats (system/logging/liblog/logprint.cpp, android_log_formatLogLine; the same layouts in
// system/core/liblog/logprint.c back to Android 4): threadtime (the default), brief, process,
// tag, time, thread, long (a header line "[ time pid:tid L/tag ]", then the message lines, then a
// blank line), raw; with the modifiers epoch ("%19lld.mmm", right-aligned), monotonic
// ("%6lld.mmm"), year ("2026-11-22 …"), usec / nsec (6 / 9 fraction digits), zone (" +0100"
// after the time), uid (a "%5s:"/"%5d:" field before the pid; in threadtime its ':' becomes ' ')
// and color (an ESC[…m prefix and ESC[0m suffix, stripped). UTC only changes the clock, not the
// layout. Padding is "%5d" for ids and "%-8s" for tags, but any run of blanks is accepted.
// "--------- beginning of main" / "--------- switch to …" separator lines are recognised and are
// not skipped.
//
// Launch lines (tags ActivityTaskManager on Android 10+, ActivityManager before; lookalikes under
// other tags are well-formed noise, not launches). Real lines; durations are
// android.util.TimeUtils.formatDuration (no zero padding, minutes before seconds, "0" for zero).
// clang-format off
//  - Android 12-14, ActivityMetricsLogger.logAppDisplayed (" for user N" since Android 12):
//    "07-23 20:02:55.763   654   717 I ActivityTaskManager: Displayed com.minimalapp/.wear.MainActivity for user 0: +1s71ms"
//  - Android 9, the same without " for user N":
//    "04-05 16:38:14.092  1201  1239 I ActivityManager: Displayed org.androworks.meteorgram/.MeteorgramActivity: +580ms"
//  - ActivityMetricsLogger.logAppFullyDrawn:  "Fully drawn com.pandora.notes/.MainActivity: +4s528ms"
//  - Android 4.x-8, ActivityRecord.reportLaunchTimeLocked / reportFullyDrawnLocked add " (total +…)":
//    "I/ActivityManager(  512): Displayed com.pkg/.Main: +1s23ms (total +1s100ms)"
//  - ActivityStarter ("from pid N" on Android 4.x, " on display N" on 5-7, OEM " pid N"):
//    "01-24 10:49:16.491  1053  1795 I ActivityManager: START u0 {act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp=com.nextcloud.talk2/com.nextcloud.talk.activities.MainActivity bnds=[142,977][407,1251] (has extras)} from uid 10074"
//  - ProcessList (Android 7+; hosting name "{pkg/full.Class}" since Android 10, "pkg/.Cls" before):
//    "02-22 09:38:44.700   252   308 I ActivityManager: Start proc 4567:com.android.vending/u0a73 for pre-top-activity {com.android.vending/com.android.vending.AssetBrowserActivity}"
//  - Android 4.x-6, ActivityManagerService.startProcessLocked:
//    "I/ActivityManager(  977): Start proc com.android.incallui for service com.android.dialer/com.android.incallui.InCallServiceImpl: pid=30778 uid=10014 gids={50014, 9997, 3003} abi=armeabi-v7a"
// clang-format on
//
// Lines and what becomes of them:
//  - a launch line under ActivityManager/ActivityTaskManager: an event;
//  - with a fault vector (AddLine's second form), a line under a fault tag (ActivityManager,
//    AndroidRuntime, DEBUG, Looper, am_anr, am_crash): handed to a FaultAssembler
//    (logcat_faults.h), which completes faults across lines; never skipped on that account;
//  - any other well-formed logcat line, a separator, a `long` header or message line: no event,
//    not skipped;
//  - an empty (or blank) line: no event, not skipped — `long` ends each entry with one, and a
//    pulled log often ends with one; in `long` format it completes the pending entry;
//  - a line that is not logcat (random bytes, a cut header): skipped;
//  - a launch-tag line whose launch message cannot be read (e.g. cut in the middle of the
//    component): skipped, so a broken launch line never vanishes silently;
//  - a line with no header at all that is a launch message ("Displayed com.pkg/.Main: +5ms"):
//    an event with tag "" (the `raw` format, where nothing tells the tag: there a lookalike from
//    another app cannot be told apart). Other header-less lines are skipped in the default mode;
//    a reader made with LogcatStreamFormat::kRaw counts them as messages instead.
//
// Thread-safety: a LogcatReader is one stream's state; use one per stream, from one thread.
// Free functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/line_splitter.h"
#include "parsers/logcat_faults.h"
#include "parsers/logcat_time.h"
#include "parsers/result.h"

namespace droidlab::parsers {

enum class LaunchEventKind {
  kDisplayed,      // "Displayed pkg/.Act: +797ms"
  kFullyDrawn,     // "Fully drawn pkg/.Act: +1s234ms"
  kActivityStart,  // "START u0 {... cmp=pkg/.Act ...} from uid N"
  kProcessStart,   // "Start proc PID:pkg/uid for activity {...}" and its older forms
};

// Returns "displayed", "fully_drawn", "activity_start" or "process_start".
std::string_view LaunchEventKindName(LaunchEventKind kind);

// One launch line. Strings are owned copies (launch lines are rare; the stream buffer is not kept).
// Fields a line does not carry stay empty / nullopt.
struct LaunchEvent {
  LaunchEventKind kind = LaunchEventKind::kDisplayed;
  std::string time;            // the timestamp as printed ("11-22 10:01:02.345"), without
                               // the blank padding of epoch/monotonic; "" when none
  LogTime log_time;            // `time` read into numbers (ParseLogTime)
  std::optional<int64_t> pid;  // logging process (system_server)
  std::optional<int64_t> tid;
  std::string tag;        // "ActivityTaskManager", "ActivityManager", or "" (raw format)
  std::string component;  // as printed: "com.pkg/.Main" (Start proc "{…}": braces off)
  std::string package;    // "com.pkg"
  std::string activity;   // full class name: "com.pkg.Main" (Start proc: only when the
                          // process is started for an activity)
  std::optional<int64_t> duration_ms;  // Displayed / Fully drawn value
  std::optional<int64_t> total_ms;     // the old "(total +…)" value
  std::optional<int64_t> process_pid;  // Start proc: pid of the new process
  std::optional<int64_t> uid;          // Start proc: app uid (u0a123 -> 10123); START: "from uid"
  std::optional<int64_t> user_id;      // "START u0", "for user 0"
  std::string reason;                 // Start proc: "activity", "pre-top-activity", "top-activity",
                                      // "service", "content provider", …
  std::string process_name;           // Start proc: "com.pkg" or "com.pkg:remote"
  std::optional<int64_t> caller_pid;  // START: "from pid N" (Android 4.x) or "… pid N" (OEMs)
};

// Parses one logcat line that stands alone (every format but `long`). Returns:
//  - an event for a launch line,
//  - std::nullopt for a well-formed logcat line that is not a launch (noise, separators, blank,
//    a `long` header),
//  - a ParseError for a line that is not logcat at all, or a launch line that cannot be read
//    (counted as skipped by LogcatReader).
Result<std::optional<LaunchEvent>> ParseLogcatLine(std::string_view line);

// TimeUtils.formatDuration as printed after "Displayed …: ": "+797ms", "+1s23ms", "+1m2s3ms",
// "+1h0m0s5ms", "+2d3h0m0s0ms" and "0" (zero has no sign and no unit); the '+' is optional here.
// Units must come in order d, h, m, s, ms and end with ms. Returns milliseconds, or nullopt if
// `text` is not such a duration (negative durations included: a launch never lasts less than 0).
std::optional<int64_t> ParseFormattedDuration(std::string_view text);

// What a stream holds, when the caller knows.
enum class LogcatStreamFormat {
  kAuto,  // any mix of the formats above; header-less lines that are not launches are skipped
  kRaw,   // `logcat -v raw`: every line is a message (tag ""); nothing is skipped but unreadable
          // launch lines
};

// Stream reader: feed lines (without their terminators, e.g. from LineSplitter), collect events,
// count lines it could not read. Handles the multi-line `long` format: an entry's event is
// emitted when its blank terminator, the next header, or Finish() arrives.
// Cost per noise line: a fixed-layout header check and a tag compare; no allocation.
class LogcatReader {
 public:
  LogcatReader() = default;
  explicit LogcatReader(LogcatStreamFormat format) : format_(format) {}

  // Appends the events `line` completes to `out`.
  void AddLine(std::string_view line, std::vector<LaunchEvent>& out) {
    AddLineTo<false>(line, out, nullptr);
  }
  // The same, and the app faults it completes (logcat_faults.h) to `faults`. A stream is read
  // with one of the two forms throughout. Faults need a header (pid, tag): the `raw` format has
  // none, and yields none.
  void AddLine(std::string_view line, std::vector<LaunchEvent>& out,
               std::vector<FaultEvent>& faults) {
    AddLineTo<true>(line, out, &faults);
  }
  // A whole chunk of a stream, cut anywhere, through `splitter` (its line ends): each line read
  // as AddLine(line, out, faults) reads it, except that a line the splitter cut at its length
  // limit is not read but counted in skipped_lines (no logger entry is that long).
  // `on_events()` is called after each line that added events or faults, so that they can be
  // taken out in order. The same as feeding the splitter into AddLine, in one call per chunk:
  // the noise check runs inside the splitter's loop, with no call per line (`droidlab parse
  // logcat`). FinishChunks delivers the stream's last line if it had no newline.
  template <class OnEvents>
  void AddChunk(LineSplitter& splitter, std::string_view chunk, std::vector<LaunchEvent>& out,
                std::vector<FaultEvent>& faults, OnEvents&& on_events) {
    AddChunkTo(splitter, chunk, false, out, faults, EventsCallback::Of(on_events));
  }
  template <class OnEvents>
  void FinishChunks(LineSplitter& splitter, std::vector<LaunchEvent>& out,
                    std::vector<FaultEvent>& faults, OnEvents&& on_events) {
    AddChunkTo(splitter, {}, true, out, faults, EventsCallback::Of(on_events));
  }

  // Call at end of stream: completes a pending `long`-format entry (and the open faults).
  void Finish(std::vector<LaunchEvent>& out) { FinishTo(out, nullptr); }
  void Finish(std::vector<LaunchEvent>& out, std::vector<FaultEvent>& faults) {
    FinishTo(out, &faults);
  }

  // Mid-stream: emits the faults still open (a crash with a short stack waits for the next fault
  // or Finish otherwise), so that the faults up to here are complete; the stream goes on.
  void FlushFaults(std::vector<FaultEvent>& faults) { faults_.FlushOpen(faults); }

  uint64_t lines() const { return lines_; }
  uint64_t skipped_lines() const { return skipped_lines_; }

 private:
  // One body for both forms; the launch-only one is compiled without the fault checks.
  template <bool kFaults>
  void AddLineTo(std::string_view line, std::vector<LaunchEvent>& out,
                 std::vector<FaultEvent>* faults);
  // AddChunk's callable, passed to the .cpp without std::function's allocation.
  struct EventsCallback {
    void (*call)(void*);
    void* callable;
    template <class F>
    static EventsCallback Of(F& f) {
      return {[](void* c) { (*static_cast<F*>(c))(); }, &f};
    }
  };
  void AddChunkTo(LineSplitter& splitter, std::string_view chunk, bool finish,
                  std::vector<LaunchEvent>& out, std::vector<FaultEvent>& faults,
                  EventsCallback on_events);
  template <bool kFaults>
  [[gnu::noinline]] void AddOtherLine(std::string_view line, std::vector<LaunchEvent>& out,
                                      std::vector<FaultEvent>* faults);
  void FinishTo(std::vector<LaunchEvent>& out, std::vector<FaultEvent>* faults);
  void CompleteLongEntry(std::vector<LaunchEvent>& out);

  LogcatStreamFormat format_ = LogcatStreamFormat::kAuto;
  uint64_t lines_ = 0;
  uint64_t skipped_lines_ = 0;
  // `long` format state: the header of the entry whose message lines follow.
  bool in_long_entry_ = false;
  bool long_launch_tag_ = false;  // the entry's tag is ActivityManager/ActivityTaskManager
  bool long_fault_tag_ = false;   // the entry's tag is one FaultAssembler reads
  std::string long_time_;
  std::optional<int64_t> long_pid_, long_tid_;
  std::string long_tag_;
  std::string long_message_;  // first message line only (launch tags only): launch lines are
                              // single-line
  bool long_have_message_ = false;
  FaultAssembler faults_;
};

}  // namespace droidlab::parsers
