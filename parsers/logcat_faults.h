// What goes wrong in an app, as logcat prints it: ANRs, Java crashes, native crashes, and
// Looper's slow-message warnings. Used by LogcatReader (logcat.h), which cuts the header off
// each line and hands the message of a fault tag here; the `-v` formats are its business.
//
// clang-format off
// Sources and real lines (tests/data/logcat/README.md has where each one comes from):
//  - ANR, tag ActivityManager, level E. One Slog.e of a multi-line text, which logcat prints as
//    one line per text line, each with the same header (AppErrors.appNotResponding, Android 4-10;
//    ProcessRecord.appNotResponding, 11; ProcessErrorStateRecord.appNotResponding, 12+; the
//    "(activity)" part only when the ANR has one; "Reason:" only with an annotation; 12+ adds
//    "Parent:", "ErrorId:", "Frozen:" after Reason):
//      "E ActivityManager: ANR in com.looker.droidify (com.looker.droidify/.MainActivity)"
//      "E ActivityManager: PID: 17681"
//      "E ActivityManager: Reason: Input dispatching timed out (61a981d com.looker.droidify/… is not responding. Waited 5001ms for FocusEvent(hasFocus=false))."
//  - am_anr, events buffer (services/core/java/com/android/server/am/EventLogTags.logtags,
//    30008 "(User|1|5),(pid|1|5),(Package Name|3),(Flags|1|5),(reason|3)" since Android 4.2):
//      "03-04 13:45:03.781  1000  1199 14667 I am_anr  : [0,2900,com.android.systemui,551042573,Input dispatching timed out (…)]"
//  - Java crash, tag AndroidRuntime, level E (RuntimeInit.KillApplicationHandler, logUncaught on
//    8+; "Process: P, " since Android 4.4 — a bare "PID: N" when the process has no name yet —
//    then the Throwable's stack; the crash buffer on 5+):
//      "08-16 22:20:08.163 25819 25854 E AndroidRuntime: FATAL EXCEPTION: Thread-1565"
//      "08-16 22:20:08.163 25819 25854 E AndroidRuntime: Process: com.rareventure.gps2, PID: 25819"
//      "08-16 22:20:08.163 25819 25854 E AndroidRuntime: java.lang.InternalError: Thread starting during runtime shutdown"
//      "08-16 22:20:08.163 25819 25854 E AndroidRuntime: \tat java.lang.Thread.nativeCreate(Native Method)"
//  - am_crash, events buffer (30039 "(User|1|5),(PID|1|5),(Process Name|3),(Flags|1|5),
//    (Exception|3),(Message|3),(File|3),(Line|1|5)" and, later, ",(Recoverable|1|5)").
//  - native crash, tag DEBUG (debuggerd's tombstone.cpp dump_thread_info / dump_signal_info up
//    to Android 11, libdebuggerd/tombstone_proto_to_text.cpp on 12+; level I on 4-6, F since 7):
//      "05-24 13:49:47.934 12008 12008 F DEBUG   : pid: 11618, tid: 11618, name: .linphone.debug  >>> org.linphone.debug <<<"
//      "05-24 13:49:47.934 12008 12008 F DEBUG   : signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x1"
//  - Looper.showSlowLog (Android 9+), tag Looper, level W:
//      "04-05 10:46:40.702 31411 31411 W Looper  : Slow delivery took 7319ms main h=android.view.Choreographer$FrameHandler c=android.view.Choreographer$FrameDisplayEventReceiver@ffd9dfb m=0"
// clang-format on
//
// Multi-line faults are put together per logging process (pid, and tid where the format
// prints one) and tag, so lines of other processes may come in between. When each is complete:
//  - ANR: at its "Reason:" line, or at the next line of that entry that is neither "PID:" nor
//    "Reason:" (an ANR without an annotation), or when the same logger starts another fault;
//  - crash: once kMaxStackLines stack lines are kept, at the next "FATAL EXCEPTION" of the same
//    process, or at Finish — so a crash with a short stack comes out at the end of the stream;
//  - native crash: at its "signal" line, or at the next tombstone header of the same logger;
//  - slow dispatch / delivery, am_anr, am_crash: single lines, at once.
// Finish emits what is still open; FlushOpen does the same mid-stream, for a reader that needs the
// faults complete at a point of its own (a run's iteration end): lines that would have continued a
// flushed fault are then dropped (a stack line with no open crash is no fault). At most kMaxPending
// faults are open at once; past that the oldest is emitted as it is. Lookalike lines under other
// tags are never faults; lines of a fault tag that say something else are not either (nothing is
// skipped for them: they are logcat).
//
// Thread-safety: a FaultAssembler is one stream's state; use one per stream, from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/logcat_time.h"

