// logcat: dump (-d, -t), clear (-c) or follow the device's log buffers with logcat's options
// and TAG:PRIORITY filters.
#include <cstdio>
#include <ctime>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// logcat -t/-T TIME: "MM-DD HH:MM:SS.mmm" (this year), "YYYY-MM-DD HH:MM:SS.mmm" or
// "SECONDS.mmm" since the epoch.
std::optional<std::chrono::system_clock::time_point> ParseLogTime(
    const std::string& text, std::chrono::system_clock::time_point now) {
  using namespace std::chrono;
  if (text.find_first_not_of("0123456789.") == std::string::npos) {
    const std::size_t dot = text.find('.');
    const auto whole = ParseLong(text.substr(0, dot));
    if (!whole) return std::nullopt;
    long ms = 0;
    if (dot != std::string::npos) {
      std::string fraction = (text.substr(dot + 1) + "000").substr(0, 3);
      ms = ParseLong(fraction).value_or(0);
    }
    return system_clock::time_point(seconds(*whole) + milliseconds(ms));
  }
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, ms = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%d.%d", &year, &month, &day, &hour, &minute,
                  &second, &ms) >= 6 &&
      year > 31) {
  } else if (std::sscanf(text.c_str(), "%d-%d %d:%d:%d.%d", &month, &day, &hour, &minute, &second,
                         &ms) >= 5) {
    const std::time_t t = system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    year = tm.tm_year + 1900;
  } else {
    return std::nullopt;
  }
  const auto date = sys_days{std::chrono::year{year} / month / day};
  return date + hours(hour) + minutes(minute) + seconds(second) + milliseconds(ms);
}

// -b main,system or repeated -b options; "all" and "default" as logcat takes them. Adds the
// buffers named in `list` to `buffers`; false on an unknown name (put in `unknown`).
bool AddLogBuffers(const std::string& list, unsigned& buffers, std::string& unknown) {
  std::size_t at = 0;
  while (at <= list.size()) {
    std::size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(at, comma - at);
    if (name == "main") {
      buffers |= LogBufferBit(LogBufferId::kMain);
    } else if (name == "system") {
      buffers |= LogBufferBit(LogBufferId::kSystem);
    } else if (name == "crash") {
      buffers |= LogBufferBit(LogBufferId::kCrash);
    } else if (name == "events") {
      buffers |= LogBufferBit(LogBufferId::kEvents);
    } else if (name == "all") {
      buffers |= kAllLogBuffers;
    } else if (name == "default") {
      buffers |= kDefaultLogBuffers;
    } else if (name == "radio" || name == "kernel" || name == "stats" || name == "security") {
      // exist on a phone; nothing is logged to them here
    } else {
      unknown = name;
      return false;
    }
    at = comma + 1;
  }
  return true;
}

}  // namespace

CommandOutput RunLogcat(DeviceState& device, const Argv& argv) {
  bool dump = false;
  std::size_t tail = 0;
  LogFilter filter;
  LogFormat format = LogFormat::kThreadtime;
  bool buffers_given = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (arg.size() > 2 && !arg.starts_with("--")) return arg.substr(2);  // -vthreadtime
      if (i + 1 < argv.size()) return argv[++i];
      return std::nullopt;
    };
    if (arg == "-d") {
      dump = true;
    } else if (arg == "-c") {
      device.logcat.Clear();
      return {};
    } else if (arg == "-s") {
      filter.tag_min["*"] = 'S';
    } else if (arg.starts_with("-v")) {
      const auto v = value();
      if (!v) return Error("logcat: option requires an argument -- 'v'\n", 1);
      if (*v == "epoch") {
        format = LogFormat::kEpoch;
      } else if (*v == "threadtime" || *v == "UTC" || *v == "printable") {
        // threadtime is the default; devsim's clock is UTC already
      } else {
        return Error("devsim: logcat -v " + *v + " is not simulated yet\n", 1);
      }
    } else if (arg.starts_with("-b")) {
      const auto v = value();
      if (!v) return Error("logcat: option requires an argument -- 'b'\n", 1);
      if (!buffers_given) filter.buffers = 0;
      buffers_given = true;
      std::string unknown;
      if (!AddLogBuffers(*v, filter.buffers, unknown)) {
        return Error("logcat: unknown buffer " + unknown + "\n", 1);
      }
    } else if (arg.starts_with("-t") || arg.starts_with("-T")) {
      const bool follow_tail = arg.starts_with("-T");
      const auto v = value();
      if (!v) return Error("logcat: option requires an argument\n", 1);
      if (v->find_first_not_of("0123456789") == std::string::npos) {
        const auto count = ParseLong(*v);
        if (!count || *count <= 0) return Error("logcat: -t/-T count must be positive\n", 1);
        tail = static_cast<std::size_t>(*count);
      } else {
        const auto since = ParseLogTime(*v, device.Now());
        if (!since) return Error("logcat: bad time '" + *v + "'\n", 1);
        filter.since = *since;
      }
      dump = dump || !follow_tail;
    } else if (!arg.starts_with("-")) {
      const std::size_t colon = arg.rfind(':');
      if (colon == std::string::npos || colon + 2 != arg.size()) {
        return Error("Invalid filter expression '" + arg + "'\n", 1);
      }
      filter.tag_min[arg.substr(0, colon)] = arg[colon + 1];
    } else {
      return Error("logcat: unknown option " + arg + "\n", 1);
    }
  }
  CommandOutput output;
  output.Out(device.logcat.Dump(filter, tail, format));
  if (!dump) {
    output.follow_logcat = true;
    output.follow_filter = filter.tag_min;
    output.follow_buffers = filter.buffers;
    output.follow_format = format == LogFormat::kEpoch ? 1 : 0;
  }
  return output;
}

}  // namespace droidlab::devsim
