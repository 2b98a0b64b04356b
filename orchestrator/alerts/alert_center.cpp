#include "orchestrator/alerts/alert_center.h"

#include <algorithm>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "base/wall_clock.h"
#include "orchestrator/stderr_log.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

struct AlertCenter::Impl {
  Impl(store::Store& s, WebhookSender w, AlertCenterOptions o)
      : store(s), sender(std::move(w)), options(std::move(o)) {
    if (!options.now_ms) options.now_ms = WallNowMs;
    if (!options.log) options.log = StderrLog("alerts");
    options.max_attempts = std::max<int64_t>(options.max_attempts, 1);
    options.max_in_flight = std::max<size_t>(options.max_in_flight, 1);
  }

  store::AsyncStore store;
  WebhookSender sender;
  AlertCenterOptions options;
  // The executor's thread only.
  std::shared_ptr<asio::steady_timer> sleep;
  bool woken = false;
  // Attempts in flight by delivery row id, each with the signal that cancels it.
  std::map<int64_t, std::shared_ptr<asio::cancellation_signal>> in_flight;
  // Attempts that ended while StartDue was reading: its rows of them may predate their record
  // (read before it was committed), so that read must not start them again.
  bool reading = false;
  std::set<int64_t> ended_while_reading;
  // Deliveries whose last attempt the store did not take (a full disk): not before this time,
  // though the store still says due, so that a failing store never turns into a POST loop.
  std::map<int64_t, int64_t> unrecorded_until;

  void Wake() {
    woken = true;
    if (sleep) sleep->cancel();
  }

  const WebhookTarget* TargetOf(const std::string& url) const {
    for (const WebhookTarget& t : options.webhooks) {
      if (t.url == url) return &t;
    }
    return nullptr;
  }
};

