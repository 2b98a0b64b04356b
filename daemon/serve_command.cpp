#include "daemon/serve_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>

#include "adb/client.h"
#include "api/server.h"
#include "api/webhook_client.h"
#include "base/wall_clock.h"
#include "daemon/db_lock.h"
#include "daemon/lab_run_relay.h"
#include "daemon/serve_config.h"
#include "orchestrator/alerts/alert_center.h"
#include "orchestrator/builds/build_library.h"
#include "orchestrator/lab/device_health.h"
#include "orchestrator/lab/device_registry.h"
#include "orchestrator/lab/host_registration.h"
#include "orchestrator/lab/run_queue.h"
#include "orchestrator/lab/run_summaries.h"
#include "orchestrator/lab/scheduler.h"
#include "orchestrator/run/owed_restores.h"
#include "orchestrator/run/run_executor.h"
#include "schema/migrations.h"
#include "store/async_store.h"
#include "store/pg/connection.h"
#include "store/store.h"

namespace droidlab::daemon {

namespace asio = boost::asio;

namespace {

// Without a token, the API is open to whoever reaches the port: on loopback that is this host's
// users (and pages their browsers load, which api/request_guard.h fences off); beyond it, the
// whole network. That takes a token or the operator's explicit --insecure.
std::optional<std::string> OpenToTheNetwork(const ServeConfig& config) {
  if (config.RequiresToken() || config.insecure) return std::nullopt;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(config.listen_host, ec);
  if (!ec && address.is_loopback()) return std::nullopt;
  return "refusing to listen on " + config.listen_host + ":" + std::to_string(config.listen_port) +
         " without a token: anyone who can reach it could start runs on the phones and read the "
         "lab's history. Set a token (--token-file FILE, or DROIDLAB_TOKEN), listen on loopback "
         "(--listen 127.0.0.1:" + std::to_string(config.listen_port) +
         "), or say --insecure to serve the network without one";
}

// The daemon's signal_set once it has stopped: never destroyed (RunServeCommand, its teardown).
asio::signal_set* signals_kept_until_exit = nullptr;

// Each connection, event stream and device socket is a descriptor, and the soft limit of many
// logins (1,024) is below max_connections plus a lab's adb sockets: raised to the hard limit.
void RaiseDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  const rlim_t was = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    spdlog::warn("could not raise the open-file limit from {} (connections beyond it are refused)",
                 static_cast<unsigned long long>(was));
  }
}

// A module's log callback: one spdlog line, prefixed with the module's name.
std::function<void(std::string_view)> LogAs(const char* module, spdlog::level::level_enum level) {
  return [module, level](std::string_view line) { spdlog::log(level, "{}: {}", module, line); };
}

// The registry's on_online (at start-up too): what the device owes, if anything — restores of
// this process or of one that died — put back (its outcome is logged).
asio::awaitable<void> PayOwedRestoreOf(orchestrator::OwedRestores& owed, adb::Client& client,
                                       std::string serial) {
  auto paying = orchestrator::PayOwedRestore(owed, client, std::move(serial),
                                             adb::DeadlineAfter(std::chrono::seconds(10)),
                                             LogAs("devices", spdlog::level::info));
  co_await std::move(paying);
}

// The device's model as the registry read it ("unknown" before its properties are read).
std::string ModelOf(const orchestrator::DeviceRegistry& registry, const std::string& serial) {
  auto device = registry.Find(serial);
  if (!device || !device->properties || !device->properties->model) return "unknown";
  return *device->properties->model;
}

// Each valid launch's Displayed into the /metrics histogram of its package and model.
std::function<void(const store::Launch&)> LaunchObserver(api::LabMetrics& metrics,
                                                         std::string package, std::string model) {
  return [&metrics, package = std::move(package), model = std::move(model)](const store::Launch& l) {
    if (l.counted() && l.displayed_ms) {
      metrics.ObserveLaunch(package, model, static_cast<double>(*l.displayed_ms));
    }
  };
}

// Every co_spawn of the daemon ends here: an escaping exception is a bug, logged loudly.
auto LogEnd(const char* what, std::function<void()> done = nullptr) {
  return [what, done = std::move(done)](std::exception_ptr e, auto&&...) {
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        spdlog::critical("{} ended by an exception: {}", what, ex.what());
      } catch (...) {
        spdlog::critical("{} ended by an unknown exception", what);
      }
    }
    if (done) done();
  };
}

