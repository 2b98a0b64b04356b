#include "orchestrator/lab/device_registry.h"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "base/wall_clock.h"
#include "orchestrator/listeners.h"
#include "orchestrator/run/device_commands.h"
#include "orchestrator/stderr_log.h"
#include "parsers/device_properties.h"
#include "store/async_store.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

constexpr const char kDisconnected[] = "disconnected";
constexpr const char kDeviceState[] = "device";

std::string StateText(const adb::DeviceEntry& entry) {
  if (entry.state == adb::DeviceState::kUnknown && !entry.state_text.empty()) {
    return entry.state_text;
  }
  return std::string(adb::DeviceStateName(entry.state));
}

}  // namespace

BasicResult<DeviceProperties, std::string> DevicePropertiesFromGetprop(std::string_view output) {
  auto parsed = parsers::ParseDeviceProperties(output);
  if (!parsed) return std::string("getprop output not understood: ") + parsed.error().message;
  return std::move(parsed).value();
}

struct DeviceRegistry::Impl : std::enable_shared_from_this<Impl> {
  // Everything a device needs; guarded by `mutex` (the snapshot part is read by any thread, the
  // rest is only touched on the io executor but kept together for simplicity).
  struct Entry {
    DeviceSnapshot snapshot;
    std::optional<uint64_t> transport_id;
    bool reading = false;         // a property read is in flight
    bool reread = false;          // the device changed during it: read again, drop this one
    std::shared_ptr<asio::cancellation_signal> read_cancel;
  };

  Impl(adb::Client& c, store::Store& s, DeviceRegistryOptions o)
      : client(c), store(s), options(std::move(o)) {
    if (!options.now_ms) options.now_ms = WallNowMs;
    if (!options.log) options.log = StderrLog("device_registry");
  }

  adb::Client& client;
  store::AsyncStore store;
  DeviceRegistryOptions options;

  mutable std::mutex mutex;
  std::map<std::string, Entry, std::less<>> devices;
  uint64_t updates = 0;
  Listeners<DeviceSnapshot> listeners;

  // io executor only.
  bool stopping = false;
  bool polling = false;  // PollList has not returned yet
  int reads_in_flight = 0;
  std::shared_ptr<asio::steady_timer> reads_done;

  store::Device ToStoreDevice(const DeviceSnapshot& s) const {
    store::Device d;
    d.serial = s.serial;
    if (s.properties) {
      d.model = s.properties->model;
      d.manufacturer = s.properties->manufacturer;
      d.sdk = s.properties->sdk;
      d.release = s.properties->release;
      d.abi = s.properties->abi;
      d.fingerprint = s.properties->fingerprint;
    }
    d.state = s.state;
    d.first_seen = s.first_seen;  // the store keeps the first one it got
    d.last_seen = s.last_seen;
    d.host = options.host;
    return d;
  }

  store::Completion LogCommitError(std::string what) {
    auto log = options.log;
    return [log, what = std::move(what)](const store::Status& s) {
      if (!s) log(what + " not committed: " + s.error().message);
    };
  }

  // The store's device writes wait for room in its queue, awaited (in order: each is accepted
  // before the next is pushed). Named operations, never temporaries in the co_await expression
  // (g++ 12 destroys those twice: see store/async_store.h).
  asio::awaitable<void> Upsert(store::Device device) {
    std::string what = "device " + device.serial;
    store::Completion committed = LogCommitError(what);
    auto upserting = store.UpsertDevice(std::move(device), std::move(committed));
    auto status = co_await std::move(upserting);
    if (!status) options.log(what + ": store refused the upsert: " + status.error().message);
  }

  asio::awaitable<void> RecordState(store::DeviceStateChange change) {
    std::string what = "state " + change.state + " of " + change.serial;
    store::Completion committed = LogCommitError(what);
    auto recording = store.RecordDeviceState(std::move(change), std::move(committed));
    auto status = co_await std::move(recording);
    if (!status) options.log(what + ": store refused it: " + status.error().message);
  }

