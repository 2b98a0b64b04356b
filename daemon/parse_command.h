// `droidlab parse (logcat|looper-stats|proc-stat|am-start|getprop|gfxinfo|meminfo) [FILE|-]`
// (API.md).
//
// Prints one JSON document on `out` and returns 0. Lines it cannot read are skipped and counted
// in "skipped_lines". A logcat with no launch lines is still a logcat ("events":[]); for the
// other kinds, input with nothing of that kind in it returns 2 with one line on `err` saying why,
// and nothing on `out`. A missing file returns 2 too. logcat, looper-stats and proc-stat stream:
// memory stays bounded whatever the input size. logcat's events come in the order they complete:
// a multi-line fault after its last line (a crash with a short stack at the end of the input).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace droidlab::daemon {

// `args` are the words after "parse".
int RunParseCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

// One line of usage, for `droidlab --help`.
const char* ParseCommandUsage();

}  // namespace droidlab::daemon
