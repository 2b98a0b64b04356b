#include "daemon/parse_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <string_view>

#include "daemon/input_reader.h"
#include "daemon/parse_json.h"
#include "parsers/am_start.h"
#include "parsers/getprop.h"
#include "parsers/gfxinfo.h"
#include "parsers/line_splitter.h"
#include "parsers/logcat.h"
#include "parsers/looper_stats.h"
#include "parsers/meminfo.h"
#include "parsers/proc_stat.h"

namespace droidlab::daemon {
namespace {

constexpr size_t kChunkBytes = 1 << 20;
// am start, getprop and gfxinfo output is a few KiB (gfxinfo framestats: ~500 bytes per frame,
// 120 frames per window); anything far larger is not what the user meant.
constexpr size_t kWholeInputLimit = 16 << 20;

// Collects the JSON document and writes it out in large blocks. Nothing reaches `out` until
// the caller has decided the input is of the right kind, so a refused input prints nothing.
class JsonOutput {
 public:
  explicit JsonOutput(std::FILE* out) : out_(out) {}
  std::string& buffer() { return buffer_; }
  void FlushIfLarge() {
    if (buffer_.size() >= kChunkBytes) Flush();
  }
  void Flush() {
    if (!buffer_.empty()) std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
    buffer_.clear();
  }
  int Finish() {
    buffer_ += '\n';
    Flush();
    return std::fflush(out_) == 0 ? 0 : 1;
  }

 private:
  std::FILE* out_;
  std::string buffer_;
};

int Fail(std::FILE* err, const std::string& message) {
  std::fprintf(err, "droidlab parse: %s\n", message.c_str());
  return 2;
}

struct LineInfo {
  bool overlong = false;      // cut at LineSplitter's limit: no device line is that long
  bool unterminated = false;  // the input's last line, with no newline after it
};

// Feeds the input through a LineSplitter. `on_line(line, info)` sees every line. A template,
// not a std::function: no indirect call per line (2.5 M of them in the 256 MiB bench log).
template <class OnLine>
ReadOutcome ForEachLine(const std::string& path, OnLine&& on_line) {
  parsers::LineSplitter splitter;
  uint64_t overlong_seen = 0;
  bool finishing = false;
  auto sink = [&](std::string_view line) {
    // The splitter counts a line as overlong just before handing it over.
    LineInfo info{splitter.overlong_lines() != overlong_seen, finishing};
    overlong_seen = splitter.overlong_lines();
    on_line(line, info);
  };
  ReadOutcome outcome = ReadInChunks(path, kChunkBytes, [&](std::string_view chunk) {
    splitter.Feed(chunk, sink);
    return true;
  });
  finishing = true;
  if (outcome.ok) splitter.Finish(sink);
  return outcome;
}

int ParseLogcat(const std::string& path, std::FILE* out, std::FILE* err) {
  JsonOutput json(out);
  std::string& buf = json.buffer();
  buf += "{\"events\":[";
  bool first = true;
  parsers::LogcatReader reader;
  std::vector<parsers::LaunchEvent> events;
  std::vector<parsers::FaultEvent> faults;
  auto emit = [&] {
    for (const auto& event : events) {
      if (!first) buf += ',';
      first = false;
      AppendJson(event, buf);
    }
    for (const auto& fault : faults) {
      if (!first) buf += ',';
      first = false;
      AppendJson(fault, buf);
    }
    events.clear();
    faults.clear();
    json.FlushIfLarge();
  };
  // The reader takes each chunk whole (LogcatReader::AddChunk): its noise check runs inside the
  // splitter's loop; a line cut at the splitter's limit is counted as skipped, not read.
  parsers::LineSplitter splitter;
  ReadOutcome read = ReadInChunks(path, kChunkBytes, [&](std::string_view chunk) {
    reader.AddChunk(splitter, chunk, events, faults, emit);
    return true;
  });
  if (!read.ok) return Fail(err, read.error);
  reader.FinishChunks(splitter, events, faults, emit);
  reader.Finish(events, faults);
  emit();
  buf += "],\"skipped_lines\":" + std::to_string(reader.skipped_lines()) + "}";
  return json.Finish();
}

int ParseLooperStatsInput(const std::string& path, std::FILE* out, std::FILE* err) {
  JsonOutput json(out);
  std::string& buf = json.buffer();
  parsers::LooperStatsReader reader;
  bool opened = false;
  bool first = true;
  uint64_t overlong = 0;
  ReadOutcome read = ForEachLine(path, [&](std::string_view line, LineInfo info) {
    if (info.overlong) {
      ++overlong;
      return;
    }
    bool got_entry = false;
    if (info.unterminated) {
      // LooperStatsService ends every row with '\n': a row without one was cut off.
      reader.AddUnterminatedLastLine(line);
    } else {
      got_entry = reader.AddLine(line);
    }
    if (!opened && reader.header_seen()) {
      const auto& dump = reader.dump();
      buf += "{\"start_time\":";
      if (dump.start_time) {
        AppendJsonString(*dump.start_time, buf);
      } else {
        buf += "null";
      }
      buf += ",\"on_battery_time_ms\":";
      buf += dump.on_battery_time_ms ? std::to_string(*dump.on_battery_time_ms) : "null";
      buf += ",\"entries\":[";
      opened = true;
    }
    if (got_entry) {
      // Entries point into `line`: serialise now, then drop them to keep memory flat.
      auto& entries = reader.mutable_dump().entries;
      for (const auto& entry : entries) {
        if (!first) buf += ',';
        first = false;
        AppendJson(entry, reader.dump(), buf);
      }
      entries.clear();
      json.FlushIfLarge();
    }
  });
  if (!read.ok) return Fail(err, read.error);
  auto dump = reader.Finish();
  if (!dump.ok()) return Fail(err, dump.error().message);
  buf += "],\"skipped_lines\":" + std::to_string(dump->skipped_lines + overlong) + "}";
  return json.Finish();
}

int ParseProcStatInput(const std::string& path, std::FILE* out, std::FILE* err) {
  JsonOutput json(out);
  std::string& buf = json.buffer();
  buf += "{\"processes\":[";
  uint64_t processes = 0;
  uint64_t skipped = 0;
  std::string last_error;
  ReadOutcome read = ForEachLine(path, [&](std::string_view line, LineInfo info) {
    if (line.empty()) return;  // a blank line holds nothing to read
    auto stat = info.overlong ? parsers::Result<parsers::ProcPidStat>(parsers::MakeError(
                                  parsers::ParseErrorCode::kMalformed, "line too long"))
                            : parsers::ParseProcPidStat(line);
    if (!stat.ok()) {
      ++skipped;
      last_error = stat.error().message;
      return;
    }
    if (processes++ > 0) buf += ',';
    AppendJson(*stat, buf);
    json.FlushIfLarge();
  });
  if (!read.ok) return Fail(err, read.error);
  if (processes == 0) {
    std::string why = "no /proc/<pid>/stat line in the input";
    if (skipped > 0) {
      why += " (" + std::to_string(skipped) + " lines could not be read; last: " + last_error + ")";
    }
    return Fail(err, why);
  }
  buf += "],\"skipped_lines\":" + std::to_string(skipped) + "}";
  return json.Finish();
}

// Reads a small input whole; refuses inputs over kWholeInputLimit.
ReadOutcome ReadWhole(const std::string& path, std::string& text) {
  // Room for a regular file at once: grown by appends, a 14 MB dump was copied and its pages
  // faulted in again at each doubling.
  struct stat st {};
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    text.reserve(std::min(static_cast<size_t>(st.st_size), kWholeInputLimit) + 1);
  }
  bool too_large = false;
  ReadOutcome read = ReadInChunks(path, kChunkBytes, [&](std::string_view chunk) {
    if (text.size() + chunk.size() > kWholeInputLimit) {
      too_large = true;
      return false;
    }
    text.append(chunk);
    return true;
  });
  if (read.ok && too_large) {
    read = {false, "input is larger than " + std::to_string(kWholeInputLimit >> 20) +
                       " MiB; this kind of output is a few KiB"};
  }
  return read;
}

template <class ParseFn>
int ParseWholeInput(const std::string& path, ParseFn parse, std::FILE* out, std::FILE* err) {
  std::string text;
  ReadOutcome read = ReadWhole(path, text);
  if (!read.ok) return Fail(err, read.error);
  auto result = parse(text);
  if (!result.ok()) return Fail(err, result.error().message);
  JsonOutput json(out);
  AppendJson(*result, json.buffer());
  return json.Finish();
}

// ParseWholeInput for gfxinfo, whose JSON (every framestats row twice) is written out in 1 MiB
// pieces as it is made rather than held whole.
int ParseGfxinfoInput(const std::string& path, std::FILE* out, std::FILE* err) {
  std::string text;
  ReadOutcome read = ReadWhole(path, text);
  if (!read.ok) return Fail(err, read.error);
  auto result = parsers::ParseGfxinfo(text);
  if (!result.ok()) return Fail(err, result.error().message);
  JsonOutput json(out);
  AppendJson(*result, json.buffer(), [&](std::string&) { json.Flush(); });
  return json.Finish();
}

}  // namespace

