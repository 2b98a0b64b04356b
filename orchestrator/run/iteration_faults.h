// The app faults of an iteration (issue 16 §3): which of the run's logcat faults
// (parsers/logcat_faults.h, collected by logcat_feed.h) are the package's, each once; what they
// make of the iteration's invalid_reason and of a run where every iteration had one; their stored
// form (schema/0012). Pure: launch_iteration.cpp and run_executor.cpp do the waiting and storing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/logcat_faults.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// True for an ANR, a crash or a native crash of `package`'s process or of one of its processes
// ("com.pkg:remote"). Slow messages are not faults of an iteration.
bool IsPackageFault(const parsers::FaultEvent& fault, std::string_view package);

// The package's faults among `faults`, in order, each once. am_anr and am_crash (the events
// buffer) say again what ActivityManager's "ANR in" and AndroidRuntime's FATAL EXCEPTION say with
// more (the trace, the component): an event of the same kind and pid as such a fault is left
// out, wherever it comes; alone (no crash buffer read, a line lost) it is kept.
std::vector<parsers::FaultEvent> PackageFaults(std::span<const parsers::FaultEvent> faults,
                                               std::string_view package);

// True for a slow message (slow_dispatch, slow_delivery) the app's own process `app_pid` logged
// (Looper logs them itself: the line's pid is the app's; slow_message_session.h). They are stored
// with the iteration's faults (reason "main h=… c=… m=…", duration_ms) but make nothing invalid.
bool IsAppSlowMessage(const parsers::FaultEvent& fault, std::optional<int64_t> app_pid);

// True for a stored fault that makes its iteration invalid: an ANR, a crash, a native crash.
bool MakesIterationInvalid(const store::IterationFault& fault);

// The iteration's invalid_reason: "crash: java.lang.IllegalStateException: boom",
// "anr: Input dispatching timed out (…)", "native_crash: signal 11 (SIGSEGV), …"; the process
// instead of a reason when none was printed ("anr in com.pkg").
std::string FaultInvalidReason(const parsers::FaultEvent& fault);

// Why a run fails when each of its measured iterations had a fault: "every iteration crashed:
// java.lang.IllegalStateException: boom", "… had an ANR: …", "… crashed in native code: …",
// after the first iteration's first fault; "every iteration crashed or had an ANR (the first:
// crash: …)" when the kinds differ.
std::string EveryIterationFaultedReason(const store::IterationFault& first, bool one_kind);

// The stored row; `at_ms` is the fault's time on the boot clock when it could be read.
store::IterationFault StoredFault(const parsers::FaultEvent& fault, int64_t run_id,
                                  int64_t iteration, int64_t seq, std::optional<int64_t> at_ms);

}  // namespace droidlab::orchestrator
