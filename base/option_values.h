#ifndef SHARDPLAN_BASE_OPTION_VALUES_H_
#define SHARDPLAN_BASE_OPTION_VALUES_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shardplan {

// The options and positional arguments of one parsed command line (base/command_line.h). The
// typed getters' errors are usage errors naming the option: "--samples 'x' is not an integer".
class OptionValues {
 public:
  // Given on the command line (a default does not count).
  bool Has(absl::string_view name) const;
  // The last value given for `name`; else its OptionSpec default; else `fallback`.
  std::string Get(absl::string_view name, absl::string_view fallback = "") const;
  // Every value given for `name`, in order.
  std::vector<std::string> GetAll(absl::string_view name) const;
  // Get(name) as a number.
  absl::StatusOr<int64_t> GetInt(absl::string_view name) const;
  absl::StatusOr<uint64_t> GetUint(absl::string_view name) const;
  absl::StatusOr<double> GetDouble(absl::string_view name) const;  // finite
  // Get(name) when it is one of `choices`: "--kind 'io' is not compute or comm" otherwise.
  absl::StatusOr<std::string> GetOneOf(absl::string_view name,
                                       std::initializer_list<absl::string_view> choices) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  void Add(const std::string& name, std::string value) {
    values_[name].push_back(std::move(value));
  }
  void SetDefault(const std::string& name, std::string value) {
    defaults_[name] = std::move(value);
  }
  void AddPositional(std::string arg) { positionals_.push_back(std::move(arg)); }

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> defaults_;
  std::vector<std::string> positionals_;
};

}  // namespace shardplan

#endif  // SHARDPLAN_BASE_OPTION_VALUES_H_
