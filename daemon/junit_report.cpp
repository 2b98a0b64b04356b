#include "daemon/junit_report.h"

#include <cstdio>
#include <vector>

#include "daemon/client_format.h"

namespace droidlab::daemon {

namespace {

using Json = nlohmann::json;

std::string Attr(const Json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) return "-";
  return XmlEscape(FormatValue(object[key]));
}

// xs:dateTime as the JUnit schema has it: local to nothing, no zone suffix (the times are UTC).
std::string IsoTime(const Json& run) {
  std::string text =
      FormatTime(run.is_object() && run.contains("created_at") ? run["created_at"] : Json());
  if (text == "-") return "";
  text[10] = 'T';
  text.pop_back();  // the 'Z'
  return text;
}

std::string Seconds(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", ms / 1000.0);
  return text;
}

struct Case {
  explicit Case(std::string n) : name(std::move(n)) {}
  std::string name;
  std::string time = "0";
  std::string body;  // <failure/>, <skipped/> or nothing
  bool failed = false;
  bool skipped = false;
};

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (b < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += "\xEF\xBF\xBD";
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string JunitReport(const Json& run, const Json& launches,
                        const std::optional<Json>& comparison,
                        const std::optional<std::string>& comparison_error) {
  std::vector<Case> cases;
  const std::string status = run.is_object() && run.contains("status") && run["status"].is_string()
                                 ? run["status"].get<std::string>()
                                 : "unknown";
  Case whole("run " + Attr(run, "id"));
  if (status != "succeeded") {
    whole.failed = true;
    std::string message = "run " + status;
    if (run.is_object() && run.contains("error") && run["error"].is_string()) {
      message += ": " + run["error"].get<std::string>();
    }
    whole.body = "<failure message=\"" + XmlEscape(message) + "\" type=\"" + XmlEscape(status) +
                 "\">" + XmlEscape(message) + "</failure>";
  }
  if (run.is_object() && run.contains("started_at") && run.contains("finished_at") &&
      run["started_at"].is_number() && run["finished_at"].is_number()) {
    whole.time = Seconds(run["finished_at"].get<double>() - run["started_at"].get<double>());
  }
  whole.body += "<system-out>" + XmlEscape(RunSummaryText(run)) + "</system-out>";
  cases.push_back(whole);

  if (launches.is_object() && launches.contains("launches") && launches["launches"].is_array()) {
    for (const Json& l : launches["launches"]) {
      Case c("launch " + Attr(l, "iteration"));
      if (l.contains("displayed_ms") && l["displayed_ms"].is_number()) {
        c.time = Seconds(l["displayed_ms"].get<double>());
      }
      if (l.contains("warmup") && l["warmup"] == true) {
        // Measured and kept, but in no statistic: a CI report shows it as not counted.
        c.name = "warm-up " + Attr(l, "iteration");
        c.skipped = true;
        c.body = "<skipped message=\"warm-up launch, left out of the statistics\"/>";
      } else if (l.contains("valid") && l["valid"] == false) {
        c.skipped = true;
        c.body = "<skipped message=\"" + Attr(l, "invalid_reason") + "\"/>";
      }
      cases.push_back(c);
    }
  }

  if (comparison || comparison_error) {
    // "compare with run 11", or "compare with build 3 (side by side with build 4)".
    Case c("compare with " + (comparison ? XmlEscape(BaselineName(*comparison)) : std::string("-")));
    if (comparison_error) {
      c.failed = true;
      c.body = "<failure message=\"" + XmlEscape(*comparison_error) + "\" type=\"comparison\"/>";
    } else {
      const std::string text = ComparisonText(*comparison);
      if (comparison->is_object() && comparison->value("verdict", "") == "regression") {
        c.failed = true;
        c.body = "<failure message=\"" + XmlEscape(text.substr(0, text.find('\n'))) +
                 "\" type=\"regression\">" + XmlEscape(text) + "</failure>";
      } else {
        c.body = "<system-out>" + XmlEscape(text) + "</system-out>";
      }
    }
    cases.push_back(c);
  }

  int failures = 0, skipped = 0;
  for (const Case& c : cases) {
    failures += c.failed ? 1 : 0;
    skipped += c.skipped ? 1 : 0;
  }
  const std::string suite = "droidlab." + Attr(run, "package") + "." + Attr(run, "mode");
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites>\n";
  out += "  <testsuite name=\"" + suite + "\" tests=\"" + std::to_string(cases.size()) +
         "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" skipped=\"" +
         std::to_string(skipped) + "\" timestamp=\"" + IsoTime(run) + "\" hostname=\"" +
         Attr(run, "serial") + "\">\n";
  out += "    <properties>\n";
  for (const char* key : {"id", "serial", "device_model", "package", "activity", "mode",
                          "iterations", "status", "fingerprint"}) {
    out += "      <property name=\"" + std::string(key) + "\" value=\"" + Attr(run, key) + "\"/>\n";
  }
  out += "    </properties>\n";
  for (const Case& c : cases) {
    out +=
        "    <testcase classname=\"" + suite + "\" name=\"" + c.name + "\" time=\"" + c.time + "\"";
    out += c.body.empty() ? "/>\n" : ">" + c.body + "</testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace droidlab::daemon
