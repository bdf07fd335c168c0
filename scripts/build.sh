#!/usr/bin/env bash
# Installs dependencies, configures and builds shardplan into build/ (or $SHARDPLAN_BUILD_DIR):
# everything, or only the targets in $SHARDPLAN_TARGETS (space-separated; scripts/run.sh builds
# the server and the CLI only).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install_deps.sh
BUILD_DIR=${SHARDPLAN_BUILD_DIR:-build}
JOBS=${SHARDPLAN_JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${SHARDPLAN_BUILD_TYPE:-Release}" "$@"
if [ -n "${SHARDPLAN_TARGETS:-}" ]; then
  # shellcheck disable=SC2086  # the targets are words
  cmake --build "$BUILD_DIR" -j "$JOBS" --target $SHARDPLAN_TARGETS
else
  cmake --build "$BUILD_DIR" -j "$JOBS"
fi
