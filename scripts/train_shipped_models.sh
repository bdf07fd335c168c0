#!/usr/bin/env bash
# Trains the neural cost-model bundles shipped in models/ from the datasets in data/cost_data/
# and plots predicted vs measured cost (paper Figure 8, left) into docs/models/.
#
#   scripts/train_shipped_models.sh [BUILD_DIR] [NAME...]  (default build, every bundle; run
#                                                           scripts/build.sh first)
#   MODELS_ROOT=/tmp/models scripts/train_shipped_models.sh   (retrain elsewhere: the weights
#                                                              files' SHA-256 match the shipped)
#
# Resumable per bundle: versions are immutable, so a bundle already in models/ is skipped (delete
# its directory to retrain it). The same data and seed give the same weights bit for bit, for any
# thread count. The Table 2-style summaries go to <root>/<name>/training-<version>.txt as well as
# stdout; the test-split predictions to BUILD_DIR/predictions/<name>/ (for
# scripts/summarize_model_fit.py) and their plot to docs/models/<name>-<version>-scatter.png.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
CLI="$BUILD_DIR/client/cli/shardplan"
shift || true
ONLY=("$@")  # bundle names to train; none: all
ROOT=${MODELS_ROOT:-models}
# Version 2: the compute data of every bundle was collected again after the combination
# generator was corrected (data/cost_data/README.md). Version 1 stays loadable.
# Version 3 (the sim bundles only): compute data drawn from data/table_pool/dlrm_2568.json, the
# shipped pool and two more draws of its generator, so that it covers tiny hot tables
# (docs/investigations/tiny-hot-tables.md); the comm data is unchanged (so are the comm models,
# bit for bit), and the bundles record their training range. The cpu bundle stays at version 2.
# Version 4 (the sim bundles only): version 3's compute model (reused with --compute-from) and
# one pair of device-set comm models for any device count and host layout (bundle format 2),
# trained on data/cost_data/sim-<profile>/comm_layouts/ (scripts/collect_layout_comm_data.sh);
# no fixed-N comm models, so every device count gets the same, renumbering-equivariant model.
# Version 5 (the sim bundles only): compute data drawn from data/table_pool/train_3424.json
# (dlrm_2568 plus a log-uniform coverage draw: docs/table-pool.md, "Coverage pools") and trained
# on the relative loss (--compute-loss relative: docs/training.md); device-set comm models
# trained on the version-4 layouts plus the same layouts with per-sample max dims of 4..128
# (comm_<N>x<L>_alldims), which cover small tasks' per-device dim sums.
# Version 6 (the sim bundles only): a compute model on the served feature set (--compute-features
# served: docs/cost-models.md, "The served feature set"), trained on version 5's compute data and
# shards of every sharding type (shards_3424, scripts/collect_shard_cost_data.sh), and a collective
# model (--collective-data: collective_layouts/); version 5's device-set comm models (--comm-from).
# At most 150 epochs (--epochs 150; early stopping with the default patience may end it sooner):
# 150,000 compute samples took about 5-6 s an epoch with both profiles training in parallel on the 2
# shared cores they were trained on, and the version's training had a budget of about 20 minutes.
# Retrained after the h100-sxm rings were recalibrated (collective_layouts collected again), so
# that the bundles also record compute.access_shapes.
# Version 7 (the sim bundles only): the compute model costs a device as the sum of its fused
# kernel calls (--compute-calls kernel_call: docs/cost-models.md, "Per kernel call"), trained on
# version 5's compute data and one-call shards of every type (shard_calls_4280*, tables of
# data/table_pool/train_4280.json: train_3424 plus a wide draw up to 2e9 rows and pooling 5000);
# the collective model on collective_layouts plus collective_layouts_spread (table-row-wise
# tables on several hosts); version 5's comm models. EPOCHS_7 overrides the 150 epochs.
SEED=0
CHANGE_2="v2: compute data collected again with combination sizes uniform on 1..15, as the reference's compute_bench.py draws them (v1's generator redrew the size with every memory rejection, mean 5.1 tables instead of 8)"
CHANGE_4="v4: version 3's compute model; device-set comm models for any device count and host layout (trained on 2 to 128 devices in hosts of 2 to 8), equivariant to renumbering devices within a host"
CHANGE_5="v5: compute data from a pool with a log-uniform coverage draw (data/table_pool/train_3424.json), trained on each set's error relative to its cost; device-set comm models also trained on placements of every max dim (4 to 128)"
CHANGE_6="v6: a compute model on the served feature set (what each shard serves) trained on the version-5 compute data plus shards of every type, and a collective model of row-wise, table-row-wise and data-parallel shards' collectives: costs every sharding type; version 5's comm models, reused"
CHANGE_7="v7: compute costed per fused kernel call (one per sharding type and replica count, as TorchRec runs them) and trained on one-call devices of every type from a pool with wide tables (up to 2e9 rows, pooling up to 5000: data/table_pool/train_4280.json); collective model also trained on table-row-wise tables spread over several hosts; version 5's comm models"
CHANGE_3="v3: compute data drawn from the shipped pool plus two more draws of its generator (data/table_pool/dlrm_2568.json), covering tiny hot tables; records the range of its training data"

