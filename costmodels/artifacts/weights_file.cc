#include "costmodels/artifacts/weights_file.h"

#include <bit>
#include <cstring>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace shardplan {
namespace {

// The format is little-endian; this build writes and reads it with memcpy.
static_assert(std::endian::native == std::endian::little, "weights I/O assumes little-endian");

// Limits far above any real model that keep a corrupt header from claiming absurd sizes.
constexpr uint32_t kMaxNameLength = 1024;
constexpr uint32_t kMaxDims = 8;

void PutU32(std::string& out, uint32_t value) {
  char bytes[4];
  std::memcpy(bytes, &value, 4);
  out.append(bytes, 4);
}

// Reads the file front to back; every read is checked against what is left.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& file) : rest_(bytes), file_(file) {}

  absl::Status Error(const std::string& what) const {
    return absl::FailedPreconditionError(absl::StrCat(file_, ": ", what));
  }

  absl::StatusOr<uint32_t> U32(const std::string& what) {
    if (rest_.size() < 4) return Error(absl::StrCat("truncated (", what, ")"));
    uint32_t value;
    std::memcpy(&value, rest_.data(), 4);
    rest_.remove_prefix(4);
    return value;
  }

  absl::StatusOr<std::string_view> Bytes(uint64_t n, const std::string& what) {
    if (rest_.size() < n) {
      return Error(
          absl::StrCat("truncated (", what, " needs ", n, " bytes, ", rest_.size(), " left)"));
    }
    std::string_view bytes = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return bytes;
  }

  size_t left() const { return rest_.size(); }

 private:
  std::string_view rest_;
  const std::string& file_;
};

}  // namespace

absl::StatusOr<std::string> SerializeWeights(const std::vector<WeightsTensor>& tensors) {
  std::set<std::string> names;
  std::string out(kWeightsMagic, 4);
  PutU32(out, kWeightsFormatVersion);
  PutU32(out, static_cast<uint32_t>(tensors.size()));
  for (const WeightsTensor& tensor : tensors) {
    if (tensor.name.empty() || tensor.name.size() > kMaxNameLength) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor name '", tensor.name, "' is empty or too long"));
    }
    if (!names.insert(tensor.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor.name, "' repeated"));
    }
    if (tensor.shape.size() > kMaxDims) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", tensor.name, "' has ", tensor.shape.size(), " dimensions"));
    }
    uint64_t count = 1;
    for (uint32_t dim : tensor.shape) count *= dim;
    if (count != tensor.data.size()) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", tensor.name, "' has shape [",
                                                     absl::StrJoin(tensor.shape, ","), "] but ",
                                                     tensor.data.size(), " values"));
    }
    PutU32(out, static_cast<uint32_t>(tensor.name.size()));
    out += tensor.name;
    PutU32(out, static_cast<uint32_t>(tensor.shape.size()));
    for (uint32_t dim : tensor.shape) PutU32(out, dim);
    const size_t at = out.size();
    out.resize(at + 4 * tensor.data.size());
    if (!tensor.data.empty()) std::memcpy(out.data() + at, tensor.data.data(), 4 * count);
  }
  return out;
}

absl::StatusOr<std::vector<WeightsTensor>> ParseWeights(std::string_view bytes,
                                                        const std::string& file) {
  Reader reader(bytes, file);
  SHARDPLAN_ASSIGN_OR_RETURN(const auto magic, reader.Bytes(4, "magic"));
  if (magic != std::string_view(kWeightsMagic, 4)) {
    return reader.Error("not a weights file (no SPWT magic)");
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const auto version, reader.U32("format version"));
  if (version != kWeightsFormatVersion) {
    return reader.Error(absl::StrCat("weights format version ", version,
                                     " is not supported (this build reads ", kWeightsFormatVersion,
                                     ")"));
  }
  SHARDPLAN_ASSIGN_OR_RETURN(const auto count, reader.U32("tensor count"));
  // Each tensor takes at least 8 bytes (name length and ndim), which bounds a corrupt count.
  if (count > reader.left() / 8) {
    return reader.Error(absl::StrCat("truncated or corrupt: tensor count ", count,
                                     " needs more than the ", reader.left(), " bytes left"));
  }
  std::vector<WeightsTensor> tensors;
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    const std::string where = absl::StrCat("tensor #", i);
    SHARDPLAN_ASSIGN_OR_RETURN(const auto name_length,
                               reader.U32(absl::StrCat(where, " name length")));
    if (name_length == 0 || name_length > kMaxNameLength) {
      return reader.Error(absl::StrCat(where, ": name length ", name_length, " is invalid"));
    }
    SHARDPLAN_ASSIGN_OR_RETURN(const auto name,
                               reader.Bytes(name_length, absl::StrCat(where, " name")));
    WeightsTensor tensor;
    tensor.name = std::string(name);
    const std::string label = absl::StrCat("tensor '", tensor.name, "'");
    if (!names.insert(tensor.name).second) return reader.Error(absl::StrCat(label, " repeated"));
    SHARDPLAN_ASSIGN_OR_RETURN(const auto ndim, reader.U32(absl::StrCat(label, " ndim")));
    if (ndim > kMaxDims) {
      return reader.Error(absl::StrCat(label, ": ", ndim, " dimensions (at most ", kMaxDims, ")"));
    }
    for (uint32_t d = 0; d < ndim; ++d) {
      SHARDPLAN_ASSIGN_OR_RETURN(const uint32_t dim, reader.U32(absl::StrCat(label, " shape")));
      tensor.shape.push_back(dim);
    }
    // The data must fit in what is left; checked per factor so the product cannot overflow.
    const uint64_t max_values = reader.left() / 4;
    uint64_t values = 1;
    for (uint32_t dim : tensor.shape) {
      if (dim == 0) {
        values = 0;
        break;
      }
      if (values > max_values / dim) {
        return reader.Error(absl::StrCat("truncated or corrupt: ", label, " of shape [",
                                         absl::StrJoin(tensor.shape, ","), "] needs more than the ",
                                         reader.left(), " bytes left"));
      }
      values *= dim;
    }
    SHARDPLAN_ASSIGN_OR_RETURN(const auto data,
                               reader.Bytes(4 * values, absl::StrCat(label, " data")));
    tensor.data.resize(values);
    if (values > 0) std::memcpy(tensor.data.data(), data.data(), data.size());
    tensors.push_back(std::move(tensor));
  }
  if (reader.left() != 0) {
    return reader.Error(absl::StrCat(reader.left(), " trailing bytes after the last tensor"));
  }
  return tensors;
}

}  // namespace shardplan
