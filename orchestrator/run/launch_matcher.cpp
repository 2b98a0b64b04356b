#include "orchestrator/run/launch_matcher.h"

#include <charconv>
#include <chrono>

namespace droidlab::orchestrator {

namespace {

using parsers::LaunchEvent;
using parsers::LaunchEventKind;

bool IsComponent(const LaunchEvent& e, const LaunchTarget& target) {
  return e.package == target.package && e.activity == target.activity_class;
}

bool IsMainProcessStart(const LaunchEvent& e, const LaunchTarget& target) {
  if (e.kind != LaunchEventKind::kProcessStart) return false;
  if (!e.process_name.empty()) return e.process_name == target.package;
  return e.package == target.package;
}

std::optional<int64_t> Digits(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

// "567" → 567, "5" → 500, "567891" → 567 (usec/nsec cut to ms).
std::optional<int64_t> FractionMs(std::string_view fraction) {
  if (fraction.empty() || fraction.size() > 9) return std::nullopt;
  std::string padded(fraction.substr(0, std::min<size_t>(3, fraction.size())));
  padded.resize(3, '0');
  for (char c : fraction) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return Digits(padded);
}

}  // namespace

MatchedLaunch MatchLaunch(std::span<const LaunchEvent> events, const LaunchTarget& target) {
  MatchedLaunch m;
  bool begun = false;
  // Without any START of the component, the launch is taken from its first Displayed.
  bool any_start = false;
  for (const LaunchEvent& e : events) {
    if (e.kind == LaunchEventKind::kActivityStart && IsComponent(e, target)) any_start = true;
  }
  for (const LaunchEvent& e : events) {
    switch (e.kind) {
      case LaunchEventKind::kActivityStart:
        if (!IsComponent(e, target)) break;
        if (begun) {
          m.next_launch_seen = true;
          return m;
        }
        begun = true;
        m.start = e;
        break;
      case LaunchEventKind::kProcessStart:
        if ((begun || !any_start) && !m.displayed && !m.process_start &&
            IsMainProcessStart(e, target)) {
          m.process_start = e;
        }
        break;
      case LaunchEventKind::kDisplayed:
        if ((begun || !any_start) && !m.displayed && IsComponent(e, target)) m.displayed = e;
        break;
      case LaunchEventKind::kFullyDrawn:
        // After this launch's Displayed: an earlier one is the previous launch's, late.
        if ((begun || !any_start) && m.displayed && !m.fully_drawn && IsComponent(e, target)) {
          m.fully_drawn = e;
        }
        break;
    }
  }
  return m;
}

std::optional<int64_t> LogTimeToEpochMs(std::string_view time, int year) {
  const size_t dot = time.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto ms = FractionMs(time.substr(dot + 1));
  if (!ms) return std::nullopt;
  const std::string_view whole = time.substr(0, dot);
  if (auto secs = Digits(whole)) return *secs * 1000 + *ms;
  // "MM-DD HH:MM:SS"
  if (whole.size() != 14 || whole[2] != '-' || whole[5] != ' ' || whole[8] != ':' ||
      whole[11] != ':') {
    return std::nullopt;
  }
  const auto month = Digits(whole.substr(0, 2));
  const auto day = Digits(whole.substr(3, 2));
  const auto hour = Digits(whole.substr(6, 2));
  const auto minute = Digits(whole.substr(9, 2));
  const auto second = Digits(whole.substr(12, 2));
  if (!month || !day || !hour || !minute || !second || *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year{year},
                                         std::chrono::month{static_cast<unsigned>(*month)},
                                         std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days{date}.time_since_epoch();
  return std::chrono::duration_cast<std::chrono::milliseconds>(days).count() +
         ((*hour * 60 + *minute) * 60 + *second) * 1000 + *ms;
}

}  // namespace droidlab::orchestrator
