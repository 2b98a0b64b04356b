#include "tests/soak/soak_checks.h"

#include <sqlite3.h>

#include <chrono>
#include <memory>

#include "tests/soak/soak_http.h"

namespace droidlab::soak {

using Json = nlohmann::json;

std::map<std::string, PhoneState> ReadPhoneStates(const SoakLab& lab,
                                                  std::vector<std::string>& problems) {
  std::map<std::string, PhoneState> states;
  for (const auto& phone : lab.LivePhones()) {
    const auto looper = lab.Shell(phone, "settings get global looper_stats");
    const auto battery = lab.Shell(phone, "dumpsys battery");
    if (looper.exit_code != 0 || battery.exit_code != 0) {
      problems.push_back(phone.address + " did not answer: " + looper.err + battery.err);
      continue;
    }
    states[phone.address] = {looper.out, battery.out};
  }
  return states;
}

void CheckPhonesAsFound(const std::map<std::string, PhoneState>& before,
                        const std::map<std::string, PhoneState>& after,
                        std::vector<std::string>& problems) {
  for (const auto& [address, was] : before) {
    const auto now = after.find(address);
    if (now == after.end()) continue;  // already listed as not answering
    if (now->second.looper_stats != was.looper_stats) {
      problems.push_back(address + ": looper_stats '" + now->second.looper_stats +
                         "', was '" + was.looper_stats + "'");
    }
    if (now->second.battery != was.battery) {
      problems.push_back(address + ": dumpsys battery\n" + now->second.battery + "was\n" +
                         was.battery);
    }
  }
}

void CheckLaunchesThroughApi(uint16_t port, const std::map<int64_t, std::map<int64_t, Json>>& seen,
                             std::vector<std::string>& problems) {
  for (const auto& [run_id, launches] : seen) {
    if (launches.empty()) continue;
    const std::string target = "/api/v1/runs/" + std::to_string(run_id) + "/launches";
    const auto answer = Call(port, "GET", target, "", std::chrono::seconds(60));
    const Json body = Json::parse(answer.body, nullptr, false);
    if (answer.status != 200 || !body.is_object() || !body["launches"].is_array()) {
      problems.push_back("GET " + target + " → " + std::to_string(answer.status));
      continue;
    }
    std::map<int64_t, Json> now;
    for (const auto& l : body["launches"]) now[l.value("iteration", int64_t{-1})] = l;
    for (const auto& [iteration, launch] : launches) {
      const auto it = now.find(iteration);
      if (it == now.end()) {
        problems.push_back("run " + std::to_string(run_id) + " launch " +
                           std::to_string(iteration) + " the API returned is gone: " +
                           launch.dump());
      } else if (it->second != launch) {
        problems.push_back("run " + std::to_string(run_id) + " launch " +
                           std::to_string(iteration) + " differs: was " + launch.dump() +
                           ", now " + it->second.dump());
      }
    }
  }
}

namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct Finalize {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, CloseDb>;
using Stmt = std::unique_ptr<sqlite3_stmt, Finalize>;

Db OpenReadOnly(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return nullptr;
  }
  sqlite3_busy_timeout(db, 5000);
  return Db(db);
}

Stmt Prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) return nullptr;
  return Stmt(s);
}

std::string Text(sqlite3_stmt* s, int column) {
  const auto* text = sqlite3_column_text(s, column);
  return text ? reinterpret_cast<const char*>(text) : "";
}

// A launch column as the API shows it: NULL → null.
Json Column(sqlite3_stmt* s, int column) {
  switch (sqlite3_column_type(s, column)) {
    case SQLITE_NULL: return nullptr;
    case SQLITE_INTEGER: return sqlite3_column_int64(s, column);
    default: return Text(s, column);
  }
}

}  // namespace

int64_t OwedRestores(const std::string& path, const std::set<std::string>& lost) {
  Db db = OpenReadOnly(path);
  if (!db) return -1;
  Stmt s = Prepare(db.get(), "SELECT serial FROM device_restores WHERE paid_at IS NULL");
  if (!s) return -1;
  int64_t owed = 0;
  int step;
  while ((step = sqlite3_step(s.get())) == SQLITE_ROW) owed += lost.count(Text(s.get(), 0)) ? 0 : 1;
  return step == SQLITE_DONE ? owed : -1;
}

