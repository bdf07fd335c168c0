#ifndef SHARDPLAN_TESTS_UNIT_SUPPORT_SANITIZED_BUILD_H_
#define SHARDPLAN_TESTS_UNIT_SUPPORT_SANITIZED_BUILD_H_

// Whether this test binary is built with AddressSanitizer (scripts/test_sanitized.sh): clang
// reports it through __has_feature, gcc through __SANITIZE_ADDRESS__.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHARDPLAN_SANITIZED_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SHARDPLAN_SANITIZED_BUILD 1
#endif

namespace shardplan::testing {

#ifdef SHARDPLAN_SANITIZED_BUILD
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace shardplan::testing

// Skips a test that checks what long training converges to, not memory safety, in the sanitized
// build, where it runs 20-60x slower (AutoShard's toy run: 6.5 s release, 227 s sanitized). The
// trainer's code stays covered there by the same file's short tests (determinism, resume, rewards).
#define SHARDPLAN_SKIP_LONG_TRAINING_WHEN_SANITIZED()                                         \
  do {                                                                                       \
    if (::shardplan::testing::kSanitizedBuild) {                                              \
      GTEST_SKIP() << "convergence is checked in the release build; the sanitized build runs " \
                      "this trainer's short tests";                                           \
    }                                                                                        \
  } while (false)

#endif  // SHARDPLAN_TESTS_UNIT_SUPPORT_SANITIZED_BUILD_H_
