// DeviceRegistry against the real adb server (private port) with a droidlab-devsim device and a
// real SQLite file: a connected device is recorded with its properties and state `device`;
// `adb disconnect` records `disconnected` with a state-change row; reconnecting records
// `device` again and keeps first_seen; each change is pushed to the registry's listeners (the
// API's event stream), not found by polling. A device an earlier daemon left stored as `device`
// that adb does not list is `disconnected` once the registry has adb's first list.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "adb/client.h"
#include "orchestrator/lab/device_registry.h"
#include "store/store.h"
#include "tests/common/test_store.h"
#include "tests/common/adb_lab.h"
#include "tests/common/temp_dir.h"
#include "tests/common/wait_until.h"

namespace droidlab::testutil {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

class DeviceRegistryE2eTest : public AdbLabTest {
 protected:
  adb::ClientOptions Options() const {
    adb::ClientOptions options;
    options.server.port = static_cast<uint16_t>(server_.port());
    options.adb_path = AdbPath();
    options.reconnect_initial_delay = milliseconds(50);
    return options;
  }

  std::optional<store::Device> StoredDevice(store::Store& st, const std::string& serial) {
    auto d = st.Read([&](store::Reader& r) { return r.GetDevice(serial); });
    if (!d) return std::nullopt;
    return *d;
  }
  std::vector<store::DeviceStateChange> StoredChanges(store::Store& st, const std::string& serial) {
    auto c = st.Read([&](store::Reader& r) { return r.ListDeviceStateChanges(serial); });
    if (!c) return {};
    return *c;
  }
};

// The registry on its own io thread, stopped (cancelled, awaited) at the end of the test.
class RunningRegistry {
 public:
  RunningRegistry(adb::ClientOptions options, store::Store& st,
                  orchestrator::DeviceRegistryOptions registry_options = {})
      : work_(asio::make_work_guard(io_)),
        client_(io_.get_executor(), std::move(options)),
        registry_(client_, st, std::move(registry_options)) {
    asio::co_spawn(io_, registry_.Run(),
                   asio::bind_cancellation_slot(
                       cancel_.slot(), [this](std::exception_ptr e, adb::Result<void>) {
                         EXPECT_FALSE(e);
                         ended_ = true;
                       }));
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RunningRegistry() {
    asio::post(io_, [this] { cancel_.emit(asio::cancellation_type::terminal); });
    EXPECT_TRUE(WaitUntil([this] { return ended_.load(); }, seconds(15)))
        << "Run() did not end after cancellation";
    work_.reset();
    if (!ended_) io_.stop();
    thread_.join();
  }
  orchestrator::DeviceRegistry& registry() { return registry_; }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  adb::Client client_;
  orchestrator::DeviceRegistry registry_;
  asio::cancellation_signal cancel_;
  std::atomic<bool> ended_{false};
  std::thread thread_;
};

// Several hosts on one store (issue 17 §2): a registry records the devices its adb lists as its
// host's, and at start-up disconnects only its own host's phones (and those of no host) that adb
// does not list — another host's phone is that host's adb server's to judge.
TEST_F(DeviceRegistryE2eTest, AtStartOnlyThisHostsUnlistedDevicesAreDisconnected) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string present = devices[0].address;
  WaitForDevice(server_, present);
  const std::string mine = "192.0.2.7:5555";  // TEST-NET-1: adb never lists them
  const std::string theirs = "192.0.2.8:5555";
  for (const auto& [serial, host] : {std::pair<std::string, std::string>{mine, "lab-a"},
                                     std::pair<std::string, std::string>{theirs, "lab-b"}}) {
    store::Device device;
    device.serial = serial;
    device.state = "device";
    device.first_seen = 1000;
    device.last_seen = 2000;
    device.host = host;
    ASSERT_TRUE(st->UpsertDevice(device).ok());
  }
  ASSERT_TRUE(st->Flush().ok());

