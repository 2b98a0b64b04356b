// AlertCenter: raises alerts and delivers them to the configured webhooks (issue 15 §4).
//
//   AlertCenter alerts(store, *api::MakeWebhookSender({}), options);
//   asio::co_spawn(io, alerts.Run(), ...);               // delivers until cancelled
//   auto raising = alerts.Raise(std::move(alert));       // stored durably, then delivered
//   auto id = co_await std::move(raising);
//
// The store is the queue. Raise commits the alert and one pending delivery per webhook in one
// durable transaction before it returns, and wakes Run; Run reads the pending deliveries that are
// due (soonest first) and starts each as its own coroutine, at most `max_in_flight` at once, so
// memory holds no more than that whatever the number of alerts, and a target that is down holds
// only its own deliveries. Each attempt has its own timeout; its outcome (HTTP status or error,
// start, duration) and the delivery's next state are committed together: delivered on a 2xx;
// otherwise due again after RetryDelay (first_retry, doubling, at most max_retry) until
// max_attempts, then failed. A daemon that stops (or dies) leaves pending deliveries in the store;
// the next one sends them — an attempt cut short by the stop is not recorded and is made again
// with the same number, so a receiver may see one attempt twice: it dedupes on the delivery id.
//
// Threading: Raise, Resolve, Run and Wake on one executor's thread (the daemon's io thread);
// nothing blocks it (the store through its door, the transport asynchronous).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "orchestrator/alerts/webhook.h"
#include "store/error.h"
#include "store/records.h"
#include "store/store.h"

namespace droidlab::orchestrator {

// What an alert says (store/alert_records.h); created_at is set by Raise.
using Alert = store::NewAlert;

struct AlertCenterOptions {
  std::vector<WebhookTarget> webhooks;
  int64_t max_attempts = 8;
  std::chrono::milliseconds first_retry{std::chrono::seconds(30)};
  std::chrono::milliseconds max_retry{std::chrono::hours(1)};
  std::chrono::milliseconds attempt_timeout{std::chrono::seconds(10)};
  size_t max_in_flight = 4;
  // The pending deliveries are read again at least this often even when nothing woke Run.
  std::chrono::milliseconds max_sleep{std::chrono::seconds(60)};
  std::string user_agent = "droidlab";
  std::function<int64_t()> now_ms;            // wall clock, ms since the epoch
  std::function<void(std::string_view)> log;  // default: stderr
  // After each attempt is committed (or failed to be): tests, counters.
  std::function<void(const store::AlertAttemptRecord&)> on_attempt;
  // Several daemons on one database (issue 17 §2): every one raises alerts, only the one doing
  // the lab's chores delivers them; the others look again every `lead_check`. Unset: always.
  std::function<bool()> leading;
  std::chrono::milliseconds lead_check{std::chrono::seconds(5)};
};

class AlertCenter {
 public:
  AlertCenter(store::Store& store, WebhookSender sender, AlertCenterOptions options);
  ~AlertCenter();
  AlertCenter(const AlertCenter&) = delete;
  AlertCenter& operator=(const AlertCenter&) = delete;

  // Stores the alert (state open, created now) with a delivery per webhook, durably, then wakes
  // the delivery; the alert's id, or the store's error (then nothing is sent).
  boost::asio::awaitable<store::StoreResult<int64_t>> Raise(Alert alert);
  // Marks an open alert resolved (kNotFound when it is not open). Nothing is sent.
  boost::asio::awaitable<store::Status> Resolve(int64_t alert_id);

  // Delivers pending deliveries until cancelled; then cancels the attempts in flight and returns
  // once they have ended (none is recorded: the next daemon makes them again).
  boost::asio::awaitable<void> Run();
  // Look at the pending deliveries now.
  void Wake();

  struct Impl;  // alert_center.cpp's; public so its coroutines there can name it

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace droidlab::orchestrator
