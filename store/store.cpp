#include "store/store.h"

#include <future>
#include <memory>
#include <utility>

#include "store/backup.h"
#include "store/joined_looper_stats.h"
#include "store/open.h"
#include "store/pg/connection.h"
#include "store/pg/migrate.h"
#include "store/pg/reader.h"
#include "store/pg/write_session.h"
#include "store/reader_pool.h"
#include "store/retention.h"
#include "store/sqlite.h"
#include "store/sqlite_reader.h"
#include "store/sqlite_write_session.h"
#include "store/task_thread.h"
#include "store/writer.h"

// What the Store itself owns: opening, the write queue's plumbing (every call as a task on the
// writer, its blocking form waiting on its async one), the reader pool and the maintenance
// thread. The SQL of each table is in sql/, the writes in *_writes.cpp, retention and backup in
// their own files.

namespace droidlab::store {

namespace {

// Waits for a completion that another thread (the writer, a reader) runs.
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

Store::Store(StoreOptions options) : options_(std::move(options)) {}

Store::~Store() {
  if (writer_) writer_->Stop();
  maintenance_.reset();  // a backup in progress finishes first
  readers_.reset();
}

namespace {

// The store's connections are named in pg_stat_activity (application_name), so that an
// operator — and the tests — can tell the writer from the readers.
constexpr const char* kWriterApplicationName = "droidlab-writer";
constexpr const char* kReaderApplicationName = "droidlab-reader";

// A reader's connection: its transactions read-only, so a query can never write. Also how a
// reader whose connection broke gets a new one (PgReader::ReconnectIfBroken).
StoreResult<pg::Connection> OpenPostgresReaderConnection(const std::string& url) {
  pg::ConnectOptions options;
  options.application_name = kReaderApplicationName;
  auto connection = pg::Connection::Open(url, options);
  if (!connection) return connection.error();
  if (auto s = connection->Execute("SET default_transaction_read_only = on",
                                   "making a reader's connection read-only");
      !s) {
    return s.error();
  }
  return connection;
}

StoreResult<std::vector<std::unique_ptr<Reader>>> OpenPostgresReaders(const std::string& url,
                                                                      size_t count) {
  std::vector<std::unique_ptr<Reader>> readers;
  for (size_t i = 0; i < count; ++i) {
    auto connection = OpenPostgresReaderConnection(url);
    if (!connection) return connection.error();
    readers.push_back(std::make_unique<pg::PgReader>(
        std::move(connection).value(), [url] { return OpenPostgresReaderConnection(url); }));
  }
  return readers;
}

}  // namespace

std::string PrintableLocation(const std::string& path) {
  return pg::IsPostgresUrl(path) ? pg::RedactUrl(path) : path;
}

StoreResult<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  const size_t count = options.reader_connections == 0 ? 1 : options.reader_connections;
  std::unique_ptr<WriteSession> session;
  std::vector<std::unique_ptr<Reader>> readers;
  ReaderPool::BeforeLend before_lend;
  if (pg::IsPostgresUrl(options.path)) {
    // The database is the operator's (created with createdb); its tables are migrated here,
    // one daemon at a time (migrate.h), and a newer or foreign schema is refused untouched.
    pg::ConnectOptions writer_connect;
    writer_connect.application_name = kWriterApplicationName;
    auto connection = pg::Connection::Open(options.path, writer_connect);
    if (!connection) return connection.error();
    auto migrated = pg::MigratePostgres(*connection);
    if (!migrated) return migrated.error();
    auto opened = OpenPostgresReaders(options.path, count);
    if (!opened) return opened.error();
    readers = std::move(opened).value();
    session = std::make_unique<pg::PgWriteSession>(std::move(connection).value(), options.path,
                                                   writer_connect);
    // A reader whose connection broke gets a new one before it is lent again.
    before_lend = [](Reader& reader) {
      return static_cast<pg::PgReader&>(reader).ReconnectIfBroken();
    };
  } else {
    OpenOptions open_options;
    open_options.create_if_missing = options.create_if_missing;
    open_options.busy_timeout_ms = options.busy_timeout_ms;
    open_options.max_page_count = options.max_page_count;
    auto db = OpenWriterDatabase(options.path, open_options);
    if (!db) return db.error();
    for (size_t i = 0; i < count; ++i) {
      auto reader_db = OpenReaderDatabase(options.path, options.busy_timeout_ms);
      if (!reader_db) return reader_db.error();
      readers.push_back(std::make_unique<SqliteReader>(
          std::make_unique<Database>(std::move(reader_db).value())));
    }
    session = std::make_unique<SqliteWriteSession>(std::move(db).value());
  }

