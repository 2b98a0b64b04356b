#include "adb/device_list.h"

#include "base/parse_int.h"

namespace droidlab::adb {
namespace {

constexpr std::string_view kNoPermissions = "no permissions";
// transport.cpp append_transport prints this for a device with an empty serial.
constexpr std::string_view kNoSerial = "(no serial number)";

std::string_view TrimLeftSpaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

// Takes " key:value" off the end of `rest` when present. The server appends the keys in a fixed
// order (product, model, device, transport_id), so reading them back from the end finds each
// even when an earlier value holds spaces.
std::string TakeTrailingField(std::string_view& rest, std::string_view key) {
  size_t pos = rest.rfind(key);
  if (pos == std::string_view::npos) return {};
  std::string value(rest.substr(pos + key.size()));
  rest = rest.substr(0, pos);
  return value;
}

// host:devices puts a tab after the serial; host:devices-l only spaces (a product may hold a
// tab, so look at the first separator only).
bool IsShortForm(std::string_view line) {
  if (line.substr(0, kNoSerial.size()) == kNoSerial) line.remove_prefix(kNoSerial.size());
  size_t sep = line.find_first_of(" \t");
  return sep != std::string_view::npos && line[sep] == '\t';
}

bool ParseShortLine(std::string_view line, DeviceEntry& entry) {
  size_t tab = line.find('\t');
  entry.serial = std::string(line.substr(0, tab));
  entry.state_text = std::string(line.substr(tab + 1));
  entry.state = ParseDeviceState(entry.state_text);
  return !entry.serial.empty() && !entry.state_text.empty();
}

bool ParseLongLine(std::string_view line, DeviceEntry& entry) {
  std::string_view rest = line;
  size_t id_pos = rest.rfind(" transport_id:");
  if (id_pos != std::string_view::npos) {
    auto id = ParseInt<uint64_t>(rest.substr(id_pos + 14));
    if (!id) return false;
    entry.transport_id = *id;
    rest = rest.substr(0, id_pos);
  }
  entry.device = TakeTrailingField(rest, " device:");
  entry.model = TakeTrailingField(rest, " model:");
  entry.product = TakeTrailingField(rest, " product:");

  // "%-22s %s": the serial, padding spaces, the state, then the devpath if any.
  size_t serial_end;
  if (rest.substr(0, kNoSerial.size()) == kNoSerial) {
    serial_end = kNoSerial.size();
  } else {
    serial_end = rest.find(' ');
    if (serial_end == std::string_view::npos) return false;  // no state
  }
  entry.serial = std::string(rest.substr(0, serial_end));
  rest = TrimLeftSpaces(rest.substr(serial_end));
  if (rest.empty()) return false;

  size_t state_end = rest.find(' ');
  if (rest.substr(0, kNoPermissions.size()) == kNoPermissions) {
    // "no permissions (reason); see [URL]": spaces inside, ends at the URL's ']'.
    size_t see = rest.find("; see [");
    size_t close = see == std::string_view::npos ? see : rest.find(']', see);
    state_end = close == std::string_view::npos ? rest.size() : close + 1;
  }
  entry.state_text = std::string(rest.substr(0, state_end));
  entry.state = ParseDeviceState(entry.state_text);
  if (state_end < rest.size()) entry.devpath = std::string(TrimLeftSpaces(rest.substr(state_end)));
  return !entry.serial.empty();
}

}  // namespace

DeviceState ParseDeviceState(std::string_view text) {
  if (text == "device") return DeviceState::kDevice;
  if (text == "offline") return DeviceState::kOffline;
  if (text == "unauthorized") return DeviceState::kUnauthorized;
  if (text == "authorizing") return DeviceState::kAuthorizing;
  if (text == "connecting") return DeviceState::kConnecting;
  if (text.substr(0, kNoPermissions.size()) == kNoPermissions) return DeviceState::kNoPermissions;
  if (text == "recovery") return DeviceState::kRecovery;
  if (text == "rescue") return DeviceState::kRescue;
  if (text == "sideload") return DeviceState::kSideload;
  if (text == "bootloader") return DeviceState::kBootloader;
  if (text == "host") return DeviceState::kHost;
  return DeviceState::kUnknown;
}

std::string_view DeviceStateName(DeviceState state) {
  switch (state) {
    case DeviceState::kDevice:
      return "device";
    case DeviceState::kOffline:
      return "offline";
    case DeviceState::kUnauthorized:
      return "unauthorized";
    case DeviceState::kAuthorizing:
      return "authorizing";
    case DeviceState::kConnecting:
      return "connecting";
    case DeviceState::kNoPermissions:
      return "no permissions";
    case DeviceState::kRecovery:
      return "recovery";
    case DeviceState::kRescue:
      return "rescue";
    case DeviceState::kSideload:
      return "sideload";
    case DeviceState::kBootloader:
      return "bootloader";
    case DeviceState::kHost:
      return "host";
    case DeviceState::kUnknown:
      return "unknown";
  }
  return "unknown";
}

DeviceList ParseDeviceList(std::string_view payload) {
  DeviceList list;
  while (!payload.empty()) {
    size_t nl = payload.find('\n');
    std::string_view line = payload.substr(0, nl);
    payload.remove_prefix(nl == std::string_view::npos ? payload.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;

    DeviceEntry entry;
    bool ok = IsShortForm(line) ? ParseShortLine(line, entry) : ParseLongLine(line, entry);
    if (ok) {
      list.devices.push_back(std::move(entry));
    } else {
      ++list.bad_lines;
    }
  }
  return list;
}

}  // namespace droidlab::adb
