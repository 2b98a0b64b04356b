// Output of `getconf NAME` for a sysconf(3) name such as CLK_TCK or PAGESIZE (toybox
// toys/posix/getconf.c, show_conf: `printf("%ld\n", sysconf(…))`, or "undefined" when sysconf
// returns -1). Real captures: `getconf PAGE_SIZE` on source.android.com's "Get the page size"
// page prints
//
//   4096
//
// and `getconf CLK_TCK` prints "100" on every Android kernel (USER_HZ). A device without getconf
// (toybox gained it in Android 7) prints the shell's complaint instead, on stderr or, over a
// pty, mixed into stdout: "/system/bin/sh: getconf: inaccessible or not found".
#pragma once

#include <cstdint>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

// The value of one sysconf name: one line holding a positive decimal number ("100\n"; "\r\n"
// and trailing blanks allowed). Zero and negative values are refused: the callers (ticks per
// second, page size) divide by them. Thread-safe (pure function).
// Errors: kEmpty for empty output; kNotThisFormat for "undefined"; kMalformed for anything
// else (a shell's "not found", a second line).
Result<int64_t> ParseGetconfPositive(std::string_view output);

}  // namespace droidlab::parsers
