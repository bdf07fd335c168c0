#!/usr/bin/env bash
# The README's test command: installs, builds and runs every test (unit, integration, deploy
# checks), then each libFuzzer target for a bounded time over its committed corpus (clang-14,
# ASan + UBSan). CI runs this.
#
# SHARDPLAN_FUZZ_SECONDS=0 skips the fuzzers (default 20 s each). SHARDPLAN_SANITIZED=1 also runs
# the whole suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (scripts/test_sanitized.sh: a second full build, about 14 min on 2 cores; not yet in CI, see
# docs/fuzzing.md). Exit status: non-zero when any part fails.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
bash scripts/build.sh
BUILD_DIR=${SHARDPLAN_BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 300 -j "${SHARDPLAN_TEST_JOBS:-2}"
echo "test: release suite passed after $(($(date +%s) - start)) s"

if [ "${SHARDPLAN_SANITIZED:-0}" != 0 ]; then
  bash scripts/test_sanitized.sh
  echo "test: sanitized suite passed after $(($(date +%s) - start)) s"
fi
fuzz_seconds=${SHARDPLAN_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" != 0 ]; then
  bash scripts/fuzz.sh "$fuzz_seconds"
  echo "test: fuzzers passed after $(($(date +%s) - start)) s"
fi
