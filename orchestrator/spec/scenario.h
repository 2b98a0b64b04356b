// A run's scenario (issue 16 §1): what droidlab does in the app after each launch, as a list of
// steps checked against a grammar before anything reaches a shell.
//
//   "scenario": [{"tap": [540, 1200]}, {"wait_ms": 500}, {"swipe": [540, 1600, 540, 400, 300]},
//                {"key": "BACK"}, {"text": "hello world"},
//                {"monkey": {"events": 200, "seed": 42, "throttle_ms": 50}}]
//
// Each step becomes one argv (`input tap X Y`, `input swipe X1 Y1 X2 Y2 MS`, `input keyevent
// KEYCODE_BACK`, `input text TEXT`, `monkey -p PKG -s SEED --throttle T --pct-syskeys 0
// --pct-rotation 0 EVENTS`) or a wait on the host. Only what those tools take unchanged passes:
// - text: printable ASCII without '%' — `input` (frameworks/base cmds/input Input.java, and
//   InputShellCommand.java from Android 12) turns "%s" into a space and maps each character
//   through the virtual keyboard's KeyCharacterMap, which has no key for anything else;
// - key: a KeyEvent name (BACK or KEYCODE_BACK, [A-Z0-9_]) or its number (0–999);
// - numbers: whole JSON integers within the bounds below.
// Monkey is restricted to the run's package (-p), sends no system keys (--pct-syskeys 0: HOME
// or a volume key would take the measurement out of the app) and no rotations
// (--pct-rotation 0): MonkeyRotationEvent calls IWindowManager.freezeRotation and, when its
// random `persist` is set, never thaws it — the phone would stay locked in that rotation after
// the run, a change droidlab could neither record nor undo.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "orchestrator/spec/field_error.h"

namespace droidlab::orchestrator {

inline constexpr std::size_t kMaxScenarioSteps = 100;
inline constexpr int64_t kMaxScreenCoordinate = 100'000;
inline constexpr int64_t kMaxSwipeMs = 60'000;
inline constexpr int64_t kMaxWaitMs = 600'000;
inline constexpr std::size_t kMaxTextLength = 500;
inline constexpr int64_t kMaxMonkeyEvents = 100'000;
inline constexpr int64_t kMaxMonkeyThrottleMs = 10'000;
inline constexpr int64_t kMaxMonkeySeed = 2'147'483'647;
// All the waits and throttles of a scenario together, so that one run cannot hold a phone for
// days: an hour per iteration.
inline constexpr int64_t kMaxScenarioMs = 3'600'000;

struct ScenarioStep {
  enum class Kind { kTap, kSwipe, kKey, kText, kWait, kMonkey };
  Kind kind = Kind::kWait;
  // tap: x, y; swipe: x1, y1, x2, y2, ms; wait: ms; monkey: events, seed, throttle_ms.
  std::vector<int64_t> numbers;
  std::string text;  // key: as given (BACK, KEYCODE_BACK or 4); text: the text
  friend bool operator==(const ScenarioStep&, const ScenarioStep&) = default;
};

const char* ScenarioStepName(ScenarioStep::Kind kind);  // "tap", "swipe", "key", ...

// The "scenario" value → its steps; an error names the step ("scenario[2].tap") and why.
BasicResult<std::vector<ScenarioStep>, FieldError> ParseScenario(const nlohmann::json& value);
// The steps as the request gave them (what RunSpecToJson stores).
nlohmann::json ScenarioToJson(const std::vector<ScenarioStep>& steps);

// The argv of a step on the device (empty for a wait, which is the host's), and how long the
// step may take before it is failed: the time it asks for plus 10 s (and 10 ms per monkey
// event).
std::vector<std::string> ScenarioStepArgv(const ScenarioStep& step, std::string_view package);
std::chrono::milliseconds ScenarioStepDeadline(const ScenarioStep& step);

}  // namespace droidlab::orchestrator
