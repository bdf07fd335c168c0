#!/usr/bin/env bash
# The README's test command: installs, builds and runs every test (unit and integration).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/build.sh
BUILD_DIR=${SHARDPLAN_BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 300 -j "${SHARDPLAN_TEST_JOBS:-2}"
