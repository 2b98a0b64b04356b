// TaskThread: one thread of the store's own that runs posted tasks in order, for the calls that
// block for long and have no place on the writer or a reader (an online backup). Internal to
// store/.
//
// Threading: Post is thread-safe and never blocks. The destructor runs every task already
// posted, then joins the thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "store/unique_function.h"

namespace droidlab::store {

class TaskThread {
 public:
  TaskThread();
  ~TaskThread();
  TaskThread(const TaskThread&) = delete;
  TaskThread& operator=(const TaskThread&) = delete;

  void Post(UniqueFunction<void()> task);

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<UniqueFunction<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace droidlab::store
