#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) in the sanitized build (clang-14, ASan + UBSan;
# scripts/configure_sanitized.sh) and runs each for a bounded time over the committed corpus.
# scripts/test_sanitized.sh already runs each for 20 s as a ctest; this is for longer runs and for
# growing the corpus. Exit status: 0 when no fuzzer found a crash, leak, hang or broken property;
# 1 otherwise (the crashing input is kept under build-san/artifacts/<target>/). docs/fuzzing.md.
#
# Usage: scripts/fuzz.sh [seconds per fuzzer, default 60] [target...]
# Environment: SHARDPLAN_SAN_BUILD_DIR (default build-san), SHARDPLAN_JOBS (build jobs,
# default nproc), SHARDPLAN_FUZZ_MERGE=1 merges what the runs found into the committed corpus
# (tests/fuzz/corpus/<target>/, minimised with -merge=1).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

SECONDS_PER_FUZZER=${1:-60}
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=(task_json_fuzzer request_validation_fuzzer); fi
if ! [[ "$SECONDS_PER_FUZZER" =~ ^[0-9]+$ ]] || [ "$SECONDS_PER_FUZZER" -lt 1 ]; then
  echo "fuzz: seconds must be a positive integer, got '$SECONDS_PER_FUZZER'" >&2
  exit 2
fi
BUILD_DIR=$(bash scripts/configure_sanitized.sh | tail -n 1)
JOBS=${SHARDPLAN_JOBS:-$(nproc)}
echo "fuzz: building ${TARGETS[*]} with -j$JOBS"
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${TARGETS[@]}"

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp:${LSAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"

failed=()
for target in "${TARGETS[@]}"; do
  binary="$BUILD_DIR/tests/fuzz/$target"
  committed="$ROOT/tests/fuzz/corpus/$target"
  work="$BUILD_DIR/fuzz-work/$target"
  artifacts="$BUILD_DIR/artifacts/$target"
  log="$BUILD_DIR/fuzz-work/$target.log"
  mkdir -p "$work" "$artifacts" "$committed"
  echo "fuzz: $target for ${SECONDS_PER_FUZZER}s over $(ls "$committed" | wc -l) committed inputs"
  # New inputs go to $work (libFuzzer writes to the first corpus directory only).
  status=0
  "$binary" -max_total_time="$SECONDS_PER_FUZZER" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -dict="$ROOT/tests/fuzz/$target.dict" \
    -artifact_prefix="$artifacts/" "$work" "$committed" >"$log" 2>&1 || status=$?
  grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)" "$log" | sed "s/^/fuzz: $target: /" || true
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log" |
    sed "s/^/fuzz: $target: /" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $target FAILED (exit $status); log $log, inputs in $artifacts/" >&2
    tail -n 40 "$log" >&2
    failed+=("$target")
    continue
  fi
  if [ "${SHARDPLAN_FUZZ_MERGE:-0}" = 1 ]; then
    before=$(ls "$committed" | wc -l)
    # -use_counters=0: keep inputs that reach new edges, not new hit counts of known ones, so
    # the committed corpus stays at a few hundred files.
    "$binary" -merge=1 -use_counters=0 "$committed" "$work" \
      >>"$log" 2>&1
    echo "fuzz: $target: merged into the committed corpus: $before -> $(ls "$committed" | wc -l) inputs"
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no crashes in ${TARGETS[*]}"
