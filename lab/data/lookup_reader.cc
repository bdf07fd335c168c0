#include "lab/data/lookup_reader.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "lab/data/table_profiler.h"

namespace shardplan {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the binary lookup format is read by reinterpreting little-endian bytes");

constexpr size_t kMagicSize = sizeof(kLookupBinaryMagic) - 1;
// Guards against allocating from a corrupt header.
constexpr uint64_t kMaxNameBytes = 1 << 16;
constexpr uint64_t kMaxEntries = uint64_t{1} << 36;

// Splits "keyword rest" at the first space.
std::pair<std::string_view, std::string_view> SplitKeyword(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return {line, {}};
  return {line.substr(0, space), line.substr(space + 1)};
}

}  // namespace

LookupReader::LookupReader(std::string path, bool binary)
    : path_(std::move(path)), binary_(binary), in_(path_, std::ios::binary) {}

absl::StatusOr<LookupReader> LookupReader::Open(const std::string& path) {
  std::ifstream probe(path, std::ios::binary);
  if (!probe) return absl::NotFoundError(absl::StrCat(path, ": cannot open lookup file"));
  char head[kMagicSize] = {};
  probe.read(head, kMagicSize);
  const bool binary = probe.gcount() == static_cast<std::streamsize>(kMagicSize) &&
                      std::memcmp(head, kLookupBinaryMagic, kMagicSize) == 0;
  probe.clear();
  probe.seekg(0, std::ios::end);
  LookupReader reader(path, binary);
  reader.file_bytes_ = static_cast<uint64_t>(probe.tellg());
  if (!reader.in_) return absl::NotFoundError(absl::StrCat(path, ": cannot open lookup file"));
  if (binary) {
    reader.in_.seekg(kMagicSize);
    if (!reader.in_.read(reinterpret_cast<char*>(&reader.binary_tables_), 8)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": header: truncated table count"));
    }
  }
  return reader;
}

absl::Status LookupReader::Error(const std::string& name, const std::string& field,
                                 const std::string& why) const {
  std::string where = absl::StrCat(path_, ": table ", table_index_);
  if (!name.empty()) absl::StrAppend(&where, " (\"", name, "\")");
  if (!binary_) absl::StrAppend(&where, " line ", line_number_);
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", field, ": ", why));
}

absl::StatusOr<std::optional<TableLookups>> LookupReader::Next() {
  absl::StatusOr<std::optional<TableLookups>> next = binary_ ? NextBinary() : NextText();
  if (next.ok() && next->has_value()) ++table_index_;
  return next;
}

absl::StatusOr<std::optional<TableLookups>> LookupReader::NextText() {
  std::string line;
  // Reads the next line that is neither blank nor a comment; false at the end of the file.
  auto next_line = [&]() {
    while (std::getline(in_, line)) {
      ++line_number_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      return true;
    }
    return false;
  };
  if (!next_line()) return std::optional<TableLookups>();
  TableLookups table;
  auto [keyword, rest] = SplitKeyword(line);
  if (keyword != "table" || rest.empty()) {
    return Error("", "table", "expected a line \"table NAME\"");
  }
  table.name = std::string(rest);
  for (const char* field : {"offsets", "indices"}) {
    if (!next_line()) return Error(table.name, field, "missing line (end of file)");
    auto [key, numbers] = SplitKeyword(line);
    if (key != field) {
      return Error(table.name, field,
                   absl::StrCat("expected a line starting with \"", field, "\", got \"",
                                std::string(key), "\""));
    }
    std::vector<int64_t>& out = std::strcmp(field, "offsets") == 0 ? table.offsets : table.indices;
    const char* p = numbers.data();
    const char* end = numbers.data() + numbers.size();
    while (true) {
      while (p < end && (*p == ' ' || *p == '\t')) ++p;
      if (p == end) break;
      int64_t value = 0;
      auto [next, ec] = std::from_chars(p, end, value);
      if (ec != std::errc() || (next < end && *next != ' ' && *next != '\t')) {
        const char* stop = p;
        while (stop < end && *stop != ' ' && *stop != '\t') ++stop;
        return Error(table.name, absl::StrCat(field, "[", out.size(), "]"),
                     absl::StrCat("not an integer: \"", std::string(p, stop - p), "\""));
      }
      out.push_back(value);
      p = next;
    }
  }
  return std::optional<TableLookups>(std::move(table));
}

absl::StatusOr<std::optional<TableLookups>> LookupReader::NextBinary() {
  if (static_cast<uint64_t>(table_index_) == binary_tables_) {
    if (in_.peek() != std::char_traits<char>::eof()) {
      return Error("", "(file)", "trailing bytes after the last announced table");
    }
    return std::optional<TableLookups>();
  }
  TableLookups table;
  auto read = [&](void* dst, uint64_t bytes, const std::string& field) -> absl::Status {
    if (!in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes))) {
      return Error(table.name, field, "truncated (end of file)");
    }
    return absl::OkStatus();
  };
  uint32_t name_bytes = 0;
  SHARDPLAN_RETURN_IF_ERROR(read(&name_bytes, 4, "name length"));
  if (name_bytes == 0 || name_bytes > kMaxNameBytes) {
    return Error("", "name length",
                 absl::StrCat(name_bytes, " is not in [1, ", kMaxNameBytes, "]"));
  }
  table.name.resize(name_bytes);
  SHARDPLAN_RETURN_IF_ERROR(read(table.name.data(), name_bytes, "name"));
  uint64_t batch = 0, count = 0;
  SHARDPLAN_RETURN_IF_ERROR(read(&batch, 8, "batch size"));
  SHARDPLAN_RETURN_IF_ERROR(read(&count, 8, "index count"));
  if (batch == 0 || batch > kMaxEntries) {
    return Error(table.name, "batch size", absl::StrCat(batch, " is not in [1, 2^36]"));
  }
  if (count > kMaxEntries) {
    return Error(table.name, "index count", absl::StrCat(count, " exceeds 2^36"));
  }
  // A corrupt count must give an error, not a huge allocation: check against the file first.
  const uint64_t needed = 8 * (batch + 1 + count);
  const uint64_t remaining = file_bytes_ - static_cast<uint64_t>(in_.tellg());
  if (needed > remaining) {
    return Error(table.name, "offsets/indices",
                 absl::StrCat("batch size ", batch, " and index count ", count, " need ", needed,
                              " bytes; the file has ", remaining, " left (truncated?)"));
  }
  table.offsets.resize(batch + 1);
  table.indices.resize(count);
  SHARDPLAN_RETURN_IF_ERROR(read(table.offsets.data(), 8 * (batch + 1), "offsets"));
  SHARDPLAN_RETURN_IF_ERROR(read(table.indices.data(), 8 * count, "indices"));
  return std::optional<TableLookups>(std::move(table));
}

absl::StatusOr<TablePool> ProfileLookupFile(const std::string& path) {
  SHARDPLAN_ASSIGN_OR_RETURN(LookupReader reader, LookupReader::Open(path));
  TablePool pool;
  pool.source = absl::StrCat("profiled from ", path);
  for (int64_t i = 0;; ++i) {
    SHARDPLAN_ASSIGN_OR_RETURN(std::optional<TableLookups> lookups, reader.Next());
    if (!lookups.has_value()) break;
    absl::StatusOr<Table> table = ProfileTable(lookups->name, lookups->offsets, lookups->indices);
    if (!table.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": table ", i, ": ", table.status().message()));
    }
    pool.tables.push_back(*std::move(table));
  }
  return pool;
}

}  // namespace shardplan
