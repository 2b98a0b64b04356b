// Which logcat launch lines belong to one measured launch. Pure: the executor feeds it the
// events its one logcat stream produced since the iteration began, in stream order; it picks
// the launch of one component out of noise, unreadable lines and other apps' launches.
//
// The lines of one launch (ActivityStarter, ProcessList, ActivityMetricsLogger; see
// parsers/logcat.h for their formats across versions) come in this order:
//   START u0 {… cmp=PKG/.Act …}     the intent reached system_server (ActivityStarter)
//   Start proc PID:PKG/u0aN for …   cold only: the process was forked (ProcessList)
//   Displayed PKG/.Act: +797ms      first frame (ActivityMetricsLogger.logAppDisplayed)
//   Fully drawn PKG/.Act: +1s2ms    only when the app calls reportFullyDrawn()
// Rules: the launch begins at the first START of the component; a later START of the same
// component begins the next launch, so nothing after it is taken. Lines of the component before
// its START (a late Displayed of the previous iteration) are ignored. If no START line is seen
// at all (some OEM builds log it elsewhere), the first Displayed of the component still counts
// and `start` stays empty. Start proc counts only for the package's main process (not
// "PKG:remote") and only before Displayed; Fully drawn only after Displayed (reportFullyDrawn
// is reported after the first frame; one before it is the previous launch's, logged late).
// Times are the parser's numbers (LaunchEvent::log_time, parsers::LogTimeToEpochMs): nothing
// here reads the text of a log line.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "parsers/logcat.h"

namespace droidlab::orchestrator {

struct LaunchTarget {
  std::string package;         // "com.example.app"
  std::string activity_class;  // the full class name: "com.example.app.MainActivity"
};

struct MatchedLaunch {
  std::optional<parsers::LaunchEvent> start;          // START u0 {…}
  std::optional<parsers::LaunchEvent> process_start;  // Start proc …
  std::optional<parsers::LaunchEvent> displayed;
  std::optional<parsers::LaunchEvent> fully_drawn;
  // Events of the component after this launch's START that began another launch (a second
  // START): the matcher stopped there.
  bool next_launch_seen = false;
};

MatchedLaunch MatchLaunch(std::span<const parsers::LaunchEvent> events, const LaunchTarget& target);

}  // namespace droidlab::orchestrator
