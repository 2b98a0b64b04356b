#include "store/store.h"

#include <sqlite3.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "store/open.h"
#include "store/sqlite.h"
#include "store/writer.h"

namespace droidlab::store {

// ---------------------------------------------------------------------------------------------
// The read pool: `connections` read-only connections, lent to Read() callers and to the
// PostRead threads (one per connection).

class ReaderPool {
 public:
  explicit ReaderPool(std::vector<std::unique_ptr<Reader>> readers) {
    const size_t threads = readers.size();
    for (auto& reader : readers) free_.push_back(std::move(reader));
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }

  ~ReaderPool() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    tasks_ready_.notify_all();
    for (auto& thread : threads_) thread.join();
  }

  std::unique_ptr<Reader> Acquire() {
    std::unique_lock lock(mu_);
    reader_free_.wait(lock, [&] { return !free_.empty(); });
    auto reader = std::move(free_.back());
    free_.pop_back();
    return reader;
  }

  void Release(std::unique_ptr<Reader> reader) {
    if (!reader) return;
    {
      std::lock_guard lock(mu_);
      free_.push_back(std::move(reader));
    }
    reader_free_.notify_one();
  }

  void Post(UniqueFunction<void(Reader&)> task) {
    {
      std::lock_guard lock(mu_);
      tasks_.push_back(std::move(task));
    }
    tasks_ready_.notify_one();
  }