train() {  # version name description change args...
  local VERSION=$1 name=$2 description="$3. $4"
  shift 4
  if [[ ${#ONLY[@]} -gt 0 && ! " ${ONLY[*]} " =~ " $name " ]]; then return; fi
  if [[ -d "$ROOT/$name/$VERSION" ]]; then
    echo "== $name@$VERSION exists in $ROOT; skipping (delete $ROOT/$name/$VERSION to retrain)"
    return
  fi
  local predictions="$BUILD_DIR/predictions/$name"
  rm -rf "$predictions"
  mkdir -p "$predictions" "$ROOT/$name"
  echo "== training $name@$VERSION"
  "$CLI" model train --name "$name" --version "$VERSION" --seed "$SEED" --models-root "$ROOT" \
      --description "$description" --predictions-dir "$predictions" "$@" \
      | tee "$ROOT/$name/training-$VERSION.txt"
  mkdir -p docs/models
  /usr/bin/python3 scripts/plot_model_scatter.py "$predictions" \
      --out "docs/models/$name-$VERSION-scatter.png" --title "$name@$VERSION, test split"
}

for profile in rtx2080ti h100-sxm; do
  data="data/cost_data/sim-$profile"
  train 3 "sim-$profile" "NeuroShard cost models on the simulated $profile cluster (4 and 8 devices)" \
      "$CHANGE_3" --compute-data "$data/compute_2568.jsonl.gz" \
      --comm-data "$data/comm_4.jsonl.gz,$data/comm_8.jsonl.gz"
done
for profile in rtx2080ti h100-sxm; do
  # Version 4's data: the reference-draw files only (the _alldims files came with version 5).
  layouts=$(ls data/cost_data/sim-$profile/comm_layouts/comm_*.jsonl.gz | grep -v _alldims \
      | sort -V | paste -sd,)
  train 4 "sim-$profile" "NeuroShard cost models on the simulated $profile cluster (any device count)" \
      "$CHANGE_4" --compute-from "$ROOT/sim-$profile/3" --comm-any-data "$layouts"
done
for profile in rtx2080ti h100-sxm; do
  data="data/cost_data/sim-$profile"
  layouts=$(ls $data/comm_layouts/comm_*.jsonl.gz | sort -V | paste -sd,)
  train 5 "sim-$profile" "NeuroShard cost models on the simulated $profile cluster (any device count)" \
      "$CHANGE_5" --compute-data "$data/compute_3424.jsonl.gz" --compute-loss relative \
      --comm-any-data "$layouts"
done
for profile in rtx2080ti h100-sxm; do
  data="data/cost_data/sim-$profile"
  collectives=$(ls $data/collective_layouts/collective_*.jsonl.gz | sort -V | paste -sd,)
  train 6 "sim-$profile" "NeuroShard cost models on the simulated $profile cluster (every sharding type, any device count)" \
      "$CHANGE_6" --compute-data "$data/compute_3424.jsonl.gz,$data/shards_3424.jsonl.gz" \
      --compute-features served --compute-loss relative --comm-from "$ROOT/sim-$profile/5" \
      --collective-data "$collectives" --epochs 150
done
for profile in rtx2080ti h100-sxm; do
  data="data/cost_data/sim-$profile"
  collectives=$(ls $data/collective_layouts/collective_*.jsonl.gz \
      $data/collective_layouts_spread/collective_*.jsonl.gz | sort -V | paste -sd,)
  train 7 "sim-$profile" "NeuroShard cost models on the simulated $profile cluster (every sharding type, costed per kernel call, any device count)" \
      "$CHANGE_7" --compute-data "$data/compute_3424.jsonl.gz,$data/shard_calls_4280.jsonl.gz,$data/shard_calls_4280_many.jsonl.gz" \
      --compute-features served --compute-calls kernel_call --compute-loss relative \
      --comm-from "$ROOT/sim-$profile/5" --collective-data "$collectives" --epochs "${EPOCHS_7:-150}"
done
train 2 cpu-amd-epyc "NeuroShard compute model measured on this project's CPU kernel; no interconnect" \
    "$CHANGE_2" --compute-data data/cost_data/cpu-amd-epyc/compute.jsonl.gz --zero-comm
