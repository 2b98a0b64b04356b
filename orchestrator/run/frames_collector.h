// The frames of an iteration (issue 16 §2): `dumpsys gfxinfo PKG reset` before it, `dumpsys
// gfxinfo PKG framestats` after it (after the launch and the run's scenario), read by
// parsers/gfxinfo.h and judged by analysis/frames.h into a store::IterationFrames.
//
// hwui keeps its statistics per process and the last 120 frames per window; a cold launch starts
// a process with none, a warm or hot one comes back to a process with the frames of the
// iteration before — the reset is what makes each iteration's frames its own. A phone or a
// version that answers neither (no gfxinfo service, an app that draws nothing) leaves the
// iteration without frames: the launch is still measured, and the reason is logged once.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "orchestrator/run/device_shell.h"
#include "parsers/gfxinfo.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// Pure: the iteration's frames from the dump — hwui's figures from the package's first profile
// block (its process), droidlab's over the framestats rows of every block of that process (its
// windows), the rows kept under their header's names (the first block's header; rows of a
// block with other columns are mapped by name onto it). `display_period_ns` is the vsync period
// for rows that carry none (before Android 13); 0 when unknown (60 Hz is then assumed). An error
// when the dump holds no profile of `package`.
BasicResult<store::IterationFrames, std::string> IterationFramesOf(const parsers::Gfxinfo& dump,
                                                                   std::string_view package,
                                                                   int64_t run_id,
                                                                   int64_t iteration,
                                                                   int64_t display_period_ns = 0);

// `dumpsys SurfaceFlinger --latency`: the display's vsync period in ns, or nullopt when the phone
// does not say (for the log: the frames are then judged at 60 Hz before Android 13). Fatal only
// when the device is gone or the run cancelled.
boost::asio::awaitable<CommandResult<std::optional<int64_t>>> ReadDisplayPeriod(
    DeviceShell& shell, std::chrono::milliseconds timeout);

// The frames from the result of `dumpsys gfxinfo PKG framestats` (DumpsysGfxinfoFramestats, one
// part of the iteration's last command: launch_iteration.cpp), parsed and judged. The inner error
// says why there are no frames (for the log); the outer one is the command's when the device is
// gone or the run cancelled.
CommandResult<BasicResult<store::IterationFrames, std::string>> FramesOfDump(
    const CommandResult<adb::ShellResult>& read, std::string_view package, int64_t run_id,
    int64_t iteration, int64_t display_period_ns = 0);

}  // namespace droidlab::orchestrator
