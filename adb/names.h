// Names that reach the adb server or a device shell, checked against their grammar first.
// Each type can only be made by its Parse(), so holding one means the text was checked; nothing
// from a request goes into a service string or a command line as a bare std::string.
//
// The grammars are deliberately narrower than what Android tolerates: a name that passes holds no
// byte a shell treats specially (no whitespace, quote, `$`, backtick, `;`, `|`, `&`, `<`, `>`,
// `(`, `)`, `*`, `?`, `[`, `\`, `~`, `#`, NUL, control bytes, nothing outside ASCII).
#pragma once

#include <string>
#include <string_view>

#include "adb/error.h"

namespace droidlab::adb {

// A device serial as the adb server names it: "emulator-5554", "127.0.0.1:5555", "R58M123ABC",
// "adb-R58M123ABC-AbCdEf._adb-tls-connect._tcp" (mDNS).
// Grammar: 1..255 bytes of [A-Za-z0-9._:-] ('/' is refused, so "../x" is too).
// IPv6 serials ("[::1]:5555") are not accepted yet.
class Serial {
 public:
  // Errors: kInvalidArgument, naming the first bad byte ("serial has a bad byte 0x3b at 5").
  static Result<Serial> Parse(std::string_view text);
  const std::string& str() const { return text_; }
  friend bool operator==(const Serial&, const Serial&) = default;

 private:
  explicit Serial(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

inline constexpr size_t kMaxSerialLength = 255;
// Android 14 refuses longer package names (FrameworkParsingPackageUtils.MAX_FILE_NAME_SIZE).
inline constexpr size_t kMaxPackageNameLength = 223;
inline constexpr size_t kMaxClassNameLength = 1024;

// An Android package name: "com.example.app". As FrameworkParsingPackageUtils.validateName
// (frameworks/base core/java/android/content/pm/parsing/FrameworkParsingPackageUtils.java) with
// requireSeparator: segments separated by '.', each starting with an ASCII letter and going on
// with letters, digits and '_'; at least two segments; at most 223 bytes. Stricter than Android
// in one place: empty segments ("com..x", ".com.x") are refused, which validateName lets pass.
// The single-segment framework package "android" is refused too (at least two segments).
class PackageName {
 public:
  // Errors: kInvalidArgument ("package name 'com.x; reboot' has a bad byte ';' at 5").
  static Result<PackageName> Parse(std::string_view text);
  const std::string& str() const { return text_; }
  friend bool operator==(const PackageName&, const PackageName&) = default;

 private:
  explicit PackageName(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

// A component as `am start -n` takes it (ComponentName.unflattenFromString): "pkg/.Cls" (class
// relative to the package), "pkg/com.other.Cls" or "pkg/Cls". The class is Java identifiers
// joined by '.', each [A-Za-z_$][A-Za-z0-9_$]* ('$' for nested classes: "pkg/.Outer$Inner").
// Note '$' is a shell metacharacter: a component is always passed through the quoting function.
class ComponentName {
 public:
  // Errors: kInvalidArgument.
  static Result<ComponentName> Parse(std::string_view text);
  // "com.example.app/.MainActivity": the text as given (the short form is kept).
  const std::string& str() const { return text_; }
  const PackageName& package() const { return package_; }
  // ".MainActivity" or "com.other.Cls", as given.
  std::string_view class_name() const;
  // "com.example.app.MainActivity": the class with a leading '.' resolved against the package.
  std::string FullClassName() const;

 private:
  ComponentName(std::string text, PackageName package)
      : text_(std::move(text)), package_(std::move(package)) {}
  std::string text_;
  PackageName package_;
};

}  // namespace droidlab::adb
