#!/usr/bin/env bash
# Regenerates docs/observations/: the datasets of the NeuroShard paper's three observations on
# each backend (shardplan data observations) and their plots (scripts/plot_observations.py).
#
#   scripts/make_observation_plots.sh [BUILD_DIR]     # default: build
#
# Needs the shardplan-offline target built in BUILD_DIR and python3-matplotlib. The sim runs take
# seconds; the cpu one measures for real (a few minutes on 2 cores; docs/cost-data.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
offline="$build/client/cli/shardplan-offline"
[ -x "$offline" ] || { echo "make_observation_plots: build $offline first (cmake --build $build --target shardplan-offline)" >&2; exit 2; }

for profile in rtx2080ti h100-sxm; do
  out=docs/observations/sim-$profile
  "$offline" data observations --backend sim --profile "$profile" --out "$out"
  /usr/bin/python3 scripts/plot_observations.py "$out"
done
# Fewer combinations on cpu: each is 11 real measurements (every table alone and the set).
"$offline" data observations --backend cpu --combinations 25 --out docs/observations/cpu
/usr/bin/python3 scripts/plot_observations.py docs/observations/cpu
