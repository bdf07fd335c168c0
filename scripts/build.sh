#!/usr/bin/env bash
# Installs dependencies, configures and builds shardplan into build/ (or $SHARDPLAN_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install_deps.sh
BUILD_DIR=${SHARDPLAN_BUILD_DIR:-build}
JOBS=${SHARDPLAN_JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${SHARDPLAN_BUILD_TYPE:-Release}" "$@"
cmake --build "$BUILD_DIR" -j "$JOBS"
