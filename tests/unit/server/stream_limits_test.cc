#include "server/stream_limits.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::StartsWith;

TEST(StreamLimitsTest, BoundsStreamsPerClientAndInAll) {
  StreamLimits limits(/*total=*/3, /*per_client=*/2);
  std::vector<StreamLimits::Ticket> open;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<StreamLimits::Ticket> ticket = limits.Open("a");
    ASSERT_TRUE(ticket.ok()) << ticket.status();
    open.push_back(*std::move(ticket));
  }
  absl::Status mine = limits.Open("a").status();
  EXPECT_EQ(mine.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(mine.message()),
              StartsWith("max_streams_per_client: client \"a\" already has 2 WatchPlan streams "
                         "open, this server's limit; close one, or poll with GetPlan"));
  absl::StatusOr<StreamLimits::Ticket> other = limits.Open("b");
  ASSERT_TRUE(other.ok()) << other.status();
  open.push_back(*std::move(other));
  EXPECT_EQ(limits.open(), 3);
  absl::Status full = limits.Open("c").status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(full.message()), StartsWith("max_streams: 3 WatchPlan streams are open"));
  // A refused total gives the client's slot back: "c" holds nothing.
  open.pop_back();
  EXPECT_TRUE(limits.Open("c").ok());
  EXPECT_EQ(limits.open(), 2);  // the ticket above was dropped at once
}

TEST(StreamLimitsTest, NoPerClientBoundWhenZero) {
  StreamLimits limits(/*total=*/5, /*per_client=*/0);
  std::vector<StreamLimits::Ticket> open;
  for (int i = 0; i < 5; ++i) {
    absl::StatusOr<StreamLimits::Ticket> ticket = limits.Open("a");
    ASSERT_TRUE(ticket.ok()) << ticket.status();
    open.push_back(*std::move(ticket));
  }
  EXPECT_EQ(limits.Open("a").status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace shardplan
