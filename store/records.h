// The records the store keeps and returns. Plain owned values: safe to move across threads.
//
// Times: *_at, first_seen, last_seen are wall-clock milliseconds since the Unix epoch (UTC).
// A launch's intent_at_ms / fork_at_ms / displayed_at_ms are on the device's boot clock: only
// their differences (the launch phases) mean something.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/alert_records.h"

namespace droidlab::store {

struct Device {
  std::string serial;
  std::optional<std::string> model;
  std::optional<std::string> manufacturer;
  std::optional<int64_t> sdk;
  std::optional<std::string> release;
  std::optional<std::string> abi;
  std::optional<std::string> fingerprint;
  std::string state;  // adb's state (device, offline, unauthorized, ...) or "disconnected"
  int64_t first_seen = 0;  // kept from the first upsert; later upserts only move last_seen
  int64_t last_seen = 0;
  // The host whose adb server last listed it (schema 0016; issue 17 §2). An upsert without one
  // keeps the stored host; a device seen before 0016 has none until its host sees it again.
  std::optional<std::string> host;
  // The operator's labels, sorted (read only: set whole by Store::SetDeviceLabels).
  std::vector<std::string> labels;
  // Quarantine (schema 0019, issue 17 §3; read only: set by Store::QuarantineDevice, cleared by
  // Store::ReleaseDevice): since when and why the phone takes no run; none when it may.
  std::optional<int64_t> quarantined_at;
  std::optional<std::string> quarantine_reason;
};

// One health check of a phone (schema 0019, issue 17 §3). A reading is absent when the phone was
// busy with a run (nothing is asked of it while it measures) or did not say.
struct DeviceHealthSample {
  int64_t id = 0;  // given by the store
  std::string serial;
  std::string host;
  int64_t at = 0;                         // ms since the epoch
  std::optional<int64_t> battery_level;   // %
  std::optional<int64_t> battery_temp;    // tenths of °C
  std::optional<int64_t> thermal_status;  // 0 (none) .. 6 (shutdown)
  std::optional<int64_t> uptime_ms;       // /proc/uptime
  // The commands this host sent the phone since the previous sample, the failed ones (timeouts
  // included) and their round trips summed, in ms.
  int64_t adb_commands = 0;
  int64_t adb_errors = 0;
  int64_t adb_ms = 0;
};

// What happened to a phone (schema 0019): "unresponsive", "reconnect_transport",
// "reconnect_device", "reboot", "recovered", "rebooted", "quarantined", "released",
// "run_failed". detail: one line for a person.
struct DeviceEvent {
  int64_t id = 0;  // given by the store
  std::string serial;
  std::string host;
  int64_t at = 0;  // ms since the epoch
  std::string kind;
  std::string detail;
};

struct DeviceStateChange {
  std::string serial;
  std::string state;
  int64_t changed_at = 0;
  // The host recording it. When set, a change of a device another host holds now is not applied
  // (it moved: the old host's "disconnected" must not overwrite the new host's "device").
  // Not stored: ListDeviceStateChanges leaves it empty.
  std::optional<std::string> host = std::nullopt;
};

// One request that changed something through the API (schema 0017, issue 17 §3).
struct AuditEntry {
  int64_t id = 0;      // given by the store
  int64_t at = 0;      // ms since the epoch
  std::string caller;  // the token's name, or "local" (no token: loopback only)
  std::string remote;  // the client's address
  std::string method;
  std::string path;  // without the query
  int64_t status = 0;
  std::optional<std::string> location;  // what it made (a Location header), if anything
};

// A page of the audit log, newest first; next_cursor continues after its last entry.
struct AuditPage {
  std::vector<AuditEntry> entries;
  std::optional<std::string> next_cursor;
};

// A daemon's host (schema 0016): registered at start-up, its heartbeat_at moved on every
// heartbeat. Times in ms since the epoch.
struct Host {
  std::string name;
  std::string address;  // where its API answers, e.g. "http://lab-3:8470"
  std::string version;  // droidlab's
  int64_t started_at = 0;
  int64_t heartbeat_at = 0;
};

enum class RunStatus { kQueued, kRunning, kSucceeded, kFailed, kCancelled, kInterrupted };
const char* RunStatusName(RunStatus status);  // "queued", "running", ... as the API prints it
std::optional<RunStatus> RunStatusFromName(std::string_view name);
inline bool IsFinished(RunStatus s) { return s != RunStatus::kQueued && s != RunStatus::kRunning; }

// What a phone must have to take a pool run (schema 0018): its model, its SDK level, every one
// of the labels. Absent / empty: anything.
struct RunPool {
  std::optional<std::string> model;
  std::optional<int64_t> sdk;
  std::vector<std::string> labels;
};

// A run as queued: CreateRun stores this and returns the id.
struct NewRun {
  std::string spec_json;  // the request as given (JSON text); kept verbatim
  std::string serial;
  std::optional<std::string> device_model;  // for baselines and history: like with like
  std::string package;
  std::optional<std::string> activity;
  std::string mode;  // "cold", "warm" or "hot"
  int64_t iterations = 1;
  int64_t created_at = 0;
  std::optional<int64_t> schedule_id;
  // A pool run: `serial` is empty; the first host with an idle matching phone claims it.
  std::optional<RunPool> pool;
};

struct Run {
  int64_t id = 0;
  std::string spec_json;
  std::string serial;
  std::optional<std::string> device_model;
  std::string package;
  std::optional<std::string> activity;
  std::string mode;
  int64_t iterations = 0;
  RunStatus status = RunStatus::kQueued;
  std::optional<std::string> error;
  int64_t created_at = 0;
  std::optional<int64_t> started_at;
  std::optional<int64_t> finished_at;
  std::optional<int64_t> schedule_id;
  std::optional<std::string> fingerprint;
  std::optional<std::string> preflight_json;
  // Schema 0018: the host that claimed the run (none while unclaimed) and until when its claim
  // holds unless renewed; a cancel asked through a daemon that does not run it; a pool run
  // (its spec says which pool; `serial` is empty until it is claimed).
  std::optional<std::string> host;
  std::optional<int64_t> lease_until;
  bool cancel_requested = false;
  bool pool = false;
};

// A host's claim (schema 0018, Store::ClaimRun) for one of its phones: the oldest queued run no
// host holds that is for `serial` or for a pool the phone matches; or, with `run_id`, that run
// (a run for a serial, queued and unclaimed). The claim holds until `lease_until`.
struct RunClaim {
  std::string host;
  std::string serial;
  std::optional<int64_t> run_id;
  int64_t lease_until = 0;
};

// ClaimRunsForPhones: each phone's claimed run, in the order the phones were given; a phone
// with nothing to take is left out.
struct PhoneClaim {
  std::string serial;
  int64_t run_id = 0;
};

// RenewLeases: the runs `host` still holds (queued or running), their leases moved to
// `lease_until`, and those of them a cancel was asked of.
struct RenewedLeases {
  std::vector<int64_t> held;
  std::vector<int64_t> cancel_requested;
};

// ExpireLeases' ask: the claims lapsed at `now_ms` — every lease that ran out and, at a host's
// start-up, every claim of `restarting_host` (its runs running then end with
// `restart_reason`, as do runs left running from before schema 0018, which have no host).
struct LeaseExpiry {
  int64_t now_ms = 0;
  std::optional<std::string> restarting_host;
  std::string restart_reason;
};

// ExpireLeases: the runs whose lease ran out. Running ones ended `interrupted`; a pool run among
// them is queued again as a new run (requeued: old id → new id); claimed ones not yet started
// are released for any host to claim.
struct ExpiredLeases {
  std::vector<int64_t> interrupted;
  std::vector<std::pair<int64_t, int64_t>> requeued;
  int64_t released = 0;
};

// RequestRunCancel: a queued run no host holds is cancelled at once; a run a host holds gets
// its cancel_requested flag (that host cancels it at its next renewal).
enum class CancelRequest { kCancelled, kRequested, kAlreadyEnded };

// A change of a run's state, committed (durably) before the call that stores it completes.
struct RunStatusUpdate {
  int64_t run_id = 0;
  RunStatus status = RunStatus::kRunning;
  std::optional<std::string> error;  // why it failed / was interrupted
  // Set when given; NULL values never overwrite stored ones.
  std::optional<int64_t> started_at;
  std::optional<int64_t> finished_at;
  std::optional<std::string> fingerprint;
  std::optional<std::string> preflight_json;
};

struct Launch {
  int64_t run_id = 0;
  int64_t iteration = 0;
  std::optional<int64_t> displayed_ms;
  std::optional<int64_t> fully_drawn_ms;
  std::optional<int64_t> total_time_ms;
  std::optional<int64_t> wait_time_ms;
  std::optional<std::string> launch_state;  // as printed: "COLD", "UNKNOWN (-1)"
  std::optional<int64_t> pid;
  std::optional<int64_t> intent_at_ms;
  std::optional<int64_t> fork_at_ms;
  std::optional<int64_t> displayed_at_ms;
  bool valid = true;
  std::optional<std::string> invalid_reason;
  // The conditions it was measured in (schema/0004_launch_conditions.sql).
  bool warmup = false;  // a warm-up iteration: stored, left out of every statistic
  std::optional<std::string> thermal_status;      // "none", "light", …; unknown: absent
  std::optional<int64_t> battery_temp_tenths_c;   // 326 = 32.6 °C
  std::optional<int64_t> cooldown_wait_ms;        // waited for the phone to cool before it
  // The build it measured (schema/0006_launch_builds.sql): the run's "build", or in a
  // side-by-side run the one of its two builds on the phone then; absent: the run named none.
  std::optional<int64_t> build_id;

