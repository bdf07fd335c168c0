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

}  // namespace
}  // namespace shardplan
