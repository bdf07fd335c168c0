#!/usr/bin/env bash
# Builds shardplan with AddressSanitizer + UndefinedBehaviorSanitizer (gcc, -O1) into its own
# build dir and runs the whole ctest suite, unit and integration (the integration tests start the
# sanitized server). Exit status: 0 when every test passes, else non-zero. docs/fuzzing.md.
#
# Environment: SHARDPLAN_ASAN_BUILD_DIR (default build-asan), SHARDPLAN_JOBS (build jobs, default
# nproc), SHARDPLAN_TEST_JOBS (ctest jobs, default 2), SHARDPLAN_SANITIZE (default
# address,undefined). Extra arguments go to ctest (e.g. -R planner).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

BUILD_DIR=${SHARDPLAN_ASAN_BUILD_DIR:-build-asan}
JOBS=${SHARDPLAN_JOBS:-$(nproc)}
SANITIZE=${SHARDPLAN_SANITIZE:-address,undefined}
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

bash scripts/install_deps.sh
echo "test_sanitized: configuring $BUILD_DIR (-fsanitize=$SANITIZE)"
# -O1 keeps the suite's run time reasonable; -g1 gives file:line in reports at little cost.
CC=${CC:-gcc} CXX=${CXX:-g++} cmake -S . -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DSHARDPLAN_SANITIZE="$SANITIZE" -DSHARDPLAN_BUILD_BENCH=OFF \
  -DSHARDPLAN_BUILD_EXTRA_TOOLS=OFF "${launcher[@]}"

echo "test_sanitized: building with -j$JOBS"
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
