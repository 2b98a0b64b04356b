#include "orchestrator/run/launch_matcher.h"

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

}  // namespace droidlab::orchestrator