namespace {

std::string Describe(const store::AlertDelivery& d, int64_t attempt) {
  return "alert " + std::to_string(d.alert_id) + " to " + RedactedWebhookUrl(d.url) +
         " (delivery " + d.delivery_id + ", attempt " + std::to_string(attempt) + ")";
}

// The POST of one attempt: the body, signed, and the headers that repeat what it says.
WebhookPost MakePost(const AlertCenterOptions& options, const WebhookTarget& target,
                     const WebhookUrl& url, const store::PendingAlertDelivery& pending,
                     int64_t attempt, int64_t sent_at) {
  WebhookPost post;
  post.url = url;
  post.body = WebhookBody(pending.alert, pending.delivery, attempt, sent_at);
  post.timeout = options.attempt_timeout;
  post.headers = {
      {"Content-Type", "application/json"},
      {"User-Agent", options.user_agent},
      {"X-Droidlab-Event", "alert"},
      {"X-Droidlab-Delivery", pending.delivery.delivery_id},
      {"X-Droidlab-Attempt", std::to_string(attempt)},
      {"X-Droidlab-Timestamp", std::to_string(sent_at)},
      {"X-Droidlab-Signature", SignWebhookBody(target.secret, post.body)},
  };
  return post;
}

// What an answer leaves the delivery as.
store::AlertAttemptRecord Outcome(const AlertCenterOptions& options, int64_t delivery_id,
                                  int64_t attempt, int64_t started_at, int64_t duration_ms,
                                  const WebhookAnswer& answer, bool can_retry) {
  store::AlertAttemptRecord record;
  record.delivery_id = delivery_id;
  record.attempt.attempt = attempt;
  record.attempt.started_at = started_at;
  record.attempt.duration_ms = duration_ms;
  if (answer.http_status) record.attempt.http_status = *answer.http_status;
  const bool delivered =
      answer.http_status && *answer.http_status >= 200 && *answer.http_status < 300;
  if (!delivered) {
    record.attempt.error =
        answer.http_status ? "HTTP " + std::to_string(*answer.http_status) : answer.error;
  }
  if (delivered) {
    record.status_after = "delivered";
  } else if (!can_retry || attempt >= options.max_attempts) {
    record.status_after = "failed";
  } else {
    record.status_after = "pending";
    record.next_attempt_at = started_at + duration_ms +
                             RetryDelay(attempt, options.first_retry, options.max_retry).count();
  }
  return record;
}

// One attempt of one delivery, on its own coroutine. Cancelled (the daemon stops): returns
// without recording anything, so the delivery stays pending as it was.
asio::awaitable<void> Attempt(std::shared_ptr<AlertCenter::Impl> impl,
                              store::PendingAlertDelivery pending) {
  co_await asio::this_coro::throw_if_cancelled(false);
  const AlertCenterOptions& options = impl->options;
  const int64_t attempt = pending.delivery.attempts + 1;
  const int64_t started_at = options.now_ms();
  const auto started = std::chrono::steady_clock::now();
  WebhookAnswer answer;
  bool can_retry = true;
  const WebhookTarget* target = impl->TargetOf(pending.delivery.url);
  auto url = ParseWebhookUrl(pending.delivery.url);
  if (target == nullptr) {
    answer.error = "this webhook is no longer configured";
    can_retry = false;
  } else if (!url) {
    answer.error = url.error();
    can_retry = false;
  } else {
    WebhookPost post = MakePost(options, *target, *url, pending, attempt, started_at);
    auto posting = impl->sender(std::move(post));
    answer = co_await std::move(posting);
  }
  if ((co_await asio::this_coro::cancellation_state).cancelled() != asio::cancellation_type::none) {
    co_return;
  }
  const int64_t duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - started)
                                  .count();
  store::AlertAttemptRecord record =
      Outcome(options, pending.delivery.id, attempt, started_at, duration_ms, answer, can_retry);
  auto recording = impl->store.RecordAlertAttempt(record);
  auto recorded = co_await std::move(recording);
  const std::string what = Describe(pending.delivery, attempt);
  if (!recorded) {
    impl->unrecorded_until[pending.delivery.id] =
        started_at + duration_ms +
        RetryDelay(attempt, options.first_retry, options.max_retry).count();
    options.log(what + ": not recorded: " + recorded.error().message);
  } else if (record.status_after == "delivered") {
    options.log(what + ": delivered (HTTP " + std::to_string(*answer.http_status) + ")");
  } else {
    options.log(what + ": " + record.attempt.error.value_or("failed") +
                (record.status_after == "failed" ? "; given up" : "; will retry"));
  }
  if (options.on_attempt) options.on_attempt(record);
}

// Starts the due deliveries not in flight (up to max_in_flight); returns how long to sleep.
asio::awaitable<std::chrono::milliseconds> StartDue(std::shared_ptr<AlertCenter::Impl> impl,
                                                    asio::any_io_executor executor) {
  const AlertCenterOptions& options = impl->options;
  // Enough rows to see past those in flight, and one more that says when the next is due.
  const auto limit = static_cast<int64_t>(options.max_in_flight + impl->in_flight.size() + 1);
  impl->reading = true;
  impl->ended_while_reading.clear();
  auto listing = impl->store.PendingAlertDeliveries(limit);
  auto pending = co_await std::move(listing);
  impl->reading = false;
  if (!pending) {
    options.log("cannot read pending alert deliveries: " + pending.error().message);
    co_return options.max_sleep;
  }
  const int64_t now = options.now_ms();
  std::chrono::milliseconds wait = options.max_sleep;
  for (store::PendingAlertDelivery& p : *pending) {
    const int64_t due = p.delivery.next_attempt_at.value_or(now);
    if (due > now) {
      wait = std::min(wait, std::chrono::milliseconds(due - now));
      break;
    }
    const int64_t id = p.delivery.id;
    if (auto held = impl->unrecorded_until.find(id); held != impl->unrecorded_until.end()) {
      if (held->second > now) {
        wait = std::min(wait, std::chrono::milliseconds(held->second - now));
        continue;
      }
      impl->unrecorded_until.erase(held);
    }
    if (impl->in_flight.count(id) != 0 || impl->ended_while_reading.count(id) != 0) continue;
    if (impl->in_flight.size() >= options.max_in_flight) break;  // an attempt's end wakes Run
    auto signal = std::make_shared<asio::cancellation_signal>();
    impl->in_flight.emplace(id, signal);
    auto attempt = Attempt(impl, std::move(p));
    asio::co_spawn(
        executor, std::move(attempt),
        asio::bind_cancellation_slot(signal->slot(), [impl, id, executor](std::exception_ptr e) {
          if (e) {
            try {
              std::rethrow_exception(e);
            } catch (const std::exception& ex) {
              impl->options.log("alert delivery ended by an exception: " + std::string(ex.what()));
            } catch (...) {
              impl->options.log("alert delivery ended by an unknown exception");
            }
          }
          // The signal this handler is bound to goes once the handler has returned.
          auto ended = impl->in_flight.find(id);
          if (ended != impl->in_flight.end()) {
            asio::post(executor, [signal = std::move(ended->second)] {});
            impl->in_flight.erase(ended);
          }
          if (impl->reading) impl->ended_while_reading.insert(id);
          impl->Wake();
        }));
  }
  co_return wait;
}

