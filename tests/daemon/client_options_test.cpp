// The client commands' command lines, the daemon's address and token, and the exit codes: pure
// functions, checked without a daemon.
#include "daemon/client_options.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace droidlab::daemon {
namespace {

using Json = nlohmann::json;

BasicResult<ClientOptions, std::string> Parse(const std::string& command,
                                              std::vector<std::string> args) {
  return ParseClientArgs(command, args);
}

std::string ErrorOf(const std::string& command, std::vector<std::string> args) {
  auto parsed = ParseClientArgs(command, args);
  return parsed ? "(parsed)" : parsed.error();
}

const std::vector<std::string> kRun = {"--serial", "R58M123ABC", "--package",    "com.example.app",
                                       "--mode",   "warm",       "--iterations", "20"};

std::vector<std::string> RunWith(std::vector<std::string> extra) {
  std::vector<std::string> args = kRun;
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(ClientOptionsTest, RunFlagsBecomeTheRunBody) {
  auto o = Parse("run", RunWith({"--activity", ".Main", "--looper-sampling-interval", "10",
                                 "--proc-interval-ms=100", "--on-launch-failure", "fail"}));
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->command, ClientCommand::kRun);
  EXPECT_FALSE(o->wait);
  EXPECT_EQ(Json::parse(RunBodyJson(*o)),
            Json::parse(R"({"serial":"R58M123ABC","package":"com.example.app","mode":"warm",
                            "iterations":20,"activity":".Main",
                            "looper_stats":{"sampling_interval":10},
                            "proc_sample_interval_ms":100,"on_launch_failure":"fail"})"));
}

// Issue 14 §3: warm-up and cool-down from the command line.
TEST(ClientOptionsTest, WarmupAndCooldownFlagsBecomeTheRunBody) {
  auto o = Parse("run", RunWith({"--warmup", "3", "--max-thermal", "none",
                                 "--max-battery-temp-c", "37.5", "--cooldown", "fail",
                                 "--cooldown-timeout-s", "120"}));
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(Json::parse(RunBodyJson(*o)),
            Json::parse(R"({"serial":"R58M123ABC","package":"com.example.app","mode":"warm",
                            "iterations":20,"warmup":3,"max_thermal":"none",
                            "max_battery_temp_c":37.5,"cooldown":"fail",
                            "cooldown_timeout_s":120})"));
  EXPECT_EQ(ErrorOf("run", RunWith({"--max-thermal", "hot"})),
            "--max-thermal: expected none, light, moderate, severe, critical, emergency or "
            "shutdown, got 'hot'");
  EXPECT_EQ(ErrorOf("run", RunWith({"--cooldown", "skip"})),
            "--cooldown: expected wait or fail, got 'skip'");
  EXPECT_EQ(ErrorOf("run", RunWith({"--max-battery-temp-c", "warm"})),
            "--max-battery-temp-c: expected degrees Celsius, got 'warm'");
}

// Issue 14 §2: the compilation state from the command line; absent, the daemon's default.
TEST(ClientOptionsTest, CompilationFlagBecomesTheRunBody) {
  auto o = Parse("run", RunWith({"--compilation", "verify"}));
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(Json::parse(RunBodyJson(*o)),
            Json::parse(R"({"serial":"R58M123ABC","package":"com.example.app","mode":"warm",
                            "iterations":20,"compilation":"verify"})"));
  auto plain = Parse("run", RunWith({}));
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_FALSE(Json::parse(RunBodyJson(*plain)).contains("compilation"));
  EXPECT_EQ(ErrorOf("run", RunWith({"--compilation", "quicken"})),
            "--compilation: expected as-is, speed-profile, speed, verify or none, got 'quicken'");
}

// Issue 14 §1: `build add FILE...` takes the files in order; `build` alone lists.
TEST(ClientOptionsTest, BuildAddTakesFiles) {
  auto o = Parse("build", {"add", "a.apk", "b.apk", "--json"});
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->command, ClientCommand::kBuildAdd);
  EXPECT_EQ(o->files, (std::vector<std::string>{"a.apk", "b.apk"}));
  EXPECT_TRUE(o->json);
  auto list = Parse("build", {});
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list->command, ClientCommand::kBuildList);
  EXPECT_EQ(ErrorOf("build", {"add"}), "build add: expected one or more APK files");
  EXPECT_EQ(ErrorOf("build", {"remove", "1"}), "build: expected add or list, got 'remove'");
}