namespace droidlab::parsers {

enum class FaultKind { kAnr, kCrash, kNativeCrash, kSlowDispatch, kSlowDelivery };

// "anr", "crash", "native_crash", "slow_dispatch", "slow_delivery" (API.md).
std::string_view FaultKindName(FaultKind kind);

// One fault. Strings are owned copies (faults are rare). Fields a fault's lines do not carry stay
// empty / nullopt.
struct FaultEvent {
  FaultKind kind = FaultKind::kAnr;
  std::string time;  // the first line's timestamp as printed; "" when none
  LogTime log_time;  // `time` read into numbers
  std::string tag;   // "ActivityManager", "am_anr", "AndroidRuntime", "am_crash", "DEBUG", "Looper"
  std::optional<int64_t> logger_pid;  // the header's pid: system_server for an ANR, crash_dump
                                      // (or debuggerd) for a native crash, the app itself else
  std::optional<int64_t> pid;         // the faulting process ("PID:", "pid:", the event's field;
                                      // the header's pid for a crash without "Process:" and a slow
                                      // message, which the app logs itself)
  std::optional<int64_t> tid;         // native crash: the thread that took the signal
  std::string process_name;           // "com.pkg" or "com.pkg:remote"; a path for a native daemon
  std::string package;                // process_name up to ':'; "" for a path ("/system/bin/x")
  std::string component;              // ANR: "com.pkg/.Main" from "ANR in P (C)"
  std::string thread;                 // crash: "main" of FATAL EXCEPTION; native: the thread name;
                                      // slow: the Looper's thread
  std::string reason;                 // ANR: "Reason:" text / am_anr reason; crash: the exception
                                      // line ("java.lang.X: msg") / am_crash "Exception: Message";
  // native: the "signal …" line; slow: "main h=… c=… m=…"
  std::vector<std::string> stack;  // crash: the lines after the exception, at most kMaxStackLines
  std::optional<int64_t> duration_ms;  // slow dispatch / delivery
  std::optional<int64_t> user_id;      // am_anr / am_crash "User"
};

// The parts of one logcat line that a fault needs, as views into the line (LogcatReader's header).
struct FaultLine {
  std::string_view time;
  std::optional<int64_t> pid;
  std::optional<int64_t> tid;
  std::string_view tag;
  std::string_view message;
};

class FaultAssembler {
 public:
  static constexpr size_t kMaxStackLines = 20;
  static constexpr size_t kMaxPending = 16;

  // True for the tags whose lines may be faults: ActivityManager, AndroidRuntime, DEBUG, Looper,
  // am_anr, am_crash.
  static bool IsFaultTag(std::string_view tag);

  // One line under a fault tag; appends the faults it completes.
  void Add(const FaultLine& line, std::vector<FaultEvent>& out);
  // True while a fault waits for more lines (a line under its tag may then complete it).
  bool HasOpen() const { return !pending_.empty(); }
  // End of stream: emits the open faults, oldest first.
  void Finish(std::vector<FaultEvent>& out);
  // The same mid-stream: emits the open faults as they are, oldest first; the stream goes on.
  void FlushOpen(std::vector<FaultEvent>& out) { Finish(out); }

 private:
  enum class Phase { kAnrHead, kCrashHead, kCrashStack, kNativeHead };
  struct Pending {
    Phase phase;
    std::optional<int64_t> logger_pid, logger_tid;
    std::string logger_tag;
    FaultEvent event;
  };
  Pending* Find(const FaultLine& line);
  void Emit(size_t index, std::vector<FaultEvent>& out);
  Pending& Open(const FaultLine& line, Phase phase, FaultKind kind, std::vector<FaultEvent>& out);

  std::vector<Pending> pending_;  // oldest first
};

}  // namespace droidlab::parsers
