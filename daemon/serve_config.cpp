#include "daemon/serve_config.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/parse_int.h"
#include "orchestrator/alerts/webhook_url.h"
#include "orchestrator/spec/device_labels.h"

namespace droidlab::daemon {

namespace {

using ConfigResult = BasicResult<ServeConfig, std::string>;

bool ParsePort(std::string_view text, uint16_t& port) {
  const std::optional<uint16_t> value = ParseInt<uint16_t>(text);
  if (!value) return false;
  port = *value;
  return true;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t start = 0;
  while (start < s.size() && s[start] == ' ') ++start;
  return s.substr(start);
}

bool KnownLogLevel(std::string_view level) {
  static const std::set<std::string_view> kLevels{"trace", "debug", "info", "warn",
                                                  "error", "critical", "off"};
  return kLevels.count(level) > 0;
}

// "health": fleet health's checks and recovery ladder (orchestrator/lab/device_health.h).
template <class Where>
std::optional<std::string> ApplyHealth(const nlohmann::json& v, const Where& where,
                                       ServeConfig& config) {
  if (!v.is_object()) return where("health") + " must be an object";
  struct Bounded {
    const char* key;
    int64_t most;
    int64_t ServeConfig::Health::*field;
  };
  static constexpr Bounded kNumbers[] = {
      {"interval_seconds", 86400, &ServeConfig::Health::interval_seconds},
      {"probe_timeout_seconds", 600, &ServeConfig::Health::probe_timeout_seconds},
      {"settle_seconds", 3600, &ServeConfig::Health::settle_seconds},
      {"boot_timeout_seconds", 3600, &ServeConfig::Health::boot_timeout_seconds},
      {"max_reboots_per_day", 24, &ServeConfig::Health::max_reboots_per_day},
  };
  for (auto h = v.begin(); h != v.end(); ++h) {
    const std::string name = "health." + h.key();
    const nlohmann::json& value = h.value();
    if (h.key() == "recovery_reboot") {
      if (!value.is_boolean()) return where(name) + " must be true or false";
      config.health.recovery_reboot = value.get<bool>();
      continue;
    }
    const Bounded* number = nullptr;
    for (const Bounded& b : kNumbers) {
      if (h.key() == b.key) number = &b;
    }
    if (number == nullptr) return where(name) + " is not a setting";
    if (!value.is_number_integer() || value.get<int64_t>() < 1 ||
        value.get<int64_t>() > number->most) {
      return where(name) + " must be an integer from 1 to " + std::to_string(number->most);
    }
    config.health.*(number->field) = value.get<int64_t>();
  }
  return std::nullopt;
}

// Applies the config file's keys onto `config`.
// "alerts": {"webhooks": [{"url", "secret"}], "ca_file", "max_attempts", "timeout_seconds"}.
template <class Where>
std::optional<std::string> ApplyAlerts(const nlohmann::json& v, const Where& where,
                                       ServeConfig& config) {
  if (!v.is_object()) return where("alerts") + " must be an object";
  for (auto a = v.begin(); a != v.end(); ++a) {
    const std::string name = "alerts." + a.key();
    const nlohmann::json& value = a.value();
    if (a.key() == "webhooks") {
      if (!value.is_array()) return where(name) + " must be an array of {\"url\", \"secret\"}";
      config.alert_webhooks.clear();
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string at = name + "[" + std::to_string(i) + "]";
        const nlohmann::json& hook = value[i];
        if (!hook.is_object()) return where(at) + " must be an object {\"url\", \"secret\"}";
        ServeConfig::Webhook webhook;
        for (auto h = hook.begin(); h != hook.end(); ++h) {
          if (h.key() != "url" && h.key() != "secret") {
            return where(at + "." + h.key()) + " is not a setting";
          }
          if (!h.value().is_string()) return where(at + "." + h.key()) + " must be a string";
          (h.key() == "url" ? webhook.url : webhook.secret) = h.value().get<std::string>();
        }
        if (webhook.url.empty()) return where(at + ".url") + " is required";
        auto url = orchestrator::ParseWebhookUrl(webhook.url);
        if (!url) return where(at + ".url") + ": " + url.error();
        if (webhook.secret.empty()) {
          return where(at + ".secret") +
                 " is required: receivers check each delivery's HMAC-SHA256 signature with it";
        }
        for (const auto& earlier : config.alert_webhooks) {
          if (earlier.url == webhook.url) return where(at + ".url") + " is given twice";
        }
        config.alert_webhooks.push_back(std::move(webhook));
      }
    } else if (a.key() == "ca_file") {
      if (!value.is_string())
        return where(name) + " must be a path (a PEM file of CA certificates)";
      config.alert_ca_file = value.get<std::string>();
    } else if (a.key() == "max_attempts" || a.key() == "timeout_seconds") {
      const int64_t most = a.key() == "max_attempts" ? 100 : 300;
      if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > most) {
        return where(name) + " must be an integer from 1 to " + std::to_string(most);
      }
      (a.key() == "max_attempts" ? config.alert_max_attempts : config.alert_timeout_seconds) =
          value.get<int64_t>();
    } else {
      return where(name) + " is not a setting";
    }
  }
  return std::nullopt;
}

