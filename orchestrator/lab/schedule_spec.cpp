#include "orchestrator/lab/schedule_spec.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "orchestrator/lab/cron.h"
#include "orchestrator/spec/json_body.h"

namespace droidlab::orchestrator {

using nlohmann::json;

BasicResult<ScheduleSpec, FieldError> ParseScheduleSpecValue(const json& body) {
  if (!body.is_object()) {
    return FieldError{"", std::string("must be a JSON object, got ") + body.type_name()};
  }
  for (const auto& [key, value] : body.items()) {
    if (key != "cron" && key != "timezone" && key != "run" && key != "enabled") {
      return FieldError{key, "not a schedule field (cron, timezone, run, enabled)"};
    }
  }
  ScheduleSpec spec;
  auto cron_field = body.find("cron");
  if (cron_field == body.end() || !cron_field->is_string()) {
    return FieldError{"cron", "required, a string of 5 fields"};
  }
  auto cron = ParseCron(cron_field->get_ref<const std::string&>());
  if (!cron) return FieldError{"cron", cron.error().message};
  spec.cron = cron->text();

  std::string zone_name = "UTC";
  if (auto zone_field = body.find("timezone"); zone_field != body.end()) {
    if (!zone_field->is_string()) return FieldError{"timezone", "must be a string"};
    zone_name = zone_field->get<std::string>();
  }
  auto zone = TimeZone::Find(zone_name);
  if (!zone) return FieldError{"timezone", zone.error().message};
  spec.timezone = zone->name();

  auto run_field = body.find("run");
  if (run_field == body.end()) return FieldError{"run", "required, a run body"};
  auto run = ParseRunSpecValue(*run_field);
  if (!run) {
    const FieldError& e = run.error();
    return FieldError{e.field.empty() ? "run" : "run." + e.field, e.message};
  }
  spec.run = std::move(*run);

  if (auto enabled = body.find("enabled"); enabled != body.end()) {
    if (!enabled->is_boolean()) return FieldError{"enabled", "must be true or false"};
    spec.enabled = enabled->get<bool>();
  }
  return spec;
}

BasicResult<ScheduleSpec, FieldError> ParseScheduleSpec(std::string_view text) {
  auto body = ParseJsonBody(text);
  if (!body) return body.error();
  return ParseScheduleSpecValue(*body);
}

}  // namespace droidlab::orchestrator
