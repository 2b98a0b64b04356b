// Which logcat faults are an iteration's (orchestrator/run/iteration_faults.h): the package's
// processes only (not a package whose name merely starts the same), ANRs and crashes but not
// slow messages, an am_anr / am_crash events line dropped when ActivityManager's or
// AndroidRuntime's lines of the same process said it (Android 13: ProcessErrorStateRecord and
// RuntimeInit print those, EventLogTags.logtags 30008 / 30039 the events), and the reasons an
// iteration and a run are given.
#include "orchestrator/run/iteration_faults.h"

#include <gtest/gtest.h>

namespace droidlab::orchestrator {
namespace {

using parsers::FaultEvent;
using parsers::FaultKind;

FaultEvent Fault(FaultKind kind, std::string tag, std::string process, int64_t pid,
                 std::string reason) {
  FaultEvent f;
  f.kind = kind;
  f.tag = std::move(tag);
  f.process_name = std::move(process);
  f.pid = pid;
  f.reason = std::move(reason);
  return f;
}

TEST(IterationFaultsTest, OnlyThePackagesProcessesAnrsAndCrashes) {
  const auto slow = Fault(FaultKind::kSlowDispatch, "Looper", "com.a", 1, "main h=x c=y m=0");
  EXPECT_TRUE(IsPackageFault(Fault(FaultKind::kCrash, "AndroidRuntime", "com.a", 1, "x"), "com.a"));
  EXPECT_TRUE(
      IsPackageFault(Fault(FaultKind::kAnr, "ActivityManager", "com.a:remote", 1, ""), "com.a"));
  EXPECT_TRUE(
      IsPackageFault(Fault(FaultKind::kNativeCrash, "DEBUG", "com.a", 1, "signal 11"), "com.a"));
  EXPECT_FALSE(
      IsPackageFault(Fault(FaultKind::kCrash, "AndroidRuntime", "com.ab", 1, "x"), "com.a"));
  EXPECT_FALSE(IsPackageFault(Fault(FaultKind::kCrash, "AndroidRuntime", "com", 1, "x"), "com.a"));
  EXPECT_FALSE(IsPackageFault(slow, "com.a"));
  EXPECT_FALSE(IsPackageFault(Fault(FaultKind::kCrash, "AndroidRuntime", "", 1, "x"), ""));
}

// Looper's slow-message lines are the app's own (Looper.showSlowLog logs from the app's process):
// kept when the line's pid is the launch's process, never a reason to invalidate.
TEST(IterationFaultsTest, SlowMessagesOfTheAppsProcessAreKeptAndInvalidateNothing) {
  const auto dispatch = Fault(FaultKind::kSlowDispatch, "Looper", "", 4321, "main h=x c=y m=0");
  const auto delivery = Fault(FaultKind::kSlowDelivery, "Looper", "", 4321, "main h=x c=y m=0");
  EXPECT_TRUE(IsAppSlowMessage(dispatch, 4321));
  EXPECT_TRUE(IsAppSlowMessage(delivery, 4321));
  EXPECT_FALSE(IsAppSlowMessage(dispatch, 999));  // another process: system_server, say
  EXPECT_FALSE(IsAppSlowMessage(dispatch, std::nullopt));
  EXPECT_FALSE(IsAppSlowMessage(Fault(FaultKind::kCrash, "AndroidRuntime", "com.a", 4321, "x"),
                                4321));
  store::IterationFault stored = StoredFault(dispatch, 1, 1, 0, std::nullopt);
  EXPECT_FALSE(MakesIterationInvalid(stored));
  stored.kind = "crash";
  EXPECT_TRUE(MakesIterationInvalid(stored));
  stored.kind = "anr";
  EXPECT_TRUE(MakesIterationInvalid(stored));
  stored.kind = "native_crash";
  EXPECT_TRUE(MakesIterationInvalid(stored));
}

TEST(IterationFaultsTest, AnEventsLineRepeatingAFaultIsLeftOutWhereverItComes) {
  const std::vector<FaultEvent> faults = {
      // The events line before the crash's own lines (a short stack is completed later).
      Fault(FaultKind::kCrash, "am_crash", "com.a", 100, "java.lang.IllegalStateException: boom"),
      Fault(FaultKind::kCrash, "AndroidRuntime", "com.other", 200, "java.lang.Error"),
      Fault(FaultKind::kCrash, "AndroidRuntime", "com.a", 100,
            "java.lang.IllegalStateException: boom"),
      Fault(FaultKind::kAnr, "ActivityManager", "com.a", 300, "Input dispatching timed out"),
      Fault(FaultKind::kAnr, "am_anr", "com.a", 300, "Input dispatching timed out"),
      // Alone: the crash of another process of the package whose AndroidRuntime lines were lost.
      Fault(FaultKind::kCrash, "am_crash", "com.a:remote", 400, "java.lang.NullPointerException"),
  };
  const auto mine = PackageFaults(faults, "com.a");
  ASSERT_EQ(mine.size(), 3u);
  EXPECT_EQ(mine[0].tag, "AndroidRuntime");
  EXPECT_EQ(mine[0].pid, 100);
  EXPECT_EQ(mine[1].tag, "ActivityManager");
  EXPECT_EQ(mine[2].tag, "am_crash");
  EXPECT_EQ(mine[2].pid, 400);
}

TEST(IterationFaultsTest, Reasons) {
  const auto crash = Fault(FaultKind::kCrash, "AndroidRuntime", "com.a", 100,
                           "java.lang.IllegalStateException: boom");
  EXPECT_EQ(FaultInvalidReason(crash), "crash: java.lang.IllegalStateException: boom");
  EXPECT_EQ(FaultInvalidReason(Fault(FaultKind::kAnr, "ActivityManager", "com.a", 1, "")),
            "anr in com.a");

  const store::IterationFault stored = StoredFault(crash, 7, 2, 0, 81'234);
  EXPECT_EQ(stored.run_id, 7);
  EXPECT_EQ(stored.iteration, 2);
  EXPECT_EQ(stored.kind, "crash");
  EXPECT_EQ(stored.at_ms, 81'234);
  EXPECT_EQ(stored.pid, 100);
  EXPECT_EQ(EveryIterationFaultedReason(stored, true),
            "every iteration crashed: java.lang.IllegalStateException: boom");
  EXPECT_EQ(EveryIterationFaultedReason(stored, false),
            "every iteration crashed or had an ANR (the first: crash: "
            "java.lang.IllegalStateException: boom)");
  store::IterationFault anr = stored;
  anr.kind = "anr";
  anr.reason = "Input dispatching timed out";
  EXPECT_EQ(EveryIterationFaultedReason(anr, true),
            "every iteration had an ANR: Input dispatching timed out");
  anr.kind = "native_crash";
  anr.reason = "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x1";
  EXPECT_EQ(EveryIterationFaultedReason(anr, true),
            "every iteration crashed in native code: signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), "
            "fault addr 0x1");
}

}  // namespace
}  // namespace droidlab::orchestrator
