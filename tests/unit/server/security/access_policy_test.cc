#include "server/security/access_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shardplan/v1/admin.pb.h"
#include "shardplan/v1/planner.pb.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

TokenStore Tokens() {
  absl::StatusOr<TokenStore> store = TokenStore::Parse(
      "{\"tokens\": [{\"name\": \"trainer\", \"sha256\": \"" + Sha256Hex("p") +
      "\", \"role\": \"planner\"}, {\"name\": \"ops\", \"sha256\": \"" + Sha256Hex("a") +
      "\", \"role\": \"admin\"}, {\"name\": \"meter\", " + "\"sha256\": \"" + Sha256Hex("m") +
      "\", \"role\": \"planner\", \"scopes\": [\"measurements\"]}]}");
  EXPECT_TRUE(store.ok()) << store.status();
  return *store;
}

TEST(AccessPolicyTest, RequiredAccessFollowsTheService) {
  EXPECT_EQ(RequiredAccess("/grpc.health.v1.Health/Check"), Access::kOpen);
  EXPECT_EQ(RequiredAccess("/grpc.health.v1.Health/Watch"), Access::kOpen);
  EXPECT_EQ(RequiredAccess("/shardplan.v1.AdminService/ReloadModels"), Access::kAdmin);
  EXPECT_EQ(RequiredAccess("/shardplan.v1.AdminService/DeletePlan"), Access::kAdmin);
  EXPECT_EQ(RequiredAccess("/shardplan.v1.PlannerService/Plan"), Access::kPlanner);
  EXPECT_EQ(RequiredAccess("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"),
            Access::kPlanner);
  EXPECT_EQ(RequiredAccess(""),
            Access::kPlanner);  // unknown paths are never open
  EXPECT_EQ(RequiredAccess("/grpc.health.v1.HealthX/Check"), Access::kPlanner);
}

TEST(AccessPolicyTest, BearerTokenParsesTheSchemeCaseInsensitively) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("bearer abc "), "abc");
  EXPECT_EQ(BearerToken(std::nullopt), std::nullopt);
  EXPECT_EQ(BearerToken("Basic abc"), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer "), std::nullopt);
  EXPECT_EQ(BearerToken("Bearer    "), std::nullopt);
  EXPECT_EQ(BearerToken("abc"), std::nullopt);
}

TEST(AccessPolicyTest, DecisionsByTokenAndRole) {
  const TokenStore tokens = Tokens();
  const std::string plan = "/shardplan.v1.PlannerService/Plan";
  const std::string reload = "/shardplan.v1.AdminService/ReloadModels";

  AccessDecision missing = DecideAccess(tokens, plan, std::nullopt);
  EXPECT_EQ(missing.status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(missing.status.message()), HasSubstr("missing bearer token"));
  AccessDecision unknown = DecideAccess(tokens, plan, "Bearer nope");
  EXPECT_EQ(unknown.status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(unknown.status.message(), "unknown bearer token");

  AccessDecision planner = DecideAccess(tokens, plan, "Bearer p");
  EXPECT_TRUE(planner.status.ok());
  ASSERT_NE(planner.token, nullptr);
  EXPECT_EQ(planner.token->name, "trainer");

  AccessDecision denied = DecideAccess(tokens, reload, "Bearer p");
  EXPECT_EQ(denied.status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(denied.status.message()),
              HasSubstr("shardplan.v1.AdminService/ReloadModels needs role \"admin\""));
  EXPECT_THAT(std::string(denied.status.message()), HasSubstr("has role \"planner\""));

  EXPECT_TRUE(DecideAccess(tokens, reload, "Bearer a").status.ok());
  EXPECT_TRUE(DecideAccess(tokens, plan, "Bearer a").status.ok());
  EXPECT_TRUE(DecideAccess(tokens, "/grpc.health.v1.Health/Check", std::nullopt).status.ok());
}

TEST(AccessPolicyTest, ReportingMeasurementsNeedsItsOwnScope) {
  const TokenStore tokens = Tokens();
  const std::string report = "/shardplan.v1.PlannerService/ReportMeasurement";
  EXPECT_EQ(RequiredAccess(report), Access::kMeasurements);
  AccessDecision planner = DecideAccess(tokens, report, "Bearer p");
  EXPECT_EQ(planner.status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(planner.status.message()),
              HasSubstr("shardplan.v1.PlannerService/ReportMeasurement needs scope "
                        "\"measurements\"; the token \"trainer\" has role \"planner\" without it"));
  EXPECT_TRUE(DecideAccess(tokens, report, "Bearer m").status.ok());
  EXPECT_TRUE(DecideAccess(tokens, report, "Bearer a").status.ok());  // admins may
  // The scope adds a permission, it grants no role.
  EXPECT_TRUE(DecideAccess(tokens, "/shardplan.v1.PlannerService/Plan", "Bearer m").status.ok());
  EXPECT_EQ(
      DecideAccess(tokens, "/shardplan.v1.AdminService/ReloadModels", "Bearer m").status.code(),
      absl::StatusCode::kPermissionDenied);
}

TEST(AccessPolicyTest, AJobOfATokenOrCertificateIsSeenByItsOwnerAndAdminsOnly) {
  EXPECT_TRUE(MaySeeJob("token:a", "token:a", false));
  EXPECT_FALSE(MaySeeJob("token:a", "token:b", false));
  EXPECT_FALSE(MaySeeJob("token:a", "cert:a", false));
  EXPECT_FALSE(MaySeeJob("token:a", "peer:127.0.0.1", false));
  EXPECT_TRUE(MaySeeJob("token:a", "token:ops", true));
  EXPECT_TRUE(MaySeeJob("cert:trainer-a", "cert:trainer-a", false));
  EXPECT_FALSE(MaySeeJob("cert:trainer-a", "cert:trainer-b", false));
  // Unauthenticated and unknown submitters own nothing: as before ownership.
  EXPECT_TRUE(MaySeeJob("peer:10.0.0.1", "peer:10.0.0.2", false));
  EXPECT_TRUE(MaySeeJob("peer:10.0.0.1", "token:b", false));
  EXPECT_TRUE(MaySeeJob("", "token:b", false));
}

TEST(AccessPolicyTest, MethodLabelsAreBoundedToKnownMethods) {
  // Links the services' descriptors in, as the server binary does by serving them.
  ASSERT_NE(v1::PlanRequest::descriptor(), nullptr);
  ASSERT_NE(v1::ReloadModelsRequest::descriptor(), nullptr);
  EXPECT_EQ(MethodLabel("/shardplan.v1.PlannerService/Plan"), "shardplan.v1.PlannerService/Plan");
  EXPECT_EQ(MethodLabel("/shardplan.v1.AdminService/ReloadModels"),
            "shardplan.v1.AdminService/ReloadModels");
  EXPECT_EQ(MethodLabel("/shardplan.v1.PlannerService/Nope"), "unknown");
  EXPECT_EQ(MethodLabel("/random/garbage"), "unknown");
  EXPECT_EQ(MethodLabel("no-slash"), "unknown");
  EXPECT_EQ(MethodLabel(""), "unknown");
}

}  // namespace
}  // namespace shardplan
