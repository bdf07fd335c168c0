#include "costmodels/artifacts/model_bundle.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "costmodels/artifacts/mlp_tensors.h"
#include "costmodels/artifacts/sha256.h"
#include "costmodels/artifacts/weights_file.h"
#include "nlohmann/json.hpp"
#include "planner/status_macros.h"

namespace shardplan {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr char kManifestFile[] = "manifest.json";
constexpr char kComputeWeightsFile[] = "compute.weights";

// ---- Names ----------------------------------------------------------------------------------

// Names and versions become path components: no separators, no "..", nothing hidden.
bool IsValidComponent(const std::string& s) {
  if (s.empty() || s.front() == '.' || s.size() > 128) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

const char* DirectionName(NeuralCommModel::Direction direction) {
  return direction == NeuralCommModel::Direction::kForward ? "forward" : "backward";
}

std::string CommSubModelName(int n, NeuralCommModel::Direction direction) {
  return absl::StrCat("comm_", n, "_", DirectionName(direction));
}

// The comm model's inputs in order: the forward model sees dim sums then waits.
std::vector<std::string> CommInputNames(int n, NeuralCommModel::Direction direction) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(absl::StrCat("dim_sum_", i));
  if (direction == NeuralCommModel::Direction::kForward) {
    for (int i = 0; i < n; ++i) names.push_back(absl::StrCat("wait_", i));
  }
  return names;
}

std::vector<std::string> FeatureNames() {
  std::vector<std::string> names;
  for (std::string_view name : TableFeatureNames()) names.emplace_back(name);
  return names;
}

// Sub-model names of `model` in manifest order.
std::vector<std::string> SubModelNames(const NeuralCostModel& model) {
  std::vector<std::string> names = {"compute"};
  for (const auto& [n, models] : model.comm()) {
    names.push_back(CommSubModelName(n, NeuralCommModel::Direction::kForward));
    names.push_back(CommSubModelName(n, NeuralCommModel::Direction::kBackward));
  }
  return names;
}

// ---- Manifest writing -----------------------------------------------------------------------

json NormalizationJson(const FeatureNormalizer& normalizer) {
  // nlohmann writes doubles with 17 significant digits, so they read back bit-identical.
  return {{"mean", normalizer.means()}, {"std", normalizer.stds()}};
}

json TrainingJson(const SubModelTraining& t) {
  return {{"data_file", t.data_file}, {"data_sha256", t.data_sha256}, {"samples", t.samples},
          {"epochs", t.epochs},       {"train_mse", t.train_mse},     {"valid_mse", t.valid_mse},
          {"test_mse", t.test_mse}};
}

void AddTraining(const BundleInfo& info, const std::string& sub_model, json& entry) {
  auto it = info.training.find(sub_model);
  if (it != info.training.end()) entry["training"] = TrainingJson(it->second);
}

json CommEntryJson(const BundleInfo& info, const NeuralCommModel& comm, const std::string& file,
                   const std::string& sha256) {
  const std::string sub_model = CommSubModelName(comm.num_devices(), comm.direction());
  json entry = {{"num_devices", comm.num_devices()},
                {"direction", DirectionName(comm.direction())},
                {"weights", file},
                {"sha256", sha256},
                {"mlp_sizes", MlpSizes(comm.mlp())},
                {"inputs", CommInputNames(comm.num_devices(), comm.direction())},
                {"normalization", NormalizationJson(comm.normalizer())}};
  AddTraining(info, sub_model, entry);
  return entry;
}

// The weights files of `model` by file name, and the manifest that lists them.
struct BundleFiles {
  std::vector<std::pair<std::string, std::string>> weights;  // file name, bytes
  std::string manifest;
};

absl::StatusOr<BundleFiles> EncodeBundle(const BundleInfo& info, const NeuralCostModel& model) {
  BundleFiles files;
  const NeuralComputeModel& compute = model.compute();
  std::vector<WeightsTensor> tensors;
  AppendMlpTensors("table_mlp", compute.table_mlp(), tensors);
  AppendMlpTensors("pred_mlp", compute.pred_mlp(), tensors);
  SHARDPLAN_ASSIGN_OR_RETURN(std::string compute_bytes, SerializeWeights(tensors));

  json manifest = {
      {"format_version", kModelBundleFormatVersion},
      {"name", info.name},
      {"version", info.version},
      {"kind", "neural"},
      {"description", info.description},
      {"hardware_profile", info.hardware_profile},
      {"backend", info.backend},
      {"created", info.created},
      {"seed", info.seed},
      {"comm_costs", model.comm_costs() == NeuralCostModel::CommCosts::kZero ? "zero" : "neural"}};
  json compute_entry = {{"weights", kComputeWeightsFile},
                        {"sha256", Sha256Hex(compute_bytes)},
                        {"table_mlp_sizes", MlpSizes(compute.table_mlp())},
                        {"pred_mlp_sizes", MlpSizes(compute.pred_mlp())},
                        {"features", FeatureNames()},
                        {"normalization", NormalizationJson(compute.normalizer())}};
  AddTraining(info, "compute", compute_entry);
  manifest["compute"] = std::move(compute_entry);
  files.weights.emplace_back(kComputeWeightsFile, std::move(compute_bytes));

  json comm = json::array();
  for (const auto& [n, models] : model.comm()) {
    for (const NeuralCommModel* m : {&models.forward, &models.backward}) {
      tensors.clear();
      AppendMlpTensors("mlp", m->mlp(), tensors);
      SHARDPLAN_ASSIGN_OR_RETURN(std::string bytes, SerializeWeights(tensors));
      const std::string file = CommSubModelName(n, m->direction()) + ".weights";
      comm.push_back(CommEntryJson(info, *m, file, Sha256Hex(bytes)));
      files.weights.emplace_back(file, std::move(bytes));
    }
  }
  manifest["comm"] = std::move(comm);
  files.manifest = manifest.dump(2) + "\n";
  return files;
}

// ---- Filesystem steps -----------------------------------------------------------------------

absl::Status ErrnoError(const std::string& step, const std::string& path, int err) {
  return absl::InternalError(absl::StrCat(path, ": ", step, ": ", std::strerror(err)));
}

absl::Status FsyncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open for fsync", path, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoError("fsync", path, err);
  return absl::OkStatus();
}

