#!/usr/bin/env bash
# The README's run command: installs, builds, starts shardplan-server on its embedded defaults
# (the shipped bundles under models/, the plan store shardplan-plans.db), plans an example task
# with the CLI (no algorithm or model named: NeuroShard under the newest model that covers the
# task), prints the plan and stops the server. TASK=path/to/task.json to plan another task;
# extra args go to the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."

# The main job needs the server and the CLI only, not every test and benchmark.
SHARDPLAN_TARGETS="${SHARDPLAN_TARGETS:-shardplan-server shardplan}" bash scripts/build.sh
BUILD_DIR=${SHARDPLAN_BUILD_DIR:-build}
TASK=${TASK:-examples/task_4dev.json}

work=$(mktemp -d)
"$BUILD_DIR/server/shardplan-server" --address 127.0.0.1:0 --metrics_address 127.0.0.1:0 \
  --port_file "$work/ports.json" 2>"$work/server.log" &
server_pid=$!
cleanup() {
  kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
  [ -s "$work/ports.json" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log" >&2; exit 1; fi
  sleep 0.1
done
port=$(sed -n 's/.*"grpc_port": *\([0-9]*\).*/\1/p' "$work/ports.json")
echo "shardplan-server is listening on 127.0.0.1:$port; planning $TASK"
echo
"$BUILD_DIR/client/cli/shardplan" --server "127.0.0.1:$port" plan "$TASK" "$@"
