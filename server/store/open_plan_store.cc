#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/store/plan_store.h"
#include "server/store/postgres_plan_store.h"
#include "server/store/sqlite_plan_store.h"

namespace shardplan {

absl::StatusOr<std::unique_ptr<PlanStore>> OpenPlanStore(const std::string& store) {
  if (absl::StartsWith(store, "sqlite:")) {
    const std::string path = store.substr(std::string("sqlite:").size());
    if (path.empty()) {
      return absl::InvalidArgumentError(
          "store: \"sqlite:\" needs a file path, e.g. sqlite:plans.db");
    }
    absl::StatusOr<std::unique_ptr<SqlitePlanStore>> sqlite = SqlitePlanStore::Open(path);
    if (!sqlite.ok()) return sqlite.status();
    return std::unique_ptr<PlanStore>(std::move(*sqlite));
  }
  if (absl::StartsWith(store, "postgresql://") || absl::StartsWith(store, "postgres://")) {
    absl::StatusOr<std::unique_ptr<PostgresPlanStore>> postgres = PostgresPlanStore::Open(store);
    if (!postgres.ok()) return postgres.status();
    return std::unique_ptr<PlanStore>(std::move(*postgres));
  }
  // The setting may be a URI with a password: quote only its scheme.
  const size_t colon = store.find(':');
  return absl::InvalidArgumentError(absl::StrCat(
      "store: expected \"sqlite:<path>\" or \"postgresql://...\", got ",
      store.empty() ? "an empty string"
      : colon == std::string::npos
          ? absl::StrCat("\"", store, "\"")
          : absl::StrCat("a setting that starts with \"", store.substr(0, colon + 1), "\"")));
}

}  // namespace shardplan
