#include "daemon/event_stream_parser.h"

namespace droidlab::daemon {

std::vector<ServerEvent> EventStreamParser::Feed(std::string_view bytes) {
  std::vector<ServerEvent> out;
  for (char c : bytes) {
    if (c == '\n' && after_cr_) {
      after_cr_ = false;
      continue;
    }
    after_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      Line(line_, out);
      line_.clear();
    } else {
      line_ += c;
    }
  }
  return out;
}

void EventStreamParser::Line(std::string_view line, std::vector<ServerEvent>& out) {
  if (line.empty()) {
    if (has_data_) out.push_back(ServerEvent{event_.empty() ? "message" : event_, data_});
    event_.clear();
    data_.clear();
    has_data_ = false;
    return;
  }
  if (line.front() == ':') return;
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "event") {
    event_ = std::string(value);
  } else if (field == "data") {
    if (has_data_) data_ += '\n';
    data_ += value;
    has_data_ = true;
  }
  // "id" and "retry" mean nothing to a client that re-reads the run when it reconnects.
}

}  // namespace droidlab::daemon