  // Every list_poll: adb's list, and each state it shows that differs from the registry's (a
  // network phone gone offline, which track-devices does not tell) handled as the stream's
  // changes are. A round during which the stream delivered anything is dropped: its list may be
  // older than what the stream said.
  static asio::awaitable<void> PollList(std::shared_ptr<Impl> self) {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto timer = std::make_shared<asio::steady_timer>(self->client_executor);
    while (!self->stopping) {
      timer->expires_after(self->options.list_poll);
      boost::system::error_code ec;
      co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
      const bool cancelled = (co_await asio::this_coro::cancellation_state).cancelled() !=
                             asio::cancellation_type::none;
      if (ec || cancelled || self->stopping) break;
      uint64_t before = 0;
      {
        std::lock_guard lock(self->mutex);
        before = self->updates;
      }
      auto listing = self->client.Devices(adb::DeadlineAfter(self->options.list_poll));
      auto listed = co_await std::move(listing);
      if (!listed || self->stopping) continue;  // the stream's own reconnect reports the server
      adb::DeviceListUpdate update;
      {
        std::lock_guard lock(self->mutex);
        if (self->updates != before) continue;
        for (const adb::DeviceEntry& entry : listed->devices) {
          auto it = self->devices.find(entry.serial);
          if (it == self->devices.end() || it->second.snapshot.state == kDisconnected) continue;
          if (it->second.snapshot.state == StateText(entry)) continue;
          update.changes.push_back({adb::DeviceChange::Kind::kChanged, entry});
        }
      }
      if (update.changes.empty()) continue;
      update.list = std::move(*listed);
      auto handling = self->HandleUpdate(update);
      co_await std::move(handling);
    }
    self->polling = false;
  }

  asio::awaitable<void> HandleUpdate(const adb::DeviceListUpdate& update) {
    {
      std::lock_guard lock(mutex);
      ++updates;
    }
    if (!update.connected) {
      options.log("tracking lost: " + (update.error ? update.error->message : std::string("?")) +
                  "; reconnecting");
      co_return;
    }
    for (const adb::DeviceChange& change : update.changes) {
      const int64_t now = options.now_ms();
      const std::string& serial = change.entry.serial;
      store::Device device;
      DeviceSnapshot changed;  // published once the change is recorded
      bool state_changed = false;
      bool want_read = false;
      {
        std::lock_guard lock(mutex);
        if (change.kind == adb::DeviceChange::Kind::kRemoved) {
          auto it = devices.find(serial);
          if (it == devices.end()) continue;  // never recorded: nothing to close
          Entry& e = it->second;
          if (e.snapshot.state == kDisconnected) continue;
          e.snapshot.state = kDisconnected;
          e.snapshot.last_seen = now;
          ++e.snapshot.state_changes;
          e.transport_id.reset();
          state_changed = true;
          device = ToStoreDevice(e.snapshot);
          changed = e.snapshot;
        } else {
          auto [it, added] = devices.try_emplace(serial);
          Entry& e = it->second;
          if (added) {
            e.snapshot.serial = serial;
            e.snapshot.first_seen = now;
          }
          const std::string state = StateText(change.entry);
          state_changed = e.snapshot.state != state;
          const bool transport_changed = e.transport_id != change.entry.transport_id;
          e.transport_id = change.entry.transport_id;
          e.snapshot.state = state;
          e.snapshot.last_seen = now;
          if (state_changed) ++e.snapshot.state_changes;
          want_read = state == kDeviceState &&
                      (state_changed || transport_changed || !e.snapshot.properties ||
                       e.snapshot.properties_error);
          device = ToStoreDevice(e.snapshot);
          if (state_changed) changed = e.snapshot;
        }
      }
      const std::string state = device.state;
      co_await Upsert(std::move(device));
      if (state_changed) {
        store::DeviceStateChange recorded{serial, state, now,
                                          options.host};  // named: see store/async_store.h
        co_await RecordState(std::move(recorded));
        listeners.Emit(changed);
      }
      if (want_read) StartRead(serial);
    }
    if (update.first_after_connect) {
      ReadAgainDevicesListedUnchanged(update);
      co_await DisconnectStoredDevicesNotListed(update.list);
    }
  }

  // Tracking was down (the adb server restarted, or droidlab lost it): what happened to a phone
  // meanwhile is unknown — replugged, rebooted, restored by hand — and a new server numbers its
  // transports from 1 again, so a phone listed as before shows no change at all. Each `device`
  // is read again as if it had just come online, and on_online follows (what it owes is paid:
  // a restore cut off by the server's restart is not left owed until the next replug).
  void ReadAgainDevicesListedUnchanged(const adb::DeviceListUpdate& update) {
    std::set<std::string, std::less<>> changed;
    for (const adb::DeviceChange& change : update.changes) changed.insert(change.entry.serial);
    for (const adb::DeviceEntry& entry : update.list.devices) {
      if (entry.state != adb::DeviceState::kDevice || changed.contains(entry.serial)) continue;
      {
        std::lock_guard lock(mutex);
        if (!devices.contains(entry.serial)) continue;
      }
      StartRead(entry.serial);
    }
  }