bool Cancelled(asio::cancellation_state state) {
  return state.cancelled() != asio::cancellation_type::none;
}

}  // namespace

AlertCenter::AlertCenter(store::Store& store, WebhookSender sender, AlertCenterOptions options)
    : impl_(std::make_shared<Impl>(store, std::move(sender), std::move(options))) {}

AlertCenter::~AlertCenter() = default;

asio::awaitable<store::StoreResult<int64_t>> AlertCenter::Raise(Alert alert) {
  std::shared_ptr<Impl> impl = impl_;
  alert.created_at = impl->options.now_ms();
  std::vector<store::NewAlertDelivery> deliveries;
  for (const WebhookTarget& target : impl->options.webhooks) {
    store::NewAlertDelivery delivery;
    delivery.url = target.url;
    delivery.delivery_id = NewDeliveryId();
    deliveries.push_back(std::move(delivery));
  }
  auto storing = impl->store.CreateAlert(std::move(alert), std::move(deliveries));
  auto stored = co_await std::move(storing);
  if (stored) impl->Wake();
  co_return stored;
}

asio::awaitable<store::Status> AlertCenter::Resolve(int64_t alert_id) {
  std::shared_ptr<Impl> impl = impl_;
  const int64_t now = impl->options.now_ms();
  auto resolving = impl->store.ResolveAlert(alert_id, now);
  co_return co_await std::move(resolving);
}

asio::awaitable<void> AlertCenter::Run() {
  std::shared_ptr<Impl> impl = impl_;
  auto executor = co_await asio::this_coro::executor;
  co_await asio::this_coro::throw_if_cancelled(false);  // cancellation ends the loop below
  for (;;) {
    if (Cancelled(co_await asio::this_coro::cancellation_state)) break;
    impl->woken = false;
    std::chrono::milliseconds wait = impl->options.lead_check;
    if (!impl->options.leading || impl->options.leading()) {
      auto starting = StartDue(impl, executor);
      wait = co_await std::move(starting);
    }
    if (impl->woken) continue;  // woken while reading: read again
    // A cancel that came while reading would not reach a timer started after it.
    if (Cancelled(co_await asio::this_coro::cancellation_state)) break;
    impl->sleep = std::make_shared<asio::steady_timer>(executor, wait);
    boost::system::error_code ec;
    co_await impl->sleep->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    impl->sleep.reset();
  }
  // Stopping: cut the attempts in flight short and wait for each to end (each end wakes us).
  co_await asio::this_coro::reset_cancellation_state();
  for (auto& [id, signal] : impl->in_flight) signal->emit(asio::cancellation_type::terminal);
  while (!impl->in_flight.empty()) {
    impl->sleep = std::make_shared<asio::steady_timer>(executor, std::chrono::seconds(5));
    boost::system::error_code ec;
    co_await impl->sleep->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    impl->sleep.reset();
  }
}

void AlertCenter::Wake() { impl_->Wake(); }

}  // namespace droidlab::orchestrator
