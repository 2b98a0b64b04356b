// What the soak checks at the end: each phone as it was found, every run ended with a reason, the
// database sound, every launch the API returned still there. The database is read with SQLite
// itself, read-only, after the daemon stopped — not through the store under test.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/soak/run_traffic.h"
#include "tests/soak/soak_lab.h"

namespace droidlab::soak {

// What the soak must leave as it found: `settings get global looper_stats` and `dumpsys battery`.
struct PhoneState {
  std::string looper_stats;
  std::string battery;
  bool operator==(const PhoneState&) const = default;
};

// Reads every live phone's state; a phone that does not answer is listed in `problems`.
std::map<std::string, PhoneState> ReadPhoneStates(const SoakLab& lab,
                                                  std::vector<std::string>& problems);

// Each phone's state now against `before`: one problem line per difference.
void CheckPhonesAsFound(const std::map<std::string, PhoneState>& before,
                        const std::map<std::string, PhoneState>& after,
                        std::vector<std::string>& problems);

// Every launch in `seen` read again through the API (the daemon running on `port`): still there,
// same values.
void CheckLaunchesThroughApi(uint16_t port,
                             const std::map<int64_t, std::map<int64_t, nlohmann::json>>& seen,
                             std::vector<std::string>& problems);

struct DatabaseFigures {
  std::map<std::string, int64_t> runs_by_status;
  int64_t launches = 0;
  int64_t restores_recorded = 0;
  int64_t restores_paid = 0;
  int64_t restores_owed_to_lost_phones = 0;  // phones whose devsim crashed: they cannot be paid
};

// The stopped daemon's database: integrity_check ok, every run terminal with a reason, no restore
// owed but to a `lost` phone, every launch in `seen` there with the same values; its figures.
DatabaseFigures CheckDatabase(const std::string& path,
                              const std::map<int64_t, std::map<int64_t, nlohmann::json>>& seen,
                              const std::set<std::string>& lost,
                              std::vector<std::string>& problems);

// Restores the daemon still owes to phones not `lost` (read-only, beside a running daemon: WAL);
// -1 when unreadable.
int64_t OwedRestores(const std::string& path, const std::set<std::string>& lost);

}  // namespace droidlab::soak
