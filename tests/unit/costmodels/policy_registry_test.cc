#include "costmodels/policy_registry.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

// A policy of `algorithm` and its manifest, created at `created` on `hardware`.
struct Made {
  PolicyManifest manifest;
  std::shared_ptr<const Policy> policy;
};

Made Make(const std::string& name, const std::string& version, const std::string& algorithm,
          const std::string& hardware, const std::string& created) {
  auto policy = std::make_shared<Policy>();
  policy->name = name;
  policy->version = version;
  policy->algorithm = algorithm;
  policy->architecture = algorithm + "-1";
  policy->hardware_profile = hardware;
  policy->content_sha256 = "sha-" + name + "-" + version;
  PolicyManifest manifest;
  manifest.name = name;
  manifest.version = version;
  manifest.algorithm = algorithm;
  manifest.architecture = policy->architecture;
  manifest.hardware_profile = hardware;
  manifest.created = created;
  manifest.content_sha256 = policy->content_sha256;
  return {manifest, policy};
}

absl::Status Add(PolicyRegistry& registry, const Made& made) {
  return registry.Add(made.manifest, made.policy);
}

TEST(PolicyRegistryTest, ResolvesLatestAndExactVersions) {
  PolicyRegistry registry;
  ASSERT_TRUE(Add(registry, Make("p", "2", "fake", "hw", "2026-11-01T00:00:00Z")).ok());
  ASSERT_TRUE(Add(registry, Make("p", "10", "fake", "hw", "2026-10-01T00:00:00Z")).ok());
  absl::StatusOr<ResolvedPolicy> latest = registry.Resolve("p", "fake", "hw");
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->manifest.id(), "p@10");  // by version, not by creation time
  EXPECT_EQ(latest->policy->id(), "p@10");
  absl::StatusOr<ResolvedPolicy> exact = registry.Resolve("p@2", "fake", "");
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(exact->policy->id(), "p@2");
  std::string reason = "untouched";
  ASSERT_TRUE(registry.Resolve("p@2", "fake", "", &reason).ok());
  EXPECT_EQ(reason, "untouched");  // a named policy needs no reason
}

TEST(PolicyRegistryTest, TheServersChoicePrefersTheHardwareThenTheNewest) {
  PolicyRegistry registry;
  ASSERT_TRUE(Add(registry, Make("fake-a", "1", "fake", "sim-a", "2026-11-01T00:00:00Z")).ok());
  ASSERT_TRUE(Add(registry, Make("fake-a", "2", "fake", "sim-a", "2026-11-02T00:00:00Z")).ok());
  // Newer, but trained on other hardware, and another algorithm's.
  ASSERT_TRUE(Add(registry, Make("fake-b", "1", "fake", "sim-b", "2026-11-05T00:00:00Z")).ok());
  ASSERT_TRUE(Add(registry, Make("other-a", "1", "other", "sim-a", "2026-11-09T00:00:00Z")).ok());

  std::string reason;
  absl::StatusOr<ResolvedPolicy> on_a = registry.Resolve("", "fake", "sim-a", &reason);
  ASSERT_TRUE(on_a.ok()) << on_a.status();
  EXPECT_EQ(on_a->manifest.id(), "fake-a@2");
  EXPECT_EQ(reason, "policy: fake-a@2, the newest fake policy trained on sim-a");

  absl::StatusOr<ResolvedPolicy> on_b = registry.Resolve("", "fake", "sim-b", &reason);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  EXPECT_EQ(on_b->manifest.id(), "fake-b@1");

  // No policy trained on the hardware: the newest of the algorithm's, said so.
  absl::StatusOr<ResolvedPolicy> elsewhere = registry.Resolve("", "fake", "sim-c", &reason);
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  EXPECT_EQ(elsewhere->manifest.id(), "fake-b@1");
  EXPECT_EQ(reason, "policy: fake-b@1, the newest fake policy (trained on sim-b; none on sim-c)");
}

TEST(PolicyRegistryTest, TiesOnCreationGoToTheGreaterNameThenTheLaterVersion) {
  PolicyRegistry registry;
  const std::string when = "2026-11-01T00:00:00Z";
  ASSERT_TRUE(Add(registry, Make("b", "9", "fake", "hw", when)).ok());
  ASSERT_TRUE(Add(registry, Make("b", "10", "fake", "hw", when)).ok());
  ASSERT_TRUE(Add(registry, Make("a", "99", "fake", "hw", when)).ok());
  absl::StatusOr<ResolvedPolicy> chosen = registry.Resolve("", "fake", "hw");
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->manifest.id(), "b@10");
}

