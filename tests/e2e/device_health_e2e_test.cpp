// Fleet health (issue 17 §3) against the real adb server (Debian's adb 29, private port), devsim
// phones and a real SQLite file: DeviceHealthMonitor's checks are stored with the battery and
// thermal readings `dumpsys` prints (frameworks/base BatteryService.java, ThermalManagerService's
// dump, as devsim prints them for Android 13), and a phone that stops answering climbs the
// recovery ladder (orchestrator/lab/device_recovery.h) one rung at a time — the adb server's
// `reconnect` for that phone's transport (adb.cpp handle_host_request, then `adb connect` again:
// adb 29 drops a network phone's transport for good on it), adbd's `reconnect` service
// (packages/modules/adb/daemon/services.cpp reconnect_service), `reboot:` when allowed — and is
// quarantined when none brings it back, until released. The other phones on the same adb server
// keep their transport: nothing kills the server. A phone pulled out (its port refusing) climbs the
// ladder too, and is quarantined.
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
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "adb/client.h"
#include "orchestrator/lab/device_health.h"
#include "orchestrator/lab/device_registry.h"
#include "store/store.h"
#include "tests/common/adb_lab.h"
#include "tests/common/temp_dir.h"
#include "tests/common/test_store.h"
#include "tests/common/wait_until.h"

namespace droidlab::testutil {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The registry and the monitor on their own io thread, as the daemon runs them; stopped
// (cancelled, awaited) at the end of the test.
class RunningMonitor {
 public:
  RunningMonitor(adb::ClientOptions client_options, store::Store& st,
                 orchestrator::DeviceHealthOptions options,
                 orchestrator::DeviceRegistryOptions registry_options = {})
      : work_(asio::make_work_guard(io_)),
        client_(io_.get_executor(), Counted(client_options)),
        registry_(client_, st, std::move(registry_options)),
        monitor_(client_, st, registry_, WithTally(std::move(options))) {
    asio::co_spawn(io_, registry_.Run(),
                   asio::bind_cancellation_slot(stop_registry_.slot(),
                                                [this](std::exception_ptr e, adb::Result<void>) {
                                                  EXPECT_FALSE(e);
                                                  registry_ended_ = true;
                                                }));
    asio::co_spawn(io_, monitor_.Run(),
                   asio::bind_cancellation_slot(stop_monitor_.slot(), [this](std::exception_ptr e) {
                     EXPECT_FALSE(e);
                     monitor_ended_ = true;
                   }));
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RunningMonitor() {
    asio::post(io_, [this] { stop_monitor_.emit(asio::cancellation_type::terminal); });
    EXPECT_TRUE(WaitUntil([this] { return monitor_ended_.load(); }, seconds(40)))
        << "the monitor's Run() did not end after cancellation";
    asio::post(io_, [this] { stop_registry_.emit(asio::cancellation_type::terminal); });
    EXPECT_TRUE(WaitUntil([this] { return registry_ended_.load(); }, seconds(15)));
    work_.reset();
    if (!monitor_ended_ || !registry_ended_) io_.stop();
    thread_.join();
  }
  orchestrator::DeviceHealthMonitor& monitor() { return monitor_; }
  orchestrator::AdbCommandTally& tally() { return tally_; }

 private:
  adb::ClientOptions Counted(adb::ClientOptions options) {
    options.on_device_command = [this](std::string_view serial, std::string_view,
                                       adb::Clock::duration elapsed, bool ok) {
      tally_.Count(serial, elapsed, ok);
    };
    return options;
  }
  orchestrator::DeviceHealthOptions WithTally(orchestrator::DeviceHealthOptions options) {
    options.tally = &tally_;
    return options;
  }

  orchestrator::AdbCommandTally tally_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  adb::Client client_;
  orchestrator::DeviceRegistry registry_;
  orchestrator::DeviceHealthMonitor monitor_;
  asio::cancellation_signal stop_registry_, stop_monitor_;
  std::atomic<bool> registry_ended_{false}, monitor_ended_{false};
  std::thread thread_;
};

class DeviceHealthE2eTest : public AdbLabTest {
 protected:
  adb::ClientOptions ClientOptions() const {
    adb::ClientOptions options;
    options.server.port = static_cast<uint16_t>(server_.port());
    options.adb_path = AdbPath();
    options.reconnect_initial_delay = milliseconds(50);
    return options;
  }

