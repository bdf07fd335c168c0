#!/usr/bin/env bash
# Single-table error on held-out pools (issue 16's target: no table off by more than 50%, 95th
# percentile under 20%). Every table of each pool, alone on a device, at dims 4 to 128, is costed
# by each model through a private server (`shardplan evaluate`) and on the simulator
# (scripts/investigations/single_table_sweep.py), and the relative errors are summarised
# (scripts/investigations/summarize_single_table_sweep.py). Pools are drawn with seeds no cost
# data used: 1 and 2 (the development pools that choices were made on) and 7 (the report pool).
#
#   bench/single_table_error.sh      # about 1 min per pool and model pair on this 2-core machine
#
# Environment: BUILD (build), SEEDS (1 2 7), MODELS (rtx@4=sim-rtx2080ti@4,rtx@5=...,h100@...),
# MODELS_DIR (models), PORT (50993), OUT (bench/results/single_table), SWEEPS
# (build/single_table_sweeps). Writes <OUT>.md; the sweeps go to SWEEPS/single_table_s<seed>.jsonl
# (2 MB each; kept: a rerun reuses them, so delete them after changing MODELS).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SEEDS=${SEEDS:-1 2 7}
MODELS=${MODELS:-rtx@4=sim-rtx2080ti@4,rtx@5=sim-rtx2080ti@5,h100@4=sim-h100-sxm@4,h100@5=sim-h100-sxm@5}
MODELS_DIR=${MODELS_DIR:-models}
PORT=${PORT:-50993}
OUT=${OUT:-bench/results/single_table}
SWEEPS=${SWEEPS:-build/single_table_sweeps}
mkdir -p "$SWEEPS"
work=$(mktemp -d)
"$BUILD/server/shardplan-server" --address "127.0.0.1:$PORT" --metrics_address "" \
    --store "sqlite:$work/plans.db" --model_reload_interval_s 0 --models_dir "$MODELS_DIR" \
    >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  grep -q "serving on" "$work/server.log" && break
  sleep 0.1
done
grep -q "serving on" "$work/server.log" || { cat "$work/server.log" >&2; exit 1; }
files=()
for seed in $SEEDS; do
  sweep="$SWEEPS/single_table_s${seed}.jsonl"
  if [ ! -s "$sweep" ]; then
    "$BUILD/client/cli/shardplan-offline" tables generate-pool --seed "$seed" \
        --out "$work/pool_s$seed.json" >/dev/null
    echo "single_table_error: pool seed $seed" >&2
    /usr/bin/python3 scripts/investigations/single_table_sweep.py "$work/pool_s$seed.json" \
        "s$seed" 4,8,16,32,64,128 --models "$MODELS" --cli "$BUILD/client/cli/shardplan" \
        --server "127.0.0.1:$PORT" --out "$sweep.tmp"
    mv "$sweep.tmp" "$sweep"
  fi
  files+=("$sweep")
done
{
  echo "# Single-table error on held-out pools"
  echo
  echo "Every table of each pool alone on a device at dims 4..128 (pool seeds: $SEEDS), predicted"
  echo "compute against the simulator's; error = (predicted - truth) / truth."
  echo
  for f in "${files[@]}"; do
    echo "## $(basename "$f" .jsonl)"
    echo
    /usr/bin/python3 scripts/investigations/summarize_single_table_sweep.py "$f"
    echo
  done
  echo "## all pools"
  echo
  /usr/bin/python3 scripts/investigations/summarize_single_table_sweep.py "${files[@]}"
} | tee "$OUT.md"
