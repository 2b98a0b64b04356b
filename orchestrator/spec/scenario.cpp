#include "orchestrator/spec/scenario.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

namespace droidlab::orchestrator {

namespace {

using nlohmann::json;
using Kind = ScenarioStep::Kind;

struct KindName {
  Kind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {{Kind::kTap, "tap"},      {Kind::kSwipe, "swipe"},
                                   {Kind::kKey, "key"},      {Kind::kText, "text"},
                                   {Kind::kWait, "wait_ms"}, {Kind::kMonkey, "monkey"}};

// [n, n, ...] of `count` numbers, each in its bounds.
std::optional<FieldError> ReadNumbers(const json& v, const std::string& field,
                                      const std::vector<std::pair<int64_t, int64_t>>& bounds,
                                      const char* shape, std::vector<int64_t>& out) {
  if (!v.is_array() || v.size() != bounds.size()) {
    return Error(field, std::string("must be ") + shape + ", got " + v.dump());
  }
  out.resize(bounds.size());
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (auto e = ReadIntField(v[i], at, bounds[i].first, bounds[i].second, out[i])) return e;
  }
  return std::nullopt;
}

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// BACK, KEYCODE_BACK or 4: what KeyEvent.keyCodeFromString takes (a name or a number).
std::optional<std::string> KeyProblem(std::string_view key) {
  if (key.empty() || key.size() > 40) return "must be a key name of 1 to 40 characters";
  if (IsDigits(key)) {
    if (key.size() > 3) return "a key code must be between 0 and 999";
    return std::nullopt;
  }
  const bool name = std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!name || !(key[0] >= 'A' && key[0] <= 'Z')) {
    return "must be a KeyEvent name such as BACK or KEYCODE_ENTER (A–Z, 0–9, _) or a key code";
  }
  return std::nullopt;
}

std::optional<std::string> TextProblem(std::string_view text) {
  if (text.empty() || text.size() > kMaxTextLength) {
    return "must be 1 to " + std::to_string(kMaxTextLength) + " characters";
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c > 0x7e) {
      return "character " + std::to_string(i + 1) +
             " is not printable ASCII: `input text` can type only what the virtual keyboard has";
    }
    if (c == '%') {
      return "character " + std::to_string(i + 1) +
             " is '%': `input text` reads \"%s\" as a space, so the text would not arrive as given";
    }
  }
  return std::nullopt;
}

std::optional<FieldError> ReadMonkey(const json& v, const std::string& field,
                                     std::vector<int64_t>& out) {
  if (!v.is_object())
    return Error(field, "must be an object {\"events\", \"seed\", \"throttle_ms\"}");
  for (const auto& [key, value] : v.items()) {
    if (key != "events" && key != "seed" && key != "throttle_ms") {
      return Error(field + "." + key, "is not a field of monkey (events, seed, throttle_ms)");
    }
  }
  out = {0, 0, 0};
  auto events = v.find("events");
  if (events == v.end()) return Error(field + ".events", "is required");
  if (auto e = ReadIntField(*events, field + ".events", 1, kMaxMonkeyEvents, out[0])) return e;
  // The seed makes two runs send the same events: required, so a run is repeatable.
  auto seed = v.find("seed");
  if (seed == v.end())
    return Error(field + ".seed", "is required (the same seed, the same events)");
  if (auto e = ReadIntField(*seed, field + ".seed", 0, kMaxMonkeySeed, out[1])) return e;
  if (auto throttle = v.find("throttle_ms"); throttle != v.end()) {
    if (auto e = ReadIntField(*throttle, field + ".throttle_ms", 0, kMaxMonkeyThrottleMs, out[2])) {
      return e;
    }
  }
  return std::nullopt;
}

// How long a step asks for, in ms (what the scenario's total is bounded by).
int64_t AskedMs(const ScenarioStep& step) {
  switch (step.kind) {
    case Kind::kSwipe:
      return step.numbers[4];
    case Kind::kWait:
      return step.numbers[0];
    case Kind::kMonkey:
      return step.numbers[0] * step.numbers[2];
    default:
      return 0;
  }
}

