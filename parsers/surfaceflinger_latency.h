// The display's vsync period from `dumpsys SurfaceFlinger --latency` (no layer name): its first
// line is the period in nanoseconds, one decimal number (SurfaceFlinger::dumpStatsLocked:
// `result.appendFormat("%" PRId64 "\n", period)` from the HWC's active config up to Android 9,
// `StringAppendF(&result, "%" PRId64 "\n", getVsyncPeriodFromHWC())` from 10 on). Before Android 10
// the animation frame tracker's rows follow ("0\t0\t0" lines); from 10 nothing does. The frame
// tools that read refresh rates over adb take the same line (1e9 / period rounded: 60, 90, 120).
// Real first lines: "16666666" (60 Hz), "11111111" (90 Hz), "8333333" (120 Hz).
//
// Used where the frames carry no period of their own: framestats' FrameInterval column exists
// only from Android 13 (analysis/frames.h), and before it a 90 or 120 Hz phone's frames would
// be judged against 60 Hz's 16.7 ms.
#pragma once

#include <cstdint>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

// The period in ns. Thread-safe (pure function).
// Errors: kEmpty for no output; kPermissionDenied for dumpsys's "Permission Denial" text;
// kMalformed when the first line is not one decimal number, or it is outside 1 ms..1 s (1000 Hz
// to 1 Hz: no display runs outside it, so it is not a period).
Result<int64_t> ParseVsyncPeriodNs(std::string_view output);

}  // namespace droidlab::parsers
