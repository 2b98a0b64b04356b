// JSON mapping of the parsers' records, as API.md's `droidlab parse` section specifies.
// Each function appends one JSON value (no whitespace) to `out`. Text from the device is passed
// through as UTF-8; invalid bytes become U+FFFD so the document stays valid JSON.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "parsers/am_start.h"
#include "parsers/getprop.h"
#include "parsers/gfxinfo.h"
#include "parsers/logcat.h"
#include "parsers/looper_stats.h"
#include "parsers/meminfo.h"
#include "parsers/proc_stat.h"

namespace droidlab::daemon {

void AppendJson(const parsers::LaunchEvent& event, std::string& out);
// A logcat fault ("anr", "crash", …): in the same "events" array as the launches. API.md's keys
// ("kind", "package", "pid", "reason", "duration_ms" for the slow kinds, "time") and, where the
// lines have them, "tag", "process_name", "tid" (native crash), "logger_pid" (the header's pid:
// system_server, crash_dump), "user_id" (am_anr, am_crash), "component" (ANR), "thread" and
// "stack" (crash; at most 20 lines).
void AppendJson(const parsers::FaultEvent& event, std::string& out);
void AppendJson(const parsers::Meminfo& meminfo, std::string& out);
// `dump` gives the column names of the entry's extra values.
void AppendJson(const parsers::LooperStatsEntry& entry, const parsers::LooperStatsDump& dump,
                std::string& out);
void AppendJson(const parsers::ProcPidStat& stat, std::string& out);
void AppendJson(const parsers::AmStartResult& result, std::string& out);
void AppendJson(const parsers::GetpropOutput& props, std::string& out);
// The first profile's keys at the top, but "frames" there holds every framestats row of that
// profile's process (its windows' blocks included: Android 10+ gives each window its own);
// every profile (the first included) in "profiles", each with its own rows.
void AppendJson(const parsers::Gfxinfo& gfxinfo, std::string& out);
// The same, handing `out` to `flush` whenever it holds over 1 MiB (a dump of many frames).
void AppendJson(const parsers::Gfxinfo& gfxinfo, std::string& out,
                const std::function<void(std::string&)>& flush);
// A JSON string literal, quotes included.
void AppendJsonString(std::string_view text, std::string& out);

}  // namespace droidlab::daemon
