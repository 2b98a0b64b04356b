// getprop, getconf and date: read-only facts of the build and the clock.
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {

CommandOutput RunGetprop(DeviceState& device, const Argv& argv) {
  CommandOutput output;
  if (argv.size() == 1) {
    // toolbox getprop: every property, sorted by name.
    for (const auto& [key, value] : device.properties) {
      output.Out("[" + key + "]: [" + value + "]\n");
    }
    return output;
  }
  const auto it = device.properties.find(argv[1]);
  if (it != device.properties.end()) {
    output.Out(it->second + "\n");
  } else {
    output.Out((argv.size() > 2 ? argv[2] : std::string()) + "\n");
  }
  return output;
}

// toolbox setprop (system/core/toolbox/setprop.cpp, Android 9+): NAME VALUE, nothing printed; a
// read-only property that is already set cannot change (property_service refuses it).
CommandOutput RunSetprop(DeviceState& device, const Argv& argv) {
  if (argv.size() != 3) {
    return Error("usage: setprop NAME VALUE\n\nSets an Android system property.\n\n", 1);
  }
  const std::string& name = argv[1];
  const std::string& value = argv[2];
  if (name.rfind("ro.", 0) == 0 && device.properties.count(name) != 0) {
    return Error("Failed to set property '" + name + "' to '" + value +
                     "'.\nSee dmesg for error reason.\n",
                 1);
  }
  device.properties[name] = value;
  return CommandOutput();
}

// toybox getconf: CLK_TCK is USER_HZ (100), PAGESIZE the kernel's 4 KiB pages.
CommandOutput RunGetconf(DeviceState&, const Argv& argv) {
  if (argv.size() != 2) return Error("getconf: needs 1 argument\n", 1);
  CommandOutput output;
  if (argv[1] == "CLK_TCK") {
    output.Out(std::to_string(kTicksPerSecond) + "\n");
  } else if (argv[1] == "PAGESIZE" || argv[1] == "PAGE_SIZE") {
    output.Out("4096\n");
  } else {
    return Error("getconf: bad '" + argv[1] + "'\n", 1);
  }
  return output;
}

// toybox date: "+FORMAT" with the strftime conversions a host script needs (%s, %N, %Y-%m-%d
// %H:%M:%S, %%); without one, date(1)'s default "Sat Mar 14 00:00:00 UTC 2026". The device's
// realtime clock is the clock its log lines are dated by, so `cat /proc/uptime; date +%s.%N`
// gives the offset between the log clock and the boot clock, as on a phone.
CommandOutput RunDate(DeviceState& device, const Argv& argv) {
  using namespace std::chrono;
  const auto now = device.Now();
  const auto since_epoch = duration_cast<nanoseconds>(now.time_since_epoch());
  const long long secs = duration_cast<seconds>(since_epoch).count();
  const long long nanos = since_epoch.count() - secs * 1'000'000'000LL;
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::string format = "%a %b %e %H:%M:%S %Z %Y";
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i].starts_with("+")) {
      format = argv[i].substr(1);
    } else if (argv[i] != "-u") {
      return Error("date: bad date '" + argv[i] + "'\n", 1);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 == format.size()) {
      out.push_back(format[i]);
      continue;
    }
    const char c = format[++i];
    char piece[64];
    if (c == 's') {
      std::snprintf(piece, sizeof piece, "%lld", secs);
      out += piece;
    } else if (c == 'N') {
      std::snprintf(piece, sizeof piece, "%09lld", nanos);
      out += piece;
    } else if (c == '%') {
      out.push_back('%');
    } else if (c == 'Z') {
      out += "UTC";  // -u: toybox prints the zone's name, not glibc's "GMT"
    } else if (std::string_view("YmdeHMSab").find(c) != std::string_view::npos) {
      // put_time in the classic locale: English day and month names, as toybox prints.
      const char spec[] = {'%', c, '\0'};
      std::ostringstream field;
      field << std::put_time(&tm, spec);
      out += field.str();
    } else {
      return Error(std::string("date: bad format '%") + c + "'\n", 1);
    }
  }
  CommandOutput output;
  output.Out(out + "\n");
  return output;
}

}  // namespace droidlab::devsim
