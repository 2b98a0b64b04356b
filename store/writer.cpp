#include "store/writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace droidlab::store {

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
  if (!JoinedLocked(task)) queue_.push_back(std::move(task));
  lock.unlock();
  not_empty_.notify_one();
  return OkStatus();
}

bool Writer::JoinedLocked(WriteTask& task) {
  if (!task.joinable || queue_.empty()) return false;
  WriteTask& newest = queue_.back();
  if (!newest.joinable || newest.durable || task.durable ||
      newest.records + task.records > options_.join_max_records) {
    return false;
  }
  if (!newest.joinable->Join(*task.joinable)) return false;
  newest.records += task.records;
  ++stats_.writes_joined;
  return true;
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
  if (!JoinedLocked(task)) queue_.push_back(std::move(task));
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
        if (!JoinedLocked(parked_.front().task)) queue_.push_back(std::move(parked_.front().task));
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
    if (!batch_open_) {
      if (Status begun = BeginBatch(task.durable); !begun) {
        // A connection lost for good (the store closing while the server is away) says so;
        // other failures are what they always were.
        const StoreError error = begun.error().code == StoreErrorCode::kUnavailable
                                     ? begun.error()
                                     : MakeStoreError(StoreErrorCode::kIo, "cannot begin a write");
        if (task.on_done) task.on_done(error);
        continue;
      }
    }
    ApplyTask(task);
    if (batch_open_ &&
        (batch_durable_ || batch_records_ >= options_.batch_max_records ||
         std::chrono::steady_clock::now() - batch_started_ >= options_.batch_max_delay)) {
      CommitBatch();
    }
  }
}

Status Writer::BeginBatch(bool durable) {
  batch_open_ = true;
  batch_full_ = durable;
  batch_durable_ = false;
  batch_records_ = 0;
  batch_started_ = std::chrono::steady_clock::now();
  // Durable: this batch's commit is synced to disk before anyone is told.
  Status begun = session_->BeginBatch(durable);
  // The connection broke while the writer was idle (a server restarted): begin on a new one.
  if (!begun && CanRecover(begun.error())) {
    StoreError error = begun.error();
    if (Recover(error, /*lost_at_commit=*/false) == Recovery::kReplayed) return OkStatus();
    begun = error;
  }
  if (!begun) {
    batch_open_ = false;
    spdlog::error("store: beginning a batch on {}: {}", session_->name(), begun.error().message);
  }
  return begun;
}

Status Writer::ApplyInSavepoint(UniqueFunction<Status(WriteSession&)>& apply, bool replay) {
  Status status = session_->Savepoint();
  if (status && apply) status = apply(*session_);
  if (status) {
    status = session_->ReleaseSavepoint();
  } else if (!LosesTheBatch(status.error().code) && session_->InTransaction()) {
    // This task alone is undone; the batch goes on.
    if (session_->RollbackToSavepoint() && !replay) {  // counted once, not once an attempt
      std::lock_guard lock(mu_);
      ++stats_.tasks_failed;
    }
  }
  return status;
}

bool Writer::EndsTheBatch(const Status& status) {
  return !status && (LosesTheBatch(status.error().code) || !session_->InTransaction());
}

bool Writer::CanRecover(const StoreError& error) const {
  return error.code == StoreErrorCode::kUnavailable && session_->CanReconnect() &&
         !gave_up_reconnecting_;
}

void Writer::ApplyTask(WriteTask& task) {
  Status status = ApplyInSavepoint(task.apply, /*replay=*/false);
  batch_.push_back(Applied{std::move(task.apply), std::move(task.on_done), status, task.records});
  batch_records_ += task.records;
  if (task.durable) batch_durable_ = true;
  if (!EndsTheBatch(status)) return;
  if (StoreError error = status.error(); CanRecover(error)) {
    Recover(error, /*lost_at_commit=*/false);
  } else {
    FailBatch(status.error());
  }
}

