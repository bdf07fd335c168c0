#ifndef SHARDPLAN_PLANNER_FRAMEWORK_PARAMETERS_H_
#define SHARDPLAN_PLANNER_FRAMEWORK_PARAMETERS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan {

enum class ParamType { kInt, kDouble, kBool, kString };

// "int", "double", "bool", "string".
const char* ParamTypeName(ParamType type);

// One typed, documented algorithm parameter.
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kInt;
  std::string default_value;  // in the canonical spelling of its type
  std::string description;
  std::optional<double> min_value;  // inclusive bounds for kInt and kDouble
  std::optional<double> max_value;
};

// Parameter values resolved against their specs: every spec present, each value in the
// canonical spelling of its type (so "3", "03" and "3.0" for an int all read "3"). Getters
// expect a name of the right type (a programming error otherwise).
class ParamValues {
 public:
  ParamValues() = default;
  explicit ParamValues(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  int64_t GetInt(const std::string& name) const;
  double GetDouble(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  const std::string& GetString(const std::string& name) const;

  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

// Checks `given` against `specs` and fills in defaults. Errors are INVALID_ARGUMENT naming the
// field: "parameters.beam_width: expected an integer, got \"wide\"", unknown names, bounds.
absl::StatusOr<ParamValues> ResolveParams(const std::vector<ParamSpec>& specs,
                                          const std::map<std::string, std::string>& given);

// A figure an algorithm reports of its plan under a dotted key (Plan::parameters): six
// significant digits, "inf" / "-inf" for infinities.
std::string ReportedNumber(double value);

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_FRAMEWORK_PARAMETERS_H_