TEST(ClientOptionsTest, AllowingDifferentConditionsNeedsABaseline) {
  EXPECT_EQ(ErrorOf("run", RunWith({"--allow-different-conditions"})),
            "--allow-different-conditions needs --baseline ID|previous or --baseline-build");
  auto o = Parse("run", RunWith({"--baseline", "previous", "--allow-different-conditions"}));
  ASSERT_TRUE(o) << o.error();
  EXPECT_TRUE(o->allow_different_conditions);
  EXPECT_TRUE(o->wait);
}

TEST(ClientOptionsTest, TheBodyHoldsOnlyWhatWasGiven) {
  auto o = Parse("run", kRun);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(Json::parse(RunBodyJson(*o)),
            Json::parse(R"({"serial":"R58M123ABC","package":"com.example.app","mode":"warm",
                            "iterations":20})"));
}

TEST(ClientOptionsTest, RequiredRunFlagsAreNamed) {
  EXPECT_EQ(ErrorOf("run", {"--package", "com.a", "--mode", "cold", "--iterations", "2"}),
            "--serial is required");
  EXPECT_EQ(ErrorOf("run", {"--serial", "S", "--mode", "cold", "--iterations", "2"}),
            "--package is required");
  EXPECT_EQ(ErrorOf("run", {"--serial", "S", "--package", "com.a", "--mode", "cold"}),
            "--iterations is required");
}

TEST(ClientOptionsTest, RunValuesAreJudgedAsTheDaemonWould) {
  EXPECT_EQ(ErrorOf("run", RunWith({"--mode", "lukewarm"})),
            "--mode: expected cold, warm or hot, got 'lukewarm'");
  EXPECT_EQ(ErrorOf("run", RunWith({"--iterations", "ten"})),
            "--iterations: expected a whole number, got 'ten'");
  // The daemon's own bounds (orchestrator::ValidateRunSpec), under the flag's name.
  EXPECT_EQ(ErrorOf("run", RunWith({"--iterations", "0"})).rfind("--iterations: ", 0), 0u)
      << ErrorOf("run", RunWith({"--iterations", "0"}));
  EXPECT_EQ(ErrorOf("run", RunWith({"--iterations", "1001"})).rfind("--iterations: ", 0), 0u);
  EXPECT_EQ(ErrorOf("run", RunWith({"--package", "not a package"})).rfind("--package: ", 0), 0u);
  EXPECT_EQ(ErrorOf("run", RunWith({"--proc-interval-ms", "1"})).rfind("--proc-interval-ms: ", 0),
            0u);
}

TEST(ClientOptionsTest, UnknownFlagsMissingValuesAndStrayArgumentsAreRefused) {
  EXPECT_EQ(ErrorOf("run", RunWith({"--iteration", "3"})), "unknown flag '--iteration' for run");
  EXPECT_EQ(ErrorOf("devices", {"--serial", "S"}), "unknown flag '--serial' for devices");
  EXPECT_EQ(ErrorOf("runs", {"--limit"}), "--limit needs a value");
  EXPECT_EQ(ErrorOf("runs", {"--limit", "0"}), "--limit: expected 1 to 1000, got '0'");
  EXPECT_EQ(ErrorOf("devices", {"extra"}), "unexpected argument 'extra'");
  EXPECT_EQ(ErrorOf("run", RunWith({"--wait=yes"})), "--wait takes no value");
  EXPECT_EQ(ErrorOf("frobnicate", {}), "unknown command 'frobnicate'");
}

