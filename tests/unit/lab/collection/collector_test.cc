#include "lab/collection/collector.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/support/test_files.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;
using testing_files::ReadFile;
using testing_files::WriteFile;

// Deterministic costs from the inputs; fails on the `fail_at`-th measurement (0-based), so a
// test can cut a run short the way a crash or a backend error would.
class FakeBackend : public HardwareBackend {
 public:
  explicit FakeBackend(std::string profile = "fake-1", int fail_at = -1)
      : profile_(std::move(profile)), fail_at_(fail_at) {}

  std::string name() const override { return "fake"; }
  std::string hardware_profile() const override { return profile_; }

  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables,
                                        int64_t batch_size) override {
    if (calls_++ == fail_at_) return absl::UnavailableError("fake device lost");
    double ms = 0.01 * batch_size / 1024;
    for (const Table& table : tables) ms += 0.001 * table.dim * (table.rows % 97 + 1) / 3.0;
    return ms;
  }

  absl::StatusOr<CommMeasurement> MeasureComm(const Topology*, std::span<const int64_t> dim_sums,
                                              std::span<const double> start_offsets_ms,
                                              int64_t) override {
    if (calls_++ == fail_at_) return absl::UnavailableError("fake device lost");
    CommMeasurement measured;
    for (size_t d = 0; d < dim_sums.size(); ++d) {
      measured.forward_ms.push_back(0.01 * dim_sums[d] + start_offsets_ms[d] / 7.0);
      measured.backward_ms.push_back(0.02 * dim_sums[d]);
    }
    return measured;
  }

  int calls() const { return calls_; }

 private:
  std::string profile_;
  int fail_at_;
  int calls_ = 0;
};

// Like a noisy simulator: each measurement adds a draw from a stream that BeginSample restarts
// per sample, so only a collector that calls BeginSample resumes to the same values.
class NoisyFakeBackend : public FakeBackend {
 public:
  using FakeBackend::FakeBackend;
  void BeginSample(int64_t sample_id) override { stream_ = sample_id * 1000; }
  absl::StatusOr<double> MeasureCompute(std::span<const Table> tables,
                                        int64_t batch_size) override {
    absl::StatusOr<double> ms = FakeBackend::MeasureCompute(tables, batch_size);
    if (!ms.ok()) return ms;
    return *ms + 1e-3 * static_cast<double>(stream_++ % 997);
  }

 private:
  int64_t stream_ = 0;
};

TablePool FivePool() {
  TablePool pool;
  for (int i = 0; i < 5; ++i) {
    Table table;
    table.name = absl::StrCat("t", i);
    table.rows = 1000 + 37 * i;
    table.pooling_factor = 2.0 + i;
    pool.tables.push_back(table);
  }
  return pool;
}

// Per-sample streams, as the real generators draw them: sample i depends on (seed, i) only.
std::mt19937_64 SampleRng(uint64_t seed, int64_t id) {
  return std::mt19937_64(seed * 1000003 + static_cast<uint64_t>(id));
}

absl::Status ComputeSample(int64_t id, CostRecord& record) {
  std::mt19937_64 rng = SampleRng(record.seed, id);
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < count; ++i) {
    record.tables.emplace_back(static_cast<int32_t>(rng() % 5), 4 << (rng() % 6));
  }
  return absl::OkStatus();
}

absl::Status CommSample(int64_t id, CostRecord& record) {
  std::mt19937_64 rng = SampleRng(record.seed, id);
  for (int d = 0; d < record.num_devices; ++d) {
    record.dim_sums.push_back(static_cast<int64_t>(rng() % 1000));
    record.start_offsets_ms.push_back(static_cast<double>(rng() % 20));
  }
  return absl::OkStatus();
}

class CollectionCollector : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::path(::testing::TempDir()) / absl::StrCat("collector_test_", ::getpid());
    std::filesystem::create_directories(dir);
    const std::string path = (dir / name).string();
    std::filesystem::remove(path);
    return path;
  }

  CollectOptions Options(const std::string& path, int64_t samples) {
    CollectOptions options;
    options.kind = "compute";
    options.samples = samples;
    options.out_path = path;
    options.seed = 5;
    options.batch_size = 4096;
    options.pool = "pool.json";
    options.pool_sha256 = "feed";
    options.fsync_every = 3;
    options.now = [] { return std::string("2026-11-21T09:00:00Z"); };
    return options;
  }


  static std::vector<std::string> Lines(const std::string& text) {
    return absl::StrSplit(text, '\n', absl::SkipEmpty());
  }

  // The uninterrupted run every resumed one must reproduce.
  std::string Reference(int64_t samples, const std::string& kind = "compute") {
    const std::string path = Path("reference.jsonl");
    FakeBackend backend;
    CollectOptions options = Options(path, samples);
    options.kind = kind;
    options.num_devices = kind == "comm" ? 4 : 0;
    absl::StatusOr<CollectResult> result =
        Collect(backend, &pool_, kind == "comm" ? CommSample : ComputeSample, options);
    EXPECT_TRUE(result.ok()) << result.status();
    return ReadFile(path);
  }

  TablePool pool_ = FivePool();
};

