#include "server/server_config.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace shardplan {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<CommandLine> Parse(std::vector<std::string> flags) {
  flags.insert(flags.begin(), "shardplan-server");
  return ParseCommandLine(flags);
}

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    char pattern[] = "/tmp/server_config_test_XXXXXX";
    const int fd = mkstemp(pattern);
    path_ = pattern;
    close(fd);
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ServerConfigTest, DefaultsAreTheDocumentedOnes) {
  absl::StatusOr<CommandLine> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const ServerConfig& config = parsed->config;
  EXPECT_EQ(config.address, "127.0.0.1:50051");
  EXPECT_EQ(config.metrics_address, "127.0.0.1:9464");
  EXPECT_EQ(config.workers, 2);
  EXPECT_EQ(config.max_concurrent_plans, 8);
  EXPECT_EQ(config.max_rpc_threads, 256);
  EXPECT_EQ(config.queue_capacity, 64);
  EXPECT_EQ(config.cache_bytes, 64 << 20);
  EXPECT_EQ(config.max_message_bytes, 16 << 20);
  EXPECT_EQ(config.default_algorithm, "neuroshard");
  EXPECT_EQ(config.default_model, "");  // the newest loaded model covering the task
  EXPECT_EQ(config.drain_timeout_s, 30.0);
  EXPECT_EQ(config.models_dir, "models");
  EXPECT_EQ(config.model_reload_interval_s, 10.0);
  EXPECT_FALSE(parsed->help);
}

TEST(ServerConfigTest, BothFlagSpellings) {
  absl::StatusOr<CommandLine> parsed =
      Parse({"--workers=4", "--address", "0.0.0.0:0", "--metrics_address=", "--drain_timeout_s",
             "2.5", "--max_tables=10"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.workers, 4);
  EXPECT_EQ(parsed->config.address, "0.0.0.0:0");
  EXPECT_EQ(parsed->config.metrics_address, "");
  EXPECT_EQ(parsed->config.drain_timeout_s, 2.5);
  EXPECT_EQ(parsed->config.task_limits().max_tables, 10);
}

TEST(ServerConfigTest, FlagsOverrideTheConfigFile) {
  TempFile file(R"({"workers": 3, "queue_capacity": 5, "default_algorithm": "size_greedy"})");
  absl::StatusOr<CommandLine> parsed = Parse({"--workers=7", "--config", file.path()});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.workers, 7);         // flag wins, even before --config
  EXPECT_EQ(parsed->config.queue_capacity, 5);  // from the file
  EXPECT_EQ(parsed->config.default_algorithm, "size_greedy");
}

