#include "lab/training/gzip_lines.h"

#include <zlib.h>

#include <vector>

#include "absl/strings/str_cat.h"

namespace shardplan::training {
namespace {

// Closes the gzFile on every return path.
struct GzCloser {
  gzFile file;
  ~GzCloser() {
    if (file != nullptr) gzclose(file);
  }
};

}  // namespace

absl::Status ForEachLine(const std::string& path,
                         const std::function<absl::Status(int64_t, const std::string&)>& on_line) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  GzCloser closer{file};
  gzbuffer(file, 1 << 18);
  std::vector<char> buffer(1 << 20);
  std::string line;
  int64_t line_number = 0;
  while (true) {
    const int got = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(file, &code);
      return absl::DataLossError(absl::StrCat(path, ": cannot decompress after line ",
                                              line_number, ": ", message));
    }
    if (got == 0) break;
    const char* begin = buffer.data();
    const char* end = begin + got;
    for (const char* p = begin; p < end; ++p) {
      if (*p != '\n') continue;
      line.append(begin, p);
      begin = p + 1;
      if (absl::Status status = on_line(++line_number, line); !status.ok()) return status;
      line.clear();
    }
    line.append(begin, end);
  }
  // zlib reports a truncated stream only at the end, as Z_BUF_ERROR.
  int code = Z_OK;
  const char* message = gzerror(file, &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    return absl::DataLossError(absl::StrCat(path, ": corrupt or truncated gzip after line ",
                                            line_number, ": ", message));
  }
  if (!line.empty()) return on_line(++line_number, line);
  return absl::OkStatus();
}

}  // namespace shardplan::training