  std::unique_ptr<Store> store(new Store(options));
  store->readers_ = std::make_unique<ReaderPool>(std::move(readers), std::move(before_lend));
  store->maintenance_ = std::make_unique<TaskThread>();
  WriterOptions writer_options;
  writer_options.queue_capacity_records = options.queue_capacity_records;
  writer_options.join_max_records = options.join_max_records;
  writer_options.batch_max_records = options.batch_max_records;
  writer_options.batch_max_delay = options.batch_max_delay;
  writer_options.before_commit = options.before_commit;
  store->writer_ = std::make_unique<Writer>(std::move(session), writer_options);
  return store;
}

Status Store::PushWrite(size_t records, bool durable, UniqueFunction<Status(WriteSession&)> apply,
                        Completion committed) {
  WriteTask task;
  task.records = records;
  task.durable = durable;
  task.apply = std::move(apply);
  task.on_done = std::move(committed);
  return writer_->Push(std::move(task));
}

void Store::PushWriteAsync(size_t records, bool durable, UniqueFunction<Status(WriteSession&)> apply,
                           Completion accepted, Completion committed) {
  WriteTask task;
  task.records = records;
  task.durable = durable;
  task.apply = std::move(apply);
  task.on_done = std::move(committed);
  writer_->PushAsync(std::move(task), std::move(accepted));
}

void Store::PushDurableAsync(UniqueFunction<Status(WriteSession&)> apply, Completion done,
                             size_t records) {
  // Shared: `accepted` (a refusal) and `committed` are two completions, and only one of them
  // runs `done` (a refused task is never applied, so it never commits).
  auto shared_done = std::make_shared<Completion>(std::move(done));
  PushWriteAsync(
      records, true, std::move(apply),
      [shared_done](const Status& accepted) {
        if (!accepted && *shared_done) (*shared_done)(accepted);
      },
      [shared_done](const Status& committed) {
        if (*shared_done) (*shared_done)(committed);
      });
}

template <class T>
void Store::PushDurableAsync(UniqueFunction<StoreResult<T>(WriteSession&)> apply,
                             UniqueFunction<void(StoreResult<T>)> done) {
  auto value = std::make_shared<T>();
  auto apply_keeping_value = [apply = std::move(apply), value](WriteSession& session) mutable -> Status {
    auto applied = apply(session);
    if (!applied) return applied.error();
    *value = *applied;
    return OkStatus();
  };
  auto shared_done = std::make_shared<UniqueFunction<void(StoreResult<T>)>>(std::move(done));
  PushDurableAsync(std::move(apply_keeping_value), [shared_done, value](const Status& s) {
    if (!*shared_done) return;
    if (s) {
      (*shared_done)(*value);
    } else {
      (*shared_done)(s.error());
    }
  });
}

// ---- Runs

void Store::CreateRunAsync(NewRun run, UniqueFunction<void(StoreResult<int64_t>)> done) {
  PushDurableAsync<int64_t>(
      [run = std::move(run)](WriteSession& session) { return session.InsertRun(run); }, std::move(done));
}

StoreResult<int64_t> Store::CreateRun(const NewRun& run) {
  Waiter<StoreResult<int64_t>> waiter;
  CreateRunAsync(run, waiter.Callback());
  return waiter.Wait();
}

void Store::UpdateRunStatusAsync(RunStatusUpdate update, Completion done) {
  PushDurableAsync(
      [update = std::move(update)](WriteSession& session) { return session.UpdateRunStatus(update); },
      std::move(done));
}

Status Store::UpdateRunStatus(const RunStatusUpdate& update) {
  Waiter<Status> waiter;
  UpdateRunStatusAsync(update, waiter.Callback());
  return waiter.Wait();
}

void Store::InterruptRunningRunsAsync(std::string reason, int64_t now_ms,
                                      UniqueFunction<void(StoreResult<int64_t>)> done) {
  PushDurableAsync<int64_t>(
      [reason = std::move(reason), now_ms](WriteSession& session) {
        return session.InterruptRunningRuns(reason, now_ms);
      },
      std::move(done));
}

StoreResult<int64_t> Store::InterruptRunningRuns(std::string_view reason, int64_t now_ms) {
  Waiter<StoreResult<int64_t>> waiter;
  InterruptRunningRunsAsync(std::string(reason), now_ms, waiter.Callback());
  return waiter.Wait();
}

// ---- Claims of runs by hosts

void Store::ClaimRunAsync(RunClaim claim,
                          UniqueFunction<void(StoreResult<std::optional<int64_t>>)> done) {
  PushDurableAsync<std::optional<int64_t>>(
      [claim = std::move(claim)](WriteSession& session) { return session.ClaimRun(claim); },
      std::move(done));
}

StoreResult<std::optional<int64_t>> Store::ClaimRun(const RunClaim& claim) {
  Waiter<StoreResult<std::optional<int64_t>>> waiter;
  ClaimRunAsync(claim, waiter.Callback());
  return waiter.Wait();
}

void Store::ClaimRunsForPhonesAsync(
    std::string host, std::vector<std::string> serials, int64_t lease_until,
    UniqueFunction<void(StoreResult<std::vector<PhoneClaim>>)> done) {
  PushDurableAsync<std::vector<PhoneClaim>>(
      [host = std::move(host), serials = std::move(serials),
       lease_until](WriteSession& session) -> StoreResult<std::vector<PhoneClaim>> {
        std::vector<PhoneClaim> claimed;
        for (const std::string& serial : serials) {
          auto one = session.ClaimRun(RunClaim{host, serial, std::nullopt, lease_until});
          if (!one) return one.error();
          if (*one) claimed.push_back(PhoneClaim{serial, **one});
        }
        return claimed;
      },
      std::move(done));
}

StoreResult<std::vector<PhoneClaim>> Store::ClaimRunsForPhones(std::string_view host,
                                                               std::vector<std::string> serials,
                                                               int64_t lease_until) {
  Waiter<StoreResult<std::vector<PhoneClaim>>> waiter;
  ClaimRunsForPhonesAsync(std::string(host), std::move(serials), lease_until, waiter.Callback());
  return waiter.Wait();
}

void Store::RenewLeasesAsync(std::string host, int64_t lease_until,
                             UniqueFunction<void(StoreResult<RenewedLeases>)> done) {
  PushDurableAsync<RenewedLeases>(
      [host = std::move(host), lease_until](WriteSession& session) {
        return session.RenewLeases(host, lease_until);
      },
      std::move(done));
}

StoreResult<RenewedLeases> Store::RenewLeases(std::string_view host, int64_t lease_until) {
  Waiter<StoreResult<RenewedLeases>> waiter;
  RenewLeasesAsync(std::string(host), lease_until, waiter.Callback());
  return waiter.Wait();
}

void Store::ExpireLeasesAsync(LeaseExpiry expiry,
                              UniqueFunction<void(StoreResult<ExpiredLeases>)> done) {
  PushDurableAsync<ExpiredLeases>(
      [expiry = std::move(expiry)](WriteSession& session) { return session.ExpireLeases(expiry); },
      std::move(done));
}

StoreResult<ExpiredLeases> Store::ExpireLeases(const LeaseExpiry& expiry) {
  Waiter<StoreResult<ExpiredLeases>> waiter;
  ExpireLeasesAsync(expiry, waiter.Callback());
  return waiter.Wait();
}

void Store::RequestRunCancelAsync(int64_t run_id, std::string reason, int64_t now_ms,
                                  UniqueFunction<void(StoreResult<CancelRequest>)> done) {
  PushDurableAsync<CancelRequest>(
      [run_id, reason = std::move(reason), now_ms](WriteSession& session) {
        return session.RequestRunCancel(run_id, reason, now_ms);
      },
      std::move(done));
}

void Store::ReleaseClaimAsync(int64_t run_id, std::string host,
                              UniqueFunction<void(StoreResult<bool>)> done) {
  PushDurableAsync<bool>([run_id, host = std::move(host)](
                             WriteSession& session) { return session.ReleaseClaim(run_id, host); },
                         std::move(done));
}

StoreResult<bool> Store::ReleaseClaim(int64_t run_id, std::string_view host) {
  Waiter<StoreResult<bool>> waiter;
  ReleaseClaimAsync(run_id, std::string(host), waiter.Callback());
  return waiter.Wait();
}

StoreResult<CancelRequest> Store::RequestRunCancel(int64_t run_id, std::string_view reason,
                                                   int64_t now_ms) {
  Waiter<StoreResult<CancelRequest>> waiter;
  RequestRunCancelAsync(run_id, std::string(reason), now_ms, waiter.Callback());
  return waiter.Wait();
}

// ---- Measurements

Status Store::AddLaunches(std::vector<Launch> launches, Completion committed) {
  const size_t n = launches.size();
  return PushWrite(
      n, false,
      [launches = std::move(launches)](WriteSession& session) {
        return session.InsertLaunches(launches);
      },
      std::move(committed));
}

// Joinable (joined_looper_stats.h): queued dumps are written as one statement.
Status Store::AddLooperStats(std::vector<LooperStatsRow> rows, Completion committed) {
  return writer_->Push(JoinedLooperStats::Task(std::move(rows), std::move(committed), *writer_));
}

Status Store::AddProcSamples(std::vector<ProcSample> samples, Completion committed) {
  const size_t n = samples.size();
  return PushWrite(
      n, false,
      [samples = std::move(samples)](WriteSession& session) {
        return session.InsertProcSamples(samples);
      },
      std::move(committed));
}

Status Store::AddIterationFrames(std::vector<IterationFrames> frames, Completion committed) {
  const size_t n = frames.size();
  return PushWrite(
      n, false,
      [frames = std::move(frames)](WriteSession& session) {
        return session.InsertIterationFrames(frames);
      },
      std::move(committed));
}

Status Store::AddIterationFaults(std::vector<IterationFault> faults, Completion committed) {
  const size_t n = faults.size();
  return PushWrite(
      n, false,
      [faults = std::move(faults)](WriteSession& session) {
        return session.InsertIterationFaults(faults);
      },
      std::move(committed));
}

Status Store::AddLateIterationFaults(int64_t run_id, int64_t iteration,
                                     std::vector<IterationFault> faults,
                                     std::string invalid_reason, Completion committed) {
  const size_t n = faults.size() + 1;
  return PushWrite(
      n, false,
      [run_id, iteration, faults = std::move(faults),
       invalid_reason = std::move(invalid_reason)](WriteSession& session) {
        return session.InsertLateIterationFaults(run_id, iteration, faults, invalid_reason);
      },
      std::move(committed));
}

Status Store::AddIterationMemory(std::vector<IterationMemory> memory, Completion committed) {
  const size_t n = memory.size();
  return PushWrite(
      n, false,
      [memory = std::move(memory)](WriteSession& session) {
        return session.InsertIterationMemory(memory);
      },
      std::move(committed));
}

void Store::AddLaunchesAsync(std::vector<Launch> launches, Completion accepted,
                             Completion committed) {
  const size_t n = launches.size();
  PushWriteAsync(
      n, false,
      [launches = std::move(launches)](WriteSession& session) {
        return session.InsertLaunches(launches);
      },
      std::move(accepted), std::move(committed));
}

void Store::AddLooperStatsAsync(std::vector<LooperStatsRow> rows, Completion accepted,
                                Completion committed) {
  writer_->PushAsync(JoinedLooperStats::Task(std::move(rows), std::move(committed), *writer_),
                     std::move(accepted));
}

void Store::AddProcSamplesAsync(std::vector<ProcSample> samples, Completion accepted,
                                Completion committed) {
  const size_t n = samples.size();
  PushWriteAsync(
      n, false,
      [samples = std::move(samples)](WriteSession& session) {
        return session.InsertProcSamples(samples);
      },
      std::move(accepted), std::move(committed));
}

void Store::AddIterationFramesAsync(std::vector<IterationFrames> frames, Completion accepted,
                                    Completion committed) {
  const size_t n = frames.size();
  PushWriteAsync(
      n, false,
      [frames = std::move(frames)](WriteSession& session) {
        return session.InsertIterationFrames(frames);
      },
      std::move(accepted), std::move(committed));
}

void Store::AddIterationFaultsAsync(std::vector<IterationFault> faults, Completion accepted,
                                    Completion committed) {
  const size_t n = faults.size();
  PushWriteAsync(
      n, false,
      [faults = std::move(faults)](WriteSession& session) {
        return session.InsertIterationFaults(faults);
      },
      std::move(accepted), std::move(committed));
}

void Store::AddLateIterationFaultsAsync(int64_t run_id, int64_t iteration,
                                        std::vector<IterationFault> faults,
                                        std::string invalid_reason, Completion accepted,
                                        Completion committed) {
  const size_t n = faults.size() + 1;
  PushWriteAsync(
      n, false,
      [run_id, iteration, faults = std::move(faults),
       invalid_reason = std::move(invalid_reason)](WriteSession& session) {
        return session.InsertLateIterationFaults(run_id, iteration, faults, invalid_reason);
      },
      std::move(accepted), std::move(committed));
}

void Store::AddIterationMemoryAsync(std::vector<IterationMemory> memory, Completion accepted,
                                    Completion committed) {
  const size_t n = memory.size();
  PushWriteAsync(
      n, false,
      [memory = std::move(memory)](WriteSession& session) {
        return session.InsertIterationMemory(memory);
      },
      std::move(accepted), std::move(committed));
}

// ---- Devices

Status Store::UpsertDevice(const Device& device, Completion committed) {
  return PushWrite(
      1, false, [device](WriteSession& session) { return session.UpsertDevice(device); },
      std::move(committed));
}

Status Store::RecordDeviceState(const DeviceStateChange& change, Completion committed) {
  return PushWrite(
      1, false, [change](WriteSession& session) { return session.RecordDeviceState(change); },
      std::move(committed));
}

void Store::UpsertDeviceAsync(Device device, Completion accepted, Completion committed) {
  PushWriteAsync(
      1, false,
      [device = std::move(device)](WriteSession& session) { return session.UpsertDevice(device); },
      std::move(accepted), std::move(committed));
}

void Store::RecordDeviceStateAsync(DeviceStateChange change, Completion accepted,
                                   Completion committed) {
  PushWriteAsync(
      1, false,
      [change = std::move(change)](WriteSession& session) { return session.RecordDeviceState(change); },
      std::move(accepted), std::move(committed));
}

// ---- Builds

void Store::AddBuildAsync(NewBuild build, UniqueFunction<void(StoreResult<AddedBuild>)> done) {
  PushDurableAsync<AddedBuild>(
      [build = std::move(build)](WriteSession& session) { return session.InsertBuild(build); },
      std::move(done));
}

void Store::DeleteBuildAsync(int64_t build_id, Completion done) {
  PushDurableAsync([build_id](WriteSession& session) { return session.DeleteBuild(build_id); },
                   std::move(done));
}

StoreResult<AddedBuild> Store::AddBuild(const NewBuild& build) {
  Waiter<StoreResult<AddedBuild>> waiter;
  AddBuildAsync(build, waiter.Callback());
  return waiter.Wait();
}

Status Store::DeleteBuild(int64_t build_id) {
  Waiter<Status> waiter;
  DeleteBuildAsync(build_id, waiter.Callback());
  return waiter.Wait();
}

// ---- Hosts and device labels

void Store::UpsertHostAsync(Host host, Completion done) {
  PushDurableAsync(
      [host = std::move(host)](WriteSession& session) { return session.UpsertHost(host); },
      std::move(done));
}

void Store::SetDeviceLabelsAsync(std::string serial, std::vector<std::string> labels,
                                 Completion done) {
  PushDurableAsync([serial = std::move(serial), labels = std::move(labels)](
                       WriteSession& session) { return session.SetDeviceLabels(serial, labels); },
                   std::move(done));
}

void Store::AddAuditEntryAsync(AuditEntry entry, Completion done) {
  PushDurableAsync(
      [entry = std::move(entry)](WriteSession& session) { return session.InsertAuditEntry(entry); },
      std::move(done));
}

Status Store::AddAuditEntry(const AuditEntry& entry) {
  Waiter<Status> waiter;
  AddAuditEntryAsync(entry, waiter.Callback());
  return waiter.Wait();
}

Status Store::UpsertHost(const Host& host) {
  Waiter<Status> waiter;
  UpsertHostAsync(host, waiter.Callback());
  return waiter.Wait();
}

Status Store::SetDeviceLabels(std::string serial, std::vector<std::string> labels) {
  Waiter<Status> waiter;
  SetDeviceLabelsAsync(std::move(serial), std::move(labels), waiter.Callback());
  return waiter.Wait();
}

// ---- Fleet health (schema 0019): durable, as the audit log; a quarantine or a release and its
// event are one task, so one savepoint (both or neither).

void Store::RecordDeviceHealthAsync(DeviceHealthSample sample, Completion done) {
  PushDurableAsync([sample = std::move(sample)](
                       WriteSession& session) { return session.InsertDeviceHealth(sample); },
                   std::move(done));
}

void Store::RecordDeviceEventAsync(DeviceEvent event, Completion done) {
  PushDurableAsync([event = std::move(event)](
                       WriteSession& session) { return session.InsertDeviceEvent(event); },
                   std::move(done));
}

void Store::QuarantineDeviceAsync(DeviceEvent event, Completion done) {
  PushDurableAsync(
      [event = std::move(event)](WriteSession& session) { return session.QuarantineDevice(event); },
      std::move(done));
}

void Store::ReleaseDeviceAsync(DeviceEvent event, Completion done) {
  PushDurableAsync(
      [event = std::move(event)](WriteSession& session) { return session.ReleaseDevice(event); },
      std::move(done));
}

Status Store::RecordDeviceHealth(const DeviceHealthSample& sample) {
  Waiter<Status> waiter;
  RecordDeviceHealthAsync(sample, waiter.Callback());
  return waiter.Wait();
}

Status Store::RecordDeviceEvent(const DeviceEvent& event) {
  Waiter<Status> waiter;
  RecordDeviceEventAsync(event, waiter.Callback());
  return waiter.Wait();
}

Status Store::QuarantineDevice(const DeviceEvent& event) {
  Waiter<Status> waiter;
  QuarantineDeviceAsync(event, waiter.Callback());
  return waiter.Wait();
}

Status Store::ReleaseDevice(const DeviceEvent& event) {
  Waiter<Status> waiter;
  ReleaseDeviceAsync(event, waiter.Callback());
  return waiter.Wait();
}

// ---- Run summaries

void Store::AddRunSummariesAsync(std::vector<RunSummary> summaries, Completion done) {
  const size_t n = summaries.size();
  PushDurableAsync(
      [summaries = std::move(summaries)](WriteSession& session) {
        return session.InsertRunSummaries(summaries);
      },
      std::move(done), n == 0 ? 1 : n);
}

Status Store::AddRunSummaries(std::vector<RunSummary> summaries) {
  Waiter<Status> waiter;
  AddRunSummariesAsync(std::move(summaries), waiter.Callback());
  return waiter.Wait();
}

// ---- Schedules

void Store::CreateScheduleAsync(NewSchedule schedule,
                                UniqueFunction<void(StoreResult<int64_t>)> done) {
  PushDurableAsync<int64_t>([schedule = std::move(schedule)](WriteSession& session) { return session.InsertSchedule(schedule); },
                            std::move(done));
}

void Store::DeleteScheduleAsync(int64_t schedule_id, Completion done) {
  PushDurableAsync([schedule_id](WriteSession& session) { return session.DeleteSchedule(schedule_id); },
                   std::move(done));
}

void Store::SetScheduleEnabledAsync(int64_t schedule_id, bool enabled, Completion done) {
  PushDurableAsync(
      [schedule_id, enabled](WriteSession& session) {
        return session.SetScheduleEnabled(schedule_id, enabled);
      },
      std::move(done));
}

void Store::MarkScheduleFiredAsync(int64_t schedule_id, int64_t fired_at, Completion done) {
  PushDurableAsync(
      [schedule_id, fired_at](WriteSession& session) {
        return session.MarkScheduleFired(schedule_id, fired_at);
      },
      std::move(done));
}

// ---- Device restores

void Store::RecordDeviceRestoreAsync(DeviceRestore restore,
                                     UniqueFunction<void(StoreResult<int64_t>)> done) {
  PushDurableAsync<int64_t>([restore = std::move(restore)](WriteSession& session) { return session.InsertDeviceRestore(restore); },
                            std::move(done));
}

void Store::MarkDeviceRestorePaidAsync(int64_t restore_id, int64_t paid_at, Completion done) {
  PushDurableAsync(
      [restore_id, paid_at](WriteSession& session) {
        return session.MarkDeviceRestorePaid(restore_id, paid_at);
      },
      std::move(done));
}

StoreResult<int64_t> Store::RecordDeviceRestore(const DeviceRestore& restore) {
  Waiter<StoreResult<int64_t>> waiter;
  RecordDeviceRestoreAsync(restore, waiter.Callback());
  return waiter.Wait();
}

Status Store::MarkDeviceRestorePaid(int64_t restore_id, int64_t paid_at) {
  Waiter<Status> waiter;
  MarkDeviceRestorePaidAsync(restore_id, paid_at, waiter.Callback());
  return waiter.Wait();
}

StoreResult<int64_t> Store::CreateSchedule(const NewSchedule& schedule) {
  Waiter<StoreResult<int64_t>> waiter;
  CreateScheduleAsync(schedule, waiter.Callback());
  return waiter.Wait();
}

Status Store::DeleteSchedule(int64_t schedule_id) {
  Waiter<Status> waiter;
  DeleteScheduleAsync(schedule_id, waiter.Callback());
  return waiter.Wait();
}

Status Store::SetScheduleEnabled(int64_t schedule_id, bool enabled) {
  Waiter<Status> waiter;
  SetScheduleEnabledAsync(schedule_id, enabled, waiter.Callback());
  return waiter.Wait();
}

Status Store::MarkScheduleFired(int64_t schedule_id, int64_t fired_at) {
  Waiter<Status> waiter;
  MarkScheduleFiredAsync(schedule_id, fired_at, waiter.Callback());
  return waiter.Wait();
}

// ---- Alerts

void Store::CreateAlertAsync(NewAlert alert, std::vector<NewAlertDelivery> deliveries,
                             UniqueFunction<void(StoreResult<int64_t>)> done) {
  PushDurableAsync<int64_t>(
      [alert = std::move(alert), deliveries = std::move(deliveries)](WriteSession& session) {
        return session.InsertAlert(alert, deliveries);
      },
      std::move(done));
}

void Store::RecordAlertAttemptAsync(AlertAttemptRecord record, Completion done) {
  PushDurableAsync(
      [record = std::move(record)](WriteSession& session) { return session.RecordAlertAttempt(record); },
      std::move(done));
}

void Store::ResolveAlertAsync(int64_t alert_id, int64_t resolved_at, Completion done) {
  PushDurableAsync(
      [alert_id, resolved_at](WriteSession& session) {
        return session.ResolveAlert(alert_id, resolved_at);
      },
      std::move(done));
}

StoreResult<int64_t> Store::CreateAlert(const NewAlert& alert,
                                        const std::vector<NewAlertDelivery>& deliveries) {
  Waiter<StoreResult<int64_t>> waiter;
  CreateAlertAsync(alert, deliveries, waiter.Callback());
  return waiter.Wait();
}

Status Store::RecordAlertAttempt(const AlertAttemptRecord& record) {
  Waiter<Status> waiter;
  RecordAlertAttemptAsync(record, waiter.Callback());
  return waiter.Wait();
}

Status Store::ResolveAlert(int64_t alert_id, int64_t resolved_at) {
  Waiter<Status> waiter;
  ResolveAlertAsync(alert_id, resolved_at, waiter.Callback());
  return waiter.Wait();
}

void Store::FlushAsync(Completion done) {
  // No records of its own: a durable no-op, committed after everything queued before it.
  PushDurableAsync([](WriteSession&) { return OkStatus(); }, std::move(done), 0);
}

Status Store::Flush() {
  Waiter<Status> waiter;
  FlushAsync(waiter.Callback());
  return waiter.Wait();
}

// ---- Reads

std::unique_ptr<Reader> Store::AcquireReader() { return readers_->Acquire(); }
void Store::ReleaseReader(std::unique_ptr<Reader> reader) { readers_->Release(std::move(reader)); }
void Store::PostRead(UniqueFunction<void(Reader&)> task) { readers_->Post(std::move(task)); }

// ---- Maintenance

void Store::PruneAsync(const RetentionPolicy& policy,
                       UniqueFunction<void(StoreResult<RetentionResult>)> done) {
  StartRetention(*writer_, options_.batch_max_records, policy, std::move(done));
}

StoreResult<RetentionResult> Store::Prune(const RetentionPolicy& policy) {
  Waiter<StoreResult<RetentionResult>> waiter;
  PruneAsync(policy, waiter.Callback());
  return waiter.Wait();
}

Status Store::Backup(const std::string& destination, const BackupOptions& options) {
  if (pg::IsPostgresUrl(options_.path)) {
    return MakeStoreError(StoreErrorCode::kInvalidArgument,
                          "a PostgreSQL store is backed up with pg_dump, not droidlab backup");
  }
  return BackupDatabase(options_.path, options_.busy_timeout_ms, destination, options);
}

void Store::BackupAsync(std::string destination, BackupOptions options, Completion done) {
  maintenance_->Post([this, destination = std::move(destination), options,
                      done = std::move(done)]() mutable { done(Backup(destination, options)); });
}

StoreStats Store::stats() const {
  const WriterStats w = writer_->stats();
  StoreStats s;
  s.batches_committed = w.batches_committed;
  s.records_committed = w.records_committed;
  s.batches_lost = w.batches_lost;
  s.records_lost = w.records_lost;
  s.tasks_failed = w.tasks_failed;
  s.writes_joined = w.writes_joined;
  s.queued_records = writer_->queued_records();
  s.connection_losses = w.connection_losses;
  s.reconnects = w.reconnects;
  s.reader_reconnects = readers_->reconnects();
  return s;
}

}  // namespace droidlab::store