TEST_F(CollectionCollector, WritesIdsInOrderOneRecordPerLine) {
  const std::vector<std::string> lines = Lines(Reference(12));
  ASSERT_EQ(lines.size(), 12u);
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::StatusOr<CostRecord> record = CostRecordFromJsonLine(lines[i]);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->id, static_cast<int64_t>(i));
    EXPECT_EQ(record->backend, "fake");
    EXPECT_EQ(record->hardware_profile, "fake-1");
    EXPECT_EQ(record->pool_sha256, "feed");
    EXPECT_FALSE(record->tables.empty());
    EXPECT_GT(record->ms, 0.0);
  }
}

TEST_F(CollectionCollector, ResumeAfterABackendFailureMatchesAnUninterruptedRun) {
  const std::string reference = Reference(20);
  const std::string path = Path("resumed.jsonl");
  FakeBackend failing("fake-1", /*fail_at=*/7);
  absl::StatusOr<CollectResult> first = Collect(failing, &pool_, ComputeSample, Options(path, 20));
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(first.status().message(), HasSubstr("7 records written this run are kept"));
  EXPECT_EQ(Lines(ReadFile(path)).size(), 7u);

  FakeBackend healthy;
  absl::StatusOr<CollectResult> second = Collect(healthy, &pool_, ComputeSample, Options(path, 20));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->already_present, 7);
  EXPECT_EQ(second->appended, 13);
  EXPECT_EQ(healthy.calls(), 13);  // only the missing samples were measured
  EXPECT_EQ(ReadFile(path), reference);
}

TEST_F(CollectionCollector, ResumedNoisyRunDrawsEachSamplesOwnNoise) {
  const std::string reference_path = Path("noisy_reference.jsonl");
  NoisyFakeBackend uninterrupted;
  ASSERT_TRUE(Collect(uninterrupted, &pool_, ComputeSample, Options(reference_path, 12)).ok());

  const std::string path = Path("noisy_resumed.jsonl");
  NoisyFakeBackend failing("fake-1", /*fail_at=*/5);
  ASSERT_FALSE(Collect(failing, &pool_, ComputeSample, Options(path, 12)).ok());
  NoisyFakeBackend fresh;  // a new process: its stream starts from scratch
  ASSERT_TRUE(Collect(fresh, &pool_, ComputeSample, Options(path, 12)).ok());
  EXPECT_EQ(ReadFile(path), ReadFile(reference_path));
}

TEST_F(CollectionCollector, StopFlagEndsTheRunBetweenRecords) {
  const std::string reference = Reference(10);
  const std::string path = Path("stopped.jsonl");
  std::atomic<bool> stop{false};
  CollectOptions options = Options(path, 10);
  options.stop = &stop;
  // "SIGINT" arrives while sample 3 is generated: sample 3 still completes, 4 never starts.
  const SampleGenerator interrupting = [&stop](int64_t id, CostRecord& record) {
    if (id == 3) stop = true;
    return ComputeSample(id, record);
  };
  FakeBackend backend;
  absl::StatusOr<CollectResult> first = Collect(backend, &pool_, interrupting, options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->interrupted);
  EXPECT_EQ(first->appended, 4);
  const std::string partial = ReadFile(path);
  ASSERT_FALSE(partial.empty());
  EXPECT_EQ(partial.back(), '\n');

  stop = false;
  absl::StatusOr<CollectResult> second = Collect(backend, &pool_, ComputeSample, options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(second->interrupted);
  EXPECT_EQ(ReadFile(path), reference);
}

TEST_F(CollectionCollector, TornLastLineIsTruncatedAndRecollected) {
  const std::string reference = Reference(8);
  const std::vector<std::string> lines = Lines(reference);
  const std::string path = Path("torn.jsonl");
  std::string torn;
  for (int i = 0; i < 5; ++i) torn += lines[i] + "\n";
  const std::string half = lines[5].substr(0, lines[5].size() / 2);
  WriteFile(path, torn + half);

  FakeBackend backend;
  absl::StatusOr<CollectResult> result = Collect(backend, &pool_, ComputeSample, Options(path, 8));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->torn_bytes_dropped, static_cast<int64_t>(half.size()));
  EXPECT_EQ(result->already_present, 5);
  EXPECT_EQ(result->appended, 3);
  EXPECT_EQ(ReadFile(path), reference);
}

TEST_F(CollectionCollector, TornOnlyLineLeavesAFreshRun) {
  const std::string reference = Reference(3);
  const std::string path = Path("torn_only.jsonl");
  WriteFile(path, "{\"id\":0,\"ki");
  FakeBackend backend;
  absl::StatusOr<CollectResult> result = Collect(backend, &pool_, ComputeSample, Options(path, 3));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->already_present, 0);
  EXPECT_EQ(ReadFile(path), reference);
}

