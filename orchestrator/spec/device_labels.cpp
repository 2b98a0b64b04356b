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

}  // namespace droidlab::orchestrator
