// `droidlab serve` settings: defaults, the config file, DROIDLAB_TOKEN and flags, in that order
// of precedence; every bad value refused with the flag or key named.
#include "daemon/serve_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace droidlab::daemon {
namespace {

std::map<std::string, std::string>& Files() {
  static std::map<std::string, std::string> files;
  return files;
}

BasicResult<std::string, FileError> FakeRead(const std::string& path) {
  auto it = Files().find(path);
  if (it == Files().end()) return FileError{"cannot read " + path};
  return it->second;
}

TEST(ServeConfigTest, EmbeddedDefaultsListenOnLoopback) {
  auto config = LoadServeConfig({}, std::nullopt, &FakeRead);
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->listen_host, "127.0.0.1");
  EXPECT_EQ(config->listen_port, 8765);
  EXPECT_EQ(config->db, "droidlab.db");
  EXPECT_FALSE(config->adb_server);
  EXPECT_EQ(config->adb_path, "adb");
  EXPECT_FALSE(config->token);
  EXPECT_TRUE(config->cors_origins.empty());
}

TEST(ServeConfigTest, FlagsOverrideTheEnvironmentWhichOverridesTheFile) {
  Files()["/etc/droidlab.json"] = R"({"listen":"0.0.0.0:9000","db":"/var/lib/d.db",
      "token_file":"/etc/token","cors_origins":["https://dash.example"],
      "retention":{"max_age_days":90},"log_level":"warn"})";
  Files()["/etc/token"] = "from-file\n";
  Files()["/run/flag-token"] = "from-flag";

  auto file_only = LoadServeConfig({"--config", "/etc/droidlab.json"}, std::nullopt, &FakeRead);
  ASSERT_TRUE(file_only) << file_only.error();
  EXPECT_EQ(file_only->listen_host, "0.0.0.0");
  EXPECT_EQ(file_only->listen_port, 9000);
  EXPECT_EQ(file_only->db, "/var/lib/d.db");
  EXPECT_EQ(file_only->token, "from-file");  // the newline is not part of it
  EXPECT_EQ(file_only->cors_origins, std::vector<std::string>{"https://dash.example"});
  EXPECT_EQ(file_only->retention_max_age_days, 90);
  EXPECT_EQ(file_only->log_level, "warn");

  auto with_env = LoadServeConfig({"--config", "/etc/droidlab.json"}, "from-env", &FakeRead);
  ASSERT_TRUE(with_env);
  EXPECT_EQ(with_env->token, "from-env");

  // Flags win wherever --config stands.
  auto with_flags = LoadServeConfig({"--db", "x.db", "--config", "/etc/droidlab.json",
                                     "--token-file", "/run/flag-token", "--listen", "[::1]:80"},
                                    "from-env", &FakeRead);
  ASSERT_TRUE(with_flags) << with_flags.error();
  EXPECT_EQ(with_flags->db, "x.db");
  EXPECT_EQ(with_flags->token, "from-flag");
  EXPECT_EQ(with_flags->listen_host, "::1");
  EXPECT_EQ(with_flags->listen_port, 80);
}

