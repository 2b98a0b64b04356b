#include "daemon/client_commands.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "daemon/build_groups.h"
#include "daemon/client_format.h"
#include "daemon/client_http.h"
#include "daemon/client_options.h"
#include "daemon/junit_report.h"
#include "daemon/run_follower.h"

namespace droidlab::daemon {

namespace {

using Json = nlohmann::json;

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return std::nullopt;
  return std::string(value);
}

class Command {
 public:
  Command(std::string name, const ClientOptions& options, ApiClient client,
          const ClientEnvironment& env, std::FILE* out, std::FILE* err)
      : name_(std::move(name)),
        o_(options),
        client_(std::move(client)),
        env_(env),
        out_(out),
        err_(err) {}

  int Run() {
    switch (o_.command) {
      case ClientCommand::kDevices:
        return List("/api/v1/devices", DevicesTable);
      case ClientCommand::kRuns:
        return List(RunsTarget(), RunsTable);
      case ClientCommand::kSchedulesList:
        return List("/api/v1/schedules", SchedulesTable);
      case ClientCommand::kRun:
        return SubmitRun();
      case ClientCommand::kWatch:
        return Watch();
      case ClientCommand::kSchedulesAdd:
        return AddSchedule();
      case ClientCommand::kSchedulesDelete:
        return DeleteSchedule();
      case ClientCommand::kBuildAdd:
        return AddBuilds();
      case ClientCommand::kBuildList:
        return List("/api/v1/builds", BuildsTable);
    }
    return kExitUsage;
  }

 private:
  int Fail(const ClientFailure& failure) {
    std::fprintf(err_, "droidlab %s: %s\n", name_.c_str(), failure.message.c_str());
    return failure.exit_code;
  }

  void PrintJson(const Json& body) { std::fprintf(out_, "%s\n", body.dump().c_str()); }

  int List(const std::string& target, std::string (*table)(const Json&)) {
    auto body = CallApi(client_, "GET", target);
    if (!body) return Fail(body.error());
    if (o_.json) {
      PrintJson(*body);
    } else {
      std::fputs(table(*body).c_str(), out_);
    }
    return kExitOk;
  }

  std::string RunsTarget() const {
    std::string query;
    auto add = [&query](const char* key, const std::optional<std::string>& value) {
      if (value)
        query += (query.empty() ? "?" : "&") + std::string(key) + "=" + PercentEncode(*value);
    };
    add("serial", o_.serial);
    add("package", o_.package);
    add("status", o_.status);
    add("limit", o_.limit ? std::optional<std::string>(std::to_string(*o_.limit)) : std::nullopt);
    add("cursor", o_.cursor);
    return "/api/v1/runs" + query;
  }

  // Follows the run to its end with progress on stderr; the ended run, or the failure.
  BasicResult<Json, ClientFailure> Follow(int64_t id) {
    ProgressReporter progress(err_, env_.stderr_is_terminal, env_.terminal_columns);
    auto on_notice = [this, &progress](const std::string& line) {
      progress.Finish();
      std::fprintf(err_, "droidlab %s: %s\n", name_.c_str(), line.c_str());
    };
    auto run = FollowRun(
        client_, id, [&progress](const RunProgressView& p) { progress.Update(p); }, on_notice);
    progress.Finish();
    return run;
  }

  struct Uploaded {
    Json build;    // the daemon's answer: the build
    bool created;  // false: the daemon had those bytes already
  };
  // One APK to POST /api/v1/builds. A file that cannot be read is a usage error (2).
  BasicResult<Uploaded, ClientFailure> UploadFile(const std::string& file) {
    return UploadFiles({file});
  }
  // One build's files: one APK as the body, several as one multipart/form-data body.
  BasicResult<Uploaded, ClientFailure> UploadFiles(const std::vector<std::string>& files) {
    const std::string file = files.size() == 1 ? files.front() : JoinedNames(files);
    auto reply = files.size() == 1 ? client_.Upload("/api/v1/builds", files.front())
                                   : client_.UploadParts("/api/v1/builds", files);
    if (!reply) {
      const bool local = reply.error().message.rfind("cannot read ", 0) == 0;
      return ClientFailure{local ? kExitUsage : kExitUnreachable, reply.error().message};
    }
    if (reply->status != 201 && reply->status != 200) {
      return ClientFailure{kExitApiError,
                           file + ": the daemon answered " + std::to_string(reply->status) + ": " +
                               ApiErrorMessage(*reply),
                           reply->status};
    }
    Json build = Json::parse(reply->body, nullptr, false);
    if (!build.is_object() || !build.contains("id") || !build["id"].is_number_integer()) {
      return ClientFailure{kExitApiError, file + ": the daemon's answer is not a build"};
    }
    return Uploaded{std::move(build), reply->status == 201};
  }

