#include "costmodels/model_registry.h"

#include <cctype>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "costmodels/analytic/analytic_cost_model.h"

namespace shardplan {
namespace {

// Splits "1.10-rc2" into alternating digit and non-digit runs: "1", ".", "10", "-rc", "2".
std::vector<std::string> VersionSegments(const std::string& version) {
  std::vector<std::string> segments;
  for (char c : version) {
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (segments.empty() ||
        (std::isdigit(static_cast<unsigned char>(segments.back().back())) != 0) != digit) {
      segments.emplace_back();
    }
    segments.back().push_back(c);
  }
  return segments;
}

bool IsNumber(const std::string& s) {
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) != 0;
}

// Numeric comparison of digit strings of any length: fewer significant digits is smaller.
int CompareNumbers(const std::string& a, const std::string& b) {
  const size_t a0 = std::min(a.find_first_not_of('0'), a.size());
  const size_t b0 = std::min(b.find_first_not_of('0'), b.size());
  const size_t a_len = a.size() - a0, b_len = b.size() - b0;
  if (a_len != b_len) return a_len < b_len ? -1 : 1;
  return a.compare(a0, a_len, b, b0, b_len);
}

}  // namespace

bool VersionLess(const std::string& a, const std::string& b) {
  const std::vector<std::string> sa = VersionSegments(a), sb = VersionSegments(b);
  for (size_t i = 0; i < sa.size() && i < sb.size(); ++i) {
    int cmp;
    if (IsNumber(sa[i]) && IsNumber(sb[i])) {
      cmp = CompareNumbers(sa[i], sb[i]);
    } else {
      cmp = sa[i].compare(sb[i]);
    }
    if (cmp != 0) return cmp < 0;
  }
  if (sa.size() != sb.size()) return sa.size() < sb.size();
  return a < b;  // "01" vs "1": equal numerically, still a strict weak order
}

absl::Status ModelRegistry::Add(ModelManifest manifest, std::shared_ptr<const CostModel> model) {
  if (manifest.name.empty()) return absl::InvalidArgumentError("model name: must not be empty");
  if (manifest.version.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model ", manifest.name, ": version must not be empty"));
  }
  if (manifest.name.find('@') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("model name \"", manifest.name, "\": must not contain '@'"));
  }
  if (model == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("model ", manifest.id(), ": no model"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (default_name_.empty()) default_name_ = manifest.name;
  auto& versions = models_[manifest.name];
  const std::string version = manifest.version;
  versions.insert_or_assign(version, ResolvedModel{std::move(manifest), std::move(model)});
  return absl::OkStatus();
}

absl::Status ModelRegistry::Remove(const std::string& name, const std::string& version) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto by_name = models_.find(name);
  if (by_name == models_.end() || by_name->second.erase(version) == 0) {
    return absl::NotFoundError(absl::StrCat("model ", name, "@", version, " is not loaded"));
  }
  // The default name stays: a later version of it becomes the default again.
  if (by_name->second.empty()) models_.erase(by_name);
  return absl::OkStatus();
}

absl::Status ModelRegistry::SetDefault(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (models_.find(name) == models_.end()) {
    return absl::NotFoundError(absl::StrCat("model \"", name, "\" is not loaded"));
  }
  default_name_ = name;
  return absl::OkStatus();
}

absl::StatusOr<VersionSpec> ParseVersionSpec(const std::string& spec) {
  VersionSpec parsed{spec, ""};
  if (const size_t at = spec.find('@'); at != std::string::npos) {
    parsed.name = spec.substr(0, at);
    parsed.version = spec.substr(at + 1);
    if (parsed.name.empty() || parsed.version.empty() ||
        parsed.version.find('@') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", spec, "\" is not of the form name or name@version"));
    }
  }
  return parsed;
}

absl::StatusOr<ResolvedModel> ModelRegistry::Resolve(const std::string& spec) const {
  absl::StatusOr<VersionSpec> parsed = ParseVersionSpec(spec);
  if (!parsed.ok()) return parsed.status();
  std::string name = std::move(parsed->name);
  const std::string& version = parsed->version;
  std::lock_guard<std::mutex> lock(mu_);
  if (name.empty()) name = default_name_;
  const auto by_name = models_.find(name);
  if (by_name == models_.end() || by_name->second.empty()) {
    std::vector<std::string> names;
    for (const auto& [known, unused] : models_) names.push_back(known);
    return absl::NotFoundError(absl::StrCat("no model named \"", name,
                                            "\" is loaded; loaded: ",
                                            names.empty() ? "none" : absl::StrJoin(names, ", ")));
  }
  const auto& versions = by_name->second;
  if (version.empty()) return versions.rbegin()->second;
  const auto found = versions.find(version);
  if (found == versions.end()) {
    std::vector<std::string> known;
    for (const auto& [v, unused] : versions) known.push_back(v);
    return absl::NotFoundError(absl::StrCat(name, " has no version \"", version,
                                            "\"; versions: ", absl::StrJoin(known, ", ")));
  }
  return found->second;
}

std::vector<ModelRegistry::Entry> ModelRegistry::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Entry> entries;
  for (const auto& [name, versions] : models_) {
    for (auto it = versions.begin(); it != versions.end(); ++it) {
      entries.push_back(Entry{it->second.manifest, name == default_name_,
                              std::next(it) == versions.end()});
    }
  }
  return entries;
}

size_t ModelRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t count = 0;
  for (const auto& [name, versions] : models_) count += versions.size();
  return count;
}

absl::Status RegisterBuiltinModels(ModelRegistry& registry) {
  ModelManifest manifest;
  manifest.name = kFallbackModel;
  manifest.version = "1";
  manifest.kind = "analytic";
  manifest.hardware_profile = "torchrec-default";
  manifest.description =
      "TorchRec's analytic perf estimator (table-wise and column-wise shards, 897 GiB/s HBM); "
      "needs no artifact";
  // The model's id (recorded in plans) and the manifest's (listed, resolved) name one version.
  auto model = std::make_shared<const AnalyticCostModel>(AnalyticParams{}, manifest.version);
  return registry.Add(std::move(manifest), std::move(model));
}

}  // namespace shardplan
