#!/usr/bin/env bash
# Generates the Python client's API stubs (client/python/shardplan/v1/*_pb2{,_grpc}.py and the
# *_pb2.pyi type stubs) from proto/shardplan/v1/*.proto with protoc and grpc_python_plugin, the
# tools of Debian's protobuf-compiler and protobuf-compiler-grpc. The stubs are committed so that
# `pip install client/python` needs no protoc; rerun this after changing a .proto.
#
#   scripts/generate_python_stubs.sh           # rewrite the committed stubs
#   scripts/generate_python_stubs.sh --check   # exit 1 if they differ from what proto/ generates
#
# $PROTOC and $GRPC_PYTHON_PLUGIN override the tools found on PATH.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROTOC="${PROTOC:-$(command -v protoc || true)}"
PLUGIN="${GRPC_PYTHON_PLUGIN:-$(command -v grpc_python_plugin || true)}"
STUBS="client/python/shardplan/v1"
PROTOS=(shardplan/v1/planner.proto shardplan/v1/admin.proto)
GENERATED=(planner_pb2.py planner_pb2.pyi planner_pb2_grpc.py
           admin_pb2.py admin_pb2.pyi admin_pb2_grpc.py)

if [ -z "$PROTOC" ] || [ -z "$PLUGIN" ]; then
  echo "generate_python_stubs: needs protoc and grpc_python_plugin (apt-get install" \
       "protobuf-compiler protobuf-compiler-grpc)" >&2
  exit 2
fi

generate() {  # generate OUT: OUT/shardplan/v1/<the GENERATED files>
  (cd "$ROOT/proto" &&
   "$PROTOC" --proto_path=. --python_out="$1" --pyi_out="$1" --grpc_out="$1" \
     --plugin=protoc-gen-grpc="$PLUGIN" "${PROTOS[@]}")
}

case "${1:-}" in
  "")
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    generate "$out"
    for file in "${GENERATED[@]}"; do
      cp "$out/shardplan/v1/$file" "$ROOT/$STUBS/$file"
    done
    echo "generate_python_stubs: wrote ${GENERATED[*]} to $STUBS"
    ;;
  --check)
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    generate "$out"
    stale=()
    for file in "${GENERATED[@]}"; do
      cmp -s "$out/shardplan/v1/$file" "$ROOT/$STUBS/$file" || stale+=("$file")
    done
    if [ ${#stale[@]} -ne 0 ]; then
      echo "generate_python_stubs: $STUBS/{${stale[*]// /,}} differ from what proto/ generates;" \
           "run scripts/generate_python_stubs.sh and commit the result" >&2
      exit 1
    fi
    echo "generate_python_stubs: the ${#GENERATED[@]} committed stubs match proto/"
    ;;
  *)
    echo "usage: scripts/generate_python_stubs.sh [--check]" >&2
    exit 2
    ;;
esac
