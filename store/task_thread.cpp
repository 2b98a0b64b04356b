#include "store/task_thread.h"

#include <utility>

namespace droidlab::store {

TaskThread::TaskThread() : thread_([this] { Work(); }) {}

TaskThread::~TaskThread() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  thread_.join();
}

void TaskThread::Post(UniqueFunction<void()> task) {
  {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void TaskThread::Work() {
  for (;;) {
    UniqueFunction<void()> task;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and every posted task has run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace droidlab::store
