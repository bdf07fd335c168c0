#!/usr/bin/env bash
# The README's test command, which CI runs: installs, builds and runs every test (unit,
# integration, deploy checks) in the release build, then builds the tree again with clang-14 and
# ASan + UBSan + LeakSanitizer and runs the whole suite once more there, including each libFuzzer
# target for 20 s over its committed corpus (scripts/test_sanitized.sh). Exit status: non-zero
# when any part fails.
#
# SHARDPLAN_SANITIZED=0 skips the sanitized half; SHARDPLAN_FUZZ_SECONDS sets the fuzzers' time.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
bash scripts/build.sh
BUILD_DIR=${SHARDPLAN_BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 300 -j "${SHARDPLAN_TEST_JOBS:-2}"
echo "test: release suite passed after $(($(date +%s) - start)) s"

if [ "${SHARDPLAN_SANITIZED:-1}" != 0 ]; then
  bash scripts/test_sanitized.sh
  echo "test: sanitized suite and fuzzers passed after $(($(date +%s) - start)) s"
fi