  // Checks a second apart, short probes: a test's ladder climbs in seconds, not minutes.
  static orchestrator::DeviceHealthOptions FastOptions() {
    orchestrator::DeviceHealthOptions options;
    options.host = "lab-a";
    options.interval = milliseconds(1000);
    options.quarantine_sync = milliseconds(300);
    options.recovery.probe_timeout = milliseconds(2000);
    options.recovery.settle_timeout = milliseconds(5000);
    // devsim's reboot: 3 s off the wire, then adb 29 retries a network phone every 10 s.
    options.recovery.boot_timeout = milliseconds(25000);
    return options;
  }

  static std::vector<store::DeviceEvent> Events(store::Store& st, const std::string& serial) {
    auto events = st.Read([&](store::Reader& r) { return r.ListDeviceEvents(serial, 100); });
    if (!events) return {};
    std::vector<store::DeviceEvent> oldest_first(events->rbegin(), events->rend());
    return oldest_first;
  }
  static std::vector<std::string> Kinds(const std::vector<store::DeviceEvent>& events) {
    std::vector<std::string> kinds;
    for (const auto& e : events) kinds.push_back(e.kind);
    return kinds;
  }
  static std::string Listed(const std::vector<store::DeviceEvent>& events) {
    std::string text;
    for (const auto& e : events) text += "  " + e.kind + ": " + e.detail + "\n";
    return text;
  }
  static bool Has(const std::vector<store::DeviceEvent>& events, const std::string& kind) {
    return std::any_of(events.begin(), events.end(),
                       [&](const store::DeviceEvent& e) { return e.kind == kind; });
  }

  // The transport_id adb gives the phone now ("" when it does not list it): a new one means its
  // transport was dropped and made again.
  std::string TransportId(const std::string& address) const {
    const auto listed = server_.Adb({"devices", "-l"});
    std::smatch m;
    const std::regex line(std::regex_replace(address, std::regex(R"([.])"), R"(\.)") +
                          R"(\s+device\s.*transport_id:(\d+))");
    if (std::regex_search(listed.out, m, line)) return m[1];
    return "";
  }
};

// Three phones on one adb server: one whose host side stopped moving bytes (a new connection
// clears it), one whose adbd must drop its end (only adbd's `reconnect` clears it), one healthy.
// Each wedged phone climbs exactly as far as it must, in order, and answers again; the healthy
// phone keeps its transport and answers every check; the checks are stored with the battery,
// thermal and adb figures.
TEST_F(DeviceHealthE2eTest, EachWedgedPhoneClimbsOnlyAsFarAsItMustAndTheOthersAreUntouched) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  const auto phones = StartDevsim({"--port", "0", "--count", "3", "--fast"}, 3);
  ASSERT_EQ(phones.size(), 3u);
  for (const auto& p : phones) WaitForDevice(server_, p.address);
  const auto& host_side = phones[0];
  const auto& adbd_side = phones[1];
  const auto& healthy = phones[2];
  const std::string healthy_transport = TransportId(healthy.address);
  ASSERT_FALSE(healthy_transport.empty());

