#include "orchestrator/run/scenario_runner.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <utility>

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

// The first line of `text` that holds `what`, for the message.
std::string LineWith(std::string_view text, std::string_view what) {
  const auto at = text.find(what);
  if (at == std::string_view::npos) return std::string(what);
  const auto begin = text.rfind('\n', at);
  const auto from = begin == std::string_view::npos ? 0 : begin + 1;
  const auto end = text.find('\n', at);
  std::string line(text.substr(from, end == std::string_view::npos ? end : end - from));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string StepLabel(std::size_t index, const ScenarioStep& step) {
  return "scenario step " + std::to_string(index + 1) + " (" + ScenarioStepName(step.kind) + ")";
}

}  // namespace

std::optional<std::string> ScenarioStepProblem(const ScenarioStep& step, std::string_view output,
                                               std::optional<int> exit_code) {
  if (step.kind == ScenarioStep::Kind::kMonkey) {
    // Monkey.java: "** Monkey aborted due to error." after a crash or an ANR of the app it
    // drives ("// CRASH: …", "// NOT RESPONDING: …" before it), "** No activities found to run,
    // monkey aborted." when the package has no launcher activity; it exits non-zero then.
    for (std::string_view mark :
         {"// CRASH:", "// NOT RESPONDING:", "monkey aborted", "Monkey aborted"}) {
      if (output.find(mark) != std::string_view::npos) return LineWith(output, mark);
    }
    if (exit_code && *exit_code != 0) return "monkey exited with " + std::to_string(*exit_code);
    return std::nullopt;
  }
  // `input`: silent on success. An error is "Error: …" (bad arguments, 12+'s
  // InputShellCommand), an exception's name, or — before 12, Input.java — its usage text with
  // exit 0 for arguments it cannot read.
  for (std::string_view mark : {"Error", "Exception", "Usage: input", "usage: input"}) {
    if (output.find(mark) != std::string_view::npos) return LineWith(output, mark);
  }
  if (exit_code && *exit_code != 0) return "input exited with " + std::to_string(*exit_code);
  return std::nullopt;
}

asio::awaitable<ScenarioOutcome> RunScenario(DeviceShell& shell, std::vector<ScenarioStep> steps,
                                             std::string package) {
  ScenarioOutcome outcome;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const ScenarioStep& step = steps[i];
    if (step.kind == ScenarioStep::Kind::kWait) {
      const asio::any_io_executor executor = co_await asio::this_coro::executor;
      asio::steady_timer pause(executor, std::chrono::milliseconds(step.numbers.at(0)));
      boost::system::error_code ec;
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        outcome.fatal = CommandError{adb::AdbErrc::kCancelled, "cancelled during the scenario"};
        co_return outcome;
      }
      continue;
    }
    std::vector<std::string> argv = ScenarioStepArgv(step, package);
    auto running =
        shell.Run(std::move(argv), adb::DeadlineAfter(ScenarioStepDeadline(step)), false);
    auto ran = co_await std::move(running);
    if (!ran) {
      if (ran.error().device_lost() || ran.error().cancelled()) {
        outcome.fatal = ran.error();
      } else {
        outcome.failure = StepLabel(i, step) + ": " + ran.error().message;
      }
      co_return outcome;
    }
    const std::string output = ran->out + ran->err;
    if (auto problem = ScenarioStepProblem(step, output, ran->exit_code)) {
      outcome.failure = StepLabel(i, step) + ": " + *problem;
      co_return outcome;
    }
  }
  co_return outcome;
}

}  // namespace droidlab::orchestrator
