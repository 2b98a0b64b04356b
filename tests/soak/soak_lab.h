// The soak's lab: the real adb server on a private port, one droidlab-devsim process holding every
// phone, and the real `droidlab serve` on a database in a temporary folder — each of which the
// fault injector may kill and start again while the traffic goes on. Every program it runs is
// bounded in time (coreutils' `timeout`), so a hung adb cannot hang the soak.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tests/common/adb_lab.h"
#include "tests/common/child_process.h"
#include "tests/common/subprocess.h"

namespace droidlab::soak {

struct Phone {
  std::string address;  // 127.0.0.1:PORT: adb's serial for it, and the daemon's
  size_t index = 0;     // its devsim process in the lab
};

class SoakLab {
 public:
  SoakLab();
  ~SoakLab();
  SoakLab(const SoakLab&) = delete;
  SoakLab& operator=(const SoakLab&) = delete;

  // Starts the adb server and `count` devsim phones, one devsim process each (a devsim that
  // crashes takes one phone with it, not the lab), and connects them; false and `why` when not.
  bool StartPhones(int count, std::string& why);
  const std::vector<Phone>& phones() const { return phones_; }
  // The phones whose devsim has not ended.
  std::vector<Phone> LivePhones() const;
  // The phone's devsim process ended (it crashed: nothing stops it before the lab does): its
  // wait status, else -1.
  int DevsimExited(const Phone& phone) const;

  // `adb -P PORT args…`, ended after `limit`.
  testutil::ProcessResult Adb(std::vector<std::string> args,
                              std::chrono::seconds limit = std::chrono::seconds(30)) const;
  testutil::ProcessResult Shell(const Phone& phone, const std::string& command) const;
  // Phones adb does not list as `device` now.
  std::vector<Phone> PhonesNotOnline() const;
  // `adb connect` every phone adb does not list as `device` until all are, or `limit` passes
  // (a phone unplugged for a while refuses until it listens again): true when all are online.
  bool ReconnectAll(std::chrono::seconds limit);
  // kill-server, then start-server: the adb server dies under the daemon and comes back empty.
  void RestartAdbServer();

  // Starts `droidlab serve` on the lab's database (a kernel-chosen port); its stderr goes to
  // daemon.log. False when it did not say it listens within the limit (it is then killed).
  bool StartDaemon(std::string& why);
  // SIGKILL and reap.
  void KillDaemon();
  // SIGTERM; the wait status when it exits within `limit`, -1 otherwise (then it is killed).
  int TerminateDaemon(std::chrono::seconds limit);
  // The port the daemon listens on; 0 while none runs.
  uint16_t port() const { return port_.load(); }
  // The daemon process ended on its own (crashed): its wait status, else -1.
  int DaemonExitedOnItsOwn();
  int daemon_starts() const { return daemon_starts_; }

  const std::string& db_path() const { return db_path_; }
  std::string daemon_log() const { return folder_ + "/daemon.log"; }
  std::string devsim_log() const { return folder_ + "/devsim.log"; }
  std::string faults_log() const { return folder_ + "/faults.log"; }
  // Keeps the folder (database, logs) after the soak, for a failure to be looked at; otherwise
  // it is removed with the lab.
  void Keep() { keep_ = true; }
  const std::string& folder() const { return folder_; }

 private:
  std::string folder_;
  std::string db_path_;
  std::string serve_program_;   // copies of droidlab and droidlab-devsim in folder_
  std::string devsim_program_;
  testutil::AdbServer adb_;
  std::vector<std::unique_ptr<testutil::ChildProcess>> devsims_;
  std::vector<Phone> phones_;
  std::mutex daemon_mutex_;
  std::unique_ptr<testutil::ChildProcess> daemon_;
  std::atomic<uint16_t> port_{0};
  int daemon_starts_ = 0;
  bool keep_ = false;
};

}  // namespace droidlab::soak