const char* ParseCommandUsage() {
  return "droidlab parse (logcat|looper-stats|proc-stat|am-start|getprop|gfxinfo|meminfo) [FILE|-]";
}

int RunParseCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  if (args.empty() || args.size() > 2) {
    std::fprintf(err, "usage: %s\n", ParseCommandUsage());
    return 2;
  }
  const std::string& kind = args[0];
  const std::string path = args.size() == 2 ? args[1] : "-";
  if (kind == "logcat") return ParseLogcat(path, out, err);
  if (kind == "looper-stats") return ParseLooperStatsInput(path, out, err);
  if (kind == "proc-stat") return ParseProcStatInput(path, out, err);
  if (kind == "am-start") {
    return ParseWholeInput(path, [](std::string_view t) { return parsers::ParseAmStart(t); }, out,
                           err);
  }
  if (kind == "meminfo") {
    return ParseWholeInput(path, [](std::string_view t) { return parsers::ParseMeminfo(t); }, out,
                           err);
  }
  if (kind == "getprop") {
    return ParseWholeInput(path, [](std::string_view t) { return parsers::ParseGetprop(t); }, out,
                           err);
  }
  if (kind == "gfxinfo") return ParseGfxinfoInput(path, out, err);
  std::fprintf(err, "droidlab parse: unknown kind '%s'\nusage: %s\n", kind.c_str(),
               ParseCommandUsage());
  return 2;
}

}  // namespace droidlab::daemon
