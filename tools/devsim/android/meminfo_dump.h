// `dumpsys meminfo PKG` of an app as Android 9–14 print it (frameworks/base
// core/java/android/app/ActivityThread.java dumpMemInfoTable, non-checkin form, and its App
// Summary, Objects and SQL sections; the header from ActivityManagerService
// dumpApplicationMemoryUsage). The numbers come from the package's MemorySpec so that the App
// Summary shows exactly them.
#pragma once

#include <string>

#include "tools/devsim/android/scenario.h"

namespace droidlab::devsim {

struct MeminfoProcess {
  int pid = 0;
  std::string package;
  int activities = 1;  // the live Activity objects (MemorySpec's, plus what leaked)
};

// `uptime_ms` / `realtime_ms`: SystemClock.uptimeMillis / elapsedRealtime.
std::string FormatMeminfo(int sdk, long uptime_ms, long realtime_ms, const MeminfoProcess& process,
                          const MemorySpec& memory);

}  // namespace droidlab::devsim