  int SubmitRun() {
    std::string body = RunBodyJson(o_);
    // `--build FILE`, `--baseline-build FILE`: uploaded first (as `build add`, said on stderr),
    // the run names the builds.
    const std::pair<const std::optional<std::string>*, const char*> files[] = {
        {&o_.baseline_build_file, "baseline_build"}, {&o_.build_file, "build"}};
    for (const auto& [file, field] : files) {
      if (!*file) continue;
      auto uploaded = UploadFile(**file);
      if (!uploaded) return Fail(uploaded.error());
      std::fputs(BuildLine(uploaded->build, uploaded->created).c_str(), err_);
      Json with_build = Json::parse(body);
      with_build[field] = uploaded->build["id"];
      body = with_build.dump();
    }
    auto created = CallApi(client_, "POST", "/api/v1/runs", body, 201);
    if (!created) return Fail(created.error());
    const int64_t id = created->value("id", int64_t{0});
    if (!o_.wait) {
      if (o_.json) {
        PrintJson(*created);
      } else {
        std::fprintf(out_, "run %lld queued; follow it with: droidlab watch %lld\n",
                     static_cast<long long>(id), static_cast<long long>(id));
      }
      return kExitOk;
    }
    auto ended = Follow(id);
    if (!ended) return Fail(ended.error());
    Json run = std::move(*ended);
    const std::string status = run.value("status", "");

    std::optional<Json> comparison;
    std::optional<std::string> comparison_error;
    int exit_code = kExitOk;
    if ((o_.baseline || o_.side_by_side()) && status == "succeeded") {
      // A side-by-side run is compared with itself: its build against its baseline build.
      std::string target = "/api/v1/runs/" + std::to_string(id) + "/compare?";
      if (o_.baseline) target += "baseline=" + PercentEncode(*o_.baseline) + "&";
      target += o_.allow_different_conditions ? "allow_different_conditions=true" : "";
      // --baseline history: the run against the current segment of its series (issue 15 §2).
      if (o_.baseline == "history") target = "/api/v1/runs/" + std::to_string(id) + "/verdict";
      auto compared = CallApi(client_, "GET", target);
      if (compared) {
        comparison = std::move(*compared);
      } else if (o_.baseline == "previous" && compared.error().http_status == 404) {
        // The first run of a package on a model has nothing before it: a nightly job's first
        // night is not a failure.
        std::fprintf(err_, "droidlab run: no baseline to compare with: %s\n",
                     compared.error().message.c_str());
      } else {
        comparison_error = compared.error().message;
        exit_code = Fail(compared.error());
      }
    }

    if (o_.junit) {
      Json launches;
      auto got = CallApiAllRows(client_, "/api/v1/runs/" + std::to_string(id) + "/launches", "launches");
      if (got) launches = std::move(*got);
      std::ofstream file(*o_.junit, std::ios::binary | std::ios::trunc);
      file << JunitReport(run, launches, comparison, comparison_error);
      file.close();
      if (!file) {
        std::fprintf(err_, "droidlab run: cannot write the JUnit report %s\n", o_.junit->c_str());
        if (exit_code == kExitOk) exit_code = kExitUsage;
      }
    }

    if (o_.json) {
      if (comparison) run["comparison"] = *comparison;
      PrintJson(run);
    } else {
      std::fputs(RunSummaryText(run).c_str(), out_);
      if (comparison) std::fputs(ComparisonText(*comparison).c_str(), out_);
    }
    if (exit_code != kExitOk) return exit_code;
    std::optional<std::string> verdict;
    if (comparison) verdict = comparison->value("verdict", "");
    if (o_.fail_on_regression && verdict == "not_comparable") {
      // Not a failure of the app: the phone or its state changed (an OTA, another compilation
      // state). The gate did not judge, and says why.
      std::fprintf(err_, "droidlab run: not comparable: %s\n",
                   FormatValue(comparison->value("reason", Json())).c_str());
    }
    if (o_.fail_on_regression && verdict == "insufficient_data") {
      // Not a failure (a short run cannot prove a regression), but a gate that did not judge.
      std::fprintf(err_, "droidlab run: no verdict: %s\n",
                   FormatValue(comparison->value("reason", Json())).c_str());
    }
    exit_code = RunExitCode(status, verdict, o_.fail_on_regression);
    if (exit_code == kExitRunNotSucceeded) {
      std::fprintf(err_, "droidlab run: run %lld %s\n", static_cast<long long>(id), status.c_str());
    } else if (exit_code == kExitRegression) {
      std::fprintf(err_, "droidlab run: run %lld is a regression against %s\n",
                   static_cast<long long>(id), BaselineName(*comparison).c_str());
    }
    return exit_code;
  }