TEST(ServerConfigTest, HelpIsRecognised) {
  absl::StatusOr<CommandLine> parsed = Parse({"--workers=1", "--help"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->help);
  const std::string help = HelpText("shardplan-server");
  for (const char* flag :
       {"--address", "--metrics_address", "--port_file", "--workers", "--max_concurrent_plans",
        "--max_rpc_threads", "--queue_capacity", "--cache_bytes", "--max_message_bytes",
        "--max_tables", "--max_devices", "--max_retained_jobs", "--default_algorithm",
        "--default_model", "--drain_timeout_s", "--models_dir", "--model_reload_interval_s",
        "--config"}) {
    EXPECT_THAT(help, HasSubstr(flag));
  }
  EXPECT_THAT(help, HasSubstr("default: \"neuroshard\""));
}

TEST(ServerConfigTest, BadFlagsAreNamed) {
  EXPECT_THAT(std::string(Parse({"--nope=1"}).status().message()), HasSubstr("--nope"));
  EXPECT_THAT(std::string(Parse({"--workers=many"}).status().message()), HasSubstr("--workers"));
  EXPECT_THAT(std::string(Parse({"--workers"}).status().message()),
              HasSubstr("--workers needs a value"));
  EXPECT_THAT(std::string(Parse({"stray"}).status().message()), HasSubstr("stray"));
  EXPECT_THAT(std::string(Parse({"--workers=0"}).status().message()), HasSubstr("workers"));
  EXPECT_THAT(std::string(Parse({"--drain_timeout_s=-1"}).status().message()),
              HasSubstr("drain_timeout_s"));
  EXPECT_THAT(std::string(Parse({"--queue_capacity=0"}).status().message()),
              HasSubstr("queue_capacity"));
  EXPECT_THAT(std::string(Parse({"--model_reload_interval_s=-1"}).status().message()),
              HasSubstr("model_reload_interval_s"));
}

TEST(ServerConfigTest, LoggingSettingsAreCheckedAndNamed) {
  absl::StatusOr<CommandLine> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.log_level, "info");
  EXPECT_EQ(parsed->config.log_format, "text");
  EXPECT_EQ(parsed->config.log_repeat_limit, 100);
  EXPECT_EQ(parsed->config.log_repeat_window_s, 10.0);
  LogOptions options = parsed->config.log_options();
  EXPECT_EQ(options.level, LogLevel::kInfo);
  EXPECT_EQ(options.format, LogFormat::kText);
  EXPECT_EQ(options.repeat_window, std::chrono::milliseconds(10000));

  parsed = Parse({"--log_level=debug", "--log_format", "json", "--log_repeat_limit=0",
                  "--log_repeat_window_s=0.5"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  options = parsed->config.log_options();
  EXPECT_EQ(options.level, LogLevel::kDebug);
  EXPECT_EQ(options.format, LogFormat::kJson);
  EXPECT_EQ(options.repeat_limit, 0);
  EXPECT_EQ(options.repeat_window, std::chrono::milliseconds(500));

  TempFile file(R"({"log_level": "error", "log_format": "logfmt"})");
  parsed = Parse({"--config", file.path()});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.log_options().level, LogLevel::kError);
  EXPECT_EQ(parsed->config.log_options().format, LogFormat::kLogfmt);

  EXPECT_THAT(std::string(Parse({"--log_level=verbose"}).status().message()),
              HasSubstr("log_level: must be debug, info, warn or error, got \"verbose\""));
  EXPECT_THAT(std::string(Parse({"--log_format=xml"}).status().message()),
              HasSubstr("log_format: must be text, json or logfmt"));
  EXPECT_THAT(std::string(Parse({"--log_repeat_limit=-1"}).status().message()),
              HasSubstr("log_repeat_limit"));
  EXPECT_THAT(std::string(Parse({"--log_repeat_window_s=0"}).status().message()),
              HasSubstr("log_repeat_window_s"));
}

TEST(ServerConfigTest, ModelDirectoryFlags) {
  absl::StatusOr<CommandLine> parsed =
      Parse({"--models_dir=/srv/models", "--model_reload_interval_s=0"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.models_dir, "/srv/models");
  EXPECT_EQ(parsed->config.model_reload_interval_s, 0.0);  // polling off
  parsed = Parse({"--models_dir=", "--model_reload_interval_s=0.5"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.models_dir, "");  // bundles disabled
  EXPECT_EQ(parsed->config.model_reload_interval_s, 0.5);
}

TEST(ServerConfigTest, StoreSizeFlags) {
  absl::StatusOr<CommandLine> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.store_max_plan_bytes, int64_t{8} << 20);
  EXPECT_EQ(parsed->config.store_max_bytes, int64_t{1} << 30);
  parsed = Parse({"--store_max_plan_bytes=0", "--store_max_bytes=5000"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.store_max_plan_bytes, 0);  // no cap
  EXPECT_EQ(parsed->config.store_max_bytes, 5000);
  for (const char* bad : {"--store_max_plan_bytes=-1", "--store_max_bytes=-1"}) {
    EXPECT_THAT(std::string(Parse({bad}).status().message()),
                HasSubstr(std::string(bad).substr(2, std::string(bad).find('=') - 2)))
        << bad;
  }
  EXPECT_THAT(HelpText("shardplan-server"), HasSubstr("--store_max_bytes"));
}

TEST(ServerConfigTest, StoreRetentionFlags) {
  absl::StatusOr<CommandLine> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.store_retention_s, 30.0 * 24 * 3600);  // 30 days
  EXPECT_EQ(parsed->config.store_prune_interval_s, 3600.0);
  parsed = Parse({"--store_retention_s=0", "--store_prune_interval_s=0.5"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.store_retention_s, 0.0);  // keep everything
  EXPECT_EQ(parsed->config.store_prune_interval_s, 0.5);
  for (const char* bad : {"--store_retention_s=-1", "--store_retention_s=1e300"}) {
    EXPECT_THAT(std::string(Parse({bad}).status().message()),
                HasSubstr("store_retention_s: must be in [0, 3153600000] (100 years)"))
        << bad;
  }
  EXPECT_TRUE(Parse({"--store_retention_s=3153600000"}).ok());
  for (const char* bad : {"--store_prune_interval_s=0", "--store_prune_interval_s=90000"}) {
    EXPECT_THAT(std::string(Parse({bad}).status().message()),
                HasSubstr("store_prune_interval_s: must be in [0.001, 86400]"))
        << bad;
  }
}

TEST(ServerConfigTest, PlanAndThreadLimitsAreCheckedTogether) {
  absl::StatusOr<CommandLine> parsed = Parse({"--max_concurrent_plans=1", "--max_rpc_threads=3"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.max_concurrent_plans, 1);
  EXPECT_EQ(parsed->config.max_rpc_threads, 3);
  EXPECT_THAT(std::string(Parse({"--max_concurrent_plans=0"}).status().message()),
              HasSubstr("max_concurrent_plans: must be in [1, 1024]"));
  // The default thread cap leaves no room for 300 planning calls.
  EXPECT_THAT(
      std::string(Parse({"--max_concurrent_plans=300"}).status().message()),
      HasSubstr("max_rpc_threads: must be at least max_concurrent_plans + 2 (302), got 256"));
  EXPECT_TRUE(Parse({"--max_concurrent_plans=300", "--max_rpc_threads=302"}).ok());
}

TEST(ServerConfigTest, StreamsLeaveOtherCallsAThread) {
  absl::StatusOr<CommandLine> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.EffectiveMaxStreams(), 128);  // half of max_rpc_threads
  EXPECT_EQ(parsed->config.max_streams_per_client, 16);
  EXPECT_THAT(std::string(Parse({"--max_streams=255"}).status().message()),
              HasSubstr("max_streams: must leave other calls a thread, at most max_rpc_threads "
                        "- 2 (254), got 255"));
  EXPECT_TRUE(Parse({"--max_streams=254"}).ok());
}

TEST(ServerConfigTest, SecuritySettingsAreOffByDefaultAndCheckedTogether) {
  absl::StatusOr<CommandLine> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->config.tls_cert_file, "");
  EXPECT_EQ(parsed->config.auth_tokens_file, "");
  EXPECT_EQ(parsed->config.max_requests_per_client, 16);
  EXPECT_EQ(parsed->config.max_planning_time_ms, 60000);

  parsed = Parse({"--tls_cert_file=c.pem", "--tls_key_file=k.pem", "--tls_client_ca_file=ca.pem",
                  "--auth_tokens_file=t.json", "--max_requests_per_client=0",
                  "--max_planning_time_ms=0"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();  // files are read at start, not here
  EXPECT_EQ(parsed->config.tls_client_ca_file, "ca.pem");
  EXPECT_EQ(parsed->config.max_requests_per_client, 0);

  EXPECT_THAT(std::string(Parse({"--tls_cert_file=c.pem"}).status().message()),
              HasSubstr("tls_key_file: must be set with tls_cert_file"));
  EXPECT_THAT(std::string(Parse({"--tls_key_file=k.pem"}).status().message()),
              HasSubstr("tls_cert_file: must be set with tls_key_file"));
  EXPECT_THAT(std::string(Parse({"--tls_client_ca_file=ca.pem"}).status().message()),
              HasSubstr("tls_client_ca_file: mutual TLS needs TLS"));
  EXPECT_THAT(std::string(Parse({"--max_requests_per_client=-1"}).status().message()),
              HasSubstr("max_requests_per_client: must be in [0, "));
  EXPECT_THAT(std::string(Parse({"--max_planning_time_ms=-5"}).status().message()),
              HasSubstr("max_planning_time_ms: must be in [0, "));
}

TEST(ServerConfigTest, BadConfigFilesAreNamed) {
  EXPECT_EQ(Parse({"--config=/nonexistent/x.json"}).status().code(), absl::StatusCode::kNotFound);
  TempFile not_json("{workers: 3");
  EXPECT_THAT(std::string(Parse({"--config", not_json.path()}).status().message()),
              HasSubstr("invalid JSON"));
  // A setting given twice: nlohmann kept the last, so the server ran with 64 workers.
  TempFile twice(R"({"workers": 2, "workers": 64})");
  const absl::Status repeated = Parse({"--config", twice.path()}).status();
  EXPECT_EQ(repeated.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(repeated.message()),
              HasSubstr("workers: given twice in one object; give each field once"));
  TempFile unknown(R"({"wrokers": 3})");
  EXPECT_THAT(std::string(Parse({"--config", unknown.path()}).status().message()),
              HasSubstr("wrokers"));
  TempFile wrong_type(R"({"workers": "3"})");
  EXPECT_THAT(std::string(Parse({"--config", wrong_type.path()}).status().message()),
              HasSubstr("workers: expected an integer"));
  TempFile fractional(R"({"workers": 2.5})");
  EXPECT_FALSE(Parse({"--config", fractional.path()}).ok());
}

TEST(ServerConfigTest, ApplyConfigJsonAcceptsNumbersForDoubles) {
  ServerConfig config;
  ASSERT_TRUE(ApplyConfigJson(nlohmann::json{{"drain_timeout_s", 5}}, config).ok());
  EXPECT_EQ(config.drain_timeout_s, 5.0);
  EXPECT_FALSE(ApplyConfigJson(nlohmann::json::array(), config).ok());
}

}  // namespace
}  // namespace shardplan
