#include "orchestrator/run/device_shell.h"

#include <charconv>
#include <random>
#include <utility>

namespace droidlab::orchestrator {

namespace {

std::string Described(const std::vector<std::string>& argv) {
  std::string what;
  for (const std::string& a : argv) what += (what.empty() ? "" : " ") + a;
  return what;
}

// A command's result as the caller sees it: an exit status other than 0 is an error when
// `require_success`, a shell v2 stream that ended without any exit status always is.
CommandResult<adb::ShellResult> Checked(const std::string& what, adb::ShellResult r,
                                        bool require_success) {
  if (r.shell_v2 && !r.exit_code) {
    return CommandError{std::nullopt,
                        "`" + what + "`: output cut off (the device sent no exit status)"};
  }
  if (require_success && r.exit_code && *r.exit_code != 0) {
    std::string err = r.err.empty() ? r.out : r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    if (err.size() > 200) err.resize(200);
    return CommandError{std::nullopt, "`" + what + "` exited with " + std::to_string(*r.exit_code) +
                                          IfAny(": ", err)};
  }
  return r;
}

std::string RandomMark() {
  std::random_device device;
  const uint64_t bits = (uint64_t{device()} << 32) | device();
  char hex[17];
  for (int i = 0; i < 16; ++i) hex[i] = "0123456789abcdef"[(bits >> (4 * i)) & 0xf];
  hex[16] = '\0';
  return std::string("droidlab-part-") + hex;
}

}  // namespace

std::optional<std::vector<adb::ShellResult>> SplitJoinedOutput(std::string_view out,
                                                               std::string_view mark,
                                                               size_t parts) {
  std::vector<adb::ShellResult> split;
  size_t at = 0;
  while (split.size() < parts) {
    const size_t found = out.find(mark, at);
    if (found == std::string_view::npos) return std::nullopt;
    size_t p = found + mark.size();
    if (p >= out.size() || out[p] != ' ') return std::nullopt;
    ++p;
    int status = -1;
    const auto [end, ec] = std::from_chars(out.data() + p, out.data() + out.size(), status);
    if (ec != std::errc() || status < 0 || status > 255) return std::nullopt;
    p = static_cast<size_t>(end - out.data());
    if (p < out.size() && out[p] == '\r') ++p;
    if (p < out.size() && out[p] != '\n') return std::nullopt;
    adb::ShellResult part;
    part.out = std::string(out.substr(at, found - at));
    part.exit_code = status;
    split.push_back(std::move(part));
    at = p < out.size() ? p + 1 : p;
  }
  // Anything after the last mark would be a line the shell was not asked for.
  if (at != out.size()) return std::nullopt;
  return split;
}

bool CommandError::device_lost() const {
  if (!adb) return false;
  switch (*adb) {
    case adb::AdbErrc::kServerUnreachable:
    case adb::AdbErrc::kDeviceNotFound:
    case adb::AdbErrc::kDeviceOffline:
    case adb::AdbErrc::kDeviceUnauthorized:
    case adb::AdbErrc::kConnectionLost:
      return true;
    default:
      return false;
  }
}

boost::asio::awaitable<CommandResult<adb::ShellResult>> DeviceShell::Run(
    std::vector<std::string> argv, adb::Deadline deadline, bool require_success) {
  std::string what = Described(argv);
  auto command = adb::BuildShellCommand(argv);
  if (!command) {
    co_return CommandError{command.error().code, "`" + what + "`: " + command.error().message};
  }
  auto run_command =
      RunCommand(std::move(what), std::move(command).value(), deadline, require_success);
  co_return co_await std::move(run_command);
}

boost::asio::awaitable<CommandResult<adb::ShellResult>> DeviceShell::RunLiteral(
    adb::ShellLiteral literal, adb::Deadline deadline) {
  auto run_literal = RunCommand(std::string(literal.text()),
                                adb::ShellCommand::FromLiteral(literal), deadline, true);
  co_return co_await std::move(run_literal);
}

boost::asio::awaitable<CommandResult<adb::ShellResult>> DeviceShell::RunCommand(
    std::string what, adb::ShellCommand command, adb::Deadline deadline, bool require_success) {
  adb::Result<adb::ShellResult> r = co_await client_.Shell(serial_, command, deadline);
  if (!r) {
    co_return CommandError{
        r.error().code,
        "`" + what + "`: " + std::string(adb::ErrcName(r.error().code)) + ": " + r.error().message};
  }
  co_return Checked(what, std::move(r).value(), require_success);
}

boost::asio::awaitable<std::vector<CommandResult<adb::ShellResult>>> DeviceShell::RunJoined(
    std::vector<ShellPart> parts, adb::Deadline deadline) {
  std::vector<CommandResult<adb::ShellResult>> results;
  std::vector<std::string> whats;
  std::vector<std::vector<std::string>> argvs;
  for (const ShellPart& part : parts) {
    whats.push_back(Described(part.argv));
    argvs.push_back(part.argv);
  }
  if (mark_.empty()) mark_ = RandomMark();
  auto command = adb::BuildJoinedShellCommand(argvs, mark_);
  if (parts.size() > 1 && !joined_refused_ && command) {
    std::string what;
    for (const std::string& w : whats) what += (what.empty() ? "" : "; ") + w;
    // The whole as one command (its last part's status is an `echo`'s: never a failure).
    auto running_all = RunCommand(std::move(what), std::move(command).value(), deadline, false);
    auto r = co_await std::move(running_all);
    if (!r) {
      results.assign(parts.size(), r.error());
      co_return results;
    }
    if (auto split = SplitJoinedOutput(r->out, mark_, parts.size())) {
      for (size_t i = 0; i < parts.size(); ++i) {
        (*split)[i].shell_v2 = r->shell_v2;
        results.push_back(Checked(whats[i], std::move((*split)[i]), parts[i].require_success));
      }
      co_return results;
    }
    // Not a shell that runs a list as Android's mksh does: each part on its own, now and later.
    joined_refused_ = true;
  }
  for (ShellPart& part : parts) {
    auto running = Run(std::move(part.argv), deadline, part.require_success);
    auto ran = co_await std::move(running);
    results.push_back(std::move(ran));
  }
  co_return results;
}

}  // namespace droidlab::orchestrator
