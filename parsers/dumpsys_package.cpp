#include "parsers/dumpsys_package.h"

#include <string>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

size_t Indent(std::string_view raw) {
  size_t i = 0;
  while (i < raw.size() && IsAsciiSpace(raw[i])) ++i;
  return i;
}

bool IsIsaName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || IsAsciiDigit(c) || c == '_')) return false;
  }
  return true;
}

// "[com.pkg]" -> "com.pkg"; nullopt for anything else ("[location is …]" has spaces).
std::optional<std::string_view> BracketedName(std::string_view line) {
  if (line.size() < 3 || line.front() != '[' || line.back() != ']') return std::nullopt;
  std::string_view name = line.substr(1, line.size() - 2);
  if (name.find_first_of(" []") != std::string_view::npos) return std::nullopt;
  return name;
}

// "[status=speed-profile] [reason=bg-dexopt] [primary-abi]"; unknown tags are ignored so a new
// tag does not lose the line. False when the brackets do not pair up or no status is present.
bool ParseStatusTags(std::string_view rest, DexoptStatus& out) {
  bool status_seen = false;
  rest = Trim(rest);
  while (!rest.empty()) {
    if (rest.front() != '[') return false;
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    std::string_view tag = rest.substr(1, close - 1);
    if (tag.find('[') != std::string_view::npos) return false;
    rest = TrimLeft(rest.substr(close + 1));
    if (ConsumePrefix(tag, "status=")) {
      out.compiler_filter.assign(tag);
      status_seen = true;
    } else if (ConsumePrefix(tag, "reason=")) {
      out.reason.assign(tag);
    } else if (tag == "primary-abi") {
      out.primary_abi = true;
    }
  }
  return status_seen;
}

// Android 8.x: "/data/app/…/oat/arm64/base.odex[status=kOatUpToDate, compilation_filter=speed]".
bool ParseOatFileStatus(std::string_view rest, DexoptStatus& out) {
  const size_t open = rest.find('[');
  if (open == std::string_view::npos || open == 0 || !rest.ends_with(']')) return false;
  std::string_view inside = rest.substr(open + 1, rest.size() - open - 2);
  if (!inside.starts_with("status=")) return false;
  out.location.emplace(rest.substr(0, open));
  while (!inside.empty()) {
    std::string_view item = inside;
    if (auto head = SplitFirst(inside, ',')) {
      item = *head;
    } else {
      inside = {};
    }
    item = Trim(item);
    if (ConsumePrefix(item, "compilation_filter=")) out.compiler_filter.assign(item);
  }
  return true;
}