// Creates `path` (which must not exist), writes `contents` and fsyncs it.
absl::Status WriteNewFile(const std::string& path, std::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("create", path, errno);
  absl::Status status;
  while (!contents.empty() && status.ok()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0 && errno != EINTR) status = ErrnoError("write", path, errno);
    if (n > 0) contents.remove_prefix(static_cast<size_t>(n));
  }
  if (status.ok() && ::fsync(fd) != 0) status = ErrnoError("fsync", path, errno);
  if (::close(fd) != 0 && status.ok()) status = ErrnoError("close", path, errno);
  return status;
}

// Renames the finished temporary directory to the version's. RENAME_NOREPLACE keeps an existing
// version intact even when another writer created it after our check (a plain rename would
// replace an empty directory).
absl::Status RenameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
    return absl::OkStatus();
  }
  if (errno == EEXIST || errno == ENOTEMPTY) {
    return absl::AlreadyExistsError(
        absl::StrCat(to, ": the version exists (versions are immutable)"));
  }
  if (errno != EINVAL && errno != ENOSYS) return ErrnoError("rename from " + from, to, errno);
  // A filesystem without RENAME_NOREPLACE: check, then rename (a directory only replaces an
  // empty one, and a bundle directory is never empty).
  std::error_code ec;
  if (fs::exists(to, ec)) {
    return absl::AlreadyExistsError(
        absl::StrCat(to, ": the version exists (versions are immutable)"));
  }
  if (::rename(from.c_str(), to.c_str()) != 0) return ErrnoError("rename from " + from, to, errno);
  return absl::OkStatus();
}

