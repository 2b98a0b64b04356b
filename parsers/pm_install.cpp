#include "parsers/pm_install.h"

#include <utility>

#include "parsers/line_splitter.h"
#include "parsers/text.h"

namespace droidlab::parsers {

namespace {

// INSTALL_FAILED_… / INSTALL_PARSE_FAILED_…: capitals, digits and '_' (installStatusToString).
bool IsStatusCode(std::string_view s) {
  if (s.empty() || !(s[0] >= 'A' && s[0] <= 'Z')) return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// "[CODE: reason]" or "[CODE]" or "[free text]" (the brackets already removed).
void SplitFailure(std::string_view inside, PmInstallOutcome& out) {
  const size_t colon = inside.find(':');
  const std::string_view head = colon == std::string_view::npos ? inside : inside.substr(0, colon);
  if (IsStatusCode(head)) {
    out.code = std::string(head);
    if (colon != std::string_view::npos) out.reason = std::string(Trim(inside.substr(colon + 1)));
  } else {
    out.reason = std::string(Trim(inside));
  }
}

}  // namespace

Result<PmInstallOutcome> ParsePmInstallOutput(std::string_view output) {
  if (Trim(output).empty()) return MakeError(ParseErrorCode::kEmpty, "no install output");
  std::optional<PmInstallOutcome> last;
  std::optional<ParseError> last_error;
  bool in_exception = false;
  ForEachLine(output, [&](std::string_view raw) {
    std::string_view line = Trim(raw);
    if (line.empty()) return;
    if (in_exception) {  // the exception's own line, e.g. "java.lang.IllegalStateException: …"
      in_exception = false;
      if (!line.starts_with("at ")) last->reason = std::string(line);
      return;
    }
    PmInstallOutcome outcome;
    if (ConsumePrefix(line, "Success")) {
      outcome.success = true;
      if (ConsumePrefix(line, ": created install session [")) {
        const size_t close = line.find(']');
        auto id = ParseInt64(line.substr(0, close));
        if (close == std::string_view::npos || !id || *id < 0) {
          last_error =
              MakeError(ParseErrorCode::kMalformed,
                        "install-create's session id is not a number: " + std::string(raw));
          last.reset();
          return;
        }
        outcome.session_id = *id;
      }
    } else if (ConsumePrefix(line, "Failure [")) {
      if (line.ends_with(']')) line.remove_suffix(1);
      SplitFailure(line, outcome);
    } else if (ConsumePrefix(line, "Failure")) {  // "Failure - not installed for 0" and the like
      outcome.reason = std::string(Trim(line));
    } else if (ConsumePrefix(line, "Error:")) {
      outcome.reason = std::string(Trim(line));
    } else if (line.starts_with("Exception occurred while executing")) {
      outcome.reason = std::string(line);
      in_exception = true;
    } else {
      return;  // "\tpkg: /data/local/tmp/app.apk", a stack frame, noise
    }
    last = std::move(outcome);
    last_error.reset();
  });
  if (last_error) return *last_error;
  if (!last) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "no Success, Failure or Error line in the install output");
  }
  return std::move(*last);
}

std::string_view InstallFailureAdvice(std::string_view code) {
  struct Advice {
    std::string_view code;
    std::string_view words;
  };
  // PackageManager.java's INSTALL_… constants; the words say what the operator can do.
  static constexpr Advice kAdvice[] = {
      {"INSTALL_FAILED_ALREADY_EXISTS", "the package is already installed and was not replaced"},
      {"INSTALL_FAILED_INVALID_APK", "the phone found the APK invalid"},
      {"INSTALL_FAILED_INSUFFICIENT_STORAGE", "the phone has not enough free storage"},
      {"INSTALL_FAILED_UPDATE_INCOMPATIBLE",
       "the installed app is signed with another key: uninstall it first (its data goes too)"},
      {"INSTALL_FAILED_VERSION_DOWNGRADE",
       "the phone has a newer versionCode of the app installed: uninstall it first"},
      {"INSTALL_FAILED_OLDER_SDK", "the phone's Android is older than the APK's minSdkVersion"},
      {"INSTALL_FAILED_NEWER_SDK", "the phone's Android is newer than the APK's maxSdkVersion"},
      {"INSTALL_FAILED_NO_MATCHING_ABIS", "the APK has no native code for the phone's CPU"},
      {"INSTALL_FAILED_TEST_ONLY", "the APK is marked testOnly; install it with -t"},
      {"INSTALL_FAILED_MISSING_SPLIT", "a split APK this app needs was not installed with it"},
      {"INSTALL_FAILED_USER_RESTRICTED",
       "the phone refused installs over USB (a setting or the user declined the prompt)"},
      {"INSTALL_FAILED_VERIFICATION_FAILURE", "package verification on the phone rejected it"},
      {"INSTALL_FAILED_DEPRECATED_SDK_VERSION",
       "the APK's targetSdkVersion is too old for this Android (14+ refuses below 23)"},
      {"INSTALL_FAILED_ABORTED", "the install was aborted on the phone"},
      {"INSTALL_PARSE_FAILED_NO_CERTIFICATES",
       "the APK is not signed (or its signature is broken)"},
      {"INSTALL_PARSE_FAILED_INCONSISTENT_CERTIFICATES",
       "the APK's files are not all signed with the same key"},
      {"INSTALL_PARSE_FAILED_MANIFEST_MALFORMED", "the phone could not read the APK's manifest"},
      {"INSTALL_PARSE_FAILED_NOT_APK", "the file is not an APK"},
  };
  for (const Advice& a : kAdvice) {
    if (a.code == code) return a.words;
  }
  return {};
}

}  // namespace droidlab::parsers