  // At start-up and after every reconnect: stored devices of this host (or of none) that adb does
  // not list (left `device` by an earlier daemon, or gone while tracking was down) become
  // `disconnected`, with a state change.
  // Devices this registry knows are left to their own changes (kRemoved, already queued to the
  // store, which the read below may not show yet).
  asio::awaitable<void> DisconnectStoredDevicesNotListed(const adb::DeviceList& list) {
    std::set<std::string, std::less<>> listed;
    for (const adb::DeviceEntry& entry : list.devices) listed.insert(entry.serial);
    auto listing = store.ListDevices();
    auto stored = co_await std::move(listing);
    if (!stored) {
      options.log("stored devices not read, those adb no longer lists stay as they are: " +
                  stored.error().message);
      co_return;
    }
    for (const store::Device& d : *stored) {
      if (d.state == kDisconnected || listed.contains(d.serial)) continue;
      // Another host's phone: its adb server, not ours, says whether it is there.
      if (options.host && d.host && *d.host != *options.host) continue;
      {
        std::lock_guard lock(mutex);
        if (devices.contains(d.serial)) continue;
      }
      options.log(d.serial + ": stored as " + d.state + " but adb does not list it: disconnected");
      DeviceSnapshot gone;
      gone.serial = d.serial;
      gone.state = kDisconnected;
      gone.properties = DeviceProperties{d.model, d.manufacturer, d.sdk,       d.release,
                                         d.abi,   d.fingerprint,  std::nullopt};
      const int64_t now = options.now_ms();
      gone.first_seen = d.first_seen;
      gone.last_seen = now;  // as the store moves it
      store::DeviceStateChange recorded{d.serial, kDisconnected, now, options.host};
      co_await RecordState(std::move(recorded));
      listeners.Emit(gone);
    }
  }

  void StartRead(const std::string& serial) {
    if (stopping) return;
    std::shared_ptr<asio::cancellation_signal> signal;
    {
      std::lock_guard lock(mutex);
      Entry& e = devices[serial];
      if (e.reading) {
        e.reread = true;
        return;
      }
      e.reading = true;
      e.reread = false;
      e.read_cancel = std::make_shared<asio::cancellation_signal>();
      signal = e.read_cancel;
    }
    ++reads_in_flight;
    asio::co_spawn(client_executor, ReadProperties(shared_from_this(), serial),
                   asio::bind_cancellation_slot(signal->slot(), [signal](std::exception_ptr) {}));
  }

  static asio::awaitable<void> ReadProperties(std::shared_ptr<Impl> self, std::string serial) {
    co_await self->ReadPropertiesLoop(serial);
    {
      std::lock_guard lock(self->mutex);
      auto it = self->devices.find(serial);
      if (it != self->devices.end()) {
        it->second.reading = false;
        it->second.read_cancel.reset();
      }
    }
    if (--self->reads_in_flight == 0 && self->reads_done) self->reads_done->cancel();
  }

