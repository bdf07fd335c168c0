#!/usr/bin/env bash
# Trains the AutoShard policies shipped in models/ (autoshard-sim-rtx2080ti@1 and
# autoshard-sim-h100-sxm@1) on the simulator and plots their training curves into
# docs/autoshard-training.png (docs/autoshard.md).
#
#   scripts/train_autoshard_policies.sh [BUILD_DIR]   (default build; run scripts/build.sh first)
#   MODELS_ROOT=/tmp/models scripts/train_autoshard_policies.sh   (retrain elsewhere: the same
#                                                                  weights bit for bit)
#
# Versions are immutable: a policy already under the models root is skipped (delete its directory
# to retrain it). Checkpoints go to BUILD_DIR/autoshard/ (rerun after an interruption: the
# command resumes them); the curves to docs/autoshard-training-<profile>.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
OFFLINE="$BUILD_DIR/client/cli/shardplan-offline"
ROOT=${MODELS_ROOT:-models}
mkdir -p "$BUILD_DIR/autoshard"
curves=()
for profile in rtx2080ti h100-sxm; do
  name="autoshard-sim-$profile"
  checkpoint="$BUILD_DIR/autoshard/$name-1.checkpoint"
  if [[ -d "$ROOT/$name/1" ]]; then
    echo "$ROOT/$name/1 exists: skipped"
  else
    resume=()
    [[ -f "$checkpoint" ]] && resume=(--resume)
    # The defaults are the shipped setting: 96 tasks (4 and 8 devices of 4 GiB, max dims 4..128,
    # task seed 1000, disjoint from the benchmarks' seed 0), 100,000 steps, seed 0.
    "$OFFLINE" policy train-autoshard --profile "$profile" --models-dir "$ROOT" \
      --checkpoint "$checkpoint" "${resume[@]}"
    cp "$checkpoint.curve.csv" "docs/autoshard-training-$profile.csv"
  fi
  curves+=("$profile=docs/autoshard-training-$profile.csv")
done
/usr/bin/python3 scripts/plot_autoshard_training.py "${curves[@]}" --out docs/autoshard-training.png
