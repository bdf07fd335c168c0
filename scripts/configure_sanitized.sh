#!/usr/bin/env bash
# Configures the sanitized build that both scripts/test_sanitized.sh (the whole test suite) and
# scripts/fuzz.sh (the libFuzzer targets) use: clang-14, ASan + UBSan (+ LeakSanitizer) and
# libFuzzer coverage on every target, -O1, in $SHARDPLAN_SAN_BUILD_DIR (default build-san). One
# build serves both, so CI compiles the tree twice (release and sanitized), not three times.
#
# Environment: SHARDPLAN_SAN_BUILD_DIR, SHARDPLAN_FUZZ_SECONDS (each fuzzer's ctest run, default
# 20). Prints the build dir on the last line of stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${SHARDPLAN_SAN_BUILD_DIR:-build-san}
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

bash scripts/install_deps.sh >&2
echo "configure_sanitized: $BUILD_DIR (clang-14, -fsanitize=fuzzer-no-link,address,undefined)" >&2
# -O1 keeps the suite's run time reasonable; -g1 gives file:line in reports at little cost.
# SHARDPLAN_FUZZ=ON instruments every target (top-level CMakeLists.txt) and adds the fuzzers.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD_DIR" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DSHARDPLAN_FUZZ=ON -DSHARDPLAN_FUZZ_SECONDS="${SHARDPLAN_FUZZ_SECONDS:-20}" \
  -DSHARDPLAN_BUILD_TESTS=ON -DSHARDPLAN_BUILD_BENCH=OFF -DSHARDPLAN_BUILD_EXTRA_TOOLS=OFF \
  "${launcher[@]}" >&2
echo "$BUILD_DIR"