// deploy/droidlab.example.json is what operators copy: it must load through the real loader and
// set every key the loader knows (a key it stops accepting, or a typo, fails here).
BasicResult<std::string, FileError> ReadExampleFiles(const std::string& path) {
  if (path == "/etc/droidlab/token") return std::string("example-token\n");  // its token_file
  if (path != DROIDLAB_EXAMPLE_CONFIG) return FileError{"cannot read " + path};
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileError{"cannot read " + path};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(ServeConfigTest, DeployExampleConfigLoadsAndSetsEveryKey) {
  auto config =
      LoadServeConfig({"--config", DROIDLAB_EXAMPLE_CONFIG}, std::nullopt, &ReadExampleFiles);
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->listen_host, "0.0.0.0");
  EXPECT_EQ(config->listen_port, 8765);
  EXPECT_EQ(config->db, "/var/lib/droidlab/droidlab.db");
  EXPECT_EQ(config->builds_dir, "/var/lib/droidlab/builds");
  EXPECT_EQ(config->adb_server, "tcp:127.0.0.1:5037");
  EXPECT_EQ(config->adb_path, "/usr/bin/adb");
  EXPECT_EQ(config->token, "example-token");
  EXPECT_EQ(config->log_level, "info");
  EXPECT_EQ(config->cors_origins, std::vector<std::string>{"https://dashboard.lab.example"});
  EXPECT_EQ(config->max_connections, 1024);
  EXPECT_EQ(config->max_connections_per_client, 128);
  EXPECT_EQ(config->max_event_streams, 1024);
  EXPECT_FALSE(config->insecure);
  EXPECT_EQ(config->retention_max_age_days, 180);
  EXPECT_EQ(config->retention_max_runs, 100000);
  EXPECT_EQ(config->schedule_grace_minutes, 60);
  ASSERT_EQ(config->alert_webhooks.size(), 1u);
  EXPECT_EQ(config->alert_webhooks[0].url, "http://alerts.lab.example:9000/droidlab");
  EXPECT_EQ(config->alert_webhooks[0].secret, "change-me-to-a-long-random-string");
  EXPECT_EQ(config->alert_max_attempts, 8);
  EXPECT_EQ(config->alert_timeout_seconds, 10);
  EXPECT_EQ(config->alert_ca_file, "") << "the system's CA certificates only";
  EXPECT_EQ(config->host_name, "lab-1");
  EXPECT_EQ(config->health.interval_seconds, 60);
  EXPECT_EQ(config->health.probe_timeout_seconds, 10);
  EXPECT_EQ(config->health.settle_seconds, 30);
  EXPECT_EQ(config->health.boot_timeout_seconds, 180);
  EXPECT_TRUE(config->health.recovery_reboot) << "the example allows it; the default does not";
  EXPECT_EQ(config->health.max_reboots_per_day, 1);

  // Some values above are the defaults: the keys themselves must be there too, every one the
  // loader accepts (serve_config.cpp), so the example documents them all.
  const auto doc = nlohmann::json::parse(*ReadExampleFiles(DROIDLAB_EXAMPLE_CONFIG));
  std::set<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.insert(it.key());
  EXPECT_EQ(keys, (std::set<std::string>{"listen", "db", "builds_dir", "adb_server", "adb_path",
                                         "host_name", "token_file", "log_level", "cors_origins",
                                         "max_connections", "max_connections_per_client",
                                         "max_event_streams", "insecure", "retention",
                                         "schedule_grace_minutes", "alerts", "health"}));
  std::set<std::string> health_keys;
  for (auto it = doc["health"].begin(); it != doc["health"].end(); ++it)
    health_keys.insert(it.key());
  EXPECT_EQ(health_keys, (std::set<std::string>{"interval_seconds", "probe_timeout_seconds",
                                                "settle_seconds", "boot_timeout_seconds",
                                                "recovery_reboot", "max_reboots_per_day"}));
  std::set<std::string> alert_keys;
  for (auto it = doc["alerts"].begin(); it != doc["alerts"].end(); ++it) alert_keys.insert(it.key());
  EXPECT_EQ(alert_keys,
            (std::set<std::string>{"webhooks", "ca_file", "max_attempts", "timeout_seconds"}));
  std::set<std::string> retention_keys;
  for (auto it = doc["retention"].begin(); it != doc["retention"].end(); ++it) {
    retention_keys.insert(it.key());
  }
  EXPECT_EQ(retention_keys, (std::set<std::string>{"max_age_days", "max_runs"}));
}

struct BadCase {
  std::string name;
  std::vector<std::string> args;
  std::string config_file;  // "" for none
  std::string expected;     // a part of the error
};

class ServeConfigBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ServeConfigBadInputTest, RefusedWithTheFlagOrKeyNamed) {
  const BadCase& c = GetParam();
  if (!c.config_file.empty()) Files()["/bad.json"] = c.config_file;
  auto config = LoadServeConfig(c.args, std::nullopt, &FakeRead);
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().find(c.expected), std::string::npos) << config.error();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ServeConfigBadInputTest,
    ::testing::Values(
        BadCase{"ListenWithoutPort", {"--listen", "8765"}, "", "--listen: expected HOST:PORT"},
        BadCase{"ListenPortTooBig", {"--listen", "127.0.0.1:70000"}, "", "--listen"},
        BadCase{"UnbracketedV6", {"--listen", "::1:80"}, "", "--listen"},
        BadCase{"UnknownFlag", {"--port", "1"}, "", "unknown option '--port'"},
        BadCase{"MissingValue", {"--db"}, "", "--db needs a value"},
        BadCase{"StrayArgument", {"extra"}, "", "unexpected argument 'extra'"},
        BadCase{"UnknownLevel", {"--log-level", "loud"}, "", "--log-level: unknown level"},
        BadCase{"MissingTokenFile", {"--token-file", "/nope"}, "", "--token-file: cannot read"},
        BadCase{"MissingConfig", {"--config", "/nope.json"}, "", "--config: cannot read"},
        BadCase{"ConfigNotJson", {"--config", "/bad.json"}, "{nope", "not a JSON object"},
        BadCase{"ConfigUnknownKey",
                {"--config", "/bad.json"},
                R"({"lisen":"x"})",
                "\"lisen\" is not a setting"},
        BadCase{
            "ConfigWrongType", {"--config", "/bad.json"}, R"({"db":5})", "\"db\" must be a string"},
        BadCase{"ConfigBadRetention",
                {"--config", "/bad.json"},
                R"({"retention":{"max_age_days":0}})",
                "retention.max_age_days"},
        // 24 h × 10^17 days overflows the retention cut-off: a number no one means is refused
        // at load, not wrapped into "delete everything" an hour later.
        BadCase{"ConfigRetentionAgeOutOfRange",
                {"--config", "/bad.json"},
                R"({"retention":{"max_age_days":100000000000000000}})",
                "must be at most 36500"},
        BadCase{"ConfigRetentionRunsOutOfRange",
                {"--config", "/bad.json"},
                R"({"retention":{"max_runs":10000000000000}})",
                "must be at most 1000000000"},
        BadCase{"ConfigInsecureNotBoolean",
                {"--config", "/bad.json"},
                R"({"insecure":"yes"})",
                "\"insecure\" must be true or false"},
        BadCase{"AlertWebhookOtherScheme",
                {"--config", "/bad.json"},
                R"({"alerts":{"webhooks":[{"url":"ftp://h/x","secret":"s"}]}})",
                "\"alerts.webhooks[0].url\": 'ftp://h/x': expected an http:// or https:// URL"},
        BadCase{"AlertCaFileNotAString",
                {"--config", "/bad.json"},
                R"({"alerts":{"ca_file":7}})",
                "\"alerts.ca_file\" must be a path"},
        BadCase{"AlertWebhookNotAUrl",
                {"--config", "/bad.json"},
                R"({"alerts":{"webhooks":[{"url":"hooks.lab:80","secret":"s"}]}})",
                "expected an http:// or https:// URL"},
        BadCase{"AlertWebhookBadPort",
                {"--config", "/bad.json"},
                R"({"alerts":{"webhooks":[{"url":"http://h:0/x","secret":"s"}]}})",
                "port must be 1 to 65535"},
        BadCase{"AlertWebhookWithoutSecret",
                {"--config", "/bad.json"},
                R"({"alerts":{"webhooks":[{"url":"http://h/x"}]}})",
                "\"alerts.webhooks[0].secret\" is required"},
        BadCase{"AlertWebhookTwice",
                {"--config", "/bad.json"},
                R"({"alerts":{"webhooks":[{"url":"http://h/x","secret":"a"},)"
                R"({"url":"http://h/x","secret":"b"}]}})",
                "\"alerts.webhooks[1].url\" is given twice"},
        BadCase{"AlertWebhookUnknownKey",
                {"--config", "/bad.json"},
                R"({"alerts":{"webhooks":[{"url":"http://h/x","secret":"a","sekret":"b"}]}})",
                "\"alerts.webhooks[0].sekret\" is not a setting"},
        BadCase{"AlertUnknownKey",
                {"--config", "/bad.json"},
                R"({"alerts":{"hooks":[]}})",
                "\"alerts.hooks\" is not a setting"},
        BadCase{"AlertAttemptsOutOfRange",
                {"--config", "/bad.json"},
                R"({"alerts":{"max_attempts":0}})",
                "\"alerts.max_attempts\" must be an integer"},
        BadCase{"HealthUnknownKey",
                {"--config", "/bad.json"},
                R"({"health":{"reboot":true}})",
                "\"health.reboot\" is not a setting"},
        BadCase{"HealthRebootNotBoolean",
                {"--config", "/bad.json"},
                R"({"health":{"recovery_reboot":1}})",
                "\"health.recovery_reboot\" must be true or false"},
        BadCase{"HealthIntervalZero",
                {"--config", "/bad.json"},
                R"({"health":{"interval_seconds":0}})",
                "\"health.interval_seconds\" must be an integer from 1 to 86400"},
        BadCase{"HealthTooManyReboots",
                {"--config", "/bad.json"},
                R"({"health":{"max_reboots_per_day":100}})",
                "\"health.max_reboots_per_day\" must be an integer from 1 to 24"},
        BadCase{"HealthNotAnObject",
                {"--config", "/bad.json"},
                R"({"health":[]})",
                "\"health\" must be an object"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return p.param.name; });

