#include "orchestrator/run/device_commands.h"

#include <cstdio>
#include <initializer_list>

namespace droidlab::orchestrator {

namespace {

std::vector<std::string> Args(std::initializer_list<std::string_view> args) {
  return std::vector<std::string>(args.begin(), args.end());
}

}  // namespace

std::vector<std::string> AmStartW(std::string_view component) {
  return Args({"am", "start", "-W", "-n", component});
}
std::vector<std::string> ForceStop(std::string_view package) {
  return Args({"am", "force-stop", package});
}
std::vector<std::string> KeyEvent(std::string_view keycode) {
  return Args({"input", "keyevent", keycode});
}
std::vector<std::string> Pidof(std::string_view name) { return Args({"pidof", name}); }
std::vector<std::string> CatProcStat(int64_t pid) {
  return Args({"cat", "/proc/" + std::to_string(pid) + "/stat"});
}

// The uptime is read right after the stat, so a frame's time is that of its stat line to within
// a few syscalls (a pidof fork when the pid changed comes before both). `2>/dev/null` comes
// first so that it already applies when the `<` redirection fails (no process: /proc//stat).
constexpr std::string_view kProcSamplingLoop =
    "p=\n"
    "while :; do\n"
    "if ! read -r s 2>/dev/null </proc/$p/stat; then\n"
    "p=$(pidof -s \"$1\") && read -r s 2>/dev/null </proc/$p/stat || s=\n"
    "fi\n"
    "read -r u </proc/uptime\n"
    "echo \"@proc $u\n$s\n@end\"\n"
    "sleep \"$2\"\n"
    "done";

std::vector<std::string> ProcSamplingLoop(std::string_view package, int64_t interval_ms) {
  if (interval_ms < 1) interval_ms = 1;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%lld.%03lld",
                static_cast<long long>(interval_ms / 1000),
                static_cast<long long>(interval_ms % 1000));
  return Args({"sh", "-c", kProcSamplingLoop, "droidlab-proc", package, seconds});
}

std::vector<std::string> PmPath(std::string_view package) { return Args({"pm", "path", package}); }
std::vector<std::string> ResolveActivity(std::string_view package) {
  return Args({"cmd", "package", "resolve-activity", "--brief", package});
}
std::vector<std::string> Getprop() { return Args({"getprop"}); }
std::vector<std::string> GetpropValue(std::string_view name) { return Args({"getprop", name}); }
std::vector<std::string> DumpsysBattery() { return Args({"dumpsys", "battery"}); }
std::vector<std::string> DumpsysGfxinfoReset(std::string_view package) {
  return Args({"dumpsys", "gfxinfo", package, "reset"});
}
std::vector<std::string> DumpsysGfxinfoFramestats(std::string_view package) {
  return Args({"dumpsys", "gfxinfo", package, "framestats"});
}
std::vector<std::string> DumpsysSurfaceFlingerLatency() {
  return Args({"dumpsys", "SurfaceFlinger", "--latency"});
}
std::vector<std::string> DumpsysMeminfo(std::string_view package) {
  return Args({"dumpsys", "meminfo", package});
}
std::vector<std::string> DumpsysThermalservice() { return Args({"dumpsys", "thermalservice"}); }
std::vector<std::string> CatProcUptime() { return {"cat", "/proc/uptime"}; }
std::vector<std::string> DumpsysPackage(std::string_view package) {
  return Args({"dumpsys", "package", package});
}
std::vector<std::string> DumpsysPower() { return Args({"dumpsys", "power"}); }
std::vector<std::string> DumpsysActivityActivities() {
  return Args({"dumpsys", "activity", "activities"});
}

std::vector<std::string> PackageCompile(std::string_view package, std::string_view filter) {
  return Args({"cmd", "package", "compile", "-m", filter, "-f", package});
}
std::vector<std::string> PackageDeleteDexopt(std::string_view package) {
  return Args({"cmd", "package", "delete-dexopt", package});
}

std::vector<std::string> GetconfClkTck() { return Args({"getconf", "CLK_TCK"}); }
std::vector<std::string> GetconfPageSize() { return Args({"getconf", "PAGESIZE"}); }

std::vector<std::string> SettingsGetGlobal(std::string_view name) {
  return Args({"settings", "get", "global", name});
}
std::vector<std::string> SettingsPutGlobal(std::string_view name, std::string_view value) {
  return Args({"settings", "put", "global", name, value});
}
std::vector<std::string> SettingsDeleteGlobal(std::string_view name) {
  return Args({"settings", "delete", "global", name});
}
std::vector<std::string> LooperStatsReset() { return Args({"cmd", "looper_stats", "reset"}); }
std::vector<std::string> DumpsysLooperStats() { return Args({"dumpsys", "looper_stats"}); }
std::vector<std::string> DumpsysBatteryUnplug() { return Args({"dumpsys", "battery", "unplug"}); }
std::vector<std::string> DumpsysBatteryReset() { return Args({"dumpsys", "battery", "reset"}); }
std::vector<std::string> Setprop(std::string_view name, std::string_view value) {
  return Args({"setprop", name, value});
}

std::vector<std::string> LogcatFromNow() {
  return Args({"logcat", "-v", "epoch", "-b", "main,system,crash,events", "-T", "1"});
}

}  // namespace droidlab::orchestrator
