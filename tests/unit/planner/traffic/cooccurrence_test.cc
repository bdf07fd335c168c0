#include "planner/traffic/cooccurrence.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planner/domain/row_shard_map.h"

namespace shardplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

CooccurrenceCollector Collector(int64_t max_requests, int64_t max_lookups, uint64_t seed = 1) {
  return *CooccurrenceCollector::Create(
      {.max_requests = max_requests, .max_lookups_per_request = max_lookups, .seed = seed});
}

TEST(CooccurrenceTest, MapsRowsToLocalIdsAndCountsRequests) {
  CooccurrenceCollector collector = Collector(100, 100);
  const uint64_t a = PackRowKey(0, 7), b = PackRowKey(1, 3), c = PackRowKey(0, 2);
  collector.Add(std::vector<uint64_t>{a, b, a});  // a twice: one co-occurrence
  collector.Add(std::vector<uint64_t>{c, a});
  const CooccurrenceStats stats = std::move(collector).Finish();
  EXPECT_EQ(stats.requests_seen, 2);
  EXPECT_EQ(stats.lookups_seen, 5);
  EXPECT_THAT(stats.rows, ElementsAre(c, a, b));  // ascending keys
  EXPECT_THAT(stats.row_requests, ElementsAre(1, 2, 1));
  ASSERT_EQ(stats.kept_requests(), 2);
  EXPECT_THAT(stats.Request(0), ElementsAre(1u, 2u));
  EXPECT_THAT(stats.Request(1), ElementsAre(0u, 1u));
  EXPECT_THAT(stats.request_positions, ElementsAre(0, 1));
}

TEST(CooccurrenceTest, MemoryStaysWithinTheLimitsWhateverTheWindow) {
  const int64_t max_requests = 50, max_lookups = 8;
  CooccurrenceCollector collector = Collector(max_requests, max_lookups);
  const int64_t bound = max_requests * max_lookups * 8 + max_requests * 48;
  std::vector<uint64_t> request;
  for (int64_t i = 0; i < 20000; ++i) {
    request.clear();
    for (int64_t k = 0; k < 3 + i % 20; ++k) request.push_back(PackRowKey(k, (i * 7 + k) % 1000));
    collector.Add(request);
    ASSERT_LE(collector.MemoryBytes(), bound) << "after request " << i;
  }
  const CooccurrenceStats stats = std::move(collector).Finish();
  EXPECT_EQ(stats.requests_seen, 20000);
  EXPECT_EQ(stats.kept_requests(), max_requests);
  EXPECT_LE(static_cast<int64_t>(stats.rows.size()), max_requests * max_lookups);
  EXPECT_GT(stats.truncated_requests, 0);
  for (int64_t r = 0; r < stats.kept_requests(); ++r) {
    EXPECT_LE(static_cast<int64_t>(stats.Request(r).size()), max_lookups);
  }
  // A uniform sample reaches past the first max_requests of the window, in window order.
  EXPECT_GT(stats.request_positions.back(), max_requests);
  EXPECT_TRUE(std::is_sorted(stats.request_positions.begin(), stats.request_positions.end()));
}

TEST(CooccurrenceTest, SameSeedSameSampleOtherSeedOtherSample) {
  auto run = [](uint64_t seed) {
    CooccurrenceCollector collector = Collector(20, 4, seed);
    for (int64_t i = 0; i < 1000; ++i) {
      collector.Add(std::vector<uint64_t>{PackRowKey(0, i % 97), PackRowKey(1, i % 13),
                                          PackRowKey(2, i % 7), PackRowKey(3, i),
                                          PackRowKey(4, 1)});
    }
    return std::move(collector).Finish();
  };
  EXPECT_EQ(run(5).request_positions, run(5).request_positions);
  EXPECT_EQ(run(5).request_rows, run(5).request_rows);
  EXPECT_NE(run(5).request_positions, run(6).request_positions);
}

TEST(CooccurrenceTest, RecentShareKeepsTheLastRequestsReindexed) {
  CooccurrenceCollector collector = Collector(100, 100);
  for (int64_t i = 0; i < 10; ++i) {
    collector.Add(std::vector<uint64_t>{PackRowKey(0, i), PackRowKey(1, 0)});
  }
  const CooccurrenceStats stats = std::move(collector).Finish();
  const CooccurrenceStats recent = RecentShare(stats, 0.3);
  ASSERT_EQ(recent.kept_requests(), 3);
  EXPECT_THAT(recent.request_positions, ElementsAre(7, 8, 9));
  EXPECT_THAT(recent.rows,
              ElementsAre(PackRowKey(0, 7), PackRowKey(0, 8), PackRowKey(0, 9), PackRowKey(1, 0)));
  EXPECT_THAT(recent.row_requests, ElementsAre(1, 1, 1, 3));
  EXPECT_THAT(recent.Request(0), ElementsAre(0u, 3u));
  EXPECT_EQ(RecentShare(stats, 1.0).request_rows, stats.request_rows);
}

TEST(CooccurrenceTest, ValidationNamesTheBrokenField) {
  CooccurrenceCollector collector = Collector(10, 10);
  collector.Add(std::vector<uint64_t>{PackRowKey(0, 1), PackRowKey(0, 2)});
  const CooccurrenceStats good = std::move(collector).Finish();
  EXPECT_TRUE(ValidateCooccurrenceStats(good).ok());
  CooccurrenceStats bad = good;
  bad.request_rows[1] = 7;
  EXPECT_THAT(ValidateCooccurrenceStats(bad).message(), HasSubstr("request_rows[1]: local id 7"));
  bad = good;
  std::swap(bad.rows[0], bad.rows[1]);
  EXPECT_THAT(ValidateCooccurrenceStats(bad).message(), HasSubstr("rows[1]"));
  bad = good;
  bad.request_offsets.back() = 1;
  EXPECT_THAT(ValidateCooccurrenceStats(bad).message(), HasSubstr("request_offsets"));
  bad = good;
  bad.row_requests.pop_back();
  EXPECT_THAT(ValidateCooccurrenceStats(bad).message(), HasSubstr("row_requests"));
}

TEST(CooccurrenceTest, RefusesLimitsNamingTheField) {
  EXPECT_THAT(CooccurrenceCollector::Create({.max_requests = 0}).status().message(),
              HasSubstr("max_requests"));
  EXPECT_THAT(CooccurrenceCollector::Create({.max_lookups_per_request = 0}).status().message(),
              HasSubstr("max_lookups_per_request"));
}

}  // namespace
}  // namespace shardplan
