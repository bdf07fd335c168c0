#ifndef SHARDPLAN_LAB_RL_CHECKPOINT_BYTES_H_
#define SHARDPLAN_LAB_RL_CHECKPOINT_BYTES_H_

// The byte codec of the RL trainers' checkpoints (AutoShard's, DreamShard's): raw values, and
// vectors and strings behind a uint64 length. A checkpoint is read back by the build that wrote
// it, on the same machine, so the bytes are the host's own (no byte order, no versioned schema:
// each trainer's magic line says what follows).

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace shardplan {

class CheckpointWriter {
 public:
  template <typename T>
  void Pod(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  template <typename T>
  void Vector(const std::vector<T>& values) {
    Pod<uint64_t>(values.size());
    bytes_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  void String(const std::string& text) {
    Pod<uint64_t>(text.size());
    bytes_.append(text);
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

// Every read checks the bytes left first, so a truncated or corrupt checkpoint reads false,
// never past the end or into a huge allocation.
class CheckpointReader {
 public:
  explicit CheckpointReader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  bool Pod(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool Vector(std::vector<T>& values) {
    uint64_t size = 0;
    if (!Pod(size) || size > (bytes_.size() - at_) / sizeof(T)) return false;
    values.resize(size);
    std::memcpy(values.data(), bytes_.data() + at_, size * sizeof(T));
    at_ += size * sizeof(T);
    return true;
  }
  bool String(std::string& text) {
    uint64_t size = 0;
    if (!Pod(size) || size > bytes_.size() - at_) return false;
    text.assign(bytes_.substr(at_, size));
    at_ += size;
    return true;
  }
  bool AtEnd() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

}  // namespace shardplan

#endif  // SHARDPLAN_LAB_RL_CHECKPOINT_BYTES_H_
