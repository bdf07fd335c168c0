#!/usr/bin/env bash
# Held-out Table-1 suites (issue 16; docs/benchmarks.md, "Held-out suites"): NeuroShard against
# every baseline on tables the shipped models never saw. A table pool is drawn with a seed the
# shipped cost data never used (the shipped pool is seed 0), Table-1 tasks are drawn from it with
# task seed 1 (Table 1 uses 0), and each hardware profile's tasks are planned under its shipped
# bundle and scored on its own simulator. Resumable: reproduce_table1 keeps finished settings.
#
#   bench/heldout_suites.sh              # pool seed 1, 50 tasks per setting, 4 and 8 devices
#   POOL_SEED=2 TASKS=100 bench/heldout_suites.sh
#
# Environment: BUILD (default build), POOL_SEED (1), TASKS (50), MAX_DIMS (32,128),
# PROFILES (rtx2080ti h100-sxm), VERSION (the bundles' version, 3), MODELS_DIR (models), OUT
# (bench/results/heldout). Writes bench/results/heldout_pool_seed<S>.json and
# <OUT>_<profile>.{md,json}.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
POOL_SEED=${POOL_SEED:-1}
TASKS=${TASKS:-50}
MAX_DIMS=${MAX_DIMS:-32,128}
PROFILES=${PROFILES:-rtx2080ti h100-sxm}
VERSION=${VERSION:-3}
MODELS_DIR=${MODELS_DIR:-models}
OUT=${OUT:-bench/results/heldout}

pool=bench/results/heldout_pool_seed${POOL_SEED}.json
if [ ! -f "$pool" ]; then
  "$BUILD/client/cli/shardplan-offline" tables generate-pool --seed "$POOL_SEED" --out "$pool"
  rm -f "${pool%.json}.fit.json"  # the fit report is docs/table-pool.md's business, not this one's
fi
for profile in $PROFILES; do
  echo "heldout_suites: $profile" >&2
  "$BUILD/bench/reproduce_table1" --pool "$pool" --seed 1 --tasks "$TASKS" --devices 4,8 --search-only-row \
    --max-dims "$MAX_DIMS" --model "sim-${profile}@${VERSION}" --ground-truth "sim:${profile}" \
    --models-dir "$MODELS_DIR" --out "${OUT}_${profile}"
done
