#include "server/grpc/admin_service.h"

#include "gtest/gtest.h"

namespace shardplan {
namespace {

TEST(ReloadReportToProtoTest, CarriesLoadedAndRefusedBundles) {
  v1::ReloadModelsResponse proto;
  ModelReloadReport with_refusal;
  with_refusal.loaded = {"a@1"};
  with_refusal.refused.push_back({"/m/b/1", "manifest.json: not JSON", true});
  ReloadReportToProto(with_refusal, &proto);
  ASSERT_EQ(proto.refused_size(), 1);
  EXPECT_EQ(proto.refused(0).directory(), "/m/b/1");
  EXPECT_EQ(proto.loaded(0), "a@1");
}

TEST(ReloadReportToProtoTest, CarriesPoliciesApart) {
  v1::ReloadModelsResponse proto;
  ModelReloadReport report;
  report.loaded = {"m@1"};
  report.policies_loaded = {"p@2"};
  report.policies_unchanged = {"p@1"};
  report.policies_removed = {"q@1"};
  ReloadReportToProto(report, &proto);
  ASSERT_EQ(proto.loaded_size(), 1);
  ASSERT_EQ(proto.policies_loaded_size(), 1);
  EXPECT_EQ(proto.policies_loaded(0), "p@2");
  ASSERT_EQ(proto.policies_unchanged_size(), 1);
  EXPECT_EQ(proto.policies_unchanged(0), "p@1");
  ASSERT_EQ(proto.policies_removed_size(), 1);
  EXPECT_EQ(proto.policies_removed(0), "q@1");
}

}  // namespace
}  // namespace shardplan
