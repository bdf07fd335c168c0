#!/usr/bin/env bash
# Collects the cost data of every sharding type that the version-6 sim bundles train on
# (docs/cost-data.md, "Shards and collectives"), seed 0, 2% log-normal noise, gzipped -9 -n
# (byte-reproducible); resumes a partial .jsonl:
#   data/cost_data/sim-<profile>/shards_3424.jsonl.gz   50,000 devices' shards of every type,
#       tables of data/table_pool/train_3424.json (the version-5 compute data's pool);
#   data/cost_data/sim-<profile>/collective_layouts/collective_<N>x<L>.jsonl.gz   one collective
#       call per record on N devices in hosts of L (the comm layouts' 11), 16,000 / N records
#       (at least 500).
# and the version-7 data:
#   data/cost_data/sim-<profile>/shard_calls_4280.jsonl.gz   50,000 one-call devices (--one-call:
#       one sharding type and replica count per device), tables of data/table_pool/train_4280.json;
#   data/cost_data/sim-<profile>/shard_calls_4280_many.jsonl.gz   10,000 more of up to 48 shards
#       (seed 1), as a device holding a Criteo model's replicated tables;
#   data/cost_data/sim-<profile>/collective_layouts_spread/   the collective layouts again with
#       table-row-wise tables on hosts of their own draw (--spread-hosts).
#
#   scripts/collect_shard_cost_data.sh [BUILD_DIR]        # default build
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
offline="$build/client/cli/shardplan-offline"
[ -x "$offline" ] || { echo "collect_shard_cost_data: build $offline first" >&2; exit 2; }

LAYOUTS="2:2 4:4 8:8 4:2 8:4 16:4 16:8 32:4 32:8 64:8 128:8"
for profile in rtx2080ti h100-sxm; do
  data=data/cost_data/sim-$profile
  if [ ! -f "$data/shards_3424.jsonl.gz" ]; then
    "$offline" data collect --backend sim --profile "$profile" --kind shards --samples 50000 \
        --seed 0 --noise-sigma 0.02 --pool data/table_pool/train_3424.json \
        --out "$data/shards_3424.jsonl"
    gzip -9 -n -f "$data/shards_3424.jsonl"
  fi
  calls() {  # file seed extra-flags...
    local file=$1 seed=$2
    shift 2
    if [ ! -f "$data/$file.jsonl.gz" ]; then
      "$offline" data collect --backend sim --profile "$profile" --kind shards --one-call \
          --seed "$seed" --noise-sigma 0.02 --pool data/table_pool/train_4280.json \
          --out "$data/$file.jsonl" "$@"
      gzip -9 -n -f "$data/$file.jsonl"
    fi
  }
  calls shard_calls_4280 0 --samples 50000
  calls shard_calls_4280_many 1 --samples 10000 --max-tables 48
  for spread in "" _spread; do
    dir=$data/collective_layouts$spread
    mkdir -p "$dir"
    for layout in $LAYOUTS; do
      n=${layout%%:*}
      l=${layout##*:}
      name="collective_${n}x${l}"
      samples=$(( 16000 / n > 500 ? 16000 / n : 500 ))
      if [ ! -f "$dir/$name.jsonl.gz" ]; then
        "$offline" data collect --backend sim --profile "$profile" --kind collective \
            --devices "$n" --devices-per-host "$l" --samples "$samples" --seed 0 \
            --noise-sigma 0.02 --out "$dir/$name.jsonl" ${spread:+--spread-hosts}
        gzip -9 -n -f "$dir/$name.jsonl"
      fi
    done
  done
done
