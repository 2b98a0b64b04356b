// A device's labels (issue 17 §2): what an operator sets on a phone
// (`PUT /api/v1/devices/{serial}/labels`) and what a run's pool matches. A label is 1 to 64
// characters of [A-Za-z0-9._-], the first a letter or digit: it goes into URLs, Prometheus
// label values and SQL parameters unquoted, and never into a device shell.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "orchestrator/spec/field_error.h"

namespace droidlab::orchestrator {

inline constexpr size_t kMaxLabelLength = 64;
inline constexpr size_t kMaxLabelsPerDevice = 32;

// Why `label` is not a label, or nothing.
std::optional<std::string> WhyNotALabel(std::string_view label);

// A JSON array of labels at `field` → the labels sorted, each once; at most kMaxLabelsPerDevice.
BasicResult<std::vector<std::string>, FieldError> ParseLabelList(const nlohmann::json& value,
                                                                 const std::string& field);

// The body of `PUT /devices/{serial}/labels`: {"labels": [...]} and nothing else.
BasicResult<std::vector<std::string>, FieldError> ParseDeviceLabelsBody(const nlohmann::json& body);

// A run's "pool" instead of its "serial": any phone of the lab with this model
// (ro.product.model), SDK level and every one of these labels; absent or empty: anything.
//   {"model": "Pixel 7", "sdk": 34, "labels": ["nightly"]}
struct DevicePool {
  std::optional<std::string> model;  // 1..kMaxPoolModelLength printable ASCII characters
  std::optional<int64_t> sdk;        // 1..kMaxPoolSdk
  std::vector<std::string> labels;   // sorted, each once
  bool operator==(const DevicePool&) const = default;
};
inline constexpr size_t kMaxPoolModelLength = 100;
inline constexpr int64_t kMaxPoolSdk = 1000;

// The pool at `field` → checked; errors name the member ("pool.sdk").
BasicResult<DevicePool, FieldError> ParseDevicePool(const nlohmann::json& value,
                                                    const std::string& field);
nlohmann::json DevicePoolToJson(const DevicePool& pool);

}  // namespace droidlab::orchestrator
