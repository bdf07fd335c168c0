#!/usr/bin/env bash
# Collects the shipped sim cost datasets into data/cost_data/sim-<profile>/ (docs/cost-data.md):
# compute, comm_4 and comm_8, SAMPLES samples each, 2% log-normal measurement noise, seed 0, the
# shipped pool; then gzips them (-9 -n: byte-reproducible). Resumes a partial .jsonl.
#
#   scripts/collect_cost_data.sh [BUILD_DIR] [SAMPLES]     # defaults: build 100000
#
# The cpu dataset is collected by hand for a fixed time (data/cost_data/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
samples=${2:-100000}
offline="$build/client/cli/shardplan-offline"
[ -x "$offline" ] || { echo "collect_cost_data: build $offline first (cmake --build $build --target shardplan-offline)" >&2; exit 2; }

for profile in rtx2080ti h100-sxm; do
  dir=data/cost_data/sim-$profile
  mkdir -p "$dir"
  common=(--backend sim --profile "$profile" --samples "$samples" --seed 0 --noise-sigma 0.02)
  "$offline" data collect "${common[@]}" --kind compute --out "$dir/compute.jsonl"
  for devices in 4 8; do
    "$offline" data collect "${common[@]}" --kind comm --devices "$devices" --out "$dir/comm_$devices.jsonl"
  done
  for name in compute comm_4 comm_8; do
    gzip -9 -n -f "$dir/$name.jsonl"
  done
done
ls -l data/cost_data/sim-*/
