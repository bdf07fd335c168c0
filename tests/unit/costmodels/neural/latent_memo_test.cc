#include "costmodels/neural/latent_memo.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace shardplan {
namespace {

LatentMemo::Key KeyOf(float seed) {
  LatentMemo::Key key{};
  for (int i = 0; i < kNumTableFeatures; ++i) key[i] = seed + 0.5f * static_cast<float>(i);
  return key;
}

TEST(LatentMemoTest, FindsWhatWasInserted) {
  LatentMemo memo(1024, 3);
  std::vector<float> out(3, -1.0f);
  EXPECT_FALSE(memo.Find(KeyOf(1), out));
  memo.Insert(KeyOf(1), std::vector<float>{1, 2, 3});
  ASSERT_TRUE(memo.Find(KeyOf(1), out));
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3}));
  EXPECT_FALSE(memo.Find(KeyOf(2), out));
  const LatentMemo::Stats stats = memo.stats();
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.misses, 2);
  EXPECT_EQ(stats.entries, 1);
}

TEST(LatentMemoTest, KeysAreBitExact) {
  LatentMemo memo(1024, 1);
  LatentMemo::Key key = KeyOf(0);
  memo.Insert(key, std::vector<float>{7});
  key[19] = std::nextafter(key[19], 1e9f);
  std::vector<float> out(1);
  EXPECT_FALSE(memo.Find(key, out));
}

TEST(LatentMemoTest, StaysWithinCapacity) {
  LatentMemo memo(64, 2);  // 2 per shard
  for (int i = 0; i < 10000; ++i) {
    memo.Insert(KeyOf(static_cast<float>(i)), std::vector<float>{1, 2});
  }
  const LatentMemo::Stats stats = memo.stats();
  EXPECT_LE(stats.entries, static_cast<int64_t>(memo.capacity()));
  EXPECT_GT(stats.clears, 0);
  // The latest insert is always findable: a full shard clears before inserting.
  std::vector<float> out(2);
  EXPECT_TRUE(memo.Find(KeyOf(9999), out));
}

TEST(LatentMemoTest, ConcurrentReadersAndWritersAgree) {
  LatentMemo memo(256, 4);
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> out(4);
      for (int i = 0; i < 20000; ++i) {
        const float k = static_cast<float>((i * 7 + t) % 500);
        if (memo.Find(KeyOf(k), out)) {
          if (out[0] != k || out[3] != k + 3) ++wrong[t];
        } else {
          memo.Insert(KeyOf(k), std::vector<float>{k, k + 1, k + 2, k + 3});
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0);
}

}  // namespace
}  // namespace shardplan
