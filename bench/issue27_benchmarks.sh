#!/usr/bin/env bash
# Issue 27's benchmarks in one command (docs/benchmarks.md, "Criteo-shaped and DLRM-shaped
# suites"): the suites on ground truth, planning time in-process and through the server from 4 to
# 128 devices, and, given a checkout of the reference, its search timed beside shardplan's.
#
#   bench/issue27_benchmarks.sh                              # suites and server scale
#   REFERENCE=/tmp/neuroshard bench/issue27_benchmarks.sh    # and the reference's speed
#   QUICK=1 bench/issue27_benchmarks.sh                      # a smoke run, results under /tmp
#
# Environment: BUILD (default build), REFERENCE (a daochenzha/neuroshard checkout; needs
# python3-torch), REF_TASKS (10), QUICK (1: one task per suite, the smallest sizes, /tmp).
# Needs the targets criteo_suites, serving_overhead, shardplan-server, reproduce_table1 and
# shardplan-offline.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
if [ -n "${QUICK:-}" ]; then
  "$BUILD/bench/criteo_suites" --quick --fresh --out /tmp/issue27_criteo_suites
  "$BUILD/bench/serving_overhead" --sizes 60x4,120x8 --tasks 1 --rounds 1 --model sim-h100-sxm \
    --params threads=2 --out /tmp/issue27_serving_scale
  exit 0
fi
"$BUILD/bench/criteo_suites" --fresh
"$BUILD/bench/serving_overhead" --sizes 60x4,120x8,250x16,500x32,1000x64,1000x128 --tasks 3 \
  --rounds 2 --model sim-h100-sxm --params threads=2 --out bench/results/serving_scale
if [ -n "${REFERENCE:-}" ]; then
  /usr/bin/python3 scripts/time_reference_search.py --reference "$REFERENCE" --build "$BUILD" \
    --tasks "${REF_TASKS:-10}"
fi
