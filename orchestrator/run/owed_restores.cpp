#include "orchestrator/run/owed_restores.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "orchestrator/run/device_shell.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

void OwedRestores::Add(const std::string& serial, const LooperSession& session) {
  std::lock_guard lock(mutex_);
  owed_.try_emplace(serial, session);  // an older debt holds the device's own setting
}

std::optional<LooperSession> OwedRestores::Take(const std::string& serial, bool* busy) {
  std::lock_guard lock(mutex_);
  if (busy) *busy = paying_.count(serial) > 0;
  if (paying_.count(serial)) return std::nullopt;
  auto it = owed_.find(serial);
  if (it == owed_.end()) return std::nullopt;
  LooperSession session = std::move(it->second);
  owed_.erase(it);
  paying_.insert(serial);
  return session;
}

void OwedRestores::Release(const std::string& serial, std::optional<LooperSession> unpaid) {
  std::lock_guard lock(mutex_);
  paying_.erase(serial);
  if (unpaid) owed_.try_emplace(serial, std::move(*unpaid));
}

bool OwedRestores::Owes(const std::string& serial) const {
  std::lock_guard lock(mutex_);
  return owed_.count(serial) > 0 || paying_.count(serial) > 0;
}

size_t OwedRestores::size() const {
  std::lock_guard lock(mutex_);
  return owed_.size() + paying_.size();
}

asio::awaitable<std::optional<std::string>> PayOwedRestore(
    OwedRestores& owed, adb::Client& client, std::string serial, adb::Deadline deadline,
    std::function<void(std::string_view)> log) {
  std::optional<LooperSession> session;
  for (;;) {
    bool busy = false;
    session = owed.Take(serial, &busy);
    if (session || !busy) break;
    if (adb::Clock::now() >= deadline) {
      co_return std::string("another restore of this device is still running");
    }
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    asio::steady_timer poll(executor, std::chrono::milliseconds(50));
    boost::system::error_code ec;
    co_await poll.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return std::string("cancelled while another restore of this device ran");
  }
  if (!session) co_return std::nullopt;
  auto parsed = adb::Serial::Parse(serial);
  if (!parsed) {  // cannot happen for a serial a run used; never keep a debt nobody can pay
    owed.Release(serial, std::nullopt);
    co_return "bad serial: " + parsed.error().message;
  }
  DeviceShell shell(client, *parsed);
  auto restoring = RestoreLooperSession(shell, *session, deadline);
  auto restored = co_await std::move(restoring);
  if (!restored) {
    const std::string why = restored.error().message;
    owed.Release(serial, std::move(session));
    log(serial + ": owed looper_stats restore failed (kept for the next try): " + why);
    co_return why;
  }
  owed.Release(serial, std::nullopt);
  log(serial + ": owed looper_stats setting restored" +
      std::string(session->unplugged ? ", battery reset" : ""));
  co_return std::nullopt;
}

}  // namespace droidlab::orchestrator