std::optional<FieldError> ReadStep(const json& v, const std::string& field, ScenarioStep& step) {
  if (!v.is_object() || v.size() != 1) {
    return Error(
        field,
        "must be an object with one of tap, swipe, key, text, wait_ms, monkey, got " + v.dump());
  }
  const auto only = v.begin();
  const std::string& key = only.key();
  const json& value = only.value();
  const KindName* kind = nullptr;
  for (const KindName& k : kKindNames) {
    if (key == k.name) kind = &k;
  }
  if (!kind) {
    return Error(field + "." + key, "is not a step (tap, swipe, key, text, wait_ms, monkey)");
  }
  step.kind = kind->kind;
  const std::string at = field + "." + key;
  constexpr std::pair<int64_t, int64_t> kXY{0, kMaxScreenCoordinate};
  switch (step.kind) {
    case Kind::kTap:
      return ReadNumbers(value, at, {kXY, kXY}, "[x, y]", step.numbers);
    case Kind::kSwipe:
      return ReadNumbers(value, at, {kXY, kXY, kXY, kXY, {0, kMaxSwipeMs}},
                         "[x1, y1, x2, y2, duration_ms]", step.numbers);
    case Kind::kWait:
      step.numbers.assign(1, 0);
      return ReadIntField(value, at, 0, kMaxWaitMs, step.numbers[0]);
    case Kind::kMonkey:
      return ReadMonkey(value, at, step.numbers);
    case Kind::kKey:
    case Kind::kText: {
      if (!value.is_string()) return Error(at, "must be a string, got " + value.dump());
      step.text = value.get<std::string>();
      auto problem = step.kind == Kind::kKey ? KeyProblem(step.text) : TextProblem(step.text);
      if (problem) return Error(at, *problem);
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

const char* ScenarioStepName(Kind kind) {
  for (const KindName& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

BasicResult<std::vector<ScenarioStep>, FieldError> ParseScenario(const json& value) {
  if (!value.is_array()) {
    return Error("scenario", "must be an array of steps, got " + std::string(value.type_name()));
  }
  if (value.size() > kMaxScenarioSteps) {
    return Error("scenario", "has " + std::to_string(value.size()) + " steps; at most " +
                                 std::to_string(kMaxScenarioSteps));
  }
  std::vector<ScenarioStep> steps;
  int64_t total_ms = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    ScenarioStep step;
    if (auto e = ReadStep(value[i], "scenario[" + std::to_string(i) + "]", step)) return *e;
    total_ms += AskedMs(step);  // each term ≤ 10^9: no overflow within 100 steps
    steps.push_back(std::move(step));
  }
  if (total_ms > kMaxScenarioMs) {
    return Error("scenario",
                 "asks for " + std::to_string(total_ms) +
                     " ms of waits, swipes and monkey throttle per iteration; at most " +
                     std::to_string(kMaxScenarioMs));
  }
  return steps;
}

json ScenarioToJson(const std::vector<ScenarioStep>& steps) {
  json out = json::array();
  for (const ScenarioStep& s : steps) {
    json step = json::object();
    const char* name = ScenarioStepName(s.kind);
    switch (s.kind) {
      case Kind::kTap:
      case Kind::kSwipe:
        step[name] = s.numbers;
        break;
      case Kind::kWait:
        step[name] = s.numbers.at(0);
        break;
      case Kind::kMonkey:
        step[name] = {{"events", s.numbers.at(0)},
                      {"seed", s.numbers.at(1)},
                      {"throttle_ms", s.numbers.at(2)}};
        break;
      case Kind::kKey:
      case Kind::kText:
        step[name] = s.text;
        break;
    }
    out.push_back(std::move(step));
  }
  return out;
}

std::vector<std::string> ScenarioStepArgv(const ScenarioStep& step, std::string_view package) {
  auto n = [&](std::size_t i) { return std::to_string(step.numbers.at(i)); };
  switch (step.kind) {
    case Kind::kTap:
      return {"input", "tap", n(0), n(1)};
    case Kind::kSwipe:
      return {"input", "swipe", n(0), n(1), n(2), n(3), n(4)};
    case Kind::kKey: {
      const bool named = !IsDigits(step.text) && !step.text.starts_with("KEYCODE_");
      return {"input", "keyevent", named ? "KEYCODE_" + step.text : step.text};
    }
    case Kind::kText:
      return {"input", "text", step.text};
    case Kind::kMonkey:
      return {"monkey",        "-p", std::string(package), "-s", n(1), "--throttle", n(2),
              "--pct-syskeys", "0",  "--pct-rotation",     "0",  n(0)};
    case Kind::kWait:
      return {};
  }
  return {};
}

std::chrono::milliseconds ScenarioStepDeadline(const ScenarioStep& step) {
  // Monkey takes time per event beyond its throttle (injecting, logging): 10 ms each, ample.
  const int64_t per_event = step.kind == Kind::kMonkey ? step.numbers.at(0) * 10 : 0;
  return std::chrono::milliseconds(AskedMs(step) + per_event + 10'000);
}

}  // namespace droidlab::orchestrator
