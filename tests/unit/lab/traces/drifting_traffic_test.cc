#include "lab/traces/drifting_traffic.h"

#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan::traces {
namespace {

using ::testing::HasSubstr;

std::vector<std::vector<uint64_t>> Draw(const DriftingTrafficOptions& options, int n) {
  DriftingTraffic traffic = *DriftingTraffic::Create(options);
  std::vector<std::vector<uint64_t>> out(n);
  for (auto& request : out) traffic.Next(request);
  return out;
}

TEST(DriftingTrafficTest, SameSeedSameTraceOtherSeedOther) {
  const DriftingTrafficOptions options{.fields = 4, .rows_per_field = 100, .groups = 10, .seed = 3};
  EXPECT_EQ(Draw(options, 200), Draw(options, 200));
  DriftingTrafficOptions other = options;
  other.seed = 4;
  EXPECT_NE(Draw(options, 200), Draw(other, 200));
}

TEST(DriftingTrafficTest, OneLookupPerFieldWithinTheTables) {
  DriftingTraffic traffic =
      *DriftingTraffic::Create({.fields = 5, .rows_per_field = 30, .groups = 4});
  ASSERT_EQ(traffic.tables().size(), 5u);
  EXPECT_EQ(traffic.tables()[2].name, "f2");
  std::vector<uint64_t> request;
  for (int i = 0; i < 100; ++i) {
    traffic.Next(request);
    ASSERT_EQ(request.size(), 5u);
    for (int f = 0; f < 5; ++f) {
      EXPECT_EQ(TableOfKey(request[f]), f);
      EXPECT_LT(RowOfKey(request[f]), 30);
    }
  }
}

TEST(DriftingTrafficTest, ADriftGivesTheSameRowsNewPartners) {
  // Four groups, no noise, every group re-drawn: the rows requested stay, the requests change.
  const DriftingTrafficOptions options{.fields = 6,
                                       .rows_per_field = 1000,
                                       .groups = 4,
                                       .noise_share = 0.0,
                                       .drift_every = 400,
                                       .redraw_share = 1.0,
                                       .seed = 2};
  DriftingTraffic traffic = *DriftingTraffic::Create(options);
  std::set<std::vector<uint64_t>> before, after;
  std::set<uint64_t> rows_before, rows_after;
  std::vector<uint64_t> request;
  for (int i = 0; i < 800; ++i) {
    traffic.Next(request);
    (i < 400 ? before : after).insert(request);
    (i < 400 ? rows_before : rows_after).insert(request.begin(), request.end());
  }
  EXPECT_EQ(before.size(), 4u);
  EXPECT_EQ(after.size(), 4u);
  EXPECT_NE(before, after);
  EXPECT_EQ(rows_before, rows_after);
  EXPECT_EQ(traffic.drifts(), 1);
}

TEST(DriftingTrafficTest, RefusesOptionsNamingTheField) {
  EXPECT_THAT(DriftingTraffic::Create({.fields = 0}).status().message(), HasSubstr("fields"));
  EXPECT_THAT(DriftingTraffic::Create({.noise_share = 2}).status().message(),
              HasSubstr("noise_share"));
  EXPECT_THAT(DriftingTraffic::Create({.drift_every = -1}).status().message(),
              HasSubstr("drift_every"));
}

}  // namespace
}  // namespace shardplan::traces
