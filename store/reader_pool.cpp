#include "store/reader_pool.h"

#include <utility>

namespace droidlab::store {

ReaderPool::ReaderPool(std::vector<std::unique_ptr<Reader>> readers, BeforeLend before_lend)
    : before_lend_(std::move(before_lend)) {
  const size_t threads = readers.size();
  for (auto& reader : readers) free_.push_back(std::move(reader));
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

ReaderPool::~ReaderPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  tasks_ready_.notify_all();
  for (auto& thread : threads_) thread.join();
}

std::unique_ptr<Reader> ReaderPool::Acquire() {
  std::unique_lock lock(mu_);
  reader_free_.wait(lock, [&] { return !free_.empty(); });
  auto reader = std::move(free_.back());
  free_.pop_back();
  lock.unlock();
  if (before_lend_ && before_lend_(*reader)) ++reconnects_;
  return reader;
}

void ReaderPool::Release(std::unique_ptr<Reader> reader) {
  if (!reader) return;
  {
    std::lock_guard lock(mu_);
    free_.push_back(std::move(reader));
  }
  reader_free_.notify_one();
}

void ReaderPool::Post(UniqueFunction<void(Reader&)> task) {
  {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
  }
  tasks_ready_.notify_one();
}

void ReaderPool::Work() {
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

}  // namespace droidlab::store
