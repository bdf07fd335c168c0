#include "costmodels/artifacts/weights_file.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

std::vector<WeightsTensor> SampleTensors() {
  return {{"mlp.0.weight", {2, 3}, {1.5f, -2.0f, 3.25f, 0.0f, 1e-30f, -7.0f}},
          {"mlp.0.bias", {2}, {0.125f, -0.5f}}};
}

std::string SampleBytes() { return *SerializeWeights(SampleTensors()); }

TEST(WeightsFileTest, RoundTripsExactly) {
  const std::string bytes = SampleBytes();
  // magic + version + count + (4 + 12 + 4 + 8 + 24) + (4 + 10 + 4 + 4 + 8)
  EXPECT_EQ(bytes.size(), 12u + 52u + 30u);
  EXPECT_EQ(bytes.substr(0, 4), "SPWT");
  auto parsed = ParseWeights(bytes, "w.weights");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, SampleTensors());
}

TEST(WeightsFileTest, LittleEndianLayout) {
  const std::string bytes = *SerializeWeights({{"b", {1}, {1.0f}}});
  const std::string expected("SPWT\x01\0\0\0\x01\0\0\0\x01\0\0\0b\x01\0\0\0\x01\0\0\0\0\0\x80\x3f",
                             29);
  EXPECT_EQ(bytes, expected);
}

TEST(WeightsFileTest, RefusesEveryTruncation) {
  const std::string bytes = SampleBytes();
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto parsed = ParseWeights(bytes.substr(0, n), "dir/w.weights");
    ASSERT_FALSE(parsed.ok()) << n;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("dir/w.weights: ")) << n;
  }
}

TEST(WeightsFileTest, TruncatedDataNamesTheTensor) {
  const std::string bytes = SampleBytes();
  auto parsed = ParseWeights(bytes.substr(0, bytes.size() - 1), "w.weights");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("tensor 'mlp.0.bias'"));
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("truncated"));
}

TEST(WeightsFileTest, RefusesTrailingBytes) {
  auto parsed = ParseWeights(SampleBytes() + "x", "w.weights");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("1 trailing bytes"));
}

TEST(WeightsFileTest, RefusesBadMagicAndVersion) {
  std::string bytes = SampleBytes();
  bytes[0] = 'X';
  EXPECT_THAT(std::string(ParseWeights(bytes, "w").status().message()), HasSubstr("magic"));
  bytes = SampleBytes();
  bytes[4] = 2;
  EXPECT_THAT(std::string(ParseWeights(bytes, "w").status().message()),
              HasSubstr("weights format version 2 is not supported"));
}

TEST(WeightsFileTest, RefusesAbsurdSizes) {
  std::string bytes = SampleBytes();
  const uint32_t huge = 0xffffffffu;
  std::memcpy(&bytes[8], &huge, 4);  // tensor count
  EXPECT_THAT(std::string(ParseWeights(bytes, "w").status().message()),
              HasSubstr("truncated or corrupt: tensor count 4294967295"));
  bytes = SampleBytes();
  std::memcpy(&bytes[12 + 4 + 12 + 4], &huge, 4);  // first dim of mlp.0.weight
  const auto status = ParseWeights(bytes, "w").status();
  EXPECT_THAT(std::string(status.message()), HasSubstr("tensor 'mlp.0.weight'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("of shape [4294967295,3] needs more"));
  bytes = SampleBytes();
  std::memcpy(&bytes[12], &huge, 4);  // name length
  EXPECT_THAT(std::string(ParseWeights(bytes, "w").status().message()), HasSubstr("name length"));
}

TEST(WeightsFileTest, RefusesDuplicateNames) {
  std::vector<WeightsTensor> tensors = SampleTensors();
  tensors[1].name = tensors[0].name;
  EXPECT_EQ(SerializeWeights(tensors).status().code(), absl::StatusCode::kInvalidArgument);
  // Same-length names, so the file stays well formed apart from the repeat.
  std::string bytes = *SerializeWeights({{"a", {1}, {1.0f}}, {"b", {1}, {2.0f}}});
  bytes[12 + 4 + 1 + 4 + 4 + 4 + 4] = 'a';
  auto parsed = ParseWeights(bytes, "w.weights");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("tensor 'a' repeated"));
}

TEST(WeightsFileTest, RefusesShapeDataMismatchOnWrite) {
  EXPECT_EQ(SerializeWeights({{"w", {2, 2}, {1.0f}}}).status().code(),
            absl::StatusCode::kInvalidArgument);
}


}  // namespace
}  // namespace shardplan
