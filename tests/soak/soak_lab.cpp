#include "tests/soak/soak_lab.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <stdexcept>

#include "tests/common/wait_until.h"

namespace droidlab::soak {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testutil::ProcessResult;

namespace {

// Runs `argv` through coreutils' timeout: SIGTERM after `limit`, SIGKILL 5 s later.
ProcessResult RunBounded(std::vector<std::string> argv, seconds limit) {
  argv.insert(argv.begin(), {"/usr/bin/timeout", "-k", "5", std::to_string(limit.count())});
  return testutil::RunProcess(argv);
}

// `exec PROGRAM ARGS… 2>>LOG` through sh, so the child's pid is the program's own (signals reach
// it, not a shell) and what it logs is kept in a file for a failure's report.
std::vector<std::string> WithStderrTo(const std::string& log, std::vector<std::string> argv) {
  std::vector<std::string> sh = {"/bin/sh", "-c", "exec \"$@\" 2>>'" + log + "'", "sh"};
  sh.insert(sh.end(), argv.begin(), argv.end());
  return sh;
}

// DROIDLAB_SOAK_DEVSIM: another droidlab-devsim (one that knows faults this build's does not).
std::string DevsimProgram() {
  const char* other = ::getenv("DROIDLAB_SOAK_DEVSIM");
  return other && *other ? other : testutil::DevsimPath();
}

std::string MakeFolder() {
  const char* tmp = ::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/soak_lab_XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

// A copy of `program` in the lab's folder under another name: a machine shared with others who
// clean up their own tests by name (`pkill -f droidlab`, which a soak met twice: SIGTERM to its
// daemon and every devsim at once) leaves the soak's processes alone.
std::string CopyUnderOwnName(const std::string& program, const std::string& folder,
                             const std::string& name) {
  const std::string copy = folder + "/" + name;
  std::filesystem::copy_file(program, copy, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::permissions(copy, std::filesystem::perms::owner_all);
  return copy;
}

}  // namespace

SoakLab::SoakLab()
    : folder_(MakeFolder()),
      db_path_(folder_ + "/lab.db"),
      serve_program_(CopyUnderOwnName(DROIDLAB_BINARY, folder_, "serve-under-soak")),
      devsim_program_(CopyUnderOwnName(DevsimProgram(), folder_, "phone-sim")) {}

SoakLab::~SoakLab() {
  // The daemon and devsim go first: they write into the folder.
  daemon_.reset();
  devsims_.clear();
  if (!keep_) {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
}

ProcessResult SoakLab::Adb(std::vector<std::string> args, seconds limit) const {
  args.insert(args.begin(), {testutil::AdbPath(), "-P", std::to_string(adb_.port())});
  return RunBounded(std::move(args), limit);
}

ProcessResult SoakLab::Shell(const Phone& phone, const std::string& command) const {
  return Adb({"-s", phone.address, "shell", command});
}

bool SoakLab::StartPhones(int count, std::string& why) {
  if (adb_.port() <= 0 || !adb_.Start()) {
    why = "adb start-server failed on port " + std::to_string(adb_.port());
    return false;
  }
  // `--fast` so that `am start -W` does not hold a stream for a whole launch (the measured
  // times are unchanged). Each phone gets a seed of its own.
  for (int i = 0; i < count; ++i) {
    auto devsim = std::make_unique<testutil::ChildProcess>(WithStderrTo(
        devsim_log(), {devsim_program_, "--port", "0", "--fast"}));
    for (const auto& device : testutil::ReadListeningLines(*devsim, 1)) {
      phones_.push_back({device.address, devsims_.size()});
    }
    devsims_.push_back(std::move(devsim));
  }
  if (static_cast<int>(phones_.size()) != count) {
    why = "devsim reported " + std::to_string(phones_.size()) + " of " + std::to_string(count) +
          " phones (see " + devsim_log() + ")";
    return false;
  }
  if (!ReconnectAll(seconds(60))) {
    why = std::to_string(PhonesNotOnline().size()) + " phones never came online in adb";
    return false;
  }
  return true;
}

int SoakLab::DevsimExited(const Phone& phone) const {
  const auto status = devsims_[phone.index]->Wait(milliseconds(0));
  return status ? *status : -1;
}

std::vector<Phone> SoakLab::LivePhones() const {
  std::vector<Phone> live;
  for (const auto& phone : phones_) {
    if (DevsimExited(phone) < 0) live.push_back(phone);
  }
  return live;
}

std::vector<Phone> SoakLab::PhonesNotOnline() const {
  const std::string list = Adb({"devices"}).out;
  std::vector<Phone> missing;
  for (const auto& phone : LivePhones()) {
    if (list.find(phone.address + "\tdevice") == std::string::npos) missing.push_back(phone);
  }
  return missing;
}

bool SoakLab::ReconnectAll(seconds limit) {
  return testutil::WaitUntil(
      [&] {
        const auto missing = PhonesNotOnline();
        for (const auto& phone : missing) Adb({"connect", phone.address}, seconds(10));
        return missing.empty();
      },
      limit, milliseconds(500));
}

void SoakLab::RestartAdbServer() {
  Adb({"kill-server"});
  Adb({"start-server"});
}

bool SoakLab::StartDaemon(std::string& why) {
  std::lock_guard lock(daemon_mutex_);
  daemon_.reset();
  port_ = 0;
  ++daemon_starts_;
  daemon_ = std::make_unique<testutil::ChildProcess>(WithStderrTo(
      daemon_log(), {serve_program_, "serve", "--listen", "127.0.0.1:0", "--db", db_path_,
                     "--adb-server", "tcp:127.0.0.1:" + std::to_string(adb_.port()),
                     "--adb-path", testutil::AdbPath(), "--log-level", "info"}));
  // Tolerant: recovery after a kill -9 on a busy two-core machine is not instant.
  const auto line = daemon_->ReadLine(milliseconds(60000));
  const size_t at = line ? line->find("http://127.0.0.1:") : std::string::npos;
  if (at == std::string::npos) {
    why = "droidlab serve did not say it listens within 60 s" +
          (line ? ": '" + *line + "'" : std::string(" (see ") + daemon_log() + ")");
    daemon_.reset();
    return false;
  }
  port_ = static_cast<uint16_t>(std::stoi(line->substr(at + 17)));
  return true;
}

void SoakLab::KillDaemon() {
  std::lock_guard lock(daemon_mutex_);
  port_ = 0;
  if (!daemon_) return;
  ::kill(daemon_->pid(), SIGKILL);
  daemon_->Stop();
  daemon_.reset();
}

int SoakLab::TerminateDaemon(seconds limit) {
  std::lock_guard lock(daemon_mutex_);
  port_ = 0;
  if (!daemon_) return -1;
  ::kill(daemon_->pid(), SIGTERM);
  const auto status = daemon_->Wait(limit);
  daemon_.reset();  // SIGTERM, then SIGKILL, when it did not end
  return status ? *status : -1;
}

int SoakLab::DaemonExitedOnItsOwn() {
  std::lock_guard lock(daemon_mutex_);
  if (!daemon_) return -1;
  const auto status = daemon_->Wait(milliseconds(0));
  return status ? *status : -1;
}

}  // namespace droidlab::soak
