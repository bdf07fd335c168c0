#include "lab/collection/progress.h"

#include <chrono>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CollectionProgress, LineShowsDoneRateAndEta) {
  ProgressReporter progress(nullptr, "collect compute", 1000, 100);
  // 200 items of this run in 10 s: 20/s, 700 left -> 35 s.
  const std::string line = progress.Line(300, std::chrono::seconds(10));
  EXPECT_THAT(line, HasSubstr("collect compute: 300/1000 (30.0%)"));
  EXPECT_THAT(line, HasSubstr("20.0/s"));
  EXPECT_THAT(line, HasSubstr("ETA 35s"));
}

TEST(CollectionProgress, FinishedLineHasNoEta) {
  ProgressReporter progress(nullptr, "x", 10, 0);
  EXPECT_THAT(progress.Line(10, std::chrono::seconds(2)), Not(HasSubstr("ETA")));
}

TEST(CollectionProgress, UpdatesAreRateLimited) {
  std::ostringstream out;
  ProgressReporter progress(&out, "x", 1000, 0, std::chrono::hours(1));
  for (int i = 1; i <= 1000; ++i) progress.Update(i);
  EXPECT_EQ(out.str(), "");
  progress.Finish(1000);
  EXPECT_THAT(out.str(), HasSubstr("x: 1000/1000"));
}

TEST(CollectionProgress, FinishDoesNotRepeatTheLastLine) {
  std::ostringstream out;
  ProgressReporter progress(&out, "x", 3, 0, std::chrono::seconds(0));
  progress.Update(3);
  progress.Finish(3);
  EXPECT_EQ(out.str().find("x: 3/3"), out.str().rfind("x: 3/3"));
}

TEST(CollectionProgress, FormatsDurations) {
  EXPECT_EQ(FormatDuration(42), "42s");
  EXPECT_EQ(FormatDuration(185), "3m05s");
  EXPECT_EQ(FormatDuration(3720), "1h02m");
}

}  // namespace
}  // namespace shardplan
