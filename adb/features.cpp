#include "adb/features.h"

#include <algorithm>

namespace droidlab::adb {

FeatureSet ParseFeatures(std::string_view payload) {
  FeatureSet out;
  while (!payload.empty()) {
    size_t comma = payload.find(',');
    std::string_view item = payload.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    payload.remove_prefix(comma + 1);
  }
  return out;
}

bool HasFeature(const FeatureSet& features, std::string_view feature) {
  return std::find(features.begin(), features.end(), feature) != features.end();
}

}  // namespace droidlab::adb