bool IsHashHex(std::string_view s) {
  if (s.empty() || s.size() > 8) return false;
  for (char c : s) {
    if (!(IsAsciiDigit(c) || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// "a, b" (or empty) → the hex values; each item may go on after a space ("HASH flags: 3", a
// past signer). False when an item is not an Integer.toHexString value.
bool HashList(std::string_view list, std::vector<std::string>& out) {
  list = Trim(list);
  while (!list.empty()) {
    std::string_view item = list;
    if (auto head = SplitFirst(list, ',')) {
      item = *head;
    } else {
      list = {};
    }
    item = Trim(item);
    std::string_view hash = NextToken(item);
    if (!IsHashHex(hash)) return false;
    out.emplace_back(hash);
    list = TrimLeft(list);
  }
  return true;
}

// After "signatures=": "PackageSignatures{ID version:N, signatures:[…], past signatures:[…]}"
// (Android 9+) or "PackageSignatures{ID […]}" (8.1 and older).
std::optional<PackageSignatures> ParseSignatures(std::string_view rest) {
  if (!ConsumePrefix(rest, "PackageSignatures{") || !rest.ends_with('}')) return std::nullopt;
  rest.remove_suffix(1);
  if (!IsHashHex(NextToken(rest))) return std::nullopt;
  rest = TrimLeft(rest);
  PackageSignatures out;
  if (ConsumePrefix(rest, "version:")) {
    auto version = SplitFirst(rest, ',');
    if (!version) return std::nullopt;
    out.scheme_version = ParseInt<int>(*version);
    if (!out.scheme_version) return std::nullopt;
    rest = TrimLeft(rest);
    if (!ConsumePrefix(rest, "signatures:[")) return std::nullopt;
    const size_t close = rest.find(']');
    if (close == std::string_view::npos || !HashList(rest.substr(0, close), out.current)) {
      return std::nullopt;
    }
    rest.remove_prefix(close + 1);
    if (!ConsumePrefix(rest, ", past signatures:[") || !rest.ends_with(']')) return std::nullopt;
    rest.remove_suffix(1);
    if (!HashList(rest, out.past)) return std::nullopt;
    return out;
  }
  if (!ConsumePrefix(rest, "[") || !rest.ends_with(']')) return std::nullopt;
  rest.remove_suffix(1);
  if (!HashList(rest, out.current)) return std::nullopt;
  out.identity_hashes = true;
  return out;
}

class PackageReader {
 public:
  explicit PackageReader(std::string_view package_name) : package_name_(package_name) {}

  void Line(std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    any_line_ = true;
    const size_t indent = Indent(raw);

    std::string_view rest = line;
    if (ConsumePrefix(rest, "Unable to find package: ")) {
      if (Trim(rest) == package_name_) not_found_ = true;
      return;
    }
    if (line.starts_with("Permission Denial")) {
      denied_ = true;
      return;
    }

    if (in_package_ && indent <= package_indent_) in_package_ = false;
    if (in_dexopt_ && indent <= dexopt_indent_) in_dexopt_ = false;

    if (line == "Dexopt state:") {
      in_dexopt_ = true;
      dexopt_indent_ = indent;
      in_target_dexopt_ = false;
      bg_dexopt_ = false;
      if (indent == 0) top_ = Top::kOther;
      return;
    }
    if (in_dexopt_) {
      DexoptLine(line, indent);
      return;
    }
    if (in_package_) {
      PackageLine(line);
      return;
    }
    if (indent == 0 && line.ends_with(':')) {
      top_ = line == "Packages:" ? Top::kPackages : Top::kOther;
      return;
    }
    if (top_ == Top::kPackages && !package_seen_ && ConsumePrefix(rest, "Package [")) {
      // "Package [com.pkg] (ec9b473):"
      const size_t close = rest.find(']');
      if (close != std::string_view::npos && rest.substr(0, close) == package_name_) {
        in_package_ = true;
        package_seen_ = true;
        package_indent_ = indent;
      }
    }
  }

  Result<DumpsysPackage> Finish() && {
    if (!any_line_) return MakeError(ParseErrorCode::kEmpty, "dumpsys package: empty output");
    out_.installed = package_seen_ || dexopt_seen_;
    if (!out_.installed && !not_found_) {
      if (denied_) {
        return MakeError(ParseErrorCode::kPermissionDenied,
                         "dumpsys package: permission denied (the shell needs DUMP)");
      }
      return MakeError(ParseErrorCode::kNotThisFormat,
                       "dumpsys package: no \"Package [" + std::string(package_name_) +
                           "]\" block, no Dexopt block for it, no \"Unable to find package\"");
    }
    return std::move(out_);
  }

 private:
  enum class Top { kOther, kPackages };

  void PackageLine(std::string_view line) {
    std::string_view rest = line;
    if (ConsumePrefix(rest, "versionName=")) {
      out_.version_name.emplace(rest);
      return;
    }
    if (ConsumePrefix(rest, "userId=") || ConsumePrefix(rest, "appId=")) {
      // The first one: a shared-user block further down repeats it.
      if (!out_.app_id) out_.app_id = ParseInt64(rest);
      if (!out_.app_id) ++out_.skipped_lines;
      return;
    }
    if (ConsumePrefix(rest, "signatures=")) {
      out_.signatures = ParseSignatures(rest);
      if (!out_.signatures) ++out_.skipped_lines;
      return;
    }
    if (!line.starts_with("versionCode=")) return;
    // "versionCode=118 minSdk=24 targetSdk=28" (minSdk/targetSdk only when the package parsed).
    bool ok = true;
    for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
      std::string_view value = token;
      auto key = SplitFirst(value, '=');
      if (!key) {
        ok = false;
      } else if (*key == "versionCode") {
        out_.version_code = ParseInt64(value);
        ok = ok && out_.version_code.has_value();
      } else if (*key == "minSdk") {
        out_.min_sdk = ParseInt<int>(value);
        ok = ok && out_.min_sdk.has_value();
      } else if (*key == "targetSdk") {
        out_.target_sdk = ParseInt<int>(value);
        ok = ok && out_.target_sdk.has_value();
      }
    }
    if (!ok) ++out_.skipped_lines;
  }

  void DexoptLine(std::string_view line, size_t indent) {
    if (line == "BgDexopt state:") {
      // BackgroundDexOptService's state (Android 12/13) closes the per-package list.
      bg_dexopt_ = true;
      in_target_dexopt_ = false;
      return;
    }
    if (bg_dexopt_) return;
    if (auto name = BracketedName(line)) {
      in_target_dexopt_ = *name == package_name_;
      if (in_target_dexopt_) {
        dexopt_seen_ = true;
        target_indent_ = indent;
        path_.clear();
        secondary_ = false;
      }
      return;
    }
    if (!in_target_dexopt_) return;
    if (indent <= target_indent_) {
      in_target_dexopt_ = false;
      return;
    }
    std::string_view rest = line;
    if (ConsumePrefix(rest, "path: ")) {
      path_.assign(rest);
      secondary_ = false;
      return;
    }
    if (line == "known secondary dex files:") {
      secondary_ = true;
      return;
    }
    if (ConsumePrefix(rest, "[location is ") && rest.ends_with(']')) {
      if (out_.dexopt.empty()) {
        ++out_.skipped_lines;
      } else {
        rest.remove_suffix(1);
        out_.dexopt.back().location.emplace(rest);
      }
      return;
    }
    if (line.starts_with("used by other apps: ") || line.starts_with("class loader context: ")) {
      return;
    }
    if (secondary_ && line.starts_with('/')) {
      // A secondary dex path, " (removed)" / " (public)" appended by ART Service.
      std::string_view dex = line;
      if (dex.ends_with(" (removed)")) dex.remove_suffix(sizeof(" (removed)") - 1);
      if (dex.ends_with(" (public)")) dex.remove_suffix(sizeof(" (public)") - 1);
      path_.assign(dex);
      return;
    }
    std::string_view status = line;
    auto isa = SplitFirst(status, ':');
    if (!isa || !IsIsaName(*isa)) {
      ++out_.skipped_lines;
      return;
    }
    status = Trim(status);
    DexoptStatus entry;
    entry.dex_path = path_;
    entry.isa.assign(*isa);
    entry.secondary = secondary_;
    std::string_view error = status;
    if (ConsumePrefix(error, "[Exception]:")) {
      entry.error.emplace(Trim(error));
    } else if (!ParseStatusTags(status, entry) && !ParseOatFileStatus(status, entry)) {
      ++out_.skipped_lines;
      return;
    }
    out_.dexopt.push_back(std::move(entry));
  }

  std::string_view package_name_;
  DumpsysPackage out_;
  Top top_ = Top::kOther;
  bool any_line_ = false;
  bool denied_ = false;
  bool not_found_ = false;
  bool package_seen_ = false;
  bool in_package_ = false;
  size_t package_indent_ = 0;
  bool in_dexopt_ = false;
  size_t dexopt_indent_ = 0;
  bool bg_dexopt_ = false;
  bool in_target_dexopt_ = false;
  bool dexopt_seen_ = false;
  size_t target_indent_ = 0;
  std::string path_;
  bool secondary_ = false;
};

}  // namespace

const DexoptStatus* DumpsysPackage::PrimaryDexopt() const {
  const DexoptStatus* first = nullptr;
  for (const auto& entry : dexopt) {
    if (entry.secondary) continue;
    if (first == nullptr) {
      first = &entry;
    } else if (entry.dex_path != first->dex_path) {
      break;
    }
    if (entry.primary_abi) return &entry;
  }
  return first;
}

Result<DumpsysPackage> ParseDumpsysPackage(std::string_view output,
                                           std::string_view package_name) {
  PackageReader reader(package_name);
  ForEachLine(output, [&reader](std::string_view line) { reader.Line(line); });
  return std::move(reader).Finish();
}

}  // namespace droidlab::parsers
