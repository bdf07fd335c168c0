#!/usr/bin/env bash
# Builds shardplan with AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer (clang-14,
# -O1; scripts/configure_sanitized.sh) and runs the whole ctest suite: unit and integration tests
# (which start the sanitized server), deploy checks, and each libFuzzer target for
# SHARDPLAN_FUZZ_SECONDS (default 20) over its committed corpus. scripts/test.sh runs this after
# the release suite; CI runs both. Exit status: 0 when every test passes, else non-zero.
# docs/fuzzing.md.
#
# Environment: SHARDPLAN_SAN_BUILD_DIR (default build-san), SHARDPLAN_JOBS (build jobs, default
# nproc), SHARDPLAN_TEST_JOBS (ctest jobs, default 2). Extra arguments go to ctest (-R planner).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

BUILD_DIR=$(bash scripts/configure_sanitized.sh | tail -n 1)
JOBS=${SHARDPLAN_JOBS:-$(nproc)}
echo "test_sanitized: building $BUILD_DIR with -j$JOBS"
build_start=$(date +%s)
cmake --build "$BUILD_DIR" -j "$JOBS"
echo "test_sanitized: build took $(($(date +%s) - build_start)) s"

# halt_on_error: the first report fails the process. detect_leaks: LeakSanitizer on, with
# suppressions only for leaks inside Debian's uninstrumented gRPC/protobuf (see the file).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$ROOT/tests/sanitizers/ubsan.supp:${UBSAN_OPTIONS:-}"

echo "test_sanitized: running ctest"
test_start=$(date +%s)
status=0
# Sanitized code runs 2-5x slower; the per-test timeout is raised to match.
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 900 \
  -j "${SHARDPLAN_TEST_JOBS:-2}" "$@" || status=$?
echo "test_sanitized: tests took $(($(date +%s) - test_start)) s"
if [ "$status" -ne 0 ]; then
  echo "test_sanitized: FAILED (ctest exit $status)" >&2
else
  echo "test_sanitized: all tests passed"
fi
exit "$status"