  RunningMonitor running(ClientOptions(), *st, FastOptions());
  // The first checks are stored (every phone answers) before anything goes wrong.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto samples = st->Read(
            [&](store::Reader& r) { return r.ListDeviceHealth(healthy.address, 0, 10); });
        return samples && !samples->empty();
      },
      seconds(20)));
  EXPECT_EQ(Shell(host_side, "devsim-fault wedge transport").out, "wedged until transport\n");
  EXPECT_EQ(Shell(adbd_side, "devsim-fault wedge device").out, "wedged until device\n");

  auto recovered = [&](const std::string& serial) { return Has(Events(*st, serial), "recovered"); };
  ASSERT_TRUE(WaitUntil([&] { return recovered(host_side.address) && recovered(adbd_side.address); },
                        seconds(60), milliseconds(200)))
      << "host side:\n" << Listed(Events(*st, host_side.address)) << "adbd side:\n"
      << Listed(Events(*st, adbd_side.address));

  const auto host_events = Events(*st, host_side.address);
  EXPECT_EQ(Kinds(host_events),
            (std::vector<std::string>{"unresponsive", "reconnect_transport", "recovered"}))
      << Listed(host_events);
  const auto adbd_events = Events(*st, adbd_side.address);
  EXPECT_EQ(Kinds(adbd_events), (std::vector<std::string>{"unresponsive", "reconnect_transport",
                                                           "reconnect_device", "recovered"}))
      << Listed(adbd_events);
  EXPECT_NE(adbd_events.back().detail.find("after reconnect_device"), std::string::npos);
  EXPECT_EQ(host_events.front().host, "lab-a");

  // Both answer shells again, as far as adb's own client can tell.
  for (const auto* phone : {&host_side, &adbd_side}) {
    EXPECT_TRUE(WaitUntil(
        [&] { return Shell(*phone, "cat /proc/uptime").out.find('.') != std::string::npos; },
        seconds(10), milliseconds(250)))
        << phone->address;
  }
  // The healthy phone: same transport (nothing killed the server or kicked it), no event, every
  // check answered, with the readings an idle phone's checks take.
  EXPECT_EQ(TransportId(healthy.address), healthy_transport);
  EXPECT_TRUE(Events(*st, healthy.address).empty()) << Listed(Events(*st, healthy.address));
  auto samples =
      st->Read([&](store::Reader& r) { return r.ListDeviceHealth(healthy.address, 0, 100); });
  ASSERT_TRUE(samples);
  ASSERT_GE(samples->size(), 2u);
  for (const auto& s : *samples) {
    EXPECT_TRUE(s.uptime_ms) << "a check of the healthy phone went unanswered at " << s.at;
    EXPECT_EQ(s.host, "lab-a");
    EXPECT_TRUE(s.battery_level && *s.battery_level >= 0 && *s.battery_level <= 100);
    EXPECT_TRUE(s.battery_temp && *s.battery_temp > 100 && *s.battery_temp < 600);
    EXPECT_TRUE(s.thermal_status && *s.thermal_status >= 0 && *s.thermal_status <= 6);
    EXPECT_GE(s.adb_commands, 3) << "a check is three commands: uptime, battery, thermal";
    EXPECT_EQ(s.adb_errors, 0);
  }
  // The wedged phones' unanswered checks are samples without an uptime, their failed commands
  // counted.
  auto wedged = st->Read(
      [&](store::Reader& r) { return r.ListDeviceHealth(host_side.address, 0, 100); });
  ASSERT_TRUE(wedged);
  EXPECT_TRUE(std::any_of(wedged->begin(), wedged->end(), [](const auto& s) {
    return !s.uptime_ms && s.adb_errors >= 1;
  }));

  const auto snapshot = running.monitor().Snapshot();
  for (const auto& s : snapshot) {
    if (s.serial == adbd_side.address) {
      EXPECT_EQ(s.transport_reconnects, 1u);
      EXPECT_EQ(s.device_reconnects, 1u);
      EXPECT_EQ(s.reboot_requests, 0u);
      EXPECT_FALSE(s.quarantined_at);
    }
    if (s.serial == healthy.address) {
      EXPECT_EQ(s.unanswered_checks, 0u);
      EXPECT_EQ(s.transport_reconnects, 0u);
      EXPECT_TRUE(s.battery_level);
    }
  }
  const auto totals = running.tally().Totals();
  ASSERT_TRUE(totals.count(host_side.address));
  EXPECT_GE(totals.at(host_side.address).errors, 1u);
  EXPECT_EQ(totals.at(healthy.address).errors, 0u);
}

