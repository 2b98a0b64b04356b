#include "parsers/apk_manifest.h"

#include <utility>
#include <vector>

#include "parsers/binary_xml.h"

namespace droidlab::parsers {

namespace {

// frameworks/base/core/res/res/values/public.xml
constexpr uint32_t kVersionCodeId = 0x0101021b;
constexpr uint32_t kVersionNameId = 0x0101021c;
constexpr uint32_t kMinSdkVersionId = 0x0101020c;
constexpr uint32_t kTargetSdkVersionId = 0x01010270;
constexpr uint32_t kVersionCodeMajorId = 0x01010576;
constexpr char kAndroidNs[] = "http://schemas.android.com/apk/res/android";

// The android: attribute with this resource id; by name only when the file has no resource map
// (a hand-made file), as a shrunk APK's names may be empty.
const BinaryXmlAttribute* AndroidAttribute(const BinaryXmlElement& element, uint32_t id,
                                           std::string_view name) {
  for (const BinaryXmlAttribute& a : element.attributes) {
    if (a.resource_id == id) return &a;
  }
  for (const BinaryXmlAttribute& a : element.attributes) {
    if (a.resource_id == 0 && a.ns == kAndroidNs && a.name == name) return &a;
  }
  return nullptr;
}

// A plain attribute (no namespace), as `package` and `split` are.
const BinaryXmlAttribute* PlainAttribute(const BinaryXmlElement& element, std::string_view name) {
  for (const BinaryXmlAttribute& a : element.attributes) {
    if (a.ns.empty() && a.name == name) return &a;
  }
  return nullptr;
}

bool IsInteger(const BinaryXmlAttribute& a) {
  return a.type >= static_cast<uint8_t>(BinaryXmlValueType::kIntDec) &&
         a.type <= 0x1f;  // TYPE_FIRST_INT .. TYPE_LAST_INT: dec, hex, boolean, colors
}

bool IsString(const BinaryXmlAttribute& a) {
  return a.type == static_cast<uint8_t>(BinaryXmlValueType::kString) && a.string;
}

ParseError MalformedManifest(std::string message) {
  return MakeError(ParseErrorCode::kMalformed, "AndroidManifest.xml: " + std::move(message));
}

// An SDK level: an integer, or a preview's codename (kept in `codename`).
Result<std::optional<int>> SdkLevel(const BinaryXmlAttribute* a, const char* name,
                                    std::optional<std::string>& codename) {
  if (a == nullptr) return std::optional<int>();
  if (IsInteger(*a)) return std::optional<int>(static_cast<int32_t>(a->data));
  if (IsString(*a)) {
    codename = *a->string;
    return std::optional<int>();
  }
  return MalformedManifest(std::string(name) + " is neither a number nor a codename (value type " +
                           std::to_string(a->type) + ")");
}

}  // namespace

Result<ApkManifest> ParseApkManifest(std::string_view binary_xml) {
  auto parsed = ParseBinaryXml(binary_xml);
  if (!parsed) return parsed.error();
  const std::vector<BinaryXmlElement>& elements = *parsed;
  const BinaryXmlElement& root = elements.front();
  if (root.name != "manifest" || !root.ns.empty()) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "not an AndroidManifest.xml: the root element is <" + root.name + ">");
  }
  ApkManifest manifest;
  const BinaryXmlAttribute* package = PlainAttribute(root, "package");
  if (package == nullptr || !IsString(*package) || package->string->empty()) {
    return MalformedManifest("<manifest> has no package");
  }
  manifest.package = *package->string;
  if (const BinaryXmlAttribute* split = PlainAttribute(root, "split"); split && IsString(*split)) {
    manifest.split = *split->string;
  }

  uint32_t code = 0;
  uint32_t major = 0;
  if (const auto* a = AndroidAttribute(root, kVersionCodeId, "versionCode")) {
    if (!IsInteger(*a)) return MalformedManifest("android:versionCode is not an integer");
    code = a->data;
  }
  if (const auto* a = AndroidAttribute(root, kVersionCodeMajorId, "versionCodeMajor")) {
    if (!IsInteger(*a)) return MalformedManifest("android:versionCodeMajor is not an integer");
    major = a->data;
  }
  manifest.version_code = static_cast<int64_t>(static_cast<uint64_t>(major) << 32 | code);
  if (const auto* a = AndroidAttribute(root, kVersionNameId, "versionName"); a && IsString(*a)) {
    manifest.version_name = *a->string;
  }

  for (const BinaryXmlElement& element : elements) {
    if (element.depth != 1 || element.name != "uses-sdk" || !element.ns.empty()) continue;
    std::optional<std::string> min_codename;
    std::optional<std::string> target_codename;
    auto min = SdkLevel(AndroidAttribute(element, kMinSdkVersionId, "minSdkVersion"),
                        "android:minSdkVersion", min_codename);
    if (!min) return min.error();
    const BinaryXmlAttribute* target_attribute =
        AndroidAttribute(element, kTargetSdkVersionId, "targetSdkVersion");
    auto target = SdkLevel(target_attribute, "android:targetSdkVersion", target_codename);
    if (!target) return target.error();
    if (*min) manifest.min_sdk = **min;
    // No targetSdkVersion: the platform takes minSdkVersion's (number or codename).
    manifest.target_sdk = target_attribute ? *target : *min;
    manifest.sdk_codename = target_codename ? target_codename : min_codename;
    break;  // the platform reads the first <uses-sdk>
  }
  return manifest;
}

}  // namespace droidlab::parsers
