// The device commands the run engine sends, one named function each, returning the argv that
// DeviceShell::Run quotes (adb::BuildShellCommand) and runs. Build the command in its own
// statement and await the named operation:
//
//   auto force_stop = shell.Run(ForceStop(package), deadline);
//   auto stopped = co_await std::move(force_stop);
//
// never inside the co_await expression: Debian 12's g++ 12 destroys twice a temporary with a
// non-trivial destructor (this vector, its strings) that is part of a co_await full-expression.
// tools/checks/co_await_check.py rejects that shape (a call returning a vector as an argument).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "adb/shell_quote.h"

namespace droidlab::orchestrator {

// Launching and preparing an app (launch_iteration.cpp, run_executor.cpp).
std::vector<std::string> AmStartW(std::string_view component);  // am start -W -n COMPONENT
std::vector<std::string> ForceStop(std::string_view package);   // am force-stop PACKAGE
std::vector<std::string> KeyEvent(std::string_view keycode);    // input keyevent KEYCODE_HOME
std::vector<std::string> Pidof(std::string_view name);          // pidof NAME
std::vector<std::string> CatProcStat(int64_t pid);              // cat /proc/PID/stat

// The proc sampler's one long-lived shell (proc_sampler.h): `sh -c LOOP droidlab-proc PACKAGE
// SECONDS`. The loop is a constant of ours; the package (checked by the run spec) and the
// interval reach it as the positional parameters $1 and $2, quoted by BuildShellCommand like
// any argument, so no request text is ever part of the script. Every `interval` (at least 1 ms)
// it prints one frame (parsers/proc_sample_stream.h) and sleeps. What it uses is in every
// Android 9–14: mksh's builtins (`while`, `if !`, `read -r` with a redirection, `echo`, `$(…)`)
// and toybox's `pidof -s` (toys/posix/pidof.c) and `sleep` with a fraction (toys/posix/sleep.c,
// SLEEP_FLOAT, on in Android's toybox config since Android 6). The stat and uptime are read by
// `read`, a builtin: no process per tick but `sleep`, and `pidof` only while the app has none.
// It never ends by itself: it dies with the stream (adbd SIGHUPs a shell-protocol child when
// its socket closes, packages/modules/adb/daemon/shell_service.cpp; without the protocol, the
// next write to the closed pipe raises SIGPIPE).
std::vector<std::string> ProcSamplingLoop(std::string_view package, int64_t interval_ms);

// The preflight (preflight.cpp).
std::vector<std::string> PmPath(std::string_view package);
std::vector<std::string> ResolveActivity(
    std::string_view package);  // cmd package resolve-activity --brief
std::vector<std::string> Getprop();
std::vector<std::string> GetpropValue(std::string_view name);  // getprop NAME: the value or ""
std::vector<std::string> DumpsysBattery();
std::vector<std::string> DumpsysThermalservice();
// Fleet health's check (lab/device_health.h, lab/device_recovery.h): is the phone answering,
// and did it reboot since the last check.
std::vector<std::string> CatProcUptime();
std::vector<std::string> DumpsysPackage(std::string_view package);
std::vector<std::string> DumpsysPower();
std::vector<std::string> DumpsysActivityActivities();

// The compilation state (compilation.cpp): `cmd package compile -m FILTER -f PACKAGE` (Android
// 7+; ART Service answers it from 14) and `cmd package delete-dexopt PACKAGE` (14+).
std::vector<std::string> PackageCompile(std::string_view package, std::string_view filter);
std::vector<std::string> PackageDeleteDexopt(std::string_view package);

// The device clock (device_clock.cpp).
std::vector<std::string> GetconfClkTck();
std::vector<std::string> GetconfPageSize();
// Uptime and wall time from one command, so that no delay falls between them.
constexpr adb::ShellLiteral UptimeAndDate() { return "cat /proc/uptime; date +%s.%N"; }

// The looper-stats session (looper_session.cpp) and its charging gate.
std::vector<std::string> SettingsGetGlobal(std::string_view name);
std::vector<std::string> SettingsPutGlobal(std::string_view name, std::string_view value);
std::vector<std::string> SettingsDeleteGlobal(std::string_view name);
std::vector<std::string> LooperStatsReset();  // cmd looper_stats reset
std::vector<std::string> DumpsysLooperStats();
std::vector<std::string> DumpsysBatteryUnplug();
std::vector<std::string> DumpsysBatteryReset();

// The slow-message session (slow_message_session.cpp): toolbox's setprop NAME VALUE.
std::vector<std::string> Setprop(std::string_view name, std::string_view value);

// An iteration's frames (frames_collector.cpp): dumpsys gfxinfo PKG reset | framestats.
std::vector<std::string> DumpsysGfxinfoReset(std::string_view package);
std::vector<std::string> DumpsysGfxinfoFramestats(std::string_view package);
// The display's vsync period, once a run (parsers/surfaceflinger_latency.h).
std::vector<std::string> DumpsysSurfaceFlingerLatency();

// An iteration's memory (memory_collector.cpp): dumpsys meminfo PKG.
std::vector<std::string> DumpsysMeminfo(std::string_view package);

// The run's logcat stream (logcat_feed.cpp): epoch times; main, system, crash and events buffers;
// from now on.
std::vector<std::string> LogcatFromNow();

}  // namespace droidlab::orchestrator