  orchestrator::DeviceRegistryOptions options;
  options.host = "lab-a";
  RunningRegistry running(Options(), *st, options);
  EXPECT_TRUE(WaitUntil(
      [&] {
        auto d = StoredDevice(*st, mine);
        return d && d->state == "disconnected";
      },
      seconds(20)));
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto d = StoredDevice(*st, present);
        return d && d->state == "device" && d->fingerprint;
      },
      seconds(20)));
  EXPECT_EQ(StoredDevice(*st, present)->host, "lab-a") << "the phone this host's adb lists";
  ASSERT_TRUE(st->Flush().ok());
  EXPECT_EQ(StoredDevice(*st, theirs)->state, "device") << "another host's phone is left alone";
  EXPECT_TRUE(StoredChanges(*st, theirs).empty());
}

// A device an earlier daemon left stored as `device` that adb does not list (the phones of a
// previous session) is `disconnected` once the registry has adb's first list, with a state
// change; a stored device adb does list is left as it is.
TEST_F(DeviceRegistryE2eTest, AStoredDeviceAdbDoesNotListIsDisconnectedAtStart) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string present = devices[0].address;
  WaitForDevice(server_, present);
  const std::string gone = "192.0.2.7:5555";  // TEST-NET-1: adb never lists it
  for (const std::string& serial : {gone, present}) {
    store::Device device;
    device.serial = serial;
    device.model = "Pixel 6";
    device.state = "device";
    device.first_seen = 1000;
    device.last_seen = 2000;
    ASSERT_TRUE(st->UpsertDevice(device).ok());
    ASSERT_TRUE(st->RecordDeviceState(store::DeviceStateChange{serial, "device", 1000}).ok());
  }
  ASSERT_TRUE(st->Flush().ok());

  RunningRegistry running(Options(), *st);
  EXPECT_TRUE(WaitUntil(
      [&] {
        auto d = StoredDevice(*st, gone);
        return d && d->state == "disconnected";
      },
      seconds(20)))
      << "a device adb does not list is still stored as "
      << (StoredDevice(*st, gone) ? StoredDevice(*st, gone)->state : "?");
  const auto changes = StoredChanges(*st, gone);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes.back().state, "disconnected");
  EXPECT_GT(changes.back().changed_at, 2000);
  const auto stored = StoredDevice(*st, gone);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->model, "Pixel 6");  // what was known of it is kept
  EXPECT_EQ(stored->first_seen, 1000);

  // The one adb lists is read and stays `device`, never marked disconnected on the way.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto d = StoredDevice(*st, present);
        return d && d->state == "device" && d->fingerprint;
      },
      seconds(20)));
  for (const auto& change : StoredChanges(*st, present)) {
    EXPECT_NE(change.state, "disconnected");
  }
  EXPECT_FALSE(running.registry().Find(gone));  // not tracked: adb does not know it
}

