#include "costmodels/model_registry.h"

#include <atomic>
#include <thread>
#include <vector>

#include "costmodels/analytic/analytic_cost_model.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

ModelManifest Manifest(const std::string& name, const std::string& version) {
  ModelManifest manifest;
  manifest.name = name;
  manifest.version = version;
  manifest.kind = "analytic";
  return manifest;
}

std::shared_ptr<const CostModel> Model(const std::string& version) {
  return std::make_shared<const AnalyticCostModel>(AnalyticParams{}, version);
}

TEST(VersionLessTest, ComparesNumericSegmentsByValue) {
  EXPECT_TRUE(VersionLess("2", "10"));
  EXPECT_FALSE(VersionLess("10", "2"));
  EXPECT_TRUE(VersionLess("1.2", "1.10"));
  EXPECT_TRUE(VersionLess("1", "1.1"));
  EXPECT_TRUE(VersionLess("20261101", "20261121"));
  EXPECT_TRUE(VersionLess("a", "b"));
  EXPECT_FALSE(VersionLess("3", "3"));
}

TEST(ModelRegistryTest, ResolvesDefaultLatestAndExactVersions) {
  ModelRegistry registry;
  ASSERT_TRUE(registry.Add(Manifest("neural", "2"), Model("2")).ok());
  ASSERT_TRUE(registry.Add(Manifest("neural", "10"), Model("10")).ok());
  ASSERT_TRUE(registry.Add(Manifest("other", "1"), Model("1")).ok());

  auto latest = registry.Resolve("neural");
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->manifest.version, "10");
  EXPECT_EQ(latest->model->id(), "analytic@10");

  auto exact = registry.Resolve("neural@2");
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->manifest.version, "2");

  auto by_default = registry.Resolve("");
  ASSERT_TRUE(by_default.ok());
  EXPECT_EQ(by_default->manifest.name, "neural");  // the first name added
  ASSERT_TRUE(registry.SetDefault("other").ok());
  EXPECT_EQ(registry.Resolve("")->manifest.name, "other");
  EXPECT_EQ(registry.size(), 3u);
}

TEST(ModelRegistryTest, UnknownModelsAreNotFoundAndSayWhatExists) {
  ModelRegistry registry;
  ASSERT_TRUE(RegisterBuiltinModels(registry).ok());
  auto missing = registry.Resolve("neural");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("analytic"), std::string::npos);

  auto missing_version = registry.Resolve("analytic@9");
  EXPECT_EQ(missing_version.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing_version.status().message().find("versions: 1"), std::string::npos);

  EXPECT_EQ(registry.SetDefault("neural").code(), absl::StatusCode::kNotFound);
}

TEST(ModelRegistryTest, MalformedSpecsAreInvalid) {
  ModelRegistry registry;
  ASSERT_TRUE(RegisterBuiltinModels(registry).ok());
  for (const char* spec : {"analytic@", "@1", "a@1@2"}) {
    EXPECT_EQ(registry.Resolve(spec).status().code(), absl::StatusCode::kInvalidArgument) << spec;
  }
}

TEST(ModelRegistryTest, RejectsIncompleteEntries) {
  ModelRegistry registry;
  EXPECT_FALSE(registry.Add(Manifest("", "1"), Model("1")).ok());
  EXPECT_FALSE(registry.Add(Manifest("a", ""), Model("1")).ok());
  EXPECT_FALSE(registry.Add(Manifest("a@b", "1"), Model("1")).ok());
  EXPECT_FALSE(registry.Add(Manifest("a", "1"), nullptr).ok());
  EXPECT_EQ(registry.size(), 0u);
}

TEST(ModelRegistryTest, ListMarksDefaultAndLatest) {
  ModelRegistry registry;
  ASSERT_TRUE(RegisterBuiltinModels(registry).ok());
  ASSERT_TRUE(registry.Add(Manifest("analytic", "2"), Model("2")).ok());
  const auto entries = registry.List();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].manifest.version, "1");
  EXPECT_FALSE(entries[0].is_latest);
  EXPECT_EQ(entries[1].manifest.version, "2");
  EXPECT_TRUE(entries[1].is_latest);
  EXPECT_TRUE(entries[0].is_default && entries[1].is_default);
}

TEST(ModelRegistryTest, ResolvedModelOutlivesReplacement) {
  // A request keeps the version it resolved even if a reload replaces it meanwhile.
  ModelRegistry registry;
  ASSERT_TRUE(registry.Add(Manifest("m", "1"), Model("1")).ok());
  auto held = registry.Resolve("m@1");
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(registry.Add(Manifest("m", "1"), Model("replacement")).ok());
  EXPECT_EQ(held->model->id(), "analytic@1");
  EXPECT_EQ(registry.Resolve("m@1")->model->id(), "analytic@replacement");
}

TEST(ModelRegistryTest, RemoveDropsAVersionAndKeepsResolvedOnesAlive) {
  ModelRegistry registry;
  ASSERT_TRUE(registry.Add(Manifest("m", "1"), Model("1")).ok());
  ASSERT_TRUE(registry.Add(Manifest("m", "2"), Model("2")).ok());
  auto held = registry.Resolve("m@2");
  ASSERT_TRUE(held.ok());

  ASSERT_TRUE(registry.Remove("m", "2").ok());
  EXPECT_EQ(held->model->id(), "analytic@2");  // an in-flight request finishes on it
  EXPECT_EQ(registry.Resolve("m")->manifest.version, "1");
  EXPECT_EQ(registry.Resolve("m@2").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.Remove("m", "2").code(), absl::StatusCode::kNotFound);

  ASSERT_TRUE(registry.Remove("m", "1").ok());
  EXPECT_EQ(registry.size(), 0u);
  EXPECT_TRUE(registry.List().empty());
  EXPECT_EQ(registry.Resolve("").status().code(), absl::StatusCode::kNotFound);
  // The default name survives its versions: a new version is the default again.
  ASSERT_TRUE(registry.Add(Manifest("m", "3"), Model("3")).ok());
  EXPECT_EQ(registry.Resolve("")->manifest.version, "3");
}

TEST(ModelRegistryTest, ConcurrentResolveAndAdd) {
  ModelRegistry registry;
  ASSERT_TRUE(registry.Add(Manifest("m", "1"), Model("1")).ok());
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    for (int v = 2; v < 200; ++v) {
      if (!registry.Add(Manifest("m", std::to_string(v)), Model(std::to_string(v))).ok()) {
        failed = true;
      }
    }
  });
  for (int i = 0; i < 2000; ++i) {
    auto resolved = registry.Resolve("m");
    if (!resolved.ok() || resolved->model == nullptr) failed = true;
  }
  writer.join();
  EXPECT_FALSE(failed);
  EXPECT_EQ(registry.Resolve("m")->manifest.version, "199");
}

}  // namespace
}  // namespace shardplan
