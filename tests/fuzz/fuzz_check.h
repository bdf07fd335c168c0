#ifndef SHARDPLAN_TESTS_FUZZ_FUZZ_CHECK_H_
#define SHARDPLAN_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstddef>
#include <initializer_list>
#include <string_view>

#include "absl/status/status.h"

namespace shardplan::fuzz {

// Inputs above this size are skipped: the properties do not need them and they
// only slow the search (the server's own bound on messages is larger, but every
// check here is linear).
inline constexpr size_t kMaxInputBytes = 64 * 1024;

// Prints `what` and `detail` and aborts, which libFuzzer reports as a crash
// with the input.
[[noreturn]] void Fail(std::string_view what, std::string_view detail);

// Fails unless `status` is an error with a non-empty message and one of
// `codes`.
void CheckError(const absl::Status &status, std::string_view stage,
                std::initializer_list<absl::StatusCode> codes);

}  // namespace shardplan::fuzz

#endif  // SHARDPLAN_TESTS_FUZZ_FUZZ_CHECK_H_
