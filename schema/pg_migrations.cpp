#include <vector>

#include "schema/migrations.h"

namespace droidlab::schema {

std::span<const Migration> PostgresMigrations() {
  // As Migrations(): the build checked the names and numbering, and that they are SQLite's.
  static const std::vector<Migration> kAll = [] {
    std::vector<Migration> all;
    for (const EmbeddedFile& file : PostgresMigrationFiles()) {
      all.push_back(Migration{static_cast<int>(all.size()) + 1, file.name, file.bytes});
    }
    return all;
  }();
  return kAll;
}

}  // namespace droidlab::schema
