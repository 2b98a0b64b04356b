#include "orchestrator/run/owed_restores.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <utility>

#include "base/wall_clock.h"
#include "orchestrator/run/device_commands.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

// How often a device that is still booting is asked again.
constexpr std::chrono::milliseconds kBootPoll{250};

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

// A failure that asking again will not cure before the deadline.
bool Final(const CommandError& error) {
  return error.device_lost() || error.timed_out() || error.cancelled();
}

// dumpsys prints this on stderr and exits 0 when the service is not (yet) published
// (frameworks/native/cmds/dumpsys/dumpsys.cpp); cmd exits 20 with "cmd: Can't find service".
bool ServiceMissing(const adb::ShellResult& result) {
  return result.err.find("Can't find service") != std::string::npos;
}

}  // namespace

store::DeviceRestore GlobalSettingRestore(std::string name, std::optional<std::string> previous) {
  store::DeviceRestore restore;
  restore.kind = kRestoreGlobalSetting;
  restore.name = std::move(name);
  restore.previous = std::move(previous);
  return restore;
}

store::DeviceRestore BatteryResetRestore() {
  store::DeviceRestore restore;
  restore.kind = kRestoreBatteryReset;
  return restore;
}

store::DeviceRestore SystemPropertyRestore(std::string name, std::optional<std::string> previous) {
  store::DeviceRestore restore;
  restore.kind = kRestoreSystemProperty;
  restore.name = std::move(name);
  restore.previous = std::move(previous);
  return restore;
}

BasicResult<std::vector<std::string>, std::string> RestoreCommand(
    const store::DeviceRestore& restore) {
  if (restore.kind == kRestoreGlobalSetting && !restore.name.empty()) {
    if (restore.previous) return SettingsPutGlobal(restore.name, *restore.previous);
    return SettingsDeleteGlobal(restore.name);
  }
  if (restore.kind == kRestoreBatteryReset) return DumpsysBatteryReset();
  if (restore.kind == kRestoreSystemProperty && !restore.name.empty()) {
    return Setprop(restore.name, restore.previous.value_or(""));
  }
  return std::string("restore " + std::to_string(restore.id) + " of an unknown kind `" +
                     restore.kind + "` (kept for a droidlab that knows it)");
}

std::string RestoreWhat(const store::DeviceRestore& restore) {
  if (restore.kind == kRestoreGlobalSetting) return restore.name + " setting";
  if (restore.kind == kRestoreBatteryReset) return "battery";
  if (restore.kind == kRestoreSystemProperty) return restore.name + " property";
  return restore.kind;
}

asio::awaitable<std::optional<std::string>> WaitUntilBooted(DeviceShell& shell,
                                                            adb::Deadline deadline) {
  std::string last;
  for (;;) {
    auto asking_boot = shell.Run(GetpropValue("sys.boot_completed"), deadline);
    auto boot = co_await std::move(asking_boot);
    if (!boot) {
      if (Final(boot.error())) co_return boot.error().message;
      last = boot.error().message;
    } else if (Trimmed(boot->out) != "1") {
      last = "sys.boot_completed is `" + Trimmed(boot->out) + "`";
    } else {
      auto asking_settings = shell.Run(SettingsGetGlobal("looper_stats"), deadline);
      auto answered = co_await std::move(asking_settings);
      if (answered) co_return std::nullopt;
      if (Final(answered.error())) co_return answered.error().message;
      last = "the settings provider does not answer: " + answered.error().message;
    }
    if (adb::Clock::now() + kBootPoll >= deadline) {
      co_return "the device has not finished booting: " + last;
    }
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    asio::steady_timer poll(executor, kBootPoll);
    boost::system::error_code ec;
    co_await poll.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return std::string("cancelled while the device was booting");
  }
}

OwedRestores::OwedRestores(store::Store& store, std::function<int64_t()> now_ms)
    : store_(store), door_(store), now_ms_(std::move(now_ms)) {
  if (!now_ms_) now_ms_ = WallNowMs;
}

asio::awaitable<store::StoreResult<int64_t>> OwedRestores::Record(store::DeviceRestore restore) {
  if (restore.created_at == 0) restore.created_at = now_ms_();
  auto recording = door_.RecordDeviceRestore(std::move(restore));
  co_return co_await std::move(recording);
}

bool OwedRestores::Owes(const std::string& serial) const {
  auto owed = store_.Read([&](store::Reader& r) { return r.ListOwedRestores(serial); });
  return owed && !owed->empty();
}

OwedRestores::RunHold::RunHold(OwedRestores& owed, std::string serial)
    : owed_(owed), serial_(std::move(serial)) {
  std::lock_guard lock(owed_.mutex_);
  owed_.running_.insert(serial_);
}

