// libFuzzer target for the POST bodies (issue 13): the same bytes as a POST /api/v1/runs body
// (ParseRunSpec) and as a POST /api/v1/schedules body (ParseScheduleSpec), both through
// ParseJsonBody's limits. Invariants checked: a parsed body is at most kMaxBodyDepth deep and
// survives dump/parse unchanged; the text and the parsed-value forms of ParseRunSpec agree; an
// accepted run spec passes ValidateRunSpec and round-trips through RunSpecToJson; an accepted
// schedule's cron parses again and its run round-trips too. Nothing may crash or overflow the
// stack, whatever the nesting.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

#include "orchestrator/lab/cron.h"
#include "orchestrator/lab/schedule_spec.h"
#include "orchestrator/spec/json_body.h"
#include "orchestrator/spec/run_spec.h"

namespace {

using namespace droidlab::orchestrator;  // NOLINT(google-build-using-namespace)

void Check(bool ok) {
  if (!ok) std::abort();
}

// The depth of a value, without recursion.
int Depth(const nlohmann::json& root) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::json*, int>> todo = {{&root, 0}};
  while (!todo.empty()) {
    auto [v, d] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    deepest = std::max(deepest, d + 1);
    for (const auto& child : *v) todo.emplace_back(&child, d + 1);
  }
  return deepest;
}

void CheckRunSpec(const RunSpec& spec) {
  Check(!ValidateRunSpec(spec));
  auto again = ParseRunSpec(RunSpecToJson(spec));
  Check(again.ok() && *again == spec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  auto body = ParseJsonBody(text);
  if (body) {
    Check(Depth(*body) <= kMaxBodyDepth);
    auto reparsed = ParseJsonBody(body->dump());
    Check(reparsed.ok() && *reparsed == *body);
  }

  auto run = ParseRunSpec(text);
  if (body) {
    auto from_value = ParseRunSpecValue(*body);
    Check(run.ok() == from_value.ok());
    if (run) Check(*run == *from_value);
  } else {
    Check(!run.ok());
  }
  if (run) CheckRunSpec(*run);

  auto schedule = ParseScheduleSpec(text);
  if (schedule) {
    Check(body.ok());
    Check(ParseCron(schedule->cron).ok());
    CheckRunSpec(schedule->run);
  }
  return 0;
}
