#!/usr/bin/env bash
# The device-set comm models on layouts and draws they never saw (docs/benchmarks.md, "Comm
# models on any device count"): fresh comm data is collected with seed 1 (the training data used
# seed 0) on the trained layouts and on held-out ones (24x8, 48x8, 96x8: device counts between
# the trained ones; 12x4 and 128x4: host counts it never saw), and `model check` scores the
# bundle on every file. The version-3 bundles' fixed-N models are scored beside on 4 and 8
# devices (one host, their training layout). Resumable: collected files are kept in DATA.
#
#   bench/comm_layouts.sh
#
# Environment: BUILD (build), PROFILES (rtx2080ti h100-sxm), VERSION (4), SAMPLES_ROWS (8000:
# device rows per file, at least 100 samples), DATA (build/comm_layouts_heldout), OUT
# (bench/results/comm_layouts), MAX_DIMS (empty: the reference's draws; e.g. 4,8,16,32,64,128:
# each sample's max dim drawn from the list, `data collect --max-dims`, into files named
# comm_<N>x<L>_maxdims.jsonl). Writes <OUT>_<profile>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PROFILES=${PROFILES:-rtx2080ti h100-sxm}
VERSION=${VERSION:-4}
ROWS=${SAMPLES_ROWS:-8000}
DATA=${DATA:-build/comm_layouts_heldout}
OUT=${OUT:-bench/results/comm_layouts}
MAX_DIMS=${MAX_DIMS:-}
suffix=""
dims_flag=()
if [ -n "$MAX_DIMS" ]; then
  suffix="_maxdims"
  dims_flag=(--max-dims "$MAX_DIMS")
fi
offline="$BUILD/client/cli/shardplan-offline"

TRAINED="2:2 4:4 8:8 4:2 8:4 16:4 16:8 32:4 32:8 64:8 128:8"
HELD_OUT="24:8 48:8 96:8 12:4 128:4"
for profile in $PROFILES; do
  dir="$DATA/sim-$profile"
  mkdir -p "$dir"
  files=()
  for layout in $TRAINED $HELD_OUT; do
    n=${layout%%:*}
    l=${layout##*:}
    samples=$(( ROWS / n > 100 ? ROWS / n : 100 ))
    file="$dir/comm_${n}x${l}${suffix}.jsonl"
    "$offline" data collect --backend sim --profile "$profile" --kind comm --devices "$n" \
        --devices-per-host "$l" --samples "$samples" --seed 1 --noise-sigma 0.02 --out "$file" \
        ${dims_flag[@]+"${dims_flag[@]}"} >/dev/null
    files+=("$file")
  done
  {
    echo "# sim-$profile@$VERSION on fresh comm data (seed 1${MAX_DIMS:+, max dims $MAX_DIMS}); held out: ${HELD_OUT}"
    echo
    # model check exits 13 when a sub-model drifted (MSE > 2x its test MSE): reported, not fatal.
    "$offline" model check --model "sim-$profile@$VERSION" \
        --comm-data "$(IFS=,; echo "${files[*]}")" || [ $? -eq 13 ]
    echo
    echo "# sim-$profile@3 (fixed-N comm models) on the same 4- and 8-device files"
    echo
    "$offline" model check --model "sim-$profile@3" \
        --comm-data "$dir/comm_4x4${suffix}.jsonl,$dir/comm_8x8${suffix}.jsonl" || [ $? -eq 13 ]
  } | tee "${OUT}_${profile}.txt"
done