TEST(ClientOptionsTest, BaselineJunitAndTheGateImplyWaiting) {
  auto o = Parse("run",
                 RunWith({"--baseline", "previous", "--fail-on-regression", "--junit", "out.xml"}));
  ASSERT_TRUE(o) << o.error();
  EXPECT_TRUE(o->wait);
  EXPECT_TRUE(o->fail_on_regression);
  EXPECT_EQ(o->baseline, "previous");
  EXPECT_EQ(o->junit, "out.xml");
  auto by_id = Parse("run", RunWith({"--baseline=42"}));
  ASSERT_TRUE(by_id);
  EXPECT_EQ(by_id->baseline, "42");
  EXPECT_TRUE(by_id->wait);
  EXPECT_EQ(ErrorOf("run", RunWith({"--fail-on-regression"})),
            "--fail-on-regression needs --baseline ID|previous|history or --baseline-build");
  EXPECT_EQ(ErrorOf("run", RunWith({"--baseline", "last"})),
            "--baseline: expected a run id, 'previous' or 'history', got 'last'");
  EXPECT_EQ(ErrorOf("run", RunWith({"--baseline", "0"})),
            "--baseline: expected a run id, 'previous' or 'history', got '0'");
}

// Issue 15: a run judged against its history; a calibration run of a build.
TEST(ClientOptionsTest, HistoryBaselineAndCalibration) {
  auto history = Parse("run", RunWith({"--baseline", "history", "--fail-on-regression"}));
  ASSERT_TRUE(history) << history.error();
  EXPECT_EQ(history->baseline, "history");
  EXPECT_TRUE(history->wait);
  EXPECT_EQ(ErrorOf("run", RunWith({"--baseline", "history", "--allow-different-conditions"})),
            "--allow-different-conditions: a history verdict judges a run only against the runs "
            "at its own conditions (since the last OTA or compilation change)");
  auto calibration = Parse("run", RunWith({"--build", "3", "--calibration"}));
  ASSERT_TRUE(calibration) << calibration.error();
  EXPECT_TRUE(calibration->spec.calibration);
  EXPECT_NE(RunBodyJson(*calibration).find(R"("kind":"calibration")"), std::string::npos)
      << RunBodyJson(*calibration);
  EXPECT_EQ(ErrorOf("run", RunWith({"--calibration"})),
            "--calibration: calibration needs \"build\": the build measured twice");
  std::vector<std::string> add = {"add", "--cron", "0 4 * * 0", "--build", "3", "--calibration"};
  add.insert(add.end(), kRun.begin(), kRun.end());
  auto scheduled = Parse("schedules", add);
  ASSERT_TRUE(scheduled) << scheduled.error();
  EXPECT_TRUE(scheduled->spec.calibration);
}

// Issue 14 §4: a side-by-side run names two builds (ids or files to upload), waits for its end
// and is gated by its own verdict, never by another run's.
TEST(ClientOptionsTest, SideBySideBuildsBlockAndGate) {
  auto o = Parse("run", RunWith({"--build", "tonight.apk", "--baseline-build", "3", "--block",
                                 "4", "--fail-on-regression"}));
  ASSERT_TRUE(o) << o.error();
  EXPECT_TRUE(o->side_by_side());
  EXPECT_TRUE(o->wait);
  EXPECT_EQ(o->build_file, "tonight.apk");
  EXPECT_EQ(o->spec.baseline_build, 3);
  EXPECT_EQ(o->spec.block, 4);
  const auto body = nlohmann::json::parse(RunBodyJson(*o));
  EXPECT_EQ(body["baseline_build"], 3);
  EXPECT_EQ(body["block"], 4);
  auto files = Parse("run", RunWith({"--build", "a.apk", "--baseline-build", "release.apk"}));
  ASSERT_TRUE(files) << files.error();
  EXPECT_EQ(files->baseline_build_file, "release.apk");
  EXPECT_EQ(ErrorOf("run", RunWith({"--baseline-build", "3"})),
            "--baseline-build: needs \"build\": the build measured against the baseline");
  EXPECT_EQ(ErrorOf("run", RunWith({"--build", "4", "--block", "2"})),
            "--block: is only for a side-by-side run (\"baseline_build\")");
  EXPECT_EQ(ErrorOf("run", RunWith({"--build", "4", "--baseline-build", "3", "--baseline",
                                    "previous"})),
            "--baseline: a side-by-side run is judged against its --baseline-build");
}