 private:
  void Work() {
    for (;;) {
      UniqueFunction<void(Reader&)> task;
      {
        std::unique_lock lock(mu_);
        tasks_ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping, and every posted task has run
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      auto reader = Acquire();
      task(*reader);
      Release(std::move(reader));
    }
  }

  std::mutex mu_;
  std::condition_variable reader_free_;
  std::condition_variable tasks_ready_;
  std::vector<std::unique_ptr<Reader>> free_;
  std::deque<UniqueFunction<void(Reader&)>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// ---------------------------------------------------------------------------------------------
// Write statements. Each is prepared once on the writer's connection (Database::Cached).

namespace {

constexpr const char kInsertRun[] =
    "INSERT INTO runs (spec, serial, device_model, package, activity, mode, iterations, status,"
    " created_at, schedule_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'queued', ?8, ?9)";

// NULL arguments leave the stored value alone.
constexpr const char kUpdateRunStatus[] =
    "UPDATE runs SET status = ?2, error = coalesce(?3, error),"
    " started_at = coalesce(?4, started_at), finished_at = coalesce(?5, finished_at),"
    " fingerprint = coalesce(?6, fingerprint), preflight = coalesce(?7, preflight)"
    " WHERE id = ?1";

constexpr const char kInterruptRunning[] =
    "UPDATE runs SET status = 'interrupted', error = ?1, finished_at = ?2"
    " WHERE status = 'running'";

constexpr const char kInsertLaunch[] =
    "INSERT INTO launches (run_id, iteration, displayed_ms, fully_drawn_ms, total_time_ms,"
    " wait_time_ms, launch_state, pid, intent_at_ms, fork_at_ms, displayed_at_ms, valid,"
    " invalid_reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

constexpr const char kInsertLooperStats[] =
    "INSERT INTO looper_stats (run_id, work_source_uid, package, uid, is_app, thread_name,"
    " handler_class, message_name, is_interactive, message_count, recorded_message_count,"
    " total_latency_micros, max_latency_micros, total_cpu_micros, max_cpu_micros,"
    " recorded_delay_message_count, total_delay_millis, max_delay_millis, exception_count,"
    " extra) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
    " ?18, ?19, ?20)";

constexpr const char kInsertProcSample[] =
    "INSERT INTO proc_samples (run_id, t_ms, pid, utime, stime, cpu_pct, rss_kb, num_threads)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

constexpr const char kUpsertDevice[] =
    "INSERT INTO devices (serial, model, manufacturer, sdk, release, abi, fingerprint, state,"
    " first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    " ON CONFLICT (serial) DO UPDATE SET model = excluded.model,"
    " manufacturer = excluded.manufacturer, sdk = excluded.sdk, release = excluded.release,"
    " abi = excluded.abi, fingerprint = excluded.fingerprint, state = excluded.state,"
    " last_seen = max(last_seen, excluded.last_seen)";

constexpr const char kInsertDeviceStateChange[] =
    "INSERT INTO device_state_changes (serial, state, changed_at) VALUES (?1, ?2, ?3)";
constexpr const char kUpdateDeviceState[] =
    "UPDATE devices SET state = ?2, last_seen = max(last_seen, ?3) WHERE serial = ?1";

constexpr const char kInsertSchedule[] =
    "INSERT INTO schedules (cron, timezone, run_spec, enabled, created_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
constexpr const char kDeleteSchedule[] = "DELETE FROM schedules WHERE id = ?1";
constexpr const char kSetScheduleEnabled[] = "UPDATE schedules SET enabled = ?2 WHERE id = ?1";
constexpr const char kSetScheduleFired[] =
    "UPDATE schedules SET last_fired_at = ?2 WHERE id = ?1";

// Retention: oldest first, finished runs only.
constexpr const char kRunsOlderThan[] =
    "SELECT id FROM runs WHERE created_at < ?1 AND +status NOT IN ('queued', 'running')"
    " ORDER BY created_at, id LIMIT ?2";
constexpr const char kRunsBeyondCount[] =
    "SELECT id FROM (SELECT id, created_at, status FROM runs ORDER BY created_at DESC, id DESC"
    " LIMIT -1 OFFSET ?1) WHERE status NOT IN ('queued', 'running')"
    " ORDER BY created_at, id LIMIT ?2";
constexpr const char kDeleteLaunchesOfRun[] = "DELETE FROM launches WHERE run_id = ?1";
constexpr const char kDeleteLooperStatsOfRun[] = "DELETE FROM looper_stats WHERE run_id = ?1";
constexpr const char kDeleteProcSamplesOfRun[] = "DELETE FROM proc_samples WHERE run_id = ?1";
constexpr const char kDeleteRun[] = "DELETE FROM runs WHERE id = ?1";

// Runs one cached statement with `bind` applied; the error names `what`.
template <class Bind>
Status RunCached(Database& db, const char* sql, Bind bind, std::string_view what) {
  auto st = db.Cached(sql);
  if (!st) return st.error();
  bind(**st);
  return (*st)->Run(what);
}

Status NotFoundUnlessChanged(Database& db, std::string_view what) {
  if (db.Changes() == 0) return MakeStoreError(StoreErrorCode::kNotFound, std::string(what));
  return OkStatus();
}

Status InsertLaunches(Database& db, const std::vector<Launch>& launches) {
  auto st = db.Cached(kInsertLaunch);
  if (!st) return st.error();
  for (const Launch& l : launches) {
    (*st)->BindInt64(1, l.run_id);
    (*st)->BindInt64(2, l.iteration);
    (*st)->BindOptional(3, l.displayed_ms);
    (*st)->BindOptional(4, l.fully_drawn_ms);
    (*st)->BindOptional(5, l.total_time_ms);
    (*st)->BindOptional(6, l.wait_time_ms);
    (*st)->BindOptional(7, l.launch_state);
    (*st)->BindOptional(8, l.pid);
    (*st)->BindOptional(9, l.intent_at_ms);
    (*st)->BindOptional(10, l.fork_at_ms);
    (*st)->BindOptional(11, l.displayed_at_ms);
    (*st)->BindBool(12, l.valid);
    (*st)->BindOptional(13, l.invalid_reason);
    if (auto s = (*st)->Run("storing launch " + std::to_string(l.iteration) + " of run " +
                            std::to_string(l.run_id));
        !s) {
      return s;
    }
    (*st)->Reset();
  }
  return OkStatus();
}

Status InsertLooperStats(Database& db, const std::vector<LooperStatsRow>& rows) {
  auto st = db.Cached(kInsertLooperStats);
  if (!st) return st.error();
  Statement& s = **st;
  for (const LooperStatsRow& r : rows) {
    s.BindInt64(1, r.run_id);
    s.BindText(2, r.work_source_uid);
    s.BindOptional(3, r.package);
    s.BindOptional(4, r.uid);
    s.BindBool(5, r.is_app);
    s.BindOptional(6, r.thread_name);
    s.BindOptional(7, r.handler_class);
    s.BindOptional(8, r.message_name);
    s.BindOptional(9, r.is_interactive);
    s.BindOptional(10, r.message_count);
    s.BindOptional(11, r.recorded_message_count);
    s.BindOptional(12, r.total_latency_micros);
    s.BindOptional(13, r.max_latency_micros);
    s.BindOptional(14, r.total_cpu_micros);
    s.BindOptional(15, r.max_cpu_micros);
    s.BindOptional(16, r.recorded_delay_message_count);
    s.BindOptional(17, r.total_delay_millis);
    s.BindOptional(18, r.max_delay_millis);
    s.BindOptional(19, r.exception_count);
    s.BindOptional(20, r.extra_json);
    if (s.StepOnce() == Statement::Step::kError) {
      return s.Error("storing looper stats of run " + std::to_string(r.run_id));
    }
    s.Reset();
  }
  return OkStatus();
}

Status InsertProcSamples(Database& db, const std::vector<ProcSample>& samples) {
  auto st = db.Cached(kInsertProcSample);
  if (!st) return st.error();
  for (const ProcSample& p : samples) {
    (*st)->BindInt64(1, p.run_id);
    (*st)->BindInt64(2, p.t_ms);
    (*st)->BindInt64(3, p.pid);
    (*st)->BindInt64(4, p.utime);
    (*st)->BindInt64(5, p.stime);
    (*st)->BindOptional(6, p.cpu_pct);
    (*st)->BindInt64(7, p.rss_kb);
    (*st)->BindInt64(8, p.num_threads);
    if (auto s = (*st)->Run("storing a proc sample of run " + std::to_string(p.run_id)); !s) {
      return s;
    }
    (*st)->Reset();
  }
  return OkStatus();
}

Status DeleteRunAndRows(Database& db, int64_t run_id) {
  for (const char* sql :
       {kDeleteLaunchesOfRun, kDeleteLooperStatsOfRun, kDeleteProcSamplesOfRun, kDeleteRun}) {
    if (auto s = RunCached(
            db, sql, [&](Statement& st) { st.BindInt64(1, run_id); },
            "deleting run " + std::to_string(run_id));
        !s) {
      return s;
    }
  }
  return OkStatus();
}

StoreResult<std::vector<int64_t>> SelectIds(Database& db, const char* sql, int64_t first,
                                            int64_t limit) {
  auto st = db.Cached(sql);
  if (!st) return st.error();
  (*st)->BindInt64(1, first);
  (*st)->BindInt64(2, limit);
  std::vector<int64_t> ids;
  for (;;) {
    switch ((*st)->StepOnce()) {
      case Statement::Step::kRow:
        ids.push_back((*st)->ColumnInt64(0));
        continue;
      case Statement::Step::kDone:
        return ids;
      case Statement::Step::kError:
        return (*st)->Error("choosing runs to prune");
    }
  }
}

// Waits for a completion that the writer thread runs.
template <class T>
class Waiter {
 public:
  UniqueFunction<void(T)> Callback() {
    return [this](T value) { promise_.set_value(std::move(value)); };
  }
  T Wait() { return future_.get(); }

 private:
  std::promise<T> promise_;
  std::future<T> future_ = promise_.get_future();
};

}  // namespace

struct PruneState {
  RetentionPolicy policy;
  RetentionResult result;
  UniqueFunction<void(StoreResult<RetentionResult>)> done;
  int64_t deleted_this_step = 0;
};

// ---------------------------------------------------------------------------------------------

Store::Store(StoreOptions options) : options_(std::move(options)) {}

Store::~Store() {
  if (writer_) writer_->Stop();
  readers_.reset();
}

StoreResult<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  OpenOptions open_options;
  open_options.create_if_missing = options.create_if_missing;
  open_options.busy_timeout_ms = options.busy_timeout_ms;
  open_options.max_page_count = options.max_page_count;
  auto db = OpenWriterDatabase(options.path, open_options);
  if (!db) return db.error();

  std::vector<std::unique_ptr<Reader>> readers;
  const size_t count = options.reader_connections == 0 ? 1 : options.reader_connections;
  for (size_t i = 0; i < count; ++i) {
    auto reader_db = OpenReaderDatabase(options.path, options.busy_timeout_ms);
    if (!reader_db) return reader_db.error();
    readers.push_back(
        std::make_unique<Reader>(std::make_unique<Database>(std::move(reader_db).value())));
  }

  std::unique_ptr<Store> store(new Store(options));
  store->readers_ = std::make_unique<ReaderPool>(std::move(readers));
  WriterOptions writer_options;
  writer_options.queue_capacity_records = options.queue_capacity_records;
  writer_options.batch_max_records = options.batch_max_records;
  writer_options.batch_max_delay = options.batch_max_delay;
  store->writer_ = std::make_unique<Writer>(std::move(db).value(), writer_options);
  return store;
}

Status Store::PushWrite(size_t records, bool durable, UniqueFunction<Status(Database&)> apply,
                        Completion committed) {
  WriteTask task;
  task.records = records;
  task.durable = durable;
  task.apply = std::move(apply);
  task.on_done = std::move(committed);
  return writer_->Push(std::move(task));
}

void Store::PushWriteAsync(size_t records, bool durable, UniqueFunction<Status(Database&)> apply,
                           Completion accepted, Completion committed) {
  WriteTask task;
  task.records = records;
  task.durable = durable;
  task.apply = std::move(apply);
  task.on_done = std::move(committed);
  writer_->PushAsync(std::move(task), std::move(accepted));
}

// ---- Runs

void Store::CreateRunAsync(NewRun run, UniqueFunction<void(StoreResult<int64_t>)> done) {
  auto id = std::make_shared<int64_t>(0);
  auto shared_done =
      std::make_shared<UniqueFunction<void(StoreResult<int64_t>)>>(std::move(done));
  PushWriteAsync(
      1, true,
      [run = std::move(run), id](Database& db) -> Status {
        auto s = RunCached(
            db, kInsertRun,
            [&](Statement& st) {
              st.BindText(1, run.spec_json);
              st.BindText(2, run.serial);
              st.BindOptional(3, run.device_model);
              st.BindText(4, run.package);
              st.BindOptional(5, run.activity);
              st.BindText(6, run.mode);
              st.BindInt64(7, run.iterations);
              st.BindInt64(8, run.created_at);
              st.BindOptional(9, run.schedule_id);
            },
            "queuing a run of " + run.package + " on " + run.serial);
        if (s) *id = db.LastInsertRowId();
        return s;
      },
      [shared_done](const Status& accepted) {
        if (!accepted && *shared_done) (*shared_done)(accepted.error());
      },
      [shared_done, id](const Status& committed) {
        if (!*shared_done) return;
        if (committed) {
          (*shared_done)(*id);
        } else {
          (*shared_done)(committed.error());
        }
      });
}

StoreResult<int64_t> Store::CreateRun(const NewRun& run) {
  Waiter<StoreResult<int64_t>> waiter;
  CreateRunAsync(run, waiter.Callback());
  return waiter.Wait();
}

void Store::UpdateRunStatusAsync(RunStatusUpdate update, Completion done) {
  auto shared_done = std::make_shared<Completion>(std::move(done));
  PushWriteAsync(
      1, true,
      [update = std::move(update)](Database& db) -> Status {
        const std::string what = "setting run " + std::to_string(update.run_id) + " to " +
                                 RunStatusName(update.status);
        auto s = RunCached(
            db, kUpdateRunStatus,
            [&](Statement& st) {
              st.BindInt64(1, update.run_id);
              st.BindText(2, RunStatusName(update.status));
              st.BindOptional(3, update.error);
              st.BindOptional(4, update.started_at);
              st.BindOptional(5, update.finished_at);
              st.BindOptional(6, update.fingerprint);
              st.BindOptional(7, update.preflight_json);
            },
            what);
        if (!s) return s;
        return NotFoundUnlessChanged(db, what + ": no such run");
      },
      [shared_done](const Status& accepted) {
        if (!accepted && *shared_done) (*shared_done)(accepted);
      },
      [shared_done](const Status& committed) {
        if (*shared_done) (*shared_done)(committed);
      });
}

Status Store::UpdateRunStatus(const RunStatusUpdate& update) {
  Waiter<Status> waiter;
  auto callback = waiter.Callback();
  UpdateRunStatusAsync(update, [&callback](const Status& s) { callback(s); });
  return waiter.Wait();
}

StoreResult<int64_t> Store::InterruptRunningRuns(std::string_view reason, int64_t now_ms) {
  auto count = std::make_shared<int64_t>(0);
  Waiter<Status> waiter;
  auto callback = waiter.Callback();
  auto pushed = PushWrite(
      1, true,
      [reason = std::string(reason), now_ms, count](Database& db) -> Status {
        auto s = RunCached(
            db, kInterruptRunning,
            [&](Statement& st) {
              st.BindText(1, reason);
              st.BindInt64(2, now_ms);
            },
            "marking running runs interrupted");
        if (s) *count = db.Changes();
        return s;
      },
      [&callback](const Status& s) { callback(s); });
  if (!pushed) return pushed.error();
  auto status = waiter.Wait();
  if (!status) return status.error();
  return *count;
}

// ---- Measurements

Status Store::AddLaunches(std::vector<Launch> launches, Completion committed) {
  const size_t n = launches.size();
  return PushWrite(
      n, false,
      [launches = std::move(launches)](Database& db) { return InsertLaunches(db, launches); },
      std::move(committed));
}

Status Store::AddLooperStats(std::vector<LooperStatsRow> rows, Completion committed) {
  const size_t n = rows.size();
  return PushWrite(
      n, false, [rows = std::move(rows)](Database& db) { return InsertLooperStats(db, rows); },
      std::move(committed));
}

Status Store::AddProcSamples(std::vector<ProcSample> samples, Completion committed) {
  const size_t n = samples.size();
  return PushWrite(
      n, false,
      [samples = std::move(samples)](Database& db) { return InsertProcSamples(db, samples); },
      std::move(committed));
}

void Store::AddLaunchesAsync(std::vector<Launch> launches, Completion accepted,
                             Completion committed) {
  const size_t n = launches.size();
  PushWriteAsync(
      n, false,
      [launches = std::move(launches)](Database& db) { return InsertLaunches(db, launches); },
      std::move(accepted), std::move(committed));
}

void Store::AddLooperStatsAsync(std::vector<LooperStatsRow> rows, Completion accepted,
                                Completion committed) {
  const size_t n = rows.size();
  PushWriteAsync(
      n, false, [rows = std::move(rows)](Database& db) { return InsertLooperStats(db, rows); },
      std::move(accepted), std::move(committed));
}

void Store::AddProcSamplesAsync(std::vector<ProcSample> samples, Completion accepted,
                                Completion committed) {
  const size_t n = samples.size();
  PushWriteAsync(
      n, false,
      [samples = std::move(samples)](Database& db) { return InsertProcSamples(db, samples); },
      std::move(accepted), std::move(committed));
}

// ---- Devices

Status Store::UpsertDevice(const Device& device, Completion committed) {
  return PushWrite(
      1, false,
      [device](Database& db) {
        return RunCached(
            db, kUpsertDevice,
            [&](Statement& st) {
              st.BindText(1, device.serial);
              st.BindOptional(2, device.model);
              st.BindOptional(3, device.manufacturer);
              st.BindOptional(4, device.sdk);
              st.BindOptional(5, device.release);
              st.BindOptional(6, device.abi);
              st.BindOptional(7, device.fingerprint);
              st.BindText(8, device.state);
              st.BindInt64(9, device.first_seen);
              st.BindInt64(10, device.last_seen);
            },
            "storing device " + device.serial);
      },
      std::move(committed));
}

Status Store::RecordDeviceState(const DeviceStateChange& change, Completion committed) {
  return PushWrite(
      1, false,
      [change](Database& db) -> Status {
        const std::string what = "recording state " + change.state + " of device " + change.serial;
        auto bind = [&](Statement& st) {
          st.BindText(1, change.serial);
          st.BindText(2, change.state);
          st.BindInt64(3, change.changed_at);
        };
        if (auto s = RunCached(db, kUpdateDeviceState, bind, what); !s) return s;
        if (auto s = NotFoundUnlessChanged(db, what + ": device never stored (UpsertDevice first)");
            !s) {
          return s;
        }
        return RunCached(db, kInsertDeviceStateChange, bind, what);
      },
      std::move(committed));
}

// ---- Schedules

StoreResult<int64_t> Store::CreateSchedule(const NewSchedule& schedule) {
  auto id = std::make_shared<int64_t>(0);
  Waiter<Status> waiter;
  auto callback = waiter.Callback();
  auto pushed = PushWrite(
      1, true,
      [schedule, id](Database& db) -> Status {
        auto s = RunCached(
            db, kInsertSchedule,
            [&](Statement& st) {
              st.BindText(1, schedule.cron);
              st.BindText(2, schedule.timezone);
              st.BindText(3, schedule.run_spec_json);
              st.BindBool(4, schedule.enabled);
              st.BindInt64(5, schedule.created_at);
            },
            "storing a schedule");
        if (s) *id = db.LastInsertRowId();
        return s;
      },
      [&callback](const Status& s) { callback(s); });
  if (!pushed) return pushed.error();
  if (auto s = waiter.Wait(); !s) return s.error();
  return *id;
}

namespace {
// A durable one-statement write on a schedule, blocking until committed.
template <class Push>
Status DurableScheduleWrite(Push push, const char* sql, int64_t id, int64_t value,
                            std::string what) {
  Waiter<Status> waiter;
  auto callback = waiter.Callback();
  auto pushed = push(
      [sql, id, value, what](Database& db) -> Status {
        auto s = RunCached(
            db, sql,
            [&](Statement& st) {
              st.BindInt64(1, id);
              if (sql != kDeleteSchedule) st.BindInt64(2, value);
            },
            what);
        if (!s) return s;
        return NotFoundUnlessChanged(db, what + ": no such schedule");
      },
      [&callback](const Status& s) { callback(s); });
  if (!pushed) return pushed;
  return waiter.Wait();
}
}  // namespace

Status Store::DeleteSchedule(int64_t schedule_id) {
  return DurableScheduleWrite(
      [this](UniqueFunction<Status(Database&)> apply, Completion done) {
        return PushWrite(1, true, std::move(apply), std::move(done));
      },
      kDeleteSchedule, schedule_id, 0, "deleting schedule " + std::to_string(schedule_id));
}

Status Store::SetScheduleEnabled(int64_t schedule_id, bool enabled) {
  return DurableScheduleWrite(
      [this](UniqueFunction<Status(Database&)> apply, Completion done) {
        return PushWrite(1, true, std::move(apply), std::move(done));
      },
      kSetScheduleEnabled, schedule_id, enabled ? 1 : 0,
      "enabling schedule " + std::to_string(schedule_id));
}

Status Store::MarkScheduleFired(int64_t schedule_id, int64_t fired_at) {
  return DurableScheduleWrite(
      [this](UniqueFunction<Status(Database&)> apply, Completion done) {
        return PushWrite(1, true, std::move(apply), std::move(done));
      },
      kSetScheduleFired, schedule_id, fired_at,
      "recording a firing of schedule " + std::to_string(schedule_id));
}

Status Store::Flush() {
  Waiter<Status> waiter;
  auto callback = waiter.Callback();
  auto pushed = PushWrite(
      0, true, [](Database&) { return OkStatus(); },
      [&callback](const Status& s) { callback(s); });
  if (!pushed) return pushed;
  return waiter.Wait();
}

// ---- Reads

std::unique_ptr<Reader> Store::AcquireReader() { return readers_->Acquire(); }
void Store::ReleaseReader(std::unique_ptr<Reader> reader) { readers_->Release(std::move(reader)); }
void Store::PostRead(UniqueFunction<void(Reader&)> task) { readers_->Post(std::move(task)); }

// ---- Retention

void Store::PruneStep(std::shared_ptr<PruneState> state) {
  WriteTask task;
  // Counted as a full batch: each step commits on its own, so the writer is held one step long.
  task.records = options_.batch_max_records;
  task.apply = [state](Database& db) -> Status {
    state->deleted_this_step = 0;
    const RetentionPolicy& policy = state->policy;
    const int64_t budget = policy.runs_per_step < 1 ? 1 : policy.runs_per_step;
    std::vector<int64_t> ids;
    if (policy.max_age) {
      auto old = SelectIds(db, kRunsOlderThan, policy.now_ms - policy.max_age->count(), budget);
      if (!old) return old.error();
      ids = std::move(old).value();
    }
    for (int64_t id : ids) {
      if (auto s = DeleteRunAndRows(db, id); !s) return s;
    }
    if (policy.max_runs && static_cast<int64_t>(ids.size()) < budget) {
      auto extra = SelectIds(db, kRunsBeyondCount, *policy.max_runs,
                             budget - static_cast<int64_t>(ids.size()));
      if (!extra) return extra.error();
      for (int64_t id : *extra) {
        if (auto s = DeleteRunAndRows(db, id); !s) return s;
      }
      ids.insert(ids.end(), extra->begin(), extra->end());
    }
    state->deleted_this_step = static_cast<int64_t>(ids.size());
    return OkStatus();
  };
  task.on_done = [this, state](const Status& s) {
    if (!s) {
      state->done(s.error());
      return;
    }
    ++state->result.steps;
    state->result.runs_deleted += state->deleted_this_step;
    if (state->deleted_this_step >= (state->policy.runs_per_step < 1 ? 1 : state->policy.runs_per_step)) {
      PruneStep(state);  // more to do, behind whatever was queued meanwhile
    } else {
      state->done(state->result);
    }
  };
  writer_->PushUnbounded(std::move(task));
}

void Store::PruneAsync(const RetentionPolicy& policy,
                       UniqueFunction<void(StoreResult<RetentionResult>)> done) {
  auto state = std::make_shared<PruneState>();
  state->policy = policy;
  state->done = std::move(done);
  PruneStep(std::move(state));
}

StoreResult<RetentionResult> Store::Prune(const RetentionPolicy& policy) {
  Waiter<StoreResult<RetentionResult>> waiter;
  PruneAsync(policy, waiter.Callback());
  return waiter.Wait();
}

// ---- Backup

Status Store::Backup(const std::string& destination, const BackupOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (destination.empty()) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument, "no backup path given");
  }
  if (fs::weakly_canonical(destination, ec) == fs::weakly_canonical(options_.path, ec)) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "backup path " + destination + " is the database itself");
  }
  const std::string partial = destination + ".partial";
  fs::remove(partial, ec);

  auto source = OpenReaderDatabase(options_.path, options_.busy_timeout_ms);
  if (!source) return source.error();
  // One read transaction across every step: the copy is one snapshot, and the writer's commits
  // meanwhile neither restart the backup nor end up half in it.
  Transaction snapshot(*source);
  if (auto s = snapshot.Begin(Transaction::Kind::kDeferred); !s) return s;
  if (auto s = source->QueryInt64("SELECT count(*) FROM sqlite_schema", "starting the backup");
      !s) {
    return s.error();
  }

  Status result = OkStatus();
  {
    auto target = Database::Open(partial, Database::Mode::kReadWriteCreate);
    if (!target) return target.error();
    sqlite3_backup* backup =
        sqlite3_backup_init(target->handle(), "main", source->handle(), "main");
    if (backup == nullptr) {
      return SqliteError(sqlite3_extended_errcode(target->handle()), target->handle(),
                         "starting a backup to " + partial);
    }
    int rc = SQLITE_OK;
    for (;;) {
      rc = sqlite3_backup_step(backup, options.pages_per_step);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
      if (options.pause.count() > 0) std::this_thread::sleep_for(options.pause);
    }
    const int finished = sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE) {
      result = SqliteError(rc, target->handle(), "backing up " + options_.path + " to " + partial);
    } else if (finished != SQLITE_OK) {
      result = SqliteError(finished, target->handle(), "finishing the backup to " + partial);
    }
  }
  snapshot.Rollback();
  if (!result) {
    fs::remove(partial, ec);
    return result;
  }
  fs::rename(partial, destination, ec);
  if (ec) {
    return MakeStoreError(StoreErrorCode::kIo, "cannot rename " + partial + " to " + destination +
                                                   ": " + ec.message());
  }
  return OkStatus();
}

