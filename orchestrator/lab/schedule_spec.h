// ScheduleSpec: a POST /api/v1/schedules body (API.md), checked — its cron (cron.h), its time
// zone, its "run" (ParseRunSpecValue on the value already parsed, never re-serialised) — before
// anything is stored:
//
//   {"cron":"30 2 * * MON-FRI","timezone":"Europe/Berlin","run":{...a run body...},"enabled":true}
//
// Pure (no Asio, no store): the fuzz configuration builds it (tests/fuzz/request_body_fuzz.cpp).
// Errors name the field as a JSON path ("cron", "run.package"), "" for the body as a whole.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "base/result.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {

struct ScheduleSpec {
  std::string cron;      // as ParseCron keeps it
  std::string timezone;  // an IANA name; "UTC" when absent
  RunSpec run;
  bool enabled = true;
};

// A parsed body → a checked schedule. Unknown fields are refused.
BasicResult<ScheduleSpec, FieldError> ParseScheduleSpecValue(const nlohmann::json& body);
// The text form: ParseJsonBody (depth-limited, duplicate keys refused), then the above.
BasicResult<ScheduleSpec, FieldError> ParseScheduleSpec(std::string_view text);

}  // namespace droidlab::orchestrator
