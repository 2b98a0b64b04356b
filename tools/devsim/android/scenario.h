// What one simulated device is: its properties, its installed apps and how long they take to
// launch. Read from a scenario JSON file (`--scenario FILE`) or taken from the defaults below.
//
//   {
//     "seed": 42,
//     "device": {"serial": "DEVSIM0001", "model": "Pixel 7", "manufacturer": "Google",
//                "device": "panther", "product": "panther", "sdk": 33, "release": "13",
//                "abi": "arm64-v8a", "fingerprint": "google/panther/panther:13/…",
//                "uptime_s": 3600, "refresh_hz": 60},
//     "packages": [{"name": "com.example.app", "activity": ".MainActivity", "uid": 10123,
//                   "cold": {"mean": 800, "stddev": 60}, "warm": {"mean": 350, "stddev": 30},
//                   "hot": {"mean": 120, "stddev": 15},
//                   "fully_drawn": {"mean": 1400, "stddev": 120}, "reports_fully_drawn": true,
//                   "version_code": 123, "version_name": "1.2.3", "min_sdk": 24,
//                   "target_sdk": 33, "compiler_filter": "speed-profile",
//                   "has_profile": true, "bg_dexopt_after_s": 0,
//                   "launch_factor_by_version_code": {"124": 1.1},
//                   "frames": {"per_launch": 30, "per_input": 20, "ms": 8, "jank_every": 10,
//                              "jank_ms": 40, "refresh_hz": 60},
//                   "memory": {"java_heap_kb": 12000, "native_heap_kb": 18000, "code_kb": 9000,
//                              "stack_kb": 900, "graphics_kb": 6000, "private_other_kb": 3000,
//                              "system_kb": 8000, "swap_pss_kb": 400, "views": 60,
//                              "view_root_impl": 1, "app_contexts": 3, "activities": 1,
//                              "activities_leak_per_launch": 0, "leaked_activity_kb": 0},
//                   "crash_on_launch": [3], "anr_on_launch": [], "native_crash_on_launch": [],
//                   "slow_messages": [{"kind": "dispatch", "ms": 900,
//                                      "h": "android.app.ActivityThread$H", "c": "null", "m":
//                                      159}]}],
//     "battery": {"usb": true, "ac": false, "level": 85, "temperature": 285},
//     "heat": {"per_cold_launch_c": 1.5, "start_c": 0, "half_life_s": 60, "slowdown_pct_per_c": 2},
//     "noise_lines_per_s": 2, "looper_entries_cap": 1500, "looper_new_entries_per_s": 0.2,
//     "faults": [{"at_s": 30, "args": ["unplug", "5000"]}]
//   }
// Every field is optional; "release" and "fingerprint" follow "sdk" when not given.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace droidlab::devsim {

struct LaunchTimeDistribution {
  double mean_ms = 0;
  double stddev_ms = 0;
};

// The frames the app's activity renders (hwui's ProfileData and frame ring: gfxinfo_dump.h):
// each launch (not one delivered to a top-most activity) renders `per_launch` frames, each input
// to the foreground app (`input tap|swipe|text|keyevent`, a monkey event) `per_input`. A frame
// takes `ms`, except every `jank_every`-th the process renders (0: none), which takes `jank_ms`.
// A frame is janky when it takes longer than one vsync period (1000 / refresh_hz ms). No random
// draw: a test computes the exact totals, janky counts and percentiles from these numbers.
struct FrameSpec {
  int per_launch = 30;
  int per_input = 20;
  int ms = 8;
  int jank_every = 0;
  int jank_ms = 40;
  int refresh_hz = 60;
};

// What `dumpsys meminfo PKG` prints for the app (meminfo_dump.h), in KiB. `activities` grows by
// `activities_leak_per_launch` with each launch of the running process (a leak to find), and each
// leaked Activity keeps `leaked_activity_kb` of Java heap (its views and what they hold), so the
// Java Heap line and the total PSS grow with it.
struct MemorySpec {
  long java_heap_kb = 12000;    // App Summary "Java Heap" (Dalvik Pss + .art mmap private)
  long native_heap_kb = 18000;  // App Summary "Native Heap"
  long code_kb = 9000;          // App Summary "Code"
  long stack_kb = 900;
  long graphics_kb = 6000;
  long private_other_kb = 3000;
  long system_kb = 8000;
  long swap_pss_kb = 400;
  int views = 60;
  int view_root_impl = 1;
  int app_contexts = 3;
  int activities = 1;
  int activities_leak_per_launch = 0;
  long leaked_activity_kb = 0;
};

// One slow main-thread message: `kind` "dispatch" (the handler ran `ms`) or "delivery" (it was
// dispatched `ms` late); h, c, m as Looper prints them (Handler class, callback, what).
struct SlowMessageSpec {
  std::string kind = "dispatch";
  long ms = 0;
  std::string handler = "android.os.Handler";
  std::string callback = "null";
  int what = 0;
};

