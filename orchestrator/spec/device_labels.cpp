#include "orchestrator/spec/device_labels.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace droidlab::orchestrator {

namespace {

bool IsLetterOrDigit(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

std::optional<std::string> WhyNotALabel(std::string_view label) {
  if (label.empty()) return "must not be empty";
  if (label.size() > kMaxLabelLength) {
    return "must be at most " + std::to_string(kMaxLabelLength) + " characters, got " +
           std::to_string(label.size());
  }
  if (!IsLetterOrDigit(label.front())) return "must start with a letter or a digit";
  for (char c : label) {
    if (!IsLetterOrDigit(c) && c != '.' && c != '_' && c != '-') {
      return "may hold only letters, digits, '.', '_' and '-'";
    }
  }
  return std::nullopt;
}

BasicResult<std::vector<std::string>, FieldError> ParseLabelList(const nlohmann::json& value,
                                                                 const std::string& field) {
  if (!value.is_array()) {
    return FieldError{field, std::string("must be an array of labels, got ") + value.type_name()};
  }
  std::vector<std::string> labels;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (!value[i].is_string()) {
      return FieldError{at, std::string("must be a string, got ") + value[i].type_name()};
    }
    const auto& label = value[i].get_ref<const std::string&>();
    if (auto why = WhyNotALabel(label)) return FieldError{at, *why};
    labels.push_back(label);
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  if (labels.size() > kMaxLabelsPerDevice) {
    return FieldError{field, "at most " + std::to_string(kMaxLabelsPerDevice) + " labels, got " +
                                 std::to_string(labels.size())};
  }
  return labels;
}

BasicResult<std::vector<std::string>, FieldError> ParseDeviceLabelsBody(
    const nlohmann::json& body) {
  if (!body.is_object()) {
    return FieldError{"", std::string("must be a JSON object, got ") + body.type_name()};
  }
  for (const auto& [key, value] : body.items()) {
    if (key != "labels") return FieldError{key, "not a field of a device's labels (labels)"};
  }
  auto labels = body.find("labels");
  if (labels == body.end()) return FieldError{"labels", "required, an array of labels"};
  return ParseLabelList(*labels, "labels");
}

BasicResult<DevicePool, FieldError> ParseDevicePool(const nlohmann::json& value,
                                                    const std::string& field) {
  if (!value.is_object()) {
    return FieldError{field, std::string("must be a JSON object, got ") + value.type_name()};
  }
  DevicePool pool;
  for (const auto& [key, member] : value.items()) {
    const std::string at = field + "." + key;
    if (key == "model") {
      if (member.is_null()) continue;
      if (!member.is_string()) {
        return FieldError{at, std::string("must be a string, got ") + member.type_name()};
      }
      const auto& model = member.get_ref<const std::string&>();
      if (model.empty() || model.size() > kMaxPoolModelLength) {
        return FieldError{at, "must be 1 to " + std::to_string(kMaxPoolModelLength) +
                                  " characters, as ro.product.model prints it"};
      }
      // ro.product.model is printable ASCII on every phone seen; anything else is a typo.
      for (char c : model) {
        if (c < 0x20 || c > 0x7e) return FieldError{at, "must be printable ASCII"};
      }
      pool.model = model;
    } else if (key == "sdk") {
      if (member.is_null()) continue;
      if (!member.is_number_integer() || member.get<int64_t>() < 1 ||
          member.get<int64_t>() > kMaxPoolSdk) {
        return FieldError{at, "must be an SDK level, 1 to " + std::to_string(kMaxPoolSdk)};
      }
      pool.sdk = member.get<int64_t>();
    } else if (key == "labels") {
      auto labels = ParseLabelList(member, at);
      if (!labels) return labels.error();
      pool.labels = std::move(*labels);
    } else {
      return FieldError{at, "is not a field of a pool (model, sdk, labels)"};
    }
  }
  return pool;
}

nlohmann::json DevicePoolToJson(const DevicePool& pool) {
  nlohmann::json j = nlohmann::json::object();
  j["model"] = pool.model ? nlohmann::json(*pool.model) : nlohmann::json(nullptr);
  j["sdk"] = pool.sdk ? nlohmann::json(*pool.sdk) : nlohmann::json(nullptr);
  j["labels"] = pool.labels;
  return j;
}

}  // namespace droidlab::orchestrator