// Replaying is safe because the server rolled the whole batch back: each apply (store.cpp's,
// retention.cpp's) finds the database as it found it the first time, reads only what it
// captured (records, ids, a policy whose `now` was fixed when retention began) without moving
// it out, and writes its results (a new id, a step's counts) over the last attempt's; what
// follows a task (its completion, retention's next step) runs from on_done, once, after the
// commit.
Writer::Recovery Writer::Recover(StoreError& error, bool lost_at_commit) {
  for (;;) {
    session_->RollbackBatch();
    size_t records = 0;
    for (const auto& applied : batch_) records += applied.records;
    if (batch_.empty()) {
      spdlog::warn("store: connection to {} lost between batches: {}; reconnecting",
                   session_->name(), error.message);
    } else {
      spdlog::warn(
          "store: connection to {} lost{} with a batch of {} tasks ({} records): {}; "
          "reconnecting, the batch kept",
          session_->name(), lost_at_commit ? " at its commit" : "", batch_.size(), records,
          error.message);
    }
    {
      std::lock_guard lock(mu_);
      ++stats_.connection_losses;
    }
    if (Status reconnected = ReconnectWithBackoff(); !reconnected) {
      error = MakeStoreError(StoreErrorCode::kUnavailable,
                             error.message + "; the store closed before it could reconnect: " +
                                 reconnected.error().message);
      FailBatch(error);
      return Recovery::kLost;
    }
    if (lost_at_commit) {
      StoreResult<bool> landed = session_->LostCommitTookEffect();
      if (!landed) {
        error = landed.error();
        if (!CanRecover(error)) {
          FailBatch(error);
          return Recovery::kLost;
        }
        continue;
      }
      if (*landed) {
        spdlog::info("store: the batch's commit had reached {} before the connection broke",
                     session_->name());
        return Recovery::kCommitted;
      }
      lost_at_commit = false;
    }
    Status replayed = ReplayBatch();
    if (replayed) return Recovery::kReplayed;
    error = replayed.error();
    if (!CanRecover(error)) {
      FailBatch(error);
      return Recovery::kLost;
    }
  }
}

Status Writer::ReconnectWithBackoff() {
  std::chrono::milliseconds delay = options_.reconnect_first_delay;
  for (int attempt = 1;; ++attempt) {
    Status reconnected = session_->Reconnect();
    if (reconnected) {
      {
        std::lock_guard lock(mu_);
        ++stats_.reconnects;
      }
      spdlog::warn("store: reconnected to {} (attempt {})", session_->name(), attempt);
      return OkStatus();
    }
    bool stopping = false;
    {
      std::unique_lock lock(mu_);
      // Stop() wakes this wait: a store closing while the server is away gives up at once.
      stopping = not_empty_.wait_for(lock, delay, [&] { return stopping_; });
    }
    if (stopping) {
      gave_up_reconnecting_ = true;
      spdlog::error("store: reconnecting to {} failed (attempt {}) and the store is closing: {}",
                    session_->name(), attempt, reconnected.error().message);
      return reconnected;
    }
    spdlog::warn("store: reconnecting to {} failed (attempt {}), next in {} ms: {}",
                 session_->name(), attempt,
                 std::min(delay * 2, options_.reconnect_max_delay).count(),
                 reconnected.error().message);
    delay = std::min(delay * 2, options_.reconnect_max_delay);
  }
}

Status Writer::ReplayBatch() {
  if (Status begun = session_->BeginBatch(batch_full_); !begun) return begun;
  for (auto& applied : batch_) {
    applied.status = ApplyInSavepoint(applied.apply, /*replay=*/true);
    if (EndsTheBatch(applied.status)) return applied.status;
  }
  size_t records = 0;
  for (const auto& applied : batch_) records += applied.records;
  if (!batch_.empty()) {
    spdlog::info("store: batch of {} tasks ({} records) applied again on {}", batch_.size(),
                 records, session_->name());
  }
  return OkStatus();
}

void Writer::CommitBatch() {
  if (!batch_open_) return;
  for (;;) {
    if (options_.before_commit) options_.before_commit(*session_, batch_durable_);
    Status committed = session_->CommitBatch();
    if (committed) break;
    if (!CanRecover(committed.error())) {
      FailBatch(committed.error());
      return;
    }
    StoreError error = committed.error();
    const Recovery recovery = Recover(error, /*lost_at_commit=*/true);
    if (recovery == Recovery::kLost) return;
    if (recovery == Recovery::kCommitted) break;
    // Replayed: the batch is open again on the new connection; commit it.
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
  if (lost.empty()) return;  // a batch that never began held nothing
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