TEST_F(DeviceRegistryE2eTest, RecordsConnectDisconnectAndReconnect) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);

  RunningRegistry running(Options(), *st);
  auto& registry = running.registry();

  const auto devices = StartDevsim({"--port", "0", "--fast"});
  ASSERT_EQ(devices.size(), 1u);
  const std::string address = devices[0].address;
  WaitForDevice(server_, address);
  // What devsim says about itself, through adb's own client.
  const std::string model = Trim(Shell(devices[0], "getprop ro.product.model").out);
  const std::string sdk = Trim(Shell(devices[0], "getprop ro.build.version.sdk").out);
  const std::string fingerprint = Trim(Shell(devices[0], "getprop ro.build.fingerprint").out);
  const std::string manufacturer = Trim(Shell(devices[0], "getprop ro.product.manufacturer").out);
  ASSERT_FALSE(model.empty());
  ASSERT_FALSE(fingerprint.empty());

  // Connected: listed with its properties and state `device`.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto list = st->Read([](store::Reader& r) { return r.ListDevices(); });
        if (!list) return false;
        for (const auto& d : *list) {
          if (d.serial == address && d.state == "device" && d.fingerprint) return true;
        }
        return false;
      },
      seconds(20)))
      << "the device was never stored with its properties";
  const auto first = StoredDevice(*st, address);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->model, model);
  EXPECT_EQ(first->manufacturer, manufacturer);
  EXPECT_EQ(first->sdk, std::stoll(sdk));
  EXPECT_EQ(first->fingerprint, fingerprint);
  EXPECT_GT(first->first_seen, 0);
  const auto snap = registry.Find(address);
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->state, "device");
  ASSERT_TRUE(snap->properties);
  EXPECT_EQ(snap->properties->serialno, devices[0].serial);
  EXPECT_FALSE(snap->properties_error);
  {
    const auto changes = StoredChanges(*st, address);
    ASSERT_FALSE(changes.empty());
    EXPECT_EQ(changes.back().state, "device");
  }

  // Unplugged: `disconnected`, with its state-change row.
  server_.Adb({"disconnect", address});
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto d = StoredDevice(*st, address);
        const auto changes = StoredChanges(*st, address);
        return d && d->state == "disconnected" && !changes.empty() &&
               changes.back().state == "disconnected";
      },
      seconds(20)))
      << "the disconnect was never recorded";
  EXPECT_EQ(registry.Find(address)->state, "disconnected");
  // Properties are kept while it is away.
  EXPECT_EQ(StoredDevice(*st, address)->fingerprint, fingerprint);

  // Replugged: `device` again, first_seen unchanged.
  const auto connect = server_.Adb({"connect", address});
  EXPECT_NE(connect.out.find("connected to " + address), std::string::npos) << connect.out;
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto d = StoredDevice(*st, address);
        const auto changes = StoredChanges(*st, address);
        return d && d->state == "device" && changes.size() >= 3 &&
               changes.back().state == "device";
      },
      seconds(25)))
      << "the reconnect was never recorded";
  const auto again = StoredDevice(*st, address);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->first_seen, first->first_seen);
  EXPECT_GE(again->last_seen, first->last_seen);
  EXPECT_EQ(again->model, model);
  const auto changes = StoredChanges(*st, address);
  std::vector<std::string> states;
  for (const auto& c : changes) states.push_back(c.state);
  // Every change recorded, in order (adb may show transient states such as `offline` between).
  ASSERT_GE(states.size(), 3u);
  EXPECT_EQ(states.front() == "device" || states.front() == "offline" ||
                states.front() == "connecting",
            true);
  EXPECT_NE(std::find(states.begin(), states.end(), "disconnected"), states.end());
  EXPECT_EQ(states.back(), "device");
  // The properties are read again after the reconnect (a replug may bring another build).
  ASSERT_TRUE(WaitUntil([&] { return registry.Find(address)->property_reads >= 2; }, seconds(10)));
}

TEST_F(DeviceRegistryE2eTest, SnapshotFollowsTheStoreAndGetpropIsParsed) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  RunningRegistry running(Options(), *st);

  const auto devices = StartDevsim({"--port", "0", "--fast"}, 1);
  ASSERT_EQ(devices.size(), 1u);
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto d = StoredDevice(*st, devices[0].address);
        return d && d->state == "device" && d->model;
      },
      seconds(20)));
  EXPECT_EQ(running.registry().Snapshot().size(), 1u);
  EXPECT_GE(running.registry().updates_handled(), 1u);

  auto props = orchestrator::DevicePropertiesFromGetprop(
      "[ro.build.version.sdk]: [33]\n[ro.product.model]: [Pixel 7]\n[ro.serialno]: []\n");
  ASSERT_TRUE(props.ok());
  EXPECT_EQ(props->sdk, 33);
  EXPECT_EQ(props->model, "Pixel 7");
  EXPECT_FALSE(props->serialno);  // empty is absent
  EXPECT_FALSE(orchestrator::DevicePropertiesFromGetprop("sh: getprop: not found\n").ok());
}