OwedRestores::RunHold::~RunHold() {
  std::function<void(const std::string&)> pay_later;
  {
    std::lock_guard lock(owed_.mutex_);
    auto it = owed_.running_.find(serial_);
    if (it != owed_.running_.end()) owed_.running_.erase(it);
    if (owed_.running_.count(serial_) == 0 && owed_.left_for_run_.erase(serial_) > 0) {
      pay_later = owed_.pay_later_;
    }
  }
  if (!pay_later) return;
  try {
    pay_later(serial_);
  } catch (...) {
    // A destructor lets nothing out; what is owed stays owed (the next run pays it).
  }
}

void OwedRestores::PayWhenRunEnds(std::function<void(const std::string& serial)> pay_later) {
  std::lock_guard lock(mutex_);
  pay_later_ = std::move(pay_later);
}

bool OwedRestores::RunOn(const std::string& serial) const {
  std::lock_guard lock(mutex_);
  return running_.count(serial) > 0;
}

bool OwedRestores::BeginPaying(const std::string& serial) {
  std::lock_guard lock(mutex_);
  return paying_.insert(serial).second;
}

void OwedRestores::EndPaying(const std::string& serial) {
  std::lock_guard lock(mutex_);
  paying_.erase(serial);
}

asio::awaitable<std::optional<std::string>> OwedRestores::Pay(
    adb::Client& client, std::string serial, adb::Deadline deadline,
    std::function<void(std::string_view)> log, bool leave_a_run_alone) {
  while (!BeginPaying(serial)) {
    if (adb::Clock::now() >= deadline) {
      co_return std::string("another restore of this device is still running");
    }
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    asio::steady_timer poll(executor, std::chrono::milliseconds(50));
    boost::system::error_code ec;
    co_await poll.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return std::string("cancelled while another restore of this device ran");
  }
  // Checked once this payer holds the device, with no co_await between: a run that starts after
  // this waits in its own Pay until this payment ends, and records nothing new before.
  if (leave_a_run_alone && RunOn(serial)) {
    {
      std::lock_guard lock(mutex_);
      left_for_run_.insert(serial);
    }
    EndPaying(serial);
    log(serial + ": a run is on it: what it owes is put back when that run ends");
    co_return std::nullopt;
  }
  // Paying from here: every exit below ends it.
  std::optional<std::string> first_error;
  std::string paid;
  auto listing = door_.ListOwedRestores(serial);
  auto owed = co_await std::move(listing);
  if (!owed) {
    first_error = "owed restores not read: " + owed.error().message;
  } else if (!owed->empty()) {
    auto parsed = adb::Serial::Parse(serial);
    if (!parsed) {
      first_error = "bad serial: " + parsed.error().message;
    } else {
      DeviceShell shell(client, *parsed);
      auto waiting = WaitUntilBooted(shell, deadline);
      std::optional<std::string> not_booted = co_await std::move(waiting);
      if (not_booted) first_error = *not_booted;
      // Newest first: the oldest of two restores of one setting holds the device's own value.
      for (auto it = owed->rbegin(); !not_booted && it != owed->rend(); ++it) {
        const store::DeviceRestore& restore = *it;
        auto command = RestoreCommand(restore);
        if (!command) {
          if (!first_error) first_error = command.error();
          continue;
        }
        auto running = shell.Run(std::move(command).value(), deadline);
        auto ran = co_await std::move(running);
        if (!ran) {
          if (!first_error) first_error = RestoreWhat(restore) + ": " + ran.error().message;
          continue;
        }
        if (ServiceMissing(*ran)) {
          // dumpsys "succeeded" without the service: nothing was put back.
          if (!first_error) first_error = RestoreWhat(restore) + ": " + Trimmed(ran->err);
          continue;
        }
        auto marking = door_.MarkDeviceRestorePaid(restore.id, now_ms_());
        store::Status marked = co_await std::move(marking);
        if (!marked) {
          // Put back but still owed: paying it again later puts back the same value.
          log(serial + ": restore " + std::to_string(restore.id) +
              " done but not marked paid: " + marked.error().message);
        }
        paid += (paid.empty() ? "" : ", ") + RestoreWhat(restore);
      }
    }
  }
  EndPaying(serial);
  if (!paid.empty()) log(serial + ": put back as it was: " + paid);
  if (first_error)
    log(serial + ": restore failed (still owed, paid when it is online): " + *first_error);
  co_return first_error;
}

asio::awaitable<std::optional<std::string>> PayOwedRestore(
    OwedRestores& owed, adb::Client& client, std::string serial, adb::Deadline deadline,
    std::function<void(std::string_view)> log) {
  auto paying = owed.Pay(client, std::move(serial), deadline, std::move(log),
                         /*leave_a_run_alone=*/true);
  co_return co_await std::move(paying);
}

}  // namespace droidlab::orchestrator
