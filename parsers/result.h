// Result<T>: a value or a ParseError a person can act on. Parsers never throw across the module
// boundary; they return one of these (base/result.h).
#pragma once

#include <string>
#include <utility>

#include "base/result.h"

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
using Result = BasicResult<T, ParseError>;

inline ParseError MakeError(ParseErrorCode code, std::string message) {
  return ParseError{code, std::move(message)};
}

}  // namespace droidlab::parsers
