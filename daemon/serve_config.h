// The settings of `droidlab serve`: embedded defaults, then the JSON config file (--config),
// then the environment (DROIDLAB_TOKEN), then the command line — each later one wins.
//
//   droidlab serve [--listen 127.0.0.1:8765] [--db droidlab.db] [--adb-server tcp:127.0.0.1:5037]
//                  [--adb-path adb] [--host-name NAME] [--token-file FILE] [--config droidlab.json]
//                  [--log-level info] [--insecure]
//
// --insecure (config: "insecure": true) is the only way to listen on an address that is not
// loopback without a token: anyone who can reach the port could start runs on the phones. The
// check is `serve`'s (it knows which addresses are loopback); the flag is kept here.
//
// The config file has the same keys, spelled with underscores, plus what has no flag:
//   {"listen":"0.0.0.0:8765","db":"/var/lib/droidlab/droidlab.db","adb_server":"tcp:127.0.0.1:5037",
//    "adb_path":"adb","token_file":"/etc/droidlab/token","log_level":"info",
//    "cors_origins":["https://dash.example"],"max_connections":1024,
//    "max_connections_per_client":128,"max_event_streams":1024,"insecure":false,
//    "retention":{"max_age_days":90,"max_runs":100000},"schedule_grace_minutes":60,
//    "builds_dir":"/var/lib/droidlab/builds","host_name":"lab-3",
//    "alerts":{"webhooks":[{"url":"http://hooks.lab:9000/droidlab","secret":"…"}],
//              "max_attempts":8,"timeout_seconds":10},
//    "health":{"interval_seconds":60,"probe_timeout_seconds":10,"settle_seconds":30,
//              "boot_timeout_seconds":180,"recovery_reboot":false,"max_reboots_per_day":1}}
// Unknown keys are refused (a typo would silently keep a default).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace droidlab::daemon {

struct ServeConfig {
  std::string listen_host = "127.0.0.1";
  uint16_t listen_port = 8765;
  std::string db = "droidlab.db";
  // Where uploaded builds are kept (config "builds_dir"); absent: "builds" beside the database.
  std::optional<std::string> builds_dir;
  std::optional<std::string> adb_server;  // as given; resolved with adb's own rules
  std::string adb_path = "adb";
  // The name this daemon's host registers under in the lab (config "host_name", --host-name;
  // issue 17 §2); absent: the machine's host name. Letters, digits, '.', '_', '-'.
  std::optional<std::string> host_name;
  std::optional<std::string> token;       // the API token itself (from the file or environment)
  // A token file of `name:token` lines (issue 17 §3): each token lets a request in and its name
  // is who the audit log says made it. Either this or `token` is set, never both.
  struct NamedToken {
    std::string name;
    std::string token;
  };
  std::vector<NamedToken> named_tokens;
  bool RequiresToken() const { return token.has_value() || !named_tokens.empty(); }
  std::string log_level = "info";         // trace, debug, info, warn, error, off
  std::vector<std::string> cors_origins;
  int64_t max_connections = 1024;
  int64_t max_connections_per_client = 128;
  int64_t max_event_streams = 1024;
  bool insecure = false;  // listen beyond loopback with no token: said in so many words
  std::optional<int64_t> retention_max_age_days;
  std::optional<int64_t> retention_max_runs;
  int64_t schedule_grace_minutes = 60;
  // Config "alerts": where alerts are POSTed (orchestrator/alerts/alert_center.h), each URL
  // once (http:// or https://; a delivery finds its secret again by URL after a restart), and
  // the CA certificates an https:// receiver may also chain to (PEM; "" for the system's only).
  struct Webhook {
    std::string url;
    std::string secret;
  };
  std::vector<Webhook> alert_webhooks;
  int64_t alert_max_attempts = 8;
  int64_t alert_timeout_seconds = 10;
  std::string alert_ca_file;
  // Config "health" (issue 17 §3, orchestrator/lab/device_health.h): how often each phone is
  // checked, a probe's deadline, how long a phone has to answer again after a reconnect and
  // after a reboot, whether the recovery ladder may reboot a phone, and at most how often a day.
  struct Health {
    int64_t interval_seconds = 60;
    int64_t probe_timeout_seconds = 10;
    int64_t settle_seconds = 30;
    int64_t boot_timeout_seconds = 180;
    bool recovery_reboot = false;
    int64_t max_reboots_per_day = 1;
  };
  Health health;
};

// Reads a file's bytes (the config, the token file). Error: one line naming the file.
struct FileError {
  std::string message;
};
using FileReader = BasicResult<std::string, FileError> (*)(const std::string& path);
// The FileReader of the real file system.
BasicResult<std::string, FileError> ReadWholeFile(const std::string& path);
// A token file holds the token alone (a trailing newline is not part of it); an empty one is an
// error, and so is one that others may read or write (as ssh refuses a readable private key;
// its group may read it: the unit's group is how the droidlab user gets it). Shared by `serve`
// and the client commands.
BasicResult<std::string, FileError> ReadTokenFile(const std::string& path, FileReader read_file);

// A token file's text, read as one of two forms: a bare token (one line, not NAME:TOKEN), or
// `name:token` lines (a name of letters, digits, '.', '_', '-'; blank lines and `#` comments
// skipped; each name and each token once). Error: one line naming the line at fault.
struct TokenFileContents {
  std::optional<std::string> bare;
  std::vector<ServeConfig::NamedToken> named;
};
BasicResult<TokenFileContents, FileError> ParseTokenFile(const std::string& path,
                                                         std::string_view text);
// The token a client sends from a token file: the bare token, or the only named one (a file of
// several named tokens is the daemon's, not a client's: refused, saying so).
BasicResult<std::string, FileError> ClientTokenFromFile(const std::string& path,
                                                        FileReader read_file);

// Builds the settings from the command line (after `serve`), the environment's DROIDLAB_TOKEN
// (nullopt: unset) and the files it names. Errors: one line a person can act on, naming the
// flag or key ("--listen: expected HOST:PORT, got '8765'").
BasicResult<ServeConfig, std::string> LoadServeConfig(const std::vector<std::string>& args,
                                                      std::optional<std::string> env_token,
                                                      FileReader read_file);

// HOST:PORT, [V6]:PORT. Error text names the value.
BasicResult<std::pair<std::string, uint16_t>, std::string> ParseListenAddress(std::string_view text);

const char* ServeCommandUsage();

}  // namespace droidlab::daemon
