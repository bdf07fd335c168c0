#!/usr/bin/env bash
# Held-out error of the sim bundles (version $VERSION, default 7) per sharding type and per collective
# (docs/cost-models.md, "Held-out errors by sharding type"), against the simulator:
#  - compute: devices' shard sets (the shards generator: 1..15 tables, 4 GB) drawn from table pools
#    no cost data used (the pool generator with seeds 1 and 7, as bench/single_table_error.sh),
#    every shard of one type per file (--sharding-type), 2,000 devices per type and pool;
#    TABLE_WISE stands for COLUMN_WISE too: a column shard is costed as a table of its columns by
#    the served features and by the simulator alike;
#  - collectives: fresh calls (seed 1, never trained on) on the 11 trained layouts and on 4 held
#    out (12x4, 24x8, 48x8, 96x8), 500 calls each;
# then `shardplan model check` on each (median / p95 / max relative error of the device's ms, or
# of each call member's ms).
#
#   bench/learned_type_errors.sh      # about 2 min on this 2-core machine
#
# Environment: BUILD (build), MODELS_DIR (models), WORK (build/learned_type_errors: the data,
# kept), VERSION (7), OUT (bench/results/learned_type_errors_v$VERSION.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MODELS_DIR=${MODELS_DIR:-models}
WORK=${WORK:-build/learned_type_errors}
VERSION=${VERSION:-7}
OUT=${OUT:-bench/results/learned_type_errors_v$VERSION.txt}
offline="$BUILD/client/cli/shardplan-offline"
mkdir -p "$WORK"
{
for seed in 1 7; do
  [ -s "$WORK/pool_s$seed.json" ] ||
      "$offline" tables generate-pool --seed "$seed" --out "$WORK/pool_s$seed.json" >/dev/null
done
for profile in ${PROFILES:-rtx2080ti h100-sxm}; do
  echo "## sim-$profile@$VERSION"
  for seed in 1 7; do
    for type in TABLE_WISE ROW_WISE TABLE_ROW_WISE DATA_PARALLEL; do
      file="$WORK/${profile}_s${seed}_$type.jsonl"
      "$offline" data collect --backend sim --profile "$profile" --kind shards \
          --sharding-type "$type" --samples 2000 --seed "$seed" --noise-sigma 0.02 \
          --pool "$WORK/pool_s$seed.json" --out "$file" >/dev/null 2>&1
      echo "### pool seed $seed, $type"
      "$offline" model check --model "sim-$profile@$VERSION" --models-root "$MODELS_DIR" \
          --compute-data "$file" | sed -n '2,3p' || true
    done
  done
  files=()
  for layout in 2:2 4:4 8:8 4:2 8:4 16:4 16:8 32:4 32:8 64:8 128:8 12:4 24:8 48:8 96:8; do
    n=${layout%%:*}
    l=${layout##*:}
    file="$WORK/${profile}_collective_${n}x${l}.jsonl"
    "$offline" data collect --backend sim --profile "$profile" --kind collective --devices "$n" \
        --devices-per-host "$l" --samples 500 --seed 1 --noise-sigma 0.02 --out "$file" \
        >/dev/null 2>&1
    files+=("$file")
  done
  echo "### collectives, seed 1, 15 layouts (4 held out)"
  "$offline" model check --model "sim-$profile@$VERSION" --models-root "$MODELS_DIR" \
      --collective-data "$(IFS=,; echo "${files[*]}")" | sed -n '2,6p' || true
done
} | tee "$OUT"