TEST(PolicyRegistryTest, ErrorsNameWhatIsLoaded) {
  PolicyRegistry registry;
  absl::StatusOr<ResolvedPolicy> none = registry.Resolve("", "fake", "hw");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("no policy of algorithm fake is loaded (loaded policies: none)"));

  ASSERT_TRUE(Add(registry, Make("p", "1", "fake", "hw", "")).ok());
  ASSERT_TRUE(Add(registry, Make("q", "1", "other", "hw", "")).ok());
  absl::StatusOr<ResolvedPolicy> unknown = registry.Resolve("nope", "fake", "hw");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("no policy named \"nope\" is loaded (loaded policies: p@1, q@1)"));
  absl::StatusOr<ResolvedPolicy> no_version = registry.Resolve("p@7", "fake", "hw");
  EXPECT_EQ(no_version.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(no_version.status().message()), HasSubstr("versions: 1"));
  absl::StatusOr<ResolvedPolicy> other = registry.Resolve("q", "fake", "hw");
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(other.status().message()),
              HasSubstr("q@1 is a policy of other, not of fake"));
  absl::StatusOr<ResolvedPolicy> only_others = registry.Resolve("", "third", "hw");
  EXPECT_EQ(only_others.status().code(), absl::StatusCode::kFailedPrecondition);
  for (const char* bad : {"p@", "@1", "p@1@2"}) {
    EXPECT_EQ(registry.Resolve(bad, "fake", "hw").status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(PolicyRegistryTest, AddRefusesAManifestThatIsNotThePolicys) {
  PolicyRegistry registry;
  Made made = Make("p", "1", "fake", "hw", "");
  made.manifest.content_sha256 = "other";
  EXPECT_EQ(Add(registry, made).code(), absl::StatusCode::kInvalidArgument);
  made = Make("p", "1", "fake", "hw", "");
  made.manifest.algorithm = "";
  EXPECT_EQ(Add(registry, made).code(), absl::StatusCode::kInvalidArgument);
  made = Make("p@x", "1", "fake", "hw", "");
  EXPECT_EQ(Add(registry, made).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Add(Make("p", "1", "fake", "hw", "").manifest, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.size(), 0u);
}

TEST(PolicyRegistryTest, ReplacesInPlaceRemovesAndLists) {
  PolicyRegistry registry;
  ASSERT_TRUE(Add(registry, Make("p", "1", "fake", "hw", "")).ok());
  absl::StatusOr<ResolvedPolicy> held = registry.Resolve("p@1", "fake", "hw");
  ASSERT_TRUE(held.ok());
  Made replacement = Make("p", "1", "fake", "hw", "");
  std::const_pointer_cast<Policy>(replacement.policy)->content_sha256 = "new";
  replacement.manifest.content_sha256 = "new";
  ASSERT_TRUE(Add(registry, replacement).ok());
  EXPECT_EQ(registry.Resolve("p@1", "fake", "hw")->manifest.content_sha256, "new");
  EXPECT_EQ(held->policy->content_sha256, "sha-p-1");  // the holder keeps its content

  ASSERT_TRUE(Add(registry, Make("p", "2", "fake", "hw", "")).ok());
  ASSERT_TRUE(Add(registry, Make("a", "1", "fake", "hw", "")).ok());
  const std::vector<PolicyRegistry::Entry> entries = registry.List();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].manifest.id(), "a@1");
  EXPECT_TRUE(entries[0].is_latest);
  EXPECT_EQ(entries[1].manifest.id(), "p@1");
  EXPECT_FALSE(entries[1].is_latest);
  EXPECT_EQ(entries[2].manifest.id(), "p@2");
  EXPECT_TRUE(entries[2].is_latest);

  EXPECT_TRUE(registry.Remove("p", "2").ok());
  EXPECT_EQ(registry.Remove("p", "2").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.Resolve("p", "fake", "hw")->manifest.id(), "p@1");
  EXPECT_TRUE(registry.Remove("p", "1").ok());
  EXPECT_EQ(registry.Resolve("p", "fake", "hw").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.size(), 1u);
}

TEST(PolicyRegistryTest, ResolvesWhileReloadsSwapVersions) {
  PolicyRegistry registry;
  ASSERT_TRUE(Add(registry, Make("p", "1", "fake", "hw", "")).ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; i < 2000; ++i) {
      EXPECT_TRUE(Add(registry, Make("p", "2", "fake", "hw", "")).ok());
      EXPECT_TRUE(registry.Remove("p", "2").ok());
    }
    stop = true;
  });
  while (!stop) {
    absl::StatusOr<ResolvedPolicy> resolved = registry.Resolve("", "fake", "hw");
    ASSERT_TRUE(resolved.ok()) << resolved.status();
    EXPECT_EQ(resolved->policy->id(), resolved->manifest.id());
  }
  writer.join();
}

}  // namespace
}  // namespace shardplan