  asio::awaitable<void> ReadPropertiesLoop(const std::string& serial) {
    for (;;) {
      {
        std::lock_guard lock(mutex);
        auto it = devices.find(serial);
        if (it == devices.end()) co_return;
        it->second.reread = false;
        ++it->second.snapshot.property_reads;
      }
      BasicResult<DeviceProperties, std::string> props = std::string("not read");
      auto parsed_serial = adb::Serial::Parse(serial);
      if (!parsed_serial) {
        props = "bad serial: " + parsed_serial.error().message;
      } else {
        // The command by its named builder, the operation named, then awaited (g++ 12: no
        // temporary argv in the co_await). ShellArgv keeps a reference: argv outlives it.
        const std::vector<std::string> argv = Getprop();
        auto read_getprop =
            client.ShellArgv(*parsed_serial, argv, adb::DeadlineAfter(options.getprop_timeout));
        auto r = co_await std::move(read_getprop);
        if (!r) {
          props = "getprop failed: " + std::string(adb::ErrcName(r.error().code)) + ": " +
                  r.error().message;
        } else if (r->exit_code && *r->exit_code != 0) {
          props = "getprop exited with " + std::to_string(*r->exit_code) + ": " + r->err;
        } else {
          props = DevicePropertiesFromGetprop(r->out);
        }
      }
      if (stopping) co_return;
      store::Device device;
      DeviceSnapshot read;  // published once recorded: the model and SDK are known now
      {
        std::lock_guard lock(mutex);
        auto it = devices.find(serial);
        if (it == devices.end()) co_return;
        Entry& e = it->second;
        if (e.reread) continue;  // changed meanwhile (replug): this read may be of the old one
        if (e.snapshot.state != kDeviceState) co_return;  // gone: read again when it is back
        if (props) {
          e.snapshot.properties = *props;
          e.snapshot.properties_error.reset();
        } else {
          e.snapshot.properties_error = props.error();
        }
        e.snapshot.last_seen = options.now_ms();
        device = ToStoreDevice(e.snapshot);
        read = e.snapshot;
      }
      if (!props) {
        options.log(serial + ": properties not read (state kept, retried on its next change): " +
                    props.error());
      }
      co_await Upsert(std::move(device));
      listeners.Emit(read);
      if (options.on_online && !stopping) {
        auto online = options.on_online(serial);
        co_await std::move(online);
      }
      co_return;
    }
  }

  asio::any_io_executor client_executor;
};

DeviceRegistry::DeviceRegistry(adb::Client& client, store::Store& store,
                               DeviceRegistryOptions options)
    : impl_(std::make_shared<Impl>(client, store, std::move(options))) {}

DeviceRegistry::~DeviceRegistry() = default;

asio::awaitable<adb::Result<void>> DeviceRegistry::Run() {
  std::shared_ptr<Impl> impl = impl_;
  impl->client_executor = co_await asio::this_coro::executor;
  co_await asio::this_coro::throw_if_cancelled(false);
  // The list poll beside the stream (DeviceRegistryOptions::list_poll), cancelled with Run.
  auto poll_stop = std::make_shared<asio::cancellation_signal>();
  if (impl->options.list_poll.count() > 0) {
    impl->polling = true;
    asio::co_spawn(impl->client_executor, Impl::PollList(impl),
                   asio::bind_cancellation_slot(poll_stop->slot(), asio::detached));
  }
  // Named, not a temporary in the co_await (see store/async_store.h).
  adb::DeviceListSink sink = [impl](const adb::DeviceListUpdate& update) -> asio::awaitable<bool> {
    co_await impl->HandleUpdate(update);
    co_return true;
  };
  adb::Result<void> result = co_await impl->client.TrackDevices(std::move(sink));
  co_await asio::this_coro::reset_cancellation_state();
  impl->stopping = true;
  poll_stop->emit(asio::cancellation_type::terminal);
  while (impl->polling) {
    auto pause = std::make_shared<asio::steady_timer>(impl->client_executor,
                                                      std::chrono::milliseconds(20));
    boost::system::error_code ec;
    co_await pause->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  std::vector<std::shared_ptr<asio::cancellation_signal>> reads;
  {
    std::lock_guard lock(impl->mutex);
    for (auto& [serial, e] : impl->devices) {
      if (e.read_cancel) reads.push_back(e.read_cancel);
    }
  }
  for (auto& signal : reads) signal->emit(asio::cancellation_type::terminal);
  while (impl->reads_in_flight > 0) {
    impl->reads_done = std::make_shared<asio::steady_timer>(impl->client_executor,
                                                            std::chrono::milliseconds(100));
    boost::system::error_code ec;
    co_await impl->reads_done->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  impl->reads_done.reset();
  co_return result;
}

std::vector<DeviceSnapshot> DeviceRegistry::Snapshot() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<DeviceSnapshot> out;
  out.reserve(impl_->devices.size());
  for (const auto& [serial, e] : impl_->devices) out.push_back(e.snapshot);
  return out;
}

std::optional<DeviceSnapshot> DeviceRegistry::Find(std::string_view serial) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->devices.find(serial);
  if (it == impl_->devices.end()) return std::nullopt;
  return it->second.snapshot;
}

uint64_t DeviceRegistry::Subscribe(std::function<void(const DeviceSnapshot&)> listener) {
  return impl_->listeners.Add(std::move(listener));
}

void DeviceRegistry::Unsubscribe(uint64_t id) { impl_->listeners.Remove(id); }

uint64_t DeviceRegistry::updates_handled() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->updates;
}

}  // namespace droidlab::orchestrator
