// /proc/<pid>/stat and /proc/uptime, as the Linux kernel prints them (fs/proc/array.c,
// do_task_stat; field names from proc(5)).
//
//   1234 (com.pkg) S 567 567 0 0 -1 1077952832 6380 0 0 0 52 17 0 0 10 -10 23 0 104858 15239241728 29366 18446744073709551615 ...
//
// comm (field 2) is the task name in parentheses; it may hold spaces and ')' ("(a) b)"), so it is
// found by the LAST ')' of the line. Kernels older than 3.x print fewer trailing fields: those are
// tolerated and left nullopt. Times are in clock ticks (sysconf(_SC_CLK_TCK), 100 on Android);
// rss is in pages.
//
// ProcPidStat::comm is a string_view INTO THE INPUT LINE.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

struct ProcPidStat {
  int64_t pid = 0;                 // (1)
  std::string_view comm;           // (2) without the parentheses
  char state = '?';                // (3)
  int64_t ppid = 0;                // (4)
  int64_t pgrp = 0;                // (5)
  int64_t session = 0;             // (6)
  int64_t tty_nr = 0;              // (7)
  int64_t tpgid = 0;               // (8)
  uint64_t flags = 0;              // (9)
  uint64_t minflt = 0;             // (10)
  uint64_t cminflt = 0;            // (11)
  uint64_t majflt = 0;             // (12)
  uint64_t cmajflt = 0;            // (13)
  uint64_t utime = 0;              // (14) clock ticks
  uint64_t stime = 0;              // (15)
  int64_t cutime = 0;              // (16)
  int64_t cstime = 0;              // (17)
  int64_t priority = 0;            // (18)
  int64_t nice = 0;                // (19)
  int64_t num_threads = 0;         // (20)
  int64_t itrealvalue = 0;         // (21)
  uint64_t starttime = 0;          // (22) clock ticks since boot
  uint64_t vsize = 0;              // (23) bytes
  int64_t rss = 0;                 // (24) pages
  // (25) onward: present on every kernel since 2.6.x, but tolerated missing.
  std::optional<uint64_t> rsslim;       // (25)
  std::optional<uint64_t> startcode;    // (26) 1 when the reader may not see addresses
  std::optional<uint64_t> endcode;      // (27)
  std::optional<uint64_t> startstack;   // (28)
  std::optional<uint64_t> kstkesp;      // (29) 0 since 4.x unless the task is a core dumper
  std::optional<uint64_t> kstkeip;      // (30)
  std::optional<uint64_t> signal;       // (31) obsolete bitmaps, decimal
  std::optional<uint64_t> blocked;      // (32)
  std::optional<uint64_t> sigignore;    // (33)
  std::optional<uint64_t> sigcatch;     // (34)
  std::optional<uint64_t> wchan;        // (35) 0 or 1 since 4.x (no address leak)
  std::optional<uint64_t> nswap;        // (36) always 0
  std::optional<uint64_t> cnswap;       // (37) always 0
  std::optional<int64_t> exit_signal;   // (38)
  std::optional<int64_t> processor;     // (39)
  std::optional<uint64_t> rt_priority;  // (40)
  std::optional<uint64_t> policy;       // (41)
  std::optional<uint64_t> delayacct_blkio_ticks;  // (42)
  std::optional<uint64_t> guest_time;   // (43)
  std::optional<int64_t> cguest_time;   // (44)
  std::optional<uint64_t> start_data;   // (45) since 3.3
  std::optional<uint64_t> end_data;     // (46)
  std::optional<uint64_t> start_brk;    // (47)
  std::optional<uint64_t> arg_start;    // (48) since 3.5
  std::optional<uint64_t> arg_end;      // (49)
  std::optional<uint64_t> env_start;    // (50)
  std::optional<uint64_t> env_end;      // (51)
  std::optional<int64_t> exit_code;     // (52)
  // How many fields the line had: 44 on 2.6.24–3.2 kernels, 47 on 3.3/3.4, 52 since 3.5.
  // Fields past 52 (a future kernel) are counted and ignored, never an error.
  int field_count = 0;
};

// Parses one line of /proc/<pid>/stat (trailing newline allowed). Needs at least fields 1–24.
// One forward pass after the last ')', no allocation: safe to call per sample on a hot path.
// Thread-safe (pure function).
// Errors: kEmpty for an empty line; kNotThisFormat when there is no "PID (" ... ")" frame;
// kMalformed when a field is not a number of its type (the message names the field as in
// proc(5)), the state is not one character, or fewer than 24 fields are present.
Result<ProcPidStat> ParseProcPidStat(std::string_view line);

// /proc/uptime: "35747.56 141231.15" (seconds since boot, summed idle seconds of all CPUs), both
// with two decimals. Kept as integer centiseconds, exactly as printed, with no float rounding.
struct ProcUptime {
  int64_t uptime_cs = 0;
  int64_t idle_cs = 0;
};
// Errors: kEmpty for empty text; kMalformed unless it is two "SECONDS.CC" numbers (exactly two
// decimals, as fs/proc/uptime.c prints them) separated by one space, with an optional newline.
Result<ProcUptime> ParseProcUptime(std::string_view text);

}  // namespace droidlab::parsers