TEST_F(CollectionCollector, MoreSamplesExtendASmallerRun) {
  const std::string reference = Reference(15);
  const std::string path = Path("extended.jsonl");
  FakeBackend backend;
  ASSERT_TRUE(Collect(backend, &pool_, ComputeSample, Options(path, 6)).ok());
  absl::StatusOr<CollectResult> result = Collect(backend, &pool_, ComputeSample, Options(path, 15));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->appended, 9);
  EXPECT_EQ(ReadFile(path), reference);
}

TEST_F(CollectionCollector, CompleteFileIsLeftAlone) {
  const std::string path = Path("complete.jsonl");
  FakeBackend backend;
  ASSERT_TRUE(Collect(backend, &pool_, ComputeSample, Options(path, 4)).ok());
  const std::string before = ReadFile(path);
  FakeBackend again;
  absl::StatusOr<CollectResult> result = Collect(again, &pool_, ComputeSample, Options(path, 4));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->appended, 0);
  EXPECT_EQ(again.calls(), 0);
  EXPECT_EQ(ReadFile(path), before);
}

TEST_F(CollectionCollector, FileFromAnotherRunIsRefused) {
  const std::string path = Path("mismatch.jsonl");
  FakeBackend backend;
  ASSERT_TRUE(Collect(backend, &pool_, ComputeSample, Options(path, 3)).ok());
  const std::string before = ReadFile(path);

  CollectOptions other_seed = Options(path, 6);
  other_seed.seed = 6;
  absl::StatusOr<CollectResult> result = Collect(backend, &pool_, ComputeSample, other_seed);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(result.status().message(), HasSubstr("seed is 5 in the file but 6 in this run"));

  FakeBackend other_profile("fake-2");
  result = Collect(other_profile, &pool_, ComputeSample, Options(path, 6));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("hardware_profile is fake-1"));

  CollectOptions other_pool = Options(path, 6);
  other_pool.pool_sha256 = "beef";
  result = Collect(backend, &pool_, ComputeSample, other_pool);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("pool_sha256"));

  CollectOptions other_kind = Options(path, 6);
  other_kind.kind = "comm";
  other_kind.num_devices = 4;
  result = Collect(backend, &pool_, CommSample, other_kind);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("kind is compute"));
  EXPECT_EQ(ReadFile(path), before);  // refused runs write nothing
}

TEST_F(CollectionCollector, RefusedFileKeepsItsTornLine) {
  const std::string path = Path("refused_torn.jsonl");
  const std::string torn = Lines(Reference(2))[0] + "\n{\"id\":1,";
  WriteFile(path, torn);
  CollectOptions other_seed = Options(path, 2);
  other_seed.seed = 6;
  FakeBackend backend;
  absl::StatusOr<CollectResult> result = Collect(backend, &pool_, ComputeSample, other_seed);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ReadFile(path), torn);  // a refused run leaves the file exactly as it found it
}

TEST_F(CollectionCollector, MalformedRecordNamesTheLine) {
  const std::vector<std::string> lines = Lines(Reference(3));
  const std::string path = Path("malformed.jsonl");
  WriteFile(path, lines[0] + "\n" + lines[1] + "\n{\"id\":2}\n");
  FakeBackend backend;
  absl::StatusOr<CollectResult> result = Collect(backend, &pool_, ComputeSample, Options(path, 3));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("malformed.jsonl:3: missing field"));
}

TEST_F(CollectionCollector, CommResumeMatchesAnUninterruptedRun) {
  const std::string reference = Reference(9, "comm");
  const std::vector<std::string> lines = Lines(reference);
  ASSERT_EQ(lines.size(), 9u);
  absl::StatusOr<CostRecord> first = CostRecordFromJsonLine(lines[0]);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->num_devices, 4);
  EXPECT_EQ(first->forward_ms.size(), 4u);

  const std::string path = Path("comm.jsonl");
  CollectOptions options = Options(path, 9);
  options.kind = "comm";
  options.num_devices = 4;
  FakeBackend failing("fake-1", 4);
  ASSERT_FALSE(Collect(failing, nullptr, CommSample, options).ok());
  FakeBackend healthy;
  ASSERT_TRUE(Collect(healthy, nullptr, CommSample, options).ok());
  EXPECT_EQ(ReadFile(path), reference);
}

TEST_F(CollectionCollector, PoolIndexOutsideThePoolIsAnError) {
  const std::string path = Path("bad_index.jsonl");
  const SampleGenerator bad = [](int64_t, CostRecord& record) {
    record.tables = {{9, 4}};
    return absl::OkStatus();
  };
  FakeBackend backend;
  absl::StatusOr<CollectResult> result = Collect(backend, &pool_, bad, Options(path, 2));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("pool index 9 is outside the pool of 5"));
}

}  // namespace
}  // namespace shardplan