// Issue 17 §3: a daemon's tokens file names each token; a bare token still works as before.
TEST(ServeConfigTest, ATokensFileOfNamedTokensGivesEachItsName) {
  Files()["/etc/tokens"] = "# the lab's callers\nci: c1-secret\n\nalice:a1:with-colon\n";
  auto config = LoadServeConfig({"--token-file", "/etc/tokens"}, std::nullopt, &FakeRead);
  ASSERT_TRUE(config) << config.error();
  EXPECT_FALSE(config->token);
  ASSERT_EQ(config->named_tokens.size(), 2u);
  EXPECT_EQ(config->named_tokens[0].name, "ci");
  EXPECT_EQ(config->named_tokens[0].token, "c1-secret");
  EXPECT_EQ(config->named_tokens[1].name, "alice");
  EXPECT_EQ(config->named_tokens[1].token, "a1:with-colon") << "the first ':' ends the name";
  EXPECT_TRUE(config->RequiresToken());

  Files()["/etc/named.json"] = R"({"token_file":"/etc/tokens"})";
  auto env = LoadServeConfig({"--config", "/etc/named.json"}, "from-env", &FakeRead);
  ASSERT_TRUE(env) << env.error();
  EXPECT_TRUE(env->named_tokens.empty()) << "DROIDLAB_TOKEN replaces the config's, as before";
  EXPECT_EQ(env->token, "from-env");
  auto flag = LoadServeConfig({"--token-file", "/etc/tokens"}, "from-env", &FakeRead);
  ASSERT_TRUE(flag);
  EXPECT_FALSE(flag->token) << "--token-file wins over DROIDLAB_TOKEN, as before";
  EXPECT_EQ(flag->named_tokens.size(), 2u);
}

TEST(ServeConfigTest, ABareTokenIsNotReadAsANamedOne) {
  auto bare = ParseTokenFile("/t", "dGhpcyBpcyBhIHRva2Vu+/==");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->bare, "dGhpcyBpcyBhIHRva2Vu+/==");
  auto colon = ParseTokenFile("/t", "x$y:z");  // "x$y" is no name: the whole line is the token
  ASSERT_TRUE(colon);
  EXPECT_EQ(colon->bare, "x$y:z");
  auto named = ParseTokenFile("/t", "ci:abc");
  ASSERT_TRUE(named);
  EXPECT_FALSE(named->bare);
  ASSERT_EQ(named->named.size(), 1u);
}

TEST(ServeConfigTest, ABadTokensFileNamesTheLine) {
  auto message = [](const char* text) {
    auto parsed = ParseTokenFile("/etc/tokens", text);
    return parsed ? std::string("(accepted)") : parsed.error().message;
  };
  EXPECT_EQ(message("ci:a\nbare-token"), "/etc/tokens: line 2: expected NAME:TOKEN");
  EXPECT_NE(message("ci:a\nci:b").find("line 2: the name ci is given twice"), std::string::npos);
  EXPECT_NE(message("ci:a\nbob:a").find("line 2: bob's token is another name's too"),
            std::string::npos);
  EXPECT_NE(message("ci:a\nbob:").find("line 2: bob has an empty token"), std::string::npos);
  EXPECT_NE(message("ci:a\nb b:x").find("line 2: the name may hold only"), std::string::npos);
}

TEST(ServeConfigTest, AClientTakesTheOnlyNamedTokenAndRefusesADaemonsFile) {
  Files()["/home/ci/token"] = "ci:c1-secret\n";
  Files()["/etc/tokens"] = "ci:c1\nalice:a1\n";
  auto one = ClientTokenFromFile("/home/ci/token", &FakeRead);
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(*one, "c1-secret");
  auto several = ClientTokenFromFile("/etc/tokens", &FakeRead);
  ASSERT_FALSE(several);
  EXPECT_NE(several.error().message.find("2 named tokens"), std::string::npos);
}

}  // namespace
}  // namespace droidlab::daemon