  int Watch() {
    auto ended = Follow(o_.id);
    if (!ended) return Fail(ended.error());
    const Json& run = *ended;
    if (o_.json) {
      PrintJson(run);
    } else {
      std::fputs(RunSummaryText(run).c_str(), out_);
    }
    return RunExitCode(run.value("status", ""), std::nullopt, false);
  }

  int AddSchedule() {
    Json body = {{"cron", o_.cron}, {"run", Json::parse(RunBodyJson(o_))}};
    if (o_.timezone) body["timezone"] = *o_.timezone;
    auto created = CallApi(client_, "POST", "/api/v1/schedules", body.dump(), 201);
    if (!created) return Fail(created.error());
    if (o_.json) {
      PrintJson(*created);
    } else {
      std::fprintf(out_, "schedule %s added: %s (%s)\n",
                   FormatValue(created->value("id", Json())).c_str(),
                   FormatValue(created->value("cron", Json())).c_str(),
                   FormatValue(created->value("timezone", Json())).c_str());
    }
    return kExitOk;
  }

  int DeleteSchedule() {
    auto deleted = CallApi(client_, "DELETE", "/api/v1/schedules/" + std::to_string(o_.id));
    if (!deleted) return Fail(deleted.error());
    if (o_.json) {
      PrintJson(*deleted);
    } else {
      std::fprintf(out_, "schedule %lld deleted\n", static_cast<long long>(o_.id));
    }
    return kExitOk;
  }

  // The files grouped into builds (GroupBuildFiles), each uploaded in turn (streamed from disk):
  // one APK as the body, several as multipart; the first failure stops, naming the file.
  int AddBuilds() {
    auto groups = GroupBuildFiles(o_.files);
    if (!groups) return Fail(ClientFailure{kExitUsage, groups.error()});
    for (const std::vector<std::string>& group : *groups) {
      auto uploaded = UploadFiles(group);
      if (!uploaded) return Fail(uploaded.error());
      if (o_.json) {
        PrintJson(uploaded->build);
      } else {
        std::fputs(BuildLine(uploaded->build, uploaded->created).c_str(), out_);
      }
    }
    return kExitOk;
  }

  std::string name_;
  const ClientOptions& o_;
  ApiClient client_;
  const ClientEnvironment& env_;
  std::FILE* out_;
  std::FILE* err_;
};

}  // namespace

ClientEnvironment ClientEnvironmentFromProcess() {
  ClientEnvironment env;
  env.server = Env("DROIDLAB_SERVER");
  env.token = Env("DROIDLAB_TOKEN");
  env.stderr_is_terminal = ::isatty(STDERR_FILENO) == 1;
  winsize size{};
  if (env.stderr_is_terminal && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col >= 20) {
    env.terminal_columns = size.ws_col;
  }
  return env;
}

bool IsClientCommand(std::string_view command) {
  return command == "devices" || command == "runs" || command == "run" || command == "watch" ||
         command == "schedules" || command == "build";
}

int RunClientCommand(std::string_view command, const std::vector<std::string>& args,
                     const ClientEnvironment& env, std::FILE* out, std::FILE* err) {
  const std::string name(command);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::fputs(ClientCommandsUsage(), out);
      return kExitOk;
    }
  }
  auto options = ParseClientArgs(command, args);
  if (!options) {
    std::fprintf(err, "droidlab %s: %s\n", name.c_str(), options.error().c_str());
    return kExitUsage;
  }
  auto server = ResolveServer(options->server, env.server);
  if (!server) {
    std::fprintf(err, "droidlab %s: %s\n", name.c_str(), server.error().c_str());
    return kExitUsage;
  }
  if (auto bad = LoadScenarioFile(*options, &ReadWholeFile)) {
    std::fprintf(err, "droidlab %s: %s\n", name.c_str(), bad->c_str());
    return kExitUsage;
  }
  auto token = ResolveToken(options->token_file, env.token, &ReadWholeFile);
  if (!token) {
    std::fprintf(err, "droidlab %s: %s\n", name.c_str(), token.error().c_str());
    return kExitUsage;
  }
  Command run(name, *options, ApiClient(*server, *token), env, out, err);
  return run.Run();
}

}  // namespace droidlab::daemon