// A phone only a reboot clears is rebooted when the config allows it, comes back, and the
// reboot is seen (its uptime went back); a phone nothing clears is rebooted too, then
// quarantined with the rungs it climbed, and stays out until it is released — then it is
// checked again at once.
TEST_F(DeviceHealthE2eTest, ARebootIsTheLastRungAndAPhoneItDoesNotHelpIsQuarantinedUntilReleased) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  const auto phones = StartDevsim({"--port", "0", "--count", "2", "--fast"}, 2);
  ASSERT_EQ(phones.size(), 2u);
  for (const auto& p : phones) WaitForDevice(server_, p.address);
  const auto& rebootable = phones[0];
  const auto& dead = phones[1];

  auto options = FastOptions();
  options.recovery.allow_reboot = true;
  RunningMonitor running(ClientOptions(), *st, options);
  // Both answered a check first: a reboot is seen against the uptime the last check read.
  for (const auto* phone : {&rebootable, &dead}) {
    ASSERT_TRUE(WaitUntil(
        [&] {
          auto samples =
              st->Read([&](store::Reader& r) { return r.ListDeviceHealth(phone->address, 0, 10); });
          return samples && !samples->empty() && samples->front().uptime_ms;
        },
        seconds(20)));
  }
  EXPECT_EQ(Shell(rebootable, "devsim-fault wedge reboot").out, "wedged until reboot\n");
  EXPECT_EQ(Shell(dead, "devsim-fault wedge never").out, "wedged until never\n");

  ASSERT_TRUE(WaitUntil(
      [&] {
        return Has(Events(*st, rebootable.address), "recovered") &&
               Has(Events(*st, dead.address), "quarantined");
      },
      seconds(110), milliseconds(250)))
      << "rebootable:\n" << Listed(Events(*st, rebootable.address)) << "dead:\n"
      << Listed(Events(*st, dead.address));
  const auto rebooted = Events(*st, rebootable.address);
  auto kinds = Kinds(rebooted);
  kinds.resize(std::min<size_t>(kinds.size(), 5));  // the next check may have added "rebooted"
  EXPECT_EQ(kinds, (std::vector<std::string>{"unresponsive", "reconnect_transport",
                                             "reconnect_device", "reboot", "recovered"}))
      << Listed(rebooted);
  // The next check sees the uptime went back.
  EXPECT_TRUE(WaitUntil([&] { return Has(Events(*st, rebootable.address), "rebooted"); },
                        seconds(10)))
      << Listed(Events(*st, rebootable.address));

  const auto dead_events = Events(*st, dead.address);
  EXPECT_EQ(Kinds(dead_events).back(), "quarantined") << Listed(dead_events);
  EXPECT_TRUE(Has(dead_events, "reboot"));
  EXPECT_FALSE(Has(dead_events, "recovered"));
  auto stored = st->Read([&](store::Reader& r) { return r.GetDevice(dead.address); });
  ASSERT_TRUE(stored);
  ASSERT_TRUE(stored->quarantined_at);
  EXPECT_NE(stored->quarantine_reason->find("reconnect_transport, reconnect_device, reboot"),
            std::string::npos)
      << *stored->quarantine_reason;
  EXPECT_TRUE(running.monitor().Quarantined(dead.address));
  EXPECT_FALSE(running.monitor().Quarantined(rebootable.address));

  // Quarantined: not checked (no new sample) while out.
  const auto count_samples = [&](const std::string& serial) -> size_t {
    auto samples = st->Read([&](store::Reader& r) { return r.ListDeviceHealth(serial, 0, 10000); });
    return samples ? samples->size() : 0;
  };
  const size_t before = count_samples(dead.address);
  std::this_thread::sleep_for(milliseconds(2500));
  EXPECT_EQ(count_samples(dead.address), before);

  // The operator fixes the phone and releases it (here through the store, as the API does).
  EXPECT_EQ(Shell(dead, "devsim-fault clear").exit_code, 0);
  store::DeviceEvent release;
  release.serial = dead.address;
  release.host = "lab-a";
  release.at = 1;
  release.kind = "released";
  release.detail = "released by test";
  ASSERT_TRUE(st->ReleaseDevice(release).ok());
  EXPECT_TRUE(WaitUntil([&] { return !running.monitor().Quarantined(dead.address); }, seconds(5)));
  EXPECT_TRUE(WaitUntil(
      [&] {
        auto samples =
            st->Read([&](store::Reader& r) { return r.ListDeviceHealth(dead.address, 0, 1); });
        return samples && !samples->empty() && samples->front().uptime_ms &&
               samples->size() == 1 && count_samples(dead.address) > before;
      },
      seconds(10)))
      << "a released phone is checked again";
}