DatabaseFigures CheckDatabase(const std::string& path,
                              const std::map<int64_t, std::map<int64_t, Json>>& seen,
                              const std::set<std::string>& lost,
                              std::vector<std::string>& problems) {
  DatabaseFigures figures;
  Db db = OpenReadOnly(path);
  if (!db) {
    problems.push_back("cannot open " + path + " read-only");
    return figures;
  }
  {
    Stmt s = Prepare(db.get(), "PRAGMA integrity_check");
    std::string result;
    while (s && sqlite3_step(s.get()) == SQLITE_ROW) result += Text(s.get(), 0) + "\n";
    if (result != "ok\n") problems.push_back("PRAGMA integrity_check: " + result);
  }
  {
    // One line per kind of fault, with the first ids: a bug meets hundreds of runs in a soak.
    std::map<std::string, std::vector<int64_t>> wrong;
    Stmt s = Prepare(db.get(), "SELECT id, status, error FROM runs ORDER BY id");
    while (s && sqlite3_step(s.get()) == SQLITE_ROW) {
      const int64_t id = sqlite3_column_int64(s.get(), 0);
      const std::string status = Text(s.get(), 1);
      const std::string error = Text(s.get(), 2);
      ++figures.runs_by_status[status];
      if (!IsTerminal(status)) {
        wrong["runs still " + status + " at the end"].push_back(id);
      } else if (status != "succeeded" && error.empty()) {
        wrong["runs " + status + " without a reason (error NULL or empty)"].push_back(id);
      }
    }
    for (const auto& [what, ids] : wrong) {
      std::string line = std::to_string(ids.size()) + " " + what + ": run";
      for (size_t i = 0; i < ids.size() && i < 20; ++i) line += " " + std::to_string(ids[i]);
      if (ids.size() > 20) line += " …";
      problems.push_back(line);
    }
  }
  {
    Stmt s = Prepare(db.get(),
                     "SELECT count(*), count(paid_at) FROM device_restores");
    if (s && sqlite3_step(s.get()) == SQLITE_ROW) {
      figures.restores_recorded = sqlite3_column_int64(s.get(), 0);
      figures.restores_paid = sqlite3_column_int64(s.get(), 1);
    }
    Stmt owed = Prepare(db.get(),
                        "SELECT serial, kind, name, previous, run_id FROM device_restores "
                        "WHERE paid_at IS NULL ORDER BY id");
    while (owed && sqlite3_step(owed.get()) == SQLITE_ROW) {
      if (lost.count(Text(owed.get(), 0)) != 0) {
        ++figures.restores_owed_to_lost_phones;
        continue;
      }
      problems.push_back("restore still owed: " + Text(owed.get(), 0) + " " +
                         Text(owed.get(), 1) + " " + Text(owed.get(), 2) + " previous '" +
                         Text(owed.get(), 3) + "' (run " + Text(owed.get(), 4) + ")");
    }
  }
  {
    Stmt s = Prepare(db.get(), "SELECT count(*) FROM launches");
    if (s && sqlite3_step(s.get()) == SQLITE_ROW) figures.launches = sqlite3_column_int64(s.get(), 0);
  }
  Stmt launch = Prepare(db.get(),
                        "SELECT displayed_ms, total_time_ms, wait_time_ms, launch_state, pid "
                        "FROM launches WHERE run_id = ? AND iteration = ?");
  if (!launch) {
    problems.push_back(std::string("reading launches: ") + sqlite3_errmsg(db.get()));
    return figures;
  }
  const char* columns[] = {"displayed_ms", "total_time_ms", "wait_time_ms", "launch_state", "pid"};
  for (const auto& [run_id, launches] : seen) {
    for (const auto& [iteration, json] : launches) {
      sqlite3_reset(launch.get());
      sqlite3_bind_int64(launch.get(), 1, run_id);
      sqlite3_bind_int64(launch.get(), 2, iteration);
      const std::string which = "run " + std::to_string(run_id) + " launch " +
                                std::to_string(iteration);
      if (sqlite3_step(launch.get()) != SQLITE_ROW) {
        problems.push_back(which + " the API returned is not in the database");
        continue;
      }
      for (int c = 0; c < 5; ++c) {
        const Json stored = Column(launch.get(), c);
        if (json.contains(columns[c]) && json[columns[c]] != stored) {
          problems.push_back(which + ": " + columns[c] + " " + stored.dump() + " in the database, " +
                             json[columns[c]].dump() + " from the API");
        }
      }
    }
  }
  return figures;
}

}  // namespace droidlab::soak
