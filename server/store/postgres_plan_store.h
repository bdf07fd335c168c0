#ifndef SHARDPLAN_SERVER_STORE_POSTGRES_PLAN_STORE_H_
#define SHARDPLAN_SERVER_STORE_POSTGRES_PLAN_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/plan_store.h"

struct pg_conn;
struct pg_result;

namespace shardplan {

// PlanStore in a PostgreSQL database, shared by several replicas. One libpq connection guarded
// by a mutex; every query is parameterised (PQexecParams). A call that finds the connection lost
// resets it and runs once more; otherwise it fails UNAVAILABLE with libpq's message. Messages
// name the database as user@host:port/dbname, never with the URI's password.
class PostgresPlanStore final : public PlanStore {
 public:
  // Connects to `uri` (postgresql://...) and creates the schema when missing; two replicas
  // starting together serialise the creation on an advisory lock.
  static absl::StatusOr<std::unique_ptr<PostgresPlanStore>> Open(const std::string& uri);

  ~PostgresPlanStore() override;
  PostgresPlanStore(const PostgresPlanStore&) = delete;
  PostgresPlanStore& operator=(const PostgresPlanStore&) = delete;

  std::string backend() const override { return "postgresql"; }
  // user@host:port/dbname, for logs.
  const std::string& description() const { return description_; }

  absl::Status Insert(const PlanRecord& record) override;
  absl::Status Update(const PlanRecord& record) override;
  absl::Status ReplaceKeyed(const PlanRecord& record) override;
  absl::StatusOr<std::optional<PlanRecord>> GetByJobId(const std::string& job_id) override;
  absl::StatusOr<std::optional<PlanRecord>> GetByJobKey(const std::string& job_key) override;
  absl::StatusOr<std::optional<PlanRecord>> FindSucceeded(const std::string& request_hash) override;
  absl::StatusOr<std::vector<PlanRecord>> ListUnfinished(const std::string& owner) override;
  absl::Status Delete(const std::string& job_id) override;
  absl::StatusOr<int64_t> PruneFinished(int64_t finished_before_unix_ms,
                                        int64_t max_records) override;
  absl::StatusOr<int64_t> Count() override;
  absl::StatusOr<StoredBytes> Bytes() override;
  absl::StatusOr<int64_t> PruneForSize(int64_t max_bytes, int64_t max_records) override;

 private:
  class Connection;

  PostgresPlanStore(std::string description, std::string password, pg_conn* conn);

  // Runs `body` on the connection under the mutex; once more after a reset when the connection
  // was lost (the body must be a whole transaction, so a repeat is safe).
  absl::Status WithConnection(const std::function<absl::Status(Connection&)>& body);
  absl::StatusOr<std::vector<PlanRecord>> QueryRecords(const std::string& what,
                                                       const std::string& sql,
                                                       const std::vector<std::string>& params);
  absl::StatusOr<std::optional<PlanRecord>> QueryOne(const std::string& what,
                                                     const std::string& sql,
                                                     const std::vector<std::string>& params);

  const std::string description_;
  const std::string password_;  // only to scrub it from messages
  std::mutex mu_;
  pg_conn* conn_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_SERVER_STORE_POSTGRES_PLAN_STORE_H_