absl::Status WriteBundleFiles(const BundleFiles& files, const std::string& tmp_dir,
                              const std::string& final_dir) {
  for (const auto& [name, bytes] : files.weights) {
    SHARDPLAN_RETURN_IF_ERROR(WriteNewFile(tmp_dir + "/" + name, bytes));
  }
  // The manifest last: a directory with a manifest has all its weights.
  SHARDPLAN_RETURN_IF_ERROR(WriteNewFile(tmp_dir + "/" + kManifestFile, files.manifest));
  SHARDPLAN_RETURN_IF_ERROR(FsyncPath(tmp_dir, O_RDONLY | O_DIRECTORY));
  SHARDPLAN_RETURN_IF_ERROR(RenameNoReplace(tmp_dir, final_dir));
  return FsyncPath(fs::path(final_dir).parent_path().string(), O_RDONLY | O_DIRECTORY);
}

std::string NowRfc3339() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, bool* missing) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (missing != nullptr) *missing = (err == ENOENT);
    return absl::FailedPreconditionError(absl::StrCat(path, ": cannot open: ", std::strerror(err)));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::FailedPreconditionError(absl::StrCat(path, ": read error"));
  return contents.str();
}

// ---- Manifest reading -----------------------------------------------------------------------

// Typed access to the manifest; every error names the file and the field.
class ManifestReader {
 public:
  explicit ManifestReader(std::string file) : file_(std::move(file)) {}

  absl::Status Error(const std::string& what) const {
    return absl::FailedPreconditionError(absl::StrCat(file_, ": ", what));
  }

  absl::StatusOr<const json*> Field(const json& object, const std::string& key,
                                    const std::string& where) const {
    if (!object.is_object()) return Error(absl::StrCat(where, " is not an object"));
    auto it = object.find(key);
    if (it == object.end()) return Error(absl::StrCat("field '", Path(where, key), "' is missing"));
    return &*it;
  }

  absl::StatusOr<std::string> String(const json& object, const std::string& key,
                                     const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_string()) return TypeError(where, key, "a string");
    return value->get<std::string>();
  }

  absl::StatusOr<int64_t> Int(const json& object, const std::string& key,
                              const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_number_integer()) return TypeError(where, key, "an integer");
    if (value->is_number_unsigned() &&
        value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return TypeError(where, key, "an integer in range");
    }
    return value->get<int64_t>();
  }

  absl::StatusOr<uint64_t> Uint(const json& object, const std::string& key,
                                const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (value->is_number_unsigned()) return value->get<uint64_t>();
    if (value->is_number_integer() && value->get<int64_t>() >= 0) {
      return static_cast<uint64_t>(value->get<int64_t>());
    }
    return TypeError(where, key, "a non-negative integer");
  }

  // null (how JSON writers spell NaN) reads as NaN.
  absl::StatusOr<double> Double(const json& object, const std::string& key,
                                const std::string& where = "") const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (value->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!value->is_number()) return TypeError(where, key, "a number");
    return value->get<double>();
  }

  absl::StatusOr<std::vector<double>> Doubles(const json& object, const std::string& key,
                                              const std::string& where) const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_array()) return TypeError(where, key, "an array of numbers");
    std::vector<double> out;
    for (const json& v : *value) {
      if (!v.is_number()) return TypeError(where, key, "an array of numbers");
      out.push_back(v.get<double>());
    }
    return out;
  }

  absl::StatusOr<std::vector<int>> Ints(const json& object, const std::string& key,
                                        const std::string& where) const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_array()) return TypeError(where, key, "an array of integers");
    std::vector<int> out;
    for (const json& v : *value) {
      if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > (1 << 20)) {
        return TypeError(where, key, "an array of positive integers");
      }
      out.push_back(v.get<int>());
    }
    return out;
  }

  absl::StatusOr<std::vector<std::string>> Strings(const json& object, const std::string& key,
                                                   const std::string& where) const {
    SHARDPLAN_ASSIGN_OR_RETURN(const json* value, Field(object, key, where));
    if (!value->is_array()) return TypeError(where, key, "an array of strings");
    std::vector<std::string> out;
    for (const json& v : *value) {
      if (!v.is_string()) return TypeError(where, key, "an array of strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  static std::string Path(const std::string& where, const std::string& key) {
    return where.empty() ? key : absl::StrCat(where, ".", key);
  }

 private:
  absl::Status TypeError(const std::string& where, const std::string& key,
                         const std::string& expected) const {
    return Error(absl::StrCat("field '", Path(where, key), "' must be ", expected));
  }

  std::string file_;
};

absl::StatusOr<FeatureNormalizer> ReadNormalizer(const ManifestReader& reader, const json& entry,
                                                 const std::string& where) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* norm, reader.Field(entry, "normalization", where));
  const std::string path = ManifestReader::Path(where, "normalization");
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<double> mean, reader.Doubles(*norm, "mean", path));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<double> std, reader.Doubles(*norm, "std", path));
  auto normalizer = FeatureNormalizer::Create(std::move(mean), std::move(std));
  if (!normalizer.ok())
    return reader.Error(absl::StrCat(path, ": ", normalizer.status().message()));
  return normalizer;
}

