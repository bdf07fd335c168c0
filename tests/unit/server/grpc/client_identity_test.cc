#include "server/grpc/client_identity.h"

#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/security/client_limiter.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

TEST(ClientIdentityTest, PeerHostDropsThePort) {
  EXPECT_EQ(PeerHost("ipv4:10.1.2.3:5000"), "10.1.2.3");
  EXPECT_EQ(PeerHost("ipv6:[::1]:5000"), "::1");
  EXPECT_EQ(PeerHost("unix:/tmp/sock"), "unix:/tmp/sock");
}

}  // namespace
}  // namespace shardplan