// A token file into `config`: a bare token or named ones, replacing whichever was there.
std::optional<std::string> ApplyTokenFile(const std::string& path, FileReader read_file,
                                          ServeConfig& config) {
  auto text = ReadTokenFile(path, read_file);
  if (!text) return text.error().message;
  auto contents = ParseTokenFile(path, *text);
  if (!contents) return contents.error().message;
  config.token = contents->bare;
  config.named_tokens = std::move(contents->named);
  return std::nullopt;
}

std::optional<std::string> ApplyConfigFile(const std::string& path, FileReader read_file,
                                           ServeConfig& config) {
  auto bytes = read_file(path);
  if (!bytes) return "--config: " + bytes.error().message;
  nlohmann::json doc = nlohmann::json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return "--config " + path + ": not a JSON object";
  }
  auto where = [&](const std::string& key) { return "--config " + path + ": \"" + key + "\""; };
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& v = it.value();
    if (key == "listen" || key == "db" || key == "adb_server" || key == "adb_path" ||
        key == "token_file" || key == "log_level" || key == "builds_dir" || key == "host_name") {
      if (!v.is_string()) return where(key) + " must be a string";
      const std::string s = v.get<std::string>();
      if (key == "listen") {
        auto addr = ParseListenAddress(s);
        if (!addr) return where(key) + ": " + addr.error();
        config.listen_host = addr->first;
        config.listen_port = addr->second;
      } else if (key == "db") {
        config.db = s;
      } else if (key == "builds_dir") {
        config.builds_dir = s;
      } else if (key == "host_name") {
        if (auto why = orchestrator::WhyNotALabel(s)) return where(key) + ": " + *why;
        config.host_name = s;
      } else if (key == "adb_server") {
        config.adb_server = s;
      } else if (key == "adb_path") {
        config.adb_path = s;
      } else if (key == "token_file") {
        if (auto error = ApplyTokenFile(s, read_file, config)) return where(key) + ": " + *error;
      } else {
        if (!KnownLogLevel(s)) return where(key) + ": unknown level '" + s + "'";
        config.log_level = s;
      }
    } else if (key == "cors_origins") {
      if (!v.is_array()) return where(key) + " must be an array of strings";
      config.cors_origins.clear();
      for (const auto& origin : v) {
        if (!origin.is_string()) return where(key) + " must be an array of strings";
        config.cors_origins.push_back(origin.get<std::string>());
      }
    } else if (key == "max_connections" || key == "max_connections_per_client" ||
               key == "max_event_streams" || key == "schedule_grace_minutes") {
      if (!v.is_number_integer() || v.get<int64_t>() < 1) {
        return where(key) + " must be a positive integer";
      }
      int64_t& setting = key == "max_connections"              ? config.max_connections
                         : key == "max_connections_per_client" ? config.max_connections_per_client
                         : key == "max_event_streams"          ? config.max_event_streams
                                                               : config.schedule_grace_minutes;
      setting = v.get<int64_t>();
    } else if (key == "insecure") {
      if (!v.is_boolean()) return where(key) + " must be true or false";
      config.insecure = v.get<bool>();
    } else if (key == "retention") {
      if (!v.is_object()) return where(key) + " must be an object";
      for (auto r = v.begin(); r != v.end(); ++r) {
        if (r.key() != "max_age_days" && r.key() != "max_runs") {
          return where("retention." + r.key()) + " is not a setting";
        }
        if (!r.value().is_number_integer() || r.value().get<int64_t>() < 1) {
          return where("retention." + r.key()) + " must be a positive integer";
        }
        // A hundred years, a billion runs: beyond is a typo, and 24 h × days must not overflow.
        const int64_t most = r.key() == "max_age_days" ? 36500 : 1'000'000'000;
        if (r.value().get<int64_t>() > most) {
          return where("retention." + r.key()) + " must be at most " + std::to_string(most);
        }
        (r.key() == "max_age_days" ? config.retention_max_age_days : config.retention_max_runs) =
            r.value().get<int64_t>();
      }
    } else if (key == "alerts") {
      if (auto refused = ApplyAlerts(v, where, config)) return refused;
    } else if (key == "health") {
      if (auto refused = ApplyHealth(v, where, config)) return refused;
    } else {
      return where(key) + " is not a setting";
    }
  }
  return std::nullopt;
}

}  // namespace

BasicResult<std::string, FileError> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileError{"cannot read " + path};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