TEST(ClientOptionsTest, RunsFiltersAndGlobalFlagsAnywhere) {
  auto o = Parse("runs", {"--json", "--serial", "S1", "--status=failed", "--limit", "5", "--server",
                          "http://lab:9000", "--token-file", "/t"});
  ASSERT_TRUE(o) << o.error();
  EXPECT_TRUE(o->json);
  EXPECT_EQ(o->serial, "S1");
  EXPECT_EQ(o->status, "failed");
  EXPECT_EQ(o->limit, 5);
  EXPECT_EQ(o->server, "http://lab:9000");
  EXPECT_EQ(o->token_file, "/t");
}

TEST(ClientOptionsTest, WatchTakesOneRunId) {
  auto o = Parse("watch", {"12"});
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->id, 12);
  EXPECT_EQ(ErrorOf("watch", {}), "watch: expected one RUN_ID");
  EXPECT_EQ(ErrorOf("watch", {"12", "13"}), "watch: expected one RUN_ID");
  EXPECT_EQ(ErrorOf("watch", {"abc"}),
            "watch: RUN_ID: expected a positive whole number, got 'abc'");
}

TEST(ClientOptionsTest, SchedulesListAddDelete) {
  auto list = Parse("schedules", {});
  ASSERT_TRUE(list);
  EXPECT_EQ(list->command, ClientCommand::kSchedulesList);
  auto json_list = Parse("schedules", {"--json"});
  ASSERT_TRUE(json_list);
  EXPECT_EQ(json_list->command, ClientCommand::kSchedulesList);
  EXPECT_TRUE(json_list->json);

  std::vector<std::string> add = {"add", "--cron", "0 2 * * *", "--timezone", "Europe/Paris"};
  add.insert(add.end(), kRun.begin(), kRun.end());
  auto added = Parse("schedules", add);
  ASSERT_TRUE(added) << added.error();
  EXPECT_EQ(added->command, ClientCommand::kSchedulesAdd);
  EXPECT_EQ(added->cron, "0 2 * * *");
  EXPECT_EQ(added->timezone, "Europe/Paris");
  std::vector<std::string> no_cron = {"add"};
  no_cron.insert(no_cron.end(), kRun.begin(), kRun.end());
  EXPECT_EQ(ErrorOf("schedules", no_cron), "--cron is required (five fields: \"0 2 * * *\")");
  // A schedule has no one waiting for it.
  add.push_back("--wait");
  EXPECT_EQ(ErrorOf("schedules", add), "unknown flag '--wait' for schedules");

  auto deleted = Parse("schedules", {"delete", "3"});
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->command, ClientCommand::kSchedulesDelete);
  EXPECT_EQ(deleted->id, 3);
  EXPECT_EQ(ErrorOf("schedules", {"remove", "3"}),
            "schedules: expected list, add or delete, got 'remove'");
}

TEST(ClientOptionsTest, ServerFromFlagThenEnvironmentThenDefault) {
  auto fallback = ResolveServer(std::nullopt, std::nullopt);
  ASSERT_TRUE(fallback);
  EXPECT_EQ(fallback->host, "127.0.0.1");
  EXPECT_EQ(fallback->port, 8765);
  EXPECT_EQ(fallback->url, "http://127.0.0.1:8765");
  auto empty_env = ResolveServer(std::nullopt, std::string());
  ASSERT_TRUE(empty_env);
  EXPECT_EQ(empty_env->url, "http://127.0.0.1:8765");
  auto env = ResolveServer(std::nullopt, std::string("http://lab-7:9000"));
  ASSERT_TRUE(env);
  EXPECT_EQ(env->url, "http://lab-7:9000");
  auto flag = ResolveServer(std::string("http://10.0.0.2:8000/"), std::string("http://lab-7:9000"));
  ASSERT_TRUE(flag);
  EXPECT_EQ(flag->host, "10.0.0.2");
  EXPECT_EQ(flag->port, 8000);
  EXPECT_EQ(flag->base_path, "");
}

