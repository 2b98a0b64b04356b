// A JUnit XML report of one run, for CI systems that show test results (Jenkins, GitLab,
// GitHub's test reporters): one <testsuite> named after the package and mode, with
//   - a testcase "run" that fails when the run did not succeed (its error as the message),
//   - a testcase per launch ("launch 3", time = displayed ms), skipped when the launch is not
//     valid (its invalid_reason), and
//   - when the run was compared, a testcase "compare with run N" that fails on a regression.
// Every text is XML-escaped; characters XML 1.0 cannot hold become U+FFFD.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace droidlab::daemon {

// & < > " ' as entities; control characters other than tab, LF and CR as U+FFFD.
std::string XmlEscape(std::string_view text);

// `run`: GET /runs/{id}; `launches`: GET /runs/{id}/launches (null when not fetched);
// `comparison`: GET /runs/{id}/compare (nullopt when not asked for); `comparison_error`: why a
// comparison that was asked for is missing (a failure of its testcase).
std::string JunitReport(const nlohmann::json& run, const nlohmann::json& launches,
                        const std::optional<nlohmann::json>& comparison,
                        const std::optional<std::string>& comparison_error);

}  // namespace droidlab::daemon