struct PackageSpec {
  std::string name;
  std::string activity;  // as given to am start: ".MainActivity" or a full class name
  int uid = 10100;       // app uids start at 10000 (u0a100 is 10100)
  LaunchTimeDistribution cold{800, 60};
  LaunchTimeDistribution warm{350, 30};
  LaunchTimeDistribution hot{120, 15};
  // The app calls Activity.reportFullyDrawn(): a "Fully drawn" line follows each launch, this
  // long after the launch's start (never before its Displayed line).
  bool reports_fully_drawn = false;
  LaunchTimeDistribution fully_drawn{1400, 120};
  std::string version_name = "1.2.3";
  long version_code = 123;
  int min_sdk = 24;
  int target_sdk = 33;
  // Who signed the installed APK, as `dumpsys package` prints it on Android 9+ (the hex of each
  // signer certificate's Signature.hashCode(), ", " between signers; "" for none) and the scheme
  // it was verified with. An install from the host replaces both with the APK's own.
  std::string signature = "5f3a9c21";
  int signature_scheme = 2;
  std::string compiler_filter = "speed-profile";  // dumpsys package's dexopt status
  std::string compilation_reason = "bg-dexopt";
  // The app has a profile (cloud, baseline or from use): without one, Android 14+ compiles
  // speed-profile as verify (compile_commands.cpp).
  bool has_profile = true;
  // Background dexopt comes this long after start and after each compile (0: never), and
  // compiles an app below speed-profile to speed-profile (compilation.h).
  double bg_dexopt_after_s = 0;
  // A build that launches slower (or faster) than the scenario's times: every launch of the
  // package while this versionCode is installed takes this factor longer — how a test makes an
  // installed build 10 % slower than another (issue 14 §4, side-by-side runs).
  std::map<long, double> launch_factor_by_version_code;
  FrameSpec frames;
  MemorySpec memory;
  // The package's launches (1 = its first `am start` since devsim started) on which the app
  // crashes right after it is shown, or stops responding (app_faults.h).
  std::vector<int> crash_on_launch;
  std::vector<int> anr_on_launch;
  // … or dies of SIGSEGV in native code (a null pointer): libc's "Fatal signal" line and
  // debuggerd's tombstone head under the DEBUG tag (app_faults.h).
  std::vector<int> native_crash_on_launch;
  // Messages the app's main thread takes long over on every launch (slow_messages.h): Looper
  // logs each one that is over the threshold the process started with.
  std::vector<SlowMessageSpec> slow_messages;
};

// The battery as BatteryService reports it. A USB-attached lab phone charges: usb true.
struct BatterySpec {
  bool ac = false;
  bool usb = true;
  bool wireless = false;
  int level = 85;
  int status = 2;              // BatteryManager.BATTERY_STATUS_CHARGING
  int temperature = 285;       // tenths of a degree Celsius
  int voltage = 4210;          // millivolts
  long charge_counter = 3685000;  // microampere-hours
};

// The screen at start: `input keyevent` (WAKEUP, SLEEP, POWER, MENU) and `wm dismiss-keyguard`
// change it, `dumpsys power` and `dumpsys activity activities` print it.
struct ScreenSpec {
  bool on = true;       // mWakefulness=Awake, else Asleep
  bool locked = false;  // mKeyguardShowing
};

// A fault on a schedule: at `at_s` seconds after devsim starts, as if `devsim-fault ARGS` ran
// on the device (see tools/devsim/README.md, "Faults").
struct ScheduledFault {
  double at_s = 0;
  std::vector<std::string> args;  // e.g. {"unplug", "3000"}
};

struct DeviceSpec {
  std::string serial = "DEVSIM0001";
  std::string model = "Pixel 7";
  std::string manufacturer = "Google";
  std::string device = "panther";
  std::string product = "panther";
  int sdk = 33;
  std::string release;  // from sdk when empty
  std::string abi = "arm64-v8a";
  std::string fingerprint;  // from the other fields when empty
  double uptime_s = 3600;   // how long the device has been up when devsim starts
  int refresh_hz = 60;      // the display's: `dumpsys SurfaceFlinger --latency` prints its period
                            // (the frames' own FrameInterval, 13+, is the package's frames spec)
};

// Heat: each cold start warms the phone, which cools back towards the battery's own temperature
// (BatterySpec::temperature), the excess halving every half_life_s. The battery temperature
// `dumpsys battery` prints carries the excess (not while its updates are stopped), the thermal
// status follows it (LIGHT from 40 °C, MODERATE from 43, SEVERE from 46), and launches slow down
// above 38 °C. All zero, the default: the phone never warms and nothing changes.
struct HeatSpec {
  double per_cold_launch_c = 0;   // °C each cold start adds
  double start_c = 0;             // °C above the battery's temperature when devsim starts
  double half_life_s = 60;        // how fast the excess goes
  double slowdown_pct_per_c = 0;  // launch time grows this % per °C above 38
};

struct Scenario {
  std::uint64_t seed = 42;
  DeviceSpec device;
  std::vector<PackageSpec> packages;
  BatterySpec battery;
  ScreenSpec screen;
  // Background logcat lines per second (realistic tags and messages, ~120 bytes each).
  double noise_lines_per_s = 2;
  // LooperStats' entry cap (LooperStatsService.DEFAULT_ENTRIES_SIZE_CAP): more distinct
  // entries go to the OVERFLOW row. Lower it in a scenario to see OVERFLOW rows quickly.
  int looper_entries_cap = 1500;
  // Distinct binder-thread messages system_server handles per second besides its regular
  // ones; each is a new LooperStats entry, so this drives the table towards its cap.
  double looper_new_entries_per_s = 0.2;
  std::vector<ScheduledFault> faults;
  HeatSpec heat;
};

// The scenario used without --scenario: a Pixel 7 on Android 13 with two apps.
Scenario DefaultScenario();

// Parses a scenario file's text. The error names the field that is wrong.
std::variant<Scenario, std::string> ParseScenario(std::string_view json_text);

// "9" for 28, "10" for 29, …; "" for an SDK we have no name for.
std::string ReleaseForSdk(int sdk);

// Fills release and fingerprint from the rest, and checks that values fit the connect banner
// (no ':' or ';' in name, model, device). Returns an error text, or "" when fine.
std::string FinishScenario(Scenario& scenario);

}  // namespace droidlab::devsim