TEST(ClientOptionsTest, ServerAddressForms) {
  struct Case {
    std::string text, host, base_path, url;
    uint16_t port;
  };
  for (const Case& c : std::vector<Case>{
           {"lab:8765", "lab", "", "http://lab:8765", 8765},
           {"lab", "lab", "", "http://lab:8765", 8765},
           {"http://lab", "lab", "", "http://lab:80", 80},
           {"http://[::1]:8765", "::1", "", "http://[::1]:8765", 8765},
           {"http://proxy:8080/droidlab/", "proxy", "/droidlab", "http://proxy:8080/droidlab",
            8080},
       }) {
    auto a = ResolveServer(c.text, std::nullopt);
    ASSERT_TRUE(a) << c.text << ": " << a.error();
    EXPECT_EQ(a->host, c.host) << c.text;
    EXPECT_EQ(a->port, c.port) << c.text;
    EXPECT_EQ(a->base_path, c.base_path) << c.text;
    EXPECT_EQ(a->url, c.url) << c.text;
  }
}

TEST(ClientOptionsTest, BadServersAreRefusedNamingTheSource) {
  EXPECT_EQ(ResolveServer(std::string("https://lab"), std::nullopt).error(),
            "--server: https is not supported: the daemon speaks plain HTTP, got 'https://lab'");
  EXPECT_EQ(ResolveServer(std::nullopt, std::string("lab:99999")).error(),
            "DROIDLAB_SERVER: bad port (expected http://HOST:PORT), got 'lab:99999'");
  EXPECT_FALSE(ResolveServer(std::string("ftp://lab"), std::nullopt));
  EXPECT_FALSE(ResolveServer(std::string("http://:8765"), std::nullopt));
  EXPECT_FALSE(ResolveServer(std::string("http://lab:"), std::nullopt));
  EXPECT_FALSE(ResolveServer(std::string("http://[::1"), std::nullopt));
}

BasicResult<std::string, FileError> FakeFile(const std::string& path) {
  if (path == "/etc/droidlab/token") return std::string("s3cret\n");
  if (path == "/empty") return std::string("\n");
  return FileError{"cannot read " + path};
}

TEST(ClientOptionsTest, TokenFromFileThenEnvironment) {
  auto none = ResolveToken(std::nullopt, std::nullopt, &FakeFile);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  auto env = ResolveToken(std::nullopt, std::string("from-env"), &FakeFile);
  ASSERT_TRUE(env);
  EXPECT_EQ(*env, std::optional<std::string>("from-env"));
  auto file = ResolveToken(std::string("/etc/droidlab/token"), std::string("from-env"), &FakeFile);
  ASSERT_TRUE(file);
  EXPECT_EQ(*file, std::optional<std::string>("s3cret"));
  EXPECT_EQ(ResolveToken(std::string("/nope"), std::nullopt, &FakeFile).error(),
            "--token-file: cannot read /nope");
  EXPECT_EQ(ResolveToken(std::string("/empty"), std::nullopt, &FakeFile).error(),
            "--token-file: /empty: empty");
}

BasicResult<std::string, FileError> ScenarioFile(const std::string& path) {
  if (path == "steps.json")
    return std::string(R"([{"tap":[540,1200]},{"wait_ms":500},{"key":"BACK"}])");
  if (path == "bad.json") return std::string(R"([{"tap":[540]}])");
  if (path == "broken.json") return std::string("[{");
  return FileError{"cannot read " + path};
}

