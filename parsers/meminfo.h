// `dumpsys meminfo PKG`: one app process's memory, from its App Summary, TOTAL and Objects.
//
// Printed by ActivityManagerService.dumpApplicationMemoryUsage (services/core/java/com/android/
// server/am/; AppProfiler on 12+ keeps the same text) — the header "** MEMINFO in pid N [P] **",
// or "No process found for: PKG" — and ActivityThread.dumpMemInfoTable (core/java/android/app/),
// the tables. What differs by version (tests/parsers/meminfo_test.cpp has one dump of each):
// clang-format off
//  - Android 6-10, App Summary with one column, TOTAL and swap on one row:
//                           Pss(KB)
//                            ------
//               Java Heap:     7700
//                   TOTAL:   135623       TOTAL SWAP PSS:        0
//    ("TOTAL SWAP (KB):" instead when the kernel has no SwapPss: that is swap, not its PSS, and
//    is not read as total_swap_pss_kb);
//  - Android 11+, a second column Rss(KB) on the heap rows, an "Unknown:" row with only an Rss
//    value, and three totals:
//                           Pss(KB)                        Rss(KB)
//               Java Heap:     3764                          14000
//               TOTAL PSS:    42494            TOTAL RSS:    97968       TOTAL SWAP PSS:       39
//  - Objects, every version: pairs "Views:       37         ViewRootImpl:        1" (Android 6-9
//    also print "OpenSSL Sockets:", 10+ drop it; unknown labels are passed over).
// clang-format on
// Before Android 6 there is no App Summary: the main table's "TOTAL" row gives total PSS (its
// first column is Pss Total in every version) and the summary stays null.
//
// Only the first process is read when the package has several (com.pkg and com.pkg:remote each
// print a block). Labels, not column positions, say what a number is; a Summary or Objects line
// with a label whose value is not a number is counted in skipped_lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

struct MeminfoSummary {  // App Summary, Pss(KB) column
  std::optional<int64_t> java_heap_kb;
  std::optional<int64_t> native_heap_kb;
  std::optional<int64_t> code_kb;
  std::optional<int64_t> stack_kb;
  std::optional<int64_t> graphics_kb;
  std::optional<int64_t> private_other_kb;
  std::optional<int64_t> system_kb;
};

struct MeminfoObjects {
  std::optional<int64_t> views;
  std::optional<int64_t> view_root_impl;
  std::optional<int64_t> app_contexts;
  std::optional<int64_t> activities;
  std::optional<int64_t> assets;
  std::optional<int64_t> asset_managers;
  std::optional<int64_t> local_binders;
  std::optional<int64_t> proxy_binders;
  std::optional<int64_t> death_recipients;
  std::optional<int64_t> webviews;
};

struct Meminfo {
  int64_t pid = 0;
  std::string package;  // the process name in the header: "com.pkg" (or "com.pkg:remote")
  std::optional<int64_t> total_pss_kb;       // "TOTAL PSS:" (11+), "TOTAL:" (6-10), TOTAL row
  std::optional<int64_t> total_rss_kb;       // "TOTAL RSS:" (11+)
  std::optional<int64_t> total_swap_pss_kb;  // "TOTAL SWAP PSS:"
  MeminfoSummary summary;
  MeminfoObjects objects;
  uint64_t skipped_lines = 0;
};

// Errors: kEmpty for "No process found for: PKG" (the message names the package), kNotThisFormat
// for input with no "** MEMINFO in pid" header.
Result<Meminfo> ParseMeminfo(std::string_view text);

}  // namespace droidlab::parsers
