#include "schema/migrations.h"

#include <vector>

namespace droidlab::schema {

std::span<const Migration> Migrations() {
  // The build checked the names (NNNN_description) and the numbering (1, 2, ... with no gap):
  // the version is the file's place in the list.
  static const std::vector<Migration> kAll = [] {
    std::vector<Migration> all;
    for (const EmbeddedFile& file : MigrationFiles()) {
      all.push_back(Migration{static_cast<int>(all.size()) + 1, file.name, file.bytes});
    }
    return all;
  }();
  return kAll;
}

}  // namespace droidlab::schema
