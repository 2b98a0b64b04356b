#include "store/writer.h"

#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

namespace droidlab::store {

namespace {

// Errors after which the open transaction cannot be trusted to hold anything: the whole batch
// is rolled back and reported lost.
bool LosesTheBatch(StoreErrorCode code) {
  switch (code) {
    case StoreErrorCode::kDiskFull:
    case StoreErrorCode::kIo:
    case StoreErrorCode::kCorrupt:
    case StoreErrorCode::kLocked:
    case StoreErrorCode::kReadOnly:
    case StoreErrorCode::kInternal:
    case StoreErrorCode::kUnavailable:
      return true;
    default:
      return false;
  }
}

}  // namespace

Writer::Writer(std::unique_ptr<WriteSession> session, WriterOptions options)
    : session_(std::move(session)), options_(options), thread_([this] { Run(); }) {}

Writer::~Writer() { Stop(); }

Status Writer::Push(WriteTask task) {
  std::unique_lock lock(mu_);
  not_full_.wait(lock, [&] {
    return stopping_ || (parked_.empty() && (queued_records_ == 0 ||
                                             queued_records_ + task.records <=
                                                 options_.queue_capacity_records));
  });
  if (stopping_) {
    return MakeStoreError(StoreErrorCode::kShuttingDown,
                          "the store is closing: write not taken");
  }
  queued_records_ += task.records;
  queue_.push_back(std::move(task));
  lock.unlock();
  not_empty_.notify_one();
  return OkStatus();
}

void Writer::PushAsync(WriteTask task, UniqueFunction<void(const Status&)> on_accepted) {
  std::unique_lock lock(mu_);
  if (stopping_) {
    lock.unlock();
    if (on_accepted) {
      on_accepted(MakeStoreError(StoreErrorCode::kShuttingDown,
                                 "the store is closing: write not taken"));
    }
    return;
  }
  const bool room =
      parked_.empty() && (queued_records_ == 0 || queued_records_ + task.records <=
                                                      options_.queue_capacity_records);
  if (!room) {
    parked_.push_back(Parked{std::move(task), std::move(on_accepted)});
    return;
  }
  queued_records_ += task.records;
  queue_.push_back(std::move(task));
  lock.unlock();
  not_empty_.notify_one();
  if (on_accepted) on_accepted(OkStatus());
}

void Writer::PushUnbounded(WriteTask task) {
  {
    std::lock_guard lock(mu_);
    queued_records_ += task.records;
    queue_.push_back(std::move(task));
  }
  not_empty_.notify_one();
}

void Writer::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  not_empty_.notify_all();
  not_full_.notify_all();
  if (thread_.joinable()) thread_.join();
}

WriterStats Writer::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

size_t Writer::queued_records() const {
  std::lock_guard lock(mu_);
  return queued_records_;
}

void Writer::Run() {
  for (;;) {
    WriteTask task;
    std::vector<UniqueFunction<void(const Status&)>> accepted;
    {
      std::unique_lock lock(mu_);
      auto ready = [&] { return !queue_.empty() || stopping_; };
      if (batch_open_) {
        not_empty_.wait_until(lock, batch_started_ + options_.batch_max_delay, ready);
      } else {
        not_empty_.wait(lock, ready);
      }
      if (queue_.empty()) {
        if (batch_open_) {
          lock.unlock();
          CommitBatch();  // the batch's time is up, or the store is closing
          continue;
        }
        if (stopping_) break;
        continue;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
      queued_records_ -= task.records;
      // Admit parked async producers, in order, while there is room.
      while (!parked_.empty() &&
             (queued_records_ == 0 || queued_records_ + parked_.front().task.records <=
                                          options_.queue_capacity_records)) {
        queued_records_ += parked_.front().task.records;
        queue_.push_back(std::move(parked_.front().task));
        accepted.push_back(std::move(parked_.front().on_accepted));
        parked_.pop_front();
      }
    }
    not_full_.notify_all();
    for (auto& callback : accepted) {
      if (callback) callback(OkStatus());
    }

    // A durable task that finds a batch begun at NORMAL: that batch is committed as it is (its
    // tasks did not ask for a sync), and the durable one gets a batch of its own at FULL.
    if (batch_open_ && task.durable && !batch_full_) CommitBatch();
    if (!batch_open_ && !BeginBatch(task.durable)) {
      const StoreError error = MakeStoreError(StoreErrorCode::kIo, "cannot begin a write");
      if (task.on_done) task.on_done(error);
      continue;
    }
    ApplyTask(task);
    if (batch_open_ &&
        (batch_durable_ || batch_records_ >= options_.batch_max_records ||
         std::chrono::steady_clock::now() - batch_started_ >= options_.batch_max_delay)) {
      CommitBatch();
    }
  }
}

bool Writer::BeginBatch(bool durable) {
  // Durable: this batch's commit is synced to disk before anyone is told.
  Status begun = session_->BeginBatch(durable);
  if (!begun) {
    spdlog::error("store: beginning a batch on {}: {}", session_->name(), begun.error().message);
    return false;
  }
  batch_open_ = true;
  batch_full_ = durable;
  batch_durable_ = false;
  batch_records_ = 0;
  batch_started_ = std::chrono::steady_clock::now();
  return true;
}

void Writer::ApplyTask(WriteTask& task) {
  Status status = OkStatus();
  status = session_->Savepoint();
  if (status && task.apply) status = task.apply(*session_);
  if (status) {
    status = session_->ReleaseSavepoint();
  } else if (!LosesTheBatch(status.error().code) && session_->InTransaction()) {
    // This task alone is undone; the batch goes on.
    if (session_->RollbackToSavepoint()) {
      std::lock_guard lock(mu_);
      ++stats_.tasks_failed;
    }
  }
  batch_.push_back(Applied{std::move(task.on_done), status, task.records});
  batch_records_ += task.records;
  if (task.durable) batch_durable_ = true;

  if (!status && (LosesTheBatch(status.error().code) || !session_->InTransaction())) {
    FailBatch(status.error());
  }
}

void Writer::CommitBatch() {
  if (!batch_open_) return;
  if (options_.before_commit) options_.before_commit(*session_, batch_durable_);
  Status committed = session_->CommitBatch();
  if (!committed) {
    FailBatch(committed.error());
    return;
  }
  batch_open_ = false;
  std::vector<Applied> done;
  done.swap(batch_);
  {
    std::lock_guard lock(mu_);
    ++stats_.batches_committed;
    for (const auto& applied : done) {
      if (applied.status) stats_.records_committed += applied.records;
    }
  }
  for (auto& applied : done) {
    if (applied.on_done) applied.on_done(applied.status);
  }
}

void Writer::FailBatch(const StoreError& error) {
  session_->RollbackBatch();
  batch_open_ = false;
  std::vector<Applied> lost;
  lost.swap(batch_);
  size_t records = 0;
  for (const auto& applied : lost) records += applied.records;
  spdlog::error("store: batch of {} tasks ({} records) on {} rolled back and lost: {}",
                lost.size(), records, session_->name(), error.message);
  {
    std::lock_guard lock(mu_);
    ++stats_.batches_lost;
    stats_.records_lost += records;
  }
  for (auto& applied : lost) {
    if (applied.on_done) applied.on_done(error);
  }
}

}  // namespace droidlab::store