  // Counted in summaries, comparisons and history: valid and not a warm-up.
  bool counted() const { return valid && !warmup; }

  std::optional<int64_t> intent_to_fork_ms() const {
    if (!intent_at_ms || !fork_at_ms) return std::nullopt;
    return *fork_at_ms - *intent_at_ms;
  }
  std::optional<int64_t> fork_to_displayed_ms() const {
    if (!fork_at_ms || !displayed_at_ms) return std::nullopt;
    return *displayed_at_ms - *fork_at_ms;
  }
};

// One row of `dumpsys looper_stats`, owned: the orchestrator makes them from the parser's dump
// (orchestrator/run/looper_rows.h) and decides is_app. Its columns, once: looper_stats_columns.h.
struct LooperStatsRow {
  int64_t run_id = 0;
  std::string work_source_uid;
  std::optional<std::string> package;
  std::optional<int64_t> uid;
  bool is_app = false;
  std::optional<std::string> thread_name;
  std::optional<std::string> handler_class;
  std::optional<std::string> message_name;
  std::optional<bool> is_interactive;
  std::optional<int64_t> message_count;
  std::optional<int64_t> recorded_message_count;
  std::optional<int64_t> total_latency_micros;
  std::optional<int64_t> max_latency_micros;
  std::optional<int64_t> total_cpu_micros;
  std::optional<int64_t> max_cpu_micros;
  std::optional<int64_t> recorded_delay_message_count;
  std::optional<int64_t> total_delay_millis;
  std::optional<int64_t> max_delay_millis;
  std::optional<int64_t> exception_count;
  std::optional<std::string> extra_json;  // unknown columns as a JSON object
};

// The frames of one iteration (schema/0011): hwui's figures from `dumpsys gfxinfo`, droidlab's
// from the framestats rows (analysis/frames.h), and the rows as printed.
struct IterationFrames {
  int64_t run_id = 0;
  int64_t iteration = 0;
  std::optional<int64_t> total_frames;  // hwui: "Total frames rendered"
  std::optional<int64_t> janky_frames;  // hwui: "Janky frames"
  std::optional<int64_t> gfx_p50_ms, gfx_p90_ms, gfx_p95_ms, gfx_p99_ms;
  int64_t frame_rows = 0;  // framestats rows read
  int64_t counted = 0;     // of them, the frames the figures below are over
  int64_t refresh_period_ns = 0;
  std::optional<double> p50_ms, p90_ms, p95_ms, p99_ms;
  int64_t over_16_7ms = 0, over_33ms = 0, over_50ms = 0;
  // Over one, two, three vsync periods at the display's rate (schema/0014); null when stored
  // before it.
  std::optional<int64_t> over_1_vsync, over_2_vsyncs, over_3_vsyncs;
  int64_t matrix_normal = 0, matrix_middle = 0, matrix_high = 0, matrix_frozen = 0;
  int64_t dropped_frames = 0;
  int64_t jank = 0, big_jank = 0;  // PerfDog's rule
  std::string columns_json = "[]";  // the framestats header's names
  std::string rows_json = "[]";     // the rows, arrays of integers
};

// One app fault of an iteration (schema/0012): an ANR, a Java crash or a native crash of the
// run's package, as logcat printed it (parsers/logcat_faults.h).
struct IterationFault {
  int64_t run_id = 0;
  int64_t iteration = 0;
  int64_t seq = 0;                 // its place among the iteration's faults, from 0
  std::string kind;  // "anr", "crash", "native_crash"; "slow_dispatch", "slow_delivery"
  std::string time;                // the first line's time as printed
  std::optional<int64_t> at_ms;    // that time on the device's boot clock
  std::optional<int64_t> pid;      // the faulting process
  std::string process_name;        // "com.pkg" or "com.pkg:remote"
  std::string reason;              // "java.lang.X: msg", the ANR's reason, "signal 11 (…)…"
  std::vector<std::string> stack;  // the trace's first lines (at most 20)
  std::optional<int64_t> duration_ms;
};

// The memory of one iteration (schema/0013): `dumpsys meminfo PKG` at its end
// (parsers/meminfo.h), in KiB; the Objects section's counts. Absent: the version prints none.
struct IterationMemory {
  int64_t run_id = 0;
  int64_t iteration = 0;
  int64_t pid = 0;  // the process dumped ("** MEMINFO in pid N")
  std::optional<int64_t> total_pss_kb, total_rss_kb, total_swap_pss_kb;
  // App Summary, Pss(KB)
  std::optional<int64_t> java_heap_kb, native_heap_kb, code_kb, stack_kb, graphics_kb,
      private_other_kb, system_kb;
  // Objects
  std::optional<int64_t> views, view_root_impl, app_contexts, activities, assets,
      asset_managers, local_binders, proxy_binders, death_recipients, webviews;
};

struct ProcSample {
  int64_t run_id = 0;
  int64_t t_ms = 0;  // since the run started
  int64_t pid = 0;
  int64_t utime = 0;  // clock ticks, cumulative
  int64_t stime = 0;
  std::optional<double> cpu_pct;
  int64_t rss_kb = 0;
  int64_t num_threads = 0;
};

struct NewSchedule {
  std::string cron;      // 5 fields
  std::string timezone;  // IANA name
  std::string run_spec_json;
  bool enabled = true;
  int64_t created_at = 0;
};

// A build under test (schema/0005_builds.sql): an APK kept by the daemon, content-addressed.
// One file of a build (schema/0007_build_files.sql).
struct BuildFile {
  std::string name;                  // as uploaded, for people
  std::string kind;                  // "base", "split" or "dm"
  std::optional<std::string> split;  // a split's name
  std::string sha256;                // of its bytes, lower-case hex
  int64_t size = 0;
};

struct NewBuild {
  // Of the APK's bytes; for a build of several files, of the set (orchestrator/README.md).
  std::string sha256;
  std::string package;
  int64_t version_code = 0;
  std::optional<std::string> version_name;
  std::optional<int64_t> min_sdk;
  std::optional<int64_t> target_sdk;
  int64_t size = 0;
  std::optional<std::string> file_name;  // as uploaded, for people
  int64_t created_at = 0;
  std::vector<BuildFile> files;  // the base first, then the splits, then a .dm
  // Who signed it, as `dumpsys package` prints it (0008_build_signature.sql); nullopt: unsigned.
  std::optional<std::string> signature;
};

struct Build : NewBuild {
  int64_t id = 0;
};

// The build droidlab last put on a device for one package: the newest run on that serial whose
// preflight recorded a build (`preflight.build`, installed or found already installed).
struct DeviceInstalledBuild {
  std::string package;
  int64_t build_id = 0;
  std::optional<int64_t> version_code;
  std::optional<std::string> sha256;
  std::optional<std::string> install_method;  // "abb_exec", …, "already-installed"
  std::optional<int64_t> at;                  // the run's start
  int64_t run_id = 0;
};

struct AddedBuild {
  int64_t id = 0;
  bool created = false;  // false: the same bytes were kept already, under this id
};

struct Schedule {
  int64_t id = 0;
  std::string cron;
  std::string timezone;
  std::string run_spec_json;
  bool enabled = true;
  std::optional<int64_t> last_fired_at;
  int64_t created_at = 0;
};

// One change droidlab made to a device, and what undoes it (schema/0002_device_restores.sql):
// committed durably before the change is sent, marked paid once the undo succeeded, so that a
// daemon that dies in between leaves the next one what it needs to put the device back.
struct DeviceRestore {
  int64_t id = 0;  // assigned by the store
  std::string serial;
  std::string kind;                     // what undoes it: "global_setting", "battery_reset", ...
  std::string name;                     // the setting (property, package) it acts on; or ""
  std::optional<std::string> previous;  // the value to put back; none: delete the setting
  std::optional<int64_t> run_id;        // the run that made the change
  int64_t created_at = 0;
  std::optional<int64_t> paid_at;  // none while owed
};

// GET /runs filters. Absent fields do not filter.
struct RunQuery {
  std::optional<std::string> serial;
  std::optional<std::string> package;
  std::optional<RunStatus> status;
  std::optional<int64_t> since;  // created_at >= since
  int limit = 50;                // 1..1000
  std::string cursor;            // "" for the first page, else a RunPage::next_cursor
};

struct RunPage {
  std::vector<Run> runs;  // newest first (created_at, then id)
  std::string next_cursor;  // "" when there is no further page
};

// One run of a package's launch history: the run and its valid launches summarised (a chart
// point). Per run rather than per launch: 30 days of a busy package is ~8,000 launches, and
// copying each out costs more than the query.
struct LaunchHistoryPoint {
  int64_t run_id = 0;
  std::string serial;
  std::optional<std::string> device_model;
  std::string mode;
  int64_t run_created_at = 0;
  int64_t launches = 0;  // valid launches with a displayed_ms
  std::optional<int64_t> displayed_min_ms;
  std::optional<double> displayed_median_ms;
  std::optional<double> displayed_mean_ms;
  std::optional<int64_t> displayed_max_ms;
  std::optional<double> total_time_median_ms;
  std::optional<double> fully_drawn_median_ms;
};

struct LaunchHistoryQuery {
  std::string package;
  int64_t since = 0;  // runs created at or after (e.g. now - 30 days)
  std::optional<std::string> device_model;  // absent: every model (group by device_model)
  std::optional<std::string> mode;
};

// One metric of one succeeded run, summarised over its counted launches (schema 0009): a point
// of a series. Written by the orchestrator (Store::AddRunSummaries), read back as series points.
struct RunSummary {
  int64_t run_id = 0;
  std::string metric;  // "displayed_ms", "fully_drawn_ms", "total_time_ms", ...
  int64_t t = 0;       // runs.created_at; filled on read (the store takes it from the run)
  int64_t count = 0;   // counted launches with this metric; 0: every statistic is null
  std::optional<double> median;
  std::optional<double> p90;
  std::optional<double> ci_low;  // the bootstrap CI of the median
  std::optional<double> ci_high;
  // What the run measured: its build, the versionCode installed, the device's Android build,
  // the compiler filter reached.
  std::optional<int64_t> build_id;
  std::optional<int64_t> version_code;
  std::optional<std::string> fingerprint;
  std::optional<std::string> compilation;
  // The run's counted launches measured hotter than its limits (schema 0020); none: summarised
  // before 0020. A run with more than a quarter of them hot is out of range for its history
  // (orchestrator/lab/history_verdict.h, OutOfRange).
  std::optional<int64_t> hot_launches;
};

// One series: a package on a device model in a mode, one metric, runs created in [since, until].
struct SeriesQuery {
  std::string package;
  std::optional<std::string> device_model;  // absent: the runs whose phone's model was unknown
  std::string mode;
  std::string metric;
  int64_t since = std::numeric_limits<int64_t>::min();
  int64_t until = std::numeric_limits<int64_t>::max();
};

// A series a package has: how many points, the first and the last run's t.
struct SeriesKey {
  std::optional<std::string> device_model;  // absent: the model was unknown
  std::string mode;
  std::string metric;
  int64_t points = 0;
  int64_t first_t = 0;
  int64_t last_t = 0;
};

// What retention deletes (Store::Prune).
struct RetentionPolicy {
  // Delete finished runs created before now - max_age, and the device state changes, paid
  // restores, audit entries, device health samples and device events older than that, and the
  // alerts resolved before it (with their deliveries) that have no delivery pending.
  std::optional<std::chrono::milliseconds> max_age;
  std::optional<int64_t> max_runs;  // keep at most this many runs (newest)
  int64_t now_ms = 0;               // wall clock, ms since the epoch
  int runs_per_step = 10;  // each step is its own small transaction; other writes go between
};

}  // namespace droidlab::store