TEST_F(DeviceRegistryE2eTest, PublishesEachChangeToItsListeners) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  RunningRegistry running(Options(), *st);
  std::mutex mutex;
  std::vector<orchestrator::DeviceSnapshot> events;
  const uint64_t listener =
      running.registry().Subscribe([&](const orchestrator::DeviceSnapshot& device) {
        std::lock_guard lock(mutex);
        events.push_back(device);
      });
  auto seen = [&](const std::string& state, bool with_model) {
    std::lock_guard lock(mutex);
    return std::any_of(events.begin(), events.end(), [&](const auto& e) {
      return e.state == state && (!with_model || (e.properties && e.properties->model));
    });
  };

  const auto devices = StartDevsim({"--port", "0", "--fast"}, 1);
  ASSERT_EQ(devices.size(), 1u);
  const std::string address = devices[0].address;
  ASSERT_TRUE(WaitUntil([&] { return seen("device", true); }, seconds(20)))
      << "no event for the connected device with its properties";

  server_.Adb({"disconnect", address});
  ASSERT_TRUE(WaitUntil([&] { return seen("disconnected", false); }, seconds(20)))
      << "no event for the disconnect";

  // Unsubscribed: the reconnect reaches no one.
  running.registry().Unsubscribe(listener);
  size_t before;
  {
    std::lock_guard lock(mutex);
    before = events.size();
  }
  server_.Adb({"connect", address});
  ASSERT_TRUE(WaitUntil([&] { return running.registry().Find(address)->state == "device"; },
                        seconds(25)));
  std::lock_guard lock(mutex);
  EXPECT_EQ(events.size(), before);
}

// A network phone pulled out (devsim's `unplug`: its port refuses; adb 29 lists it `offline` and
// retries every 10 s) is `offline` in the registry and the store within a poll of adb's list:
// adb 29's track-devices never says so (its trackers hear of a transport registered or removed,
// not of one whose connection broke), so without the poll the registry kept it `device`.
TEST_F(DeviceRegistryE2eTest, APhonePulledOutIsOfflineWithinAPollOfAdbsList) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  orchestrator::DeviceRegistryOptions options;
  options.list_poll = milliseconds(500);
  RunningRegistry running(Options(), *st, options);
  auto& registry = running.registry();
  const auto devices = StartDevsim({"--port", "0", "--count", "2", "--fast"}, 2);
  ASSERT_EQ(devices.size(), 2u);
  for (const auto& d : devices) WaitForDevice(server_, d.address);
  const std::string pulled = devices[0].address;
  const std::string beside = devices[1].address;
  auto state_of = [&](const std::string& serial) {
    auto found = registry.Find(serial);
    return found ? found->state : std::string("?");
  };
  ASSERT_TRUE(WaitUntil([&] { return state_of(pulled) == "device"; }, seconds(20)));

  EXPECT_EQ(Shell(devices[0], "devsim-fault unplug 60000").exit_code, 0);
  ASSERT_TRUE(WaitUntil(
      [&] { return server_.Adb({"devices"}).out.find(pulled + "\toffline") != std::string::npos; },
      seconds(10), milliseconds(100)));
  EXPECT_TRUE(WaitUntil([&] { return state_of(pulled) == "offline"; }, seconds(5)))
      << "adb lists it offline, the registry says " << state_of(pulled);
  EXPECT_TRUE(WaitUntil(
      [&] {
        auto stored = StoredDevice(*st, pulled);
        return stored && stored->state == "offline";
      },
      seconds(5)));
  const auto changes = StoredChanges(*st, pulled);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back().state, "offline");
  EXPECT_EQ(state_of(beside), "device");
}

}  // namespace
}  // namespace droidlab::testutil
