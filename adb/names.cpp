#include "adb/names.h"

namespace droidlab::adb {
namespace {

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// "';' at 5" for printable bytes, "0x0a at 5" for the rest, so a message never carries a
// control byte or half a UTF-8 sequence into a log line.
std::string DescribeByte(std::string_view text, size_t pos) {
  unsigned char c = static_cast<unsigned char>(text[pos]);
  std::string out;
  if (c >= 0x21 && c < 0x7f) {
    out = std::string("'") + static_cast<char>(c) + "'";
  } else {
    static constexpr char kDigits[] = "0123456789abcdef";
    out = std::string("0x") + kDigits[c >> 4] + kDigits[c & 0xf];
  }
  return out + " at " + std::to_string(pos);
}

// Printable rendering of a rejected name for messages: non-printable bytes become '?'.
std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 80)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (text.size() > 80) out += "...";
  return out;
}

AdbError Invalid(std::string_view what, std::string_view text, std::string reason) {
  return MakeError(AdbErrc::kInvalidArgument,
                   std::string(what) + " '" + Printable(text) + "' " + std::move(reason));
}

// Checks "seg.seg.seg" where a segment starts with a letter (or, for classes, '_' and '$') and
// goes on with letters, digits, '_' (and '$'). Returns an empty string when fine, else the reason.
std::string CheckDottedIdentifiers(std::string_view text, bool java_class) {
  bool segment_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (segment_start) return "has an empty segment at " + std::to_string(i);
      segment_start = true;
      continue;
    }
    bool ok = IsAsciiLetter(c) || (java_class && (c == '_' || c == '$')) ||
              (!segment_start && (IsAsciiDigit(c) || c == '_'));
    if (!ok) {
      return "has a bad byte " + DescribeByte(text, i) +
             (segment_start && (IsAsciiDigit(c) || c == '_')
                  ? " (a segment must start with a letter)"
                  : "");
    }
    segment_start = false;
  }
  if (segment_start) return "ends with an empty segment";
  return {};
}

}  // namespace

Result<Serial> Serial::Parse(std::string_view text) {
  if (text.empty()) return Invalid("serial", text, "is empty");
  if (text.size() > kMaxSerialLength) {
    return Invalid("serial", text, "is longer than " + std::to_string(kMaxSerialLength));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (!(IsAsciiLetter(c) || IsAsciiDigit(c) || c == '.' || c == '_' || c == ':' || c == '-')) {
      return Invalid("serial", text, "has a bad byte " + DescribeByte(text, i));
    }
  }
  return Serial(std::string(text));
}

Result<PackageName> PackageName::Parse(std::string_view text) {
  if (text.empty()) return Invalid("package name", text, "is empty");
  if (text.size() > kMaxPackageNameLength) {
    return Invalid("package name", text, "is longer than " + std::to_string(kMaxPackageNameLength));
  }
  if (std::string reason = CheckDottedIdentifiers(text, /*java_class=*/false); !reason.empty()) {
    return Invalid("package name", text, std::move(reason));
  }
  if (text.find('.') == std::string_view::npos) {
    return Invalid("package name", text, "must have at least one '.' separator");
  }
  return PackageName(std::string(text));
}

Result<ComponentName> ComponentName::Parse(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return Invalid("component name", text, "has no '/' between package and class");
  }
  auto package = PackageName::Parse(text.substr(0, slash));
  if (!package)
    return Invalid("component name", text, "has a bad package: " + package.error().message);
  std::string_view cls = text.substr(slash + 1);
  if (cls.empty()) return Invalid("component name", text, "has an empty class name");
  if (cls.size() > kMaxClassNameLength) {
    return Invalid("component name", text,
                   "has a class name longer than " + std::to_string(kMaxClassNameLength));
  }
  std::string_view dotted = cls.front() == '.' ? cls.substr(1) : cls;
  if (dotted.empty()) return Invalid("component name", text, "has an empty class name");
  if (std::string reason = CheckDottedIdentifiers(dotted, /*java_class=*/true); !reason.empty()) {
    return Invalid("component name", text, "class name " + reason);
  }
  return ComponentName(std::string(text), std::move(package).value());
}

std::string_view ComponentName::class_name() const {
  return std::string_view(text_).substr(package_.str().size() + 1);
}

std::string ComponentName::FullClassName() const {
  std::string_view cls = class_name();
  if (cls.front() == '.') return package_.str() + std::string(cls);
  return std::string(cls);
}

}  // namespace droidlab::adb