// A phone pulled out (devsim's `unplug`: its port refuses connections; adb 29 keeps the
// transport, lists it `offline` and retries every 10 s) climbs the ladder: both reconnects (no
// reboot: not allowed) fail, and it is quarantined with the reason; the phone beside it is
// untouched. What starts the ladder is whichever comes first: its check's "device offline", or
// the registry hearing it `offline` (a poll of adb's list: adb 29's track-devices does not tell
// it, DeviceRegistryOptions::list_poll) for a whole check interval.
TEST_F(DeviceHealthE2eTest, APhonePulledOutClimbsTheLadderAndIsQuarantined) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  const auto phones = StartDevsim({"--port", "0", "--count", "2", "--fast"}, 2);
  ASSERT_EQ(phones.size(), 2u);
  for (const auto& p : phones) WaitForDevice(server_, p.address);
  const auto& pulled = phones[0];
  const auto& beside = phones[1];
  const std::string beside_transport = TransportId(beside.address);

  RunningMonitor running(ClientOptions(), *st, FastOptions());
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto samples =
            st->Read([&](store::Reader& r) { return r.ListDeviceHealth(pulled.address, 0, 10); });
        return samples && !samples->empty() && samples->front().uptime_ms;
      },
      seconds(20)));
  EXPECT_EQ(Shell(pulled, "devsim-fault unplug 60000").exit_code, 0);

  ASSERT_TRUE(WaitUntil([&] { return Has(Events(*st, pulled.address), "quarantined"); },
                        seconds(45), milliseconds(250)))
      << Listed(Events(*st, pulled.address));
  const auto events = Events(*st, pulled.address);
  // Each rung that fails is recorded as taken, then as failed.
  EXPECT_EQ(Kinds(events),
            (std::vector<std::string>{"unresponsive", "reconnect_transport", "reconnect_transport",
                                      "reconnect_device", "reconnect_device", "quarantined"}))
      << Listed(events);
  EXPECT_NE(events.front().detail.find("offline"), std::string::npos) << events.front().detail;
  EXPECT_NE(events.back().detail.find("reboots not allowed"), std::string::npos)
      << events.back().detail;
  EXPECT_TRUE(running.monitor().Quarantined(pulled.address));
  EXPECT_FALSE(running.monitor().Quarantined(beside.address));
  EXPECT_TRUE(Events(*st, beside.address).empty()) << Listed(Events(*st, beside.address));
  EXPECT_EQ(TransportId(beside.address), beside_transport);
}

// The other trigger alone: a phone adb has listed `offline` for a whole check interval climbs the
// ladder though no check of it failed. adb's list is read every second here and the checks are
// 6 s apart, so after the pull the registry hears `offline` seconds before the next check is due,
// and a phone not listed `device` is not checked: only the offline trigger can start the ladder.
TEST_F(DeviceHealthE2eTest, APhoneListedOfflineForAWholeIntervalClimbsTheLadderUnchecked) {
  TempDir dir;
  std::unique_ptr<store::Store> st = OpenTestStore(dir, "lab.db");
  ASSERT_TRUE(st);
  const auto phones = StartDevsim({"--port", "0", "--count", "1", "--fast"}, 1);
  ASSERT_EQ(phones.size(), 1u);
  const auto& pulled = phones[0];
  WaitForDevice(server_, pulled.address);

  orchestrator::DeviceHealthOptions options = FastOptions();
  options.interval = milliseconds(6000);
  orchestrator::DeviceRegistryOptions registry_options;
  registry_options.list_poll = milliseconds(1000);
  RunningMonitor running(ClientOptions(), *st, options, registry_options);
  auto samples = [&] {
    auto read =
        st->Read([&](store::Reader& r) { return r.ListDeviceHealth(pulled.address, 0, 10); });
    return read ? *read : std::vector<store::DeviceHealthSample>{};
  };
  ASSERT_TRUE(
      WaitUntil([&] { return !samples().empty() && samples().front().uptime_ms; }, seconds(20)));
  const size_t checks_before_the_pull = samples().size();
  EXPECT_EQ(Shell(pulled, "devsim-fault unplug 60000").exit_code, 0);

  ASSERT_TRUE(WaitUntil([&] { return Has(Events(*st, pulled.address), "quarantined"); },
                        seconds(60), milliseconds(250)))
      << Listed(Events(*st, pulled.address));
  const auto events = Events(*st, pulled.address);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().kind, "unresponsive") << Listed(events);
  EXPECT_NE(events.front().detail.find("adb has listed it offline for"), std::string::npos)
      << Listed(events);
  EXPECT_EQ(samples().size(), checks_before_the_pull)
      << "no check ran after the pull: the phone was listed offline, not checked";
  EXPECT_TRUE(running.monitor().Quarantined(pulled.address));
}

}  // namespace
}  // namespace droidlab::testutil