BasicResult<TokenFileContents, FileError> ParseTokenFile(const std::string& path,
                                                         std::string_view text) {
  TokenFileContents contents;
  const std::string whole = Trimmed(std::string(text));
  const size_t colon = whole.find(':');
  const bool one_line = whole.find('\n') == std::string::npos;
  // One line that is not NAME:TOKEN is a bare token (as before named tokens existed, and a
  // token may hold a ':' after something that is not a name).
  if (one_line &&
      (colon == std::string::npos || orchestrator::WhyNotALabel(whole.substr(0, colon)))) {
    contents.bare = whole;
    return contents;
  }
  std::set<std::string> names, tokens;
  size_t line_number = 0;
  std::istringstream lines(whole);
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    line = Trimmed(line);
    if (line.empty() || line.front() == '#') continue;
    const std::string at = path + ": line " + std::to_string(line_number);
    const size_t sep = line.find(':');
    if (sep == std::string::npos) return FileError{at + ": expected NAME:TOKEN"};
    ServeConfig::NamedToken named{Trimmed(line.substr(0, sep)), Trimmed(line.substr(sep + 1))};
    if (auto why = orchestrator::WhyNotALabel(named.name)) {
      return FileError{at + ": the name " + *why};
    }
    if (named.token.empty()) return FileError{at + ": " + named.name + " has an empty token"};
    if (!names.insert(named.name).second) {
      return FileError{at + ": the name " + named.name + " is given twice"};
    }
    if (!tokens.insert(named.token).second) {
      return FileError{at + ": " + named.name + "'s token is another name's too"};
    }
    contents.named.push_back(std::move(named));
  }
  if (contents.named.empty()) return FileError{path + ": no NAME:TOKEN line"};
  return contents;
}

BasicResult<std::string, FileError> ClientTokenFromFile(const std::string& path,
                                                        FileReader read_file) {
  auto text = ReadTokenFile(path, read_file);
  if (!text) return text.error();
  auto contents = ParseTokenFile(path, *text);
  if (!contents) return contents.error();
  if (contents->bare) return *contents->bare;
  if (contents->named.size() > 1) {
    return FileError{path + ": holds " + std::to_string(contents->named.size()) +
                     " named tokens (a daemon's tokens file); give the client a file with one"};
  }
  return contents->named.front().token;
}

BasicResult<std::string, FileError> ReadTokenFile(const std::string& path, FileReader read_file) {
  auto bytes = read_file(path);
  if (!bytes) return bytes.error();
  std::string token = Trimmed(*bytes);
  if (token.empty()) return FileError{path + ": empty"};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IROTH | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return FileError{path + ": permissions " + mode +
                     " let other users read or change the token; chmod o-rw " + path};
  }
  return token;
}

const char* ServeCommandUsage() {
  return "droidlab serve [--listen 127.0.0.1:8765] [--db droidlab.db | --db postgresql://…] "
         "[--adb-server tcp:127.0.0.1:5037] [--adb-path adb] [--host-name NAME] "
         "[--token-file FILE] [--config droidlab.json] [--log-level info] [--insecure]";
}

BasicResult<std::pair<std::string, uint16_t>, std::string> ParseListenAddress(
    std::string_view text) {
  const std::string bad = "expected HOST:PORT, got '" + std::string(text) + "'";
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad;
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return bad;  // IPv6 needs brackets
  }
  uint16_t value = 0;
  if (host.empty() || !ParsePort(port, value)) return bad;
  return std::make_pair(std::string(host), value);
}

BasicResult<ServeConfig, std::string> LoadServeConfig(const std::vector<std::string>& args,
                                                      std::optional<std::string> env_token,
                                                      FileReader read_file) {
  ServeConfig config;
  // The config file first, wherever --config stands, so that flags override it.
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--config") {
      if (i + 1 >= args.size()) return std::string("--config needs a file");
      if (auto error = ApplyConfigFile(args[i + 1], read_file, config)) return *error;
    }
  }
  if (env_token && !Trimmed(*env_token).empty()) {
    config.token = Trimmed(*env_token);
    config.named_tokens.clear();
  }

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag.rfind("--", 0) != 0) return "unexpected argument '" + flag + "'";
    if (flag == "--insecure") {  // the one flag without a value
      config.insecure = true;
      continue;
    }
    if (i + 1 >= args.size()) return flag + " needs a value";
    const std::string& value = args[++i];
    if (flag == "--config") continue;
    if (flag == "--listen") {
      auto addr = ParseListenAddress(value);
      if (!addr) return "--listen: " + addr.error();
      config.listen_host = addr->first;
      config.listen_port = addr->second;
    } else if (flag == "--db") {
      config.db = value;
    } else if (flag == "--adb-server") {
      config.adb_server = value;
    } else if (flag == "--adb-path") {
      config.adb_path = value;
    } else if (flag == "--host-name") {
      if (auto why = orchestrator::WhyNotALabel(value)) return "--host-name: " + *why;
      config.host_name = value;
    } else if (flag == "--token-file") {
      if (auto error = ApplyTokenFile(value, read_file, config)) return "--token-file: " + *error;
    } else if (flag == "--log-level") {
      if (!KnownLogLevel(value)) return "--log-level: unknown level '" + value + "'";
      config.log_level = value;
    } else {
      return "unknown option '" + flag + "'";
    }
  }
  return config;
}

}  // namespace droidlab::daemon
