#!/usr/bin/env bash
# Collects the comm cost data of many device counts and host layouts that the device-set comm
# models train on (docs/cost-models.md, "Comm models for any device count") into
# data/cost_data/sim-<profile>/comm_layouts/comm_<N>x<L>.jsonl.gz: N devices in hosts of L,
# about 32,000 device rows per layout (32000 / N samples, at least 250), 2% log-normal noise,
# seed 0, the shipped pool; gzipped -9 -n (byte-reproducible). Resumes a partial .jsonl.
# And comm_<N>x<L>_alldims.jsonl.gz: as many samples whose max dim is drawn per sample from
# 4..128 (`--max-dims`; seed 2), so that the models also know the small per-device dim sums of
# tasks with a small max dim: the reference's draws (every dim from 4..128) never make them.
#
#   scripts/collect_layout_comm_data.sh [BUILD_DIR]        # default build
#
# Held-out layouts (24x8, 48x8, 96x8, 12x4) are never collected here: bench/comm_layouts.sh
# draws them with another seed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
offline="$build/client/cli/shardplan-offline"
[ -x "$offline" ] || { echo "collect_layout_comm_data: build $offline first" >&2; exit 2; }

# N:L pairs: one host of 2, 4, 8; small multi-host (4 in hosts of 2, 8 in hosts of 4); hosts of 4
# and 8 up to 128 devices.
LAYOUTS="2:2 4:4 8:8 4:2 8:4 16:4 16:8 32:4 32:8 64:8 128:8"
for profile in rtx2080ti h100-sxm; do
  dir=data/cost_data/sim-$profile/comm_layouts
  mkdir -p "$dir"
  for layout in $LAYOUTS; do
    n=${layout%%:*}
    l=${layout##*:}
    name="comm_${n}x${l}"
    samples=$(( 32000 / n > 250 ? 32000 / n : 250 ))
    if [ ! -f "$dir/$name.jsonl.gz" ]; then
      "$offline" data collect --backend sim --profile "$profile" --kind comm --devices "$n" \
          --devices-per-host "$l" --samples "$samples" --seed 0 --noise-sigma 0.02 \
          --out "$dir/$name.jsonl"
      gzip -9 -n -f "$dir/$name.jsonl"
    fi
    if [ ! -f "$dir/${name}_alldims.jsonl.gz" ]; then
      "$offline" data collect --backend sim --profile "$profile" --kind comm --devices "$n" \
          --devices-per-host "$l" --samples "$samples" --seed 2 --noise-sigma 0.02 \
          --max-dims 4,8,16,32,64,128 --out "$dir/${name}_alldims.jsonl"
      gzip -9 -n -f "$dir/${name}_alldims.jsonl"
    fi
  done
done
ls -l data/cost_data/sim-*/comm_layouts/
