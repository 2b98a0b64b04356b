// BasicResult<T, E>: a value or an error a person can act on. Every module returns these at its
// boundary instead of throwing (std::expected is C++23; g++ 12 has no <expected>), each with its
// own error type — parsers::ParseError, adb::AdbError, store::StoreError, orchestrator::CronError
// — and its own alias (`parsers::Result<T>`, `adb::Result<T>`, `store::StoreResult<T>`, …).
// One template, so that every module's result reads and behaves the same.
#pragma once

#include <utility>
#include <variant>

namespace droidlab {

template <class T, class E>
class BasicResult {
 public:
  // By reference, not by value: parsers return large records (ProcPidStat is ~900 bytes) on
  // hot paths, and a by-value parameter costs one more copy per call.
  BasicResult(const T& value) : v_(value) {}        // NOLINT(google-explicit-constructor)
  BasicResult(T&& value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  BasicResult(E error) : v_(std::move(error)) {}    // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

// Success with nothing to return, or an error.
template <class E>
class BasicResult<void, E> {
 public:
  BasicResult() = default;
  BasicResult(E error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const E& error() const { return error_; }

 private:
  E error_{};
  bool ok_ = true;
};

}  // namespace droidlab
