#include "parsers/proc_sample_stream.h"

namespace droidlab::parsers {

namespace {

constexpr std::string_view kBegin = "@proc ";
constexpr std::string_view kEnd = "@end";

}  // namespace

void ProcStreamReader::Drop(std::string problem) {
  ++bad_frames_;
  last_problem_ = std::move(problem);
  open_ = false;
}

std::optional<ProcStreamSample> ProcStreamReader::AddLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.starts_with(kBegin)) {
    if (open_) Drop("a frame with no end");
    open_ = true;
    bad_ = false;
    has_stat_line_ = false;
    stat_line_.clear();
    auto uptime = ParseProcUptime(line.substr(kBegin.size()));
    if (uptime) {
      uptime_ = *uptime;
    } else {
      bad_ = true;
      last_problem_ = "uptime: " + uptime.error().message;
    }
    return std::nullopt;
  }
  if (line == kEnd) {
    if (!open_) {
      ++stray_lines_;
      last_problem_ = "an end with no frame";
      return std::nullopt;
    }
    open_ = false;
    if (bad_) {
      ++bad_frames_;
      return std::nullopt;
    }
    ProcStreamSample sample;
    sample.uptime = uptime_;
    if (has_stat_line_ && !stat_line_.empty()) {
      auto stat = ParseProcPidStat(stat_line_);
      if (!stat) {
        Drop("stat: " + stat.error().message);
        return std::nullopt;
      }
      sample.stat = *stat;
    }
    ++frames_;
    return sample;
  }
  if (!open_) {
    ++stray_lines_;
    last_problem_ = "a line outside any frame";
    return std::nullopt;
  }
  if (has_stat_line_) {
    // Two stat lines: something else wrote into the frame, so neither is trusted.
    bad_ = true;
    last_problem_ = "more than one line in a frame";
    return std::nullopt;
  }
  has_stat_line_ = true;
  stat_line_.assign(line);
  return std::nullopt;
}

}  // namespace droidlab::parsers
