// `droidlab serve` settings: defaults, the config file, DROIDLAB_TOKEN and flags, in that order
// of precedence; every bad value refused with the flag or key named.
#include "daemon/serve_config.h"

#include <gtest/gtest.h>

#include <map>
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
        BadCase{"ConfigUnknownKey", {"--config", "/bad.json"}, R"({"lisen":"x"})",
                "\"lisen\" is not a setting"},
        BadCase{"ConfigWrongType", {"--config", "/bad.json"}, R"({"db":5})",
                "\"db\" must be a string"},
        BadCase{"ConfigBadRetention", {"--config", "/bad.json"},
                R"({"retention":{"max_age_days":0}})", "retention.max_age_days"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return p.param.name; });

}  // namespace
}  // namespace droidlab::daemon