// The back-fill of run summaries (orchestrator/lab/run_summaries.h), logged.
asio::awaitable<void> BackfillSummaries(store::Store& st) {
  store::AsyncStore door(st);
  auto backfilling = orchestrator::BackfillRunSummaries(door);
  const orchestrator::BackfillResult done = co_await std::move(backfilling);
  if (done.error) {
    spdlog::warn("run summaries back-fill stopped after {} run(s): {}", done.runs, *done.error);
  } else if (done.runs > 0) {
    spdlog::info("run summaries back-filled for {} run(s)", done.runs);
  }
}

// Retention every hour when configured, in the store's own small steps.
asio::awaitable<void> PruneEveryHour(store::Store& st, orchestrator::BuildLibrary* builds,
                                     const ServeConfig& config) {
  store::AsyncStore door(st);
  auto executor = co_await asio::this_coro::executor;
  co_await asio::this_coro::throw_if_cancelled(false);
  asio::steady_timer timer(executor);
  for (;;) {
    store::RetentionPolicy policy;
    if (config.retention_max_age_days) {
      policy.max_age = std::chrono::hours(24 * *config.retention_max_age_days);
    }
    policy.max_runs = config.retention_max_runs;
    policy.now_ms = WallNowMs();
    auto pruning = door.Prune(policy);
    auto pruned = co_await std::move(pruning);
    if (!pruned) {
      spdlog::warn("retention: {}", pruned.error().message);
    } else if (pruned->runs_deleted > 0 || pruned->history_rows_deleted > 0) {
      spdlog::info("retention: {} run(s) deleted, {} device history row(s)",
                   pruned->runs_deleted, pruned->history_rows_deleted);
    }
    // Builds by age, like runs (a build is kept for runs to come; no count bound).
    if (builds != nullptr && config.retention_max_age_days) {
      auto pruning_builds = builds->Prune(policy.now_ms - policy.max_age->count());
      auto old_builds = co_await std::move(pruning_builds);
      if (!old_builds) {
        spdlog::warn("retention of builds: {}", old_builds.error().message);
      } else if (*old_builds > 0) {
        spdlog::info("retention: {} build(s) deleted", *old_builds);
      }
    }
    // A stop that came while pruning would not reach a timer started after it.
    if ((co_await asio::this_coro::cancellation_state).cancelled() !=
        asio::cancellation_type::none) {
      co_return;
    }
    timer.expires_after(std::chrono::hours(1));
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if ((co_await asio::this_coro::cancellation_state).cancelled() !=
        asio::cancellation_type::none) {
      co_return;
    }
  }
}

}  // namespace

int RunServeCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  std::optional<std::string> env_token;
  if (const char* t = std::getenv("DROIDLAB_TOKEN")) env_token = t;
  auto loaded = LoadServeConfig(args, env_token, &ReadWholeFile);
  if (!loaded) {
    std::fprintf(err, "droidlab serve: %s\nusage: %s\n", loaded.error().c_str(),
                 ServeCommandUsage());
    return 2;
  }
  const ServeConfig config = std::move(loaded).value();
  if (auto refused = OpenToTheNetwork(config)) {
    std::fprintf(err, "droidlab serve: %s\n", refused->c_str());
    return 2;
  }
  // Logs on stderr: stdout carries the one "listening on" line scripts wait for.
  spdlog::set_default_logger(spdlog::stderr_color_mt("droidlab"));
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
  if (::geteuid() == 0) {
    spdlog::warn("running as root: a fault in droidlab or adb would have the whole host; run it "
                 "as its own user (deploy/droidlab.service does)");
  }
  if (config.insecure && !config.RequiresToken()) {
    spdlog::warn("--insecure: the API has no token; anyone who can reach {}:{} can use it",
                 config.listen_host, config.listen_port);
  }
  RaiseDescriptorLimit();
  // A write to a pipe whose reader has gone (a log's consumer, asio's signal pipe as it closes
  // during the teardown) is an EPIPE to handle, not the end of the daemon: SIGPIPE's default
  // action killed it under a storm of SIGTERMs (ServeSafetyTest). Sockets already send with
  // MSG_NOSIGNAL; the adb server is started with its signals at their defaults (adb/client.cpp).
  std::signal(SIGPIPE, SIG_IGN);

  auto server = adb::ServerAddressFromEnvironment(config.adb_server);
  if (!server) {
    std::fprintf(err, "droidlab serve: --adb-server: %s\n", server.error().message.c_str());
    return 2;
  }
  // The webhooks' TLS settings, CA certificates read now, before any io thread runs.
  auto webhook_sender = api::MakeWebhookSender(api::WebhookTlsOptions{config.alert_ca_file});
  if (!webhook_sender) {
    std::fprintf(err, "droidlab serve: %s\n", webhook_sender.error().c_str());
    return 2;
  }

  // The name this daemon's host goes by in the lab (the hosts table, the runs it claims).
  const std::string host_name = config.host_name.value_or(orchestrator::MachineHostName());

  // One daemon per database (per host name on PostgreSQL), held until this function returns;
  // taken before the store opens (opening may migrate it), so a second daemon changes nothing.
  auto locked = DatabaseLock::Acquire(config.db, host_name);
  if (!locked) {
    std::fprintf(err, "droidlab serve: %s\n", locked.error().c_str());
    return 1;
  }
  DatabaseLock db_lock = std::move(locked).value();
  // Whether this daemon does the lab's chores (fires schedules, delivers alerts): on PostgreSQL
  // the daemon holding the chores lock, asked every 5 s on a thread of its own (the lock's
  // connection blocks); on SQLite always.
  std::atomic<bool> leading{!store::pg::IsPostgresUrl(config.db)};
  std::jthread chores_lock;
  if (!leading) {
    chores_lock = std::jthread([&db_lock, &leading](std::stop_token stop) {
      std::mutex mutex;
      std::condition_variable_any tick;
      for (;;) {
        std::string why_not;
        const bool now = db_lock.TryLead(&why_not);
        if (now != leading.exchange(now)) {
          spdlog::info(now ? "this daemon now fires the lab's schedules and delivers its alerts"
                           : "another daemon does the lab's chores now");
        }
        if (!why_not.empty()) spdlog::warn("the lab's chores lock: {}", why_not);
        std::unique_lock lock(mutex);
        if (tick.wait_for(lock, stop, std::chrono::seconds(5), [] { return false; })) break;
        if (stop.stop_requested()) break;
      }
    });
  }

  // Declared before the store, so it outlives it: the store's threads are joined (its destructor)
  // while the io_context they post their completions to still exists.
  asio::io_context io(1);  // one thread: the adb client, the queue and the API share it

  store::StoreOptions store_options;
  store_options.path = config.db;
  auto opened = store::Store::Open(store_options);
  if (!opened) {
    std::fprintf(err, "droidlab serve: %s\n", opened.error().message.c_str());
    return 1;
  }
  std::unique_ptr<store::Store> st = std::move(opened).value();

  // The builds under test, beside the database unless configured; declared after the store
  // (it writes through it) and so gone before it.
  // (A PostgreSQL database has no folder: then ./builds, the daemon's working directory.)
  const std::string db_folder = store::pg::IsPostgresUrl(config.db)
                                    ? std::string()
                                    : std::filesystem::path(config.db).parent_path().string();
  const std::string builds_dir = std::filesystem::absolute(
      config.builds_dir.value_or((std::filesystem::path(db_folder) / "builds").string())).string();
  orchestrator::BuildLibrary builds(*st, builds_dir);
  if (auto e = builds.Open()) {
    std::fprintf(err, "droidlab serve: %s\n", e->c_str());
    return 1;
  }

  adb::ClientOptions client_options;
  client_options.server = *server;
  client_options.adb_path = config.adb_path;
  // Histograms for /metrics, fed on the io thread by the adb client and the runs.
  api::LabMetrics lab_metrics;
  client_options.on_command = [&lab_metrics](std::string_view command,
                                             adb::Clock::duration elapsed, bool) {
    lab_metrics.ObserveAdbCommand(command, std::chrono::duration<double>(elapsed).count());
  };
  // Fleet health: the commands sent to each phone, its errors and round trips.
  orchestrator::AdbCommandTally adb_tally;
  client_options.on_device_command = [&adb_tally](std::string_view serial, std::string_view,
                                                  adb::Clock::duration elapsed, bool ok) {
    adb_tally.Count(serial, elapsed, ok);
  };
  adb::Client client(io.get_executor(), client_options);

  // What undoes each change runs make to devices, durable in the store: what a run could not
  // put back (device unplugged mid-run, a daemon killed mid-run) is paid when the device is
  // online — at start-up, when it comes back — by the registry, or by the device's next run.
  orchestrator::OwedRestores owed_restores(*st);
  // The host this daemon registers as (schema 0016): its devices are stored as held by it.
  orchestrator::DeviceRegistryOptions registry_options;
  registry_options.host = host_name;
  registry_options.log = LogAs("devices", spdlog::level::info);
  registry_options.on_online = [&owed_restores, &client](std::string serial) {
    return PayOwedRestoreOf(owed_restores, client, std::move(serial));
  };
  // What the registry left owed because a run was on the phone is paid once that run is done
  // with it (its own restore may have failed: a phone rebooted mid-run answers before its
  // settings service is up).
  owed_restores.PayWhenRunEnds([&owed_restores, &client, &io](const std::string& serial) {
    asio::co_spawn(io, PayOwedRestoreOf(owed_restores, client, serial), asio::detached);
  });
  orchestrator::DeviceRegistry registry(client, *st, registry_options);

  // Each phone checked every minute, its health kept; one that stops answering climbs the
  // recovery ladder and is quarantined if that does not bring it back (issue 17 §3). Whether a
  // run is on a phone is the run queue's to say, which is built below.
  orchestrator::RunQueue* queue_for_health = nullptr;
  orchestrator::DeviceHealthOptions health_options;
  health_options.host = host_name;
  health_options.interval = std::chrono::seconds(config.health.interval_seconds);
  health_options.recovery.probe_timeout = std::chrono::seconds(config.health.probe_timeout_seconds);
  health_options.recovery.settle_timeout = std::chrono::seconds(config.health.settle_seconds);
  health_options.recovery.boot_timeout = std::chrono::seconds(config.health.boot_timeout_seconds);
  health_options.recovery.allow_reboot = config.health.recovery_reboot;
  health_options.max_reboots_per_day = static_cast<int>(config.health.max_reboots_per_day);
  health_options.busy = [&queue_for_health](std::string_view serial) {
    return queue_for_health != nullptr && queue_for_health->Pending(serial) > 0;
  };
  health_options.tally = &adb_tally;
  health_options.log = LogAs("health", spdlog::level::info);
  orchestrator::DeviceHealthMonitor health(client, *st, registry, health_options);

  // Alerts and their delivery to the configured webhooks: the store holds what is pending, so
  // deliveries a stopped daemon left are sent by this one. The run queue raises them as runs
  // succeed (a regression verdict, a change point just settled: lab/history_alerts.h); built
  // before the queue, which holds it.
  orchestrator::AlertCenterOptions alert_options;
  for (const auto& webhook : config.alert_webhooks) {
    alert_options.webhooks.push_back({webhook.url, webhook.secret});
  }
  alert_options.max_attempts = config.alert_max_attempts;
  alert_options.attempt_timeout = std::chrono::seconds(config.alert_timeout_seconds);
  alert_options.user_agent = "droidlab/" DROIDLAB_VERSION;
  alert_options.log = LogAs("alerts", spdlog::level::info);
  alert_options.leading = [&leading] { return leading.load(); };
  orchestrator::AlertCenter alerts(*st, *webhook_sender, alert_options);

  orchestrator::RunQueueOptions queue_options;
  queue_options.log = LogAs("runs", spdlog::level::info);
  queue_options.alerts = &alerts;
  queue_options.executor.log = LogAs("run", spdlog::level::info);
  queue_options.executor.owed_restores = &owed_restores;
  queue_options.executor.builds_dir = builds.dir();
  // Runs are claimed in the store by the host that measures them (several daemons may share a
  // PostgreSQL database): this host's idle phones take the runs for them and for their pools.
  queue_options.host = host_name;
  queue_options.local_phones = [&registry, &health] {
    std::vector<std::string> phones;
    for (const auto& device : registry.Snapshot()) {
      if (device.state == "device" && !health.Quarantined(device.serial)) {
        phones.push_back(device.serial);
      }
    }
    return phones;
  };
  store::Store& store_ref = *st;
  orchestrator::RunQueue queue(
      *st,
      [&client, &store_ref, &registry, &lab_metrics](int64_t id, orchestrator::RunSpec spec,
                                                     orchestrator::RunExecutorOptions options) {
        options.on_launch = LaunchObserver(lab_metrics, spec.package, ModelOf(registry, spec.serial));
        return orchestrator::ExecuteRun(client, store_ref, id, std::move(spec),
                                        std::move(options));
      },
      queue_options);
  queue_for_health = &queue;
  queue.Subscribe([&health](const orchestrator::RunEvent& event) { health.CountRunEnd(event); });

  // Several daemons on one PostgreSQL database: other hosts' run changes and progress reach this
  // daemon's event stream and API, and this host's progress reaches theirs.
  std::unique_ptr<LabRunRelay> lab_relay;
  if (store::pg::IsPostgresUrl(config.db)) {
    lab_relay = std::make_unique<LabRunRelay>(config.db, host_name, io, queue,
                                              LogAs("lab", spdlog::level::warn));
  }

  orchestrator::SchedulerOptions scheduler_options;
  scheduler_options.grace = std::chrono::minutes(config.schedule_grace_minutes);
  scheduler_options.log = LogAs("schedules", spdlog::level::info);
  scheduler_options.leading = [&leading] { return leading.load(); };
  orchestrator::Scheduler scheduler(
      *st, queue,
      [&registry](std::string_view serial) -> std::optional<std::string> {
        auto device = registry.Find(serial);
        if (!device || !device->properties) return std::nullopt;
        return device->properties->model;
      },
      scheduler_options);

  api::Services services;
  services.store = st.get();
  services.queue = &queue;
  services.registry = &registry;
  services.health = &health;
  services.adb_tally = &adb_tally;
  services.scheduler = &scheduler;
  services.version = DROIDLAB_VERSION;
  services.host_name = host_name;
  services.lab_metrics = &lab_metrics;
  services.builds = &builds;
  services.adb_version = [&client]() -> asio::awaitable<std::optional<int>> {
    auto version = co_await client.Version(adb::DeadlineAfter(std::chrono::seconds(2)));
    if (!version) co_return std::nullopt;
    co_return *version;
  };
  api::ServerOptions server_options;
  server_options.host = config.listen_host;
  server_options.port = config.listen_port;
  server_options.token = config.token;
  for (const auto& named : config.named_tokens) {
    server_options.tokens.push_back(api::NamedToken{named.name, named.token});
  }
  server_options.cors_origins = config.cors_origins;
  server_options.max_connections = static_cast<size_t>(config.max_connections);
  server_options.max_connections_per_client =
      static_cast<size_t>(config.max_connections_per_client);
  server_options.max_event_streams = static_cast<size_t>(config.max_event_streams);
  api::Server http_server(io.get_executor(), services, server_options);
  // The port is bound before any recovery: a daemon that cannot listen exits having changed
  // nothing (no run marked, re-queued or pruned, no schedule fired).
  auto port = http_server.Listen();
  if (!port) {
    std::fprintf(err, "droidlab serve: %s\n", port.error().c_str());
    return 1;
  }

  // Before any connection is accepted (they wait in the listen backlog until the server runs):
  // this host's runs a crash left `running` are `interrupted` (another host's are its own), so
  // no client ever sees them as running (the run queue checks again as it starts; blocking is
  // fine here).
  store::LeaseExpiry restart;
  restart.now_ms = WallNowMs();
  restart.restarting_host = host_name;
  restart.restart_reason = "the daemon stopped while the run was running";
  auto interrupted = st->ExpireLeases(restart);
  if (interrupted && !interrupted->interrupted.empty()) {
    spdlog::warn("{} run(s) left running by the last daemon marked interrupted",
                 interrupted->interrupted.size());
  }

  // Each long-lived part runs until its signal says stop; `running` counts those still up.
  asio::cancellation_signal stop_registry, stop_queue, stop_scheduler, stop_prune, stop_alerts,
      stop_heartbeat, stop_health;
  int running = 0;
  auto started = [&running](const char* what) {
    ++running;
    return LogEnd(what, [&running] { --running; });
  };
  store::Host host;
  host.name = host_name;
  host.address = orchestrator::HostAddress(config.listen_host, *port, host_name);
  host.version = DROIDLAB_VERSION;
  orchestrator::HostRegistrationOptions heartbeat_options;
  heartbeat_options.log = LogAs("hosts", spdlog::level::warn);
  asio::co_spawn(io, orchestrator::KeepHostRegistered(*st, std::move(host), heartbeat_options),
                 asio::bind_cancellation_slot(stop_heartbeat.slot(), started("host heartbeat")));
  asio::co_spawn(io, registry.Run(),
                 asio::bind_cancellation_slot(stop_registry.slot(), started("device tracking")));
  asio::co_spawn(io, queue.Run(),
                 asio::bind_cancellation_slot(stop_queue.slot(), started("run queue")));
  asio::co_spawn(io, health.Run(),
                 asio::bind_cancellation_slot(stop_health.slot(), started("device health")));
  asio::co_spawn(io, scheduler.Run(),
                 asio::bind_cancellation_slot(stop_scheduler.slot(), started("scheduler")));
  asio::co_spawn(io, alerts.Run(),
                 asio::bind_cancellation_slot(stop_alerts.slot(), started("alert delivery")));
  if (config.retention_max_age_days || config.retention_max_runs) {
    asio::co_spawn(io, PruneEveryHour(*st, &builds, config),
                   asio::bind_cancellation_slot(stop_prune.slot(), started("retention")));
  }
  // Runs that succeeded before schema 0009 (or whose summary a stopped daemon never wrote) get
  // their series points, in the background: the API answers meanwhile, with those points missing.
  asio::cancellation_signal stop_backfill;
  asio::co_spawn(io, BackfillSummaries(*st),
                 asio::bind_cancellation_slot(stop_backfill.slot(), started("summary back-fill")));
  asio::cancellation_signal stop_http;
  asio::co_spawn(io, http_server.Run(),
                 asio::bind_cancellation_slot(stop_http.slot(), started("http server")));

  auto signals = std::make_unique<asio::signal_set>(io, SIGINT, SIGTERM);
  signals->async_wait([&](const boost::system::error_code& ec, int signal_number) {
    if (ec) return;
    spdlog::info("signal {}: stopping (runs in progress are cancelled and restore their devices)",
                 signal_number);
    for (auto* s : {&stop_http, &stop_scheduler, &stop_queue, &stop_health, &stop_registry,
                    &stop_prune, &stop_backfill, &stop_alerts, &stop_heartbeat}) {
      s->emit(asio::cancellation_type::terminal);
    }
  });

  // The address as listened on (0.0.0.0 stays itself here; the hosts table names the machine).
  const std::string listening =
      orchestrator::HostAddress(config.listen_host, *port, config.listen_host);
  std::fprintf(out, "droidlab serve: listening on %s (db %s, schema %d; adb server %s%s)\n",
               listening.c_str(), store::PrintableLocation(config.db).c_str(),
               schema::CurrentVersion(), server->ToString().c_str(),
               config.RequiresToken() ? "; token required" : "");
  std::fflush(out);
  spdlog::info("serving; adb server {}", server->ToString());

  while (running > 0) io.run_one();
  // A second SIGTERM (systemd's stop, tini, a test harness may send one more) must not kill the
  // teardown below: the store's last flush and WAL checkpoint. Asio puts the default action back
  // when a signal_set is destroyed (signal_set_service.ipp: SIG_DFL once a signal's last
  // registration goes); ignoring the signals right after that left a moment in which a second
  // SIGTERM still killed the daemon (ServeSafetyTest.RepeatedSigtermsStillEndInACleanExit, with
  // SIGTERMs as fast as kill(2) sends them: killed in three runs of three). So the set is
  // cancelled and kept, never destroyed: asio's handler stays installed until exit, and a signal
  // from now on only writes to asio's pipe (non-blocking; closed with the io_context's signal
  // service, after which the write fails, harmlessly). A plain pointer of this file keeps it: no
  // destructor runs at exit (that would put SIG_DFL back, through a service already gone), and
  // the leak checker finds it reachable. `serve` runs once per process.
  signals->cancel();
  signals_kept_until_exit = signals.release();
  // What is still in flight holds tracked work on io — a store call whose completion a reader
  // thread is posting right now, a connection finishing its answer: run io until none is left
  // (bounded), so nothing posts to, or releases work on, an io_context already destroyed.
  // poll() alone let a reader thread still inside asio::post touch the destroyed io_context
  // (ASan, ServeSafetyTest.RepeatedSigtermsStillEndInACleanExit under load).
  io.restart();
  io.run_for(std::chrono::seconds(5));
  if (!io.stopped()) spdlog::warn("work still in flight 5 s after stopping; exiting anyway");
  st->Flush();
  spdlog::info("stopped");
  return 0;
}

}  // namespace droidlab::daemon