// Issue 16 §1: --scenario FILE is the steps' JSON array, checked before anything is sent.
TEST(ClientOptionsTest, ScenarioFileBecomesTheRunBodysSteps) {
  auto o = Parse("run", RunWith({"--scenario", "steps.json"}));
  ASSERT_TRUE(o) << o.error();
  ASSERT_EQ(LoadScenarioFile(*o, &ScenarioFile), std::nullopt);
  EXPECT_EQ(Json::parse(RunBodyJson(*o))["scenario"],
            Json::parse(R"([{"tap":[540,1200]},{"wait_ms":500},{"key":"BACK"}])"));
  auto without = Parse("run", kRun);
  ASSERT_TRUE(without);
  ASSERT_EQ(LoadScenarioFile(*without, &ScenarioFile), std::nullopt);
  EXPECT_FALSE(Json::parse(RunBodyJson(*without)).contains("scenario"));

  auto bad = Parse("run", RunWith({"--scenario", "bad.json"}));
  ASSERT_TRUE(bad);
  EXPECT_EQ(LoadScenarioFile(*bad, &ScenarioFile),
            "--scenario bad.json: scenario[0].tap: must be [x, y], got [540]");
  auto broken = Parse("run", RunWith({"--scenario", "broken.json"}));
  ASSERT_TRUE(broken);
  EXPECT_NE(LoadScenarioFile(*broken, &ScenarioFile)->find("--scenario broken.json: "),
            std::string::npos);
  auto missing = Parse("run", RunWith({"--scenario", "gone.json"}));
  ASSERT_TRUE(missing);
  EXPECT_EQ(LoadScenarioFile(*missing, &ScenarioFile),
            "--scenario gone.json: cannot read gone.json");
  std::vector<std::string> add = {"add", "--cron", "0 2 * * *", "--scenario", "steps.json"};
  add.insert(add.end(), kRun.begin(), kRun.end());
  auto scheduled = Parse("schedules", add);
  ASSERT_TRUE(scheduled) << scheduled.error();
  ASSERT_EQ(LoadScenarioFile(*scheduled, &ScenarioFile), std::nullopt);
  EXPECT_EQ(scheduled->spec.scenario.size(), 3u);
}

TEST(ClientOptionsTest, ExitCodes) {
  EXPECT_EQ(RunExitCode("succeeded", std::nullopt, false), kExitOk);
  EXPECT_EQ(RunExitCode("failed", std::nullopt, false), kExitRunNotSucceeded);
  EXPECT_EQ(RunExitCode("cancelled", std::nullopt, true), kExitRunNotSucceeded);
  EXPECT_EQ(RunExitCode("interrupted", std::nullopt, false), kExitRunNotSucceeded);
  EXPECT_EQ(RunExitCode("succeeded", std::string("regression"), true), kExitRegression);
  // Without the gate a regression is reported, not failed on.
  EXPECT_EQ(RunExitCode("succeeded", std::string("regression"), false), kExitOk);
  EXPECT_EQ(RunExitCode("succeeded", std::string("improvement"), true), kExitOk);
  EXPECT_EQ(RunExitCode("succeeded", std::string("insufficient_data"), true), kExitOk);
  // A failed run is a failed run, whatever a comparison said.
  EXPECT_EQ(RunExitCode("failed", std::string("regression"), true), kExitRunNotSucceeded);
  // The documented numbers: scripts depend on them.
  EXPECT_EQ(kExitUsage, 2);
  EXPECT_EQ(kExitRegression, 3);
  EXPECT_EQ(kExitUnreachable, 4);
  EXPECT_EQ(kExitApiError, 5);
}

TEST(ClientOptionsTest, PercentEncoding) {
  EXPECT_EQ(PercentEncode("com.example.app"), "com.example.app");
  EXPECT_EQ(PercentEncode("127.0.0.1:5555"), "127.0.0.1%3A5555");
  EXPECT_EQ(PercentEncode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
}

}  // namespace
}  // namespace droidlab::daemon
