#ifndef SHARDPLAN_TESTS_UNIT_SERVER_SERVICE_TEST_FIXTURE_H_
#define SHARDPLAN_TESTS_UNIT_SERVER_SERVICE_TEST_FIXTURE_H_

// The planning service as ServerCore assembles it (engine, cache, plan ledger over a real
// SQLite store, job manager, limits), called directly: no transport is needed to plan, keep
// plans under job keys or run jobs. Shared by the service's tests and the policy tests.

#include <filesystem>
#include <memory>
#include <string>

#include "costmodels/model_registry.h"
#include "costmodels/policy_registry.h"
#include "gtest/gtest.h"
#include "planner/algorithms/builtin_algorithms.h"
#include "server/concurrency_limiter.h"
#include "server/job_manager.h"
#include "server/metrics.h"
#include "server/plan_cache.h"
#include "server/plan_ledger.h"
#include "server/planning_engine.h"
#include "server/planning_service.h"
#include "server/security/client_limiter.h"
#include "server/store/plan_store.h"

namespace shardplan::server_test {

class ServiceTest : public ::testing::Test {
 protected:
  // A derived fixture may register algorithms and add models or policies before SetUp.
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinModels(models_).ok());
    dir_ = ::testing::TempDir() + "/service_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    absl::StatusOr<std::unique_ptr<PlanStore>> store = OpenPlanStore("sqlite:" + dir_ + "/p.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    ledger_ = std::make_unique<PlanLedger>(store_.get(), "replica", TaskLimits{}, &metrics_);
    engine_ = std::make_unique<PlanningEngine>(
        &algorithms_, &models_, &policies_, &cache_, &metrics_,
        PlanningEngineOptions{.default_algorithm = "size_lookup_greedy"});
    jobs_ = std::make_unique<JobManager>(JobManagerOptions{.workers = 1}, &metrics_);
    service_ = std::make_unique<PlanningService>(engine_.get(), jobs_.get(), ledger_.get(), &slots_,
                                                 &clients_, &metrics_);
  }
  void TearDown() override { jobs_->Shutdown(); }

  AlgorithmRegistry algorithms_ = BuiltinAlgorithms();
  ModelRegistry models_;
  PolicyRegistry policies_;
  ServerMetrics metrics_;
  PlanCache cache_{int64_t{1} << 20};
  ConcurrencyLimiter slots_{2};
  ClientLimiter clients_{0};
  std::string dir_;
  std::unique_ptr<PlanStore> store_;
  std::unique_ptr<PlanLedger> ledger_;
  std::unique_ptr<PlanningEngine> engine_;
  std::unique_ptr<JobManager> jobs_;
  std::unique_ptr<PlanningService> service_;
  const CallContext call_{};
};

}  // namespace shardplan::server_test

#endif  // SHARDPLAN_TESTS_UNIT_SERVER_SERVICE_TEST_FIXTURE_H_
