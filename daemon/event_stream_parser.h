// The text/event-stream format (the WHATWG HTML standard, "Server-sent events") read from bytes
// as they arrive, in pieces of any size: what GET /api/v1/events sends.
//
//   : droidlab events
//
//   event: run
//   data: {"id":12,"serial":"R58M123ABC","status":"running","error":null,"progress":{…}}
//
// Lines end in \n, \r\n or \r; ':' starts a comment (the daemon's keep-alives); "data" lines of
// one event are joined with '\n'; an event with no data is not dispatched, as browsers do.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace droidlab::daemon {

struct ServerEvent {
  std::string event = "message";  // the "event:" field, "message" when absent
  std::string data;
};

class EventStreamParser {
 public:
  // The events completed by `bytes` (a blank line ends one).
  std::vector<ServerEvent> Feed(std::string_view bytes);

 private:
  void Line(std::string_view line, std::vector<ServerEvent>& out);

  std::string line_;
  bool after_cr_ = false;  // a '\r' ended the last line: a '\n' right after it ends nothing
  std::string event_;
  std::string data_;
  bool has_data_ = false;
};

}  // namespace droidlab::daemon