// Training is optional (an imported checkpoint has none).
absl::Status ReadTraining(const ManifestReader& reader, const json& entry, const std::string& where,
                          const std::string& sub_model, BundleInfo& info) {
  if (!entry.contains("training")) return absl::OkStatus();
  const json& t = entry["training"];
  const std::string path = ManifestReader::Path(where, "training");
  SubModelTraining training;
  SHARDPLAN_ASSIGN_OR_RETURN(training.data_file, reader.String(t, "data_file", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.data_sha256, reader.String(t, "data_sha256", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.samples, reader.Int(t, "samples", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.epochs, reader.Int(t, "epochs", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.train_mse, reader.Double(t, "train_mse", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.valid_mse, reader.Double(t, "valid_mse", path));
  SHARDPLAN_ASSIGN_OR_RETURN(training.test_mse, reader.Double(t, "test_mse", path));
  info.training[sub_model] = std::move(training);
  return absl::OkStatus();
}

// Reads a weights file the manifest names, checks its SHA-256 and parses it.
absl::StatusOr<std::map<std::string, WeightsTensor>> ReadWeights(const ManifestReader& reader,
                                                                 const std::string& directory,
                                                                 const json& entry,
                                                                 const std::string& where,
                                                                 const std::string& expected_file) {
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string file, reader.String(entry, "weights", where));
  // Fixed names keep a manifest from pointing outside its directory.
  if (file != expected_file) {
    return reader.Error(absl::StrCat("field '", where, ".weights' is '", file, "', expected '",
                                     expected_file, "'"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string sha256, reader.String(entry, "sha256", where));
  const std::string path = directory + "/" + file;
  bool missing = false;
  auto bytes = ReadWholeFile(path, &missing);
  if (!bytes.ok()) {
    if (missing) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": weights file is missing (listed in ", kManifestFile, ")"));
    }
    return bytes.status();
  }
  const std::string actual = Sha256Hex(*bytes);
  if (actual != sha256) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": SHA-256 mismatch (manifest ",
                                                      sha256.substr(0, 12), "..., file ",
                                                      actual.substr(0, 12), "...)"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<WeightsTensor> tensors, ParseWeights(*bytes, path));
  std::map<std::string, WeightsTensor> by_name;
  for (WeightsTensor& t : tensors) by_name.emplace(t.name, std::move(t));
  return by_name;
}

absl::Status RefuseLeftovers(const std::string& path,
                             const std::map<std::string, WeightsTensor>& tensors) {
  if (tensors.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      path, ": tensor '", tensors.begin()->first, "' is not part of the manifest's architecture"));
}

absl::StatusOr<NeuralComputeModel> ReadCompute(const ManifestReader& reader,
                                               const std::string& directory, const json& manifest,
                                               BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* entry, reader.Field(manifest, "compute", ""));
  const std::string where = "compute";
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<std::string> features,
                             reader.Strings(*entry, "features", where));
  if (features != FeatureNames()) {
    return reader.Error(absl::StrCat("compute.features [", absl::StrJoin(features, ","),
                                     "] is not this build's feature order [",
                                     absl::StrJoin(FeatureNames(), ","), "]"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> table_sizes,
                             reader.Ints(*entry, "table_mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> pred_sizes,
                             reader.Ints(*entry, "pred_mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer, ReadNormalizer(reader, *entry, where));
  SHARDPLAN_RETURN_IF_ERROR(ReadTraining(reader, *entry, where, "compute", info));

  const std::string path = directory + "/" + kComputeWeightsFile;
  SHARDPLAN_ASSIGN_OR_RETURN(auto tensors,
                             ReadWeights(reader, directory, *entry, where, kComputeWeightsFile));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp table_mlp,
                             TakeMlpTensors("table_mlp", table_sizes, true, path, tensors));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp pred_mlp,
                             TakeMlpTensors("pred_mlp", pred_sizes, false, path, tensors));
  SHARDPLAN_RETURN_IF_ERROR(RefuseLeftovers(path, tensors));
  auto compute =
      NeuralComputeModel::Create(std::move(normalizer), std::move(table_mlp), std::move(pred_mlp));
  if (!compute.ok()) return reader.Error(absl::StrCat("compute: ", compute.status().message()));
  return compute;
}

absl::StatusOr<NeuralCommModel> ReadComm(const ManifestReader& reader, const std::string& directory,
                                         const json& entry, const std::string& where,
                                         BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t n, reader.Int(entry, "num_devices", where));
  if (n <= 0 || n > 65536)
    return reader.Error(absl::StrCat(where, ".num_devices ", n, " is invalid"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string direction_name,
                             reader.String(entry, "direction", where));
  NeuralCommModel::Direction direction;
  if (direction_name == "forward") {
    direction = NeuralCommModel::Direction::kForward;
  } else if (direction_name == "backward") {
    direction = NeuralCommModel::Direction::kBackward;
  } else {
    return reader.Error(
        absl::StrCat(where, ".direction '", direction_name, "' is not 'forward' or 'backward'"));
  }
  const int devices = static_cast<int>(n);
  const std::string sub_model = CommSubModelName(devices, direction);
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<std::string> inputs,
                             reader.Strings(entry, "inputs", where));
  if (inputs != CommInputNames(devices, direction)) {
    return reader.Error(absl::StrCat(where, " (", sub_model, "): inputs [",
                                     absl::StrJoin(inputs, ","), "] are not [",
                                     absl::StrJoin(CommInputNames(devices, direction), ","), "]"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(std::vector<int> sizes, reader.Ints(entry, "mlp_sizes", where));
  SHARDPLAN_ASSIGN_OR_RETURN(FeatureNormalizer normalizer, ReadNormalizer(reader, entry, where));
  SHARDPLAN_RETURN_IF_ERROR(ReadTraining(reader, entry, where, sub_model, info));

  const std::string file = sub_model + ".weights";
  const std::string path = directory + "/" + file;
  SHARDPLAN_ASSIGN_OR_RETURN(auto tensors, ReadWeights(reader, directory, entry, where, file));
  SHARDPLAN_ASSIGN_OR_RETURN(Mlp mlp, TakeMlpTensors("mlp", sizes, false, path, tensors));
  SHARDPLAN_RETURN_IF_ERROR(RefuseLeftovers(path, tensors));
  auto comm = NeuralCommModel::Create(devices, direction, std::move(normalizer), std::move(mlp));
  if (!comm.ok()) return reader.Error(absl::StrCat(sub_model, ": ", comm.status().message()));
  return comm;
}

absl::StatusOr<std::map<int, NeuralCommModels>> ReadComms(const ManifestReader& reader,
                                                          const std::string& directory,
                                                          const json& manifest, bool zero_comm,
                                                          BundleInfo& info) {
  SHARDPLAN_ASSIGN_OR_RETURN(const json* list, reader.Field(manifest, "comm", ""));
  if (!list->is_array()) return reader.Error("field 'comm' must be an array");
  if (zero_comm && !list->empty()) {
    return reader.Error("comm_costs is 'zero' but comm models are listed");
  }
  std::map<int, std::optional<NeuralCommModel>> forward, backward;
  for (size_t i = 0; i < list->size(); ++i) {
    SHARDPLAN_ASSIGN_OR_RETURN(NeuralCommModel comm, ReadComm(reader, directory, (*list)[i],
                                                              absl::StrCat("comm[", i, "]"), info));
    auto& slot = comm.direction() == NeuralCommModel::Direction::kForward
                     ? forward[comm.num_devices()]
                     : backward[comm.num_devices()];
    if (slot.has_value()) {
      return reader.Error(
          absl::StrCat(CommSubModelName(comm.num_devices(), comm.direction()), " is listed twice"));
    }
    slot.emplace(std::move(comm));
  }
  std::map<int, NeuralCommModels> comm;
  for (auto& [n, fw] : forward) {
    auto bw = backward.find(n);
    if (bw == backward.end()) {
      return reader.Error(absl::StrCat("comm_", n, "_forward has no comm_", n, "_backward"));
    }
    comm.emplace(n, NeuralCommModels{*std::move(fw), *std::move(bw->second)});
  }
  for (const auto& [n, bw] : backward) {
    if (!forward.contains(n)) {
      return reader.Error(absl::StrCat("comm_", n, "_backward has no comm_", n, "_forward"));
    }
  }
  if (!zero_comm && comm.empty()) {
    return reader.Error("comm_costs is 'neural' but no comm models are listed");
  }
  return comm;
}

// The directory's last two components, ignoring trailing slashes.
std::pair<std::string, std::string> NameAndVersionOf(const std::string& directory) {
  fs::path path(directory);
  while (!path.empty() && path.filename().empty() && path.has_parent_path() &&
         path != path.parent_path()) {
    path = path.parent_path();
  }
  return {path.parent_path().filename().string(), path.filename().string()};
}

absl::Status CheckInfo(const BundleInfo& info, const NeuralCostModel& model) {
  if (!IsValidComponent(info.name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bundle name '", info.name, "' is invalid: use [A-Za-z0-9._-], not starting with '.'"));
  }
  if (!IsValidComponent(info.version)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bundle version '", info.version,
                     "' is invalid: use [A-Za-z0-9._-], not starting with '.'"));
  }
  if (model.id() != info.name + "@" + info.version) {
    return absl::InvalidArgumentError(absl::StrCat("bundle info names ", info.name, "@",
                                                   info.version, " but the model is ", model.id()));
  }
  const std::vector<std::string> sub_models = SubModelNames(model);
  for (const auto& [sub_model, training] : info.training) {
    if (std::find(sub_models.begin(), sub_models.end(), sub_model) == sub_models.end()) {
      return absl::InvalidArgumentError(absl::StrCat("training is given for '", sub_model,
                                                     "', which the model does not have (it has ",
                                                     absl::StrJoin(sub_models, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string ModelBundleDirectory(const std::string& models_root, const std::string& name,
                                 const std::string& version) {
  return (fs::path(models_root) / name / version).string();
}

absl::Status WriteModelBundle(const std::string& models_root, const BundleInfo& info,
                              const NeuralCostModel& model) {
  SHARDPLAN_RETURN_IF_ERROR(CheckInfo(info, model));
  BundleInfo filled = info;
  if (filled.created.empty()) filled.created = NowRfc3339();
  SHARDPLAN_ASSIGN_OR_RETURN(const BundleFiles files, EncodeBundle(filled, model));

  const std::string name_dir = (fs::path(models_root) / info.name).string();
  const std::string final_dir = ModelBundleDirectory(models_root, info.name, info.version);
  const std::string tmp_dir =
      (fs::path(name_dir) / absl::StrCat(".", info.version, ".tmp-", ::getpid())).string();

  // One writer at a time in this process, so a temporary directory with our pid is stale (left
  // by a crashed process that had our pid) and safe to remove.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::error_code ec;
  if (fs::exists(final_dir, ec)) {
    return absl::AlreadyExistsError(
        absl::StrCat(final_dir, ": the version exists (versions are immutable)"));
  }
  const bool created_name_dir = !fs::exists(name_dir, ec);
  fs::create_directories(name_dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(name_dir, ": create directory: ", ec.message()));
  if (created_name_dir) {
    SHARDPLAN_RETURN_IF_ERROR(
        FsyncPath(fs::path(name_dir).parent_path().string(), O_RDONLY | O_DIRECTORY));
  }
  fs::remove_all(tmp_dir, ec);
  if (::mkdir(tmp_dir.c_str(), 0755) != 0) return ErrnoError("create directory", tmp_dir, errno);

  const absl::Status status = WriteBundleFiles(files, tmp_dir, final_dir);
  if (!status.ok()) fs::remove_all(tmp_dir, ec);
  return status;
}

absl::StatusOr<LoadedBundle> ReadModelBundle(const std::string& directory) {
  const std::string manifest_path = directory + "/" + kManifestFile;
  bool missing = false;
  auto text = ReadWholeFile(manifest_path, &missing);
  if (!text.ok()) {
    if (missing) return absl::NotFoundError(absl::StrCat(manifest_path, ": no manifest"));
    return text.status();
  }
  const ManifestReader reader(manifest_path);
  json manifest = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) return reader.Error("not valid JSON");
  if (!manifest.is_object()) return reader.Error("not a JSON object");

  SHARDPLAN_ASSIGN_OR_RETURN(const int64_t format_version, reader.Int(manifest, "format_version"));
  if (format_version != kModelBundleFormatVersion) {
    return reader.Error(absl::StrCat("format_version ", format_version,
                                     " is not supported (this build reads ",
                                     kModelBundleFormatVersion, ")"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string kind, reader.String(manifest, "kind"));
  if (kind != "neural") return reader.Error(absl::StrCat("kind '", kind, "' is not 'neural'"));

  LoadedBundle bundle;
  bundle.directory = directory;
  bundle.manifest_sha256 = Sha256Hex(*text);
  BundleInfo& info = bundle.info;
  SHARDPLAN_ASSIGN_OR_RETURN(info.name, reader.String(manifest, "name"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.version, reader.String(manifest, "version"));
  const auto [dir_name, dir_version] = NameAndVersionOf(directory);
  if (info.name != dir_name || info.version != dir_version) {
    return reader.Error(absl::StrCat("names ", info.name, "@", info.version,
                                     " but lives in the directory of ", dir_name, "@",
                                     dir_version));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(info.description, reader.String(manifest, "description"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.hardware_profile, reader.String(manifest, "hardware_profile"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.backend, reader.String(manifest, "backend"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.created, reader.String(manifest, "created"));
  SHARDPLAN_ASSIGN_OR_RETURN(info.seed, reader.Uint(manifest, "seed"));
  SHARDPLAN_ASSIGN_OR_RETURN(const std::string comm_costs, reader.String(manifest, "comm_costs"));
  if (comm_costs != "neural" && comm_costs != "zero") {
    return reader.Error(absl::StrCat("comm_costs '", comm_costs, "' is not 'neural' or 'zero'"));
  }
  const bool zero_comm = comm_costs == "zero";

  SHARDPLAN_ASSIGN_OR_RETURN(NeuralComputeModel compute,
                             ReadCompute(reader, directory, manifest, info));
  SHARDPLAN_ASSIGN_OR_RETURN(auto comm, ReadComms(reader, directory, manifest, zero_comm, info));
  auto model = NeuralCostModel::Create(
      info.name, info.version, std::move(compute), std::move(comm),
      zero_comm ? NeuralCostModel::CommCosts::kZero : NeuralCostModel::CommCosts::kNeural);
  if (!model.ok()) return reader.Error(std::string(model.status().message()));
  bundle.model = std::make_shared<const NeuralCostModel>(*std::move(model));
  bundle.manifest = ManifestOfBundle(info, *bundle.model);
  return bundle;
}

ModelManifest ManifestOfBundle(const BundleInfo& info, const NeuralCostModel& model) {
  ModelManifest manifest;
  manifest.name = info.name;
  manifest.version = info.version;
  manifest.kind = "neural";
  manifest.hardware_profile = info.hardware_profile;
  manifest.backend = info.backend;
  manifest.created = info.created;
  manifest.description = info.description;
  // The forward and backward models of one device count share a dataset: count it once.
  std::set<std::string> datasets;
  for (const auto& [sub_model, training] : info.training) {
    const std::string key =
        training.data_sha256.empty() ? "sub-model:" + sub_model : training.data_sha256;
    if (datasets.insert(key).second) manifest.data_size += training.samples;
    manifest.test_mse[sub_model] = training.test_mse;
  }
  for (const auto& [n, models] : model.comm()) manifest.device_counts.push_back(n);
  return manifest;
}

}  // namespace shardplan
