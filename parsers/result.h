// Result<T>: a value or a ParseError a person can act on. Parsers never throw across the module
// boundary; they return one of these (std::expected is C++23, g++ 12 has no <expected>).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace droidlab::parsers {

enum class ParseErrorCode {
  kEmpty,          // nothing to parse (empty line, empty input)
  kNotThisFormat,  // the input is of another kind (e.g. not a looper_stats dump)
  kMalformed,      // the right kind, but a field is missing or not a number
  kServiceMissing, // the device has no such service (e.g. looper_stats before Android 10)
  kPermissionDenied,
};

struct ParseError {
  ParseErrorCode code;
  std::string message;  // one line, says what was expected and what was found
};

template <class T>
class Result {
 public:
  // By reference, not by value: parsers return large records (ProcPidStat is ~900 bytes) on
  // hot paths, and a by-value parameter costs one more copy per call.
  Result(const T& value) : v_(value) {}                 // NOLINT(google-explicit-constructor)
  Result(T&& value) : v_(std::move(value)) {}           // NOLINT(google-explicit-constructor)
  Result(ParseError error) : v_(std::move(error)) {}    // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const ParseError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ParseError> v_;
};

inline ParseError MakeError(ParseErrorCode code, std::string message) {
  return ParseError{code, std::move(message)};
}

}  // namespace droidlab::parsers