StoreStats Store::stats() const {
  const WriterStats w = writer_->stats();
  StoreStats s;
  s.batches_committed = w.batches_committed;
  s.records_committed = w.records_committed;
  s.batches_lost = w.batches_lost;
  s.records_lost = w.records_lost;
  s.tasks_failed = w.tasks_failed;
  s.queued_records = writer_->queued_records();
  return s;
}

// ---- Looper stats from the parser

std::vector<LooperStatsRow> LooperStatsRowsFromDump(int64_t run_id, std::string_view app_package,
                                                    const parsers::LooperStatsDump& dump) {
  auto own = [](const std::optional<std::string_view>& v) -> std::optional<std::string> {
    if (!v) return std::nullopt;
    return std::string(*v);
  };
  std::vector<LooperStatsRow> rows;
  rows.reserve(dump.entries.size());
  for (const parsers::LooperStatsEntry& e : dump.entries) {
    LooperStatsRow row;
    row.run_id = run_id;
    row.work_source_uid = std::string(e.work_source_uid);
    row.package = own(e.package);
    row.uid = e.uid;
    row.is_app = e.package && !app_package.empty() && *e.package == app_package;
    row.thread_name = own(e.thread_name);
    row.handler_class = own(e.handler_class);
    row.message_name = own(e.message_name);
    row.is_interactive = e.is_interactive;
    row.message_count = e.message_count;
    row.recorded_message_count = e.recorded_message_count;
    row.total_latency_micros = e.total_latency_micros;
    row.max_latency_micros = e.max_latency_micros;
    row.total_cpu_micros = e.total_cpu_micros;
    row.max_cpu_micros = e.max_cpu_micros;
    row.recorded_delay_message_count = e.recorded_delay_message_count;
    row.total_delay_millis = e.total_delay_millis;
    row.max_delay_millis = e.max_delay_millis;
    row.exception_count = e.exception_count;
    if (!e.extra.empty()) {
      nlohmann::json extra = nlohmann::json::object();
      for (size_t i = 0; i < e.extra.size() && i < dump.extra_column_indexes.size(); ++i) {
        extra[dump.columns[dump.extra_column_indexes[i]]] = std::string(e.extra[i]);
      }
      row.extra_json = extra.dump();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace droidlab::store
